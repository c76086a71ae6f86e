/* opreport --pprof: whole stacks as a pprof profile (pp_pprof.c). */
#ifndef PP_PPROF_H
#define PP_PPROF_H

#include <stddef.h>

#include "pp_stacks.h"

/*
 * A gzipped perftools.profiles.Profile of st (built with lines) into
 * path: a sample per stack (samples, and cpu time when the event is a
 * clock), mappings with build-ids, locations with their inline chains.
 * 0, or -1 with err.
 */
int pp_pprof_write(char const *path, struct pp_stacks const *st,
		   char *err, size_t errlen);

#endif /* PP_PPROF_H */
