# retrial — measure, explain, fix and ship flaky tests.
# Targets: all check install uninstall clean deps jest-deps demo bench lint fuzz

VERSION   = 0.1.0
PREFIX    = /usr/local
BINDIR    = $(PREFIX)/bin
LIBDIR    = $(PREFIX)/lib
INCDIR    = $(PREFIX)/include
MANPREFIX = $(PREFIX)/share/man
SHAREDIR  = $(PREFIX)/share/retrial
PKGCONFIGDIR = $(LIBDIR)/pkgconfig
COMPLETIONDIR = $(PREFIX)/share/bash-completion/completions

CC       ?= cc
PKGS     = jansson libcurl sqlite3 libcrypto expat yaml-0.1
# Read when the Makefile is parsed: targets that install the libraries
# first (check, demo, bench) build in a second make, which parses again.
PKG_CFLAGS != pkg-config --cflags $(PKGS) 2>/dev/null || true
PKG_LIBS   != pkg-config --libs $(PKGS) 2>/dev/null || true
OPT      = -O2 -g
# SANITIZE=1 builds the same suite under ASan+UBSan.
SAN_1    = -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
SANFLAGS = $(SAN_$(SANITIZE))
RT_CFLAGS = -std=c11 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Werror \
	-DRT_VERSION=\"$(VERSION)\" -DRT_SHAREDIR=\"$(SHAREDIR)\" \
	-Ilib $(PKG_CFLAGS) $(OPT) $(SANFLAGS) -pthread -fPIC $(CFLAGS)
RT_LDFLAGS = -pthread $(SANFLAGS) $(LDFLAGS)
LDLIBS   = $(PKG_LIBS) -lm

TOOLS = rt-collect rt-measure rt-plan rt-diff-facts rt-matrix rt-report \
	rt-diagnose rt-verify rt-genome rt-pr rt-retry rt-audit rt-bisect rt-junit rt-quarantine
BINS  = $(TOOLS:%=bin/%)
# bash completion, one file per tool, from the tool's own getopt_long table
COMPLETIONS = $(TOOLS:%=share/bash-completion/completions/%)

STATS_OBJ = lib/rt_stats.o
LIB_OBJ   = lib/rt_util.o lib/rt_jsonl.o lib/rt_platform.o lib/rt_trial.o lib/rt_cli.o lib/rt_fs.o \
	lib/rt_runner.o lib/rt_cases.o \
	lib/rt_text.o lib/rt_http.o lib/rt_hash.o lib/rt_patch.o lib/rt_store.o lib/rt_guard.o lib/rt_canary.o lib/rt_srctext.o lib/rt_race.o \
	lib/rt_audit_store.o lib/rt_out.o lib/rt_tmpl.o lib/rt_git.o lib/rt_junit.o lib/rt_sqlite.o lib/rt_md.o \
	lib/rt_sandbox.o lib/rt_src.o lib/rt_say.o lib/rt_plan.o lib/rt_hyp.o lib/rt_tournament.o \
	lib/rt_quarantine.o lib/rt_codeowners.o lib/rt_records.o $(STATS_OBJ)
LIB_OBJ  += lib/rt_fix.o lib/rt_github.o lib/rt_quar_issue.o
LIB_OBJ  += lib/rt_notify.o lib/rt_ddmin.o lib/rt_order.o lib/rt_config.o lib/rt_site.o
LIB_HDR   = $(LIB_OBJ:.o=.h) lib/runner/runner.h lib/runner/goorder.h \
	lib/runner/hookorder.h
# the runners, one file each (lib/rt_runner.h, retrial(7) RUNNERS)
RUNNER_OBJ = lib/runner/generic.o lib/runner/pytest.o lib/runner/unittest.o \
	lib/runner/python.o lib/runner/go.o lib/runner/jest.o lib/runner/mocha.o \
	lib/runner/rspec.o lib/runner/script.o lib/runner/goorder.o \
	lib/runner/hookorder.o
STATS_SO_VER = 0

all: $(BINS) $(COMPLETIONS) lib/libretrial-stats.a lib/libretrial-stats.so lib/retrial-stats.pc

lib/libretrial.a: $(LIB_OBJ) $(RUNNER_OBJ)
	rm -f $@ && ar rcs $@ $(LIB_OBJ) $(RUNNER_OBJ)

lib/libretrial-stats.a: $(STATS_OBJ)
	rm -f $@ && ar rcs $@ $(STATS_OBJ)

