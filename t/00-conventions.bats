#!/usr/bin/env bats
# What every tool shares: --help, --version, one-line usage errors, a man page.
load helper

TOOLS="rt-collect rt-measure rt-plan rt-diff-facts rt-matrix rt-report rt-diagnose rt-verify rt-genome rt-pr rt-retry rt-audit rt-bisect rt-junit rt-quarantine"

@test "every tool: --help to stdout with a usage line, exit 0" {
	for t in $TOOLS; do
		run "$t" --help
		[ "$status" -eq 0 ] || { echo "$t --help: $status"; return 1; }
		echo "$output" | head -1 | grep -q "^usage: $t" || { echo "$t: $output" | head -2; return 1; }
	done
}

@test "every tool: -V and --version name the tool and retrial's version" {
	v=$(sed -n 's/^VERSION *= *//p' "$RT_TOP/Makefile")
	for t in $TOOLS; do
		[ "$("$t" --version)" = "$t (retrial) $v" ]
		[ "$("$t" -V)" = "$t (retrial) $v" ]
	done
}

@test "every tool: an unknown option is one line naming it, then Try --help, exit 2" {
	for t in $TOOLS; do
		run "$t" --bogus </dev/null
		[ "$status" -eq 2 ] || { echo "$t: exit $status"; return 1; }
		[ "${lines[0]}" = "$t: --bogus: unknown option" ] || { echo "$t: ${lines[0]}"; return 1; }
		[ "${lines[1]}" = "Try '$t --help' for more information." ]
		[ "${#lines[@]}" -eq 2 ]
	done
}

@test "every tool: a missing option value is named" {
	run rt-measure -n
	status_is 2
	has "rt-measure: -n: missing value"
	run rt-collect --out
	status_is 2
	has "rt-collect: --out: missing value"
	run rt-verify --help=x
	status_is 2
	has "rt-verify: --help: takes no value"
}

@test "every tool has a man page that passes mandoc -Tlint" {
	for t in $TOOLS; do
		[ -f "$RT_TOP/man/man1/$t.1" ]
		mandoc -Tlint -Wwarning "$RT_TOP/man/man1/$t.1"
	done
	mandoc -Tlint -Wwarning "$RT_TOP/man/man7/retrial.7" "$RT_TOP/man/man3/rt_stats.3"
}
