/*
 * opwatch: time routines between their entry and their return (see
 * opwatch.h and doc/opwatch.1). This file: the options, the targets, the
 * loop that merges every cpu's ring by time into the pairing, and the
 * exit status (the command's).
 */
#include "config.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <popt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "op_file.h"
#include "op_child.h"
#include "op_message.h"
#include "op_util.h"
#include "ocount.h"
#include "opwatch.h"
#include "perf_ring.h"
#include "perf_queue.h"

#define MAX_PROBES 16
#define SLACK_NS 20000000ull	/* records older than this are all in */

static char *pids_arg, *by_arg, *format_arg, *output_arg, *count_arg;
static int all_arg;
static double duration_arg;

static struct poptOption const options[] = {
	{ "probe", 'P', POPT_ARG_STRING, NULL, 'P',
	  "a routine to time (repeatable)",
	  "BINARY:FUNCTION|syscall:NAME|kernel:FUNCTION" },
	{ "pair", 'Q', POPT_ARG_STRING, NULL, 'Q',
	  "time an item from one routine to another, keyed by an argument "
	  "(or TO's return value); repeatable",
	  "BINARY:FUNC:argN,BINARY:FUNC:argN|ret" },
	{ "pid", 'p', POPT_ARG_STRING, &pids_arg, 0,
	  "watch these running processes (and their new threads and children)",
	  "PID,..." },
	{ "all", 'a', POPT_ARG_NONE, &all_arg, 0,
	  "watch every process", NULL },
	{ "duration", 'd', POPT_ARG_DOUBLE, &duration_arg, 0,
	  "stop after SECONDS (default: when the command or processes end, "
	  "or Ctrl-C)", "SECONDS" },
	{ "count", 'c', POPT_ARG_STRING, &count_arg, 0,
	  "per call, what EVENTs the calling thread counted from entry to "
	  "return (task-clock, context-switches, page-faults, ...; cycles, "
	  "instructions where a PMU exists); needs a command or --pid",
	  "EVENT,..." },
	{ "by", 'b', POPT_ARG_STRING, &by_arg, 0,
	  "split the statistics by process name, pid or thread", "name|pid|tid" },
	{ "format", 'f', POPT_ARG_STRING, &format_arg, 0,
	  "output format (default text)", "text|csv|json" },
	{ "output", 'o', POPT_ARG_STRING, &output_arg, 0,
	  "write the report to FILE", "FILE" },
	POPT_AUTOHELP
	POPT_TABLEEND
};

#define usage_error(...) \
	op_usage_error("opwatch --help lists the options", __VA_ARGS__)

struct opwatch {
	struct opwatch_probe probes[MAX_PROBES];
	int nr_probes;
	char **argv;
	pid_t *watch;
	int nr_watch;
	struct opwatch_events ev;
	struct opwatch_stats stats;
	struct perf_queue q;
	struct op_child child;
	int status;
	/* the processes watched (the command or --pid and their children,
	 * as FORK records tell); none: every process */
	pid_t *tree;
	size_t nr_tree, tree_alloc;
	enum opwatch_by by;
	enum opwatch_format fmt;
	/* --count: per-thread groups (opwatch_count.c) */
	struct ocount_event count_ev[OPWATCH_MAX_COUNT];
	struct opwatch_counting cnt;
};

static void add_probe(struct opwatch *w, char const *spec)
{
	char err[1024];

	if (w->nr_probes == MAX_PROBES)
		usage_error("more than %d probes", MAX_PROBES);
	if (opwatch_probe_parse(spec, &w->probes[w->nr_probes], err,
				sizeof(err)) < 0)
		op_die("%s", err);
	w->nr_probes++;
}

static void add_pair(struct opwatch *w, char const *spec)
{
	char err[1024];

	if (w->nr_probes == MAX_PROBES)
		usage_error("more than %d probes", MAX_PROBES);
	if (opwatch_pair_parse(spec, &w->probes[w->nr_probes], err,
			       sizeof(err)) < 0)
		op_die("%s", err);
	w->nr_probes++;
}

static void parse_enums(struct opwatch *w)
{
	static char const *const bys[] = { "", "name", "pid", "tid" };
	static char const *const fmts[] = { "text", "csv", "json" };

	w->by = OPWATCH_BY_NONE;
	for (int i = 1; by_arg && i < 4; i++)
		if (!strcmp(by_arg, bys[i]))
			w->by = (enum opwatch_by)i;
	if (by_arg && w->by == OPWATCH_BY_NONE)
		usage_error("--by '%s': use name, pid or tid", by_arg);
	w->fmt = OPWATCH_TEXT;
	for (int i = 0; format_arg && i < 3; i++)
		if (!strcmp(format_arg, fmts[i]))
			w->fmt = (enum opwatch_format)i;
	if (format_arg && strcmp(format_arg, fmts[w->fmt]))
		usage_error("--format '%s': use text, csv or json", format_arg);
}

