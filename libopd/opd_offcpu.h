/*
 * Off-CPU sampling in the perf source (doc/offcpu.md): the OFF_CPU event
 * of events/offcpu is the sched:sched_switch tracepoint, filtered in the
 * kernel to the switches where the thread leaves the cpu blocked, every
 * Nth of them recorded (sample_period N) with its stack. The same event
 * asks for the context switch records (attr.context_switch), and a
 * thread's next switch-in ends its time off the cpu: the sample is then
 * written to the stream weighted by that time in microseconds, times N
 * (ESC WEIGHT, op_stream.h).
 *
 * Between the two the sample waits here, a copy of its record per
 * thread (struct opd_offcpu), bounded in bytes: a sample that does not
 * fit is dropped and counted.
 */
#ifndef OPD_OFFCPU_H
#define OPD_OFFCPU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "op_hashmap.h"

struct perf_source_event;

/* A blocking switch is one whose prev_state has a state bit other than
 * the exit states (S D T t P I): preemption is reported as 0x100 (Linux
 * 4.14 on: TASK_REPORT_MAX) and a runnable yield as 0; a dying thread
 * (X, Z: 0x10, 0x20) is not coming back. */
#define OPD_OFFCPU_FILTER "prev_state & 0xcf"
/* The most bytes of records waiting for their switch-in. */
#define OPD_OFFCPU_PENDING_MAX (64u << 20)

/*
 * Make pe the OFF_CPU event with period n: the tracepoint (tracefs
 * mounted if needed and allowed), its filter and the switch records.
 * 0, or -errno with one line said (what to run, or why not here).
 */
int opd_offcpu_event(struct perf_source_event *pe, uint64_t n);

/* One thread's switch-out sample waiting for its switch-in. */
struct offcpu_wait {
	struct op_hashmap_entry ent;
	uint32_t tid;
	uint64_t time;		/* of the switch out */
	size_t size;
	unsigned char rec[];	/* the sample record as queued */
};

struct opd_offcpu {
	struct op_hashmap waits;	/* struct offcpu_wait by tid */
	size_t bytes;			/* record bytes held */
	size_t max_bytes;
	uint64_t dropped;		/* did not fit, or replaced unmatched */
};

void opd_offcpu_init(struct opd_offcpu *oc, size_t max_bytes);
void opd_offcpu_free(struct opd_offcpu *oc);
/* Keep tid's switch-out sample rec (size bytes) taken at time. A sample
 * already waiting for tid (its switch-in was lost) is dropped. */
void opd_offcpu_out(struct opd_offcpu *oc, uint32_t tid, uint64_t time,
		    void const *rec, size_t size);
/* tid's waiting sample, taken out of the table (the caller frees it),
 * or NULL. */
struct offcpu_wait *opd_offcpu_take(struct opd_offcpu *oc, uint32_t tid);
/* Any waiting sample, taken out (at the end: threads still off), or NULL. */
struct offcpu_wait *opd_offcpu_take_any(struct opd_offcpu *oc);

/*
 * The weight of a sample that left the cpu at out and came back at in,
 * recorded once every period blocking switches: (in - out) times period
 * in whole microseconds, at most OP_MAX_WEIGHT. What is left below a
 * microsecond is kept in *carry_ns and added to the next sample, so
 * that many short blocks add up to their time instead of to nothing;
 * 0 when there is not yet a whole microsecond.
 */
unsigned long opd_offcpu_weight(uint64_t out, uint64_t in, uint64_t period,
				uint64_t *carry_ns);

#endif /* OPD_OFFCPU_H */
