/* rt_text: masking of run-varying parts of test output, the word scanner
 * built on it, and a small open-addressing hash table for counting words. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rt_runner.h"
#include "rt_text.h"
#include "rt_util.h"

/* The bidi formatting characters (Unicode's Bidi_Control: U+061C, U+200E,
 * U+200F, U+202A-U+202E, U+2066-U+2069) that start u: their code point,
 * else 0. Shown raw they reorder what a person reads ("Trojan Source"). */
static unsigned
bidi(const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;

	if (n >= 2 && u[0] == 0xd8 && u[1] == 0x9c)
		return 0x061c;
	if (n < 3 || u[0] != 0xe2)
		return 0;
	if (u[1] == 0x80 && (u[2] == 0x8e || u[2] == 0x8f || (u[2] >= 0xaa && u[2] <= 0xae)))
		return 0x2000 + (u[2] & 0x3f);
	if (u[1] == 0x81 && u[2] >= 0xa6 && u[2] <= 0xa9)
		return 0x2040 + (u[2] & 0x3f);
	return 0;
}

void
rt_text_visible(rt_buf *b, const char *s, size_t n, int flags)
{
	unsigned cp;
	size_t len, i;
	char *u = rt_utf8_repair(s, n, &len, NULL);
	unsigned char c;

	for (i = 0; i < len; i++) {
		c = (unsigned char)u[i];
		if ((flags & RT_VIS_LINES) && (c == '\n' || c == '\t'))
			rt_buf_addc(b, (char)c);
		else if (c < 0x20)      /* U+2400 + c */
			rt_buf_printf(b, "\xe2\x90%c", (char)(0x80 + c));
		else if (c == 0x7f)
			rt_buf_adds(b, "\xe2\x90\xa1");
		else if (c == 0xc2 && i + 1 < len && (unsigned char)u[i + 1] >= 0x80 &&
		    (unsigned char)u[i + 1] <= 0x9f)
			rt_buf_printf(b, "\\u%04x", (unsigned char)u[++i]);
		else if ((cp = bidi(u + i, len - i))) {
			rt_buf_printf(b, "\\u%04x", cp);
			i += cp < 0x800 ? 1 : 2;
		} else {
			rt_buf_addc(b, (char)c);
		}
	}
	free(u);
}

char *
rt_visible(const char *s)
{
	rt_buf b = { 0 };

	rt_text_visible(&b, s, strlen(s), 0);
	rt_buf_str(&b);
	return b.data;
}

/* Character classes, one table lookup per byte. */
enum { C_WORD = 1, C_DIGIT = 2, C_HEX = 4, C_UPPER = 8, C_LOWER = 16 };
static unsigned char cls[256];

static void
cls_init(void)
{
	int c;

	if (cls['a'])
		return;
	for (c = 0x80; c < 256; c++)
		cls[c] = C_WORD;
	for (c = '0'; c <= '9'; c++)
		cls[c] = C_WORD | C_DIGIT | C_HEX;
	for (c = 'a'; c <= 'z'; c++)
		cls[c] = C_WORD | C_LOWER | (c <= 'f' ? C_HEX : 0);
	for (c = 'A'; c <= 'Z'; c++)
		cls[c] = C_WORD | C_UPPER | (c <= 'F' ? C_HEX : 0);
	cls['_'] = C_WORD;
}

#define IS(c, k) (cls[(unsigned char)(c)] & (k))

/* Count bytes of class k at s[i..n), at most max. */
static size_t
run(const char *s, size_t n, size_t i, int k, size_t max)
{
	size_t j = i;

	while (j < n && j - i < max && IS(s[j], k))
		j++;
	return j - i;
}

/* The end of a masked unit must not run on into a word. */
static int
boundary(const char *s, size_t n, size_t i)
{
	return i >= n || !IS(s[i], C_WORD);
}

/* hh:mm[:ss[.frac]] from i; returns the length or 0. */
static size_t
match_clock(const char *s, size_t n, size_t i)
{
	size_t j = i, k;

	k = run(s, n, j, C_DIGIT, 3);
	if (k < 1 || k > 2 || j + k >= n || s[j + k] != ':')
		return 0;
	j += k + 1;
	if (run(s, n, j, C_DIGIT, 3) != 2)
		return 0;
	j += 2;
	if (j + 2 < n && s[j] == ':' && run(s, n, j + 1, C_DIGIT, 3) == 2) {
		j += 3;
		if (j + 1 < n && (s[j] == '.' || s[j] == ',') && IS(s[j + 1], C_DIGIT))
			j += 1 + run(s, n, j + 1, C_DIGIT, (size_t)-1);
	}
	return j - i;
}

