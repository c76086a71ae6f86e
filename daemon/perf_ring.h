/*
 * One cpu's perf mmap ring: the control page followed by a power-of-two
 * data area the kernel writes records into. We read from data_tail to
 * data_head, copy every complete record into the pending queue (records
 * may straddle the end of the area: they are copied in two pieces), and
 * hand the space back by advancing data_tail.
 */
#ifndef PERF_RING_H
#define PERF_RING_H

#include <stddef.h>
#include <stdint.h>

struct record_queue;
struct perf_event_mmap_page;

struct perf_ring {
	int fd;				/* the event that owns the ring */
	int cpu;
	uint32_t index;			/* the queue's src for its records */
	void *base;			/* the mapping: control page + data */
	size_t map_len;
	struct perf_event_mmap_page *pg;
	unsigned char *data;		/* data area */
	uint64_t size;			/* data area bytes, a power of two */
	uint64_t bad;			/* corrupt headers seen (ring reset) */
};

/* Map pages data pages (a power of two) of fd's ring. 0 or -errno. */
int perf_ring_map(struct perf_ring *r, int fd, int cpu, uint32_t index,
		  unsigned pages);
void perf_ring_unmap(struct perf_ring *r);

/* Copy every complete record into q, release the space; returns the
 * number of records copied. time_of(rec) gives each record's time. */
size_t perf_ring_drain(struct perf_ring *r, struct record_queue *q,
		       uint64_t (*time_of)(void const *rec));

#endif /* PERF_RING_H */
