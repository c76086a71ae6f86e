/*
 * opreport: where did the samples go? Image summaries, symbol lists
 * (-l) with per-address details (-d), call graphs (-c), columns per class
 * (threads, cpus, events), differential profiles "{ old } { new }", text
 * or XML (-X).
 *
 * This file is the option table and the order of the steps; libpp does
 * the work: pp_spec (specification), pp_files (which sample files),
 * pp_classes (columns), pp_invert + pp_populate (reading and symbols),
 * pp_callgraph (arcs), pp_diff, pp_output_* (formats). Exit 0 on success, 1 on a runtime
 * failure (nothing matched, no readable samples), 2 on a usage error.
 */
#include "config.h"

#include <errno.h>
#include <popt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "op_config.h"
#include "op_file.h"
#include "op_message.h"
#include "op_session.h"
#include "op_util.h"
#include "op_version.h"
#include "pp_diff.h"
#include "pp_output.h"
#include "pp_output_text.h"
#include "pp_output_xml.h"
#include "pp_populate.h"
#include "pp_procsum.h"
#include "pp_profile.h"
#include "pp_run.h"
#include "pp_spec.h"
#include "pp_timeline.h"
#include "opreport_stream.h"
#include "pp_stacks_output.h"

/* The command line; popt fills it in from the table below. String
 * options come back through poptGetNextOpt() (see take_string()) so that
 * a repeated option replaces, and frees, the earlier value. */
static struct opreport_opts {
	int symbols, details, debug_info, show_vma, long_names;
	int reverse, exclude_dependent, no_header, accumulated;
	int global_percent, xml, callgraph, version;
	int processes;
	double threshold;
	char *sort, *include, *exclude, *demangle, *merge, *output, *verbose;
	char *session_dir, *image_path, *root;
	int session_dir_given;
	char *since, *until;   /* rotated sessions by time (pp_timerange.h) */
	/* --stream (opreport_stream.h) */
	char *stream, *time, *events, *separate;
	int timeline;
	/* whole stacks (pp_stacks.h): --stacks, --folded, --pprof, --flame */
	char *stacks, *pprof, *flame;
	int folded, stacks_limit;
} opts = { .stacks_limit = 20 };

enum {
	OPT_SESSION_DIR = 256, OPT_SINCE, OPT_UNTIL,
	OPT_STREAM, OPT_TIME, OPT_EVENTS, OPT_SEPARATE,
	OPT_STACKS, OPT_PPROF, OPT_FLAME
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
	{ "verbose", 'V', POPT_ARG_STRING | POPT_ARGFLAG_OPTIONAL, NULL, 'V', "OProfile's debug classes: accepted, our notes are always shown", "all,debug,bfd,level1,sfile,stats,xml" },
	{ "version", 'v', POPT_ARG_NONE, &opts.version, 0, "print the version and exit", NULL },
	POPT_AUTOHELP
	POPT_TABLEEND
};

/* Everything built from one profile specification. */
struct side {
	struct pp_spec spec;
	struct pp_locate locate;
	struct pp_filelist files;
	struct pp_classes classes;
	struct pp_profile profile;
	char *text;
};

/* Options that do not depend on the specification. */
struct run {
	struct pp_merge merge;
	struct pp_strlist include, exclude, notes, verbose;
	struct pp_populate_opts populate;
	struct pp_output_opts output;
};

static void replace(char **dst, char *value)
{
	free(*dst);
	*dst = value;
}

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
	replace(&opts.stacks, arg ? arg : op_xstrdup("name"));
}

/* The string option popt returned: into its field. */
static void take_string(poptContext ctx, int val)
{
	char *arg = poptGetOptArg(ctx);

	switch (val) {
	case 's': replace(&opts.sort, arg); break;
	case 'i': replace(&opts.include, arg); break;
	case 'e': replace(&opts.exclude, arg); break;
	case 'D': replace(&opts.demangle, arg); break;
	case 'm': replace(&opts.merge, arg); break;
	case 'o': replace(&opts.output, arg); break;
	case OPT_SESSION_DIR:
		replace(&opts.session_dir, arg);
		opts.session_dir_given = 1;
		break;
	case OPT_SINCE: replace(&opts.since, arg); break;
	case OPT_UNTIL: replace(&opts.until, arg); break;
	case 'p': replace(&opts.image_path, arg); break;
	case 'R': replace(&opts.root, arg); break;
	case 'V': replace(&opts.verbose, arg ? arg : op_xstrdup("all")); break;
	case OPT_STREAM: replace(&opts.stream, arg); break;
	case OPT_TIME: replace(&opts.time, arg); break;
	case OPT_EVENTS: replace(&opts.events, arg); break;
	case OPT_SEPARATE: replace(&opts.separate, arg); break;
	case OPT_STACKS: take_stacks(ctx, arg); break;
	case OPT_PPROF: replace(&opts.pprof, arg); break;
	case OPT_FLAME: replace(&opts.flame, arg); break;
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
		       &opts.stacks, &opts.pprof, &opts.flame };

	for (size_t i = 0; i < sizeof(s) / sizeof(s[0]); i++)
		replace(s[i], NULL);
}

