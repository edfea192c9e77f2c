/* rt_md: Markdown for record text — code spans and fences that nothing
 * inside can break out of, and the Markdown subset retrial writes, as HTML. */
#ifndef RT_MD_H
#define RT_MD_H

#include <stddef.h>
#include "rt_util.h"

/* Bytes of record text quoted in one place. */
#define RT_MD_MAX 400

/* Record text for one line (malloc'd): invalid UTF-8 repaired, control
 * characters made visible (rt_text_visible), at most RT_MD_MAX bytes of
 * the text (cut on a UTF-8 boundary, then "…"). */
char *rt_md_clean(const char *s);

/* s, cleaned, as a Markdown code span: fenced with one backtick more than
 * its longest run, so nothing inside is read as Markdown or HTML;
 * "(empty)" for "". */
void rt_md_code(rt_buf *b, const char *s);

/* text as a fenced block with info string info ("diff"): the fence one
 * backtick longer than any run in the text (at least three); control
 * characters but line feeds and tabs made visible. */
void rt_md_fence(rt_buf *b, const char *text, const char *info);

/* n bytes of s with & < > " ' escaped for HTML text and attributes. */
void rt_html_esc(rt_buf *b, const char *s, size_t n);

/* A test ID as HTML text: cleaned (rt_md_clean), escaped, with a <wbr>
 * after each run of '/', ':' and '.' ("/", "::", "."), so a long ID wraps
 * only at its own boundaries, never inside a word. */
void rt_html_id(rt_buf *b, const char *id);

/* The Markdown retrial writes, as HTML: "#" headings, "- " lists, "|"
 * tables (the first row a header, a "|---|" row dropped), paragraphs, and
 * inline code spans; everything else is escaped text. */
void rt_md_to_html(rt_buf *b, const char *md);

/* The stylesheet every retrial page embeds, share/retrial/retrial.css
 * (rt_sharedir), read once. Dies naming the path when it cannot be read,
 * or when it holds "</" (it would end the <style> element). A tool calls
 * it before it starts work, so a missing file fails first. */
const char *rt_html_css(void);
/* The stylesheet as a "<style>...</style>" element. */
void rt_html_style(rt_buf *b);

#endif
