/* say_test: print lib/rt_say's words for counts, for t/05-say.bats.
 *   say_test count K N CONF [VERB]   the full phrase
 *   say_test short K N CONF          the short form
 *   say_test pct V up|down|near      one value
 *   say_test anytime K N CONF LO HI [NOTE]   the phrase with an anytime interval
 * Exit 0, or 2 on a usage error. */
#include <stdio.h>
#include <string.h>

#include "rt_say.h"
#include "rt_util.h"

int
main(int argc, char *argv[])
{
	char buf[300];

	rt_setprogname("say_test");
	if ((argc == 5 || argc == 6) && !strcmp(argv[1], "count")) {
		rt_say_count(buf, sizeof buf, rt_num_long("K", argv[2], 0, 1L << 40),
		    rt_num_long("N", argv[3], 0, 1L << 40), rt_num_double("CONF", argv[4], 0, 1, 0, 0),
		    argc == 6 ? argv[5] : "failed");
	} else if (argc == 5 && !strcmp(argv[1], "short")) {
		rt_say_short(buf, sizeof buf, rt_num_long("K", argv[2], 0, 1L << 40),
		    rt_num_long("N", argv[3], 0, 1L << 40), rt_num_double("CONF", argv[4], 0, 1, 0, 0));
	} else if (argc == 4 && !strcmp(argv[1], "pct")) {
		int dir = !strcmp(argv[3], "up") ? RT_SAY_UP : !strcmp(argv[3], "down") ?
		    RT_SAY_DOWN : RT_SAY_NEAR;
		rt_say_pct(buf, sizeof buf, rt_num_double("V", argv[2], -1, 1, 0, 0), dir);
	} else if ((argc == 7 || argc == 8) && !strcmp(argv[1], "anytime")) {
		rt_interval iv = { rt_num_double("LO", argv[5], 0, 1, 0, 0),
		    rt_num_double("HI", argv[6], 0, 1, 0, 0), 0, 0 };
		rt_say_count_iv(buf, sizeof buf, rt_num_long("K", argv[2], 0, 1L << 40),
		    rt_num_long("N", argv[3], 0, 1L << 40), rt_num_double("CONF", argv[4], 0, 1, 0, 0),
		    "failed", &iv, "anytime", argc == 8 ? argv[7] : NULL);
	} else {
		fputs("usage: say_test count|short|pct|anytime ...\n", stderr);
		return 2;
	}
	puts(buf);
	return 0;
}
