#!/bin/sh
# Split 400 trials of a test over 4 shards with GNU parallel, then merge.
# Add --sshlogin host1,host2 to spread the shards over machines (each needs
# retrial installed and the test checked out at the same path).
set -eu
T=${T:-"$(dirname "$0")/../kth/every-kth.sh"}
N=${N:-400}
SHARDS=${SHARDS:-4}
out=${OUT:-.}
seq 1 "$SHARDS" | parallel --will-cite \
	rt-collect -n "$N" --shard {}/"$SHARDS" --seed 7 -o "$out/shard-{}.jsonl" -- "$T"
cat "$out"/shard-*.jsonl | rt-measure --text
