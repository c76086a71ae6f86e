/*
 * ophelp: what can this cpu count? Lists a cpu type's events, prints its
 * name or default event, and validates event specs (-e), printing the
 * counter each event would use, so opcontrol and users find bad specs
 * before a profiling run rather than after it.
 *
 * The cpu type is --cpu-type, else $OPROFILE_CPU_TYPE, else detected
 * (op_cpu_detect). Event files come from $OPROFILE_EVENTS_DIR or the
 * installed events/ directory. Exit 0 on success, 1 on a failed check or
 * lookup, 2 on a usage error.
 */
#include "config.h"

#include <popt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "op_cpu_type.h"
#include "op_escape.h"
#include "op_events.h"
#include "op_message.h"
#include "op_util.h"
#include "op_version.h"

#include "ophelp.h"

#define MAX_SPECS 32

/* The command line; popt fills it in from the table below. */
static struct ophelp_opts {
	char *cpu_type;		/* -c */
	int check_events;	/* -e */
	int get_cpu_type;	/* -r */
	int get_default;	/* -d */
	int callgraph;		/* --callgraph depth; >0 raises minimums */
	char *unit_mask;	/* -u: event whose default unit mask to print */
	int ignore_count;	/* -i: with -e or -E, counts are not checked */
	int extra_mask;		/* -E: print the spec's extra bits */
	int xml;		/* -X */
	int version;		/* -v */
	int software;		/* --software: events/software */
} opts;

static _Noreturn void usage_error(char const *what, char const *why)
{
	op_usage_error("ophelp --help lists the options", "%s: %s", what, why);
}

static enum op_cpu pick_cpu(char const *name)
{
	char const *env = getenv("OPROFILE_CPU_TYPE");
	enum op_cpu cpu;

	if (name) {
		cpu = op_cpu_from_name(name);
		if (cpu == CPU_NO_GOOD)
			op_die("unknown cpu type '%s'; ophelp -r shows this machine's", name);
		return cpu;
	}
	cpu = op_cpu_detect();
	if (cpu == CPU_NO_GOOD && env && *env)
		op_die("OPROFILE_CPU_TYPE='%s' names no cpu type", env);
	if (cpu == CPU_NO_GOOD)
		op_die("cannot tell this machine's cpu type; give one with --cpu-type");
	return cpu;
}

static void load_events(enum op_cpu cpu, struct op_event_set *set)
{
	char err[1024];

	if (op_events_load(cpu, set, err, sizeof(err)) == 0)
		return;
	if (!op_cpu_has_events(cpu))
		op_die("cpu type '%s' has no event descriptions (%s)",
		       op_cpu_name(cpu), err);
	op_error("%s", err);
	op_hint("event files are read from '%s'; "
		"set OPROFILE_EVENTS_DIR to use another events/ directory",
		op_events_dir());
	exit(1);
}

static struct op_event const *find_event(struct op_event_set const *set,
					 char const *name)
{
	struct op_event const *ev = op_event_find(set, name);

	if (!ev)
		op_die("no event named '%s' for cpu type '%s'; run ophelp to list events",
		       name, op_cpu_name(set->cpu));
	return ev;
}

/*
 * -i: a spec without a count (ocount's NAME[::um...]) gets one, so that
 * only its syntax, name and unit mask are checked. A new string or NULL.
 */
static char *with_count(char const *text)
{
	char const *colon = strchr(text, ':');

	if (!colon)
		return op_xasprintf("%s:1", text);
	if (colon[1] == ':' || !colon[1])
		return op_xasprintf("%.*s:1%s", (int)(colon - text), text, colon + 1);
	return NULL;
}

/* Parse the specs args into specs (at most MAX_SPECS); their number, or
 * -1 with the error said. */
static int parse_specs(char const **args, struct op_event_spec *specs,
		       char const *option)
{
	char err[1024];
	int n = 0;

	if (!args || !args[0])
		op_die("%s needs at least one event spec", option);
	for (; args[n]; n++) {
		char *full = opts.ignore_count ? with_count(args[n]) : NULL;
		int rc;

		if (n == MAX_SPECS)
			op_die("too many event specs (at most %d)", MAX_SPECS);
		rc = op_parse_event_spec(full ? full : args[n], &specs[n], err,
					 sizeof(err));
		free(full);
		if (rc)
			return op_error("%s", err);
		/* -i: any count passes the minimum check */
		if (opts.ignore_count)
			specs[n].count = UINT32_MAX;
	}
	return n;
}

/* -e: parse and validate every spec, then print the counters chosen. */
static int check_events(struct op_event_set const *set, char const **args,
			int callgraph)
{
	struct op_event_spec specs[MAX_SPECS];
	int counter[MAX_SPECS];
	char err[1024];
	int n = parse_specs(args, specs, "--check-events");

	if (n < 0)
		return -1;
	if (op_check_events(set, specs, (size_t)n, callgraph, counter, err,
			    sizeof(err)))
		return op_error("%s", err);
	for (int i = 0; i < n; i++)
		printf("%d ", counter[i]);
	putchar('\n');
	return 0;
}

/*
 * -E: OProfile's extra bits of one spec's unit mask (cmask, inv, edge,
 * any). Our event files refuse them (libop/op_unit_masks.c), so a valid
 * spec always has none: 0.
 */
static int extra_mask(struct op_event_set const *set, char const **args,
		      int callgraph)
{
	struct op_event_spec spec[MAX_SPECS];
	int counter[MAX_SPECS];
	char err[1024];
	int n = parse_specs(args, spec, "--extra-mask");

	if (n < 0)
		return -1;
	if (n > 1)
		op_die("--extra-mask takes one event spec, not %d", n);
	if (op_check_events(set, spec, 1, callgraph, counter, err, sizeof(err)))
		return op_error("%s", err);
	printf("0\n");
	return 0;
}

