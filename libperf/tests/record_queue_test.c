/*
 * Unit tests of the ring reader and the pending queue: records that
 * straddle the end of a ring come out whole, data_tail is handed back,
 * the queue sorts stably by time, and consuming keeps the rest intact.
 */
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "op_message.h"
#include "perf_ring.h"
#include "perf_queue.h"


/* Test records: header, u64 time, u64 tag, padding to size. */
static uint64_t time_of(void const *rec)
{
	uint64_t t;

	memcpy(&t, (char const *)rec + 8, 8);
	return t;
}

static uint64_t tag_of(void const *rec)
{
	uint64_t t;

	memcpy(&t, (char const *)rec + 16, 8);
	return t;
}

/* Write a record at ring position pos (wrapping), as the kernel would. */
static uint64_t put(struct perf_ring *r, uint64_t pos, uint16_t size,
		    uint64_t time, uint64_t tag)
{
	unsigned char rec[256] = { 0 };
	struct perf_event_header h = { .type = 99, .size = size };

	memcpy(rec, &h, sizeof(h));
	memcpy(rec + 8, &time, 8);
	memcpy(rec + 16, &tag, 8);
	for (uint16_t i = 0; i < size; i++)
		r->data[(pos + i) & (r->size - 1)] = rec[i];
	return pos + size;
}

static void test_record_queue__wrap(void)
{
	struct perf_ring r = { 0 };
	struct perf_queue q;
	uint64_t pos = 4096 - 40, t0;
	size_t n;

	r.pg = op_xcalloc(1, sizeof(*r.pg));
	r.data = op_xcalloc(1, 4096);
	r.size = 4096;
	r.pg->data_tail = pos;
	perf_queue_init(&q);
	/* the second record straddles the end of the area */
	pos = put(&r, pos, 32, 30, 1);
	pos = put(&r, pos, 48, 10, 2);
	pos = put(&r, pos, 24, 20, 3);
	t0 = pos;
	pos = put(&r, pos, 40, 20, 4);
	r.pg->data_head = pos - 40;	/* the last one is not published */
	n = perf_ring_drain(&r, &q, time_of);
	check(n == 3 && r.pg->data_tail == t0, "drain takes published records");
	check(tag_of(perf_queue_record(&q, 1)) == 2 && time_of(perf_queue_record(&q, 1)) == 10,
	      "a record across the end comes out whole");
	r.pg->data_head = pos;
	n = perf_ring_drain(&r, &q, time_of);
	check(n == 1 && r.pg->data_tail == pos, "drain resumes at data_tail");
	perf_queue_sort(&q);
	check(tag_of(perf_queue_record(&q, 0)) == 2 && tag_of(perf_queue_record(&q, 1)) == 3 &&
	      tag_of(perf_queue_record(&q, 2)) == 4 && tag_of(perf_queue_record(&q, 3)) == 1,
	      "sorted by time, equal times in arrival order");
	check(perf_queue_ready(&q, 19) == 1 && perf_queue_ready(&q, 20) == 3 &&
	      perf_queue_ready(&q, 100) == 4 && perf_queue_ready(&q, 0) == 0, "ready counts");
	perf_queue_consume(&q, 3);
	check(q.nr == 1 && tag_of(perf_queue_record(&q, 0)) == 1 && q.arena_len == 32,
	      "consume keeps the rest");
	/* a corrupt header drops what is left rather than misparse */
	pos = put(&r, pos, 32, 40, 5);
	r.data[(pos + 6) & 4095] = 3;	/* size 3: impossible */
	r.data[(pos + 7) & 4095] = 0;
	r.pg->data_head = pos + 64;
	n = perf_ring_drain(&r, &q, time_of);
	check(n == 1 && r.bad == 1 && r.pg->data_tail == pos + 64,
	      "a corrupt header resets the ring");
	perf_queue_free(&q);
	free(r.pg);
	free(r.data);
}

/* Stack test records: header, time, tag, len, data[len], dyn_size. */
static bool stack_of(struct perf_ring const *r, uint64_t pos, size_t size,
		     struct perf_ring_stack *s)
{
	if (size < 48)
		return false;
	perf_ring_read(r, pos + 24, &s->len, 8);
	s->data_off = 32;
	perf_ring_read(r, pos + 32 + s->len, &s->dyn, 8);
	return true;
}

