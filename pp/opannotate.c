/*
 * opannotate: the samples of a profile on its source lines (--source)
 * and instructions (--assembly, from libopcodes in the process), or both
 * interleaved. Profile specifications, symbol and file filters, -t,
 * --session-dir, -p and -R as opreport's.
 *
 * This file is the option table and the order of the steps; libpp does
 * the work: the profile is populated (pp_run.h) as opreport -l -d would,
 * and pp_annotate collects each image's lines and code while its binary
 * is open (pp_annotate.c), then writes them (pp_annotate_output.c).
 * Exit 0 on success, 1 on a runtime failure, 2 on a usage error.
 */
#include "config.h"

#include <popt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "op_config.h"
#include "op_message.h"
#include "pp_annotate.h"
#include "pp_annotate_output.h"
#include "pp_fleet.h"
#include "pp_fleet_http.h"
#include "pp_populate.h"
#include "pp_run.h"

static struct opannotate_opts {
	int source, assembly;
	double threshold;
	char *include, *exclude, *demangle, *merge;
	char *include_file, *exclude_file, *search_dirs, *base_dirs;
	char *output_dir, *session_dir, *image_path, *root, *vmlinux;
	char *since, *until;   /* rotated sessions by time (pp_timerange.h) */
	char *fleet, *fleet_credentials;   /* --fleet (pp_fleet.h) */
} opts;

enum { OPT_SESSION_DIR = 256, OPT_INCLUDE_FILE, OPT_EXCLUDE_FILE, OPT_VMLINUX,
       OPT_SINCE, OPT_UNTIL, OPT_FLEET, OPT_FLEET_CRED };

static struct poptOption const options[] = {
	{ "source", 's', POPT_ARG_NONE, &opts.source, 0, "annotated source", NULL },
	{ "assembly", 'a', POPT_ARG_NONE, &opts.assembly, 0, "annotated disassembly (with -s: interleaved with the source)", NULL },
	{ "threshold", 't', POPT_ARG_DOUBLE, &opts.threshold, 0, "only functions with at least this percentage of the samples", "percent" },
	{ "include-symbols", 'i', POPT_ARG_STRING, NULL, 'i', "only these symbols", "sym,..." },
	{ "exclude-symbols", 'e', POPT_ARG_STRING, NULL, 'e', "leave out these symbols", "sym,..." },
	{ "include-file", 0, POPT_ARG_STRING, NULL, OPT_INCLUDE_FILE, "only these source files (globs)", "file,..." },
	{ "exclude-file", 0, POPT_ARG_STRING, NULL, OPT_EXCLUDE_FILE, "leave out these source files (globs)", "file,..." },
	{ "demangle", 'D', POPT_ARG_STRING, NULL, 'D', "C++ names (default normal)", "none|normal|smart" },
	{ "merge", 'm', POPT_ARG_STRING, NULL, 'm', "merge separated profiles", "cpu,lib,tid,tgid,unitmask,all" },
	{ "search-dirs", 'd', POPT_ARG_STRING, NULL, 'd', "directories to look for source files in", "dir,..." },
	{ "base-dirs", 'b', POPT_ARG_STRING, NULL, 'b', "source path prefixes to strip before --search-dirs", "dir,..." },
	{ "output-dir", 'o', POPT_ARG_STRING, NULL, 'o', "write annotated copies of the sources there", "dir" },
	PP_RUN_OPT_SESSION_DIR(OPT_SESSION_DIR),
	{ "since", 0, POPT_ARG_STRING, NULL, OPT_SINCE, "merge the rotated sessions from this UTC time on (or now, -DURATION)", "YYYY-MM-DDTHH[:MM[:SS]]" },
	{ "until", 0, POPT_ARG_STRING, NULL, OPT_UNTIL, "... and before this UTC time", "YYYY-MM-DDTHH[:MM[:SS]]" },
	PP_RUN_OPT_IMAGE_PATH,
	{ "fleet", 0, POPT_ARG_STRING, NULL, OPT_FLEET, "annotate the samples machines shipped to this ClickHouse server (one build of each image)", "http[s]://host:port" },
	{ "fleet-credentials", 0, POPT_ARG_STRING, NULL, OPT_FLEET_CRED, "--fleet: the credentials file (default: the settings' fleet_credentials)", "file" },
	{ "vmlinux", 0, POPT_ARG_STRING, NULL, OPT_VMLINUX, "the sampled kernel's image with symbols (its code, and lines with DWARF)", "file" },
	PP_RUN_OPT_ROOT,
	PP_RUN_OPT_VERSION,
	POPT_AUTOHELP
	POPT_TABLEEND
};

