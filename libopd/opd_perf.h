/*
 * The perf_events source: the producer of the op_stream.h event stream on
 * hosts where the oprofilefs module cannot be loaded. It opens one
 * sampling event per configured event per online cpu, system-wide, reads
 * their mmap rings, rebuilds every process's executable mappings from the
 * side-band records (and /proc at start), and turns each sample into
 * cookie/offset pairs with CPU/CTX/KERNEL/USER/COOKIE switches, just as
 * the kernel driver's buffer sync did.
 *
 * Records of all rings are merged by time (CLOCK_MONOTONIC, so callers can
 * compare record times with clock_gettime): each read round processes the
 * records older than "now - slack" and keeps the rest, so a process's exit
 * is applied only after every earlier sample on any cpu. Samples between
 * two side-band records see the same maps and are written grouped by cpu,
 * so the stream switches cpu once per group, not at every sample.
 *
 * Single-threaded: one caller drives open, enable, read, flush and close.
 *
 *	opd_perf_open(&ps, &cfg);
 *	opd_perf_enable(ps);
 *	loop: opd_perf_read(ps, 100);
 *	      wb = opd_perf_words(ps); consume wb->w[0..len); opd_words_reset(wb);
 *	opd_perf_disable(ps); opd_perf_flush(ps, UINT64_MAX);
 *	consume the last words; opd_perf_close(ps);
 */
#ifndef OPD_PERF_H
#define OPD_PERF_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "op_stream.h"

struct word_buffer;
struct perf_source;

/* One event to sample; the caller maps events/ names to these. */
struct perf_source_event {
	uint32_t type;		/* PERF_TYPE_SOFTWARE, PERF_TYPE_RAW, ... */
	uint64_t config;	/* PERF_COUNT_SW_CPU_CLOCK; raw: event | um << 8 */
	uint64_t period;	/* events between samples (ns for the clocks) */
	bool kernel;		/* sample in kernel mode */
	bool user;		/* sample in user mode */
	char const *name;	/* for messages; may be NULL */
	/* OFF_CPU (opd_offcpu.h): a tracepoint whose samples wait for their
	 * thread's switch-in and are weighted by the time off the cpu */
	bool off_cpu;
	char const *filter;	/* PERF_EVENT_IOC_SET_FILTER, or NULL */
	/* OFF_CPU's mechanism (opd_offcpu_bpf.h enum ocb_mode): OCB_PERF
	 * the tracepoint; OCB_AUTO eBPF where it loads, else the
	 * tracepoint; OCB_BPF eBPF or nothing */
	int offcpu_mode;
};

struct perf_source_config {
	struct perf_source_event const *events;	/* index = stream event */
	unsigned nr_events;
	unsigned callgraph_depth;	/* 0: no backtraces */
	/* With a callgraph: bytes of user stack copied with each sample,
	 * which the daemon unwinds with the binaries' CFI (0:
	 * PERF_SOURCE_STACK_SIZE); fp_only: none, the kernel's frame-pointer
	 * walk instead (oprofiled --stack-size=0). */
	unsigned stack_size;
	bool fp_only;
	unsigned ring_pages;	/* data pages per cpu, power of 2; 0: 128 */
	unsigned slack_ms;	/* ordering slack; 0: PERF_SOURCE_SLACK_MS */
	/* Re-reading /proc/PID/maps for a user pc the records leave
	 * unresolved (see opd_perf_records.c): at most once per process per
	 * reread_ms (0: PERF_SOURCE_REREAD_MS) and reread_max_per_s times
	 * a second in all (0: PERF_SOURCE_REREAD_MAX_PER_S); no_reread:
	 * never (tests compare with it). */
	unsigned reread_ms;
	unsigned reread_max_per_s;
	bool no_reread;
	/* A cookie (a binary or a region) that no process has mapped for
	 * forget_ms (0: PERF_SOURCE_FORGET_MS) is forgotten (ESC
	 * COOKIE_FORGET), its memory freed: see opd_cookie.h. */
	unsigned forget_ms;
	/* Whom to sample. nr_tasks 0: every process on every cpu (needs
	 * privileges). Else the threads tasks[0..nr_tasks) on every cpu,
	 * each followed into the threads and processes it creates after
	 * the open (perf inherit); a user may do that to their own
	 * processes. enable_on_exec: counting starts at the tasks' next
	 * exec, not at opd_perf_enable (operf CMD opens the events on
	 * its child before the child execs CMD). */
	pid_t const *tasks;
	unsigned nr_tasks;
	bool enable_on_exec;
};

