/*
 * ocount: count events for a command, processes, threads, cpus or the
 * system (see ocount.h and doc/ocount.1). This file: the options, the
 * targets, the loop (until the command or the processes end, or Ctrl-C;
 * a row per interval with -i) and the text or CSV output.
 */
#include "config.h"

#include <errno.h>
#include <popt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "op_file.h"
#include "op_child.h"
#include "op_escape.h"
#include "op_message.h"
#include "op_util.h"
#include "op_version.h"
#include "ocount.h"

#define DEFAULT_EVENTS "task-clock,context-switches,cpu-migrations,page-faults"

static char *events_arg, *procs_arg, *threads_arg, *cpus_arg, *output_arg;
static char *interval_text;
static int system_wide_arg, sep_thread_arg, sep_cpu_arg, brief_arg;
static int interval_arg, list_arg, version_arg;
static long nr_intervals;	/* with -i MS:COUNT: stop after COUNT rows */

static struct poptOption const options[] = {
	{ "events", 'e', POPT_ARG_STRING, &events_arg, 0,
	  "events to count (default " DEFAULT_EVENTS ")", "NAME,..." },
	{ "process-list", 'p', POPT_ARG_STRING, &procs_arg, 0,
	  "count these running processes (their threads and new children)",
	  "PID,..." },
	{ "thread-list", 'r', POPT_ARG_STRING, &threads_arg, 0,
	  "count these threads", "TID,..." },
	{ "cpu-list", 'C', POPT_ARG_STRING, &cpus_arg, 0,
	  "count everything on these cpus (root)", "CPU,..." },
	{ "system-wide", 's', POPT_ARG_NONE, &system_wide_arg, 0,
	  "count everything on every cpu (root)", NULL },
	{ "separate-thread", 't', POPT_ARG_NONE, &sep_thread_arg, 0,
	  "a count per thread (--process-list, --thread-list)", NULL },
	{ "separate-cpu", 'c', POPT_ARG_NONE, &sep_cpu_arg, 0,
	  "a count per cpu", NULL },
	{ "time-interval", 'i', POPT_ARG_STRING, &interval_text, 0,
	  "also print the counts of every MS milliseconds, timestamped; with "
	  ":COUNT stop after COUNT intervals", "MS[:COUNT]" },
	{ "brief-format", 'b', POPT_ARG_NONE, &brief_arg, 0,
	  "CSV: [time_s,][tid|cpu,]event,count,percent_counted", NULL },
	{ "output-file", 'f', POPT_ARG_STRING, &output_arg, 0,
	  "write the counts to FILE", "FILE" },
	{ "list-events", 'l', POPT_ARG_NONE, &list_arg, 0,
	  "list the events", NULL },
	{ "version", 'v', POPT_ARG_NONE, &version_arg, 0,
	  "print the version and exit", NULL },
	POPT_AUTOHELP
	POPT_TABLEEND
};

#define usage_error(...) \
	op_usage_error("ocount --help lists the options", __VA_ARGS__)

enum target { T_COMMAND, T_PROCS, T_THREADS, T_CPUS };

struct ocount {
	enum target target;
	char **argv;			/* the command, or NULL */
	struct ocount_event ev[OCOUNT_MAX_EVENTS];
	struct ocount_counters c;
	pid_t *watch;			/* T_PROCS, T_THREADS: what ends the run */
	int nr_watch;
	struct op_child child;
	int status;			/* the command's wait status */
	FILE *out;
	uint64_t *last;			/* interval mode: [row * events + e] */
	uint64_t start_ns;
	long rows_left;			/* -i MS:COUNT: intervals still to print */
};

/* "1,2,3" into ints (pids, tids, cpus); the count, or a usage error. */
static int int_list(char const *opt, char const *text, int **out)
{
	size_t n = 0, cap = 0;
	char const *p = text;
	char *end;

	*out = NULL;
	do {
		long v = strtol(p, &end, 10);

		if (end == p || v < 0 || (*end && *end != ','))
			usage_error("%s: '%s' is not a comma list of numbers", opt,
				    text);
		OP_ALLOC_GROW(*out, n + 1, cap);
		(*out)[n++] = (int)v;
		p = end + 1;
	} while (*end);
	return (int)n;
}

/* The online cpus, 0..N-1 as sysconf counts them. */
static int all_cpus(int **out)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	*out = op_xcalloc((size_t)n, sizeof(**out));
	for (long i = 0; i < n; i++)
		(*out)[i] = (int)i;
	return (int)n;
}

