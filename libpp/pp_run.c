/* A specification to a profile, as every report tool does; see pp_run.h. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "op_message.h"
#include "op_version.h"
#include "pp_run.h"

int pp_run_select(struct pp_run *r, struct pp_run_opts const *o, int argc,
		  char const *const *argv, char const *usage)
{
	struct pp_select_opts sel = { o->session_dir, o->exclude_dependent,
				      o->callgraph, o->since, o->until };
	char const *root = o->root;
	char err[4096];

	if (pp_spec_parse(&r->spec, argc, argv, err, sizeof(err)))
		op_usage_error(usage, "bad profile specification: %s", err);
	if (!root && r->spec.given[PP_TAG_ARCHIVE])
		root = r->spec.v[PP_TAG_ARCHIVE].v[0];
	if (pp_locate_init(&r->locate, root, o->image_path, err, sizeof(err)))
		return op_error("--image-path: %s", err);
	if (pp_files_select(&r->spec, &sel, &r->files, &r->notes, err,
			    sizeof(err)))
		return op_error("%s", err);
	return 0;
}

int pp_run_populate(struct pp_run *r, struct pp_run_opts const *o,
		    struct pp_populate_opts *popts)
{
	struct pp_invlist inv;
	char err[4096];

	if (pp_classify(&r->files, &o->merge, &r->classes, err, sizeof(err)))
		return op_error("%s", err);
	popts->locate = &r->locate;
	popts->merge_lib = o->merge.lib;
	pp_invert(&r->files, o->merge.lib, &inv);
	pp_profile_populate(&r->profile, &r->files, &r->classes, &inv, popts,
			    &r->notes);
	pp_invlist_free(&inv);
	if (r->profile.nr_bad_files == r->files.n)
		return op_error("no sample file could be read (%zu skipped)",
				r->profile.nr_bad_files);
	return 0;
}

void pp_run_free(struct pp_run *r)
{
	pp_profile_free(&r->profile);
	pp_classes_free(&r->classes);
	pp_files_free(&r->files);
	pp_locate_free(&r->locate);
	pp_spec_free(&r->spec);
	pp_strlist_free(&r->notes);
	memset(r, 0, sizeof(*r));
}

/*
 * An option between "{" and "}" would silently apply to both profiles
 * (popt takes options anywhere, the last one wins): "{ --session-dir=old
 * } { --session-dir=new }" compared new with itself. Refused instead.
 */
static void refuse_options_in_braces(int argc, char const **argv,
				     char const *usage)
{
	int depth = 0;

	for (int i = 1; i < argc && strcmp(argv[i], "--"); i++) {
		if (!strcmp(argv[i], "{"))
			depth++;
		else if (!strcmp(argv[i], "}"))
			depth -= depth > 0;
		else if (depth && argv[i][0] == '-' && argv[i][1])
			op_usage_error(usage, "'%s' is inside { }: a { } holds a "
				       "profile specification, options go outside "
				       "and apply to both sides", argv[i]);
	}
}

poptContext pp_run_options(int argc, char const **argv,
			   struct poptOption const *options, pp_take_fn *take,
			   char const *usage, char const *const **args,
			   int *nargs)
{
	poptContext ctx;
	int rc;

	op_set_progname(argv[0]);
	refuse_options_in_braces(argc, argv, usage);
	ctx = poptGetContext(NULL, argc, argv, options, 0);
	while ((rc = poptGetNextOpt(ctx)) > 0) {
		if (rc == PP_RUN_VERSION) {
			char const *slash = strrchr(argv[0], '/');

			op_print_version(stdout, slash ? slash + 1 : argv[0]);
			exit(0);
		}
		take(ctx, rc);
	}
	if (rc < -1)
		op_usage_error(usage, "%s: %s",
			       poptBadOption(ctx, POPT_BADOPTION_NOALIAS),
			       poptStrerror(rc));
	*args = (char const *const *)poptGetArgs(ctx);
	*nargs = 0;
	while (*args && (*args)[*nargs])
		(*nargs)++;
	return ctx;
}

void pp_run_keep(char **field, char *value)
{
	if (!field) {
		free(value);
		return;
	}
	free(*field);
	*field = value;
}
