/* TabSeparated rows and the byte buffer (fleet_tsv.h). */
#include "config.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fleet_tsv.h"
#include "op_alloc.h"

void fleet_buf_free(struct fleet_buf *b)
{
	free(b->p);
	b->p = NULL;
	b->len = b->cap = 0;
}

void fleet_buf_reset(struct fleet_buf *b)
{
	b->len = 0;
	if (b->p)
		b->p[0] = '\0';
}

static void reserve(struct fleet_buf *b, size_t more)
{
	size_t need = b->len + more + 1;

	if (need <= b->cap)
		return;
	if (need < b->cap * 2)
		need = b->cap * 2;
	if (need < 256)
		need = 256;
	b->p = op_xrealloc(b->p, need);
	b->cap = need;
}

void fleet_buf_add(struct fleet_buf *b, void const *data, size_t len)
{
	reserve(b, len);
	if (len)
		memcpy(b->p + b->len, data, len);
	b->len += len;
	b->p[b->len] = '\0';
}

void fleet_buf_puts(struct fleet_buf *b, char const *s)
{
	fleet_buf_add(b, s, strlen(s));
}

void fleet_buf_printf(struct fleet_buf *b, char const *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	reserve(b, (size_t)n);
	va_start(ap, fmt);
	vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

/* The escape of byte c (the letter after the backslash), or 0. */
static char escape_of(unsigned char c, int quoted)
{
	switch (c) {
	case '\\': return '\\';
	case '\t': return 't';
	case '\n': return 'n';
	case '\r': return 'r';
	case '\0': return '0';
	case '\b': return 'b';
	case '\f': return 'f';
	case '\'': return quoted ? '\'' : 0;
	default: return 0;
	}
}

static void escaped(struct fleet_buf *b, char const *s, size_t len, int quoted)
{
	size_t i, run = 0;

	reserve(b, len);
	for (i = 0; i < len; i++) {
		char e = escape_of((unsigned char)s[i], quoted);

		if (!e)
			continue;
		fleet_buf_add(b, s + run, i - run);
		fleet_buf_add(b, (char[]){ '\\', e }, 2);
		run = i + 1;
	}
	fleet_buf_add(b, s + run, len - run);
}

void fleet_tsv_string(struct fleet_buf *b, char const *s, size_t len)
{
	escaped(b, s, len, 0);
}

void fleet_tsv_str(struct fleet_buf *b, char const *s)
{
	if (s)
		escaped(b, s, strlen(s), 0);
	else
		fleet_buf_add(b, "", 0);
}

void fleet_tsv_u64(struct fleet_buf *b, uint64_t v)
{
	fleet_buf_printf(b, "%" PRIu64, v);
}

void fleet_sql_string(struct fleet_buf *b, char const *s, size_t len)
{
	fleet_buf_add(b, "'", 1);
	escaped(b, s, len, 1);
	fleet_buf_add(b, "'", 1);
}

void fleet_tsv_array(struct fleet_buf *b, char const *const *v, size_t n)
{
	size_t i;

	fleet_buf_add(b, "[", 1);
	for (i = 0; i < n; i++) {
		fleet_buf_add(b, i ? ",'" : "'", i ? 2 : 1);
		escaped(b, v[i] ? v[i] : "", v[i] ? strlen(v[i]) : 0, 1);
		fleet_buf_add(b, "'", 1);
	}
	fleet_buf_add(b, "]", 1);
}

void fleet_tsv_array_u64(struct fleet_buf *b, uint64_t const *v, size_t n)
{
	size_t i;

	fleet_buf_add(b, "[", 1);
	for (i = 0; i < n; i++)
		fleet_buf_printf(b, "%s%" PRIu64, i ? "," : "", v[i]);
	fleet_buf_add(b, "]", 1);
}

/* A DateTime as seconds since the epoch: read so by every version,
 * whatever the server's time zone (text would be read in its zone). */
void fleet_tsv_datetime(struct fleet_buf *b, int64_t t)
{
	fleet_buf_printf(b, "%lld", (long long)(t < 0 ? 0 : t));
}

/* Before 1970 or unrepresentable: the epoch, ClickHouse's own zero. */
void fleet_tsv_date(struct fleet_buf *b, int64_t t)
{
	time_t tt = (time_t)t;
	struct tm tm;
	char s[32];

	if (t < 0 || !gmtime_r(&tt, &tm) || !strftime(s, sizeof(s), "%Y-%m-%d", &tm))
		snprintf(s, sizeof(s), "1970-01-01");
	fleet_buf_puts(b, s);
}

void fleet_tsv_tab(struct fleet_buf *b)
{
	fleet_buf_add(b, "\t", 1);
}

void fleet_tsv_eol(struct fleet_buf *b)
{
	fleet_buf_add(b, "\n", 1);
}

int fleet_tsv_field(char const **p, char const *end, struct fleet_buf *out)
{
	char const *s = *p;

	fleet_buf_reset(out);
	fleet_buf_add(out, "", 0);
	while (s < end && *s != '\t' && *s != '\n') {
		char c = *s++;

		if (c == '\\') {
			if (s == end)
				return -1;
			switch (*s++) {
			case '\\': c = '\\'; break;
			case 't': c = '\t'; break;
			case 'n': c = '\n'; break;
			case 'r': c = '\r'; break;
			case '0': c = '\0'; break;
			case 'b': c = '\b'; break;
			case 'f': c = '\f'; break;
			case '\'': c = '\''; break;
			default: return -1;
			}
		}
		fleet_buf_add(out, &c, 1);
	}
	if (s == end)
		return -1;
	*p = s + 1;
	return 0;
}
