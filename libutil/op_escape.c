/* The printing rule for names from input; see op_escape.h. */
#include <stdlib.h>
#include <string.h>

#include "op_escape.h"

static bool in(unsigned char c, unsigned char lo, unsigned char hi)
{
	return c >= lo && c <= hi;
}

/* Length of the well-formed UTF-8 sequence at s, 0 if there is none
 * (Unicode table 3-7: the second byte's range depends on the first). */
static size_t utf8_len(unsigned char const *s, size_t len)
{
	unsigned char lo = 0x80, hi = 0xbf;
	size_t n;

	if (s[0] < 0x80)
		return 1;
	if (in(s[0], 0xc2, 0xdf))
		n = 2;
	else if (in(s[0], 0xe0, 0xef))
		n = 3;
	else if (in(s[0], 0xf0, 0xf4))
		n = 4;
	else	/* a continuation byte, 0xc0/0xc1 (overlong), > U+10FFFF */
		return 0;
	if (s[0] == 0xe0)
		lo = 0xa0;	/* overlong */
	else if (s[0] == 0xed)
		hi = 0x9f;	/* surrogates */
	else if (s[0] == 0xf0)
		lo = 0x90;	/* overlong */
	else if (s[0] == 0xf4)
		hi = 0x8f;	/* above U+10FFFF */
	if (len < n || !in(s[1], lo, hi))
		return 0;
	for (size_t i = 2; i < n; i++)
		if (!in(s[i], 0x80, 0xbf))
			return 0;
	return n;
}

size_t op_escape_kept(char const *s, size_t len)
{
	unsigned char const *u = (unsigned char const *)s;
	size_t n = utf8_len(u, len);

	if (n == 1 && (u[0] < 0x20 || u[0] == 0x7f))
		return 0;
	if (n == 2 && u[0] == 0xc2 && u[1] <= 0x9f)
		return 0;	/* U+0080-U+009F: C1 controls */
	return n;
}

/* Bytes kept at s[0], with the caller's newline and tab allowed. */
static size_t kept(char const *s, size_t len, unsigned keep)
{
	if (*s == '\n' && (keep & OP_ESCAPE_KEEP_NEWLINE))
		return 1;
	if (*s == '\t' && (keep & OP_ESCAPE_KEEP_TAB))
		return 1;
	return op_escape_kept(s, len);
}

bool op_needs_escape(char const *s, size_t len)
{
	size_t i = 0, n;

	for (; i < len; i += n)
		if (!(n = op_escape_kept(s + i, len - i)))
			return true;
	return false;
}

void op_fput_escaped(FILE *out, char const *s, size_t len, unsigned keep)
{
	size_t i = 0, from = 0, n;
	bool c1 = false;	/* a C1 control's second byte comes next */

	while (i < len) {
		n = c1 ? 0 : kept(s + i, len - i, keep);
		if (n) {
			i += n;
			continue;
		}
		/* a UTF-8 C1 control: escape both of its bytes */
		c1 = !c1 && (unsigned char)s[i] == 0xc2 && i + 1 < len &&
		     in((unsigned char)s[i + 1], 0x80, 0x9f);
		fwrite(s + from, 1, i - from, out);
		fprintf(out, "\\x%02x", (unsigned char)s[i]);
		from = ++i;
	}
	fwrite(s + from, 1, len - from, out);
}

void op_fputs_escaped(FILE *out, char const *s)
{
	op_fput_escaped(out, s, strlen(s), 0);
}
