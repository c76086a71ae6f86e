/*
 * ocount: OProfile 1.x's event counter (the stopwatch). It counts events
 * with perf_event_open in counting mode - no samples - for a command (its
 * threads and children included), processes, threads, cpus or the whole
 * system, per thread or per cpu, once at the end or every interval.
 *
 * ocount_events.c names the events; ocount_count.c opens and reads the
 * counters; ocount.c is the options, the loop and the output.
 */
#ifndef OCOUNT_H
#define OCOUNT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#define OCOUNT_MAX_EVENTS 16

struct ocount_event {
	char const *name;	/* as the user knows it */
	uint32_t type;		/* PERF_TYPE_SOFTWARE, _HARDWARE */
	uint64_t config;
	char const *unit;	/* "ns" or NULL */
	bool no_kernel, no_user;	/* NAME:um:0:1, NAME:um:1:0 */
};

/*
 * Parse a comma list of events, each NAME[:UM[:KERNEL[:USER]]] as
 * OProfile 1.x's ocount takes them (UM 0 or empty: these events have
 * no unit masks; KERNEL, USER 0 or 1), into ev (at most max). A name the
 * table does not know, or a hardware event on a host without a PMU, is
 * an error naming it. The count, or -1 with err.
 */
int ocount_events_parse(char const *list, struct ocount_event *ev, int max,
			char *err, size_t errlen);

/* Load events/software (once; ocount_events_parse does it). 0, or -1
 * with err naming the file. */
int ocount_software_load(char *err, size_t errlen);

/* Print the event table (--list-events). */
void ocount_events_list(void);

/* Whether this host has a hardware PMU perf can count with. */
bool ocount_have_pmu(void);

/* One counter value, as read: the count and how long it was enabled and
 * actually counting (less when the kernel multiplexed the counters). */
struct ocount_value {
	uint64_t count, enabled, running;
};

/* The counters of one run: events x targets x cpus. */
struct ocount_counters {
	struct ocount_event const *ev;
	int nr_events;
	pid_t *tasks;		/* -1: every task (cpu-wide) */
	int nr_tasks;
	int *cpus;		/* -1: any cpu (follows the task) */
	int nr_cpus;
	int *fds;		/* [(task * nr_cpus + cpu) * nr_events + ev] */
};

/*
 * Open every counter, disabled. inherit follows new threads and children;
 * on_exec starts counting at the tasks' next exec (a command forked
 * stopped). 0, or -1 with a message naming the event and the target.
 */
int ocount_open(struct ocount_counters *c, bool inherit, bool on_exec);
int ocount_enable(struct ocount_counters *c);
void ocount_disable(struct ocount_counters *c);
/* Read counter (task, cpu, event) into v (zeros when it cannot). */
void ocount_read(struct ocount_counters const *c, int task, int cpu, int e,
		 struct ocount_value *v);
void ocount_close(struct ocount_counters *c);

/* The value scaled to the whole enabled time (multiplexing), and whether
 * it had to be. */
uint64_t ocount_scaled(struct ocount_value const *v, bool *scaled);

#endif /* OCOUNT_H */