/* Z, +hh, +hh:mm, +hhmm after a time. */
static size_t
match_zone(const char *s, size_t n, size_t i)
{
	size_t k;

	if (i < n && s[i] == 'Z' && boundary(s, n, i + 1))
		return 1;
	if (i < n && (s[i] == '+' || s[i] == '-') && run(s, n, i + 1, C_DIGIT, 5) >= 2) {
		k = run(s, n, i + 1, C_DIGIT, 5);
		if (k == 2 && i + 5 < n && s[i + 3] == ':' && run(s, n, i + 4, C_DIGIT, 3) == 2)
			return 6;
		if (k == 2 || k == 4)
			return 1 + k;
	}
	return 0;
}

/* ISO 8601: yyyy-mm-dd[(T| )hh:mm[:ss[.frac]][zone]], or a clock time. */
static size_t
match_time(const char *s, size_t n, size_t i)
{
	size_t j = i, k;

	if (run(s, n, j, C_DIGIT, 5) == 4 && j + 10 <= n && s[j + 4] == '-' &&
	    run(s, n, j + 5, C_DIGIT, 3) == 2 && s[j + 7] == '-' &&
	    run(s, n, j + 8, C_DIGIT, 3) == 2) {
		j += 10;
		if (j < n && (s[j] == 'T' || s[j] == ' ') && (k = match_clock(s, n, j + 1))) {
			j += 1 + k;
			j += match_zone(s, n, j);
		}
		return boundary(s, n, j) ? j - i : 0;
	}
	if ((k = match_clock(s, n, i))) {
		j += k;
		j += match_zone(s, n, j);
		return boundary(s, n, j) ? j - i : 0;
	}
	return 0;
}

static size_t
match_uuid(const char *s, size_t n, size_t i)
{
	static const unsigned char part[5] = { 8, 4, 4, 4, 12 };
	size_t j = i;
	int p;

	for (p = 0; p < 5; p++) {
		if (run(s, n, j, C_HEX, 13) != part[p])
			return 0;
		j += part[p];
		if (p < 4) {
			if (j >= n || s[j] != '-')
				return 0;
			j++;
		}
	}
	return boundary(s, n, j) ? j - i : 0;
}

static size_t
match_0x(const char *s, size_t n, size_t i)
{
	size_t k;

	if (i + 2 < n && s[i] == '0' && (s[i + 1] == 'x' || s[i + 1] == 'X') &&
	    (k = run(s, n, i + 2, C_HEX, (size_t)-1)) > 0 && boundary(s, n, i + 2 + k))
		return 2 + k;
	return 0;
}

/* A word of 8 or more hex digits with at least one digit and one letter:
 * a hash, an address without 0x, a commit id. */
static size_t
match_hexword(const char *s, size_t n, size_t i)
{
	size_t j, digits = 0, letters = 0;

	for (j = i; j < n && IS(s[j], C_WORD); j++) {
		if (!IS(s[j], C_HEX))
			return 0;
		if (IS(s[j], C_DIGIT))
			digits++;
		else
			letters++;
	}
	return j - i >= 8 && digits && letters ? j - i : 0;
}

/* A temporary path, at a '/' that does not continue another path. */
static size_t
match_tmp(const char *s, size_t n, size_t i)
{
	static const char *const pre[] = { "/tmp/", "/var/tmp/", "/var/folders/",
	    "/private/tmp/", "/private/var/folders/", "/dev/shm/", NULL };
	const char *const *p;
	size_t len, j;
	unsigned char c;

	if (i > 0 && (IS(s[i - 1], C_WORD) || strchr("/.-~", s[i - 1])))
		return 0;
	for (p = pre; *p; p++) {
		len = strlen(*p);
		if (n - i >= len && memcmp(s + i, *p, len) == 0)
			break;
	}
	if (!*p)
		return 0;
	for (j = i + len; j < n; j++) {
		c = (unsigned char)s[j];
		if (c <= ' ' || c == 0x7f || strchr("\"'`()[]{}<>,;:|", c))
			break;
	}
	return j - i;
}

