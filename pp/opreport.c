/*
 * opreport: where did the samples go? Image summaries, symbol lists
 * (-l) with per-address details (-d), call graphs (-c), columns per class
 * (threads, cpus, events), differential profiles "{ old } { new }", text
 * or XML (-X).
 *
 * This file is the option table and the choice of the report mode; each
 * mode is a file of its own (opreport.h), and libpp does the work:
 * pp_spec (specification), pp_files (which sample files), pp_classes
 * (columns), pp_invert + pp_populate (reading and symbols), pp_callgraph
 * (arcs), pp_diff, pp_output_* (formats). Exit 0 on success, 1 on a
 * runtime failure (nothing matched, no readable samples), 2 on a usage
 * error.
 */
#include "config.h"

#include <popt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "op_config.h"
#include "op_message.h"
#include "op_session.h"
#include "op_util.h"
#include "op_version.h"
#include "opreport.h"
#include "pp_run.h"

enum {
	OPT_SESSION_DIR = 256, OPT_SINCE, OPT_UNTIL,
	OPT_STREAM, OPT_TIME, OPT_EVENTS, OPT_SEPARATE,
	OPT_STACKS, OPT_PPROF, OPT_FLAME, OPT_FLEET, OPT_FLEET_CRED
};

static struct poptOption const options[] = {
	{ "symbols", 'l', POPT_ARG_NONE, &opts.symbols, 0, "list symbols", NULL },
	{ "callgraph", 'c', POPT_ARG_NONE, &opts.callgraph, 0, "callers and callees of each symbol (from --callgraph sessions)", NULL },
	{ "details", 'd', POPT_ARG_NONE, &opts.details, 0, "samples per address under each symbol", NULL },
	{ "debug-info", 'g', POPT_ARG_NONE, &opts.debug_info, 0, "source file and line column", NULL },
	{ "show-address", 'w', POPT_ARG_NONE, &opts.show_vma, 0, "vma column", NULL },
	{ "long-filenames", 'f', POPT_ARG_NONE, &opts.long_names, 0, "full paths", NULL },
	{ "threshold", 't', POPT_ARG_DOUBLE, &opts.threshold, 0, "hide entries below this percentage", "percent" },
	{ "sort", 's', POPT_ARG_STRING, NULL, 's', "sort keys", "sample,image,app-name,symbol,debug,vma" },
	{ "reverse-sort", 'r', POPT_ARG_NONE, &opts.reverse, 0, "reverse the sort", NULL },
	{ "exclude-dependent", 'x', POPT_ARG_NONE, &opts.exclude_dependent, 0, "leave out libraries, kernel and modules of applications", NULL },
	{ "include-symbols", 'i', POPT_ARG_STRING, NULL, 'i', "only these symbols", "sym,..." },
	{ "exclude-symbols", 'e', POPT_ARG_STRING, NULL, 'e', "leave out these symbols", "sym,..." },
	{ "demangle", 'D', POPT_ARG_STRING, NULL, 'D', "C++ names (default normal)", "none|normal|smart" },
	{ "no-header", 'n', POPT_ARG_NONE, &opts.no_header, 0, "no header lines", NULL },
	{ "accumulated", 'a', POPT_ARG_NONE, &opts.accumulated, 0, "cumulative samples and percentages", NULL },
	{ "global-percent", '%', POPT_ARG_NONE, &opts.global_percent, 0, "percentages of the whole profile", NULL },
	{ "merge", 'm', POPT_ARG_STRING, NULL, 'm', "merge separated profiles", "cpu,lib,tid,tgid,unitmask,all" },
	{ "output-file", 'o', POPT_ARG_STRING, NULL, 'o', "write the report to a file", "file" },
	{ "xml", 'X', POPT_ARG_NONE, &opts.xml, 0, "XML output (doc/opreport.xsd)", NULL },
	{ "session-dir", 0, POPT_ARG_STRING, NULL, OPT_SESSION_DIR, "session directory (default " OP_SESSION_DIR_DEFAULT ")", "dir" },
	{ "since", 0, POPT_ARG_STRING, NULL, OPT_SINCE, "merge the rotated sessions from this UTC time on (or now, -DURATION)", "YYYY-MM-DDTHH[:MM[:SS]]" },
	{ "until", 0, POPT_ARG_STRING, NULL, OPT_UNTIL, "... and before this UTC time", "YYYY-MM-DDTHH[:MM[:SS]]" },
	{ "image-path", 'p', POPT_ARG_STRING, NULL, 'p', "directories to find binaries in by name", "dir,..." },
	{ "root", 'R', POPT_ARG_STRING, NULL, 'R', "prefix of the sampled paths (sysroot)", "dir" },
	{ "processes", 0, POPT_ARG_NONE, &opts.processes, 0, "Prospect's process summary: samples and time per process, each one's user and kernel profile, the global kernel profile", NULL },
	/* --stream: a recorded stream, any time window of it */
	{ "stream", 0, POPT_ARG_STRING, NULL, OPT_STREAM, "report a recorded event stream (operf --record-stream) instead of a session; - for standard input", "file" },
	{ "time", 0, POPT_ARG_STRING, NULL, OPT_TIME, "--stream: only samples in [START, END): seconds from the stream's start, or NNNns CLOCK_MONOTONIC", "START,END" },
	{ "timeline", 0, POPT_ARG_INT, &opts.timeline, 0, "--stream: samples per interval of MS milliseconds per symbol", "MS" },
	{ "events", 0, POPT_ARG_STRING, NULL, OPT_EVENTS, "--stream: the events it was recorded with, as operf --events (default: the cpu's default event)", "name:count,..." },
	{ "separate", 0, POPT_ARG_STRING, NULL, OPT_SEPARATE, "--stream: split its samples as oprofiled --separate (default none)", "lib,kernel,thread,cpu,all" },
	/* whole stacks */
	{ "stacks", 0, POPT_ARG_STRING | POPT_ARGFLAG_OPTIONAL, NULL, OPT_STACKS, "the most common whole stacks (root to leaf), per process name or pid, and the most common paths into each hot symbol", "name|pid" },
	{ "stacks-limit", 0, POPT_ARG_INT, &opts.stacks_limit, 0, "--stacks: at most so many paths and hot symbols (0: all; default 20)", "N" },
	{ "folded", 0, POPT_ARG_NONE, &opts.folded, 0, "the stacks as folded text (proc;root;...;leaf COUNT) for flame-graph tools", NULL },
	{ "pprof", 0, POPT_ARG_STRING, NULL, OPT_PPROF, "the stacks as a gzipped pprof profile (go tool pprof, Pyroscope, Parca)", "file" },
	{ "flame", 0, POPT_ARG_STRING, NULL, OPT_FLAME, "the stacks as an interactive flame graph: one HTML file", "file.html" },
	/* the fleet: sessions shipped to ClickHouse */
	{ "fleet", 0, POPT_ARG_STRING, NULL, OPT_FLEET, "report the sessions machines shipped to this ClickHouse server (specs add host:NAME and labels key:value)", "http[s]://host:port" },
	{ "fleet-credentials", 0, POPT_ARG_STRING, NULL, OPT_FLEET_CRED, "--fleet: the credentials file (user = ..., password = ...; default: the settings' fleet_credentials)", "file" },
	{ "verbose", 'V', POPT_ARG_STRING | POPT_ARGFLAG_OPTIONAL, NULL, 'V', "OProfile's debug classes: accepted, our notes are always shown", "all,debug,bfd,level1,sfile,stats,xml" },
	{ "version", 'v', POPT_ARG_NONE, &opts.version, 0, "print the version and exit", NULL },
	POPT_AUTOHELP
	POPT_TABLEEND
};