static struct poptOption const options[] = {
	{ "cpu-type", 'c', POPT_ARG_STRING, &opts.cpu_type, 0,
	  "use cpu type NAME (name or number) instead of $OPROFILE_CPU_TYPE or the detected one",
	  "NAME" },
	{ "check-events", 'e', POPT_ARG_NONE, &opts.check_events, 0,
	  "check the event specs NAME:count[:unitmask[:kernel[:user]]] given as "
	  "arguments and print the counter each one gets", NULL },
	{ "ignore-count", 'i', POPT_ARG_NONE, &opts.ignore_count, 0,
	  "with -e or -E: do not check the count (it may be left out)", NULL },
	{ "extra-mask", 'E', POPT_ARG_NONE, &opts.extra_mask, 0,
	  "print the extra mask of the event spec given as argument "
	  "(always 0: extra bits are not supported)", NULL },
	{ "get-cpu-type", 'r', POPT_ARG_NONE, &opts.get_cpu_type, 0,
	  "print the cpu type name", NULL },
	{ "get-default-event", 'd', POPT_ARG_NONE, &opts.get_default, 0,
	  "print the cpu type's default event spec", NULL },
	{ "callgraph", '\0', POPT_ARG_INT, &opts.callgraph, 0,
	  "call graph depth: above 0, minimum counts are 15 times higher", "DEPTH" },
	{ "unit-mask", 'u', POPT_ARG_STRING, &opts.unit_mask, 0,
	  "print the default unit mask of event NAME (decimal)", "NAME" },
	{ "xml", 'X', POPT_ARG_NONE, &opts.xml, 0, "list the events as XML", NULL },
	{ "version", 'v', POPT_ARG_NONE, &opts.version, 0, "print the version", NULL },
	{ "software", 0, POPT_ARG_NONE, &opts.software, 0,
	  "list the software events (events/software: what ocount and opwatch --count count on any cpu)",
	  NULL },
	POPT_AUTOHELP
	POPT_TABLEEND
};

static poptContext parse_options(int argc, char const **argv)
{
	poptContext ctx = poptGetContext(NULL, argc, argv, options, 0);
	int rc;

	poptSetOtherOptionHelp(ctx, "[OPTION...] [EVENT-NAME | -e EVENT-SPEC...]\n"
			       "Examples:\n"
			       "  ophelp                          list this cpu's events\n"
			       "  ophelp -e CPU_CLOCK:1000000     check a spec, print its counter\n"
			       "  ophelp -c i386/haswell L2_RQSTS print an event's code (decimal)\n"
			       "Environment: OPROFILE_CPU_TYPE overrides cpu detection,\n"
			       "OPROFILE_EVENTS_DIR the events/ directory.");
	while ((rc = poptGetNextOpt(ctx)) > 0)
		;
	if (rc < -1)
		usage_error(poptBadOption(ctx, 0), poptStrerror(rc));
	if (opts.callgraph < 0)
		usage_error("--callgraph", "the depth cannot be negative");
	return ctx;
}

/* ophelp NAME...: each event's code, in decimal. */
static int print_codes(struct op_event_set const *set, char const **names)
{
	for (; *names; names++)
		printf("%u\n", find_event(set, *names)->code);
	return 0;
}

/* The actions that need the events files, once the cpu type is known. */
static int run(enum op_cpu cpu, char const **args)
{
	struct op_event_set set;
	int ret = 0;

	if (opts.get_default) {
		if (!op_default_event(cpu))
			op_die("cpu type '%s' has no default event", op_cpu_name(cpu));
		printf("%s\n", op_default_event(cpu));
		return 0;
	}
	load_events(cpu, &set);
	if (opts.check_events)
		ret = check_events(&set, args, opts.callgraph > 0);
	else if (opts.extra_mask)
		ret = extra_mask(&set, args, opts.callgraph > 0);
	else if (opts.unit_mask)
		printf("%u\n", find_event(&set, opts.unit_mask)->unit_mask->default_value);
	else if (args && args[0])
		ret = print_codes(&set, args);
	else if (opts.xml)
		ophelp_list_xml(stdout, &set, opts.callgraph > 0);
	else
		ophelp_list(stdout, &set, opts.callgraph > 0);
	op_events_free(&set);
	return ret;
}

/* --software: events/software, which every cpu type has. */
static int list_software(void)
{
	struct op_event_set set;
	char err[1024];

	if (op_events_load_software(&set, err, sizeof(err)))
		return op_error("%s", err);
	printf("oprofile-ng: software events (events/software), on every cpu type\n\n"
	       "ocount -e and opwatch --count take these names or perf's\n"
	       "(task-clock, context-switches or cs, ...); they count, not sample.\n\n");
	for (size_t i = 0; i < set.nr_events; i++) {
		op_fputs_escaped(stdout, set.events[i].name);
		printf(": (code %u)\n\t", set.events[i].code);
		op_fputs_escaped(stdout, set.events[i].desc);
		putchar('\n');
	}
	op_events_free(&set);
	return 0;
}

int main(int argc, char const **argv)
{
	poptContext ctx;
	enum op_cpu cpu;
	int ret = 0;

	op_set_progname(argv[0]);
	ctx = parse_options(argc, argv);
	if (opts.version) {
		op_print_version(stdout, "ophelp");
	} else if (opts.software) {
		ret = list_software();
	} else {
		cpu = pick_cpu(opts.cpu_type);
		if (opts.get_cpu_type)
			printf("%s\n", op_cpu_name(cpu));
		else
			ret = run(cpu, poptGetArgs(ctx));
	}
	free(opts.cpu_type);
	free(opts.unit_mask);
	poptFreeContext(ctx);
	return ret ? 1 : 0;
}
