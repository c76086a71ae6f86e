/* opreport's whole stacks: --stacks, --folded, --pprof, --flame
 * (pp_stacks.h); see opreport.h. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "op_file.h"
#include "op_message.h"
#include "opreport.h"
#include "pp_flame.h"
#include "pp_pprof.h"
#include "pp_stacks.h"
#include "pp_stacks_output.h"
#include "pp_stacks_paths.h"

bool opreport_stacks_wanted(void)
{
	return opts.stacks || opts.folded || opts.pprof || opts.flame;
}

/* One specification's stacks, selected and named like its samples. */
static int stacks_side(struct run *run, struct side *s, struct pp_stacks *st,
		       int argc, char const *const *argv)
{
	struct pp_stacks_opts so = { .demangle = run->populate.demangle,
				     .lines = opts.pprof != NULL };
	char err[4096];
	int rc;

	if (opreport_select(run, s, false, argc, argv))
		return -1;
	so.locate = &s->locate;
	rc = pp_stacks_load(st, &s->files, &so, &run->notes, err, sizeof(err));
	return rc ? op_error("%s", err) : 0;
}

static int stacks_print(struct run *run, struct pp_stacks const *st,
			struct pp_spaths const *p)
{
	struct pp_stacks_print pr = { opts.threshold,
				      (size_t)opts.stacks_limit,
				      opts.no_header };
	FILE *out = stdout;

	if (!opts.stacks && !opts.folded)
		return 0;
	if (opts.output && !(out = op_fopen_output(opts.output)))
		return op_error("cannot write '%s': %s", opts.output,
				op_file_strerror(errno));
	if (opts.stacks)
		pp_stacks_report(out, st, p, &pr, &run->notes);
	if (opts.folded)
		pp_stacks_folded(out, st, p);
	if (out != stdout ? fclose(out) : fflush(out))
		return op_error_errno("writing the report failed");
	return 0;
}

void opreport_stacks_usage(int diff)
{
	if (opts.stacks && strcmp(opts.stacks, "pid") && strcmp(opts.stacks, "name"))
		usage_error("--stacks: '%s' is not name or pid (before a profile specification write --stacks=name)", opts.stacks);
	if (opts.stacks_limit < 0)
		usage_error("%s", "--stacks-limit is a count, 0 for all");
	if (opts.xml || opts.callgraph || opts.details || opts.processes)
		usage_error("%s", "--stacks, --folded, --pprof and --flame cannot be shown with --xml, --callgraph, --details or --processes");
	if (diff && (opts.stacks || opts.folded || opts.pprof))
		usage_error("%s", "of the stack reports only --flame compares two profiles");
}

int opreport_stacks_write(struct run *run, struct pp_stacks st[2],
			  struct pp_spaths p[2], int diff)
{
	int n = diff ? 2 : 1, rc;
	char err[1024];

	rc = stacks_print(run, &st[n - 1], &p[n - 1]);
	if (!rc && opts.pprof && pp_pprof_write(opts.pprof, &st[0], err, sizeof(err)))
		rc = op_error("%s", err);
	if (!rc && opts.flame &&
	    pp_flame_write(opts.flame, run->output.title, &st[n - 1], &p[n - 1],
			   diff ? &st[0] : NULL, diff ? &p[0] : NULL, err,
			   sizeof(err)))
		rc = op_error("%s", err);
	return rc;
}

/* Single ("{ } { }": only --flame, coloured by the difference). */
int opreport_stacks(struct run *run, int diff, int const first[2],
		    int const count[2], char const *const *argv, int argc)
{
	enum pp_stacks_group group = PP_GROUP_NAME;
	struct side s[2] = { 0 };
	struct pp_stacks st[2] = { 0 };
	struct pp_spaths p[2] = { 0 };
	int n = diff ? 2 : 1, rc = 0;

	opreport_stacks_usage(diff);
	if (opts.stacks && !strcmp(opts.stacks, "pid"))
		group = PP_GROUP_PID;
	for (int i = 0; !rc && i < n; i++) {
		rc = diff ? stacks_side(run, &s[i], &st[i], count[i], argv + first[i]) :
			    stacks_side(run, &s[i], &st[i], argc, argv);
		if (!rc)
			pp_spaths_build(&p[i], &st[i], group);
	}
	if (!rc)
		rc = opreport_stacks_write(run, st, p, diff);
	for (int i = 0; i < 2; i++) {
		pp_spaths_free(&p[i]);
		pp_stacks_free(&st[i]);
		pp_files_free(&s[i].files);
		pp_locate_free(&s[i].locate);
		pp_spec_free(&s[i].spec);
		free(s[i].text);
	}
	return rc;
}
