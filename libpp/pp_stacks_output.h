/*
 * The text outputs made from stacks (pp_stacks.h): the --stacks report
 * and --folded text (pp_stacks_output.c). --pprof is pp_pprof.h's,
 * --flame pp_flame.h's.
 */
#ifndef PP_STACKS_OUTPUT_H
#define PP_STACKS_OUTPUT_H

#include <stdio.h>

#include "pp_stacks.h"
#include "pp_stacks_paths.h"

struct pp_stacks_print {
	double threshold;        /* hide paths and symbols below (percent) */
	size_t limit;            /* at most so many (0: all) */
	bool no_header;
};

void pp_stacks_report(FILE *out, struct pp_stacks const *st,
		      struct pp_spaths const *p,
		      struct pp_stacks_print const *o,
		      struct pp_strlist const *notes);

/* "proc;root;...;leaf COUNT" per path; the counts sum to st->total. */
void pp_stacks_folded(FILE *out, struct pp_stacks const *st,
		      struct pp_spaths const *p);

#endif /* PP_STACKS_OUTPUT_H */
