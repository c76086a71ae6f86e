/* Whole stacks as paths of function labels (pp_stacks_paths.c). */
#ifndef PP_STACKS_PATHS_H
#define PP_STACKS_PATHS_H

#include <stddef.h>
#include <stdint.h>

#include "pp_stacks.h"

/*
 * Paths: a stack as the list of its function labels, root first,
 * grouped by process. Stacks with the same labels are one path.
 */
enum pp_stacks_group { PP_GROUP_NAME, PP_GROUP_PID };

struct pp_spath {
	char *proc;              /* "name" or "name/pid" */
	size_t *funcs;           /* root first; a stop label is a func too */
	size_t nr_funcs;
	uint64_t count;
};

struct pp_spaths {
	struct pp_spath *v;
	size_t n;
	uint64_t total;
};

/* The paths of st (adds stop labels to st->funcs), most common first. */
void pp_spaths_build(struct pp_spaths *out, struct pp_stacks *st,
		     enum pp_stacks_group group);
void pp_spaths_free(struct pp_spaths *p);

#endif /* PP_STACKS_PATHS_H */
