/*
 * The perf source's pending queue: records drained from every cpu ring,
 * kept in time order so that side-band records (MMAP2, COMM, FORK, EXIT)
 * of one process, which arrive on several rings, are applied in the order
 * they happened relative to that process's samples.
 *
 * Records are copied out of the rings (so the rings can be released at
 * once, and records that straddle a ring's end become contiguous) into an
 * arena; entries point into it. Each ring's batch is nearly sorted already,
 * so rq_sort() is a stable natural merge sort: O(n log runs).
 */
#ifndef RECORD_QUEUE_H
#define RECORD_QUEUE_H

#include <stddef.h>
#include <stdint.h>

struct rq_entry {
	uint64_t time;		/* record time, CLOCK_MONOTONIC ns */
	uint32_t off;		/* record offset in the arena */
	uint32_t src;		/* where it came from (the ring's index) */
};

struct record_queue {
	unsigned char *arena;	/* copied records, 8-byte aligned */
	size_t arena_len;
	size_t arena_cap;
	unsigned char *spare;	/* rq_consume's copy target, spare_cap bytes */
	size_t spare_cap;
	struct rq_entry *ent;	/* ent[0..nr): queued records */
	size_t nr;
	size_t cap;
	struct rq_entry *tmp;	/* sort scratch, cap entries */
	size_t max_nr;		/* high-water mark of nr */
};

void rq_init(struct record_queue *q);
void rq_free(struct record_queue *q);

/* Room for a record of len bytes (a multiple of 8); fill it, then commit. */
void *rq_reserve(struct record_queue *q, size_t len);
void rq_commit(struct record_queue *q, size_t len, uint64_t time,
	       uint32_t src);

/* Sort the queue by time; equal times keep their arrival order. */
void rq_sort(struct record_queue *q);
/* How many leading entries of the sorted queue have time <= until. */
size_t rq_ready(struct record_queue const *q, uint64_t until);

static inline void const *rq_record(struct record_queue const *q, size_t i)
{
	return q->arena + q->ent[i].off;
}

/* Drop the first n entries; the rest move to the front of the arena. */
void rq_consume(struct record_queue *q, size_t n);

#endif /* RECORD_QUEUE_H */
