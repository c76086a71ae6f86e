/*
 * The perf source's pending queue: records drained from every cpu ring,
 * kept in time order so that side-band records (MMAP2, COMM, FORK, EXIT)
 * of one process, which arrive on several rings, are applied in the order
 * they happened relative to that process's samples.
 *
 * Records are copied out of the rings (so the rings can be released at
 * once, and records that straddle a ring's end become contiguous) into an
 * arena; entries point into it. Each ring's batch is nearly sorted already,
 * so perf_queue_sort() is a stable natural merge sort: O(n log runs).
 */
#ifndef PERF_QUEUE_H
#define PERF_QUEUE_H

#include <stddef.h>
#include <stdint.h>

struct perf_queue_entry {
	uint64_t time;		/* record time, CLOCK_MONOTONIC ns */
	uint32_t off;		/* record offset in the arena */
	uint32_t src;		/* where it came from (the ring's index) */
};

struct perf_queue {
	unsigned char *arena;	/* copied records, 8-byte aligned */
	size_t arena_len;
	size_t arena_cap;
	unsigned char *spare;	/* perf_queue_consume's copy target, spare_cap bytes */
	size_t spare_cap;
	struct perf_queue_entry *ent;	/* ent[0..nr): queued records */
	size_t nr;
	size_t cap;
	struct perf_queue_entry *tmp;	/* sort scratch, cap entries */
	size_t max_nr;		/* high-water mark of nr */
};

void perf_queue_init(struct perf_queue *q);
void perf_queue_free(struct perf_queue *q);

/* Room for a record of len bytes (a multiple of 8); fill it, then commit. */
void *perf_queue_reserve(struct perf_queue *q, size_t len);
void perf_queue_commit(struct perf_queue *q, size_t len, uint64_t time,
	       uint32_t src);

/* Sort the queue by time; equal times keep their arrival order. */
void perf_queue_sort(struct perf_queue *q);
/* How many leading entries of the sorted queue have time <= until. */
size_t perf_queue_ready(struct perf_queue const *q, uint64_t until);

static inline void const *perf_queue_record(struct perf_queue const *q, size_t i)
{
	return q->arena + q->ent[i].off;
}

/* Drop the first n entries; the rest move to the front of the arena. */
void perf_queue_consume(struct perf_queue *q, size_t n);

#endif /* PERF_QUEUE_H */
