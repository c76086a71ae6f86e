/*
 * Unit tests of off-CPU sampling in the perf source, on hand-built perf
 * records (no kernel): a blocking switch's sample waits for its thread's
 * switch-in and is written weighted by the time off in microseconds
 * (times the period, what is left below a microsecond carried to the
 * next); a switch-out, another thread's switch-in, a thread's exit and
 * the end of sampling each do what opd_offcpu.h says; the table of
 * waiting samples stays within its bytes.
 */
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "op_alloc.h"
#include "op_stream.h"
#include "opd_perf_int.h"

static size_t put(unsigned char *rec, size_t at, void const *v, size_t n)
{
	memcpy(rec + at, v, n);
	return at + n;
}

/* OFF_CPU's sample of tid at time: a kernel pc, no callchain. */
static size_t out_record(unsigned char *rec, uint32_t tid, uint64_t time)
{
	struct perf_event_header h = { PERF_RECORD_SAMPLE,
				       PERF_RECORD_MISC_KERNEL, 0 };
	uint64_t id = 1, ip = 0xffffffff81000100ull, zero = 0;
	uint32_t pid = 1000;
	size_t at = sizeof(h);

	at = put(rec, at, &id, 8);
	at = put(rec, at, &ip, 8);
	at = put(rec, at, &pid, 4);
	at = put(rec, at, &tid, 4);
	at = put(rec, at, &time, 8);
	at = put(rec, at, &zero, 8);	/* cpu, res */
	h.size = (uint16_t)at;
	put(rec, 0, &h, sizeof(h));
	return at;
}

/* A switch record (type, misc) of tid at time, its sample_id trailer. */
static size_t switch_record(unsigned char *rec, uint32_t type, uint16_t misc,
			    uint32_t tid, uint64_t time)
{
	struct perf_event_header h = { type, misc, 0 };
	uint64_t id = 1, zero = 0;
	uint32_t pid = 1000;
	size_t at = sizeof(h);

	if (type == PERF_RECORD_SWITCH_CPU_WIDE)
		at = put(rec, at, &zero, 8);	/* next_prev pid, tid */
	at = put(rec, at, &pid, 4);
	at = put(rec, at, &tid, 4);
	at = put(rec, at, &time, 8);
	at = put(rec, at, &zero, 8);
	at = put(rec, at, &id, 8);
	h.size = (uint16_t)at;
	put(rec, 0, &h, sizeof(h));
	return at;
}

static size_t exit_record(unsigned char *rec, uint32_t tid, uint64_t time)
{
	struct perf_event_header h = { PERF_RECORD_EXIT, 0, 0 };
	uint32_t pid = 1000;
	uint64_t id = 1, zero = 0;
	size_t at = sizeof(h);

	at = put(rec, at, &pid, 4);	/* pid, ppid, tid, ptid, time */
	at = put(rec, at, &pid, 4);
	at = put(rec, at, &tid, 4);
	at = put(rec, at, &pid, 4);
	at = put(rec, at, &time, 8);
	at = put(rec, at, &pid, 4);	/* trailer */
	at = put(rec, at, &tid, 4);
	at = put(rec, at, &time, 8);
	at = put(rec, at, &zero, 8);
	at = put(rec, at, &id, 8);
	h.size = (uint16_t)at;
	put(rec, 0, &h, sizeof(h));
	return at;
}

static struct perf_source *source(uint64_t period)
{
	static struct ps_id one = { .id = 1, .event = 0 };
	struct perf_source *ps = op_xcalloc(1, sizeof(*ps));

	ps->events = op_xcalloc(1, sizeof(*ps->events));
	ps->events[0] = (struct perf_source_event){
		.type = PERF_TYPE_TRACEPOINT, .period = period,
		.kernel = true, .user = true, .off_cpu = true,
		.name = "OFF_CPU" };
	ps->nr_events = 1;
	ps->ids = &one;
	ps->nr_ids = 1;
	opd_perf_state_init(ps);
	return ps;
}

static void source_free(struct perf_source *ps)
{
	opd_perf_state_free(ps);
	free(ps->events);
	free(ps);
}

/* The weights of the ESC WEIGHTs written since the buffer's start, and
 * how many samples (pairs with event 0 after a KERNEL_ENTER) in all. */
static size_t weights(struct word_buffer const *wb, unsigned long *w, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i + 2 < wb->len; i++)
		if (wb->w[i] == OP_ESCAPE_CODE && wb->w[i + 1] == OP_CODE_WEIGHT &&
		    n < max)
			w[n++] = wb->w[i + 2];
	return n;
}

static void feed(struct perf_source *ps, unsigned char *rec)
{
	opd_perf_handle_record(ps, rec);
}

