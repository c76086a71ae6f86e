/*
 * End-to-end test harness around the perf source: open it system-wide,
 * run workloads while pumping its stream into a decoder (and into a
 * stream file), stop, and leave everything in a tally to check.
 *
 * Tests exit 77 (automake's SKIP) only when they cannot sample at all:
 * not root, or perf_event_open refused; perf_run_start says why.
 */
#ifndef PERF_RUN_H
#define PERF_RUN_H

#include <stdbool.h>
#include <sys/resource.h>
#include <sys/types.h>

#include "opd_perf.h"
#include "opd_stream_file.h"
#include "tally.h"

#define SKIP 77

struct perf_run {
	struct perf_source *ps;
	struct tally tally;		/* live decode of the stream */
	struct stream_writer sw;	/* the same words, for replay */
	char file[64];			/* stream file path */
	double cpu_seconds;		/* CPU time of waited children */
	bool no_replay;			/* tally holds only part of the file */
};

/* The cpu-clock event every period_ns, kernel and user. */
struct perf_source_event perf_run_cpu_clock(unsigned long period_ns);
/* Open and enable the source: cpu-clock every period_ns, kernel and
 * user, callgraph depth. 0, SKIP, or 1 on a failure (reported). */
int perf_run_start(struct perf_run *r, unsigned long period_ns,
		   unsigned depth);
/* The same with the given events. */
int perf_run_start_events(struct perf_run *r,
			  struct perf_source_event const *ev, unsigned n,
			  unsigned depth);
/* The same with a whole source configuration (ring size, re-reads...). */
int perf_run_start_config(struct perf_run *r,
			  struct perf_source_config const *cfg);
/* Read one round (up to timeout_ms) and decode it. */
void perf_run_pump(struct perf_run *r, int timeout_ms);
/* Start argv[0] with argv (a path); its pid, or -1. */
pid_t perf_run_spawn(char *const argv[]);
/* Pump until every pid has exited; adds their CPU time to cpu_seconds.
 * 0, or -1 if a child failed. */
int perf_run_wait(struct perf_run *r, pid_t const *pids, int n);
/* Disable, flush, decode the rest, and (unless no_replay) check that
 * replaying the stream file in odd-sized chunks gives the same samples.
 * 0 or -1. */
int perf_run_stop(struct perf_run *r);
void perf_run_free(struct perf_run *r);

/* realpath() of path, in a static buffer per call site's array. */
char const *perf_run_realpath(char const *path, char *buf);
/* The workload name (see workload_path) at its real path in bin, a
 * PATH_MAX array, and the file offsets [*start, *end) of its function
 * func. 0, or -1 with a message. */
int perf_run_workload_func(char const *name, char const *func, char *bin,
			   unsigned long *start, unsigned long *end);

#endif /* PERF_RUN_H */
