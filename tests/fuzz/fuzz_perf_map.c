/*
 * libFuzzer target for the perf map parser (libop/op_perf_map.h), which
 * reads what a JIT's user wrote in /tmp/perf-PID.map (the daemon) and the
 * session's copy of it (the reports). The input is map text; it is parsed
 * whole, then again cut in two texts at the position its first byte
 * picks (a later text's line must win), with a range from its first
 * bytes and a bound of 8 entries. What is accepted must be sane: sorted
 * by start, one entry per start, a size that does not wrap, a name not
 * empty, without newline or NUL, at most OP_PERF_MAP_NAME_MAX; each
 * entry found again at its start; the text written read back alike; the
 * bound kept. Anything else aborts.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "op_perf_map.h"

int LLVMFuzzerTestOneInput(uint8_t const *data, size_t size);

static void check_sane(struct op_perf_map const *m, size_t max)
{
	if (max && m->n > max)
		abort();
	for (size_t i = 0; i < m->n; i++) {
		struct op_perf_map_entry const *e = &m->v[i];
		size_t len = strlen(e->name);

		if (!e->size || e->start + e->size < e->start || !len ||
		    len > OP_PERF_MAP_NAME_MAX || strchr(e->name, '\n'))
			abort();
		if (i && m->v[i - 1].start >= e->start)
			abort();
		if (op_perf_map_find(m, e->start) != e)
			abort();
	}
}

static void check_round_trip(struct op_perf_map const *m)
{
	struct op_perf_map back = { 0 };
	size_t len;
	char *text = op_perf_map_format(m, &len);

	op_perf_map_parse(&back, text, len, NULL, 0, 0);
	if (back.n != m->n || back.bad_lines)
		abort();
	for (size_t i = 0; i < m->n; i++)
		if (back.v[i].start != m->v[i].start ||
		    back.v[i].size != m->v[i].size ||
		    strcmp(back.v[i].name, m->v[i].name))
			abort();
	op_perf_map_free(&back);
	free(text);
}

int LLVMFuzzerTestOneInput(uint8_t const *data, size_t size)
{
	char const *text = (char const *)data;
	struct op_perf_map m = { 0 };
	struct op_perf_map_range r = { 0, UINT64_MAX };
	size_t cut;

	op_perf_map_parse(&m, text, size, NULL, 0, 0);
	check_sane(&m, 0);
	check_round_trip(&m);
	op_perf_map_free(&m);

	if (size < 2)
		return 0;
	cut = data[0] % size;
	r.start = (uint64_t)data[0] << 4;
	r.end = r.start + ((uint64_t)data[1] << 8) + 1;
	op_perf_map_parse(&m, text, cut, &r, 1, 8);
	check_sane(&m, 8);
	op_perf_map_parse(&m, text + cut, size - cut, &r, 1, 8);
	check_sane(&m, 8);
	for (size_t i = 0; i < m.n; i++)
		if (m.v[i].start >= r.end ||
		    m.v[i].start + m.v[i].size <= r.start)
			abort();
	op_perf_map_free(&m);
	return 0;
}
