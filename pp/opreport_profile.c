/* opreport: a profile specification made into sample files and a profile,
 * shared by every report mode; see opreport.h. */
#include "config.h"

#include <stdlib.h>

#include "op_message.h"
#include "opreport.h"
#include "pp_invert.h"

struct opreport_opts opts = { .stacks_limit = 20 };

void opreport_replace(char **dst, char *value)
{
	free(*dst);
	*dst = value;
}

/* Specification to files: parse it, find its binaries' root (an
 * archive's, or --root), select the sample files (with {cg} ones when
 * callgraph). The reports and the stacks alike. */
int opreport_select(struct run *run, struct side *s, bool callgraph,
		    int argc, char const *const *argv)
{
	struct pp_select_opts sel = { opts.session_dir, opts.exclude_dependent,
				      callgraph, opts.since, opts.until };
	char const *root = opts.root;
	char err[4096];

	s->text = pp_spec_text(argc, argv);
	if (pp_spec_parse(&s->spec, argc, argv, err, sizeof(err)))
		usage_error("bad profile specification: %s", err);
	if (!root && s->spec.given[PP_TAG_ARCHIVE])
		root = s->spec.v[PP_TAG_ARCHIVE].v[0];
	if (pp_locate_init(&s->locate, root, opts.image_path, err, sizeof(err)))
		return op_error("--image-path: %s", err);
	if (pp_files_select(&s->spec, &sel, &s->files, &run->notes, err, sizeof(err)))
		return op_error("%s", err);
	return 0;
}

/* Specification to profile: select, classify, invert, populate. */
int opreport_build(struct run *run, struct side *s, int argc,
		   char const *const *argv)
{
	struct pp_invlist inv;
	char err[4096];

	if (opreport_select(run, s, opts.callgraph, argc, argv))
		return -1;
	if (pp_classify(&s->files, &run->merge, &s->classes, err, sizeof(err)))
		return op_error("%s", err);
	run->populate.locate = &s->locate;
	pp_invert(&s->files, run->merge.lib, &inv);
	pp_profile_populate(&s->profile, &s->files, &s->classes, &inv,
			    &run->populate, &run->notes);
	pp_invlist_free(&inv);
	if (s->profile.nr_bad_files == s->files.n)
		return op_error("no sample file could be read (%zu skipped)",
				s->profile.nr_bad_files);
	return 0;
}

void opreport_side_free(struct side *s)
{
	pp_profile_free(&s->profile);
	pp_classes_free(&s->classes);
	pp_files_free(&s->files);
	pp_locate_free(&s->locate);
	pp_spec_free(&s->spec);
	free(s->text);
}