#define PERF_SOURCE_RING_PAGES 128
/* with stack copies: more room per cpu (see doc/perf_source.md) */
#define PERF_SOURCE_STACK_RING_PAGES 2048
#define PERF_SOURCE_STACK_SIZE 16384
#define PERF_SOURCE_STACK_MAX 65528	/* the kernel's limit, 8-aligned */
#define PERF_SOURCE_SLACK_MS 10
#define PERF_SOURCE_REREAD_MS 100
#define PERF_SOURCE_REREAD_MAX_PER_S 200
#define PERF_SOURCE_FORGET_MS 10000	/* as the kernel driver's cookies */
#define PERF_SOURCE_SWEEP_MS 1000	/* how often unused cookies are looked for */

struct opd_perf_stats {
	uint64_t rounds;	/* read/flush rounds */
	uint64_t records;	/* records drained from the rings */
	uint64_t samples;	/* samples written to the stream */
	uint64_t kernel_samples;
	uint64_t user_samples;
	uint64_t mmaps;		/* MMAP and MMAP2 records */
	uint64_t comms;
	uint64_t execs;		/* COMM records flagged exec */
	uint64_t forks;		/* FORK records of new processes */
	uint64_t exits;		/* EXIT records of whole processes */
	uint64_t throttles;
	uint64_t unthrottles;
	uint64_t ignored;	/* record types we do not use */
	uint64_t bad;		/* malformed records or unknown sample ids */
	uint64_t seeded;	/* processes seeded from /proc */
	uint64_t max_pending;	/* most records queued at once */
	uint64_t cookies_forgotten;	/* unmapped cookies freed (ESC COOKIE_FORGET) */
	uint64_t cookies_held;	/* cookies held at the last sweep (a size) */
	uint64_t offcpu_out;	/* off-CPU samples (blocking switches) */
	uint64_t offcpu_in;	/* ... written at their switch-in */
	uint64_t offcpu_dropped;	/* ... that found no room to wait */
	uint64_t offcpu_open;	/* ... written at the end, still off */
	uint64_t lost[OP_LOST_CATEGORY_MAX];	/* as written to the stream */
	uint64_t count[OP_COUNT_MAX];	/* ESC COUNT: maps re-reads... */
};

/*
 * Open the events (disabled) and map the rings. On failure returns
 * -errno with the message already printed: -EACCES/-EPERM mean
 * perf_event_open was refused, -ENOENT/-EOPNOTSUPP an unsupported event.
 */
int opd_perf_open(struct perf_source **ps,
		     struct perf_source_config const *cfg);
/* Start counting, then seed the processes that already exist. */
int opd_perf_enable(struct perf_source *ps);
/* Stop counting; already-written records can still be flushed. */
int opd_perf_disable(struct perf_source *ps);
/* Wait up to timeout_ms for ring data, then drain every ring and
 * process the records older than now - slack. 0 or -errno. */
int opd_perf_read(struct perf_source *ps, int timeout_ms);
/* Drain every ring and process every record with time <= until
 * (UINT64_MAX: all of them, e.g. after disable). */
void opd_perf_flush(struct perf_source *ps, uint64_t until);
/* The stream written so far: the caller takes w[0..len) and resets it. */
struct word_buffer *opd_perf_words(struct perf_source *ps);
/* Start a new stream: re-define cookies, re-send the whole context. */
void opd_perf_new_stream(struct perf_source *ps);
struct opd_perf_stats const *opd_perf_stats(struct perf_source const *ps);
void opd_perf_close(struct perf_source *ps);

/* The clock of record times (CLOCK_MONOTONIC), in ns. */
uint64_t opd_perf_now(void);

#endif /* OPD_PERF_H */
