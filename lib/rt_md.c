/* rt_md: Markdown for record text (rt_md.h): code spans and fences that
 * nothing inside can break out of, and the subset retrial writes as HTML. */
#include <stdlib.h>
#include <string.h>

#include "rt_md.h"
#include "rt_text.h"
#include "rt_util.h"

/* Record text for one line: control characters made visible
 * (rt_text_visible), at most RT_MD_MAX bytes of the text (cut on a UTF-8
 * boundary, then "…"). */
char *
rt_md_clean(const char *s)
{
	size_t n = strlen(s);
	rt_buf b = { 0 };
	int cut = 0;
	char *o;

	if (n > RT_MD_MAX) {
		n = RT_MD_MAX;
		while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80)
			n--;
		cut = 1;
	}
	rt_text_visible(&b, s, n, 0);
	if (cut)
		rt_buf_adds(&b, "\xE2\x80\xA6");
	o = rt_xstrdup(rt_buf_str(&b));
	rt_buf_free(&b);
	return o;
}

/* Untrusted text as a Markdown code span: fenced with one backtick more
 * than its longest run, so nothing inside is read as Markdown or HTML. */
void
rt_md_code(rt_buf *b, const char *s)
{
	char *c;
	size_t run = 0, longest = 0, i, n;
	int pad;

	if (!*s) {
		rt_buf_adds(b, "(empty)");
		return;
	}
	c = rt_md_clean(s);
	n = strlen(c);

	for (i = 0; i < n; i++) {
		run = c[i] == '`' ? run + 1 : 0;
		if (run > longest)
			longest = run;
	}
	pad = n == 0 || c[0] == '`' || c[n - 1] == '`' || c[0] == ' ' || c[n - 1] == ' ';
	for (i = 0; i <= longest; i++)
		rt_buf_addc(b, '`');
	if (pad)
		rt_buf_addc(b, ' ');
	rt_buf_adds(b, c);
	if (pad)
		rt_buf_addc(b, ' ');
	for (i = 0; i <= longest; i++)
		rt_buf_addc(b, '`');
	free(c);
}

/* A fence one backtick longer than any run in the text. */
void
rt_md_fence(rt_buf *b, const char *text, const char *info)
{
	size_t run = 0, longest = 2, i;

	for (i = 0; text[i]; i++) {
		run = text[i] == '`' ? run + 1 : 0;
		if (run > longest)
			longest = run;
	}
	for (i = 0; i <= longest; i++)
		rt_buf_addc(b, '`');
	rt_buf_printf(b, "%s\n", info);
	rt_text_visible(b, text, strlen(text), RT_VIS_LINES);
	if (*text && text[strlen(text) - 1] != '\n')
		rt_buf_addc(b, '\n');
	for (i = 0; i <= longest; i++)
		rt_buf_addc(b, '`');
	rt_buf_adds(b, "\n");
}

void
rt_html_esc(rt_buf *b, const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		switch (s[i]) {
		case '&': rt_buf_adds(b, "&amp;"); break;
		case '<': rt_buf_adds(b, "&lt;"); break;
		case '>': rt_buf_adds(b, "&gt;"); break;
		case '"': rt_buf_adds(b, "&quot;"); break;
		case '\'': rt_buf_adds(b, "&#39;"); break;
		default: rt_buf_addc(b, s[i]);
		}
	}
}

const char *
rt_html_css(void)
{
	static char *css;
	char *path;

	if (!css) {
		path = rt_xasprintf("%s/retrial.css", rt_sharedir());
		if (!(css = rt_read_file(path, NULL)))
			rt_die("%s: the HTML stylesheet (set RETRIAL_SHAREDIR to the directory "
			    "holding it):", path);
		if (strstr(css, "</"))
			rt_die("%s: the stylesheet holds \"</\", which would end the page's "
			    "<style> element", path);
		free(path);
	}
	return css;
}

void
rt_html_style(rt_buf *b)
{
	rt_buf_adds(b, "<style>\n");
	rt_buf_adds(b, rt_html_css());
	rt_buf_adds(b, "</style>\n");
}