/* ESC [ params final: a terminal colour or cursor sequence. */
static size_t
match_csi(const char *s, size_t n, size_t i)
{
	size_t j;

	if (s[i] != 0x1b || i + 1 >= n || s[i + 1] != '[')
		return 0;
	for (j = i + 2; j < n; j++)
		if ((unsigned char)s[j] >= 0x40 && (unsigned char)s[j] <= 0x7e)
			return j + 1 - i;
	return j - i;
}

/* Where a word goes: a bounded token or an unbounded buffer. */
typedef struct {
	rt_buf *b;
	char *tok;
	size_t len;
	int full, masked, units;
} sink;

/* Bytes of a word; a token cut at RT_TOK_MAX keeps what fits. */
static void
put_bytes(sink *k, const char *p, size_t len)
{
	if (k->b) {
		rt_buf_add(k->b, p, len);
		return;
	}
	if (k->full)
		return;
	if (k->len + len > RT_TOK_MAX) {
		len = RT_TOK_MAX - k->len;
		k->full = 1;
	}
	memcpy(k->tok + k->len, p, len);
	k->len += len;
}

/* A placeholder goes in whole or not at all. */
static void
put_mask(sink *k, const char *ph)
{
	size_t len = strlen(ph);

	k->masked = 1;
	k->units++;
	if (!k->b && !k->full && k->len + len > RT_TOK_MAX) {
		k->full = 1;
		return;
	}
	put_bytes(k, ph, len);
}

/* Scan the word at s[i] (a word character) into k; returns the end. */
static size_t
scan_word(const char *s, size_t n, size_t i, sink *k)
{
	size_t m, j;

	if (IS(s[i], C_DIGIT)) {
		if ((m = match_time(s, n, i))) {
			put_mask(k, RT_MASK_TIME);
			return i + m;
		}
		if ((m = match_0x(s, n, i))) {
			put_mask(k, RT_MASK_HEX);
			return i + m;
		}
	}
	if (IS(s[i], C_HEX)) {
		if ((m = match_uuid(s, n, i))) {
			put_mask(k, RT_MASK_UUID);
			return i + m;
		}
		if ((m = match_hexword(s, n, i))) {
			put_mask(k, RT_MASK_HEX);
			return i + m;
		}
	}
	while (i < n && IS(s[i], C_WORD)) {
		if (!IS(s[i], C_DIGIT)) {
			for (j = i; j < n && IS(s[j], C_WORD) && !IS(s[j], C_DIGIT); j++)
				;
			put_bytes(k, s + i, j - i);
			k->units += 2;
			i = j;
			continue;
		}
		/* a number: digits, .digits (decimals, versions, addresses), exponent */
		i += run(s, n, i, C_DIGIT, (size_t)-1);
		while (i + 1 < n && s[i] == '.' && IS(s[i + 1], C_DIGIT))
			i += 1 + run(s, n, i + 1, C_DIGIT, (size_t)-1);
		if (i + 1 < n && (s[i] == 'e' || s[i] == 'E')) {
			j = i + 1;
			if (j < n && (s[j] == '+' || s[j] == '-'))
				j++;
			if ((m = run(s, n, j, C_DIGIT, (size_t)-1)) > 0 && boundary(s, n, j + m))
				i = j + m;
		}
		put_mask(k, RT_MASK_NUM);
	}
	return i;
}

/* A quoted literal at s[i] (a quote): its length with both quotes, or 0.
 * Opened after a non-word byte, closed before one, on one line, at most
 * RT_TOK_MAX - 2 bytes inside, one word byte or more among them. */
static size_t
match_quoted(const char *s, size_t n, size_t i)
{
	size_t j, words = 0;
	char q = s[i];

	if ((q != '\'' && q != '"') || (i > 0 && IS(s[i - 1], C_WORD)))
		return 0;
	for (j = i + 1; j < n && j - i - 1 <= RT_TOK_MAX - 2; j++) {
		if (s[j] == '\n' || s[j] == '\r')
			return 0;
		if (s[j] == q)
			return words && boundary(s, n, j + 1) ? j + 1 - i : 0;
		words += IS(s[j], C_WORD) != 0;
	}
	return 0;
}

/* A quoted literal into k: times, UUIDs, hex words and temporary paths
 * masked, every other byte (digits too) kept. */