static bool in_tree(struct opwatch const *w, uint32_t pid)
{
	for (size_t i = 0; i < w->nr_tree; i++)
		if ((uint32_t)w->tree[i] == pid)
			return true;
	return false;
}

static void tree_add(struct opwatch *w, pid_t pid)
{
	OP_ALLOC_GROW(w->tree, w->nr_tree + 1, w->tree_alloc);
	w->tree[w->nr_tree++] = pid;
}

static void add_task(struct opwatch *w, pid_t t)
{
	w->ev.tasks = op_xrealloc(w->ev.tasks, (size_t)(w->ev.nr_tasks + 1) *
				  sizeof(pid_t));
	w->ev.tasks[w->ev.nr_tasks++] = t;
}

static void parse_pids(struct opwatch *w)
{
	char *list = op_xstrdup(pids_arg), *save = NULL, *tok, *end;

	for (tok = strtok_r(list, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		long pid = strtol(tok, &end, 10);
		if (end == tok || *end || pid <= 0)
			usage_error("--pid: '%s' is not a process id", tok);
		if (!op_pid_running((pid_t)pid))
			op_die("--pid: no process %ld", pid);
		tree_add(w, (pid_t)pid);
		w->watch = op_xrealloc(w->watch, (size_t)(w->nr_watch + 1) *
				       sizeof(pid_t));
		w->watch[w->nr_watch++] = (pid_t)pid;
	}
	free(list);
}

/* --count EVENT,...: ocount's event names. */
static void parse_count(struct opwatch *w)
{
	char err[512];
	int n;

	if (all_arg)
		usage_error("--count watches each thread of a command or --pid, "
			    "not --all");
	for (int i = 0; i < w->nr_probes; i++)
		if (w->probes[i].pair)
			usage_error("--count counts per call: not with --pair");
	n = ocount_events_parse(count_arg, w->count_ev, OPWATCH_MAX_COUNT, err,
				sizeof(err));
	if (n < 0)
		usage_error("--count: %s", err);
	w->cnt.nr = n;
	for (int k = 0; k < n; k++) {
		/* ocount's NAME:um:kernel:user: opwatch counts both modes */
		if (w->count_ev[k].no_kernel || w->count_ev[k].no_user)
			usage_error("--count: '%s' counts one mode; opwatch "
				    "counts both (give the name alone)",
				    w->count_ev[k].name);
		w->cnt.type[k] = w->count_ev[k].type;
		w->cnt.config[k] = w->count_ev[k].config;
	}
}

/* --probe and --pair, in their order. */
static void take_probe(poptContext ctx, int val, void *arg)
{
	char *spec = poptGetOptArg(ctx);

	if (val == 'P')
		add_probe(arg, spec);
	else
		add_pair(arg, spec);
	free(spec);
}

static void parse(struct opwatch *w, int argc, char const **argv)
{
	poptContext ctx = op_child_options("opwatch", argc, argv, options,
					   take_probe, w);
	char const **rest;

	if (!w->nr_probes)
		usage_error("no --probe or --pair given");
	rest = poptGetArgs(ctx);
	if (!!rest + !!pids_arg + !!all_arg != 1)
		usage_error("give exactly one of a command, --pid or --all");
	if (duration_arg < 0)
		usage_error("--duration must not be negative");
	if (count_arg)
		parse_count(w);
	parse_enums(w);
	w->argv = op_child_argv(rest);
	if (!rest && pids_arg)
		parse_pids(w);
	add_task(w, -1);
	poptFreeContext(ctx);
}

/* The time of a record: a sample's own, else sample_id_all's trailer
 * (tid, time, cpu, identifier). */
static uint64_t record_time(void const *rec)
{
	struct perf_event_header h;
	uint64_t t;

	memcpy(&h, rec, sizeof(h));
	if (h.type == PERF_RECORD_SAMPLE)
		memcpy(&t, (char const *)rec + 24, sizeof(t));
	else if (h.size >= sizeof(h) + 32)
		memcpy(&t, (char const *)rec + h.size - 24, sizeof(t));
	else
		t = 0;
	return t;
}

/* --count: after the cpu, the group's read: nr, then a value per
 * member, the counters first. */
static void counted_sample(struct opwatch *w, unsigned char const *rec,
			   int ev, uint32_t pid, uint32_t tid, uint64_t time)
{
	struct perf_event_header h;
	uint64_t nr, counts[OPWATCH_MAX_COUNT];

	memcpy(&h, rec, sizeof(h));
	if (ev < 0 || h.size < 48)
		return;
	memcpy(&nr, rec + 40, sizeof(nr));
	if (nr < (uint64_t)w->cnt.nr || h.size < 48 + 8 * nr) {
		w->stats.lost++;	/* cannot happen: a malformed read */
		return;
	}
	for (int k = 0; k < w->cnt.nr; k++)
		memcpy(&counts[k], rec + 48 + 8 * k, sizeof(counts[k]));
	opwatch_stats_event_counts(&w->stats, ev / 2, ev % 2, pid, tid, time,
				   counts);
}

/* --count: watch thread tid too (a new thread or child of the tree). */
static void attach(struct opwatch *w, pid_t tid)
{
	uint32_t index = (uint32_t)w->ev.nr_cpus + (uint32_t)w->cnt.n;

	if (opwatch_count_attach(&w->cnt, &w->ev, tid, index) < 0)
		op_warn("thread %d is not watched", (int)tid);
}

static void handle_sample(struct opwatch *w, unsigned char const *rec)
{
	uint64_t id, time;
	uint32_t pid, tid;
	int ev;

	memcpy(&id, rec + 8, sizeof(id));
	memcpy(&pid, rec + 16, sizeof(pid));
	memcpy(&tid, rec + 20, sizeof(tid));
	memcpy(&time, rec + 24, sizeof(time));
	ev = opwatch_events_find(&w->ev, id);
	if (ev < 0 && w->cnt.nr) {
		counted_sample(w, rec, opwatch_count_find(&w->cnt, id), pid,
			       tid, time);
		return;
	}
	if (ev < 0 || (w->nr_tree && !in_tree(w, pid)))
		return;
	if (w->probes[ev / 2].pair) {
		uint64_t abi, value;

		/* after the cpu: the registers' ABI, then the one register */
		memcpy(&abi, rec + 40, sizeof(abi));
		memcpy(&value, rec + 48, sizeof(value));
		if (abi)
			opwatch_stats_pair(&w->stats, ev / 2, ev % 2, value, pid,
					   tid, time);
		return;
	}
	opwatch_stats_event(&w->stats, ev / 2, ev % 2, pid, tid, time);
}

static void handle_record(struct opwatch *w, unsigned char const *rec)
{
	struct perf_event_header h;
	uint32_t f[4];
	uint64_t lost;

	memcpy(&h, rec, sizeof(h));
	switch (h.type) {
	case PERF_RECORD_SAMPLE:
		handle_sample(w, rec);
		break;
	case PERF_RECORD_FORK:
		memcpy(f, rec + 8, sizeof(f));	/* pid, ppid, tid, ptid */
		if (f[0] == f[1]) {	/* a thread, not a new process */
			if (w->cnt.nr && in_tree(w, f[0]))
				attach(w, (pid_t)f[2]);
			break;
		}
		if (w->nr_tree && in_tree(w, f[1]) && !in_tree(w, f[0])) {
			tree_add(w, (pid_t)f[0]);
			if (w->cnt.nr)
				attach(w, (pid_t)f[2]);
		}
		opwatch_stats_fork(&w->stats, f[3], f[0], f[2]);
		break;
	case PERF_RECORD_LOST:
		memcpy(&lost, rec + 16, sizeof(lost));
		w->stats.lost += lost;
		break;
	}
}

/* Drain every ring and apply the records older than until, in order. */
static void process(struct opwatch *w, uint64_t until)
{
	size_t n;

	for (int cpu = 0; cpu < w->ev.nr_cpus; cpu++)
		perf_ring_drain(&w->ev.rings[cpu], &w->q, record_time);
	for (size_t i = 0; i < w->cnt.n; i++)
		if (w->cnt.v[i].ring)
			perf_ring_drain(w->cnt.v[i].ring, &w->q, record_time);
	perf_queue_sort(&w->q);
	n = perf_queue_ready(&w->q, until);
	for (size_t i = 0; i < n; i++)
		handle_record(w, perf_queue_record(&w->q, i));
	perf_queue_consume(&w->q, n);
}

static bool running(struct opwatch *w, uint64_t end)
{
	if (op_child_stop || (end && op_monotonic_ns() >= end))
		return false;
	if (w->child.pid) {
		pid_t got = waitpid(w->child.pid, &w->status, WNOHANG);

		if (got == w->child.pid)
			w->child.pid = 0;
		return got == 0;
	}
	if (w->argv)
		return false;
	for (int i = 0; i < w->nr_watch; i++)
		if (op_pid_running(w->watch[i]))
			return true;
	return !w->nr_watch;
}

static void loop(struct opwatch *w)
{
	uint64_t end = duration_arg > 0 ?
		       op_monotonic_ns() + (uint64_t)(duration_arg * 1e9) : 0;
	struct pollfd *pfd = op_xcalloc((size_t)w->ev.nr_cpus, sizeof(*pfd));

	for (int cpu = 0; cpu < w->ev.nr_cpus; cpu++)
		pfd[cpu] = (struct pollfd){ .fd = w->ev.rings[cpu].fd,
					    .events = POLLIN };
	while (running(w, end)) {
		poll(pfd, (nfds_t)w->ev.nr_cpus, 50);
		process(w, op_monotonic_ns() - SLACK_NS);
	}
	opwatch_events_disable(&w->ev);
	process(w, UINT64_MAX);
	free(pfd);
}

/* --count: every thread of the command or the --pid processes. */
static int attach_targets(struct opwatch *w)
{
	for (size_t i = 0; i < w->nr_tree; i++) {
		pid_t *threads;
		int n = op_pid_threads(w->tree[i], &threads);

		if (n < 0)
			return -1;
		for (int t = 0; t < n; t++)
			if (opwatch_count_attach(&w->cnt, &w->ev, threads[t],
						 (uint32_t)w->ev.nr_cpus +
						 (uint32_t)w->cnt.n) < 0) {
				free(threads);
				return -1;
			}
		free(threads);
	}
	return 0;
}

static int start(struct opwatch *w)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	w->ev.probes = w->probes;
	w->ev.nr_probes = w->nr_probes;
	w->ev.nr_cpus = (int)n;
	w->ev.cpus = op_xcalloc((size_t)n, sizeof(int));
	for (long i = 0; i < n; i++)
		w->ev.cpus[i] = (int)i;
	if (w->argv) {
		if (op_child_fork(&w->child, w->argv) < 0)
			return -1;
		tree_add(w, w->child.pid);
	}
	/* every process, filtered by the tree: inherited uprobe events
	 * make fork fail (the kernel re-reads the probe's path from the
	 * forking process's memory) */
	w->ev.side_band_only = w->cnt.nr > 0;
	if (opwatch_events_open(&w->ev, false, false) < 0 ||
	    opwatch_events_enable(&w->ev) < 0)
		return -1;
	if (w->cnt.nr && attach_targets(w) < 0)
		return -1;
	if (w->argv && op_child_start(&w->child, w->argv[0]) < 0)
		return -1;
	return 0;
}