/* The inline Markdown this tool writes: code spans, everything else text. */
static void
html_inline(rt_buf *b, const char *s, size_t n)
{
	size_t i = 0, run, j, k, start, end;

	while (i < n) {
		if (s[i] != '`') {
			for (j = i; j < n && s[j] != '`'; j++)
				;
			rt_html_esc(b, s + i, j - i);
			i = j;
			continue;
		}
		for (run = 0; i + run < n && s[i + run] == '`'; run++)
			;
		/* find a closing run of exactly the same length */
		for (j = i + run; j < n; j = k) {
			if (s[j] != '`') {
				k = j + 1;
				continue;
			}
			for (k = j; k < n && s[k] == '`'; k++)
				;
			if (k - j == run)
				break;
		}
		if (j >= n) {
			rt_html_esc(b, s + i, run);
			i += run;
			continue;
		}
		start = i + run;
		end = j;
		if (end - start >= 2 && s[start] == ' ' && s[end - 1] == ' ')
			start++, end--;
		rt_buf_adds(b, "<code>");
		rt_html_esc(b, s + start, end - start);
		rt_buf_adds(b, "</code>");
		i = j + run;
	}
}

enum { NONE, PARA, LIST, TABLE };

static void
close_block(rt_buf *b, int open)
{
	static const char *const end[] = { "", "</p>\n", "</ul>\n", "</table>\n" };

	rt_buf_adds(b, end[open]);
}

/* Markdown (the subset sections are written in) to HTML. */
void
rt_md_to_html(rt_buf *b, const char *md)
{
	const char *p = md, *nl;
	size_t n;
	int open = NONE;
	int row = 0, head;
	const char *c, *e;

	for (; *p; p = nl + (*nl == '\n')) {
		nl = strchr(p, '\n');
		if (!nl)
			nl = p + strlen(p);
		n = (size_t)(nl - p);
		head = n > 0 && p[0] == '#';
		if (n == 0 || head || (open != LIST && n > 1 && p[0] == '-' && p[1] == ' ') ||
		    (open != TABLE && p[0] == '|') || (open == TABLE && p[0] != '|') ||
		    (open == LIST && !(p[0] == '-' && p[1] == ' '))) {
			close_block(b, open);
			open = NONE;
		}
		if (n == 0)
			continue;
		if (head) {
			int lvl = 0;
			while (lvl < (int)n && p[lvl] == '#')
				lvl++;
			if ((size_t)lvl >= n)
				continue;
			rt_buf_printf(b, "<h%d>", lvl);
			html_inline(b, p + lvl + 1, n - (size_t)lvl - 1);
			rt_buf_printf(b, "</h%d>\n", lvl);
		} else if (p[0] == '-' && n > 1 && p[1] == ' ') {
			if (open != LIST)
				rt_buf_adds(b, "<ul>\n");
			open = LIST;
			rt_buf_adds(b, "<li>");
			html_inline(b, p + 2, n - 2);
			rt_buf_adds(b, "</li>\n");
		} else if (p[0] == '|') {
			if (open != TABLE) {
				rt_buf_adds(b, "<table>\n");
				row = 0;
			}
			open = TABLE;
			if (strspn(p, "|-: ") >= n)
				continue;
			rt_buf_adds(b, "<tr>");
			for (c = p + 1; c < nl; c = e + 1) {
				e = memchr(c, '|', (size_t)(nl - c));
				if (!e)
					break;
				while (c < e && *c == ' ')
					c++;
				rt_buf_adds(b, row ? "<td>" : "<th>");
				n = (size_t)(e - c);
				while (n > 0 && c[n - 1] == ' ')
					n--;
				html_inline(b, c, n);
				rt_buf_adds(b, row ? "</td>" : "</th>");
			}
			rt_buf_adds(b, "</tr>\n");
			row++;
		} else {
			rt_buf_adds(b, open == PARA ? "\n" : "<p>");
			open = PARA;
			html_inline(b, p, n);
		}
	}
	close_block(b, open);
}

void
rt_html_id(rt_buf *b, const char *s)
{
	char *c = rt_md_clean(s ? s : ""), *p, *q;

	for (p = c; *p; p = q) {
		q = p + strcspn(p, "/:.");
		if (!*q) {
			rt_html_esc(b, p, (size_t)(q - p));
			break;
		}
		q += strspn(q, "/:.");
		rt_html_esc(b, p, (size_t)(q - p));
		if (*q)
			rt_buf_adds(b, "<wbr>");
	}
	free(c);
}
