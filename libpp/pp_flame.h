/* opreport --flame: whole stacks as one HTML flame graph (pp_flame.c). */
#ifndef PP_FLAME_H
#define PP_FLAME_H

#include <stddef.h>

#include "pp_stacks.h"
#include "pp_stacks_paths.h"

/*
 * An interactive flame graph of paths into path (HTML, inline script and
 * data, no network). base: the paths of the older profile of a "{ } { }"
 * comparison, or NULL. 0, or -1 with err.
 */
int pp_flame_write(char const *path, char const *title,
		   struct pp_stacks const *st, struct pp_spaths const *p,
		   struct pp_stacks const *base_st,
		   struct pp_spaths const *base, char *err, size_t errlen);

#endif /* PP_FLAME_H */
