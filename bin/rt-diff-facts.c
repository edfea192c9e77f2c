/* rt-diff-facts: (not yet written) */
#include <stdio.h>
#include "rt_util.h"

int
main(int argc, char *argv[])
{
	(void)argc;
	rt_setprogname(argv[0]);
	rt_die("not implemented yet");
}