static void
scan_quoted(const char *s, size_t i, size_t end, sink *k)
{
	size_t m, j;

	put_bytes(k, s + i++, 1);
	k->units += 2;
	while (i < end - 1) {
		m = 0;
		if (IS(s[i], C_WORD) && (i == 0 || !IS(s[i - 1], C_WORD))) {
			if (IS(s[i], C_DIGIT) && ((m = match_time(s, end - 1, i)) != 0)) {
				put_mask(k, RT_MASK_TIME);
			} else if (IS(s[i], C_DIGIT) && (m = match_0x(s, end - 1, i)) != 0) {
				put_mask(k, RT_MASK_HEX);
			} else if (IS(s[i], C_HEX) && (m = match_uuid(s, end - 1, i)) != 0) {
				put_mask(k, RT_MASK_UUID);
			} else if (IS(s[i], C_HEX) && (m = match_hexword(s, end - 1, i)) != 0) {
				put_mask(k, RT_MASK_HEX);
			}
		} else if (s[i] == '/' && (m = match_tmp(s, end - 1, i)) != 0) {
			put_mask(k, RT_MASK_TMP);
		}
		if (m) {
			i += m;
			continue;
		}
		for (j = i + 1; j < end - 1 && IS(s[j], C_WORD) && IS(s[j - 1], C_WORD); j++)
			;
		put_bytes(k, s + i, j - i);
		i = j;
	}
	put_bytes(k, s + i, 1);
}

void
rt_text_mask(const char *s, size_t n, rt_buf *out)
{
	size_t i = 0, start, m;
	sink k;

	cls_init();
	rt_buf_add(out, NULL, 0);
	while (i < n) {
		start = i;
		while (i < n && !IS(s[i], C_WORD) && s[i] != 0x1b && s[i] != '/' &&
		    !((s[i] == '\'' || s[i] == '"') && match_quoted(s, n, i)))
			i++;
		rt_buf_add(out, s + start, i - start);
		if (i >= n)
			break;
		if ((s[i] == '\'' || s[i] == '"') && (m = match_quoted(s, n, i))) {
			memset(&k, 0, sizeof k);
			k.b = out;
			scan_quoted(s, i, i + m, &k);
			i += m;
		} else if ((m = match_csi(s, n, i))) {
			i += m;
		} else if (s[i] == '/') {
			if ((m = match_tmp(s, n, i))) {
				rt_buf_adds(out, RT_MASK_TMP);
				i += m;
			} else {
				rt_buf_addc(out, '/');
				i++;
			}
		} else if (IS(s[i], C_WORD)) {
			memset(&k, 0, sizeof k);
			k.b = out;
			i = scan_word(s, n, i, &k);
		} else {
			rt_buf_addc(out, s[i++]);
		}
	}
}

void
rt_tok_init(rt_tok *t, const char *s, size_t n)
{
	cls_init();
	memset(t, 0, sizeof *t);
	t->s = s;
	t->n = n;
}

/* Cut a token that hit RT_TOK_MAX back to a whole UTF-8 character. */
static size_t
utf8_trim(const char *p, size_t len)
{
	size_t j = len, need;
	unsigned char c;

	while (j > 0 && ((unsigned char)p[j - 1] & 0xc0) == 0x80 && len - j < 3)
		j--;
	if (j == 0)
		return len;
	c = (unsigned char)p[j - 1];
	if (c < 0xc0)
		return len;
	need = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : 2;
	return len - (j - 1) >= need ? len : j - 1;
}

int
rt_tok_next(rt_tok *t)
{
	const char *s = t->s;
	size_t n = t->n, m;
	int nl = 0;
	sink k;

	t->newline = 0;
	while (t->i < n) {
		unsigned char c = (unsigned char)s[t->i];

		if (IS(c, C_WORD)) {
			memset(&k, 0, sizeof k);
			k.tok = t->tok;
			t->i = scan_word(s, n, t->i, &k);
			if (k.full)
				k.len = utf8_trim(k.tok, k.len);
			t->len = k.len;
			t->tok[k.len] = '\0';
			t->masked = k.masked;
			t->pure = k.masked && k.units == 1;
			t->newline = nl;
			return 1;
		}
		if ((c == '\'' || c == '"') && (m = match_quoted(s, n, t->i))) {
			memset(&k, 0, sizeof k);
			k.tok = t->tok;
			scan_quoted(s, t->i, t->i + m, &k);
			if (!k.full) {
				t->i += m;
				t->len = k.len;
				t->tok[k.len] = '\0';
				t->masked = k.masked;
				t->pure = 0;
				t->newline = nl;
				return 1;
			}
			t->i++;
		} else if (c == '\n' || c == '\r') {
			nl = 1;
			t->i++;
		} else if (c == '/' && (m = match_tmp(s, n, t->i))) {
			t->i += m;
			memcpy(t->tok, RT_MASK_TMP, sizeof RT_MASK_TMP);
			t->len = sizeof RT_MASK_TMP - 1;
			t->masked = t->pure = 1;
			t->newline = nl;
			return 1;
		} else if (c == 0x1b && (m = match_csi(s, n, t->i))) {
			t->i += m;
		} else {
			t->i++;
		}
	}
	t->newline = nl;
	return 0;
}

