#!/usr/bin/env bats
# rt-audit --html-dir: the flake history as a static site (lib/rt_site).
load helper

# rec TRIAL CASE OUTCOME RUN TS MESSAGE-JSON: one per-case trial record.
rec() {
	jq -cn --argjson t "$1" --arg c "$2" --arg o "$3" --arg r "$4" --arg ts "$5" \
		--argjson m "$6" '{type:"trial",trial:$t,case:$c,outcome:$o,run:$r,
		revision:"abc123",timestamp:$ts,message:$m,source:"junit"}'
}

HOSTILE='t/<script>alert(1)</script>::"q'"'"'uote'
TRAVERSE='../../escape::x'

# three nights of ten trials: "a/slow_test.py::t" fails NIGHT of ten on
# night NIGHT, "b::rare" once a night, the hostile IDs never
history() {
	local night i o m
	for night in 1 2 3; do
		: >"$T/n$night.jsonl"
		for i in $(seq 1 10); do
			o=pass m=null
			[ "$i" -le "$night" ] && o=fail m='"AssertionError: <b>boom</b>"'
			rec "$i" a/slow_test.py::t "$o" "github:acme/shop:10$night.1:test" \
				"2026-01-0${night}T03:00:00Z" "$m" >>"$T/n$night.jsonl"
			o=pass m=null
			[ "$i" = 1 ] && o=fail m='"timeout"'
			rec "$i" b::rare "$o" "github:acme/shop:10$night.1:test" \
				"2026-01-0${night}T03:00:00Z" "$m" >>"$T/n$night.jsonl"
			rec "$i" "$HOSTILE" pass "github:acme/shop:10$night.1:test" \
				"2026-01-0${night}T03:00:00Z" null >>"$T/n$night.jsonl"
			rec "$i" "$TRAVERSE" pass "github:acme/shop:10$night.1:test" \
				"2026-01-0${night}T03:00:00Z" null >>"$T/n$night.jsonl"
		done
		rt-audit -H "$T/h.db" --md /dev/null "$T/n$night.jsonl" 2>/dev/null
	done
}

page() {
	printf '%s/site/t/%s.html' "$T" "$(printf '%s' "$1" | sha256sum | cut -c1-16)"
}

@test "--html-dir: the index lists every test by rate, highest first, each with N/M and its interval" {
	history
	cd "$T"
	run rt-audit -H "$T/h.db" --md /dev/null --audit 3 --html-dir "$T/site"
	status_is 0
	[ -f "$T/site/index.html" ] && [ -f "$T/site/retrial.css" ]
	cmp "$T/site/retrial.css" "$RT_TOP/share/retrial/retrial.css"
	# the rows in order: 6/30, 3/30, then the two 0/30
	grep -o 'class="rate" data-v="[^"]*">[^<]*' "$T/site/index.html" >"$T/rates"
	sed -n 1p "$T/rates" | grep -qF '6/30 failed (20.0%, 95% Wilson CI 9.5%–37.4%)'
	sed -n 2p "$T/rates" | grep -qF '3/30 failed (10.0%, 95% Wilson CI 3.4%–25.7%)'
	sed -n 3p "$T/rates" | grep -qF '0/30 failed (≤9.6% at 95% confidence)'
	[ "$(wc -l <"$T/rates")" -eq 4 ]
	# each ID links to its page, named by a hash of the ID
	grep -qF "href=\"t/$(basename "$(page a/slow_test.py::t)")\"" "$T/site/index.html"
	# sortable by rate, owner and runs failed, usable without script
	grep -q '<th class="rate" data-sort="num">Failure rate' "$T/site/index.html"
	grep -q '<th data-sort="text">Owner' "$T/site/index.html"
	grep -q '<th data-sort="num">Runs failed' "$T/site/index.html"
}