/* --stacks[=name|pid]: popt hands "--stacks image:x" the spec word as
 * the optional value; a word that looks like a specification (a tag, a
 * path, a brace) goes back to be read as one. */
static void take_stacks(poptContext ctx, char *arg)
{
	char const *back[2] = { arg, NULL };

	if (arg && strpbrk(arg, ":/{}")) {
		poptStuffArgs(ctx, back);
		free(arg);
		arg = NULL;
	}
	opreport_replace(&opts.stacks, arg ? arg : op_xstrdup("name"));
}

/* The string option popt returned: into its field. */
static void take_string(poptContext ctx, int val)
{
	char *arg = poptGetOptArg(ctx);

	switch (val) {
	case 's': opreport_replace(&opts.sort, arg); break;
	case 'i': opreport_replace(&opts.include, arg); break;
	case 'e': opreport_replace(&opts.exclude, arg); break;
	case 'D': opreport_replace(&opts.demangle, arg); break;
	case 'm': opreport_replace(&opts.merge, arg); break;
	case 'o': opreport_replace(&opts.output, arg); break;
	case OPT_SESSION_DIR:
		opreport_replace(&opts.session_dir, arg);
		opts.session_dir_given = 1;
		break;
	case OPT_SINCE: opreport_replace(&opts.since, arg); break;
	case OPT_UNTIL: opreport_replace(&opts.until, arg); break;
	case 'p': opreport_replace(&opts.image_path, arg); break;
	case 'R': opreport_replace(&opts.root, arg); break;
	case 'V': opreport_replace(&opts.verbose, arg ? arg : op_xstrdup("all")); break;
	case OPT_STREAM: opreport_replace(&opts.stream, arg); break;
	case OPT_TIME: opreport_replace(&opts.time, arg); break;
	case OPT_EVENTS: opreport_replace(&opts.events, arg); break;
	case OPT_SEPARATE: opreport_replace(&opts.separate, arg); break;
	case OPT_STACKS: take_stacks(ctx, arg); break;
	case OPT_PPROF: opreport_replace(&opts.pprof, arg); break;
	case OPT_FLAME: opreport_replace(&opts.flame, arg); break;
	case OPT_FLEET: opreport_replace(&opts.fleet, arg); break;
	case OPT_FLEET_CRED: opreport_replace(&opts.fleet_credentials, arg); break;
	default: free(arg); break;
	}
}

