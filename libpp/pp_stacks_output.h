/*
 * The outputs made from stacks (pp_stacks.h): the --stacks text report,
 * --folded text, --pprof (gzipped profile.proto) and --flame (one
 * self-contained HTML file).
 */
#ifndef PP_STACKS_OUTPUT_H
#define PP_STACKS_OUTPUT_H

#include <stdio.h>

#include "pp_stacks.h"

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

/*
 * A gzipped perftools.profiles.Profile of st (built with lines) into
 * path: a sample per stack (samples, and cpu time when the event is a
 * clock), mappings with build-ids, locations with their inline chains.
 * 0, or -1 with err.
 */
int pp_pprof_write(char const *path, struct pp_stacks const *st,
		   char *err, size_t errlen);

/*
 * An interactive flame graph of paths into path (HTML, inline script and
 * data, no network). base: the paths of the older profile of a "{ } { }"
 * comparison, or NULL. 0, or -1 with err.
 */
int pp_flame_write(char const *path, char const *title,
		   struct pp_stacks const *st, struct pp_spaths const *p,
		   struct pp_stacks const *base_st,
		   struct pp_spaths const *base, char *err, size_t errlen);

#endif /* PP_STACKS_OUTPUT_H */