int
rt_text_errorish(const char *w, size_t n)
{
	static const char *const words[] = { "error", "fail", "fatal", "stale",
	    "timeout", "timed", "exception", "panic", "abort", "denied", "refuse",
	    "mismatch", "exhaust", "invalid", "corrupt", "deadlock", "busy",
	    "assert", "segfault", "overflow", "unavailable", "conflict",
	    "expired", "unexpected", "missing", "crash", "killed", "leak",
	    "reject", "violat", "broken", "traceback", "lost", NULL };
	char low[RT_TOK_MAX + 1];
	size_t i, letters = 0, lower = 0;
	const char *const *p;
	int caps, hit = 0;

	cls_init();
	if (n > RT_TOK_MAX)
		n = RT_TOK_MAX;
	for (i = 0; i < n; i++) {
		low[i] = w[i];
		if (IS(w[i], C_UPPER)) {
			letters++;
			low[i] = (char)(w[i] - 'A' + 'a');
		} else if (IS(w[i], C_LOWER)) {
			letters++;
			lower++;
		}
	}
	low[n] = '\0';
	caps = letters >= 2 && lower == 0;
	for (p = words; *p && !hit; p++)
		if (strstr(low, *p))
			hit = 1;
	return caps + hit;
}

/* ---- failure lines and seeds of common test runners ---- */

static int
starts(const char *l, size_t n, const char *pre)
{
	size_t k = strlen(pre);

	return n >= k && memcmp(l, pre, k) == 0;
}

static int
ends(const char *l, size_t n, const char *suf)
{
	size_t k = strlen(suf);

	return n >= k && memcmp(l + n - k, suf, k) == 0;
}

static const char *
find(const char *l, size_t n, const char *what)
{
	size_t k = strlen(what), i;

	for (i = 0; i + k <= n; i++)
		if (memcmp(l + i, what, k) == 0)
			return l + i;
	return NULL;
}

/* "Name: ..." or "Name" at the start of a line, Name a dotted Python
 * name ending in Error, Exception, Failure, Exit or Interrupt. */
static int
exception_line(const char *l, size_t n)
{
	static const char *const suf[] = { "Error", "Exception", "Failure",
	    "Exit", "Interrupt", NULL };
	const char *const *p;
	size_t j = 0;

	while (j < n && (IS(l[j], C_WORD) || l[j] == '.'))
		j++;
	if (j == 0 || IS(l[0], C_DIGIT) || (j < n && l[j] != ':'))
		return 0;
	for (p = suf; *p; p++)
		if (ends(l, j, *p))
			return 1;
	return 0;
}

/* "path:N: text", path without spaces: the length up to the text, or 0. */
static size_t
location(const char *l, size_t n, size_t *pathlen)
{
	size_t j = 0, d;

	while (j < n && l[j] != ':' && l[j] != ' ' && l[j] != '\t')
		j++;
	if (j == 0 || j >= n || l[j] != ':')
		return 0;
	*pathlen = j;
	d = run(l, n, j + 1, C_DIGIT, 12);
	if (d == 0 || j + 1 + d + 1 >= n || l[j + 1 + d] != ':' || l[j + 2 + d] != ' ')
		return 0;
	return j + 3 + d;
}

