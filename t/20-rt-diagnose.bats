#!/usr/bin/env bats
# rt-diagnose: hypotheses from a fake chat-completions server on loopback,
# from the cache, and from rules. Nothing here reaches the network.
load helper

KEY=sk-test-SECRET-4242

setup() {
	mkdir -p "$T/proj"
	python3 "$BATS_TEST_DIRNAME/fake-llm.py" --fixture "$T/proj"
	python3 "$BATS_TEST_DIRNAME/fake-llm.py" --log "$T/llm.log" >"$T/port" 2>"$T/llm.err" &
	LLM_PID=$!
	for _ in $(seq 200); do [ -s "$T/port" ] && break; sleep 0.05; done
	[ -s "$T/port" ]
	export RETRIAL_API_BASE="http://127.0.0.1:$(cat "$T/port")/v1"
	export RETRIAL_API_KEY=$KEY
	cat >"$T/ev.jsonl" <<-'EOF'
	{"type":"measure","command":"./test_flaky.sh","trials":40,"failures":12,"timeouts":0,"errors":0,"ignored":0,"rate":0.3,"ci_low":0.181,"ci_high":0.454,"confidence":0.95,"verdict":"FLAKY","summary":"12/40 failed (30.0%, 95% CI 18.1–45.4%)","elapsed_s":3.2}
	{"type":"trial","trial":1,"outcome":"pass","command":"./test_flaky.sh","stderr":"","stdout":"ok"}
	{"type":"trial","trial":2,"outcome":"fail","command":"./test_flaky.sh","stderr":"fixture: NOTREADY\n","stdout":""}
	{"type":"diff","trials":40,"failures":12,"errors":0,"token":"NOTREADY","failure_trials":[2,5,9],"facts":[{"kind":"token","stream":"stderr","value":"NOTREADY","direction":"failure_only","in_failures":12,"failures":12,"in_successes":0,"successes":28,"p":1.2e-12}]}
	{"type":"experiment","name":"slow","perturbation":{"gap_ms":2000},"probe":"ok","control":{"trials":40,"failures":12,"summary":"12/40 failed (30.0%, 95% CI 18.1–45.4%)"},"perturbed":{"trials":20,"failures":0,"summary":"0/20 failed (≤16.1% at 95% confidence)"},"implicated":true,"effect":"stabilises","changed":true,"note":"intervals disjoint"}
	EOF
}

teardown() {
	if [ -n "$LLM_PID" ]; then
		kill "$LLM_PID" 2>/dev/null || true
		wait "$LLM_PID" 2>/dev/null || true
	fi
}

diagnose() {
	rt-diagnose -C "$T/proj" -s test_flaky.sh "$@"
}

# The requests the fake server logged for one model.
requests() {
	jq -c --arg m "$1" 'select(.event == "request" and .body.model == $m)' "$T/llm.log"
}

# Does the patch of hypothesis $1 (in $T/out) apply to a fresh copy?
applies() {
	rm -rf "$T/copy" && cp -R "$T/proj" "$T/copy"
	jq -r --arg id "$1" 'select(.id == $id) | .patch' "$T/out" >"$T/p.diff"
	patch -p1 --batch --forward -s -d "$T/copy" <"$T/p.diff"
}

# ---- usage and exit codes -------------------------------------------------

@test "--help prints the synopsis and exits 0; --version" {
	run rt-diagnose --help
	status_is 0
	has "usage: rt-diagnose"
	has "--offline"
	run rt-diagnose --version
	status_is 0
	has "rt-diagnose"
}

@test "bad options and values exit 2 and name the value" {
	run rt-diagnose --bogus </dev/null
	status_is 2
	run rt-diagnose --timeout abc </dev/null
	status_is 2
	has "--timeout abc"
	run rt-diagnose --max-response 10 </dev/null
	status_is 2
	has "--max-response 10"
	run rt-diagnose --offline --no-cache </dev/null
	status_is 2
	has "add --rules"
}

@test "a --source outside the project is an error" {
	echo x >"$T/outside.py"
	run rt-diagnose -C "$T/proj" -s "$T/outside.py" </dev/null
	status_is 2
	has "outside the project"
	run rt-diagnose -C "$T/proj" -s ../outside.py </dev/null
	status_is 2
	has "outside the project"
}

@test "--models carries model names only, never the key" {
	run diagnose -m "good,$KEY" "$T/ev.jsonl"
	status_is 2
	has "API key"
	hasnt "$KEY"
	run diagnose -m 'good;rm -rf /' "$T/ev.jsonl"
	status_is 2
	has "not a model name"
	[ ! -s "$T/llm.log" ]
}

@test "a template with an unknown placeholder names its line" {
	printf 'line one\n{{command}} and {{nonsense}}\n' >"$T/tpl.txt"
	run diagnose -m good --template "$T/tpl.txt" "$T/ev.jsonl"
	status_is 2
	has "tpl.txt:2: unknown placeholder {{nonsense}}"
	[ ! -s "$T/llm.log" ]
}

# ---- answers from models --------------------------------------------------

