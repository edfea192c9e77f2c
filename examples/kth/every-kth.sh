#!/bin/sh
# A deterministic flaky target for tests: fails on every K-th trial (K=3 by
# default), counting by RETRIAL_TRIAL, with a recognisable word in stderr.
k=${K:-3}
n=${RETRIAL_TRIAL:-1}
echo "fixture: trial $n"
if [ $((n % k)) -eq 0 ]; then
	echo "fixture: EXHAUSTED pool after trial $n" >&2
	exit 1
fi
echo "fixture: ok"
exit 0
