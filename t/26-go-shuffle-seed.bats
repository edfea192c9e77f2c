#!/usr/bin/env bats
# The seed rule under go test -shuffle (issue 34, item 2): the fixture's
# TestRetryAfterIsSeconds always fails, so every run fails and the seed
# fact, judged by the command's outcome, has no passing seed; judged by
# the victim's own records (go test -json through rt-collect --junit) the
# seeds separate, and the rule gives order_dependency with the rt-bisect
# line, which finds both polluters. For rspec (--order rand) the line runs
# the IDs through rt-bisect's rspec driver.
load helper

@test "go test -shuffle: the seed judged by the victim's case records gives order_dependency and an rt-bisect line that finds the polluters" {
	command -v go >/dev/null || skip "go not installed"
	cp -R "$RT_TOP/t/fixtures/fix/goshuffle" "$T/g" && cd "$T/g"
	export GOCACHE="$T/gocache" GOFLAGS=-mod=mod GOPROXY=off GOPATH="$T/gopath"
	v=example.invalid/ratelimit::TestDefaultRate
	rt-collect -n 9 --seed 3 --junit -o runs.jsonl \
	    --cmd 'go test -count=1 -shuffle=$RETRIAL_SEED -json .' 2>/dev/null
	rt-diff-facts runs.jsonl >facts.jsonl
	# the command failed every time: its seed fact has no passing seed
	jqe '.failures == .trials and (.facts[] | select(.kind == "seed") | .runner == "go-shuffle" and .passing == [])' facts.jsonl
	# the victim both failed and passed
	jqe -s --arg v "$v" '[.[] | select(.case == $v) | .outcome] | (index("fail") != null and index("pass") != null)' runs.jsonl
	# the facts alone: nothing to judge the seeds by
	run rt-diagnose --rules --offline --no-cache facts.jsonl
	hasnt "order_dependency"
	run rt-diagnose --rules --offline --no-cache facts.jsonl runs.jsonl
	status_is 0
	line="rt-bisect -v $v --records runs.jsonl --cmd 'IFS=\"|\"; go test -count=1 -run \"^(\$(echo \"\$*\" | sed \"s#[^|]*::##g\"))\\\$\" .'"
	has "rt-diagnose: order_dependency: find what $v depends on with: $line"
	grep '^{' <<<"$output" >hyps.jsonl
	jqe -s --arg l "$line" --arg v "$v" 'length == 1 and .[0].cause_class == "order_dependency" and .[0].bisect == $l
	    and (.[0].rests_on | map(del(.reproduce))) == [{fact: "seed", value: .[0].rests_on[0].value, direction: null,
	      runner: "go-shuffle", judged_by: "case"}]
	    and (.[0].explanation | test("judged by " + $v + "\u0027s own outcome in the per-case records: its seeds failed in [1-9] and passed in [1-9] trials, none both"))' hyps.jsonl
	# its rt-matrix line pins a seed the victim itself failed with, the
	# command's own -shuffle taken out
	jqe '.rests_on[0].reproduce | startswith("rt-matrix -n 20 --pin-seed go-shuffle=")
	    and endswith(" --cmd \u0027go test -count=1 -json .\u0027")' hyps.jsonl
	seed=$(jq -r '.rests_on[0].reproduce' hyps.jsonl | sed -n 's/.*--pin-seed go-shuffle=\([0-9]*\) .*/\1/p')
	[ -n "$seed" ]
	jqe -s --arg v "$v" --arg s "$seed" '[.[] | select(.command and .seed == $s) | .trial] as $t
	    | any(.[]; .case == $v and .outcome == "fail" and (.trial as $n | $t | index($n) != null))' runs.jsonl
	# the line runs as printed and finds both polluters after the victim in the source
	eval "$line -n 20 --threshold 0.3" >order.jsonl
	jqe --arg v "$v" '.victim == $v and .category == "victim"
	    and (.polluters | sort) == ["example.invalid/ratelimit::TestShortWindow",
	        "example.invalid/ratelimit::TestSmallBurst"]' order.jsonl
	# with its order record back, the order rule speaks and no line is printed
	run rt-diagnose --rules --offline --no-cache facts.jsonl runs.jsonl order.jsonl
	hasnt "find what"
	grep '^{' <<<"$output" | jqe -s 'any(.[]; .cause_class == "order_dependency" and .order.victim != null)'
}

@test "rspec --order rand: the seed rule's rt-bisect line runs the IDs through rt-bisect's rspec driver and finds the polluter" {
	command -v rspec >/dev/null 2>&1 || skip "no rspec: apt-get install ruby-rspec"
	mkdir -p "$T/rb/spec" && cd "$T/rb"
	printf -- '--order rand\n' >.rspec
	printf '%s\n' 'RSpec.describe "Flag" do' '  it "is off at first" do' \
	    '    expect($retrial_flag).to be_nil' '  end' '' '  it "reads the default" do' \
	    '    expect(1 + 1).to eq(2)' '  end' 'end' >spec/a_flag_spec.rb
	printf '%s\n' 'RSpec.describe "Setter" do' '  it "adds" do' '    expect(2 + 2).to eq(4)' \
	    '  end' '' '  it "turns the flag on" do' '    $retrial_flag = true' '  end' 'end' >spec/b_setter_spec.rb
	rt-collect -n 10 --seed 2 --junit -o runs.jsonl --cmd rspec 2>/dev/null
	rt-diff-facts runs.jsonl >facts.jsonl
	jqe '.failures > 0 and .failures < .trials and any(.facts[]; .kind == "seed" and .runner == "rspec")' facts.jsonl
	run rt-diagnose --rules --offline --no-cache facts.jsonl runs.jsonl
	status_is 0
	v='spec/a_flag_spec.rb::Flag is off at first'
	line="rt-bisect -v '$v' --records runs.jsonl --cmd 'rspec \"\$@\"'"
	has "rt-diagnose: order_dependency: find what $v depends on with: $line"
	grep '^{' <<<"$output" | jqe -s --arg l "$line" 'map(select(.cause_class == "order_dependency")) | length == 1 and .[0].bisect == $l'
	eval "$line -n 10 --threshold 0.4" >order.jsonl
	jqe --arg v "$v" '.victim == $v and .polluters == ["spec/b_setter_spec.rb::Setter turns the flag on"]' order.jsonl
}
