/*
 * Unit tests of the eBPF mechanism's record decoding (opd_offcpu_bpf.h),
 * no kernel: a switch-out record becomes the perf mechanism's sample
 * (id, kernel ip, pid/tid, time, cpu, callchain with its context marker,
 * user regs, stack copy and dyn_size, where emit_unwound reads them), a
 * switch-in its SWITCH record; hostile records (short, lengths past the
 * end or over the copy, unknown types, a buffer too small) decode to
 * nothing, never past either buffer.
 */
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "opd_perf_int.h"
#include "opd_offcpu_bpf.h"

static uint64_t r64(unsigned char const *p, size_t off)
{
	uint64_t v;

	memcpy(&v, p + off, 8);
	return v;
}

static uint32_t r32(unsigned char const *p, size_t off)
{
	uint32_t v;

	memcpy(&v, p + off, 4);
	return v;
}

static struct ocb_out *out_rec(unsigned nk, unsigned stack_len)
{
	struct ocb_out *r = calloc(1, sizeof(*r));

	r->h.type = OCB_OUT;
	r->h.cpu = 1;
	r->h.pid = 1000;
	r->h.tid = 1001;
	r->h.time = 5000000;
	r->kstack_len = nk * 8;
	for (unsigned i = 0; i < nk; i++)
		r->kstack[i] = 0xffffffff81000000ull + i;
	r->user = 1;
	r->bp = 0x7ffd0010;
	r->sp = 0x7ffd0000;
	r->ip = 0x401000;
	r->stack_len = stack_len;
	for (unsigned i = 0; i < stack_len; i++)
		r->stack[i] = (unsigned char)i;
	return r;
}

static void test_ocb__out_is_a_perf_sample(void)
{
	struct ocb_out *r = out_rec(3, 100);
	unsigned char *o = malloc(OCB_PERF_MAX);
	uint64_t time = 0;
	uint32_t cpu = 0;
	size_t len = opd_offcpu_bpf_decode(r, sizeof(*r), 77, 1, 127, 16384,
					   o, OCB_PERF_MAX, &time, &cpu);
	size_t off;

	check_int((long long)len, 8 + 40 + 8 + 8 * 4 + 32 + 8 + 104 + 8,
		  "a sample with 3 kernel frames and 100 stack bytes");
	check_int(r32(o, 0), PERF_RECORD_SAMPLE, "a SAMPLE");
	check_int(r32(o, 4) >> 16, (long long)len, "its header's size");
	check_int(r32(o, 4) & 0xffff, PERF_RECORD_MISC_KERNEL, "kernel mode");
	check_that(r64(o, 8) == 77);
	check_that(r64(o, 16) == 0xffffffff81000000ull);	/* the leaf */
	check_that(r32(o, 24) == 1000 && r32(o, 28) == 1001);
	check_that(r64(o, 32) == 5000000 && time == 5000000);
	check_that(r32(o, 40) == 1 && cpu == 1);
	check_that(opd_perf_record_time(o) == 5000000);
	check_that(r64(o, 48) == 4);
	check_that(r64(o, 56) == (uint64_t)PERF_CONTEXT_KERNEL);
	check_that(r64(o, 64 + 16) == 0xffffffff81000002ull);
	off = 56 + 32;
	check_that(r64(o, off) == PERF_SAMPLE_REGS_ABI_64);
	check_that(r64(o, off + 8) == 0x7ffd0010 && r64(o, off + 16) ==
		   0x7ffd0000 && r64(o, off + 24) == 0x401000);
	off += 32;
	check_that(r64(o, off) == 104);		/* the size, 8-aligned */
	check_that(memcmp(o + off + 8, r->stack, 100) == 0);
	check_that(r64(o, off + 8 + 104) == 100);	/* dyn_size */
	/* the copy cut to the configured stack size, frames to max_stack */
	len = opd_offcpu_bpf_decode(r, sizeof(*r), 77, 1, 2, 64, o,
				    OCB_PERF_MAX, &time, &cpu);
	check_int((long long)len, 8 + 40 + 8 + 8 * 3 + 32 + 8 + 64 + 8,
		  "cut to 2 frames and 64 stack bytes");
	check_that(r64(o, 48) == 3);
	check_that(r64(o, len - 8) == 64);
	/* no callgraph: the sample alone */
	len = opd_offcpu_bpf_decode(r, sizeof(*r), 77, 0, 0, 0, o,
				    OCB_PERF_MAX, &time, &cpu);
	check_int((long long)len, 48, "no callgraph: 48 bytes");
	/* a kernel thread: no user regs */
	r->user = 0;
	len = opd_offcpu_bpf_decode(r, sizeof(*r), 77, 1, 127, 16384, o,
				    OCB_PERF_MAX, &time, &cpu);
	check_int((long long)len, 8 + 40 + 8 + 8 * 4 + 16,
		  "a kernel thread: regs ABI none, a stack of size 0");
	check_that(r64(o, len - 16) == PERF_SAMPLE_REGS_ABI_NONE);
	check_that(r64(o, len - 8) == 0);
	free(r);
	free(o);
}