/* Score one line (rt_text.h); *mo, *ml: the message, relative to l. */
static int
score_line(const char *l, size_t n, int prev_e, size_t *mo, size_t *ml)
{
	size_t i = 0, k, plen;
	const char *p;

	*mo = *ml = 0;
	if (n >= 2 && l[0] == 'E' && (l[1] == ' ' || l[1] == '\t')) {
		/* pytest: the first E line of a block is the message */
		for (i = 1; i < n && (l[i] == ' ' || l[i] == '\t'); i++)
			;
		if (i == n)
			return 1;
		if (prev_e)
			return 1;
		*mo = i, *ml = n - i;
		return 3;
	}
	if (exception_line(l, n) || starts(l, n, "panic: ")) {
		*ml = n;
		return 3;
	}
	if (starts(l, n, "--- FAIL: ")) {
		for (k = 10; k < n && l[k] != ' ' && l[k] != '\t' && l[k] != '('; k++)
			;
		*mo = 10, *ml = k - 10;
		return 2;
	}
	/* pytest's short summary: FAILED path.py::test[ - message] */
	for (k = 7; k < n && l[k] != ' ' && l[k] != '\t'; k++)
		;
	if (starts(l, n, "FAILED ") && (find(l + 7, k - 7, "::") ||
	    ends(l + 7, k - 7, ".py"))) {
		if ((p = find(l, n, " - ")) != NULL)
			*mo = (size_t)(p + 3 - l), *ml = n - *mo;
		else
			*mo = 7, *ml = n - 7;
		return 2;
	}
	while (i < n && (l[i] == ' ' || l[i] == '\t'))
		i++;
	if ((k = location(l + i, n - i, &plen)) != 0 && k < n - i) {
		*mo = i + k, *ml = n - i - k;
		/* Go's t.Errorf lines are the message; pytest's "x.py:8: E" a place */
		return ends(l + i, plen, "_test.go") ? 3 : 2;
	}
	if (starts(l + i, n - i, "File \"") && find(l, n, "\", line ") &&
	    find(l, n, ", in "))
		return 1;
	if (i == 0 && (starts(l, n, "FAIL: ") || starts(l, n, "ERROR: ") ||
	    starts(l, n, "Traceback (most recent call last)")))
		return 1;
	if (i == 0 && n > 20 && starts(l, n, "====") && find(l, n, " FAILURES "))
		return 1;
	return 0;
}

int
rt_failure_line_next(const char *s, size_t n, size_t *pos, rt_failure_line *fl)
{
	size_t i = *pos, e, len, mo, ml;
	int sc, prev_e;

	cls_init();
	while (i < n) {
		const char *nl = memchr(s + i, '\n', n - i);
		e = nl ? (size_t)(nl - s) : n;
		len = e - i;
		while (len > 0 && s[i + len - 1] == '\r')
			len--;
		prev_e = i >= 3 && s[i - 1] == '\n' && (i < 2 || s[i - 2] != '\n');
		if (prev_e) {
			/* the previous line: an "E" line? */
			size_t b = i - 1;
			while (b > 0 && s[b - 1] != '\n')
				b--;
			prev_e = i - 1 - b >= 2 && s[b] == 'E' && (s[b + 1] == ' ' || s[b + 1] == '\t');
		}
		sc = score_line(s + i, len, prev_e, &mo, &ml);
		if (sc) {
			while (ml > 0 && (s[i + mo + ml - 1] == ' ' || s[i + mo + ml - 1] == '\t'))
				ml--;
			fl->off = i, fl->len = len;
			fl->moff = i + mo, fl->mlen = ml;
			fl->score = sc;
			*pos = nl ? e + 1 : n;
			return 1;
		}
		i = nl ? e + 1 : n;
	}
	*pos = n;
	return 0;
}

/* Move p forward to a UTF-8 character boundary. */
static size_t
utf8_start(const char *s, size_t n, size_t p)
{
	while (p < n && ((unsigned char)s[p] & 0xC0) == 0x80)
		p++;
	return p;
}

int
rt_failure_excerpt(const char *s, size_t n, size_t max, size_t *off, size_t *len)
{
	size_t pos = 0, first = n, bstart = 0, bend = 0, start, end, k;
	rt_failure_line fl;
	int best = 0;

	while (rt_failure_line_next(s, n, &pos, &fl)) {
		if (first == n)
			first = fl.off;
		if (fl.score > best) {
			best = fl.score;
			bstart = fl.off;
			bend = fl.off + fl.len;
		}
	}
	if (!best) {
		start = n > max ? utf8_start(s, n, n - max) : 0;
		*off = start, *len = n - start;
		return 0;
	}
	/* three lines of context before the first failure line */
	start = first;
	for (k = 0; k < 3 && start > 0; k++) {
		start--;
		while (start > 0 && s[start - 1] != '\n')
			start--;
	}
	end = n;
	if (end - start > max) {
		end = start + max;
		while (end > bend && s[end - 1] != '\n')
			end--;
		if (end < bend) {
			/* the best line and what precedes it, as much as fits */
			end = bend;
			start = end > max ? end - max : 0;
			while (start < bstart && start > 0 && s[start - 1] != '\n')
				start++;
			start = utf8_start(s, n, start);
		}
	}
	*off = start, *len = end - start;
	return best;
}