@test "--html-dir: a test's page has its nightly table, a sparkline with a bar per night, messages counted and run links" {
	history
	cd "$T"
	rt-audit -H "$T/h.db" --md /dev/null --audit 3 --html-dir "$T/site" 2>/dev/null
	p=$(page a/slow_test.py::t)
	[ -f "$p" ]
	grep -qF '<tr><td>2026-01-03</td><td class="rate">3/10 failed (30.0%, 95% Wilson CI 10.7%–60.4%)</td></tr>' "$p"
	grep -qF '<tr><td>2026-01-01</td><td class="rate">1/10 failed (10.0%, 95% Wilson CI 1.7%–40.5%)</td></tr>' "$p"
	# one interval bar and one point per night, not per run or trial
	[ "$(grep -o '<line class="iv"' "$p" | wc -l)" -eq 3 ]
	[ "$(grep -o '<circle class="pt' "$p" | wc -l)" -eq 3 ]
	# the bars have length: low and high differ
	grep -o '<line class="iv"[^>]*>' "$p" | head -1 | \
		awk -F'"' '{ if ($6 == $10) exit 1 }'
	grep -qF '<tr><td>6</td><td class="id">AssertionError: &lt;b&gt;boom&lt;/b&gt;</td></tr>' "$p"
	grep -qF 'href="https://github.com/acme/shop/actions/runs/103/attempts/1"' "$p"
	grep -qF 'no quarantine list given' "$p"
}

@test "--html-dir: owner, quarantine state and issue come from the quarantine list" {
	history
	cd "$T"
	printf 'a/slow_test.py::t\towner=@perf-team\tsince=2026-01-02\texpires=2026-02-01\tissue=https://github.com/acme/shop/issues/9\n' >"$T/q"
	run rt-audit -H "$T/h.db" --md /dev/null --quarantine "$T/q" --html-dir "$T/site" "$T/n3.jsonl"
	# the records are there already: the audit stops, the site is not written
	status_is 2
	[ ! -e "$T/site" ]
	rec 11 a/slow_test.py::t pass github:acme/shop:104.1:test 2026-01-04T03:00:00Z null >"$T/n4.jsonl"
	run rt-audit -H "$T/h.db" --md /dev/null --quarantine "$T/q" --html-dir "$T/site" "$T/n4.jsonl"
	status_is 0
	p=$(page a/slow_test.py::t)
	grep -qF '<dt>Owner</dt><dd>@perf-team</dd>' "$p"
	grep -qF 'quarantined since 2026-01-02, expires 2026-02-01; issue <a href="https://github.com/acme/shop/issues/9">' "$p"
	grep -qF '<td data-v="1">quarantined</td>' "$T/site/index.html"
	grep -qF '<dt>Quarantine</dt><dd>not quarantined</dd>' "$(page b::rare)"
}

@test "--html-dir: hostile IDs and messages are escaped and never make a path" {
	history
	cd "$T"
	rt-audit -H "$T/h.db" --md /dev/null --audit 3 --html-dir "$T/site" 2>/dev/null
	! grep -rq '<script>alert' "$T/site"
	grep -qF 't/<wbr>&lt;script&gt;alert(1)&lt;/<wbr>script&gt;::<wbr>&quot;q&#39;uote' "$T/site/index.html"
	[ -f "$(page "$HOSTILE")" ] && [ -f "$(page "$TRAVERSE")" ]
	# the site is index.html, retrial.css, its marker and t/HASH.html only
	(cd "$T/site" && find . -mindepth 1 | sort) >"$T/files"
	! grep -qv -E '^\./(index\.html|retrial\.css|\.retrial-site|t|t/[0-9a-f]{16}\.html)$' "$T/files"
	[ "$(grep -c '^\./t/' "$T/files")" -eq 4 ]
	[ ! -e "$T/escape::x" ] && [ ! -e "$T/../escape::x" ]
}

@test "--html-dir: a site written again replaces the old one; a file or a full directory is one error, exit 2" {
	history
	cd "$T"
	rt-audit -H "$T/h.db" --md /dev/null --audit 3 --html-dir "$T/site" 2>/dev/null
	touch "$T/site/t/stale.html"
	run rt-audit -H "$T/h.db" --md /dev/null --audit 3 --html-dir "$T/site/"
	status_is 0
	[ ! -e "$T/site/t/stale.html" ] && [ -f "$T/site/index.html" ]
	# no temporaries left beside it
	[ -z "$(ls -d "$T"/site.rt-* 2>/dev/null)" ]

	echo data >"$T/file"
	run rt-audit -H "$T/h.db" --md /dev/null --audit 3 --html-dir "$T/file"
	status_is 2
	[ "${#lines[@]}" -eq 1 ]
	[ "$output" = "rt-audit: --html-dir $T/file: not a directory" ]
	[ "$(cat "$T/file")" = data ]

	mkdir "$T/mine" && echo keep >"$T/mine/notes.txt"
	run rt-audit -H "$T/h.db" --md /dev/null --audit 3 --html-dir "$T/mine"
	status_is 2
	[ "${#lines[@]}" -eq 1 ]
	has "not empty and not a site rt-audit wrote"
	[ "$(cat "$T/mine/notes.txt")" = keep ] && [ ! -e "$T/mine/index.html" ]

	# checked before the audit: the history takes no audit then
	rec 1 b::rare pass github:acme/shop:105.1:test 2026-01-05T03:00:00Z null >"$T/n5.jsonl"
	run rt-audit -H "$T/h.db" --md /dev/null --html-dir "$T/file" "$T/n5.jsonl"
	status_is 2
	[ "$(sqlite3 "$T/h.db" 'SELECT count(*) FROM audits')" -eq 3 ]
}

@test "--html-dir: the index in headless Chromium (screenshot), where it is installed" {
	chrome=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
	[ -n "$chrome" ] || skip "no chromium"
	history
	cd "$T"
	rt-audit -H "$T/h.db" --md /dev/null --audit 3 --html-dir "$T/site" 2>/dev/null
	timeout 60 "$chrome" --headless --no-sandbox --disable-gpu \
		--screenshot="$T/shot.png" --window-size=1024,768 "file://$T/site/index.html" 2>/dev/null
	[ -s "$T/shot.png" ]
	[ "$(head -c 4 "$T/shot.png" | od -An -c | tr -d ' ')" = '211PNG' ]
}
