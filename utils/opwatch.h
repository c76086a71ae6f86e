/*
 * opwatch: routine timing. A probe's entry and return (a uprobe and a
 * uretprobe through perf_event_open's uprobe PMU, or a syscall's enter
 * and exit tracepoints) are sampled with one clock (CLOCK_MONOTONIC) on
 * every cpu, merged in time order, and paired per thread with a stack, so
 * recursion nests and a call that returns on another cpu is timed right.
 * The events watch every process (a command's or --pid's tree is kept
 * from the FORK records and filters the samples): an inherited uprobe
 * event makes the traced process's fork fail.
 *
 * --count EVENT,... (opwatch_count.c) watches per thread instead: each
 * thread of the command or --pid gets its own probe events, in a group
 * led by its own counting events (pid = the thread, any cpu: counts
 * virtualised to the thread), so every probe sample carries the thread's
 * counts at that instant (PERF_SAMPLE_READ of the group); the per-cpu
 * events then only bring the FORK records that say which threads and
 * children to attach next. Nothing is inherited, so forks work.
 *
 * opwatch_elf.c finds a function's file offset; opwatch_probe.c parses
 * probes and opens their events; opwatch_stats.c pairs and reports;
 * opwatch.c is the options and the loop.
 */
#ifndef OPWATCH_H
#define OPWATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "op_hashmap.h"

/* A function's file offset in an ELF binary. 0, or -1 with err naming
 * the binary or the function. */
int opwatch_elf_func(char const *path, char const *func, uint64_t *offset,
		     char *err, size_t errlen);

enum opwatch_kind { OPWATCH_USER, OPWATCH_SYSCALL, OPWATCH_KERNEL };

/*
 * A probe's two events: the entry and the return of one routine, or for a
 * pair (--pair FROM,TO) the entry of FROM and the entry or return of TO,
 * each with the register (an argument, or the return value) whose value
 * keys an item from the one to the other.
 */
struct opwatch_probe {
	char *spec;		/* as given: BINARY:FUNCTION, syscall:NAME */
	enum opwatch_kind kind;
	char *path[2];		/* the binaries, absolute; kernel: the function */
	uint64_t offset[2];	/* the functions' file offsets */
	uint32_t type;		/* perf type: the uprobe PMU, tracepoint */
	uint64_t config[2];	/* entry (FROM), return (TO) */
	bool pair;
	int reg[2];		/* pair: perf x86 register of the key */
};

/* Parse spec into p (resolving the binary and function). 0, or -1 with
 * err naming what is wrong (and nothing left for p to free). */
int opwatch_probe_parse(char const *spec, struct opwatch_probe *p,
			char *err, size_t errlen);
void opwatch_probe_free(struct opwatch_probe *p);

/* A pair "BINARY:FUNCTION:argN,BINARY:FUNCTION:argN|ret" (N 1..6). 0, or
 * -1 with err (and nothing left for p to free). */
int opwatch_pair_parse(char const *spec, struct opwatch_probe *p,
		       char *err, size_t errlen);

/* The events of every probe on tasks x cpus, sharing one ring per cpu. */
struct opwatch_events {
	struct opwatch_probe *probes;
	int nr_probes;
	pid_t *tasks;		/* -1: every task */
	int nr_tasks;
	int *cpus;
	int nr_cpus;
	int *fds;		/* [(task * nr_cpus + cpu) * 2 * nr_probes + ev] */
	struct perf_ring *rings;	/* one per cpu */
	struct { uint64_t id; int ev; } *ids;	/* ev: probe * 2 + return */
	size_t nr_ids;
	bool side_band_only;	/* --count: per cpu only a dummy event for
				 * FORK/LOST; the probes are per thread */
};

/* The perf attributes of probe p's entry (ret 0) or return (ret 1):
 * a sample per hit (tid, time, cpu; a pair's key register), CLOCK_MONOTONIC
 * times; side_band: also FORK/EXIT records. */
struct perf_event_attr;
void opwatch_probe_attr(struct opwatch_probe const *p, int ret, bool side_band,
			bool inherit, bool on_exec, struct perf_event_attr *a);
/* Data pages of each ring. */
#define OPWATCH_RING_PAGES 64

/* Open (disabled) and map. inherit: follow new threads and children;
 * on_exec: start at the tasks' next exec. 0, or -1 said. */