@test "a good answer: an ok hypothesis whose patch applies" {
	run diagnose -m good "$T/ev.jsonl"
	status_is 0
	echo "$output" >"$T/out"
	[ "$(wc -l <"$T/out")" -eq 1 ]
	jqe '.type == "hypothesis" and .id == "h1" and .source == "model:good"
	    and .model == "good" and .status == "ok" and .cause_class == "race_condition"
	    and .files == ["test_flaky.sh"] and (.evidence_digest | test("^[0-9a-f]{64}$"))' "$T/out"
	applies h1
	grep -q '^wait$' "$T/copy/test_flaky.sh"
	! grep -q '^sleep 0.02$' "$T/copy/test_flaky.sh"
}

@test "the request: key in the Authorization header, JSON asked for, evidence in the prompt" {
	run diagnose -m good "$T/ev.jsonl"
	status_is 0
	hasnt "$KEY"
	requests good >"$T/req"
	[ "$(wc -l <"$T/req")" -eq 1 ]
	jqe --arg k "Bearer $KEY" '.headers.Authorization == $k' "$T/req"
	jqe '.path == "/v1/chat/completions" and .body.response_format.type == "json_object"' "$T/req"
	jq -r '.body.messages[0].content' "$T/req" >"$T/prompt"
	grep -q '12/40 failed (30.0%, 95% CI 18.1–45.4%)' "$T/prompt"
	grep -q 'Failing-only token: NOTREADY' "$T/prompt"
	grep -q 'fixture: NOTREADY' "$T/prompt"
	grep -q 'slow {"gap_ms":2000}: control 12/40' "$T/prompt"
	grep -q 'FILE: test_flaky.sh' "$T/prompt"
	grep -q '^sleep 0.02$' "$T/prompt"
	grep -q 'timing and concurrency' "$T/prompt"
	! grep -q '{{' "$T/prompt"
}

@test "an answer wrapped in prose and code fences is still read" {
	run diagnose -m prose "$T/ev.jsonl"
	status_is 0
	echo "$output" >"$T/out"
	jqe '.status == "ok" and .source == "model:prose"' "$T/out"
	applies h1
}

@test "a whole replacement file becomes a diff" {
	run diagnose -m wholefile,patchwhole "$T/ev.jsonl"
	status_is 0
	echo "$output" >"$T/out"
	jqe -s 'map(.status) == ["ok", "ok"]' "$T/out"
	jqe -s '.[0].cause_class == "race_condition"' "$T/out"
	jqe -s 'all(.patch | startswith("--- a/test_flaky.sh\n+++ b/test_flaky.sh\n@@ "))' "$T/out"
	applies h1
	grep -q '^wait$' "$T/copy/test_flaky.sh"
	applies h2
	grep -q '^wait$' "$T/copy/test_flaky.sh"
}

@test "a whole file in \"patch\" with \"file\" naming it becomes a diff among several sources" {
	printf 'x = 1\n' >"$T/proj/other.py"
	run diagnose -s other.py -m namedwhole "$T/ev.jsonl"
	status_is 0
	echo "$output" >"$T/out"
	jqe '.status == "ok" and .files == ["test_flaky.sh"]' "$T/out"
	applies h1
	grep -q '^wait$' "$T/copy/test_flaky.sh"
}

@test "a whole file outside the project is unsafe_path" {
	run diagnose -m wholeescape "$T/ev.jsonl"
	status_is 0
	echo "$output" | jqe '.status == "unsafe_path" and .patch == null'
	[ ! -e "$T/outside.sh" ]
}

@test "a miscounted diff without a/ b/ prefixes comes out canonical; a bare diff is read" {
	run diagnose -m miscount,rawdiff "$T/ev.jsonl"
	status_is 0
	echo "$output" >"$T/out"
	jqe -s 'map(.status) == ["ok", "ok"]' "$T/out"
	jqe -s '.[0].patch | startswith("--- a/test_flaky.sh\n+++ b/test_flaky.sh\n@@ -2,7 +2,7 @@\n")' "$T/out"
	jqe -s '.[1].cause_class == "unknown"' "$T/out"
	applies h1
	applies h2
}

@test "N models look through N different angles" {
	run diagnose -m good-a,good-b,good-c,good-d "$T/ev.jsonl"
	status_is 0
	echo "$output" >"$T/out"
	jqe -s 'map(.id) == ["h1", "h2", "h3", "h4"]' "$T/out"
	jqe -s 'map(.angle) | unique | length == 4' "$T/out"
	jqe -s '.[0].angle == "timing"' "$T/out"
	[ "$(jq -r '.body.messages[0].content' "$T/llm.log" | grep -c 'lens first')" -eq 4 ]
	[ "$(jq -r '.body.messages[0].content | split("\n")[2]' "$T/llm.log" | sort -u | wc -l)" -eq 4 ]
}

@test "a truncated answer (finish_reason length) is marked truncated" {
	run diagnose -m truncated,good "$T/ev.jsonl"
	status_is 0
	echo "$output" | grep '^{' >"$T/out"
	jqe -s '.[0].status == "truncated" and .[0].patch == null and (.[0].error | test("length"))' "$T/out"
	jqe -s '.[1].status == "ok"' "$T/out"
}

