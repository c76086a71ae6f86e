/*
 * What opreport's files share: the options given (opreport.c reads the
 * command line and chooses the report), a profile specification made
 * into a profile (opreport_profile.c), and the report modes, one per
 * file: a single report (opreport_single.c: image summary, symbols -l,
 * call graph -c, text or XML), a differential one (opreport_diff.c),
 * the process summary (opreport_processes.c), whole stacks
 * (opreport_stacks.c) and a recorded stream (opreport_stream.c).
 */
#ifndef OPREPORT_H
#define OPREPORT_H

#include <stdbool.h>

#include "op_message.h"
#include "pp_classes.h"
#include "pp_files.h"
#include "pp_locate.h"
#include "pp_output.h"
#include "pp_populate.h"
#include "pp_profile.h"
#include "pp_spec.h"
#include "pp_stacks.h"
#include "pp_stacks_paths.h"
#include "pp_strlist.h"

/* The command line; popt fills it in from opreport.c's table. String
 * options come back through poptGetNextOpt() (see take_string()) so that
 * a repeated option replaces, and frees, the earlier value. */
struct opreport_opts {
	int symbols, details, debug_info, show_vma, long_names;
	int reverse, exclude_dependent, no_header, accumulated;
	int global_percent, xml, callgraph, version;
	int processes;
	int wall;		/* --wall: opreport_wall.c */
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
	/* --fleet (opreport_fleet.c) */
	char *fleet, *fleet_credentials;
};

extern struct opreport_opts opts;

/* A bad command line: the error, a hint, exit 2. */
#define usage_error(...) \
	op_usage_error("opreport --help lists the options", __VA_ARGS__)

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
	struct pp_strlist fleet;   /* a fleet report's header lines */
	struct pp_populate_opts populate;
	struct pp_output_opts output;
};

/* --- opreport_profile.c --- */

/* Replace *dst (freed) by value. */
void opreport_replace(char **dst, char *value);

/* Specification to files: parse it, find its binaries' root (an
 * archive's, or --root), select the sample files (with {cg} ones when
 * callgraph). The reports and the stacks alike. */
int opreport_select(struct run *run, struct side *s, bool callgraph,
		    int argc, char const *const *argv);

/* Specification to profile: select, classify, invert, populate. */
int opreport_build(struct run *run, struct side *s, int argc,
		   char const *const *argv);

void opreport_side_free(struct side *s);

/* --- the report modes: 0, or -1 after a message --- */

/* The report of one profile (opreport_single.c). */
int opreport_single(struct run *run, int argc, char const *const *argv);

/* The report of a profile written (-o, -X); used by opreport_diff.c too. */
int opreport_write(struct run *run, struct pp_profile const *p,
		   struct pp_classes const *c, char const *spec);

/* "{ old } { new }": both sides, matched, with a diff % column. */
int opreport_diff(struct run *run, int const first[2],
		  int const count[2], char const *const *argv);

/* --processes (opreport_processes.c): the refusals, then the report. */
void opreport_processes_usage(void);
int opreport_processes(struct run *run, int argc, char const *const *argv);
/* --wall (opreport_wall.c): on-CPU and off-CPU time per thread. */
int opreport_wall(struct run *run, int argc, char const *const *argv);

/* --stacks, --folded, --pprof, --flame (opreport_stacks.c). */
bool opreport_stacks_wanted(void);
void opreport_stacks_usage(int diff);
/* One profile, or "{ } { }": only --flame, coloured by the difference. */
int opreport_stacks(struct run *run, int diff, int const first[2],
		    int const count[2], char const *const *argv, int argc);

/* The stack outputs asked for: --stacks and --folded text of the last
 * profile (-o or stdout), --pprof of the first, --flame of the last
 * (coloured by the difference from the first with diff). */
int opreport_stacks_write(struct run *run, struct pp_stacks st[2],
			  struct pp_spaths p[2], int diff);

/* --fleet (opreport_fleet.c): any report mode, from the fleet. */
int opreport_fleet(struct run *run, int diff, int const first[2],
		   int const count[2], char const *const *argv, int argc);

/*
 * --stream (opreport_stream.c): the stream replayed into a temporary session (the window only, with
 * --time), which the report then reads as its --session-dir; or the
 * timeline. -1: not done, else the report's own return via *rc.
 */
int opreport_stream_report(struct run *run, int argc, char const *const *argv,
			   bool diff, int *rc);

#endif /* OPREPORT_H */
