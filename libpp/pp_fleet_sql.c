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

void pp_fleet_rows_init(struct pp_fleet_rows *r, char const *body,
			size_t len)
{
	memset(r, 0, sizeof(*r));
	r->p = body;
	r->end = body + len;
}

void pp_fleet_rows_free(struct pp_fleet_rows *r)
{
	for (size_t i = 0; i < PP_FLEET_MAX_FIELDS; i++)
		fleet_buf_free(&r->buf[i]);
}

int pp_fleet_rows_next(struct pp_fleet_rows *r, size_t nr, char *err,
		       size_t errlen)
{
	size_t n = 0;

	if (r->p >= r->end)
		return 0;
	r->row++;
	for (;;) {
		struct fleet_buf *b = &r->buf[n];

		if (n == nr || n == PP_FLEET_MAX_FIELDS) {
			snprintf(err, errlen, "row %zu of the answer does not "
				 "have %zu fields", r->row, nr);
			return -1;
		}
		if (fleet_tsv_field(&r->p, r->end, b)) {
			snprintf(err, errlen, "row %zu of the answer has a bad "
				 "escape or is cut short", r->row);
			return -1;
		}
		if (memchr(b->p, '\0', b->len)) {
			snprintf(err, errlen, "row %zu of the answer has a NUL "
				 "byte in a name", r->row);
			return -1;
		}
		r->field[n++] = b->p;
		if (r->p[-1] == '\n')
			break;
	}
	if (n != nr) {
		snprintf(err, errlen, "row %zu of the answer does not have %zu "
			 "fields", r->row, nr);
		return -1;
	}
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
