/*
 * opreport --timeline: samples per time interval per symbol, from one
 * profile per interval (pp_profile.h), as a text table whose rows are the
 * intervals and whose columns are the symbols with the most samples (the
 * rest summed in "other"), so that the sum of a row is its interval's
 * total and the sum of the totals is the whole window's.
 */
#ifndef PP_TIMELINE_H
#define PP_TIMELINE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "op_hashmap.h"

struct pp_profile;

/* Symbol columns shown at most; the others go to "other". */
#define PP_TIMELINE_TOP 8

struct pp_timeline {
	size_t nr_rows;
	uint64_t *row_total;		/* per interval */
	struct op_hashmap cols;		/* struct pp_timeline_col by name */
	struct pp_timeline_col **v;	/* every column, in order added */
	size_t n, alloc;
};

void pp_timeline_init(struct pp_timeline *tl, size_t nr_rows);
void pp_timeline_free(struct pp_timeline *tl);

/* Add every entry of p (all its classes summed) to interval row. */
void pp_timeline_add(struct pp_timeline *tl, size_t row,
		     struct pp_profile const *p);

/*
 * The table: row i starts at start_s + i * step_s seconds (from the
 * stream's start); what says what the counts are of.
 */
void pp_timeline_print(FILE *out, struct pp_timeline *tl, double start_s,
		       double step_s, char const *what);

#endif /* PP_TIMELINE_H */
