#!/bin/sh
# Rerun a whole test suite N times, split over SHARDS with GNU parallel,
# each run writing a JUnit report; merge the shards with cat and print every
# test case's rate and verdict. Run it in the suite's directory, e.g.:
#   N=60 SHARDS=4 sh suite-rerun.sh
# Add --sshlogin host1,host2 to parallel to spread the shards over machines.
set -eu
N=${N:-30}
SHARDS=${SHARDS:-2}
out=${OUT:-.}
# single quotes: $RETRIAL_JUNIT is each trial's own report path; parallel -q
# passes the command through unsplit
SUITE=${SUITE:-'/usr/bin/python3 -m pytest -q -p random_order --random-order --junitxml="$RETRIAL_JUNIT"'}
seq 1 "$SHARDS" | parallel --will-cite -q \
	rt-collect -n "$N" --shard {}/"$SHARDS" --junit -o "$out/suite-{}.jsonl" --cmd "$SUITE"
# a shard file given twice would be dropped as repeats, with a warning
cat "$out"/suite-*.jsonl | rt-measure --by case --text
