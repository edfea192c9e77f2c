/* rt_fix: rule patches planned by share/retrial/rt-fix.py, turned into a
 * diff and checked (applies with patch --fuzz=0, parses) before they are
 * emitted. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_fix.h"
#include "rt_fs.h"
#include "rt_patch.h"
#include "rt_src.h"
#include "rt_util.h"

static json_t *
no_patch(const char *fmt, const char *a, const char *b)
{
	char buf[1200];

	snprintf(buf, sizeof buf, fmt, a, b ? b : "");
	return json_pack("{s:s, s:s}", "status", "no_patch", "reason", buf);
}

/* Does the diff apply to old (patch --fuzz=0 in a scratch directory), and
 * does the result parse? NULL when it does, else the reason (malloc'd). */
static char *
check_patch(const char *root, const char *command, const char *rel,
    const char *old, size_t oldlen, const char *diff)
{
	const char *tmp = getenv("TMPDIR");
	char *dir, *path, *res = NULL, err[512], why[1024];
	char *files[1];
	rt_src_inv inv;
	FILE *f;
	int r;

	dir = rt_xasprintf("%s/rt-fix-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir)) {
		res = rt_xasprintf("a scratch directory: %s", strerror(errno));
		free(dir);
		return res;
	}
	path = rt_xasprintf("%s/%s", dir, rel);
	if (rt_mkdir_parents(path, 0700) < 0 || !(f = fopen(path, "wb")) ||
	    fwrite(old, 1, oldlen, f) != oldlen || fclose(f) != 0) {
		res = rt_xasprintf("%s: cannot copy to a scratch directory", rel);
		goto done;
	}
	if (rt_patch_apply(dir, diff, err, sizeof err) < 0) {
		res = rt_xasprintf("the patch does not apply (patch --fuzz=0): %s", err);
		goto done;
	}
	files[0] = (char *)rel;
	r = rt_src_inventory("python", dir, root, files, 1, command, NULL, &inv, why,
	    sizeof why);
	if (r != RT_SRC_OK) {
		res = rt_xasprintf("the patched file could not be parsed: %s", why);
		goto done;
	}
	if (inv.nfiles > 0 && inv.files[0].error)
		res = rt_xasprintf("the patched file does not parse: %s:%ld: %s", rel,
		    inv.files[0].err_line, inv.files[0].err_msg ? inv.files[0].err_msg : "");
	rt_src_inv_free(&inv);
done:
	rt_remove_tree(dir);
	free(path);
	free(dir);
	return res;
}

/* One planned change (file, source, explanation), as a checked patch or
 * no_patch with the reason. */
static json_t *
checked(const char *root, const char *command, json_t *o)
{
	const char *rel, *src, *expl;
	char *old = NULL, *diff = NULL, *bad = NULL, *opath;
	size_t oldlen = 0;
	json_t *res;
	const char *st = json_string_value(json_object_get(o, "status"));
	const char *why = json_string_value(json_object_get(o, "reason"));

	if (!st || strcmp(st, "ok") != 0)
		return no_patch("%s%s", why ? why : "the fix planner gave no reason", NULL);
	rel = json_string_value(json_object_get(o, "file"));
	src = json_string_value(json_object_get(o, "source"));
	expl = json_string_value(json_object_get(o, "explanation"));
	if (!rel || !src || !expl) {
		return no_patch("the fix planner's answer lacks file, source or explanation%s%s",
		    "", NULL);
	}
	opath = rt_xasprintf("%s/%s", root, rel);
	if (!rt_patch_path_inside(root, rel) || !(old = rt_read_file(opath, &oldlen))) {
		res = no_patch("%s: cannot read it in the project%s", rel, NULL);
		free(opath);
		return res;
	}
	free(opath);
	if (!(diff = rt_patch_from_texts(rel, old, src)))
		res = no_patch("%s: the planned change changes nothing%s", rel, NULL);
	else if ((bad = check_patch(root, command, rel, old, oldlen, diff)))
		res = no_patch("%s%s", bad, NULL);
	else
		res = json_pack("{s:s, s:s, s:[s], s:s}", "status", "ok", "patch", diff,
		    "files", rel, "explanation", expl);
	free(bad);
	free(diff);
	free(old);
	return res;
}

json_t *
rt_fix_plan(const char *root, const char *command, json_t *req)
{
	char *text = json_dumps(req, JSON_COMPACT), *args[2], why[1024];
	const char *status;
	rt_buf out = { 0 };
	json_error_t je;
	json_t *o, *res;
	int r;

	args[0] = text;
	args[1] = NULL;
	r = rt_src_python_helper("rt-fix.py", root, command, NULL, args, &out, why, sizeof why);
	free(text);
	if (r != RT_SRC_OK) {
		rt_buf_free(&out);
		return no_patch("the fix planner (rt-fix.py) failed: %s%s", why, NULL);
	}
	o = json_loadb(out.data ? out.data : "", out.len, 0, &je);
	rt_buf_free(&out);
	if (!json_is_object(o)) {
		json_decref(o);
		return no_patch("the fix planner (rt-fix.py) printed no JSON object: %s%s",
		    je.text, NULL);
	}
	status = json_string_value(json_object_get(o, "status"));
	if (!status || strcmp(status, "ok") != 0) {
		const char *why2 = json_string_value(json_object_get(o, "reason"));
		res = no_patch("%s%s", why2 ? why2 : "the fix planner gave no reason", NULL);
		json_decref(o);
		return res;
	}
	if (json_is_array(json_object_get(o, "candidates"))) {
		json_t *c, *arr = json_array();
		size_t i;
		json_array_foreach(json_object_get(o, "candidates"), i, c)
			json_array_append_new(arr, checked(root, command, c));
		res = json_pack("{s:s, s:o}", "status", "ok", "candidates", arr);
	} else {
		res = checked(root, command, o);
	}
	json_decref(o);
	return res;
}
