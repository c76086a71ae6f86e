/*
 * Perf maps (op_perf_map.h): the one parser, for the daemon reading a
 * JIT's /tmp/perf-PID.map and the reports reading the session's copy.
 * The text comes from an untrusted user: every field is checked, a name
 * is cut at OP_PERF_MAP_NAME_MAX, nothing is trusted to be terminated.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "op_alloc.h"
#include "op_perf_map.h"
#include "op_util.h"

/* A hex number at *p (before end): at most 16 digits, an optional 0x. */
static bool parse_hex(char const **p, char const *end, uint64_t *out)
{
	char const *s = *p;
	uint64_t v = 0;
	size_t digits = 0;

	if (end - s > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') &&
	    op_hex_digit(s[2]) >= 0)
		s += 2;
	for (; s < end && op_hex_digit(*s) >= 0; s++) {
		if (++digits > 16)
			return false;
		v = v << 4 | (uint64_t)op_hex_digit(*s);
	}
	if (!digits)
		return false;
	*p = s;
	*out = v;
	return true;
}

static bool skip_blanks(char const **p, char const *end)
{
	char const *s = *p;

	while (s < end && (*s == ' ' || *s == '\t'))
		s++;
	if (s == *p)
		return false;
	*p = s;
	return true;
}

bool op_perf_map_overlaps(uint64_t start, uint64_t size,
			  struct op_perf_map_range const *r, size_t nr)
{
	for (size_t i = 0; i < nr; i++)
		if (start < r[i].end && r[i].start < start + size)
			return true;
	return false;
}

/* One line, without its newline: false if it does not parse. */
static bool parse_line(struct op_perf_map *m, char const *s, char const *end,
		       size_t line, struct op_perf_map_range const *ranges,
		       size_t nr_ranges)
{
	struct op_perf_map_entry *e;
	uint64_t start, size;
	size_t len;

	if (!parse_hex(&s, end, &start) || !skip_blanks(&s, end) ||
	    !parse_hex(&s, end, &size) || !skip_blanks(&s, end))
		return false;
	if (!size || start + size < start)
		return false;
	len = (size_t)(end - s);
	{
		char const *nul = memchr(s, '\0', len);

		if (nul)
			len = (size_t)(nul - s);
	}
	if (!len)
		return false;
	if (len > OP_PERF_MAP_NAME_MAX)
		len = OP_PERF_MAP_NAME_MAX;
	if (nr_ranges && !op_perf_map_overlaps(start, size, ranges, nr_ranges))
		return true;
	OP_ALLOC_GROW(m->v, m->n + 1, m->alloc);
	e = &m->v[m->n++];
	e->start = start;
	e->size = size;
	e->line = line;
	e->name = op_xmalloc(len + 1);
	memcpy(e->name, s, len);
	e->name[len] = '\0';
	return true;
}

/* By start, then by line: the last of a start is the one kept. */
static int by_start(void const *a, void const *b)
{
	struct op_perf_map_entry const *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->line < y->line ? -1 : x->line > y->line;
}

void op_perf_map_parse(struct op_perf_map *m, char const *buf, size_t len,
		       struct op_perf_map_range const *ranges,
		       size_t nr_ranges, size_t max)
{
	char const *p = buf, *end = buf + len;
	size_t line = m->lines, kept = 0;

	/* lines go on from the entries already there, so that those lose
	 * to this text's lines for the same start */
	for (size_t i = 0; i < m->n; i++)
		if (m->v[i].line > line)
			line = m->v[i].line;
	while (p < end) {
		char const *nl = memchr(p, '\n', (size_t)(end - p));

		line++;
		if (!nl) {	/* cut short: being written, or truncated */
			m->bad_lines++;
			if (!m->first_bad)
				m->first_bad = line;
			break;
		}
		if (nl > p && !parse_line(m, p, nl, line, ranges, nr_ranges)) {
			m->bad_lines++;
			if (!m->first_bad)
				m->first_bad = line;
		}
		p = nl + 1;
	}
	m->lines = line;
	if (!m->n)
		return;
	qsort(m->v, m->n, sizeof(*m->v), by_start);
	for (size_t i = 0; i < m->n; i++) {
		if (i + 1 < m->n && m->v[i + 1].start == m->v[i].start) {
			free(m->v[i].name);
			continue;
		}
		m->v[kept++] = m->v[i];
	}
	m->n = kept;
	if (max && m->n > max) {
		for (size_t i = max; i < m->n; i++)
			free(m->v[i].name);
		m->cut += m->n - max;
		m->n = max;
	}
}

static int starts_at_or_below(void const *elem, void const *key)
{
	struct op_perf_map_entry const *e = elem;

	return e->start <= *(uint64_t const *)key;
}

struct op_perf_map_entry const *op_perf_map_find(struct op_perf_map const *m,
						 uint64_t addr)
{
	/* the last entry starting at or below addr */
	size_t lo = op_partition_point(m->v, m->n, sizeof(m->v[0]),
				       starts_at_or_below, &addr);

	if (!lo)
		return NULL;
	if (addr - m->v[lo - 1].start < m->v[lo - 1].size)
		return &m->v[lo - 1];
	return NULL;
}

char *op_perf_map_format(struct op_perf_map const *m, size_t *len)
{
	size_t total = 1, at = 0;
	char *out;

	for (size_t i = 0; i < m->n; i++)
		total += 2 * 17 + strlen(m->v[i].name) + 1;
	out = op_xmalloc(total);
	for (size_t i = 0; i < m->n; i++)
		at += (size_t)snprintf(out + at, total - at, "%llx %llx %s\n",
				       (unsigned long long)m->v[i].start,
				       (unsigned long long)m->v[i].size,
				       m->v[i].name);
	out[at] = '\0';
	*len = at;
	return out;
}

void op_perf_map_free(struct op_perf_map *m)
{
	for (size_t i = 0; i < m->n; i++)
		free(m->v[i].name);
	free(m->v);
	memset(m, 0, sizeof(*m));
}