static void add_threads(struct ocount *o, pid_t pid)
{
	pid_t *t;
	int n = op_pid_threads(pid, &t);

	if (n < 0)
		exit(1);
	o->c.tasks = op_xrealloc(o->c.tasks, (size_t)(o->c.nr_tasks + n) *
				 sizeof(*o->c.tasks));
	memcpy(o->c.tasks + o->c.nr_tasks, t, (size_t)n * sizeof(*t));
	o->c.nr_tasks += n;
	free(t);
}

static void setup_targets(struct ocount *o)
{
	int *list, n;

	o->c.nr_cpus = 1;
	o->c.cpus = op_xcalloc(1, sizeof(int));
	o->c.cpus[0] = -1;
	if (system_wide_arg || cpus_arg) {
		o->target = T_CPUS;
		free(o->c.cpus);
		o->c.nr_cpus = cpus_arg ? int_list("--cpu-list", cpus_arg, &o->c.cpus)
					: all_cpus(&o->c.cpus);
		o->c.tasks = op_xcalloc(1, sizeof(pid_t));
		o->c.tasks[0] = -1;
		o->c.nr_tasks = 1;
		return;
	}
	if (sep_cpu_arg) {
		free(o->c.cpus);
		o->c.nr_cpus = all_cpus(&o->c.cpus);
	}
	if (procs_arg || threads_arg) {
		o->target = procs_arg ? T_PROCS : T_THREADS;
		n = int_list(procs_arg ? "--process-list" : "--thread-list",
			     procs_arg ? procs_arg : threads_arg, &list);
		o->watch = op_xcalloc((size_t)n, sizeof(pid_t));
		for (int i = 0; i < n; i++) {
			o->watch[i] = list[i];
			if (!op_pid_running(list[i]))
				op_die("%s: no process or thread %d",
				       procs_arg ? "--process-list" : "--thread-list",
				       list[i]);
			if (procs_arg) {
				add_threads(o, list[i]);
			} else {
				o->c.tasks = op_xrealloc(o->c.tasks,
					(size_t)(o->c.nr_tasks + 1) * sizeof(pid_t));
				o->c.tasks[o->c.nr_tasks++] = list[i];
			}
		}
		o->nr_watch = n;
		free(list);
		return;
	}
	o->target = T_COMMAND;
}

/*
 * -i MS[:COUNT], OProfile 1.x's form: MS a whole number of milliseconds
 * (0: no rows), COUNT a positive number of intervals after which the run
 * ends.
 */
static void parse_interval(char const *text)
{
	char const *colon = strchr(text, ':');
	char *end;
	long ms, count = 0;

	errno = 0;
	ms = strtol(text, &end, 10);
	if (end == text || end != (colon ? colon : text + strlen(text)) ||
	    ms < 0 || ms > 1000L * 3600 * 24 || errno)
		usage_error("--time-interval: '%s' is not MS[:COUNT] "
			    "(MS a number of milliseconds up to a day)", text);
	if (colon) {
		count = strtol(colon + 1, &end, 10);
		if (end == colon + 1 || *end || count <= 0 || errno)
			usage_error("--time-interval: '%s' is not MS[:COUNT] "
				    "(COUNT a positive number of intervals)", text);
		if (!ms)
			usage_error("--time-interval: '%s': COUNT needs an "
				    "interval of at least 1 ms", text);
	}
	interval_arg = (int)ms;
	nr_intervals = count;
}

static void parse(struct ocount *o, int argc, char const **argv)
{
	poptContext ctx = op_child_options("ocount", argc, argv, options, NULL,
					   NULL);
	char const **rest;
	char err[512];
	int modes;

	if (version_arg) {
		op_print_version(stdout, "ocount");
		exit(0);
	}
	if (list_arg) {
		ocount_events_list();
		exit(0);
	}
	rest = poptGetArgs(ctx);
	modes = !!procs_arg + !!threads_arg + !!(system_wide_arg || cpus_arg);
	if (modes > 1)
		usage_error("give one of --process-list, --thread-list, --cpu-list or --system-wide");
	if (!rest && !modes)
		usage_error("give a command, --process-list, --thread-list, --cpu-list or --system-wide");
	if (rest && (procs_arg || threads_arg))
		usage_error("a command cannot be given with --process-list or --thread-list");
	if (sep_thread_arg && !procs_arg && !threads_arg)
		usage_error("--separate-thread needs --process-list or --thread-list "
			    "(a command's threads are counted together)");
	if (sep_thread_arg && sep_cpu_arg)
		usage_error("--separate-thread and --separate-cpu exclude each other");
	if (interval_text)
		parse_interval(interval_text);
	o->c.nr_events = ocount_events_parse(events_arg ? events_arg : DEFAULT_EVENTS,
					     o->ev, OCOUNT_MAX_EVENTS, err,
					     sizeof(err));
	if (o->c.nr_events < 0)
		usage_error("%s", err);
	o->c.ev = o->ev;
	o->argv = op_child_argv(rest);
	setup_targets(o);
	o->out = stdout;
	if (output_arg && !(o->out = op_fopen_output(output_arg)))
		op_die("cannot write '%s': %s", output_arg, op_file_strerror(errno));
	poptFreeContext(ctx);
}

