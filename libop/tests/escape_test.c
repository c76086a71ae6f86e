/*
 * op_escape: control characters from file names never reach the terminal
 * raw (the escape sequence of issue 21 is the test case); UTF-8 and plain
 * names are left alone; messages keep their newlines.
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "op_escape.h"

int main(void)
{
	char const *hostile = "X\033]0;pwned\a\033[2J.1000000.0.all.all.all";
	char *e = op_escape(hostile);
	char buf[256] = "";
	FILE *m = fmemopen(buf, sizeof(buf), "w");

	check_str(e, "X\\x1b]0;pwned\\x07\\x1b[2J.1000000.0.all.all.all",
		  "escape sequences are escaped");
	free(e);
	e = op_escape("/usr/lib/libü.so");
	check_str(e, "/usr/lib/libü.so", "UTF-8 is kept");
	free(e);
	e = op_escape("a\nb\tc\177");
	check_str(e, "a\\x0ab\\x09c\\x7f", "newline, tab and DEL in a name");
	free(e);
	check(!op_needs_escape("plain", 5), "a plain name needs nothing");
	op_fput_escaped(m, "line1\nline\0332", 12, true);
	fclose(m);
	check_str(buf, "line1\nline\\x1b2", "messages keep their newlines");
	return check_done();
}
