/*
 * opreport --fleet=URL: the reports of the sessions machines shipped to
 * ClickHouse (libpp/pp_fleet.h), through the same outputs a local
 * session gets: image summary, -l, -d, -X, "{ } { }" differentials,
 * --stacks, --folded, --pprof, --flame. libfleet's HTTP client asks the
 * server, with the credentials of --fleet-credentials or the settings
 * file's fleet_credentials (never the command line); see opreport.h.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "op_message.h"
#include "op_util.h"
#include "opreport.h"
#include "pp_diff.h"
#include "pp_fleet.h"
#include "pp_fleet_http.h"
#include "pp_flame.h"
#include "pp_pprof.h"
#include "pp_stacks_output.h"
#include "pp_stacks_paths.h"

struct fleet_run {
	struct pp_fleet_conn conn;
	struct pp_timerange range;
};

/* The options a fleet report cannot honour: refused, never ignored. */
static void refuse_local(void)
{
	if (opts.session_dir_given || opts.stream || opts.processes ||
	    opts.root || opts.image_path)
		usage_error("%s", "--fleet reads no local session: it cannot be given with --session-dir, --stream, --processes, --root or --image-path");
	if (opts.callgraph || opts.debug_info)
		usage_error("%s", "--fleet has no call graph arcs and no binaries: it cannot be given with --callgraph or --debug-info");
	if (opts.stacks && !strcmp(opts.stacks, "pid"))
		usage_error("%s", "--fleet keeps no pids: use --stacks=name");
}

static int fleet_start(struct fleet_run *fr)
{
	char err[4096];

	if (pp_timerange_options(opts.since, opts.until, time(NULL),
				 &fr->range, err, sizeof(err)))
		usage_error("%s", err);
	if (pp_fleet_connect(&fr->conn, opts.fleet, opts.fleet_credentials,
			     err, sizeof(err)))
		return op_error("%s", err);
	return 0;
}

static int spec_of(struct fleet_run *fr, struct pp_fleet_spec *fs, int argc,
		   char const *const *argv)
{
	char err[4096];

	if (pp_fleet_spec_parse(fs, argc, argv, &fr->range, err, sizeof(err)))
		usage_error("bad profile specification: %s", err);
	return 0;
}

/* One side: its spec, profile and classes; its header lines prefixed. */
static int side(struct run *run, struct fleet_run *fr, struct side *s,
		int argc, char const *const *argv, char const *prefix)
{
	struct pp_fleet_spec fs;
	struct pp_fleet_info info;
	struct pp_strlist lines = { 0 };
	char err[4096];
	int rc;

	s->text = pp_spec_text(argc, argv);
	spec_of(fr, &fs, argc, argv);
	rc = pp_fleet_profile(&fr->conn.fleet, &fs, &run->populate,
			      opts.exclude_dependent, &s->profile, &s->classes,
			      &info, err, sizeof(err));
	pp_fleet_spec_free(&fs);
	if (rc)
		return op_error("%s", err);
	pp_fleet_header(&fr->conn.fleet, &info, &lines);
	for (size_t i = 0; i < lines.n; i++) {
		char *l = op_xasprintf("%s%s", prefix, lines.v[i]);

		pp_strlist_add(&run->fleet, l);
		free(l);
	}
	pp_strlist_free(&lines);
	return 0;
}

static int report(struct run *run, struct fleet_run *fr, int diff,
		  int const first[2], int const count[2],
		  char const *const *argv, int argc)
{
	struct side s[2] = { 0 };
	struct pp_classes classes = { 0 };
	struct pp_profile d = { 0 };
	char err[1024];
	int rc;

	if (!diff) {
		rc = side(run, fr, &s[0], argc, argv, "");
		if (!rc)
			rc = opreport_write(run, &s[0].profile, &s[0].classes,
					    s[0].text);
		opreport_side_free(&s[0]);
		return rc;
	}
	if (opts.details || opts.xml)
		usage_error("%s", "differential profiles cannot be shown with --details or --xml");
	run->output.diff = true;
	rc = side(run, fr, &s[0], count[0], argv + first[0], "old: ");
	if (!rc)
		rc = side(run, fr, &s[1], count[1], argv + first[1], "new: ");
	if (!rc && pp_diff_classes(&classes, &s[0].classes, &s[1].classes,
				   err, sizeof(err)))
		rc = op_error("%s", err);
	if (!rc) {
		pp_diff_profiles(&d, &s[0].profile, &s[1].profile,
				 opts.long_names);
		rc = opreport_write(run, &d, &classes, s[1].text);
	}
	pp_profile_free(&d);
	pp_classes_free(&classes);
	opreport_side_free(&s[0]);
	opreport_side_free(&s[1]);
	return rc;
}

/* One side's stacks; its header lines go first among the notes. */
static int stacks_side(struct run *run, struct fleet_run *fr,
		       struct pp_stacks *st, int argc, char const *const *argv)
{
	struct pp_fleet_spec fs;
	struct pp_fleet_info info;
	char err[4096];
	int rc;

	spec_of(fr, &fs, argc, argv);
	rc = pp_fleet_stacks(&fr->conn.fleet, &fs, opts.pprof != NULL, st, &info,
			     &run->notes, err, sizeof(err));
	pp_fleet_spec_free(&fs);
	if (rc)
		return op_error("%s", err);
	pp_fleet_header(&fr->conn.fleet, &info, &run->fleet);
	return 0;
}

static int stacks(struct run *run, struct fleet_run *fr, int diff,
		  int const first[2], int const count[2],
		  char const *const *argv, int argc)
{
	struct pp_stacks st[2] = { 0 };
	struct pp_spaths p[2] = { 0 };
	int n = diff ? 2 : 1, rc = 0;

	opreport_stacks_usage(diff);
	for (int i = 0; !rc && i < n; i++) {
		rc = diff ? stacks_side(run, fr, &st[i], count[i], argv + first[i]) :
			    stacks_side(run, fr, &st[i], argc, argv);
		if (!rc)
			pp_spaths_build(&p[i], &st[i], PP_GROUP_NAME);
	}
	/* the fleet's lines head the notes the text outputs print */
	for (size_t i = 0; !rc && i < run->notes.n; i++)
		pp_strlist_add(&run->fleet, run->notes.v[i]);
	if (!rc) {
		pp_strlist_free(&run->notes);
		run->notes = run->fleet;
		memset(&run->fleet, 0, sizeof(run->fleet));
		rc = opreport_stacks_write(run, st, p, diff);
	}
	for (int i = 0; i < 2; i++) {
		pp_spaths_free(&p[i]);
		pp_stacks_free(&st[i]);
	}
	return rc;
}

int opreport_fleet(struct run *run, int diff, int const first[2],
		   int const count[2], char const *const *argv, int argc)
{
	struct fleet_run fr = { 0 };
	int rc;

	refuse_local();
	run->output.session = opts.fleet;   /* XML: where the rows are */
	if (opts.fleet_credentials && !*opts.fleet_credentials)
		usage_error("%s", "--fleet-credentials: empty file name");
	rc = fleet_start(&fr);
	if (!rc)
		rc = opreport_stacks_wanted() ?
		     stacks(run, &fr, diff, first, count, argv, argc) :
		     report(run, &fr, diff, first, count, argv, argc);
	pp_fleet_disconnect(&fr.conn);
	pp_strlist_free(&run->fleet);
	return rc;
}
