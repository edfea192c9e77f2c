#!/bin/sh
# A flaky test that vanishes when observed slowly: each run takes a lock
# file that a background cleaner releases 300 ms after the run ends, so a
# run that starts sooner finds the lock still held and fails with BUSY.
lock=${LOCK:-${TMPDIR:-/tmp}/retrial-example-lingering.lock}
if ! mkdir "$lock" 2>/dev/null; then
	echo "lock: BUSY, $lock still held by an earlier run" >&2
	exit 1
fi
echo "lock taken"
# release asynchronously, the way a slow daemon would
(sleep 0.3; rmdir "$lock" 2>/dev/null) >/dev/null 2>&1 &
exit 0
