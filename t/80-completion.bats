#!/usr/bin/env bats
# bash completion: made by make from each tool's --list-options, which
# prints the tool's own getopt_long table.
load helper

C="$RT_TOP/share/bash-completion/completions"

# complete WORD... : the candidates for the last word, one a line
complete_words() {
	local tool=$1
	shift
	bash -c 'source "$1"; f=$2; shift 2; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1));
	    complete -p "${COMP_WORDS[0]}" >/dev/null || exit 3
	    "$f"; printf "%s\n" "${COMPREPLY[@]}"' _ "$C/$tool" "_$(echo "$tool" | tr - _)" "$tool" "$@"
}

@test "--list-options prints the long options, values marked with =" {
	run rt-verify --list-options
	status_is 0
	has "--allow="
	has "--max-trials="
	has "--keep"
	hasnt "--keep="
	hasnt "list-options"
	[ "$(rt-verify --help | grep -c list-options)" -eq 0 ]
}

@test "every tool with --list-options has a completion file naming its options" {
	n=0
	for t in $(cd "$RT_TOP/bin" && ls rt-* | grep -v '\.[co]$'); do
		"$t" --list-options >/dev/null 2>&1 || continue
		n=$((n + 1))
		[ -f "$C/$t" ] || { echo "no completion for $t" >&2; return 1; }
		for o in $("$t" --list-options | sed 's/=$//'); do
			grep -qE -- "[' ]$o[ ']" "$C/$t" || { echo "$t: $o missing" >&2; return 1; }
		done
	done
	[ "$n" -ge 10 ]
}

@test "every tool answers --list-options" {
	for t in collect measure plan diff-facts matrix report diagnose verify genome retry pr audit bisect junit; do
		run rt-$t --list-options
		status_is 0
		has "--help"
	done
}

@test "the rt-verify completion offers --allow and --max-trials" {
	run complete_words rt-verify --ma
	status_is 0
	[ "$(echo "$output" | sort | tr '\n' ' ')" = "--max-output --max-trials " ]
	run complete_words rt-verify -n 30 --al
	status_is 0
	[ "$(echo "$output" | sort | tr '\n' ' ')" = "--allow --allow-path " ]
}

@test "a word that is not an option is left to file name completion" {
	run complete_words rt-report pool
	status_is 0
	[ -z "$output" ]
	run bash -c ". '$C/rt-report'; complete -p rt-report"
	has "-o default"
}

@test "make install puts one completion per tool in the bash-completion directory" {
	make -s -C "$RT_TOP" install DESTDIR="$T/root" PREFIX=/usr >/dev/null
	[ -f "$T/root/usr/share/bash-completion/completions/rt-verify" ]
	[ -f "$T/root/usr/share/bash-completion/completions/rt-retry" ]
	grep -q -- "--max-trials" "$T/root/usr/share/bash-completion/completions/rt-verify"
}

@test "every option in a tool's table is in its man page (--jobs in rt-measure, rt-matrix, rt-verify)" {
	for t in collect measure plan diff-facts matrix report diagnose verify genome retry; do
		for o in $(rt-$t --list-options | sed 's/=$//; s/^--//'); do
			grep -qE -- "Fl (-|Fl )$o( |$)" "$RT_TOP/man/man1/rt-$t.1" ||
			    { echo "rt-$t.1 lacks --$o" >&2; return 1; }
		done
	done
	for t in measure matrix verify; do
		grep -q -- "Fl -jobs" "$RT_TOP/man/man1/rt-$t.1"
	done
}

@test "after -- the words are the test command's: no tool options offered" {
	run complete_words rt-measure -- ./test --
	status_is 0
	[ -z "$output" ]
	run complete_words rt-measure --tr
	[ "$output" = "--trials" ]
}
