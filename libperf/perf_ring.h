/*
 * One cpu's perf mmap ring: the control page followed by a power-of-two
 * data area the kernel writes records into. We read from data_tail to
 * data_head, copy every complete record into the pending queue (records
 * may straddle the end of the area: they are copied in two pieces), and
 * hand the space back by advancing data_tail.
 */
#ifndef PERF_RING_H
#define PERF_RING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct perf_queue;
struct perf_event_mmap_page;

/* Where a sample's user stack copy lies (PERF_SAMPLE_STACK_USER): its
 * bytes at data_off, len of them, dyn of which the kernel filled in; the
 * record ends with the dyn_size word after them. */
struct perf_ring_stack {
	size_t data_off;
	uint64_t len;
	uint64_t dyn;
};

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
	/* optional: finds a sample's user stack copy so that only the
	 * bytes the kernel filled in are copied out (NULL: records are
	 * copied whole); false for a record without one */
	bool (*stack_of)(struct perf_ring const *r, uint64_t pos,
			 size_t size, struct perf_ring_stack *s);
};

/* Map pages data pages (a power of two) of fd's ring. 0 or -errno. */
int perf_ring_map(struct perf_ring *r, int fd, int cpu, uint32_t index,
		  unsigned pages);
void perf_ring_unmap(struct perf_ring *r);

/*
 * The locked memory a user without CAP_IPC_LOCK may give perf rings, in
 * pages: kernel.perf_event_mlock_kb per online cpu (the kernel counts it
 * per user) plus RLIMIT_MEMLOCK (counted per process). 0: no limit (root,
 * or an unlimited ulimit -l).
 */
unsigned long perf_ring_lockable_pages(unsigned nr_online_cpus);

/*
 * The ring size to map nr rings of want data pages within lockable pages
 * (0: no limit): want, or the largest power of two below it whose rings
 * fit, each costing its data pages + 1 as the kernel counts them; 0 when
 * not even one page does. perf record sizes its rings the same way.
 */
unsigned perf_ring_fit(unsigned want, unsigned nr, unsigned long lockable);

/* Copy len bytes at ring position pos to dst, wrapping at the end. */
void perf_ring_read(struct perf_ring const *r, uint64_t pos, void *dst,
		    size_t len);

/* Copy every complete record into q, release the space; returns the
 * number of records copied. time_of(rec) gives each record's time. A
 * user stack copy found by stack_of is cut to its filled bytes (rounded
 * up to 8; its size word and the header's size say so): the unwinder
 * never reads past dyn_size, and most of a 16 KiB copy is unused. */
size_t perf_ring_drain(struct perf_ring *r, struct perf_queue *q,
		       uint64_t (*time_of)(void const *rec));

#endif /* PERF_RING_H */
