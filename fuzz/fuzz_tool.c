/* fuzz/fuzz_tool.c: a libFuzzer target that hands each input, as a JSONL
 * file, to one tool's real main (built with -Dmain=rt_tool_main), so the
 * whole reading path runs: rt_jsonl_loop, the tool's record checks and
 * what it computes from them. The tool's exit() returns here instead. */
#include <fcntl.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef FUZZ_ARGS
#error "build with -DFUZZ_ARGS='\"rt-tool\", \"--opt\"'"
#endif

int rt_tool_main(int argc, char *argv[]);
_Noreturn void rt_fuzz_exit(int code);

static jmp_buf jb;
static int armed;
static char path[64];
static unsigned char had_fd[1024];

/* An exit through longjmp skips the tool's fclose: close what the run
 * opened, or the descriptors run out. */
static void
close_new_fds(void)
{
	static int known;
	int fd;

	if (!known) {   /* libFuzzer's own are open by the first run */
		for (fd = 0; fd < (int)sizeof had_fd; fd++)
			had_fd[fd] = fcntl(fd, F_GETFD) != -1;
		known = 1;
	}
	for (fd = 3; fd < (int)sizeof had_fd; fd++)
		if (!had_fd[fd])
			close(fd);
}

/* A bad record makes the tool exit 2: that is the tool working, not a
 * crash. Anything else the sanitizers catch is. */
_Noreturn void
rt_fuzz_exit(int code)
{
	if (armed) {
		armed = 0;
		longjmp(jb, 1);
	}
	_Exit(code);
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	int fd;

	(void)argc, (void)argv;
	snprintf(path, sizeof path, "/tmp/rt-fuzz-XXXXXX");
	if ((fd = mkstemp(path)) < 0) {
		perror("mkstemp");
		exit(2);
	}
	close(fd);
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
	FILE *f;

	close_new_fds();
	f = fopen(path, "w");
	if (!f || (size && fwrite(data, 1, size, f) != size) || fclose(f) != 0)
		abort();
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