int opwatch_events_open(struct opwatch_events *e, bool inherit, bool on_exec);
int opwatch_events_enable(struct opwatch_events *e);
void opwatch_events_disable(struct opwatch_events *e);
/* The probe event (probe * 2 + is_return) of a sample id, or -1. */
int opwatch_events_find(struct opwatch_events const *e, uint64_t id);
void opwatch_events_close(struct opwatch_events *e);

/* --count: events counted per thread between entry and return. */
#define OPWATCH_MAX_COUNT 4

struct perf_ring;

/* One watched thread's groups (one per probe) and their ring. */
struct opwatch_task {
	pid_t tid;
	int *fds;		/* [probe * (nr_count + 2) + i]: the counters,
				 * then entry, then return */
	size_t nfds;
	struct perf_ring *ring;	/* NULL until mapped */
};

struct opwatch_counting {
	int nr;				/* events counted */
	uint32_t type[OPWATCH_MAX_COUNT];	/* perf type and config */
	uint64_t config[OPWATCH_MAX_COUNT];
	struct opwatch_task *v;		/* every thread attached */
	size_t n, alloc;
	struct { uint64_t id; int ev; } *ids;	/* ev: probe * 2 + return */
	size_t nr_ids, ids_alloc;
};

/*
 * Attach thread tid (of a watched process): open its groups for every
 * probe of e and map their ring (index: the queue's src). A thread that
 * is already gone is not an error (0). 0, or -1 said.
 */
int opwatch_count_attach(struct opwatch_counting *c,
			 struct opwatch_events const *e, pid_t tid,
			 uint32_t index);
/* The probe event (probe * 2 + is_return) of a sample id, or -1. */
int opwatch_count_find(struct opwatch_counting const *c, uint64_t id);
int opwatch_count_attached(struct opwatch_counting const *c, pid_t tid);
void opwatch_count_close(struct opwatch_counting *c);

enum opwatch_by { OPWATCH_BY_NONE, OPWATCH_BY_NAME, OPWATCH_BY_PID,
		  OPWATCH_BY_TID };

/* Durations of one probe and group, in ns. */
struct opwatch_group {
	struct op_hashmap_entry node;
	int probe;
	char key[64];		/* "", a process name, "pid N", "tid N" + role */
	uint64_t *ns;
	size_t n, alloc;
	uint64_t *counts[OPWATCH_MAX_COUNT];	/* --count: per call, n each */
};

struct opwatch_stats {
	int nr_probes;
	enum opwatch_by by;
	struct op_hashmap threads;	/* tid -> open calls */
	struct op_hashmap groups;
	struct op_hashmap items;	/* pairs: (probe, key) -> open items */
	uint64_t unmatched_returns;	/* a return with no entry seen */
	uint64_t open_calls;		/* entries never returned (at the end) */
	uint64_t lost;			/* records the kernel dropped */
	int nr_counts;			/* --count: events per call */
	char const *count_name[OPWATCH_MAX_COUNT];
	char const *count_unit[OPWATCH_MAX_COUNT];	/* "ns" or NULL */
};

void opwatch_stats_init(struct opwatch_stats *s, int nr_probes,
			enum opwatch_by by);
/* A probe event of thread (pid, tid) at time ns. */
void opwatch_stats_event(struct opwatch_stats *s, int probe, bool is_return,
			 uint32_t pid, uint32_t tid, uint64_t time);
/* The same with the thread's counts at that instant (s->nr_counts of
 * them; their differences from entry to return are reported). */
void opwatch_stats_event_counts(struct opwatch_stats *s, int probe,
				bool is_return, uint32_t pid, uint32_t tid,
				uint64_t time, uint64_t const *counts);
/* A FORK record: the child inherits the parent's open calls (a fork-like
 * routine returns in both). */
void opwatch_stats_fork(struct opwatch_stats *s, uint32_t ptid,
			uint32_t pid, uint32_t tid);
/* A pair's event: FROM (is_to false) opens an item keyed by value, TO
 * closes the oldest open item with that value. */
void opwatch_stats_pair(struct opwatch_stats *s, int probe, bool is_to,
			uint64_t value, uint32_t pid, uint32_t tid,
			uint64_t time);
void opwatch_stats_finish(struct opwatch_stats *s);
void opwatch_stats_free(struct opwatch_stats *s);

enum opwatch_format { OPWATCH_TEXT, OPWATCH_CSV, OPWATCH_JSON };

void opwatch_report(FILE *out, struct opwatch_stats *s,
		    struct opwatch_probe const *probes,
		    enum opwatch_format fmt);

#endif /* OPWATCH_H */
