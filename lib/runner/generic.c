/* lib/runner/generic.c: any other command — retrial knows only its exit
 * status, and a JUnit report it writes to $RETRIAL_JUNIT itself. */
#include "runner/runner.h"

const rt_runner rt_runner_generic = {
	.kind = RT_RUNNER_GENERIC,
	.name = "generic",
};
