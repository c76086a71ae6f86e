/* Reading a perf mmap ring into the pending queue; see perf_ring.h. */
#include <errno.h>
#include <linux/perf_event.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "perf_ring.h"
#include "record_queue.h"

int perf_ring_map(struct perf_ring *r, int fd, int cpu, uint32_t index,
		  unsigned pages)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);

	memset(r, 0, sizeof(*r));
	r->fd = fd;
	r->cpu = cpu;
	r->index = index;
	r->map_len = (1 + (size_t)pages) * page;
	r->base = mmap(NULL, r->map_len, PROT_READ | PROT_WRITE, MAP_SHARED,
		       fd, 0);
	if (r->base == MAP_FAILED) {
		r->base = NULL;
		return -errno;
	}
	r->pg = r->base;
	r->data = (unsigned char *)r->base + page;
	r->size = (uint64_t)pages * page;
	return 0;
}

void perf_ring_unmap(struct perf_ring *r)
{
	if (r->base)
		munmap(r->base, r->map_len);
	r->base = NULL;
}

/* Copy len bytes at ring position pos to dst, wrapping at the end. */
static void copy_out(struct perf_ring const *r, uint64_t pos, void *dst,
		     size_t len)
{
	size_t at = pos & (r->size - 1);
	size_t first = r->size - at;

	if (first >= len) {
		memcpy(dst, r->data + at, len);
		return;
	}
	memcpy(dst, r->data + at, first);
	memcpy((unsigned char *)dst + first, r->data, len - first);
}

size_t perf_ring_drain(struct perf_ring *r, struct record_queue *q,
		       uint64_t (*time_of)(void const *rec))
{
	/* acquire: record bytes are read only after data_head */
	uint64_t head = __atomic_load_n(&r->pg->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = r->pg->data_tail;
	size_t n = 0;

	while (head - tail >= sizeof(struct perf_event_header)) {
		struct perf_event_header h;
		void *rec;

		copy_out(r, tail, &h, sizeof(h));
		if (h.size < sizeof(h) || h.size % 8 || h.size > head - tail) {
			/* the kernel never writes this: drop what is there
			 * rather than loop or misparse */
			r->bad++;
			tail = head;
			break;
		}
		rec = rq_reserve(q, h.size);
		copy_out(r, tail, rec, h.size);
		rq_commit(q, h.size, time_of(rec), r->index);
		tail += h.size;
		n++;
	}
	/* release: the kernel may overwrite only after our copies */
	__atomic_store_n(&r->pg->data_tail, tail, __ATOMIC_RELEASE);
	return n;
}
