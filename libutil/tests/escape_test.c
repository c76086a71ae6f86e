/*
 * op_escape: the printing rule for names from input. C0 and C1 controls
 * (raw and in UTF-8) and invalid UTF-8 never reach the terminal raw,
 * each byte becomes \xNN; valid UTF-8 and plain names are kept.
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "op_escape.h"

static void escapes(char const *in, char const *want, char const *what)
{
	char *e = op_escape(in);

	check_str(e, want, "%s", what);
	check(op_needs_escape(in, strlen(in)) == !!strcmp(in, want),
	      "%s: op_needs_escape agrees", what);
	free(e);
}

/* Every byte of valid UTF-8 that is no control is kept, the rest not. */
static void test_escape__all_code_points(void)
{
	int bad = 0;
	char buf[8];

	for (unsigned cp = 0; cp <= 0x10ffff; cp++) {
		size_t n;
		bool control = cp < 0x20 || (cp >= 0x7f && cp <= 0x9f);

		if (cp >= 0xd800 && cp <= 0xdfff)
			continue;
		if (cp < 0x80) {
			buf[0] = (char)cp;
			n = 1;
		} else if (cp < 0x800) {
			buf[0] = (char)(0xc0 | cp >> 6);
			buf[1] = (char)(0x80 | (cp & 0x3f));
			n = 2;
		} else if (cp < 0x10000) {
			buf[0] = (char)(0xe0 | cp >> 12);
			buf[1] = (char)(0x80 | (cp >> 6 & 0x3f));
			buf[2] = (char)(0x80 | (cp & 0x3f));
			n = 3;
		} else {
			buf[0] = (char)(0xf0 | cp >> 18);
			buf[1] = (char)(0x80 | (cp >> 12 & 0x3f));
			buf[2] = (char)(0x80 | (cp >> 6 & 0x3f));
			buf[3] = (char)(0x80 | (cp & 0x3f));
			n = 4;
		}
		check_batch(&bad, op_escape_kept(buf, n) == (control ? 0 : n),
			    "U+%04X", cp);
	}
	check(!bad, "every code point: controls escaped, the rest kept "
	      "(%d wrong)", bad);
}

static void test_escape__names(void)
{
	escapes("X\033]0;pwned\a\033[2J.1000000.0.all.all.all",
		"X\\x1b]0;pwned\\x07\\x1b[2J.1000000.0.all.all.all",
		"an escape sequence that retitles the terminal");
	escapes("/usr/lib/libü.so", "/usr/lib/libü.so", "UTF-8 is kept");
	escapes("é漢字😀\xf4\x8f\xbf\xbf", "é漢字😀\xf4\x8f\xbf\xbf",
		"2, 3 and 4 byte UTF-8 and U+10FFFF are kept");
	escapes("\xc2\xa0\xef\xbf\xbd", "\xc2\xa0\xef\xbf\xbd",
		"U+00A0 and U+FFFD, next to the C1 range, are kept");
	escapes("a\nb\tc\177\001", "a\\x0ab\\x09c\\x7f\\x01",
		"newline, tab, DEL and SOH in a name");
	escapes("a\x9b" "2J", "a\\x9b2J", "a raw C1 CSI byte");
	escapes("a\x80z\x9f", "a\\x80z\\x9f", "raw 0x80 and 0x9f");
	escapes("a\xc2\x9b" "2J", "a\\xc2\\x9b2J", "U+009B (CSI) in UTF-8");
	escapes("\xc2\x80\xc2\x9f", "\\xc2\\x80\\xc2\\x9f",
		"U+0080 and U+009F in UTF-8");
	escapes("a\xbfz", "a\\xbfz", "a lone continuation byte");
	escapes("\xc0\xaf", "\\xc0\\xaf", "an overlong '/' (2 bytes)");
	escapes("\xe0\x80\xaf", "\\xe0\\x80\\xaf", "an overlong '/' (3 bytes)");
	escapes("\xf0\x80\x80\xaf", "\\xf0\\x80\\x80\\xaf",
		"an overlong '/' (4 bytes)");
	escapes("\xed\xa0\x80", "\\xed\\xa0\\x80", "a surrogate (U+D800)");
	escapes("\xed\xbf\xbf", "\\xed\\xbf\\xbf", "a surrogate (U+DFFF)");
	escapes("\xf4\x90\x80\x80", "\\xf4\\x90\\x80\\x80",
		"U+110000, above U+10FFFF");
	escapes("\xf5\x80\x80\x80\xff\xfe", "\\xf5\\x80\\x80\\x80\\xff\\xfe",
		"bytes that never start UTF-8");
	escapes("ab\xe6\xbc", "ab\\xe6\\xbc", "a sequence cut at the end");
	escapes("\xe6\xbcz\xc3", "\\xe6\\xbcz\\xc3",
		"a sequence cut by ASCII, and a lone lead byte at the end");
	escapes("\xc2\xc2\x9b", "\\xc2\\xc2\\x9b",
		"a lead byte before a C1 control in UTF-8");
	escapes("\xc2", "\\xc2", "a lone 0xc2");
	escapes("", "", "the empty name");
	check(!op_needs_escape("plain", 5), "a plain name needs nothing");
	check(op_escape_kept("\xe6\xbc\xa2", 2) == 0,
	      "op_escape_kept never reads past len");
}

static void test_escape__stream(void)
{
	char buf[256] = "";
	FILE *m = fmemopen(buf, sizeof(buf), "w");
	char const *text = "line1\nline\0332\t\xc2\x9b";

	op_fput_escaped(m, text, strlen(text), OP_ESCAPE_KEEP_NEWLINE);
	fputc('|', m);
	op_fput_escaped(m, "\tsrc\n", 5, OP_ESCAPE_KEEP_TAB);
	fputc('|', m);
	op_fputs_escaped(m, "a\x1b" "b");
	fclose(m);
	check_str(buf, "line1\nline\\x1b2\\x09\\xc2\\x9b|\tsrc\\x0a|a\\x1bb",
		  "newline and tab kept only when asked; op_fputs_escaped");
}

int main(void)
{
	test_escape__names();
	test_escape__all_code_points();
	test_escape__stream();
	return check_done();
}
