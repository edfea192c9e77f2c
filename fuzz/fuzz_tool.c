/* fuzz/fuzz_tool.c: a libFuzzer target that hands each input, as a JSONL
 * file, to one tool's real main (built with -Dmain=rt_tool_main), so the
 * whole reading path runs: rt_jsonl_loop, the tool's record checks and
 * what it computes from them. The tool's exit() returns here instead. */
#include <stdint.h>

#include "fuzz_common.h"

#ifndef FUZZ_ARGS
#error "build with -DFUZZ_ARGS='\"rt-tool\", \"--opt\"'"
#endif

int rt_tool_main(int argc, char *argv[]);

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	fuzz_input_init(argv && *argv ? (*argv)[0] : NULL);
	/* the tools' output is not the fuzzer's (their messages on stderr
	 * are silenced by -close_fd_mask=2, which keeps crash reports) */
	if (!freopen("/dev/null", "w", stdout))
		exit(2);
	setenv("RETRIAL_NO_TTY", "1", 1);
	setenv("XDG_CACHE_HOME", "/nonexistent/rt-fuzz", 1);
	setenv("XDG_DATA_HOME", "/nonexistent/rt-fuzz", 1);
	unsetenv("RETRIAL_API_KEY");
	unsetenv("FIREWORKS_API_KEY");
	unsetenv("GITHUB_TOKEN");
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *args[] = { FUZZ_ARGS, path, NULL };
	int n = (int)(sizeof args / sizeof *args) - 1;

	close_new_fds();
	fuzz_input_write(data, size);
	optind = 0;   /* glibc: start getopt afresh */
	if (setjmp(jb) == 0) {
		armed = 1;
		rt_tool_main(n, args);
	}
	armed = 0;
	close_new_fds();
	fflush(stdout);
	clearerr(stdout);
	return 0;
}