static uint64_t put_stack(struct perf_ring *r, uint64_t pos, uint64_t len,
			  uint64_t dyn, uint64_t tag)
{
	unsigned char rec[256];
	uint16_t size = (uint16_t)(40 + len);
	struct perf_event_header h = { .type = 99, .size = size };
	uint64_t time = tag;

	memset(rec, 0xaa, sizeof(rec));
	memcpy(rec, &h, sizeof(h));
	memcpy(rec + 8, &time, 8);
	memcpy(rec + 16, &tag, 8);
	memcpy(rec + 24, &len, 8);
	for (uint64_t i = 0; i < len; i++)
		rec[32 + i] = (unsigned char)i;
	memcpy(rec + 32 + len, &dyn, 8);
	for (uint16_t i = 0; i < size; i++)
		r->data[(pos + i) & (r->size - 1)] = rec[i];
	return pos + size;
}

static uint64_t word(void const *rec, size_t off)
{
	uint64_t v;

	memcpy(&v, (char const *)rec + off, 8);
	return v;
}

/* A stack copy comes out cut to dyn_size rounded up to 8, and the ring
 * still advances by the kernel's record size. */
static void test_record_queue__stack_cut(void)
{
	struct perf_ring r = { 0 };
	struct perf_queue q;
	uint64_t pos = 4096 - 72;
	unsigned char const *rec;
	int ok = 1;

	r.pg = op_xcalloc(1, sizeof(*r.pg));
	r.data = op_xcalloc(1, 4096);
	r.size = 4096;
	r.stack_of = stack_of;
	r.pg->data_tail = pos;
	perf_queue_init(&q);
	pos = put_stack(&r, pos, 128, 20, 1);	/* across the end */
	pos = put_stack(&r, pos, 64, 64, 2);	/* all of it filled */
	pos = put(&r, pos, 32, 3, 3);		/* too short: whole */
	r.pg->data_head = pos;
	check(perf_ring_drain(&r, &q, time_of) == 3 && r.pg->data_tail == pos,
	      "drain takes the stack records and advances past them");
	rec = perf_queue_record(&q, 0);
	check(((struct perf_event_header const *)rec)->size == 32 + 24 + 8 &&
	      word(rec, 24) == 24 && word(rec, 56) == 20 && tag_of(rec) == 1,
	      "a stack cut to dyn_size rounded up: sizes and dyn_size say so");
	for (int i = 0; i < 20; i++)
		ok &= rec[32 + i] == i;
	check(ok, "the filled stack bytes are kept");
	rec = perf_queue_record(&q, 1);
	check(((struct perf_event_header const *)rec)->size == 104 &&
	      word(rec, 24) == 64 && word(rec, 96) == 64 && tag_of(rec) == 2,
	      "a full stack is copied whole");
	check(tag_of(perf_queue_record(&q, 2)) == 3, "the next record follows intact");
	perf_queue_free(&q);
	free(r.pg);
	free(r.data);
}

/* Many interleaved nearly-sorted runs sort like a stable reference. */
static void test_record_queue__sort(void)
{
	struct perf_queue q;
	uint64_t x = 12345, last_time = 0, last_tag = 0;
	int ok = 1;

	perf_queue_init(&q);
	for (int round = 0; round < 5; round++) {
		for (uint64_t i = 0; i < 3000; i++) {
			unsigned char *rec = perf_queue_reserve(&q, 24);
			struct perf_event_header h = { .size = 24 };
			uint64_t t, tag = round * 100000 + i;

			x = x * 6364136223846793005ULL + 1442695040888963407ULL;
			/* four "rings", each nearly in order */
			t = round * 1000 + (i / 4) + (x >> 60);
			memcpy(rec, &h, 8);
			memcpy(rec + 8, &t, 8);
			memcpy(rec + 16, &tag, 8);
			perf_queue_commit(&q, 24, t, (uint32_t)(i % 4));
		}
		perf_queue_sort(&q);
		for (size_t i = 0; i < q.nr; i++) {
			uint64_t t = time_of(perf_queue_record(&q, i));

			ok &= t == q.ent[i].time && (!i || q.ent[i - 1].time <= t);
		}
		perf_queue_consume(&q, perf_queue_ready(&q, round * 1000 + 500));
	}
	perf_queue_sort(&q);
	for (size_t i = 0; i < q.nr; i++) {
		uint64_t t = time_of(perf_queue_record(&q, i));
		uint64_t tag = tag_of(perf_queue_record(&q, i));

		ok &= !i || t > last_time || (t == last_time && tag > last_tag);
		last_time = t;
		last_tag = tag;
	}
	check(ok, "natural merge sort is sorted and stable across rounds");
	perf_queue_free(&q);
}

int main(void)
{
	op_set_progname("record_queue_test");
	test_record_queue__wrap();
	test_record_queue__stack_cut();
	test_record_queue__sort();
	return check_done();
}
