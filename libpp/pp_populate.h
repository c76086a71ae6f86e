/*
 * Populating a profile (pp_populate.c): the sample files of each inverted
 * profile symbolised with the image's binary (libbfd) or the session's
 * kallsyms; with a callgraph, then its arcs (pp_callgraph.h).
 */
#ifndef PP_POPULATE_H
#define PP_POPULATE_H

#include <stdbool.h>
#include <stddef.h>

#include "pp_classes.h"
#include "pp_demangle.h"
#include "pp_files.h"
#include "pp_invert.h"
#include "pp_profile.h"

struct pp_binary;

struct pp_populate_opts {
	bool symbols;            /* symbol entries (else image summary) */
	bool details;            /* -d */
	bool debug_info;         /* -g */
	enum pp_demangle demangle;
	struct pp_strlist const *include;   /* -i: keep only these symbols */
	struct pp_strlist const *exclude;   /* -e: drop these symbols */
	struct pp_locate *locate;
	bool callgraph;          /* -c: add the arcs of files->cg */
	bool merge_lib;          /* --merge=lib: applications are images */
	char const *vmlinux;     /* --vmlinux: the kernel proper's file */
	/*
	 * Called for each image while its binary is open, with its new
	 * entries [from, p->n) (details filled when details is set): how
	 * opannotate reads source lines and code.
	 */
	void (*image_done)(void *arg, struct pp_binary const *bin,
			   struct pp_profile const *p, size_t from,
			   char const *image);
	void *image_done_arg;
};

/*
 * Fill p from the inverted profiles of files. Problems (bad sample files,
 * missing or changed binaries) are noted. classes get their headers.
 */
void pp_profile_populate(struct pp_profile *p,
			 struct pp_filelist const *files,
			 struct pp_classes *classes,
			 struct pp_invlist const *inv,
			 struct pp_populate_opts const *opts,
			 struct pp_strlist *notes);

#endif /* PP_POPULATE_H */
