/* Escaping control characters for the terminal; see op_escape.h. */
#include <stdlib.h>
#include <string.h>

#include "op_escape.h"
#include "op_message.h"

static bool is_control(unsigned char c)
{
	return c < 0x20 || c == 0x7f;
}

bool op_needs_escape(char const *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (is_control((unsigned char)s[i]))
			return true;
	return false;
}

void op_fput_escaped(FILE *out, char const *s, size_t len, bool keep_newlines)
{
	size_t i, from = 0;

	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (!is_control(c) || (keep_newlines && c == '\n'))
			continue;
		fwrite(s + from, 1, i - from, out);
		fprintf(out, "\\x%02x", c);
		from = i + 1;
	}
	fwrite(s + from, 1, len - from, out);
}

char *op_escape(char const *s)
{
	size_t len = strlen(s), n = 0;
	char *buf = NULL;
	FILE *m;

	if (!op_needs_escape(s, len))
		return op_xstrdup(s);
	m = open_memstream(&buf, &n);
	if (!m)
		op_die("out of memory");
	op_fput_escaped(m, s, len, false);
	if (fclose(m))
		op_die("out of memory");
	return buf;
}
