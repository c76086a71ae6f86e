/*
 * The call graph of a profile (pp_callgraph.c): the arcs of the {cg}
 * sample files between its entries.
 */
#ifndef PP_CALLGRAPH_H
#define PP_CALLGRAPH_H

#include "pp_files.h"
#include "pp_profile.h"

struct pp_populate_opts;
struct pp_strlist;
struct pp_kernels;

/*
 * For pp_populate.c, after the entries are finished: read the callgraph
 * files of files->cg into p's arcs, adding (sample-less) entries for
 * arc ends the samples did not give.
 */
void pp_callgraph_populate(struct pp_profile *p,
			   struct pp_filelist const *files,
			   struct pp_populate_opts const *opts,
			   struct pp_kernels *kernels,
			   struct pp_strlist *notes);

#endif /* PP_CALLGRAPH_H */