static void test_ocb__in_is_a_switch(void)
{
	struct ocb_head h = { OCB_IN, 1, 1000, 1001, 9000000 };
	unsigned char o[64];
	uint64_t time = 0;
	uint32_t cpu = 0;
	size_t len = opd_offcpu_bpf_decode(&h, sizeof(h), 77, 1, 127, 16384,
					   o, sizeof(o), &time, &cpu);

	check_int((long long)len, 40, "a SWITCH record with its trailer");
	check_int(r32(o, 0), PERF_RECORD_SWITCH, "a SWITCH");
	check_int(r32(o, 4) & 0xffff, 0, "misc 0: a switch in");
	check_that(r32(o, len - 32 + 4) == 1001);	/* handle_switch's tid */
	check_that(opd_perf_record_time(o) == 9000000 && time == 9000000);
	check_that(r64(o, len - 8) == 77);
	check_int((long long)opd_offcpu_bpf_decode(&h, sizeof(h), 77, 1, 127,
			16384, o, 39, &time, &cpu), 0, "no room: nothing");
}

static void test_ocb__hostile(void)
{
	struct ocb_out *r = out_rec(3, 100);
	unsigned char *o = malloc(OCB_PERF_MAX);
	unsigned char *cut;
	uint64_t time = 0;
	uint32_t cpu = 0;
	size_t fixed = offsetof(struct ocb_out, stack);

#define DEC(p, n) opd_offcpu_bpf_decode((p), (n), 1, 1, 127, 16384, o, \
					OCB_PERF_MAX, &time, &cpu)
	check_int((long long)DEC(r, 0), 0, "empty");
	check_int((long long)DEC(NULL, 100), 0, "no data");
	check_int((long long)DEC(r, sizeof(struct ocb_head) - 1), 0,
		  "shorter than the head");
	check_int((long long)DEC(r, fixed - 1), 0, "an OUT shorter than its fixed part");
	/* the record cut right after its fixed part: its 100 bytes of stack
	 * pass the end (a copy of the record's size, so ASan sees a read
	 * past it) */
	cut = malloc(fixed + 99);
	memcpy(cut, r, fixed + 99);
	check_int((long long)DEC(cut, fixed + 99), 0, "stack_len past the record's end");
	free(cut);
	r->stack_len = OCB_STACK_MAX + 1;
	check_int((long long)DEC(r, sizeof(*r)), 0, "stack_len over the copy");
	r->stack_len = 0xffffffffu;
	check_int((long long)DEC(r, sizeof(*r)), 0, "a huge stack_len");
	r->stack_len = 100;
	r->kstack_len = 0xfffffff8u;
	check_int((long long)DEC(r, sizeof(*r)), 0, "a huge kstack_len");
	r->kstack_len = 12;
	check_int((long long)DEC(r, sizeof(*r)), 0, "kstack_len not whole frames");
	r->kstack_len = 8 * (OCB_KSTACK_MAX + 1);
	check_int((long long)DEC(r, sizeof(*r)), 0, "kstack_len over its array");
	r->kstack_len = 24;
	r->h.type = 0;
	check_int((long long)DEC(r, sizeof(*r)), 0, "type 0");
	r->h.type = 3;
	check_int((long long)DEC(r, sizeof(*r)), 0, "an unknown type");
	r->h.type = 0xffffffffu;
	check_int((long long)DEC(r, sizeof(*r)), 0, "type ~0");
	r->h.type = OCB_OUT;
	check_int((long long)opd_offcpu_bpf_decode(r, sizeof(*r), 1, 1, 127,
			16384, o, 100, &time, &cpu), 0, "no room for the sample");
	check_that(DEC(r, sizeof(*r)) > 0);	/* and the record is fine */
	/* no stack bytes copied (the page was not there): an empty copy */
	r->stack_len = 0;
	check_int((long long)DEC(r, sizeof(*r)), 8 + 40 + 8 + 32 + 32 + 16,
		  "no stack bytes: size 0, dyn_size 0");
#undef DEC
	free(r);
	free(o);
}

static void test_ocb__mode(void)
{
	enum ocb_mode m;

	unsetenv("OPROFILE_OFFCPU");
	check_that(opd_offcpu_bpf_mode(&m) == 0 && m == OCB_AUTO);
	setenv("OPROFILE_OFFCPU", "bpf", 1);
	check_that(opd_offcpu_bpf_mode(&m) == 0 && m == OCB_BPF);
	setenv("OPROFILE_OFFCPU", "perf", 1);
	check_that(opd_offcpu_bpf_mode(&m) == 0 && m == OCB_PERF);
	setenv("OPROFILE_OFFCPU", "auto", 1);
	check_that(opd_offcpu_bpf_mode(&m) == 0 && m == OCB_AUTO);
	setenv("OPROFILE_OFFCPU", "BPF ", 1);
	check_that(opd_offcpu_bpf_mode(&m) < 0);
	unsetenv("OPROFILE_OFFCPU");
}

int main(void)
{
	test_ocb__out_is_a_perf_sample();
	test_ocb__in_is_a_switch();
	test_ocb__hostile();
	test_ocb__mode();
	return check_done();
}