/* Everything opwatch allocated, at its end on every path. */
static void opwatch_free(struct opwatch *w)
{
	opwatch_count_close(&w->cnt);
	opwatch_events_close(&w->ev);
	opwatch_stats_free(&w->stats);
	perf_queue_free(&w->q);
	free(w->tree);
	for (int i = 0; i < w->nr_probes; i++)
		opwatch_probe_free(&w->probes[i]);
	for (char **a = w->argv; a && *a; a++)
		free(*a);
	free(w->argv);
	free(w->ev.cpus);
	free(w->ev.tasks);
	free(w->watch);
}

int main(int argc, char const **argv)
{
	struct opwatch w;
	FILE *out = stdout;
	int ret = 0;

	memset(&w, 0, sizeof(w));
	w.child.go_fd = w.child.err_fd = -1;
	op_set_progname("opwatch");
	parse(&w, argc, argv);
	if (output_arg && !(out = op_fopen_output(output_arg)))
		op_die("cannot write '%s': %s", output_arg, op_file_strerror(errno));
	op_child_catch_stop(w.argv != NULL);
	perf_queue_init(&w.q);
	opwatch_stats_init(&w.stats, w.nr_probes, w.by);
	w.stats.nr_counts = w.cnt.nr;
	for (int k = 0; k < w.cnt.nr; k++) {
		w.stats.count_name[k] = w.count_ev[k].name;
		w.stats.count_unit[k] = w.count_ev[k].unit;
	}
	if (start(&w) < 0) {
		ret = w.argv ? 127 : 1;
		op_child_kill(&w.child);
		if (out != stdout)
			fclose(out);
		opwatch_free(&w);
		return ret;
	}
	loop(&w);
	opwatch_stats_finish(&w.stats);
	opwatch_report(out, &w.stats, w.probes, w.fmt);
	if (out != stdout && fclose(out))
		ret = op_error_errno("cannot write '%s'", output_arg);
	op_child_kill(&w.child);
	if (!ret)
		ret = w.argv ? op_child_exit_status(w.status) : 0;
	else
		ret = 1;
	opwatch_free(&w);
	return ret;
}