static void free_strings(void)
{
	char **s[] = { &opts.sort, &opts.include, &opts.exclude,
		       &opts.demangle, &opts.merge, &opts.output,
		       &opts.session_dir, &opts.image_path, &opts.root,
		       &opts.verbose, &opts.since, &opts.until,
		       &opts.stream, &opts.time, &opts.events, &opts.separate,
		       &opts.stacks, &opts.pprof, &opts.flame, &opts.fleet,
		       &opts.fleet_credentials };

	for (size_t i = 0; i < sizeof(s) / sizeof(s[0]); i++)
		opreport_replace(s[i], NULL);
}


/* OProfile's -V classes: accepted so that its scripts run, but they
 * change nothing (our notes and warnings are always printed). */
static bool verbose_class(char const *name)
{
	static char const *const classes[] = {
		"all", "debug", "bfd", "level1", "sfile", "stats", "xml",
	};

	for (size_t i = 0; i < sizeof(classes) / sizeof(classes[0]); i++)
		if (!strcmp(name, classes[i]))
			return true;
	return false;
}

static void parse_lists(struct run *run)
{
	char err[512];

	if (opts.merge && pp_merge_parse(opts.merge, &run->merge, err, sizeof(err)))
		usage_error("--merge: %s", err);
	if (opts.sort && pp_sort_parse(opts.sort, &run->output.sort, err, sizeof(err)))
		usage_error("--sort: %s", err);
	if (opts.include && pp_strlist_split(&run->include, opts.include, err, sizeof(err)))
		usage_error("--include-symbols: %s", err);
	if (opts.exclude && pp_strlist_split(&run->exclude, opts.exclude, err, sizeof(err)))
		usage_error("--exclude-symbols: %s", err);
	if (opts.verbose && pp_strlist_split(&run->verbose, opts.verbose, err, sizeof(err)))
		usage_error("--verbose: %s", err);
	for (size_t i = 0; i < run->verbose.n; i++)
		if (!verbose_class(run->verbose.v[i]))
			usage_error("--verbose: '%s' is not one of all,debug,bfd,level1,sfile,stats,xml",
				    run->verbose.v[i]);
	if (opts.demangle && pp_demangle_parse(opts.demangle, &run->populate.demangle))
		usage_error("--demangle: '%s' is not none, normal or smart", opts.demangle);
	if (opts.exclude_dependent && run->merge.lib && !(run->merge.cpu &&
	    run->merge.tid && run->merge.unitmask))
		usage_error("%s", "--exclude-dependent and --merge=lib contradict each other (use --merge=all to merge everything)");
	if (opts.threshold < 0 || opts.threshold > 100)
		usage_error("%s", "--threshold is a percentage from 0 to 100");
	if (opts.callgraph && (opts.details || opts.accumulated))
		usage_error("%s", "--callgraph cannot be shown with --details or --accumulated");
}

