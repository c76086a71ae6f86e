/* Time-ordered pending record queue; see perf_queue.h. */
#include <stdlib.h>
#include <string.h>

#include "op_message.h"
#include "op_util.h"
#include "perf_queue.h"

void perf_queue_init(struct perf_queue *q)
{
	memset(q, 0, sizeof(*q));
}

void perf_queue_free(struct perf_queue *q)
{
	free(q->arena);
	free(q->spare);
	free(q->ent);
	free(q->tmp);
	memset(q, 0, sizeof(*q));
}

void *perf_queue_reserve(struct perf_queue *q, size_t len)
{
	if (q->arena_cap - q->arena_len < len) {
		size_t cap = q->arena_cap ? q->arena_cap : 256 * 1024;

		while (cap - q->arena_len < len)
			cap *= 2;
		q->arena = op_xrealloc(q->arena, cap);
		q->arena_cap = cap;
	}
	return q->arena + q->arena_len;
}

void perf_queue_commit(struct perf_queue *q, size_t len, uint64_t time,
	       uint32_t src)
{
	if (q->nr == q->cap) {
		q->cap = q->cap ? q->cap * 2 : 4096;
		q->ent = op_xrealloc(q->ent, q->cap * sizeof(*q->ent));
		q->tmp = op_xrealloc(q->tmp, q->cap * sizeof(*q->tmp));
	}
	q->ent[q->nr].time = time;
	q->ent[q->nr].off = (uint32_t)q->arena_len;
	q->ent[q->nr].src = src;
	q->nr++;
	if (q->nr > q->max_nr)
		q->max_nr = q->nr;
	q->arena_len += len;
}

/* End of the non-decreasing run that starts at i. */
static size_t run_end(struct perf_queue_entry const *a, size_t i, size_t n)
{
	while (i + 1 < n && a[i].time <= a[i + 1].time)
		i++;
	return i + 1;
}

/* Stable merge of a[0..m) and b[0..k) into out. */
static void merge(struct perf_queue_entry const *a, size_t m,
		  struct perf_queue_entry const *b, size_t k, struct perf_queue_entry *out)
{
	size_t i = 0, j = 0;

	while (i < m && j < k)
		*out++ = b[j].time < a[i].time ? b[j++] : a[i++];
	memcpy(out, a + i, (m - i) * sizeof(*out));
	memcpy(out + (m - i), b + j, (k - j) * sizeof(*out));
}

void perf_queue_sort(struct perf_queue *q)
{
	struct perf_queue_entry *src = q->ent, *dst = q->tmp;
	size_t n = q->nr;

	if (run_end(src, 0, n) >= n)
		return;
	for (;;) {
		size_t i = 0, runs = 0;

		while (i < n) {
			size_t m = run_end(src, i, n);
			size_t e = m < n ? run_end(src, m, n) : n;

			merge(src + i, m - i, src + m, e - m, dst + i);
			i = e;
			runs++;
		}
		struct perf_queue_entry *t = src;
		src = dst;
		dst = t;
		if (runs == 1)
			break;
	}
	if (src != q->ent)
		memcpy(q->ent, src, n * sizeof(*src));
}

static int entry_by(void const *ent, void const *until)
{
	return ((struct perf_queue_entry const *)ent)->time <= *(uint64_t const *)until;
}

size_t perf_queue_ready(struct perf_queue const *q, uint64_t until)
{
	return op_partition_point(q->ent, q->nr, sizeof(q->ent[0]), entry_by,
				  &until);
}

/*
 * The records left behind are the last few milliseconds' worth, so
 * copying them to the front is cheap; their arena order follows the
 * sorted order, which keeps the next round's copies sequential.
 */
void perf_queue_consume(struct perf_queue *q, size_t n)
{
	size_t rest = q->nr - n, len = 0, cap;
	unsigned char *arena;

	if (!rest) {
		q->nr = 0;
		q->arena_len = 0;
		return;
	}
	if (q->spare_cap < q->arena_cap) {
		free(q->spare);
		q->spare = op_xmalloc(q->arena_cap);
		q->spare_cap = q->arena_cap;
	}
	arena = q->spare;
	for (size_t i = 0; i < rest; i++) {
		struct perf_queue_entry *e = &q->ent[n + i];
		uint16_t size;	/* perf_event_header.size */

		memcpy(&size, q->arena + e->off + 6, sizeof(size));
		memcpy(arena + len, q->arena + e->off, size);
		q->ent[i].time = e->time;
		q->ent[i].src = e->src;
		q->ent[i].off = (uint32_t)len;
		len += size;
	}
	cap = q->spare_cap;
	q->spare = q->arena;
	q->spare_cap = q->arena_cap;
	q->arena = arena;
	q->arena_cap = cap;
	q->arena_len = len;
	q->nr = rest;
}
