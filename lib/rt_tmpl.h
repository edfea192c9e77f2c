/* rt_tmpl: a small Mustache subset for the text retrial writes from its
 * records (rt-pr's dossier, reports): values are computed by the caller. */
#ifndef RT_TMPL_H
#define RT_TMPL_H

#include <jansson.h>

/*
 * The language:
 *   {{name}}          the value of name (a string as is; numbers, booleans
 *                     printed); a dotted name walks into objects (a.b.c);
 *                     {{.}} is the current item
 *   {{#name}}..{{/name}}  repeats for each item of a list, enters an
 *                     object, or shows once when the value is set (not
 *                     null, false, "" or []); inner names are looked up
 *                     from the innermost context outwards
 *   {{^name}}..{{/name}}  shows only when the value is not set
 *   {{! comment }}    nothing
 * A section, end or comment tag alone on its line takes the line with it.
 * Nothing is escaped: the caller escapes values for their destination.
 */
typedef struct rt_tmpl rt_tmpl;

/* Parse src (copied), read from file (named in messages). Every name must
 * be in names (a NULL-terminated list); doc says where the names are
 * documented ("rt-pr(1), TEMPLATE"). Dies naming file:line on an unknown
 * or malformed placeholder, a section closed wrongly or never. */
rt_tmpl *rt_tmpl_parse(const char *src, const char *file, const char *const *names,
    const char *doc);

/* The text of t with view as the outermost context (malloc'd). */
char *rt_tmpl_render(const rt_tmpl *t, json_t *view);

void rt_tmpl_free(rt_tmpl *t);

/* Read path, parse it and render it with view; dies when it cannot be read. */
char *rt_tmpl_render_file(const char *path, const char *const *names, const char *doc,
    json_t *view);

#endif
