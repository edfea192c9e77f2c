/* records_test: lib/rt_records from the shell, for t/06-records.bats.
 *   records_test fields          every schema field, "KIND FIELD" a line
 *   records_test check [FILE...] validate every record; print "KIND" a line
 *   records_test write [FILE...] write every record back through rt_emit
 * Exit 0, or 2 on a bad record or a usage error. */
#include <stdio.h>
#include <string.h>

#include "rt_jsonl.h"
#include "rt_records.h"
#include "rt_util.h"

static int
on_record(json_t *rec, const rt_where *w, void *ctx)
{
	rt_rec_kind_t k = rt_rec_kind(rec);

	(void)ctx;
	if (k == RT_REC_UNKNOWN) {
		printf("other %s\n", json_string_value(json_object_get(rec, "type")));
		return 0;
	}
	rt_rec_check(k, rec, w);
	printf("%s\n", rt_rec_kind_name(k));
	return 0;
}

static int
on_write(json_t *rec, const rt_where *w, void *ctx)
{
	(void)w, (void)ctx;
	rt_emit(stdout, rec);
	return 0;
}

int
main(int argc, char *argv[])
{
	rt_setprogname("records_test");
	if (argc == 2 && !strcmp(argv[1], "fields"))
		rt_rec_list_fields(stdout);
	else if (argc >= 2 && !strcmp(argv[1], "check"))
		rt_jsonl_loop(argc - 2, argv + 2, NULL, on_record, NULL);
	else if (argc >= 2 && !strcmp(argv[1], "write"))
		rt_jsonl_loop(argc - 2, argv + 2, NULL, on_write, NULL);
	else
		rt_usage_die("usage: records_test fields | check [FILE ...] | write [FILE ...]");
	if (fflush(stdout) == EOF)
		rt_die("stdout:");
	return 0;
}
