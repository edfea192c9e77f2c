# t/helper.bash: shared by every t/*.bats file. Puts the built tools first
# on PATH, gives each test a scratch directory, and keeps tests offline.
RT_TOP="$(cd "$BATS_TEST_DIRNAME/.." && pwd)"
export PATH="$RT_TOP/bin:$PATH"
# make check VALGRIND=1 (RT_VALGRIND=1): every tool found on PATH runs
# under valgrind, which exits 97 on a memory error or a definite leak
# (jq's tests/setup does the same). Tests that name $RT_TOP/bin/... run bare.
if [ "${RT_VALGRIND:-}" = 1 ]; then
	mkdir -p "$BATS_TEST_TMPDIR/vgbin"
	for _t in "$RT_TOP"/bin/rt-*; do
		case "$_t" in *.o|*.c) continue ;; esac
		[ -x "$_t" ] || continue
		printf '#!/bin/sh
exec valgrind -q --error-exitcode=97 --leak-check=full --errors-for-leak-kinds=definite,indirect --trace-children=no "%s" "$@"
' \
		    "$_t" >"$BATS_TEST_TMPDIR/vgbin/${_t##*/}"
		chmod +x "$BATS_TEST_TMPDIR/vgbin/${_t##*/}"
	done
	export PATH="$BATS_TEST_TMPDIR/vgbin:$PATH"
fi
export RT_TOP
export RETRIAL_NO_TTY=1
export RETRIAL_SHAREDIR="$RT_TOP/share/retrial"
export XDG_CACHE_HOME="$BATS_TEST_TMPDIR/cache"
# the Go inventory helper built once per test run, not once per test (a
# test of the build itself unsets this)
export RETRIAL_HELPER_CACHE="${BATS_RUN_TMPDIR:-${TMPDIR:-/tmp}}/retrial-helpers"
export XDG_DATA_HOME="$BATS_TEST_TMPDIR/data"
unset RETRIAL_API_KEY FIREWORKS_API_KEY RETRIAL_MODELS GITHUB_TOKEN GITHUB_REPOSITORY GITHUB_RUN_ID GITHUB_SERVER_URL
# no .retrial.yml above a test's directory configures it (t/76 unsets this)
export RETRIAL_CONFIG=
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

# A HOME, TMPDIR and git identity of the test's own (t/22, t/23, t/24:
# tests that commit to a scratch project and write an mbox).
git_scratch_home() {
	export HOME="$T/home" GIT_CONFIG_NOSYSTEM=1
	mkdir -p "$HOME" "$T/tmp"
	export TMPDIR="$T/tmp"
	git config --global user.name "Test User"
	git config --global user.email test@example.invalid
	git config --global init.defaultBranch main
}

# git_project DIR: a copy of DIR in $T/p, committed as one git project.
git_project() {
	cp -R "$1" "$T/p"
	git -C "$T/p" init -q
	git -C "$T/p" add -A
	git -C "$T/p" commit -qm "the project"
}
