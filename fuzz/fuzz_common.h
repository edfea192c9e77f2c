/* fuzz/fuzz_common.h: what every libFuzzer harness here shares: the input
 * file (inside the fuzz directory, removed at exit), an exit() that
 * returns to the harness, and closing what a run left open. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

_Noreturn void rt_fuzz_exit(int code);

static jmp_buf jb;
static int armed;
static char path[4096];
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

static void
remove_input(void)
{
	if (*path)
		unlink(path);
}

/* The input file lives in $RT_FUZZ_TMP, else in tmp/ beside the target
 * (fuzz/tmp/), never in /tmp: a fuzzing session leaves nothing outside
 * its directory, and make fuzz-clean removes what a crash left. */
static void
fuzz_input_init(const char *argv0)
{
	const char *dir = getenv("RT_FUZZ_TMP"), *slash;
	char buf[4000];
	int fd;

	if (!dir || !*dir) {
		slash = argv0 ? strrchr(argv0, '/') : NULL;
		snprintf(buf, sizeof buf, "%.*stmp", slash ? (int)(slash - argv0 + 1) : 0,
		    argv0 ? argv0 : "");
		dir = buf;
	}
	if (mkdir(dir, 0700) < 0 && errno != EEXIST) {
		perror(dir);
		_Exit(2);
	}
	snprintf(path, sizeof path, "%s/input-XXXXXX", dir);
	if ((fd = mkstemp(path)) < 0) {
		perror(path);
		_Exit(2);
	}
	close(fd);
	atexit(remove_input);
}

/* Write one input to the input file. */
static void
fuzz_input_write(const uint8_t *data, size_t size)
{
	FILE *f = fopen(path, "w");

	if (!f || (size && fwrite(data, 1, size, f) != size) || fclose(f) != 0)
		abort();
}
