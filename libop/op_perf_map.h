/*
 * Perf maps: the text file a JIT writes for profilers, /tmp/perf-PID.map
 * (Node's --perf-basic-prof, Python 3.12's -X perf, .NET's
 * DOTNET_PerfMapEnabled, Java's perf-map-agent), and the session's copy
 * of what one says about sampled anonymous regions, session/jit/TGID.map
 * (doc/formats.md). One line per function:
 *
 *	START SIZE NAME\n
 *
 * START and SIZE in hex (an optional 0x), NAME the rest of the line (it
 * may hold spaces and any byte but newline: a reader prints it through
 * op_escape.h). A later line for the same START wins, as in perf (the
 * code was compiled again there). A line that does not parse, or a last
 * line without its newline (a map being written), is counted, not kept.
 *
 *	struct op_perf_map m = { 0 };
 *	op_perf_map_parse(&m, buf, len, ranges, nr_ranges, max);
 *	... m.v[i] sorted by start ...
 *	op_perf_map_free(&m);
 */
#ifndef OP_PERF_MAP_H
#define OP_PERF_MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The longest name kept; a longer one is cut there. */
#define OP_PERF_MAP_NAME_MAX 1024

struct op_perf_map_entry {
	uint64_t start;
	uint64_t size;          /* > 0; start + size does not wrap */
	char *name;             /* not empty, no newline */
	size_t line;            /* the line it came from (1-based) */
};

/* An address range [start, end) the caller wants entries of. */
struct op_perf_map_range {
	uint64_t start, end;
};

struct op_perf_map {
	struct op_perf_map_entry *v;  /* sorted by start, one per start */
	size_t n, alloc;
	size_t lines;           /* lines read, over every call */
	size_t bad_lines;       /* lines that did not parse */
	size_t first_bad;       /* the first of them (1-based), 0: none */
	size_t cut;             /* entries past max, not kept */
};

/*
 * Add the entries of len bytes of map text to m (empty, or filled by an
 * earlier call: a later text's line for the same start wins again, and
 * lines are counted on from the earlier text's, as for one file read in
 * pieces). Only
 * entries overlapping one of ranges are kept (nr_ranges 0: all); past
 * max entries in m (0: no bound) those at the highest addresses are
 * dropped and counted in m->cut.
 */
void op_perf_map_parse(struct op_perf_map *m, char const *buf, size_t len,
		       struct op_perf_map_range const *ranges,
		       size_t nr_ranges, size_t max);

/* Whether [start, start + size) overlaps one of the nr ranges r. */
bool op_perf_map_overlaps(uint64_t start, uint64_t size,
			  struct op_perf_map_range const *r, size_t nr);

/* The entry whose [start, start + size) holds addr, or NULL. */
struct op_perf_map_entry const *op_perf_map_find(struct op_perf_map const *m,
						 uint64_t addr);

/*
 * m as map text (the format above, which op_perf_map_parse reads back):
 * malloc'ed, its length in *len.
 */
char *op_perf_map_format(struct op_perf_map const *m, size_t *len);

void op_perf_map_free(struct op_perf_map *m);

#endif /* OP_PERF_MAP_H */