lib/libretrial-stats.so: $(STATS_OBJ)
	$(CC) -shared -Wl,-soname,libretrial-stats.so.$(STATS_SO_VER) $(RT_LDFLAGS) -o $@ $(STATS_OBJ) -lm

lib/retrial-stats.pc: lib/retrial-stats.pc.in Makefile
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' \
	    -e 's|@INCDIR@|$(INCDIR)|' -e 's|@VERSION@|$(VERSION)|' lib/retrial-stats.pc.in > $@

lib/%.o: lib/%.c $(LIB_HDR)
	$(CC) $(RT_CFLAGS) -c -o $@ $<

lib/runner/%.o: lib/runner/%.c $(LIB_HDR)
	$(CC) $(RT_CFLAGS) -c -o $@ $<

bin/%.o: bin/%.c $(LIB_HDR)
	$(CC) $(RT_CFLAGS) -c -o $@ $<

bin/%: bin/%.o lib/libretrial.a
	$(CC) $(RT_LDFLAGS) -o $@ $< lib/libretrial.a $(LDLIBS)

# `rt-x --list-options` prints "--name" or "--name=" a line; a tool without
# it gets a completion of file names only.
share/bash-completion/completions/%: bin/% Makefile
	@mkdir -p $(@D)
	@f=_$$(echo '$*' | tr -c 'a-z0-9\n' _); \
	opts=$$(./bin/$* --list-options 2>/dev/null | sed 's/=$$//' | tr '\n' ' '); \
	{ echo "# bash completion for $*, made by make from '$* --list-options'"; \
	  echo "$$f() {"; \
	  echo '	local cur=$${COMP_WORDS[COMP_CWORD]} i'; \
	  echo '	COMPREPLY=()'; \
	  echo '	for ((i = 1; i < COMP_CWORD; i++)); do'; \
	  echo '		[[ $${COMP_WORDS[i]} == -- ]] && return 0'; \
	  echo '	done'; \
	  echo '	case $$cur in'; \
	  echo "	-*) COMPREPLY=(\$$(compgen -W '$$opts' -- \"\$$cur\")) ;;"; \
	  echo '	esac'; \
	  echo '}'; \
	  echo "complete -o default -F $$f $*"; } > $@.tmp && mv $@.tmp $@

t/stats_test: t/stats_test.c lib/libretrial-stats.a lib/rt_stats.h
	$(CC) $(RT_CFLAGS) -o $@ t/stats_test.c lib/libretrial-stats.a $(RT_LDFLAGS) -lm

# the rt_guard driver of t/33-guard.bats
t/guard_test: t/guard_test.c lib/libretrial.a
	$(CC) $(RT_CFLAGS) -o $@ t/guard_test.c lib/libretrial.a $(RT_LDFLAGS) $(LDLIBS)

# the lib/rt_say driver of t/05-say.bats
t/say_test: t/say_test.c lib/libretrial.a
	$(CC) $(RT_CFLAGS) -o $@ t/say_test.c lib/libretrial.a $(RT_LDFLAGS) $(LDLIBS)

# bench/stopping-rules: lib/rt_tournament on Bernoulli stubs (t/32-tournament.bats)
bench/stopping-rules: bench/stopping-rules.c lib/libretrial.a
	$(CC) $(RT_CFLAGS) -o $@ bench/stopping-rules.c lib/libretrial.a $(RT_LDFLAGS) $(LDLIBS)

# bench/ddmin: lib/rt_ddmin's search and probe rule under noise (t/22)
bench/ddmin: bench/ddmin.c lib/libretrial.a
	$(CC) $(RT_CFLAGS) -o $@ bench/ddmin.c lib/libretrial.a $(RT_LDFLAGS) $(LDLIBS)

# bench/release: rt-quarantine's release rule, 365 nightly checks, exact
bench/release: bench/release.c lib/libretrial.a
	$(CC) $(RT_CFLAGS) -o $@ bench/release.c lib/libretrial.a $(RT_LDFLAGS) $(LDLIBS)

# the lib/rt_records driver of t/06-records.bats
t/records_test: t/records_test.c lib/libretrial.a
	$(CC) $(RT_CFLAGS) -o $@ t/records_test.c lib/libretrial.a $(RT_LDFLAGS) $(LDLIBS)

# the lib/rt_ddmin driver of t/22-rt-diagnose-fix.bats
t/ddmin_test: t/ddmin_test.c lib/libretrial.a
	$(CC) $(RT_CFLAGS) -o $@ t/ddmin_test.c lib/libretrial.a $(RT_LDFLAGS) $(LDLIBS)

