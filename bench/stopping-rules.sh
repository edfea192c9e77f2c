#!/bin/sh
# bench/stopping-rules.sh: build and run the simulation of rt-verify's whole
# decision procedure (stopping-rules.c) against the shipped rules in lib/
# (rt_stats.c, rt_race.c); prints Markdown tables and exits 1 when a false
# FIXED rate is shown above 5%. REPS (default 20000) and SEED (default
# 20261130) make it reproducible; WEAKEN=1 confirms at 80% instead, which
# the gate must catch.
set -eu
cd "$(dirname "$0")"
mkdir -p out
cc -O2 -std=c11 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Werror -I../lib \
	-o out/stopping-rules stopping-rules.c ../lib/rt_race.c ../lib/rt_stats.c -lm
exec ./out/stopping-rules "${REPS:-20000}" "${SEED:-20261130}"
