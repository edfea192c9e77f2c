/* fuzz/fuzz_hypothesis.c: rt-verify's hypothesis reader — its record
 * callback, then the checks each lane's patch meets before it is applied
 * (rt_patch_paths, rt_patch_dangerous, rt_patch_canonical) — on the input
 * as a JSONL file. rt-verify's main would go on to run trials, so its
 * callback is called directly. */
#include <fcntl.h>
#include <setjmp.h>
#include <stdint.h>

#define main rt_verify_main
#include "../bin/rt-verify.c"
#undef main

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

	close_new_fds();
	fuzz_input_write(data, size);
	memset(&V, 0, sizeof V);   /* what a run left is leaked, not reused */
	if (setjmp(jb) == 0) {
		armed = 1;
		rt_jsonl_loop(1, files, NULL, on_record, NULL);
		for (i = 0; i < V.nlanes; i++) {
			const char *p = V.lanes[i]->patch;
			if (!p || !*p || rt_patch_paths(p, &paths, &np, err, sizeof err) < 0)
				continue;
			rt_patch_dangerous(paths, np, allow, 1, err, sizeof err);
			rt_patch_paths_free(paths, np);
			free(rt_patch_canonical(p, err, sizeof err));
		}
	}
	armed = 0;
	close_new_fds();
	for (i = 0; i < V.nlanes; i++) {
		json_decref(V.lanes[i]->hyp);
		free(V.lanes[i]);
	}
	free(V.lanes);
	json_decref(V.measure_in);
	return 0;
}