@test "429 then success: asked again after its Retry-After, answered" {
	run diagnose -m flaky429 "$T/ev.jsonl"
	status_is 0
	echo "$output" >"$T/out"
	jqe '.status == "ok"' "$T/out"
	[ "$(requests flaky429 | wc -l)" -eq 2 ]
	# the server counts a request sooner than its Retry-After as "early"
	! jq -e 'select(.event == "early")' "$T/llm.log" >/dev/null
}

@test "models are asked in parallel: both requests arrive before either reply" {
	run diagnose -m slow-a,slow-b "$T/ev.jsonl"
	status_is 0
	echo "$output" | jqe -s 'map(.status) == ["ok", "ok"]'
	jq -r 'select(.event == "request" or .event == "reply") | .event' "$T/llm.log" >"$T/order"
	[ "$(paste -sd, "$T/order")" = "request,request,reply,reply" ]
}

@test "500 forever: three tries, an http_error hypothesis, and the run goes on" {
	run diagnose -m err500,good "$T/ev.jsonl"
	status_is 0
	echo "$output" | grep '^{' >"$T/out"
	jqe -s '.[0].status == "http_error" and .[0].patch == null and (.[0].error | test("HTTP 500 after 3 tries"))' "$T/out"
	has "rt-diagnose: model err500 failed: HTTP 500 after 3 tries"
	jqe -s '.[1].status == "ok"' "$T/out"
	[ "$(requests err500 | wc -l)" -eq 3 ]
	[ "$(requests good | wc -l)" -eq 1 ]
}

@test "a hang past --timeout is a timeout, not a stuck run" {
	run diagnose -t 1 -m hang,good "$T/ev.jsonl"
	status_is 0
	echo "$output" | grep '^{' >"$T/out"
	jqe -s '.[0].status == "timeout" and .[0].source == "model:hang"' "$T/out"
	jqe -s '.[1].status == "ok"' "$T/out"
}

@test "a response larger than --max-response is truncated" {
	run diagnose --max-response 65536 -m big "$T/ev.jsonl"
	status_is 2
	has "rt-diagnose: model big failed: the response was larger than --max-response"
	echo "$output" | grep '^{' >"$T/out"
	jqe '.status == "truncated" and (.error | test("max-response"))' "$T/out"
}

@test "a patch that leaves the project is refused: unsafe_path" {
	run diagnose -m escape,absolute "$T/ev.jsonl"
	status_is 0
	echo "$output" >"$T/out"
	jqe -s 'map(.status) == ["unsafe_path", "unsafe_path"]' "$T/out"
	jqe -s 'all(.patch == null and .files == [])' "$T/out"
	jqe -s '.[0].error | test("\\.\\.")' "$T/out"
	jqe -s '.[1].error | test("absolute")' "$T/out"
	[ ! -e "$T/etc" ] && [ ! -e "$T/proj/etc" ]
}