static int
has_text(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (s[i] != ' ' && s[i] != '\t' && s[i] != '\n' && s[i] != '\r')
			return 1;
	return 0;
}

int
rt_failure_stream(const char *out, size_t nout, const char *err, size_t nerr,
    size_t max, size_t *off, size_t *len)
{
	size_t oo, ol, eo, el;
	int so = rt_failure_excerpt(out, nout, max, &oo, &ol);
	int se = rt_failure_excerpt(err, nerr, max, &eo, &el);

	if (so > se || (so == 0 && se == 0 && !has_text(err, nerr) && has_text(out, nout))) {
		*off = oo, *len = ol;
		return RT_STDOUT;
	}
	*off = eo, *len = el;
	return RT_STDERR;
}

const char *
rt_stream_name(int stream)
{
	return stream == RT_STDOUT ? "stdout" : "stderr";
}

int
rt_seed_next(const char *s, size_t n, size_t *pos, rt_seed *sd)
{
	const rt_seed_opt *o;
	size_t i, j, d, k, q;
	const char *p;

	cls_init();
	for (i = *pos; i < n; i++) {
		for (j = 0; (o = rt_seed_opt_at(j)); j++)
			for (q = 0; o->printed && (p = o->printed[q]); q++) {
				if (s[i] != p[0] || !starts(s + i, n - i, p))
					continue;
				/* "--hypothesis-seed=" inside "Using --random-order-seed=" etc. */
				if (i > 0 && IS(s[i - 1], C_WORD))
					continue;
				k = i + strlen(p);
				d = k < n && s[k] == '-' && o->negative ? 1 : 0;
				d += run(s, n, k + d, C_DIGIT, 100);
				if (d == 0 || (d == 1 && s[k] == '-') || !boundary(s, n, k + d))
					continue;
				sd->runner = o->name;
				sd->off = k;
				sd->len = d;
				*pos = k + d;
				return 1;
			}
	}
	*pos = n;
	return 0;
}

int
rt_seed_pin(const char *runner, const char *seed, const char *prev,
    const char **var, char **val)
{
	const rt_seed_opt *o = rt_seed_opt_named(runner);
	size_t i;

	for (i = seed[0] == '-' ? 1 : 0; seed[i]; i++)
		if (seed[i] < '0' || seed[i] > '9')
			return -1;
	if (i == 0 || (i == 1 && seed[0] == '-') || i > 100)
		return -1;
	if (!o || !o->var || (seed[0] == '-' && !o->negative))
		return -1;
	*var = o->var;
	*val = rt_xasprintf("%s%s%s%s", prev && *prev && *o->opt ? prev : "",
	    prev && *prev && *o->opt ? " " : "", o->opt, seed);
	return 0;
}

/* ---- the table ---- */

typedef struct {
	size_t off;          /* key offset in keys */
	uint32_t len;
	uint32_t hash;
} ent;

typedef struct {
	uint32_t id1;        /* id + 1; 0 is an empty slot */
	uint32_t hash;
} slot;

struct rt_strtab {
	size_t valsize;
	ent *ent;
	unsigned char *vals;
	size_t n, cap;
	slot *slot;
	size_t mask;
	char *keys;
	size_t klen, kcap;
};

uint64_t
rt_text_hash(const void *key, size_t len)
{
	const unsigned char *p = key;
	uint64_t h = 0x9e3779b97f4a7c15ULL ^ (len * 0xff51afd7ed558ccdULL), w;

	while (len >= 8) {
		memcpy(&w, p, 8);
		h = (h ^ w) * 0xbf58476d1ce4e5b9ULL;
		h ^= h >> 31;
		p += 8;
		len -= 8;
	}
	/* the tail byte by byte: a variable-length memcpy is a libc call */
	for (w = 0; len > 0; len--)
		w = (w << 8) | p[len - 1];
	h = (h ^ w) * 0x94d049bb133111ebULL;
	h ^= h >> 29;
	h *= 0xbf58476d1ce4e5b9ULL;
	h ^= h >> 32;
	return h;
}