/* Rows: one, one per task (--separate-thread) or one per cpu. */
static int nr_rows(struct ocount const *o)
{
	if (sep_thread_arg)
		return o->c.nr_tasks;
	if (sep_cpu_arg)
		return o->c.nr_cpus;
	return 1;
}

/* Event e summed over row's counters, scaled; *pct: % of time counted. */
static uint64_t row_value(struct ocount const *o, int row, int e, double *pct,
			  bool *scaled)
{
	uint64_t sum = 0, enabled = 0, running = 0;

	*scaled = false;
	for (int t = 0; t < o->c.nr_tasks; t++) {
		if (sep_thread_arg && t != row)
			continue;
		for (int cpu = 0; cpu < o->c.nr_cpus; cpu++) {
			struct ocount_value v;
			bool s;

			if (sep_cpu_arg && cpu != row)
				continue;
			ocount_read(&o->c, t, cpu, e, &v);
			sum += ocount_scaled(&v, &s);
			*scaled |= s;
			enabled += v.enabled;
			running += v.running;
		}
	}
	*pct = enabled ? 100.0 * (double)running / (double)enabled : 100.0;
	return sum;
}

/* "tid N" / "cpu N" of a row, for text; the number alone for CSV. */
static void row_label(struct ocount const *o, int row, bool csv, char *buf,
		      size_t size)
{
	if (sep_thread_arg)
		snprintf(buf, size, csv ? "%d," : "tid %-8d ", (int)o->c.tasks[row]);
	else if (sep_cpu_arg)
		snprintf(buf, size, csv ? "%d," : "cpu %-4d ", o->c.cpus[row]);
	else
		buf[0] = '\0';
}

static void print_row(struct ocount *o, double t, int row, int e,
		      uint64_t value, double pct, bool scaled)
{
	char label[32];
	char *name = op_escape(o->ev[e].name);

	row_label(o, row, brief_arg, label, sizeof(label));
	if (brief_arg) {
		if (t >= 0)
			fprintf(o->out, "%.3f,", t);
		fprintf(o->out, "%s%s,%llu,%.2f\n", label, name,
			(unsigned long long)value, pct);
	} else {
		if (t >= 0)
			fprintf(o->out, "%10.3f  ", t);
		fprintf(o->out, "%s%-22s %20llu  %6.2f%s\n", label, name,
			(unsigned long long)value, pct,
			scaled ? "  (scaled: multiplexed)" : "");
	}
	free(name);
}

/* Interval rows: each counter's change since the last. */
static void print_interval(struct ocount *o, double t)
{
	int rows = nr_rows(o);

	for (int r = 0; r < rows; r++)
		for (int e = 0; e < o->c.nr_events; e++) {
			double pct;
			bool scaled;
			uint64_t v = row_value(o, r, e, &pct, &scaled);
			uint64_t *last = &o->last[r * o->c.nr_events + e];

			print_row(o, t, r, e, v - *last, pct, scaled);
			*last = v;
		}
	fflush(o->out);
}

static void print_header(struct ocount *o)
{
	if (brief_arg) {
		fprintf(o->out, "# %s%sevent,count,percent_counted\n",
			interval_arg ? "time_s," : "",
			sep_thread_arg ? "tid," : sep_cpu_arg ? "cpu," : "");
		return;
	}
	if (interval_arg)
		fprintf(o->out, "Counts every %d ms (time in s since the start):\n",
			interval_arg);
}

