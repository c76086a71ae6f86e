/*
 * What every report tool does first, once: a profile specification made
 * into the sample files it selects (pp_run_select) and then into a
 * populated profile (pp_run_populate): parse the specification, find
 * binaries below -R or archive:DIR and in -p, select the sample files,
 * classify them, invert and populate. opannotate, oparchive and opgprof
 * use it; a tool says only what it wants populated.
 *
 *	struct pp_run r = { 0 };
 *	if (pp_run_select(&r, &opts, argc, argv, "TOOL --help lists ...") ||
 *	    pp_run_populate(&r, &opts, &populate))
 *		... exit 1 (the error is said) ...
 *	... r.profile, r.classes ...
 *	pp_run_free(&r);
 */
#ifndef PP_RUN_H
#define PP_RUN_H

#include <popt.h>
#include <stdbool.h>

#include "op_session.h"
#include "pp_classes.h"
#include "pp_files.h"
#include "pp_locate.h"
#include "pp_populate.h"
#include "pp_profile.h"
#include "pp_spec.h"
#include "pp_strlist.h"

struct pp_run_opts {
	char const *session_dir;
	char const *image_path;      /* -p, or NULL */
	char const *root;            /* -R, or NULL: archive:DIR's */
	bool exclude_dependent;      /* -x */
	bool callgraph;              /* keep the {cg} files */
	struct pp_merge merge;       /* -m */
	char const *since, *until;   /* --since/--until, or NULL */
};

struct pp_run {
	struct pp_spec spec;
	struct pp_locate locate;
	struct pp_filelist files;
	struct pp_classes classes;
	struct pp_profile profile;
	struct pp_strlist notes;     /* what the report must say */
};

/*
 * Parse the specification (a bad one is a usage error: exit 2 with the
 * usage hint) and select its sample files. 0, or -1 with the error said.
 */
int pp_run_select(struct pp_run *r, struct pp_run_opts const *o, int argc,
		  char const *const *argv, char const *usage);

/* Classify, invert and populate (popts->locate is set here). 0 or -1. */
int pp_run_populate(struct pp_run *r, struct pp_run_opts const *o,
		    struct pp_populate_opts *popts);

void pp_run_free(struct pp_run *r);

/*
 * The option entries every report tool has, alike in each one's --help;
 * popt hands their string back as val (pp_run_keep it).
 */
#define PP_RUN_OPT_SESSION_DIR(val) \
	{ "session-dir", 0, POPT_ARG_STRING, NULL, (val), \
	  "session directory (default " OP_SESSION_DIR_DEFAULT ")", "dir" }
#define PP_RUN_OPT_IMAGE_PATH \
	{ "image-path", 'p', POPT_ARG_STRING, NULL, 'p', \
	  "directories to find binaries in by name", "dir,..." }
#define PP_RUN_OPT_ROOT \
	{ "root", 'R', POPT_ARG_STRING, NULL, 'R', \
	  "prefix of the sampled paths (sysroot)", "dir" }
/* -v, --version: pp_run_options prints the tool's version line and exits */
#define PP_RUN_VERSION 0x7f00
#define PP_RUN_OPT_VERSION \
	{ "version", 'v', POPT_ARG_NONE, NULL, PP_RUN_VERSION, \
	  "print the version and exit", NULL }

/* A tool's string options come back from popt (val > 0): take keeps each. */
typedef void pp_take_fn(poptContext ctx, int val);

/*
 * argv through popt (progname set from argv[0]): every option with a val
 * goes to take; a bad option is a usage error (exit 2 with usage). The
 * words left over in *args (NULL-ended, or NULL) and *nargs. The caller
 * frees the context.
 */
poptContext pp_run_options(int argc, char const **argv,
			   struct poptOption const *options, pp_take_fn *take,
			   char const *usage, char const *const **args,
			   int *nargs);

/* A string option's value into *field, the old one freed (no field:
 * value freed). */
void pp_run_keep(char **field, char *value);

#endif /* PP_RUN_H */