rt_strtab *
rt_strtab_new(size_t valsize)
{
	rt_strtab *t = rt_xcalloc(1, sizeof *t);

	t->valsize = valsize ? valsize : 1;
	t->mask = 1023;
	t->slot = rt_xcalloc(t->mask + 1, sizeof *t->slot);
	return t;
}

void
rt_strtab_free(rt_strtab *t)
{
	if (!t)
		return;
	free(t->ent);
	free(t->vals);
	free(t->slot);
	free(t->keys);
	free(t);
}

void
rt_strtab_clear(rt_strtab *t)
{
	t->n = 0;
	t->klen = 0;
	memset(t->slot, 0, (t->mask + 1) * sizeof *t->slot);
}

static void
rehash(rt_strtab *t)
{
	size_t nmask = t->mask * 2 + 1, i, j;

	if (nmask >= UINT32_MAX)
		rt_die("rt_strtab: too many keys");
	free(t->slot);
	t->slot = rt_xcalloc(nmask + 1, sizeof *t->slot);
	t->mask = nmask;
	for (i = 0; i < t->n; i++) {
		for (j = t->ent[i].hash & nmask; t->slot[j].id1; j = (j + 1) & nmask)
			;
		t->slot[j].id1 = (uint32_t)(i + 1);
		t->slot[j].hash = t->ent[i].hash;
	}
}

/* Keys are mostly short words: compare inline. */
static int
same(const char *a, const unsigned char *b, size_t len)
{
	size_t i;

	if (len > 32)
		return memcmp(a, b, len) == 0;
	for (i = 0; i < len; i++)
		if ((unsigned char)a[i] != b[i])
			return 0;
	return 1;
}

static size_t
lookup(const rt_strtab *t, const unsigned char *key, size_t len, uint32_t h, size_t *where)
{
	size_t j;
	const ent *e;

	for (j = h & t->mask; t->slot[j].id1; j = (j + 1) & t->mask) {
		if (t->slot[j].hash != h)
			continue;
		e = &t->ent[t->slot[j].id1 - 1];
		if (e->len == len && same(t->keys + e->off, key, len))
			return t->slot[j].id1 - 1;
	}
	*where = j;
	return (size_t)-1;
}

size_t
rt_strtab_find(const rt_strtab *t, const void *key, size_t len)
{
	size_t where;

	return lookup(t, key, len, (uint32_t)rt_text_hash(key, len), &where);
}

size_t
rt_strtab_put(rt_strtab *t, const void *key, size_t len, int *created)
{
	uint32_t h = (uint32_t)rt_text_hash(key, len);
	size_t where, id = lookup(t, key, len, h, &where);

	if (created)
		*created = id == (size_t)-1;
	if (id != (size_t)-1)
		return id;
	if (len > UINT32_MAX)
		rt_die("rt_strtab: key too long");
	if (t->n == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 256;
		t->ent = rt_xrealloc(t->ent, t->cap * sizeof *t->ent);
		t->vals = rt_xrealloc(t->vals, t->cap * t->valsize);
	}
	if (t->klen + len + 1 > t->kcap) {
		while (t->klen + len + 1 > t->kcap)
			t->kcap = t->kcap ? t->kcap * 2 : 4096;
		t->keys = rt_xrealloc(t->keys, t->kcap);
	}
	memcpy(t->keys + t->klen, key, len);
	t->keys[t->klen + len] = '\0';
	id = t->n++;
	t->ent[id].off = t->klen;
	t->ent[id].len = (uint32_t)len;
	t->ent[id].hash = h;
	t->klen += len + 1;
	memset(t->vals + id * t->valsize, 0, t->valsize);
	if (t->n * 2 > t->mask + 1)
		rehash(t);
	else {
		t->slot[where].id1 = (uint32_t)(id + 1);
		t->slot[where].hash = h;
	}
	return id;
}

void *
rt_strtab_val(const rt_strtab *t, size_t id)
{
	return id < t->n ? t->vals + id * t->valsize : NULL;
}

const char *
rt_strtab_key(const rt_strtab *t, size_t id, size_t *len)
{
	if (id >= t->n)
		return NULL;
	if (len)
		*len = t->ent[id].len;
	return t->keys + t->ent[id].off;
}

size_t
rt_strtab_count(const rt_strtab *t)
{
	return t->n;
}

size_t
rt_strtab_bytes(const rt_strtab *t)
{
	return sizeof *t + t->cap * (sizeof *t->ent + t->valsize) +
	    (t->mask + 1) * sizeof *t->slot + t->kcap;
}
