# t/helper.bash: shared by every t/*.bats file. Puts the built tools first
# on PATH, gives each test a scratch directory, and keeps tests offline.
RT_TOP="$(cd "$BATS_TEST_DIRNAME/.." && pwd)"
export PATH="$RT_TOP/bin:$PATH"
export RT_TOP
export RETRIAL_NO_TTY=1
export RETRIAL_SHAREDIR="$RT_TOP/share/retrial"
export XDG_CACHE_HOME="$BATS_TEST_TMPDIR/cache"
export XDG_DATA_HOME="$BATS_TEST_TMPDIR/data"
unset RETRIAL_API_KEY FIREWORKS_API_KEY RETRIAL_MODELS GITHUB_TOKEN
export RETRIAL_API_BASE="http://127.0.0.1:9/unreachable"
EX="$RT_TOP/examples"
T="$BATS_TEST_TMPDIR"

# Assert that the last `run` exited with the given status; show output if not.
status_is() {
	if [ "$status" -ne "$1" ]; then
		echo "expected exit $1, got $status; output:" >&2
		echo "$output" >&2
		return 1
	fi
}

# Assert that $output contains a fixed string.
has() {
	case "$output" in
	*"$1"*) return 0 ;;
	esac
	echo "output lacks: $1" >&2
	echo "output: $output" >&2
	return 1
}

# Assert that $output does not contain a fixed string.
hasnt() {
	case "$output" in
	*"$1"*) echo "output has: $1" >&2; echo "$output" >&2; return 1 ;;
	esac
	return 0
}

# jq -e on a file or stdin, failing loudly.
jqe() {
	jq -e "$@" >/dev/null || { echo "jq -e $* failed" >&2; return 1; }
}
