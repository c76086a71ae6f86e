/*
 * Quoting into the fleet's SQL and reading its TabSeparated answers (see
 * pp_fleet_sql.h). Names come from other machines: every one is quoted,
 * and an answer's bytes are checked, never trusted to be well formed.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "pp_fleet_sql.h"

void pp_fleet_sql_quote(FILE *out, char const *s)
{
	fputc('\'', out);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '\'' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (c < 0x20 || c == 0x7f)
			fprintf(out, "\\x%02x", c);
		else
			fputc(c, out);
	}
	fputc('\'', out);
}

/* A glob's bracket expression from p ('['): as re2's class; the end. */
static char const *glob_class(FILE *re, char const *p)
{
	char const *q = p + 1;

	if (*q == '!' || *q == '^')
		q++;
	if (*q == ']')
		q++;
	while (*q && *q != ']')
		q++;
	if (!*q) {                    /* no closing ']': a plain '[' */
		fputs("\\[", re);
		return p + 1;
	}
	fputc('[', re);
	p++;
	if (*p == '!' || *p == '^') {
		fputc('^', re);
		p++;
	}
	for (; p < q; p++) {
		if (*p == '\\' || *p == '[')
			fputc('\\', re);
		fputc(*p, re);
	}
	fputc(']', re);
	return q + 1;
}

void pp_fleet_sql_glob(FILE *out, char const *glob)
{
	char *re = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&re, &len);
	char const *p = glob;

	if (!f)
		abort();
	fputc('^', f);
	while (*p) {
		if (*p == '*') {
			fputs(".*", f);
			p++;
		} else if (*p == '?') {
			fputc('.', f);
			p++;
		} else if (*p == '[') {
			p = glob_class(f, p);
		} else {
			if (*p == '\\' && p[1])
				p++;
			if (strchr("\\^$.|?*+()[]{}", *p))
				fputc('\\', f);
			fputc(*p++, f);
		}
	}
	fputc('$', f);
	fclose(f);
	pp_fleet_sql_quote(out, re);
	free(re);
}

void pp_fleet_rows_init(struct pp_fleet_rows *r, char *body, size_t len)
{
	memset(r, 0, sizeof(*r));
	r->p = body;
	r->end = body + len;
}

static int unescape(char *s, char *err, size_t errlen, size_t row)
{
	char *out = s;

	for (char *p = s; *p; p++) {
		char c = *p;

		if (c == '\\') {
			switch (*++p) {
			case 't': c = '\t'; break;
			case 'n': c = '\n'; break;
			case 'r': c = '\r'; break;
			case 'b': c = '\b'; break;
			case 'f': c = '\f'; break;
			case '\\': c = '\\'; break;
			case '\'': c = '\''; break;
			case '0':
				snprintf(err, errlen, "row %zu of the answer "
					 "has a NUL byte in a name", row);
				return -1;
			default:
				snprintf(err, errlen, "row %zu of the answer "
					 "has a bad escape", row);
				return -1;
			}
		}
		*out++ = c;
	}
	*out = '\0';
	return 0;
}

int pp_fleet_rows_next(struct pp_fleet_rows *r, size_t nr, char *err,
		       size_t errlen)
{
	char *nl, *p;

	if (r->p >= r->end)
		return 0;
	r->row++;
	nl = memchr(r->p, '\n', r->end - r->p);
	if (!nl || memchr(r->p, '\0', nl - r->p)) {
		snprintf(err, errlen, "row %zu of the answer is %s", r->row,
			 nl ? "not text" : "cut short");
		return -1;
	}
	*nl = '\0';
	p = r->p;
	r->p = nl + 1;
	r->nr_fields = 0;
	for (;;) {
		char *tab = strchr(p, '\t');

		if (r->nr_fields == sizeof(r->field) / sizeof(r->field[0])) {
			r->nr_fields++;
			break;
		}
		r->field[r->nr_fields++] = p;
		if (!tab)
			break;
		*tab = '\0';
		p = tab + 1;
	}
	if (r->nr_fields != nr) {
		snprintf(err, errlen, "row %zu of the answer does not have %zu "
			 "fields", r->row, nr);
		return -1;
	}
	for (size_t i = 0; i < nr; i++)
		if (unescape(r->field[i], err, errlen, r->row))
			return -1;
	return 1;
}

int pp_fleet_u64(struct pp_fleet_rows const *r, size_t i, uint64_t *v,
		 char *err, size_t errlen)
{
	char const *s = r->field[i];
	char *end;

	errno = 0;
	*v = strtoumax(s, &end, 10);
	if (errno || end == s || *end || *s == '-') {
		snprintf(err, errlen, "row %zu of the answer: '%s' is not a "
			 "count", r->row, s);
		return -1;
	}
	return 0;
}