static void test_offcpu__weighted_at_switch_in(void)
{
	struct perf_source *ps = source(1);
	unsigned char rec[256];
	unsigned long w[8];

	out_record(rec, 42, 1000000);
	feed(ps, rec);
	check(ps->out.len == 0 && ps->stats.offcpu_out == 1,
	      "the switch-out's sample waits: nothing written yet");
	switch_record(rec, PERF_RECORD_SWITCH, PERF_RECORD_MISC_SWITCH_OUT, 42, 2000000);
	feed(ps, rec);
	switch_record(rec, PERF_RECORD_SWITCH, 0, 43, 2000000);
	feed(ps, rec);
	check(ps->out.len == 0, "a switch-out, another thread's switch-in: still waiting");
	switch_record(rec, PERF_RECORD_SWITCH, 0, 42, 3500000);
	feed(ps, rec);
	check(weights(&ps->out, w, 8) == 1 && w[0] == 2500 && ps->stats.samples == 1,
	      "its switch-in 2.5 ms later: one sample weighing 2500 us");
	check(ps->offcpu.bytes == 0, "no record held after it");
	/* system-wide records, the same */
	out_record(rec, 44, 4000000);
	feed(ps, rec);
	switch_record(rec, PERF_RECORD_SWITCH_CPU_WIDE, 0, 44, 4010000);
	feed(ps, rec);
	check(weights(&ps->out, w, 8) == 2 && w[1] == 10,
	      "SWITCH_CPU_WIDE's switch-in: 10 us");
	source_free(ps);
}

static void test_offcpu__period_and_carry(void)
{
	struct perf_source *ps = source(7);
	unsigned char rec[256];
	unsigned long w[8], sum = 0;
	size_t n;

	/* three waits of 1.4 us, weighted by 7: 9.8 us each, 29.4 in all */
	for (int i = 0; i < 3; i++) {
		out_record(rec, 50, 10000000 + i * 10000);
		feed(ps, rec);
		switch_record(rec, PERF_RECORD_SWITCH, 0, 50, 10000000 + i * 10000 + 1400);
		feed(ps, rec);
	}
	n = weights(&ps->out, w, 8);
	for (size_t i = 0; i < n; i++)
		sum += w[i];
	check(n == 3 && sum == 29 && ps->offcpu_carry_ns == 400,
	      "period 7: the three weigh 29 us in all, 0.4 carried (%zu, %lu, %llu)",
	      n, sum, (unsigned long long)ps->offcpu_carry_ns);
	check(opd_offcpu_weight(5, 5, 1, &ps->offcpu_carry_ns) == 0 &&
	      opd_offcpu_weight(9, 5, 1, &ps->offcpu_carry_ns) == 0,
	      "no time off, or time backwards: no weight");
	ps->offcpu_carry_ns = 0;
	check(opd_offcpu_weight(0, 3600ull * 1000000000 * 24 * 365, 1000,
				&ps->offcpu_carry_ns) == OP_MAX_WEIGHT,
	      "a year at period 1000 saturates at OP_MAX_WEIGHT");
	check(opd_offcpu_weight(0, UINT64_MAX, UINT64_MAX, &ps->offcpu_carry_ns) ==
	      OP_MAX_WEIGHT, "no overflow at the extremes");
	source_free(ps);
}

static void test_offcpu__exit_and_end(void)
{
	struct perf_source *ps = source(1);
	unsigned char rec[256];
	unsigned long w[8];

	out_record(rec, 60, 1000000);
	feed(ps, rec);
	exit_record(rec, 60, 1500000);
	feed(ps, rec);
	check(ps->out.len == 0 && ps->lost[OP_LOST_OFFCPU] == 1 && !ps->offcpu.bytes,
	      "a thread that exits while its sample waits: counted lost, freed");
	out_record(rec, 61, 2000000);
	feed(ps, rec);
	out_record(rec, 61, 2100000);
	feed(ps, rec);
	check(ps->lost[OP_LOST_OFFCPU] == 2,
	      "a second switch-out before a switch-in (one lost): the first is lost");
	opd_perf_offcpu_end(ps, 3100000);
	check(weights(&ps->out, w, 8) == 1 && w[0] == 1000 &&
	      ps->stats.offcpu_open == 1,
	      "at the end, a thread still off counts until then: 1000 us");
	source_free(ps);
}

static void test_offcpu__bounded(void)
{
	struct opd_offcpu oc;
	unsigned char rec[1000] = { 0 };
	struct offcpu_wait *w;
	size_t n = 0;

	opd_offcpu_init(&oc, 4500);
	for (uint32_t tid = 1; tid <= 10; tid++)
		opd_offcpu_out(&oc, tid, tid, rec, sizeof(rec));
	check(oc.bytes == 4000 && oc.dropped == 6,
	      "4500 bytes hold four records of 1000; six dropped (%zu, %llu)",
	      oc.bytes, (unsigned long long)oc.dropped);
	check(opd_offcpu_take(&oc, 7) == NULL, "a dropped one is not there");
	while ((w = opd_offcpu_take_any(&oc))) {
		n++;
		free(w);
	}
	check(n == 4 && oc.bytes == 0, "take_any drains the four");
	opd_offcpu_free(&oc);
}

int main(void)
{
	test_offcpu__weighted_at_switch_in();
	test_offcpu__period_and_carry();
	test_offcpu__exit_and_end();
	test_offcpu__bounded();
	return check_done();
}