static void print_totals(struct ocount *o, double elapsed)
{
	int rows = nr_rows(o);

	if (!brief_arg) {
		fprintf(o->out, "%sEvents were counted for %.3f s", interval_arg ?
			"\n" : "", elapsed);
		if (o->argv) {
			fputs(" while '", o->out);
			op_fputs_escaped(o->out, o->argv[0]);
			fputs("' ran", o->out);
		}
		fprintf(o->out, ".\n%s%-22s %20s  %6s\n", sep_thread_arg ?
			"tid          " : sep_cpu_arg ? "cpu      " : "",
			"Event", "Count", "% time counted");
	} else if (interval_arg) {
		return;	/* the rows sum to the totals */
	}
	for (int r = 0; r < rows; r++)
		for (int e = 0; e < o->c.nr_events; e++) {
			double pct;
			bool scaled;
			uint64_t v = row_value(o, r, e, &pct, &scaled);

			print_row(o, -1, r, e, v, pct, scaled);
		}
}

/* Whether the run goes on; reaps the command when it exits. */
static bool running(struct ocount *o)
{
	if (op_child_stop)
		return false;
	if (o->child.pid) {
		pid_t got = waitpid(o->child.pid, &o->status, WNOHANG);

		if (got == o->child.pid)
			o->child.pid = 0;
		return got == 0;
	}
	if (o->target == T_COMMAND)
		return false;
	for (int i = 0; i < o->nr_watch; i++)
		if (op_pid_running(o->watch[i]))
			return true;
	return o->target == T_CPUS;
}

static int start(struct ocount *o)
{
	bool on_exec = o->target == T_COMMAND;

	if (o->argv && op_child_fork(&o->child, o->argv) < 0)
		return -1;
	if (on_exec) {
		o->c.tasks = op_xcalloc(1, sizeof(pid_t));
		o->c.tasks[0] = o->child.pid;
		o->c.nr_tasks = 1;
	}
	if (ocount_open(&o->c, o->target != T_THREADS, on_exec) < 0)
		return -1;
	if (!on_exec && ocount_enable(&o->c) < 0)
		return -1;
	o->start_ns = op_monotonic_ns();
	if (o->argv && op_child_start(&o->child, o->argv[0]) < 0)
		return -1;
	return 0;
}

static void loop(struct ocount *o)
{
	uint64_t step = (uint64_t)interval_arg * 1000000ull;
	uint64_t next = o->start_ns + step;

	while (running(o)) {
		uint64_t now = op_monotonic_ns();
		uint64_t wait = 100000000ull;

		if (step && next > now && next - now < wait)
			wait = next - now;
		if (step && now >= next) {
			print_interval(o, (double)(next - o->start_ns) / 1e9);
			next += step;
			if (nr_intervals && --o->rows_left == 0)
				return;
			continue;
		}
		struct timespec ts = { (time_t)(wait / 1000000000ull),
				       (long)(wait % 1000000000ull) };
		nanosleep(&ts, NULL);
	}
}

int main(int argc, char const **argv)
{
	struct ocount o;
	double elapsed;
	int ret = 0;

	memset(&o, 0, sizeof(o));
	o.child.go_fd = o.child.err_fd = -1;
	op_set_progname("ocount");
	parse(&o, argc, argv);
	op_child_catch_stop(o.argv != NULL);
	if (start(&o) < 0) {
		op_child_kill(&o.child);
		return o.argv ? 127 : 1;
	}
	o.last = op_xcalloc((size_t)(nr_rows(&o) * o.c.nr_events), sizeof(uint64_t));
	print_header(&o);
	o.rows_left = nr_intervals;
	loop(&o);
	ocount_disable(&o.c);
	elapsed = (double)(op_monotonic_ns() - o.start_ns) / 1e9;
	/* after COUNT intervals the rows already cover the whole run */
	if (interval_arg && !(nr_intervals && !o.rows_left))
		print_interval(&o, elapsed);
	else if (interval_arg && !brief_arg)
		fprintf(o.out, "\nStopped after %ld intervals%s.\n", nr_intervals,
			o.argv ? ": the command was killed" : "");
	print_totals(&o, elapsed);
	if (o.out != stdout && fclose(o.out))
		ret = op_error_errno("cannot write '%s'", output_arg);
	op_child_kill(&o.child);
	ocount_close(&o.c);
	free(o.last);
	free(o.c.tasks);
	free(o.c.cpus);
	if (!ret && o.argv)
		ret = op_child_exit_status(o.status);
	else if (ret)
		ret = 1;
	op_child_argv_free(o.argv);
	return ret;
}
