#!/usr/bin/env bats
# .retrial.yml (retrial(7), CONFIGURATION): one file in the repository,
# read by libyaml, gives every tool its values; the command line wins;
# --print-config says where each value came from.
load helper

setup() {
	unset RETRIAL_CONFIG
	mkdir -p "$T/repo/sub/deeper"
	git -C "$T/repo" init -q
	cat >"$T/repo/.retrial.yml" <<'EOF2'
# this repository's retrial settings
confidence: 0.99
runner: pytest
quarantine: .retrial/quarantine.jsonl
rt-measure:
  trials: 7
  text: true
EOF2
}

@test "config: a tool in a subdirectory takes the repository's values, each with its FILE:LINE" {
	cd "$T/repo/sub/deeper"
	run rt-measure --print-config
	status_is 0
	[ "${lines[0]}" = "confidence=0.99	$T/repo/.retrial.yml:2" ]
	[ "${lines[1]}" = "runner=pytest	$T/repo/.retrial.yml:3" ]
	[ "${lines[2]}" = "trials=7	$T/repo/.retrial.yml:6" ]
	[ "${lines[3]}" = "text	$T/repo/.retrial.yml:7" ]
	[ "${#lines[@]}" -eq 4 ]
	# one key, each tool's own option: rt-quarantine's list is --file;
	# a relative path is from the file's directory, wherever the tool runs
	run rt-quarantine --print-config
	echo "$output" | grep -qx "file=$T/repo/.retrial/quarantine.jsonl	$T/repo/.retrial.yml:4"
	# rt-measure's section is rt-measure's alone
	run rt-collect --print-config
	! echo "$output" | grep -q '^trials='
}

@test "config: the values are used, and the command line wins" {
	cd "$T/repo/sub"
	run rt-measure --cmd true
	status_is 0
	# --text from the file, 7 trials, 99% confidence
	[ "$output" = "INCONCLUSIVE: 0/7 failed (≤48.3% at 99% confidence, not below the 10% threshold)" ]
	run rt-measure -n 3 --confidence 0.95 --cmd true
	echo "$output" | grep -q '^INCONCLUSIVE: 0/3 failed (≤[0-9.]*% at 95% confidence'
	run rt-measure -n 3 --print-config
	echo "$output" | grep -qx 'trials=3	command line'
	echo "$output" | grep -qx "trials=7	$T/repo/.retrial.yml:6 (the command line wins)"
}

@test "config: a malformed file, an unknown key, an unknown option are one line naming FILE:LINE, exit 2" {
	cd "$T/repo"
	printf 'confidence: 0.95\nthreshold: [0.1\n' >.retrial.yml
	run rt-measure --cmd true
	status_is 2
	[[ "$output" == "rt-measure: $T/repo/.retrial.yml:3: "* ]] || [[ "$output" == "rt-measure: $T/repo/.retrial.yml:2: "* ]]
	[ "${#lines[@]}" -eq 1 ]
	printf '\nconfidense: 0.9\n' >.retrial.yml
	run rt-plan --rate 0.1
	status_is 2
	[ "$output" = "rt-plan: $T/repo/.retrial.yml:2: confidense: unknown key (retrial(7), CONFIGURATION)" ]
	printf 'rt-measure:\n  bogus: 1\n' >.retrial.yml
	run rt-measure --cmd true
	status_is 2
	[ "$output" = "rt-measure: $T/repo/.retrial.yml:2: bogus: rt-measure has no option --bogus" ]
	printf 'rt-measure:\n  trials: [1, 2]\n' >.retrial.yml
	run rt-measure --cmd true
	status_is 2
	[ "$output" = "rt-measure: $T/repo/.retrial.yml:2: trials: expected one value, not a list or a mapping" ]
	printf -- '- a\n- b\n' >.retrial.yml
	run rt-measure --cmd true
	status_is 2
	[[ "$output" == *".retrial.yml:1: expected a mapping of keys to values" ]]
	# --help and --version whatever the file holds
	run rt-measure --help
	status_is 0
	run rt-measure --version
	status_is 0
}

@test "config: tokens, URLs, the sandbox and the guard are never taken from the repository's file" {
	cd "$T/repo"
	for kv in "rt-pr:github:https://127.0.0.1:9/" "rt-pr:token-file:/etc/shadow" \
	    "rt-verify:sandbox:none" "rt-verify:allow:neutering" "rt-verify:network:true" \
	    "rt-audit:webhook:http://127.0.0.1:9/" "rt-diagnose:key-file:/etc/shadow" \
	    "rt-collect:cmd:id"; do
		tool=${kv%%:*} rest=${kv#*:}
		printf '%s:\n  %s: %s\n' "$tool" "${rest%%:*}" "${rest#*:}" >.retrial.yml
		run "$tool" --print-config
		status_is 2
		[ "$output" = "$tool: $T/repo/.retrial.yml:2: ${rest%%:*}: not taken from a file in the repository; give it on the command line" ]
	done
}

@test "config: outside a repository only the working directory's file; another user's file is passed over" {
	mkdir -p "$T/norepo/a"
	cp "$T/repo/.retrial.yml" "$T/norepo/"
	cd "$T/norepo/a"
	run rt-measure --print-config
	status_is 0
	[ "$output" = "# no config file (.retrial.yml up to the repository's root, or \$RETRIAL_CONFIG)" ]
	cd "$T/norepo"
	run rt-measure --print-config
	echo "$output" | grep -q '^confidence=0.99'
	chmod o+w .retrial.yml
	run rt-measure --print-config
	status_is 0
	echo "$output" | grep -q 'not read: owned by another user or writable by all'
	! echo "$output" | grep -q '^confidence='
}

@test "config: RETRIAL_CONFIG names the file; set and empty, none is read" {
	printf 'confidence: 0.9\n' >"$T/other.yml"
	cd "$T/repo"
	RETRIAL_CONFIG="$T/other.yml" run rt-measure --print-config
	[ "$output" = "confidence=0.9	$T/other.yml:1" ]
	RETRIAL_CONFIG= run rt-measure --print-config
	[[ "$output" == "# no config file"* ]]
	RETRIAL_CONFIG="$T/missing.yml" run rt-measure --cmd true
	status_is 2
	[[ "$output" == "rt-measure: $T/missing.yml: No such file or directory" ]]
}
