/*
 * The last step of finding a debug file: a debuginfod server, held to
 * limits of time and size (pp_debuginfod.c says which).
 */
#ifndef PP_DEBUGINFOD_H
#define PP_DEBUGINFOD_H

#include "pp_debuginfo.h"

/*
 * The debug file of the build id from debuginfod (malloc'd: a path in
 * libdebuginfod's cache), or NULL: DEBUGINFOD_URLS unset, not found, over
 * a limit, or unusable (then removed from the cache).
 */
char *pp_debuginfod_fetch(struct pp_build_id const *id);

#endif /* PP_DEBUGINFOD_H */
