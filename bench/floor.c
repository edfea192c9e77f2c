/* bench/floor: the floor for trial overhead — a bare posix_spawn + waitpid
 * loop with no capture, no timing, no records. usage: floor N ARGV... */
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>

extern char **environ;

int
main(int argc, char *argv[])
{
	long i, n;
	pid_t pid;
	int st;

	if (argc < 3) {
		fprintf(stderr, "usage: floor N ARGV...\n");
		return 2;
	}
	n = atol(argv[1]);
	for (i = 0; i < n; i++) {
		if (posix_spawnp(&pid, argv[2], NULL, NULL, argv + 2, environ) != 0)
			return 2;
		waitpid(pid, &st, 0);
	}
	return 0;
}