static void setup(struct run *run)
{
	/* OProfile's XML always lists symbols (its schema wants them) */
	bool symbols = opts.symbols || opts.details || opts.debug_info ||
		       opts.show_vma || opts.include || opts.exclude ||
		       opts.accumulated || opts.callgraph || opts.xml;

	run->populate = (struct pp_populate_opts){
		.symbols = symbols, .details = opts.details,
		.debug_info = opts.debug_info, .demangle = PP_DEMANGLE_NORMAL,
		.include = &run->include, .exclude = &run->exclude,
		.callgraph = opts.callgraph,
	};
	run->output = (struct pp_output_opts){
		.symbols = symbols, .details = opts.details,
		.debug_info = opts.debug_info, .show_vma = opts.show_vma,
		.long_names = opts.long_names, .accumulated = opts.accumulated,
		.global_percent = opts.global_percent,
		.no_header = opts.no_header, .threshold = opts.threshold,
		.callgraph = opts.callgraph,
		.merge = opts.merge, .include_symbols = opts.include,
		.exclude_symbols = opts.exclude, .image_path = opts.image_path,
		.exclude_dependent = opts.exclude_dependent,
	};
	parse_lists(run);
	run->populate.merge_lib = run->merge.lib;
	run->output.sort.reverse = opts.reverse;
	run->output.sort.long_names = opts.long_names;
	if (!opts.session_dir)
		opts.session_dir = op_xstrdup(OP_SESSION_DIR_DEFAULT);
	run->output.session = opts.session_dir;
}

/* OProfile's XML title: "opreport" and the arguments as given. */
static char *title_of(int argc, char const **argv)
{
	char *t = op_xstrdup("opreport");

	for (int i = 1; i < argc; i++) {
		char *more = op_xasprintf("%s %s", t, argv[i]);

		free(t);
		t = more;
	}
	return t;
}




















int main(int argc, char const **argv)
{
	struct run run = { 0 };
	char const *const *args;
	int first[2], count[2], nargs, rc;
	char err[512], *title;
	poptContext ctx = pp_run_options(argc, argv, options, take_string,
					 "opreport --help lists the options",
					 &args, &nargs);

	if (opts.version) {
		op_print_version(stdout, "opreport");
		free_strings();
		poptFreeContext(ctx);
		return 0;
	}
	setup(&run);
	title = title_of(argc, argv);
	run.output.title = title;
	rc = pp_spec_split_diff(nargs, args, first, count, err, sizeof(err));
	if (rc < 0)
		usage_error("%s", err);
	if (opts.processes && rc)
		usage_error("%s", "--processes takes one profile specification, not a differential one");
	if (opts.fleet)
		rc = opreport_fleet(&run, rc, first, count, args, nargs);
	else if (opts.fleet_credentials)
		usage_error("%s", "--fleet-credentials goes with --fleet");
	else if (opreport_stream_report(&run, nargs, args, rc != 0, &rc) < 0)
		rc = opreport_stacks_wanted() ? opreport_stacks(&run, rc, first, count, args, nargs) :
		     opts.processes ? opreport_processes(&run, nargs, args) :
		     rc ? opreport_diff(&run, first, count, args) :
		     opreport_single(&run, nargs, args);
	pp_strlist_free(&run.include);
	pp_strlist_free(&run.exclude);
	pp_strlist_free(&run.notes);
	pp_strlist_free(&run.verbose);
	free(title);
	free_strings();
	poptFreeContext(ctx);
	return rc ? 1 : 0;
}
