/*
 * What opd_perf.c (setup, the read loop) and opd_perf_records.c (turning
 * records into stream words) share. Not for other users.
 */
#ifndef OPD_PERF_INT_H
#define OPD_PERF_INT_H

#include <poll.h>

#include "opd_cookie.h"
#include "perf_ring.h"
#include "opd_perf.h"
#include "opd_maps.h"
#include "perf_queue.h"
#include "opd_emit.h"
#include "opd_unwind.h"
#include "opd_words.h"
#include "opd_offcpu.h"
#include "opd_offcpu_bpf.h"

/* The user registers a sample carries for unwinding, in this order in
 * the record: rbp, rsp, rip (PERF_SAMPLE_REGS_USER, bit order). */
#define PS_REGS_USER ((1ull << 6) | (1ull << 7) | (1ull << 8))
#define PS_NR_REGS_USER 3

/* A kernel event id (PERF_EVENT_IOC_ID) and the stream event index. */
struct ps_id {
	uint64_t id;
	unsigned long event;
};

struct perf_source {
	struct perf_source_event *events;	/* copy of the config's */
	unsigned nr_events;
	unsigned depth;			/* callgraph depth, 0: none */
	unsigned max_stack;		/* sample_max_stack (depth + 1, capped) */
	unsigned stack_size;		/* user stack bytes per sample; 0: FP */
	struct unwind_cache *unw;	/* with stack_size: CFI per binary */
	uint64_t *pcs;			/* depth + 1 unwound pcs */
	bool time_unwind;		/* $OPROFILE_UNWIND_STATS: measure */
	uint64_t unwind_ns, unwind_samples, unwind_frames;
	unsigned ring_pages;
	uint64_t slack_ns;
	int *cpus;			/* online cpus */
	unsigned nr_cpus;
	pid_t *tasks;			/* per-task mode: the threads, else NULL */
	unsigned nr_targets;		/* tasks per cpu: nr_tasks, or 1 (-1: all) */
	bool enable_on_exec;
	int *fds;			/* fds[(cpu_idx * nr_targets + task_idx)
					 *     * nr_events + event] */
	struct perf_ring *rings;	/* one per cpu */
	struct pollfd *pfd;		/* one per ring */
	struct ps_id *ids;		/* sorted by id */
	size_t nr_ids;
	size_t last_id;			/* index of the last id found */
	struct perf_queue q;
	size_t *group;			/* queue indexes grouped by ring */
	size_t group_cap;
	size_t *group_start;		/* nr_cpus + 1 bucket starts */
	struct proc_table procs;
	struct cookie_table cookies;
	struct word_buffer out;
	struct stream_emit em;
	uint64_t lost[OP_LOST_CATEGORY_MAX];	/* not yet written */
	uint64_t count[OP_COUNT_MAX];		/* not yet written */
	struct pm_reread reread;	/* limits on /proc/PID/maps re-reads */
	uint64_t now;			/* CLOCK_MONOTONIC at this round's drain */
	uint64_t forget_ns;		/* unmapped this long: forgotten */
	uint64_t last_sweep;		/* now of the last cookie sweep */
	struct opd_perf_stats stats;
	bool enabled;
	bool no_build_id;		/* the kernel refused attr.build_id */
	struct opd_offcpu offcpu;	/* OFF_CPU samples off the cpu */
	uint64_t offcpu_carry_ns;	/* below a microsecond, not yet written */
	/* OFF_CPU by eBPF: the loaded program, its event's index and id,
	 * the lost records already counted */
	struct ocb_loader *ocb;
	unsigned ocb_event;
	uint64_t ocb_id;
	uint64_t ocb_lost;
};

/* The record-handling state of ps (queue, processes, cookies, stream
 * words, off-CPU waits), made empty; and freed. Tests that feed records
 * by hand use them as opd_perf_open does. */
void opd_perf_state_init(struct perf_source *ps);
void opd_perf_state_free(struct perf_source *ps);

/* The time of a record as copied out of a ring (sample_id_all layout). */
uint64_t opd_perf_record_time(void const *rec);
/* perf_ring's stack_of: a sample's user stack copy, to copy only the
 * bytes the kernel filled in */
bool opd_perf_stack_of(struct perf_ring const *r, uint64_t pos, size_t size,
		 struct perf_ring_stack *s);
/* Apply one record: update maps, write stream words, count. */
void opd_perf_handle_record(struct perf_source *ps, void const *rec);
/* Write every OFF_CPU sample still waiting, as off until now (the end
 * of sampling). */
void opd_perf_offcpu_end(struct perf_source *ps, uint64_t now);
/* Write and clear the pending lost counts and counters. */
void opd_perf_emit_counts(struct perf_source *ps);
/* Does q hold, after time, a record that makes pid another process or
 * image: its exec (COMM with the exec flag), its exit, or a fork that
 * creates it? Such a record is queued but not applied yet. */
bool opd_perf_image_changes(struct perf_queue const *q, uint32_t pid,
		      uint64_t time);

#endif /* OPD_PERF_INT_H */
