/* fuzz/fuzz_hypothesis.c: rt-verify's input reader (lib/rt_hyp) — the
 * hypothesis and measure records, then the checks each lane's patch meets
 * before it is applied (rt_hyp_patch_check, rt_patch_canonical) — on the
 * input as a JSONL file. */
#include <fcntl.h>
#include <setjmp.h>
#include <stdint.h>

#include "rt_hyp.h"
#include "rt_patch.h"
#include "rt_util.h"

#include "fuzz_common.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	fuzz_input_init(argv && *argv ? (*argv)[0] : NULL);
	rt_setprogname("rt-verify");
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *files[] = { path, NULL };
	char err[512], **paths, *canon;
	char *allow[] = { "docs/*", NULL };
	size_t i, np;
	rt_hyp_set s;
	rt_tally t;

	close_new_fds();
	fuzz_input_write(data, size);
	memset(&s, 0, sizeof s);
	if (setjmp(jb) == 0) {
		armed = 1;
		rt_hyp_read(1, files, &s);
		if (s.measure)
			rt_hyp_measure_tally(s.measure, &t);
		for (i = 0; i < s.n; i++) {
			const char *p = s.hyps[i]->patch;
			if (!p || !*p)
				continue;
			(void)rt_hyp_patch_check(p, allow, 1, &paths, &np, err, sizeof err);
			rt_patch_paths_free(paths, np);
			(void)rt_hyp_diff_lines(p);
			canon = rt_patch_canonical(p, err, sizeof err);
			free(canon);
		}
	}
	armed = 0;
	close_new_fds();
	rt_hyp_set_free(&s);   /* what an exit left is freed, not reused */
	return 0;
}