# the rt_runner driver of t/37-jest.bats
t/runner_test: t/runner_test.c lib/libretrial.a
	$(CC) $(RT_CFLAGS) -o $@ t/runner_test.c lib/libretrial.a $(RT_LDFLAGS) $(LDLIBS)

# make check: the C unit tests, then every bats file; one closing count line.
# VALGRIND=1 runs every tool the tests invoke under valgrind (t/helper.bash).
check: deps
	@$(MAKE) --no-print-directory all t/stats_test t/guard_test t/runner_test t/say_test \
	    t/records_test t/ddmin_test bench/stopping-rules bench/release bench/ddmin
	./t/stats_test
	mandoc -Tlint -Wwarning man/man1/*.1 man/man3/*.3 man/man7/*.7
	RT_VALGRIND=$(VALGRIND) ./t/run-bats

# make lint: the man pages, and every example count in them, the README
# and rt_say.h against what lib/rt_say prints for it (t/doc-numbers.py)
lint: t/say_test
	mandoc -Tlint -Wwarning man/man1/*.1 man/man3/*.3 man/man7/*.7
	python3 t/doc-numbers.py t/say_test man/man1/*.1 man/man3/*.3 man/man7/*.7 README.md lib/rt_say.h

# make deps: install the Debian packages retrial needs (as root), or say how.
# make build-deps: only what building and running the tools needs (the
# GitHub Action's install; no test tooling, no Go).
BUILD_PKGS = gcc make pkg-config libjansson-dev libcurl4-openssl-dev \
	libsqlite3-dev libssl-dev libyaml-dev jq sqlite3
DEB_PKGS = build-essential $(BUILD_PKGS) bats git python3 parallel mandoc \
	python3-pytest python3-pytest-random-order python3-pytest-rerunfailures python3-yaml libexpat1-dev golang-go bubblewrap \
	ruby-rspec
BENCH_PKGS = hyperfine time python3-junitparser
FUZZ_PKGS  = clang valgrind
deps:
	@missing=""; for p in $(DEB_PKGS) $(EXTRA_PKGS); do \
	  dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q 'ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -z "$$missing" ]; then exit 0; fi; \
	if ! command -v dpkg-query >/dev/null; then echo "make deps: not Debian; install:$$missing" >&2; exit 0; fi; \
	if [ "$$(id -u)" = 0 ]; then \
	  echo "make deps: installing$$missing"; \
	  DEBIAN_FRONTEND=noninteractive apt-get install -y -q $$missing || \
	  { apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q $$missing; }; \
	else \
	  echo "make deps: missing packages; run:" >&2; \
	  echo "  sudo apt-get install -y$$missing" >&2; exit 2; \
	fi

build-deps:
	@$(MAKE) --no-print-directory deps DEB_PKGS="$(BUILD_PKGS)" EXTRA_PKGS=

# make dist: the release tarball of HEAD, retrial-VERSION.tar.gz (git archive)
dist:
	git archive --format=tar.gz --prefix=retrial-$(VERSION)/ -o retrial-$(VERSION).tar.gz HEAD

# make jest-deps: the npm fixtures' runners, as each package-lock.json pins
# them: jest and jest-junit for t/37-jest.bats, mocha for t/34-mocha.bats
# (the npm registry; without them those tests skip).
JEST_DIR = t/fixtures/runners/jestproj
MOCHA_DIR = t/fixtures/runners/mochaproj
jest-deps:
	cd $(JEST_DIR) && npm ci --no-audit --no-fund
	cd $(MOCHA_DIR) && npm ci --no-audit --no-fund

demo: deps
	@$(MAKE) --no-print-directory all
	./examples/demo.sh

# make bench: every bench at its small settings, exit 1 when a rule's gate
# fails (bench/run); BENCH_SMALL=0 for the sizes their headers measure.
BENCH_SMALL = 1
bench:
	@$(MAKE) -s deps EXTRA_PKGS="$(BENCH_PKGS)"
	@$(MAKE) --no-print-directory all bench/stopping-rules bench/release bench/ddmin
	BENCH_SMALL=$(BENCH_SMALL) ./bench/run

install: all
	mkdir -p $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANPREFIX)/man1 $(DESTDIR)$(MANPREFIX)/man3 \
	  $(DESTDIR)$(MANPREFIX)/man7 \
	  $(DESTDIR)$(SHAREDIR) $(DESTDIR)$(COMPLETIONDIR) $(DESTDIR)$(LIBDIR) $(DESTDIR)$(INCDIR) $(DESTDIR)$(PKGCONFIGDIR)
	cp -f $(BINS) $(DESTDIR)$(BINDIR)/
	cp -f man/man1/*.1 $(DESTDIR)$(MANPREFIX)/man1/
	cp -f man/man3/*.3 $(DESTDIR)$(MANPREFIX)/man3/
	cp -f man/man7/*.7 $(DESTDIR)$(MANPREFIX)/man7/
	cp -Rf share/retrial/. $(DESTDIR)$(SHAREDIR)/
	# the assertion-inventory helpers: Go source (built on use) and node
	chmod 755 $(DESTDIR)$(SHAREDIR)/rt-inventory.js
	# the stylesheet rt-report --html and rt-audit --html embed
	chmod 644 $(DESTDIR)$(SHAREDIR)/retrial.css
	chmod 644 $(DESTDIR)$(SHAREDIR)/inventory-go/main.go $(DESTDIR)$(SHAREDIR)/inventory-go/go.mod
	mkdir -p $(DESTDIR)$(SHAREDIR)/examples
	cp -f examples/nightly-audit.sh $(DESTDIR)$(SHAREDIR)/examples/
	chmod 755 $(DESTDIR)$(SHAREDIR)/examples/nightly-audit.sh
	cp -f $(COMPLETIONS) $(DESTDIR)$(COMPLETIONDIR)/
	cp -f lib/libretrial-stats.a $(DESTDIR)$(LIBDIR)/
	cp -f lib/libretrial-stats.so $(DESTDIR)$(LIBDIR)/libretrial-stats.so.$(STATS_SO_VER)
	ln -sf libretrial-stats.so.$(STATS_SO_VER) $(DESTDIR)$(LIBDIR)/libretrial-stats.so
	cp -f lib/rt_stats.h $(DESTDIR)$(INCDIR)/
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' -e 's|@INCDIR@|$(INCDIR)|' \
	    -e 's|@VERSION@|$(VERSION)|' lib/retrial-stats.pc.in > $(DESTDIR)$(PKGCONFIGDIR)/retrial-stats.pc

uninstall:
	for t in $(TOOLS); do rm -f $(DESTDIR)$(BINDIR)/$$t $(DESTDIR)$(MANPREFIX)/man1/$$t.1 \
	  $(DESTDIR)$(COMPLETIONDIR)/$$t; done
	rm -f $(DESTDIR)$(MANPREFIX)/man7/retrial.7 $(DESTDIR)$(MANPREFIX)/man3/rt_stats.3
	rm -f $(DESTDIR)$(SHAREDIR)/examples/nightly-audit.sh
	rm -rf $(DESTDIR)$(SHAREDIR)
	rm -f $(DESTDIR)$(LIBDIR)/libretrial-stats.a $(DESTDIR)$(LIBDIR)/libretrial-stats.so \
	  $(DESTDIR)$(LIBDIR)/libretrial-stats.so.$(STATS_SO_VER) $(DESTDIR)$(INCDIR)/rt_stats.h \
	  $(DESTDIR)$(PKGCONFIGDIR)/retrial-stats.pc

clean: fuzz-clean
	rm -f $(BINS) $(COMPLETIONS) bin/*.o lib/*.o lib/runner/*.o lib/*.a lib/*.so lib/retrial-stats.pc t/stats_test t/guard_test t/runner_test t/say_test t/records_test t/ddmin_test bench/stopping-rules bench/release bench/ddmin

.PHONY: all check lint deps build-deps dist jest-deps demo bench install uninstall clean
.SECONDARY: $(LIB_OBJ) $(RUNNER_OBJ) $(TOOLS:%=bin/%.o)

# make fuzz: libFuzzer targets (clang, ASan+UBSan) for every record reader,
# each run FUZZ_SECONDS on a corpus seeded from t/fixtures; crashes are
# copied to t/fuzz/TARGET/ as regression inputs. A tool's exit on bad
# input leaks what it held, so the long run forks (-fork=1): a fresh
# process per job keeps that from ending it as an out-of-memory. fuzz-replay runs those
# (and the seeds) once; fuzz-smoke runs each target FUZZ_SMOKE seconds.
# A target is NAME:TOOL:ARGS (ARGS comma-separated, before the input file).
FUZZ_CC      = clang
FUZZ_SECONDS = 60
FUZZ_SMOKE   = 10
FUZZ_FLAGS   = -std=c11 -D_POSIX_C_SOURCE=200809L -g -O1 -Ilib $(PKG_CFLAGS) -pthread \
	-DRT_VERSION=\"$(VERSION)\" -DRT_SHAREDIR=\"$(SHAREDIR)\" -Dexit=rt_fuzz_exit \
	-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
FUZZ_TARGETS = trial:rt-measure:rt-measure measure:rt-plan:rt-plan \
	trial-facts:rt-diff-facts:rt-diff-facts,-j,1 \
	diff:rt-diagnose:rt-diagnose,--offline,--rules,--no-cache \
	verdict:rt-pr:rt-pr,--body,- verdict-import:rt-genome:rt-genome,--genome,:memory:,--import \
	attempt:rt-measure:rt-measure,--by,case junit:rt-junit:rt-junit \
	audit:rt-audit:rt-audit,-H,:memory:,--md,/dev/null,--html,/dev/null \
	quarantine:rt-quarantine:rt-quarantine,check,-f \
	codeowners:rt-quarantine:rt-quarantine,-f,fuzz/tmp/codeowners-list,add,src/app/deep/x_test.py::t,--codeowners
# hypothesis: rt-verify's input reader and patch checks, lib/rt_hyp (fuzz/fuzz_hypothesis.c)
FUZZ_NAMES   = $(foreach t,$(FUZZ_TARGETS),$(word 1,$(subst :, ,$(t)))) hypothesis
FUZZ_RUN     = RETRIAL_CONFIG= RT_FUZZ_TMP=fuzz/tmp TMPDIR=fuzz/tmp ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1

fuzz/obj/lib/%.o: lib/%.c $(LIB_HDR)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_FLAGS) -fsanitize=fuzzer-no-link -c -o $@ $<

FUZZ_LIB = $(LIB_OBJ:lib/%=fuzz/obj/lib/%) $(RUNNER_OBJ:lib/%=fuzz/obj/lib/%)

fuzz/hypothesis: fuzz/fuzz_hypothesis.c fuzz/fuzz_common.h $(FUZZ_LIB)
	$(FUZZ_CC) $(FUZZ_FLAGS) -fsanitize=fuzzer -o $@ fuzz/fuzz_hypothesis.c $(FUZZ_LIB) $(PKG_LIBS) -lm

fuzz-build: $(FUZZ_LIB) fuzz/hypothesis
	@for t in $(FUZZ_TARGETS); do \
	  name=$${t%%:*}; rest=$${t#*:}; tool=$${rest%%:*}; args=$${rest#*:}; \
	  qargs=$$(printf '"%s",' $$(echo $$args | tr , ' ')); \
	  [ fuzz/$$name -nt bin/$$tool.c ] && [ fuzz/$$name -nt fuzz/fuzz_tool.c ] && \
	    [ fuzz/$$name -nt fuzz/fuzz_common.h ] && continue; \
	  echo "fuzz: $$name ($$tool)"; \
	  $(FUZZ_CC) $(FUZZ_FLAGS) -fsanitize=fuzzer-no-link -Dmain=rt_tool_main \
	    -c -o fuzz/obj/$$tool.o bin/$$tool.c && \
	  $(FUZZ_CC) $(FUZZ_FLAGS) -fsanitize=fuzzer "-DFUZZ_ARGS=$${qargs%,}" \
	    -o fuzz/$$name fuzz/fuzz_tool.c fuzz/obj/$$tool.o $(FUZZ_LIB) $(PKG_LIBS) -lm || exit 2; \
	done

# The corpora start from the fixtures, and the newest readers' (junit,
# attempt, audit) also from real reports: pytest's xunit1 and xunit2 of
# t/fixtures/junit/suite, a real go test -json capture, and rt-junit's
# case records of every report.
fuzz-corpus: all
	@for n in $(FUZZ_NAMES); do \
	  mkdir -p fuzz/corpus/$$n t/fuzz/$$n; \
	  if [ $$n = junit ]; then \
	    find t/fixtures -name node_modules -prune -o -name '*.xml' -size -64k -exec cp {} fuzz/corpus/$$n/ \; ; \
	    cp t/fixtures/runners/*.json fuzz/corpus/$$n/; \
	    for fam in xunit1 xunit2; do \
	      (cd t/fixtures/junit/suite && PYTHONDONTWRITEBYTECODE=1 /usr/bin/python3 -m pytest -q -p no:cacheprovider \
	        -p no:randomly -p no:random_order -o junit_family=$$fam \
	        --junitxml="$(CURDIR)/fuzz/corpus/junit/pytest-$$fam.xml" >/dev/null 2>&1); \
	    done; \
	  elif [ $$n = quarantine ]; then \
	    printf 'a::t\towner=@a\tsince=2026-12-01\texpires=2026-12-31\tissue=https://github.com/o/r/issues/7\treason=12/40 failed\trate=12/40\t# dossier: d\n# a comment\n\nold::line LINK\nb::t\n' \
	      >fuzz/corpus/$$n/list; \
	    find t/fixtures -name 'quarantine*' -type f -size -64k -exec cp {} fuzz/corpus/$$n/ \; ; \
	  elif [ $$n = codeowners ]; then \
	    printf '# owners\n* @all\n/src/ @src-team\nsrc/**/deep/*_test.py @deep @b\n*.py team@example.com\n!src/x\n/docs/**/[a-z]?.md @docs\n' \
	      >fuzz/corpus/$$n/CODEOWNERS; \
	    find t/fixtures -name 'CODEOWNERS' -type f -size -64k -exec cp {} fuzz/corpus/$$n/ \; ; \
	  else \
	    find t/fixtures examples -name node_modules -prune -o \( -name '*.jsonl' -o -name '*.json' \) -size -64k -exec cp {} fuzz/corpus/$$n/ \; ; \
	  fi; \
	done; \
	for x in t/fixtures/junit/*.xml fuzz/corpus/junit/pytest-*.xml t/fixtures/runners/go-test.json \
	    t/fixtures/runners/jest.json; do \
	  [ -f "$$x" ] || continue; b=$$(basename "$$x" .xml); \
	  ./bin/rt-junit --run night-1 "$$x" >fuzz/corpus/attempt/junit-$$b.jsonl 2>/dev/null || true; \
	  cp fuzz/corpus/attempt/junit-$$b.jsonl fuzz/corpus/audit/; \
	done

