/* Reading a perf mmap ring into the pending queue; see perf_ring.h. */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include "perf_ring.h"
#include "perf_queue.h"

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

/* Whether this process holds CAP_IPC_LOCK (bit 14 of CapEff). */
static bool can_lock_memory(void)
{
	FILE *f = fopen("/proc/self/status", "re");
	char line[256];
	unsigned long long caps = 0;
	bool found = false;

	if (!f)
		return geteuid() == 0;
	while (!found && fgets(line, sizeof(line), f))
		found = sscanf(line, "CapEff: %llx", &caps) == 1;
	fclose(f);
	return found ? (caps >> 14) & 1 : geteuid() == 0;
}

unsigned long perf_ring_lockable_pages(unsigned nr_online_cpus)
{
	unsigned long page = (unsigned long)sysconf(_SC_PAGESIZE), kb = 0;
	FILE *f;
	struct rlimit rl;

	if (can_lock_memory() || getrlimit(RLIMIT_MEMLOCK, &rl) ||
	    rl.rlim_cur == RLIM_INFINITY)
		return 0;
	f = fopen("/proc/sys/kernel/perf_event_mlock_kb", "re");
	if (f) {
		if (fscanf(f, "%lu", &kb) != 1)
			kb = 0;
		fclose(f);
	}
	return kb * 1024 / page * nr_online_cpus + rl.rlim_cur / page;
}

unsigned perf_ring_fit(unsigned want, unsigned nr, unsigned long lockable)
{
	unsigned pages = want;

	if (!lockable || !nr)
		return want;
	while (pages && (unsigned long)nr * (pages + 1ul) > lockable)
		pages /= 2;
	return pages;
}

void perf_ring_unmap(struct perf_ring *r)
{
	if (r->base)
		munmap(r->base, r->map_len);
	r->base = NULL;
}

void perf_ring_read(struct perf_ring const *r, uint64_t pos, void *dst,
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

/* Copy the size bytes record at pos into q (*rec), a user stack copy cut
 * to its filled bytes; returns the bytes copied. */
static size_t copy_record(struct perf_ring const *r, struct perf_queue *q,
			  uint64_t pos, uint16_t size, void **out)
{
	struct perf_ring_stack s;
	unsigned char *rec;
	uint64_t keep = 0;
	bool cut = r->stack_of && r->stack_of(r, pos, size, &s);

	if (cut)
		keep = ((s.dyn < s.len ? s.dyn : s.len) + 7) & ~(uint64_t)7;
	if (!cut || keep >= s.len) {
		*out = rec = perf_queue_reserve(q, size);
		perf_ring_read(r, pos, rec, size);
		return size;
	}
	size = (uint16_t)(s.data_off + keep + 8);
	*out = rec = perf_queue_reserve(q, size);
	perf_ring_read(r, pos, rec, s.data_off + keep);
	memcpy(rec + s.data_off - 8, &keep, 8);
	memcpy(rec + s.data_off + keep, &s.dyn, 8);
	memcpy(rec + offsetof(struct perf_event_header, size), &size,
	       sizeof(size));
	return size;
}

size_t perf_ring_drain(struct perf_ring *r, struct perf_queue *q,
		       uint64_t (*time_of)(void const *rec))
{
	/* acquire: record bytes are read only after data_head */
	uint64_t head = __atomic_load_n(&r->pg->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = r->pg->data_tail;
	size_t n = 0;

	while (head - tail >= sizeof(struct perf_event_header)) {
		struct perf_event_header h;
		void *rec;
		size_t len;

		perf_ring_read(r, tail, &h, sizeof(h));
		if (h.size < sizeof(h) || h.size % 8 || h.size > head - tail) {
			/* the kernel never writes this: drop what is there
			 * rather than loop or misparse */
			r->bad++;
			tail = head;
			break;
		}
		len = copy_record(r, q, tail, h.size, &rec);
		perf_queue_commit(q, len, time_of(rec), r->index);
		tail += h.size;
		n++;
	}
	/* release: the kernel may overwrite only after our copies */
	__atomic_store_n(&r->pg->data_tail, tail, __ATOMIC_RELEASE);
	return n;
}