/* A bad command line: the error, a hint, exit 2. */
#define usage_error(...) \
	op_usage_error("opreport --help lists the options", __VA_ARGS__)

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

/* Specification to files: parse it, find its binaries' root (an
 * archive's, or --root), select the sample files (with {cg} ones when
 * callgraph). The reports and the stacks alike. */
static int select_side(struct run *run, struct side *s, bool callgraph,
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
static int build(struct run *run, struct side *s, int argc,
		 char const *const *argv)
{
	struct pp_invlist inv;
	char err[4096];

	if (select_side(run, s, opts.callgraph, argc, argv))
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

static void side_free(struct side *s)
{
	pp_profile_free(&s->profile);
	pp_classes_free(&s->classes);
	pp_files_free(&s->files);
	pp_locate_free(&s->locate);
	pp_spec_free(&s->spec);
	free(s->text);
}

static int write_report(struct run *run, struct pp_profile const *p,
			struct pp_classes const *c, char const *spec)
{
	struct pp_report r = { p, c, &run->notes, spec };
	FILE *out = stdout;
	char err[512];
	int rc = 0;

	if (opts.output && !(out = op_fopen_output(opts.output)))
		return op_error("cannot write '%s': %s", opts.output,
				op_file_strerror(errno));
	if (opts.xml)
		rc = pp_output_xml(out, &r, &run->output, err, sizeof(err));
	else
		pp_output_text(out, &r, &run->output);
	if (rc)
		op_error("%s", err);
	if ((out != stdout ? fclose(out) : fflush(out)) && !rc)
		rc = op_error_errno("writing the report failed");
	return rc;
}

/* "{ old } { new }": both sides, matched, with a diff % column. */
static int differential(struct run *run, int const first[2],
			int const count[2], char const *const *argv)
{
	struct side s[2] = { 0 };
	struct pp_classes classes = { 0 };
	struct pp_profile diff = { 0 };
	char err[1024];
	int rc;

	if (opts.details || opts.xml || opts.callgraph)
		usage_error("%s", "differential profiles cannot be shown with --details, --xml or --callgraph");
	run->output.diff = true;
	rc = build(run, &s[0], count[0], argv + first[0]);
	if (!rc)
		rc = build(run, &s[1], count[1], argv + first[1]);
	if (!rc && pp_diff_classes(&classes, &s[0].classes, &s[1].classes, err, sizeof(err)))
		rc = op_error("%s", err);
	if (!rc) {
		pp_diff_profiles(&diff, &s[0].profile, &s[1].profile, opts.long_names);
		rc = write_report(run, &diff, &classes, s[1].text);
	}
	pp_profile_free(&diff);
	pp_classes_free(&classes);
	side_free(&s[0]);
	side_free(&s[1]);
	return rc;
}

static int single(struct run *run, int argc, char const *const *argv)
{
	struct side s = { 0 };
	int rc = build(run, &s, argc, argv);

	if (!rc)
		rc = write_report(run, &s.profile, &s.classes, s.text);
	side_free(&s);
	return rc;
}

/* --- opreport --processes (pp_procsum.h) --------------------------------- */

/*
 * One process's profile: the specification and the process's word
 * ("tgid:N" or "image:APP"), which takes the place of the user's own
 * words of that tag: the process is one of those they select, and a tag
 * may be given once.
 */
static int process_profile(struct run *run, struct pp_proc const *proc,
			   int argc, char const *const *argv)
{
	char const **args = op_xcalloc((size_t)argc + 2, sizeof(*args));
	char *word = pp_procsum_spec(proc);
	size_t tag = strchr(word, ':') - word + 1;
	struct side s = { 0 };
	int n = 0, rc;

	for (int i = 0; i < argc; i++)
		if (strncmp(argv[i], word, tag))
			args[n++] = argv[i];
	args[n] = word;
	rc = build(run, &s, n + 1, args);
	if (!rc)
		pp_procsum_print_portions(stdout, proc, &s.profile, &s.files,
					  opts.threshold);
	side_free(&s);
	free(word);
	free(args);
	return rc;
}

static void processes_usage(void)
{
	if (opts.xml || opts.callgraph || opts.output)
		usage_error("%s", "--processes is a text report on stdout: no --xml, --callgraph or --output-file");
}

static int processes(struct run *run, int argc, char const *const *argv)
{
	struct pp_procsum sum;
	struct side s = { 0 };
	uint64_t all;
	char err[512];
	int rc;

	processes_usage();
	run->merge = (struct pp_merge){ .cpu = true, .tid = true, .tgid = true,
					.unitmask = true };
	run->populate.symbols = true;
	rc = build(run, &s, argc, argv);
	if (!rc && pp_procsum_build(&sum, &s.files, &run->notes, err, sizeof(err)))
		rc = op_error("%s", err);
	if (rc) {
		side_free(&s);
		return rc;
	}
	pp_procsum_print(stdout, &sum, opts.threshold);
	all = sum.user + sum.sys;
	for (size_t i = 0; !rc && i < sum.n; i++)
		if (100.0 * (double)(sum.v[i].user + sum.v[i].sys) >=
		    opts.threshold * (double)all)
			rc = process_profile(run, &sum.v[i], argc, argv);
	if (!rc)
		pp_procsum_print_kernel(stdout, &s.profile, &s.files,
					opts.threshold);
	pp_procsum_free(&sum);
	side_free(&s);
	return rc;
}

/* --- end of --processes ----------------------------------------------------- */

/* --- opreport --stream (opreport_stream.h, pp_timeline.h) ------------------ */

static bool stacks_wanted(void);
static void stacks_usage(int diff);
static int stacks_main(struct run *run, int diff, int const first[2],
		       int const count[2], char const *const *argv, int argc);

/* What chooses sessions on disk has none to choose with --stream: said,
 * not ignored (archive:DIR would also look for the session in DIR). The
 * reports' own usage errors too: before the replay, not after it. */
static void stream_refusals(bool diff, int argc, char const *const *argv)
{
	struct pp_spec spec;
	char err[1024];
	bool sessions;

	if (diff)
		usage_error("%s", "--stream takes one profile specification, not a differential one");
	if (opts.session_dir_given || opts.since || opts.until)
		usage_error("%s", "--session-dir, --since and --until choose sessions on disk: not with --stream");
	if (opts.timeline < 0 || (opts.timeline && (opts.processes || opts.xml ||
						     opts.callgraph || opts.output ||
						     stacks_wanted())))
		usage_error("%s", "--timeline takes a positive MS and no --processes, --xml, --callgraph, --output-file, --stacks, --folded, --pprof or --flame");
	if (stacks_wanted())
		stacks_usage(0);
	else if (opts.processes)
		processes_usage();
	if (pp_spec_parse(&spec, argc, argv, err, sizeof(err)))
		usage_error("bad profile specification: %s", err);
	sessions = spec.given[PP_TAG_SESSION] || spec.given[PP_TAG_SESSION_EXCLUDE] ||
		   spec.given[PP_TAG_ARCHIVE];
	pp_spec_free(&spec);
	if (sessions)
		usage_error("%s", "--stream is the session: no session:, session-exclude: or archive: (for binaries elsewhere use --root)");
}

static double rel_s(struct opreport_stream const *st, uint64_t t)
{
	return t <= st->first ? 0.0 : (double)(t - st->first) / 1e9;
}

/* --timeline=MS: one temporary session and one profile per interval. */
static int timeline(struct run *run, struct opreport_stream *st,
		    uint64_t start, uint64_t end, int argc,
		    char const *const *argv)
{
	uint64_t step = (uint64_t)opts.timeline * 1000000u, rows;
	struct pp_timeline tl;
	char *what;
	int rc = 0;

	if (start < st->first)
		start = st->first;
	if (end > st->last)
		end = st->last + 1;	/* the last TIME's samples */
	if (end <= start)
		return op_error("--time: the stream '%s' has no samples in that window",
				st->file);
	rows = (end - start + step - 1) / step;
	if (rows > 100000)
		usage_error("--timeline=%d makes %llu intervals: take a longer one",
			    opts.timeline, (unsigned long long)rows);
	run->populate.symbols = true;
	pp_timeline_init(&tl, rows);
	for (uint64_t r = 0; !rc && r < rows; r++) {
		uint64_t a = start + r * step, b = a + step < end ? a + step : end;
		struct side s = { 0 };
		uint64_t written;
		char *dir = opreport_stream_session(st, false, a, b, &written);

		if (!dir)
			rc = -1;
		else if (written) {
			replace(&opts.session_dir, op_xstrdup(dir));
			run->output.session = opts.stream;
			rc = build(run, &s, argc, argv);
			if (!rc)
				pp_timeline_add(&tl, r, &s.profile);
			side_free(&s);
		}
		if (dir)
			op_session_remove_tree(dir);
		free(dir);
	}
	what = op_xasprintf("samples of every event and class of the stream '%s'",
			    st->file);
	if (!rc)
		pp_timeline_print(stdout, &tl, rel_s(st, start), (double)step / 1e9,
				  what);
	free(what);
	pp_timeline_free(&tl);
	return rc;
}

/*
 * The stream replayed into a temporary session (the window only, with
 * --time), which the report then reads as its --session-dir; or the
 * timeline. -1: not done, else the report's own return via *rc.
 */
static int stream_report(struct run *run, int argc, char const *const *argv,
			 bool diff, int *rc)
{
	struct opreport_stream st;
	uint64_t start = 0, end = UINT64_MAX, written;
	char err[512], *dir;

	if (opts.time && !opts.stream)
		usage_error("%s", "--time needs --stream");
	if ((opts.timeline || opts.events || opts.separate) && !opts.stream)
		usage_error("%s", "--timeline, --events and --separate need --stream");
	if (!opts.stream)
		return -1;
	stream_refusals(diff, argc, argv);
	/* the process summary's rows are processes, with their kernel */
	if (opts.processes && !opts.separate)
		opts.separate = op_xstrdup("thread,kernel");
	if (opreport_stream_open(&st, opts.stream, opts.events, opts.separate) < 0) {
		*rc = 1;
		return 0;
	}
	if ((opts.time || opts.timeline) && !st.has_time) {
		op_error("the stream '%s' has no time codes (a driver stream, or one "
			 "recorded before code 37): --time and --timeline need them",
			 opts.stream);
		*rc = 1;
	} else if (opts.time && opreport_stream_window(&st, opts.time, &start, &end,
						       err, sizeof(err))) {
		usage_error("--time: %s", err);
	} else if (opts.timeline) {
		*rc = timeline(run, &st, start, end, argc, argv);
	} else if (!(dir = opreport_stream_session(&st, !opts.time, start, end,
						   &written))) {
		*rc = 1;
	} else {
		if (opts.time)
			op_info("stream '%s': %llu of its %llu samples are in the "
				"window %.3f s .. %.3f s", opts.stream,
				(unsigned long long)written,
				(unsigned long long)st.samples, rel_s(&st, start),
				end == UINT64_MAX ? rel_s(&st, st.last) : rel_s(&st, end));
		replace(&opts.session_dir, dir);
		/* the report's "session" (XML): the stream, not a directory
		 * gone when we exit */
		run->output.session = opts.stream;
		*rc = stacks_wanted() ? stacks_main(run, 0, NULL, NULL, argv, argc) :
		      opts.processes ? processes(run, argc, argv) :
		      single(run, argc, argv);
	}
	opreport_stream_free(&st);
	return 0;
}

/* --- end of --stream ------------------------------------------------------- */

/* --- whole stacks: --stacks, --folded, --pprof, --flame (pp_stacks.h) ----- */

static bool stacks_wanted(void)
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

	if (select_side(run, s, false, argc, argv))
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

static void stacks_usage(int diff)
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

/* Single ("{ } { }": only --flame, coloured by the difference). */
static int stacks_main(struct run *run, int diff, int const first[2],
		       int const count[2], char const *const *argv, int argc)
{
	enum pp_stacks_group group = PP_GROUP_NAME;
	struct side s[2] = { 0 };
	struct pp_stacks st[2] = { 0 };
	struct pp_spaths p[2] = { 0 };
	int n = diff ? 2 : 1, rc = 0;
	char err[1024];

	stacks_usage(diff);
	if (opts.stacks && !strcmp(opts.stacks, "pid"))
		group = PP_GROUP_PID;
	for (int i = 0; !rc && i < n; i++) {
		rc = diff ? stacks_side(run, &s[i], &st[i], count[i], argv + first[i]) :
			    stacks_side(run, &s[i], &st[i], argc, argv);
		if (!rc)
			pp_spaths_build(&p[i], &st[i], group);
	}
	if (!rc)
		rc = stacks_print(run, &st[n - 1], &p[n - 1]);
	if (!rc && opts.pprof && pp_pprof_write(opts.pprof, &st[0], err, sizeof(err)))
		rc = op_error("%s", err);
	if (!rc && opts.flame &&
	    pp_flame_write(opts.flame, run->output.title, &st[n - 1], &p[n - 1],
			   diff ? &st[0] : NULL, diff ? &p[0] : NULL, err,
			   sizeof(err)))
		rc = op_error("%s", err);
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

/* --- end of whole stacks ------------------------------------------------------ */

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
	if (stream_report(&run, nargs, args, rc != 0, &rc) < 0)
		rc = stacks_wanted() ? stacks_main(&run, rc, first, count, args, nargs) :
		     opts.processes ? processes(&run, nargs, args) :
		     rc ? differential(&run, first, count, args) :
		     single(&run, nargs, args);
	pp_strlist_free(&run.include);
	pp_strlist_free(&run.exclude);
	pp_strlist_free(&run.notes);
	pp_strlist_free(&run.verbose);
	free(title);
	free_strings();
	poptFreeContext(ctx);
	return rc ? 1 : 0;
}