static char **string_field(int val)
{
	switch (val) {
	case 'i': return &opts.include;
	case 'e': return &opts.exclude;
	case 'D': return &opts.demangle;
	case 'm': return &opts.merge;
	case 'd': return &opts.search_dirs;
	case 'b': return &opts.base_dirs;
	case 'o': return &opts.output_dir;
	case 'p': return &opts.image_path;
	case 'R': return &opts.root;
	case OPT_SESSION_DIR: return &opts.session_dir;
	case OPT_INCLUDE_FILE: return &opts.include_file;
	case OPT_EXCLUDE_FILE: return &opts.exclude_file;
	case OPT_VMLINUX: return &opts.vmlinux;
	case OPT_SINCE: return &opts.since;
	case OPT_UNTIL: return &opts.until;
	case OPT_FLEET: return &opts.fleet;
	case OPT_FLEET_CRED: return &opts.fleet_credentials;
	default: return NULL;
	}
}

static void take_string(poptContext ctx, int val)
{
	pp_run_keep(string_field(val), poptGetOptArg(ctx));
}

static void free_strings(void)
{
	char **s[] = { &opts.include, &opts.exclude, &opts.demangle,
		       &opts.merge, &opts.include_file, &opts.exclude_file,
		       &opts.search_dirs, &opts.base_dirs, &opts.output_dir,
		       &opts.session_dir, &opts.image_path, &opts.root,
		       &opts.vmlinux, &opts.since, &opts.until, &opts.fleet,
		       &opts.fleet_credentials };

	for (size_t i = 0; i < sizeof(s) / sizeof(s[0]); i++)
		pp_run_keep(s[i], NULL);
}

#define usage_error(...) \
	op_usage_error("opannotate --help lists the options", __VA_ARGS__)

struct run {
	struct pp_run_opts run_opts;
	struct pp_strlist include, exclude;
	struct pp_strlist include_file, exclude_file, search_dirs, base_dirs;
	struct pp_populate_opts populate;
	struct pp_annotate_opts annotate;
	struct pp_run r;
	struct pp_annotation annotation;
};

static void split(struct pp_strlist *l, char const *text, char const *opt)
{
	char err[512];

	if (text && pp_strlist_split(l, text, err, sizeof(err)))
		usage_error("%s: %s", opt, err);
}

static void setup(struct run *run)
{
	char err[512];

	if (!opts.source && !opts.assembly)
		usage_error("%s", "say what to annotate: --source (-s), --assembly (-a) or both");
	if (opts.output_dir && (opts.assembly || !opts.source))
		usage_error("%s", "--output-dir writes annotated sources: it goes with --source alone");
	if (opts.threshold < 0 || opts.threshold > 100)
		usage_error("%s", "--threshold is a percentage from 0 to 100");
	if (opts.merge && pp_merge_parse(opts.merge, &run->run_opts.merge, err, sizeof(err)))
		usage_error("--merge: %s", err);
	split(&run->include, opts.include, "--include-symbols");
	split(&run->exclude, opts.exclude, "--exclude-symbols");
	split(&run->include_file, opts.include_file, "--include-file");
	split(&run->exclude_file, opts.exclude_file, "--exclude-file");
	split(&run->search_dirs, opts.search_dirs, "--search-dirs");
	split(&run->base_dirs, opts.base_dirs, "--base-dirs");
	pp_annotation_init(&run->annotation, opts.source, opts.assembly);
	run->populate = (struct pp_populate_opts){
		.symbols = true, .details = true,
		.demangle = PP_DEMANGLE_NORMAL,
		.include = &run->include, .exclude = &run->exclude,
		.image_done = pp_annotation_image,
		.image_done_arg = &run->annotation,
		.vmlinux = opts.vmlinux,
	};
	if (opts.demangle && pp_demangle_parse(opts.demangle, &run->populate.demangle))
		usage_error("--demangle: '%s' is not none, normal or smart", opts.demangle);
	run->annotate = (struct pp_annotate_opts){
		.source = opts.source, .assembly = opts.assembly,
		.threshold = opts.threshold,
		.search_dirs = &run->search_dirs, .base_dirs = &run->base_dirs,
		.include_files = &run->include_file,
		.exclude_files = &run->exclude_file,
		.output_dir = opts.output_dir,
	};
	if (!opts.session_dir)
		opts.session_dir = op_xstrdup(OP_SESSION_DIR_DEFAULT);
	run->run_opts.session_dir = opts.session_dir;
	run->run_opts.since = opts.since;
	run->run_opts.until = opts.until;
	run->run_opts.image_path = opts.image_path;
	run->run_opts.root = opts.root;
}

