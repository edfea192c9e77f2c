#!/bin/sh
# bench/stopping-rules.sh: build and run the stopping-rule simulation
# (stopping-rules.c) against libretrial-stats; prints a Markdown table and
# exits 1 if a false FIXED ever exceeds 5%. REPS (default 20000) and SEED
# (default 20261130) make it reproducible.
set -eu
cd "$(dirname "$0")"
mkdir -p out
cc -O2 -std=c11 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -I../lib \
	-o out/stopping-rules stopping-rules.c ../lib/rt_stats.c -lm
exec ./out/stopping-rules "${REPS:-20000}" "${SEED:-20261130}"
