/*
 * A test sink for opd_trans: it keeps every decoded sample (with the
 * context the stream gave it) in memory so that tests can ask questions
 * such as "how many samples of process P fell in binary B's range R".
 */
#ifndef TALLY_H
#define TALLY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "opd_trans.h"

struct tally_sample {
	unsigned long cpu, tid, tgid, app, cookie, pc, event;
	bool in_kernel;
};

struct tally_arc {
	unsigned long tgid;
	struct opd_frame caller, callee;
};

struct tally {
	struct opd_trans dec;		/* decodes into this tally */
	struct opd_sink sink;
	struct tally_sample *s;
	size_t nr, cap;
	struct tally_arc *a;		/* every arc */
	size_t nr_arcs, cap_arcs;
	uint64_t lost[OP_LOST_CATEGORY_MAX];
};

void tally_init(struct tally *t, char const *name);
void tally_free(struct tally *t);
/* The path (or anon name) of cookie, or "" if undefined. */
char const *tally_cookie_name(struct tally const *t, unsigned long cookie);
/* Print totals and lost counts to stderr, prefixed by what. */
void tally_report(struct tally const *t, char const *what);

#endif /* TALLY_H */
