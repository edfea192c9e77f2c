#!/bin/sh
# Merge shard files into one measurement (and the evidence summary).
set -eu
[ $# -gt 0 ] || { echo "usage: merge.sh shard-*.jsonl" >&2; exit 2; }
cat "$@" | rt-measure
cat "$@" | rt-diff-facts