fuzz: fuzz-build fuzz-corpus
	@mkdir -p fuzz/tmp; rc=0; for n in $(FUZZ_NAMES); do \
	  $(FUZZ_RUN) ./fuzz/$$n -fork=1 -ignore_ooms=1 -rss_limit_mb=1024 \
	    -max_total_time=$(FUZZ_SECONDS) -close_fd_mask=2 -max_len=65536 \
	    -artifact_prefix=t/fuzz/$$n/ fuzz/corpus/$$n >fuzz/$$n.log 2>&1 || rc=2; \
	  echo "fuzz: $$n: $$(sed -n 's/^#\([0-9]*\): cov.*/\1/p' fuzz/$$n.log | tail -n 1) execs," \
	    "corpus $$(ls fuzz/corpus/$$n | wc -l) inputs, regressions $$(ls t/fuzz/$$n | wc -l)"; \
	  grep -E '^(==[0-9]+==ERROR|SUMMARY)' fuzz/$$n.log || true; \
	done; rm -rf fuzz/tmp; exit $$rc

fuzz-replay: fuzz-build fuzz-corpus
	@mkdir -p fuzz/tmp; for n in $(FUZZ_NAMES); do \
	  set -- t/fuzz/$$n/*; [ -e "$$1" ] || continue; \
	  $(FUZZ_RUN) ./fuzz/$$n -close_fd_mask=2 "$$@" || exit 2; \
	done; rm -rf fuzz/tmp

fuzz-smoke: fuzz-build fuzz-corpus
	@mkdir -p fuzz/tmp; for n in $(FUZZ_NAMES); do \
	  $(FUZZ_RUN) ./fuzz/$$n -max_total_time=$(FUZZ_SMOKE) -close_fd_mask=2 -max_len=65536 \
	    -artifact_prefix=t/fuzz/$$n/ fuzz/corpus/$$n >fuzz/$$n.log 2>&1 || \
	    { tail -n 40 fuzz/$$n.log; exit 2; }; \
	  echo "fuzz-smoke: $$n: $$(grep -o 'DONE.*' fuzz/$$n.log)"; \
	done; rm -rf fuzz/tmp

fuzz-clean:
	rm -rf fuzz/obj fuzz/corpus fuzz/tmp $(FUZZ_NAMES:%=fuzz/%) $(FUZZ_NAMES:%=fuzz/%.log)

.PHONY: fuzz fuzz-build fuzz-corpus fuzz-replay fuzz-smoke fuzz-clean