@test "a symlink inside the project that leads outside is unsafe_path too" {
	mkdir -p "$T/elsewhere"
	ln -s "$T/elsewhere" "$T/proj/link"
	mkdir -p "$T/cache/retrial"
	run diagnose -m good "$T/ev.jsonl"
	status_is 0
	# a cached answer for these sources that writes through the link
	f=$(ls "$T/cache/retrial/sources"/*/*.jsonl)
	jq -c '.patch = "--- a/link/x\n+++ b/link/x\n@@ -0,0 +1 @@\n+owned\n"' "$f" >"$f.new"
	mv "$f.new" "$f"
	run rt-diagnose --offline -C "$T/proj" -s test_flaky.sh </dev/null
	status_is 0
	echo "$output" | grep '^{' | jqe '.source == "cache" and .status == "unsafe_path"'
	[ ! -e "$T/elsewhere/x" ]
}

@test "prose without JSON is unparseable; a server refusing response_format is asked without it" {
	run diagnose -m babble,nojsonmode "$T/ev.jsonl"
	status_is 0
	echo "$output" | grep '^{' >"$T/out"
	jqe -s 'map(.status) == ["unparseable", "ok"]' "$T/out"
	requests nojsonmode >"$T/req"
	[ "$(wc -l <"$T/req")" -eq 2 ]
	[ "$(sed -n 2p "$T/req" | jq '.body | has("response_format")')" = false ]
}

@test "an API error is an http_error with the API's message" {
	run diagnose -m apierror "$T/ev.jsonl"
	# every model failed: said on stderr, and no hypothesis is exit 2
	status_is 2
	has "rt-diagnose: model apierror failed: HTTP 401: invalid API key"
	has "rt-diagnose: no hypothesis names a cause: 1 written, each unknown or a model's failure"
	echo "$output" | grep '^{' | jqe '.status == "http_error" and .error == "HTTP 401: invalid API key"'
}

@test "the key never reaches stdout, stderr or the cache, even when a server echoes it" {
	run diagnose -v -m echo,good,err500 "$T/ev.jsonl"
	status_is 0
	hasnt "$KEY"
	has "Authorization (not shown)"
	has "[redacted]"
	grep -q "$KEY" "$T/llm.log"
	[ -d "$T/cache/retrial/hypotheses" ]
	! grep -r -q "$KEY" "$T/cache"
}

@test "a patch holding the key is dropped, not mangled; a short placeholder key is not redacted" {
	# the key "wait" is a word of the fix: the patch would apply "[redacted]"
	RETRIAL_API_KEY=wait run diagnose -m good "$T/ev.jsonl"
	status_is 0
	echo "$output" | jqe '.status == "ok" and (.patch | test("\\+wait\n"))'
	hasnt "[redacted]"
	RETRIAL_API_KEY=sleep-0.01-echo-ready run diagnose --no-cache -m good "$T/ev.jsonl"
	status_is 0
	hasnt "sleep-0.01-echo-ready"
	RETRIAL_API_KEY="fixture: NOTREADY" run diagnose --no-cache -m good "$T/ev.jsonl"
	status_is 0
	echo "$output" | jqe '.status == "no_patch" and .patch == null and (.error | test("API key"))'
	hasnt "fixture: NOTREADY"
}

@test "--key-file and FIREWORKS_API_KEY give the key" {
	printf '%s\n' "file-key-123" >"$T/keyfile"
	unset RETRIAL_API_KEY
	run diagnose --key-file "$T/keyfile" -m good "$T/ev.jsonl"
	status_is 0
	requests good | jqe '.headers.Authorization == "Bearer file-key-123"'
	: >"$T/llm.log"
	FIREWORKS_API_KEY=fw-key-456 run diagnose -m good --no-cache "$T/ev.jsonl"
	status_is 0
	requests good | jqe '.headers.Authorization == "Bearer fw-key-456"'
}

# ---- the cache --------------------------------------------------------------

@test "cache hit: a second run with the server stopped gives the same hypotheses" {
	run diagnose -m good,decoy "$T/ev.jsonl"
	status_is 0
	echo "$output" >"$T/first"
	kill "$LLM_PID"; wait "$LLM_PID" 2>/dev/null || true; LLM_PID=
	run diagnose -m good,decoy "$T/ev.jsonl"
	status_is 0
	echo "$output" >"$T/second"
	jqe -s 'all(.source == "cache")' "$T/second"
	[ "$(jq -c '{id, model, angle, cause_class, explanation, patch, files, status, evidence_digest}' "$T/first")" = \
	  "$(jq -c '{id, model, angle, cause_class, explanation, patch, files, status, evidence_digest}' "$T/second")" ]
	ls "$T/cache/retrial/hypotheses"/*/*.jsonl >/dev/null
}

@test "the cache key covers the template, the evidence and the sources" {
	run diagnose -m good "$T/ev.jsonl"
	status_is 0
	run diagnose -m good "$T/ev.jsonl"
	echo "$output" | jqe '.source == "cache"'
	[ "$(requests good | wc -l)" -eq 1 ]
	# another template: a miss, asked again
	sed 's/^A test fails intermittently/A test fails now and then/' \
	    "$RT_TOP/share/retrial/prompt.txt" >"$T/tpl.txt"
	run diagnose -m good --template "$T/tpl.txt" "$T/ev.jsonl"
	echo "$output" | jqe '.source == "model:good"'
	[ "$(requests good | wc -l)" -eq 2 ]
	# other evidence: a miss
	sed 's/"failures":12,"timeouts"/"failures":13,"timeouts"/' "$T/ev.jsonl" >"$T/ev2.jsonl"
	run diagnose -m good "$T/ev2.jsonl"
	echo "$output" | jqe '.source == "model:good"'
	[ "$(requests good | wc -l)" -eq 3 ]
	# another source text: a miss
	echo '# changed' >>"$T/proj/test_flaky.sh"
	run diagnose -m good "$T/ev.jsonl"
	echo "$output" | jqe '.source == "model:good"'
	[ "$(requests good | wc -l)" -eq 4 ]
}

@test "--no-cache asks again" {
	run diagnose -m good "$T/ev.jsonl"
	run diagnose -m good --no-cache "$T/ev.jsonl"
	status_is 0
	echo "$output" | jqe '.source == "model:good"'
	[ "$(requests good | wc -l)" -eq 2 ]
}

@test "--offline with a cache miss is exit 2 and a clear message" {
	run diagnose --offline -m good "$T/ev.jsonl"
	status_is 2
	has "no cached hypothesis"
	has "--rules"
	hasnt '"type"'
	[ ! -s "$T/llm.log" ]
}

@test "--offline makes no socket at all (strace)" {
	command -v strace >/dev/null || skip "no strace"
	run diagnose -m good "$T/ev.jsonl"
	status_is 0
	# LeakSanitizer cannot run under ptrace (make check SANITIZE=1)
	ASAN_OPTIONS=detect_leaks=0 run strace -f -qq -e trace=socket,connect -o "$T/trace" \
	    rt-diagnose --offline --rules -C "$T/proj" -s test_flaky.sh -m good,other "$T/ev.jsonl"
	status_is 0
	[ -e "$T/trace" ]
	! grep -E 'socket\(|connect\(' "$T/trace"
}

@test "--offline never opens a socket, hit or miss" {
	run diagnose -m good "$T/ev.jsonl"
	status_is 0
	: >"$T/llm.log"
	run diagnose --offline -m good "$T/ev.jsonl"
	status_is 0
	echo "$output" | jqe '.source == "cache"'
	run diagnose --offline --rules -m other-model "$T/ev.jsonl"
	status_is 0
	has '"source":"rules"'
	run diagnose --offline --rules -m good /dev/null
	status_is 0
	[ ! -s "$T/llm.log" ]
}

@test "cached for these sources: used when no model is configured, under the names they have now" {
	run diagnose -m good "$T/ev.jsonl"
	status_is 0
	kill "$LLM_PID"; wait "$LLM_PID" 2>/dev/null || true; LLM_PID=
	# other evidence, no model, and the project seen from its parent
	run rt-diagnose -C "$T" -s proj/test_flaky.sh </dev/null
	status_is 0
	echo "$output" | grep '^{' >"$T/out"
	jqe '.source == "cache" and .status == "ok" and .files == ["proj/test_flaky.sh"]' "$T/out"
	jqe '.patch | startswith("--- a/proj/test_flaky.sh\n+++ b/proj/test_flaky.sh\n")' "$T/out"
}

@test "the shipped cache has a fix and a decoy for examples/timing" {
	unset RETRIAL_API_KEY
	run rt-diagnose --offline -C "$EX/timing" -s test_cache.py </dev/null
	status_is 0
	echo "$output" | grep '^{' >"$T/out"
	jqe -s 'length == 2 and all(.source == "cache" and .status == "ok" and .files == ["test_cache.py"])' "$T/out"
	jqe -s 'map(.cause_class) == ["race_condition", "timing"]' "$T/out"
	cp -R "$EX/timing" "$T/timing"
	jq -r 'select(.id == "h1") | .patch' "$T/out" | patch -p1 --batch --forward -s -d "$T/timing"
	for s in 11 22 33 44 55 66 77 88 99 111 222 333 444 555 666 777 888 999 1234 4321; do
		RETRIAL_SEED=$s python3 "$T/timing/test_cache.py" >/dev/null
	done
	# from the repository root with no model configured: the same entries
	cd "$RT_TOP"
	run rt-diagnose -s examples/timing/test_cache.py </dev/null
	status_is 0
	echo "$output" | grep '^{' | jqe -s 'length == 2 and all(.files == ["examples/timing/test_cache.py"])'
	[ ! -s "$T/llm.log" ]
}

@test "the README pipeline: a diff record alone, then with the trial records" {
	cat >"$T/trials.jsonl" <<-'EOF'
	{"type":"trial","trial":1,"outcome":"pass","command":"./test_flaky.sh","stderr":"all good\n","stdout":""}
	{"type":"trial","trial":2,"outcome":"fail","command":"./test_flaky.sh","stderr":"fixture: NOTREADY\n","stdout":""}
	{"type":"trial","trial":3,"outcome":"error","command":"./test_flaky.sh","stderr":"","stdout":"","error":"spawn"}
	EOF
	rt-diff-facts "$T/trials.jsonl" >"$T/diff.jsonl"
	run diagnose -m good-a "$T/diff.jsonl"
	status_is 0
	# rt-diff-facts carries the command and both excerpts in the diff record
	hasnt "no trial records"
	echo "$output" | grep '^{' | jqe '.status == "ok"'
	requests good-a | jq -r '.body.messages[0].content' >"$T/prompt"
	grep -q '^1/2 failed' "$T/prompt"
	grep -q 'Failing-only token: NOTREADY' "$T/prompt"
	grep -q '^fixture: NOTREADY$' "$T/prompt"
	grep -Fxq './test_flaky.sh' "$T/prompt"
	# without them (an older diff record) it says the prompt lacks excerpts
	jq -c 'del(.command, .excerpts)' "$T/diff.jsonl" >"$T/diff0.jsonl"
	run diagnose -m good-d "$T/diff0.jsonl"
	status_is 0
	has "no trial records"
	# the diff first on stdin, then the trials: excerpts and the command too
	run diagnose -m good-b - "$T/trials.jsonl" <"$T/diff.jsonl"
	status_is 0
	hasnt "no trial records"
	requests good-b | jq -r '.body.messages[0].content' >"$T/prompt"
	grep -q '^1/2 failed' "$T/prompt"
	grep -q '^fixture: NOTREADY$' "$T/prompt"
	grep -q '^all good$' "$T/prompt"
	grep -Fxq './test_flaky.sh' "$T/prompt"
	# a diff record that carries excerpts itself
	jq -c '.command = "./test_flaky.sh" | .excerpts = {failing: {trial: 2, stderr: "fixture: NOTREADY\n"}, passing: {trial: 1, stderr: "all good\n"}}' \
	    "$T/diff.jsonl" >"$T/diff2.jsonl"
	run diagnose -m good-c "$T/diff2.jsonl"
	status_is 0
	hasnt "no trial records"
	requests good-c | jq -r '.body.messages[0].content' >"$T/prompt"
	grep -q '^fixture: NOTREADY$' "$T/prompt"
	grep -q '^all good$' "$T/prompt"
}

@test "a pytest failure on stdout: the prompt shows it, labelled stdout" {
	cp -R "$BATS_TEST_DIRNAME/fixtures/evidence/pytest-order" "$T/py"
	(cd "$T/py" && rt-collect -n 3 --seed 1 -- /usr/bin/python3 -m pytest -p random_order \
	    --random-order .) >"$T/py.jsonl"
	jqe -s 'map(.outcome) == ["fail", "fail", "pass"] and all(.stderr == "")' "$T/py.jsonl"
	# the trial records alone, and the diff record alone
	rt-diff-facts "$T/py.jsonl" >"$T/py.diff"
	for ev in jsonl diff; do
		run diagnose -m good-$ev "$T/py.$ev"
		status_is 0
		requests good-$ev | jq -r '.body.messages[0].content' >"$T/prompt"
		grep -qx '== stdout of one failing run ==' "$T/prompt"
		grep -q '^E  *AssertionError: assert \[.x.\] == \[\]$' "$T/prompt"
		grep -qx '== stdout of one passing run ==' "$T/prompt"
		! grep -qx '(empty)' "$T/prompt"
	done
}

@test "the prompt holds the evidence, not the answer" {
	run diagnose -m good "$T/ev.jsonl"
	status_is 0
	requests good | jq -r '.body.messages[0].content' >"$T/prompt"
	# the rate with n and interval, the experiment that moved it, both excerpts
	grep -q '12/40 failed (30.0%, 95% CI 18.1–45.4%)' "$T/prompt"
	grep -q 'perturbed 0/20 failed (≤16.1% at 95% confidence); stabilises' "$T/prompt"
	grep -q '^fixture: NOTREADY$' "$T/prompt"
	# each excerpt from the stream that has the output, labelled
	grep -qx '== stderr of one failing run ==' "$T/prompt"
	grep -qx '== stdout of one passing run ==' "$T/prompt"
	grep -q '^ok$' "$T/prompt"
	# nothing of any answer: not the fix, not the decoy, not a cached patch
	! grep -q '^+' "$T/prompt"
	! grep -q 'sleep 0.03' "$T/prompt"
	! grep -qi 'decoy' "$T/prompt"
}

# ---- rules ------------------------------------------------------------------

@test "rules: a periodic position fact names shared state, with no patch" {
	cat >"$T/diff.jsonl" <<-'EOF'
	{"type":"diff","trials":30,"failures":10,"errors":0,"token":null,"failure_trials":[3,6,9],"facts":[{"kind":"position","stream":null,"value":"every 3rd trial","direction":"periodic","in_failures":10,"failures":10,"in_successes":0,"successes":20,"p":1e-8}]}
	EOF
	run rt-diagnose --offline --rules "$T/diff.jsonl"
	status_is 0
	echo "$output" >"$T/out"
	[ "$(wc -l <"$T/out")" -eq 1 ]
	jqe '.source == "rules" and .model == null and .cause_class == "shared_state"
	    and .status == "no_patch" and .patch == null and .files == []' "$T/out"
	jqe '.explanation | test("periodic") and test("every 3rd trial")' "$T/out"
}

@test "rules: experiments name timing, hash order, the network and overlap; the failing-only token a held resource" {
	cat >"$T/exp.jsonl" <<-'EOF'
	{"type":"experiment","name":"slow","perturbation":{"gap_ms":2000},"probe":"ok","control":{"trials":40,"failures":12},"perturbed":{"trials":20,"failures":0},"implicated":true,"effect":"stabilises","changed":true}
	{"type":"experiment","name":"hashseed","perturbation":{"PYTHONHASHSEED":"0"},"probe":"ok","control":{"trials":40,"failures":12},"perturbed":{"trials":20,"failures":0},"implicated":true,"effect":"stabilises","changed":true}
	{"type":"experiment","name":"no-network","perturbation":{"network":"none","via":"unshare -rn"},"probe":"ok","control":{"trials":40,"failures":12},"perturbed":{"trials":20,"failures":20},"implicated":true,"effect":"destabilises","changed":true}
	{"type":"experiment","name":"parallel","perturbation":{"jobs":4},"probe":"ok","control":{"trials":40,"failures":12},"perturbed":{"trials":20,"failures":18},"implicated":true,"effect":"destabilises","changed":true}
	{"type":"experiment","name":"tz","perturbation":{"TZ":"Pacific/Kiritimati"},"probe":"ok","control":{"trials":40,"failures":12},"perturbed":{"trials":20,"failures":5},"implicated":false,"effect":null,"changed":false}
	{"type":"diff","trials":40,"failures":12,"errors":0,"token":"BUSY","facts":[]}
	EOF
	run rt-diagnose --rules --no-cache "$T/exp.jsonl"
	status_is 0
	echo "$output" >"$T/out"
	jqe -s 'map(.cause_class) == ["timing", "hash_order", "external_dependency", "shared_state", "resource_leak"]' "$T/out"
	jqe -s 'all(.source == "rules" and .status == "no_patch")' "$T/out"
	jqe -s '.[0].explanation | test("12/40 failed \\(30.0%, 95% (Wilson )?CI") and test("0/20 failed \\(≤")' "$T/out"
}

@test "rules: a Python traceback is not a race (triggers match whole words)" {
	mkdir -p "$T/py"
	cat >"$T/py/test_counter.py" <<-'EOF'
	import os
	import unittest


	def tally(n):
	    return "drift" if n % 3 == 0 else "ok"


	class CounterTest(unittest.TestCase):
	    def test_tally(self):
	        self.assertEqual(tally(int(os.environ["TRIAL"])), "ok")


	if __name__ == "__main__":
	    unittest.main()
	EOF
	for i in $(seq 12); do
		oc=pass
		TRIAL=$i /usr/bin/python3 "$T/py/test_counter.py" 2>"$T/py/err" || oc=fail
		jq -nc --arg o "$oc" --rawfile e "$T/py/err" --argjson t "$i" \
		    '{type: "trial", trial: $t, outcome: $o, command: "python3 test_counter.py", stdout: "", stderr: $e}'
	done >"$T/trials.jsonl"
	grep -q 'Traceback (most recent call last)' "$T/trials.jsonl"
	grep -q 'AssertionError' "$T/trials.jsonl"
	rt-diff-facts "$T/trials.jsonl" >"$T/diff.jsonl"
	jqe '.facts | any(.kind == "token" and .value == "Traceback" and .direction == "failure_only")' "$T/diff.jsonl"
	run rt-diagnose --offline --no-cache --rules "$T/diff.jsonl"
	status_is 0
	echo "$output" >"$T/out"
	jqe -s 'length >= 1 and all(.cause_class != "race_condition")' "$T/out"
	jqe -s 'any(.cause_class == "shared_state")' "$T/out"
	# the word itself, and a phrase, still name a race
	for w in '"race"' '"DATA RACE"' '"Concurrent  modification"'; do
		printf '{"type":"diff","trials":20,"failures":5,"errors":0,"token":null,"facts":[{"kind":"phrase","stream":"stderr","value":%s,"direction":"failure_only","in_failures":5,"failures":5,"in_successes":0,"successes":15,"p":1e-4}]}\n' "$w" >"$T/w.jsonl"
		run rt-diagnose --offline --no-cache --rules "$T/w.jsonl"
		status_is 0
		echo "$output" | jqe -s 'map(.cause_class) == ["race_condition"]'
	done
	# nor do "stale" in "staleness_check" or "dns" in "addnsrc"
	printf '{"type":"diff","trials":20,"failures":5,"errors":0,"token":"staleness_check","facts":[{"kind":"token","stream":"stderr","value":"addnsrc","direction":"failure_only","in_failures":5,"failures":5,"in_successes":0,"successes":15,"p":1e-4}]}\n' >"$T/w.jsonl"
	run rt-diagnose --offline --no-cache --rules "$T/w.jsonl"
	status_is 2
	echo "$output" | grep '^{' | jqe -s 'map(.cause_class) == ["unknown"]'
}

@test "rules: machine noise (load average, the trial's duration) makes no class; each class says what it rests on" {
	# failing runs saw load1=21.97 and ran faster: neither is evidence
	rt-diff-facts "$RT_TOP/t/fixtures/diff/noise-load.jsonl" >"$T/d.jsonl"
	jqe '[.facts[] | select(.noise) | .kind + " " + .value] ==
	    ["env load1=21.97", "env load1=0.42", "timing elapsed_ms"]' "$T/d.jsonl"
	run rt-diagnose --offline --no-cache --rules "$T/d.jsonl"
	status_is 2
	has "rt-diagnose: no hypothesis names a cause: 1 written, each unknown"
	echo "$output" | grep '^{' | jqe -s 'map(.cause_class) == ["unknown"] and .[0].rests_on == []
	    and (.[0].explanation | test("6 facts, 3 of them machine noise"))'
	# an older diff record without "noise": the same facts are still noise
	jq -c '.facts |= map(del(.noise))' "$T/d.jsonl" >"$T/old.jsonl"
	run rt-diagnose --offline --no-cache --rules "$T/old.jsonl"
	status_is 2
	# a fact tied to the test's code names the class and is what it rests on
	jq -c '.facts += [{"kind":"token","stream":"stderr","value":"ConnectionRefusedError","direction":"failure_only","in_failures":6,"failures":6,"in_successes":0,"successes":14,"p":1e-5}]' \
	    "$T/d.jsonl" >"$T/net.jsonl"
	run rt-diagnose --offline --no-cache --rules "$T/net.jsonl"
	status_is 0
	echo "$output" | jqe -s 'map(.cause_class) == ["external_dependency"]
	    and .[0].rests_on == [{"fact": "token", "value": "ConnectionRefusedError", "direction": "failure_only"}]'
}

@test "rules: a failing check on a clock-measured value is timing, not unknown" {
	cat >"$T/clock.jsonl" <<-'EOF'
	{"type":"diff","trials":40,"failures":9,"errors":0,"token":null,"facts":[{"kind":"token","stream":"stderr","value":"toBeLessThan","direction":"failure_only","in_failures":9,"failures":9,"in_successes":0,"successes":31,"p":1e-8},{"kind":"phrase","stream":"stderr","value":"performance now","direction":"failure_only","in_failures":9,"failures":9,"in_successes":0,"successes":31,"p":1e-8},{"kind":"timing","stream":null,"value":"elapsed_ms","direction":"slower_when_failing","in_failures":9,"failures":9,"in_successes":31,"successes":31,"p":1e-3}]}
	EOF
	run rt-diagnose --offline --no-cache --rules "$T/clock.jsonl"
	status_is 0
	echo "$output" | jqe -s 'map(.cause_class) == ["timing"]
	    and (.[0].explanation | test("fake the clock") and test("loosens a timing check"))
	    and (.[0].rests_on | map(.value) == ["toBeLessThan", "performance now"])'
}

@test "rules: underscores separate words in experiments and environment facts" {
	cat >"$T/env.jsonl" <<-'EOF'
	{"type":"diff","trials":20,"failures":5,"errors":0,"token":null,"facts":[{"kind":"env","stream":null,"value":"TEST_SEED=4","direction":"failure_only","in_failures":5,"failures":5,"in_successes":0,"successes":15,"p":1e-4}]}
	{"type":"experiment","name":"env","perturbation":{"APP_CLOCK_SKEW":"1"},"probe":"ok","control":{"trials":40,"failures":12},"perturbed":{"trials":20,"failures":20},"implicated":true,"effect":"destabilises","changed":true}
	EOF
	run rt-diagnose --offline --no-cache --rules "$T/env.jsonl"
	status_is 0
	echo "$output" | jqe -s 'map(.cause_class) == ["time_of_day", "randomness"]'
}

@test "--list-rules is the trigger list of rt-diagnose(1), RULES" {
	run rt-diagnose --list-rules
	status_is 0
	echo "$output" >"$T/tool"
	grep -qx 'word race_condition: race, stale, .*' "$T/tool"
	# the man page: ".It SCOPE CLASS" then the words, wrapped, up to ".El"
	awk '/^\.Sh RULES$/ { on = 1 } on && /^\.Bl -tag/ { list = 1; next }
	    list && /^\.El/ { exit }
	    list && /^\.It / { if (line) print line; line = substr($0, 5) ":"; next }
	    list { line = line " " $0 }
	    END { if (line) print line }' "$RT_TOP/man/man1/rt-diagnose.1" >"$T/man"
	[ "$(wc -l <"$T/man")" -ge 10 ]
	diff -u "$T/man" "$T/tool"
}

@test "with no model and nothing cached, rules are the fallback" {
	unset RETRIAL_API_KEY
	run rt-diagnose -C "$T/proj" -s test_flaky.sh "$T/ev.jsonl"
	status_is 0
	has "no model configured"
	echo "$output" | grep '^{' | jqe -s 'length >= 1 and all(.source == "rules")'
	[ ! -s "$T/llm.log" ]
}

@test "rules and models together: model hypotheses first, then rules" {
	run diagnose --rules -m good "$T/ev.jsonl"
	status_is 0
	echo "$output" >"$T/out"
	jqe -s '.[0].source == "model:good" and .[1].source == "rules" and .[1].cause_class == "timing"' "$T/out"
	jqe -s '.[2].cause_class == "race_condition" and (.[2].explanation | test("NOTREADY"))' "$T/out"
	jqe -s 'map(.id) == ["h1", "h2", "h3"]' "$T/out"
}

# ---- bad input and faults ---------------------------------------------------

@test "SIGINT while a model hangs: the answers already in are written, exit 130" {
	rt-diagnose -C "$T/proj" -s test_flaky.sh -m slow-a,hang -t 60 "$T/ev.jsonl" \
	    >"$T/out" 2>"$T/err" &
	pid=$!
	for _ in $(seq 400); do
		jq -e 'select(.event == "reply")' "$T/llm.log" >/dev/null 2>&1 && break
		sleep 0.05
	done
	# the server has sent slow-a's answer; give the client a moment to read
	# it (slack for slow sanitizer builds, not a timing assertion)
	sleep 1
	kill -INT "$pid"
	rc=0; wait "$pid" || rc=$?
	[ "$rc" -eq 130 ]
	grep -q 'interrupted by SIGINT' "$T/err"
	[ "$(wc -l <"$T/out")" -eq 1 ]
	jqe '.model == "slow-a" and .status == "ok" and .id == "h1"' "$T/out"
}

@test "numbers a long cannot hold are no counts, not undefined behaviour" {
	printf '{"type":"measure","command":"x","trials":1e300,"failures":2.5}\n' >"$T/m.jsonl"
	run diagnose -m good "$T/m.jsonl"
	status_is 2
	has "m.jsonl:1: measure record: field \"trials\" must be a whole number"
}

@test "--source naming a directory says so" {
	run rt-diagnose -C "$T/proj" -s . </dev/null
	status_is 2
	has "--source .: not a regular file"
}

@test "a malformed record names file and line" {
	printf '{"type":"measure","trials":3,"failures":1}\nnot json\n' >"$T/bad.jsonl"
	run rt-diagnose --rules --no-cache --offline "$T/bad.jsonl"
	status_is 2
	has "bad.jsonl:2:"
}

@test "an unreachable API is an http_error per model, said on stderr, exit 2, not a crash" {
	kill "$LLM_PID"; wait "$LLM_PID" 2>/dev/null || true; LLM_PID=
	run diagnose -m good,decoy "$T/ev.jsonl"
	status_is 2
	has "rt-diagnose: model decoy failed: no HTTP response"
	echo "$output" | grep '^{' | jqe -s 'length == 2 and all(.status == "http_error")'
}

@test "a bad RETRIAL_API_BASE is refused" {
	RETRIAL_API_BASE=file:///etc/passwd run diagnose -m good "$T/ev.jsonl"
	status_is 2
	has "RETRIAL_API_BASE"
}