static void run_free(struct run *run)
{
	pp_annotation_free(&run->annotation);
	pp_run_free(&run->r);
	pp_strlist_free(&run->include);
	pp_strlist_free(&run->exclude);
	pp_strlist_free(&run->include_file);
	pp_strlist_free(&run->exclude_file);
	pp_strlist_free(&run->search_dirs);
	pp_strlist_free(&run->base_dirs);
}

/*
 * --fleet: the fleet's profile of the specification, annotated on the
 * binaries (or debug files) of the builds it names (pp_fleet_annotate).
 */
static int fleet(struct run *run, int argc, char const *const *argv)
{
	struct pp_fleet_conn conn;
	struct pp_fleet_spec fs;
	struct pp_fleet_info info;
	struct pp_timerange range;
	struct pp_locate locate;
	char err[4096];
	int rc;

	if (opts.root || opts.vmlinux || opts.merge)
		usage_error("%s", "--fleet reads no local session: it cannot be given with --root, --vmlinux or --merge");
	if (pp_timerange_options(opts.since, opts.until, time(NULL), &range,
				 err, sizeof(err)))
		usage_error("%s", err);
	if (pp_fleet_spec_parse(&fs, argc, argv, &range, err, sizeof(err)))
		usage_error("bad profile specification: %s", err);
	if (pp_locate_init(&locate, NULL, opts.image_path, err, sizeof(err))) {
		pp_fleet_spec_free(&fs);
		return op_error("--image-path: %s", err);
	}
	run->populate.locate = &locate;
	rc = pp_fleet_connect(&conn, opts.fleet, opts.fleet_credentials, err,
			      sizeof(err));
	if (!rc)
		rc = pp_fleet_annotate(&conn.fleet, &fs, &run->populate,
				       &run->annotation, &run->r.profile,
				       &run->r.classes, &info,
				       &run->annotation.notes, err, sizeof(err));
	if (rc)
		op_error("%s", err);
	else
		rc = pp_annotate_write(stdout, &run->annotation,
				       run->r.profile.totals, &run->r.classes,
				       &run->annotate);
	pp_fleet_disconnect(&conn);
	pp_locate_free(&locate);
	pp_fleet_spec_free(&fs);
	return rc;
}

int main(int argc, char const **argv)
{
	static struct run run;
	char const *const *args;
	int nargs, rc;
	poptContext ctx = pp_run_options(argc, argv, options, take_string,
					 "opannotate --help lists the options",
					 &args, &nargs);

	if (opts.fleet_credentials && !opts.fleet)
		usage_error("%s", "--fleet-credentials goes with --fleet");
	if (opts.fleet && opts.session_dir)
		usage_error("%s", "--fleet reads no local session: it cannot be given with --session-dir");
	setup(&run);
	if (opts.fleet) {
		rc = fleet(&run, nargs, args);
		if (fflush(stdout) && !rc)
			rc = op_error_errno("writing the annotation failed");
	} else {
		rc = pp_run_select(&run.r, &run.run_opts, nargs, args,
				   "opannotate --help lists the options");
	}
	if (!rc && !opts.fleet)
		rc = pp_run_populate(&run.r, &run.run_opts, &run.populate);
	if (!rc && !opts.fleet) {
		rc = pp_annotate_write(stdout, &run.annotation,
				       run.r.profile.totals, &run.r.classes,
				       &run.annotate);
		if (fflush(stdout) && !rc)
			rc = op_error_errno("writing the annotation failed");
	}
	run_free(&run);
	free_strings();
	poptFreeContext(ctx);
	return rc ? 1 : 0;
}
