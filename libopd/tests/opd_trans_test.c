/*
 * Unit tests of the stream decoder on hand-built word arrays: every code,
 * records split across chunks at every position, and malformed input that
 * must give counted errors (with resynchronisation), never a crash.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "op_message.h"
#include "opd_trans.h"
#include "stream_words.h"

#define ESC OP_ESCAPE_CODE

/* A sink that writes one line per callback into a string. */
struct log {
	char buf[1 << 16];
	size_t len;
	unsigned errors;
};

__attribute__((format(printf, 2, 3)))
static void log_line(struct log *l, char const *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (l->len < sizeof(l->buf))
		l->len += (size_t)vsnprintf(l->buf + l->len,
					    sizeof(l->buf) - l->len, fmt, ap);
	va_end(ap);
	if (l->len > sizeof(l->buf))
		l->len = sizeof(l->buf);
}

static void on_sample(void *ctx, struct opd_transient const *t,
		      unsigned long pc, unsigned long event)
{
	log_line(ctx, "S cpu%lu %lu/%lu app%lu %s%lu %#lx e%lu\n", t->cpu, t->tgid,
	     t->tid, t->app_cookie, t->in_kernel ? "k" : "c",
	     t->in_kernel ? 0 : t->cookie, pc, event);
}

static void on_arc(void *ctx, struct opd_transient const *t,
		   struct opd_frame const *caller, struct opd_frame const *callee)
{
	log_line(ctx, "A e%lu %s%lu:%#lx -> %s%lu:%#lx\n", t->event,
	     caller->in_kernel ? "k" : "c", caller->cookie, caller->pc,
	     callee->in_kernel ? "k" : "c", callee->cookie, callee->pc);
}

static void on_trace(void *ctx, struct opd_trace const *tr)
{
	log_line(ctx, "T e%lu %lu/%lu stop%lu", tr->t.event, tr->t.tgid,
		 tr->t.tid, tr->stop);
	for (size_t i = 0; i < tr->nframes; i++)
		log_line(ctx, " %s%lu:%#lx", tr->frames[i].in_kernel ? "k" : "c",
			 tr->frames[i].cookie, tr->frames[i].pc);
	log_line(ctx, "\n");
}

static void on_lost(void *ctx, unsigned long cat, unsigned long n)
{
	log_line(ctx, "L %lu %lu\n", cat, n);
}

static void on_count(void *ctx, unsigned long counter, unsigned long n)
{
	log_line(ctx, "K %lu %lu\n", counter, n);
}

static void on_cookie(void *ctx, struct opd_cookie const *c)
{
	log_line(ctx, "C %lu %s\n", c->cookie, c->name);
}

static void on_anon(void *ctx, struct opd_cookie const *c)
{
	log_line(ctx, "N %lu %lu %#lx-%#lx %s\n", c->cookie, c->tgid, c->start,
	     c->end, c->name);
}

static void on_module(void *ctx)
{
	log_line(ctx, "M\n");
}

static void on_image(void *ctx, unsigned long s, unsigned long e,
		     char const *name)
{
	log_line(ctx, "I %#lx-%#lx %s\n", s, e, name);
}

static void on_error(void *ctx, uint64_t pos, char const *msg)
{
	struct log *l = ctx;

	l->errors++;
	log_line(l, "E @%llu %s\n", (unsigned long long)pos, msg);
}

static struct opd_sink const sink_template = {
	.sample = on_sample, .arc = on_arc, .trace = on_trace,
	.lost = on_lost, .count = on_count,
	.cookie_def = on_cookie, .anon_def = on_anon,
	.module_loaded = on_module, .kernel_image = on_image,
	.error = on_error,
};

/* Decode w[0..n) in chunks of chunk words (0: whole) into l. */
static struct opd_trans_stats decode(unsigned long const *w, size_t n,
				     size_t chunk, struct log *l)
{
	struct opd_sink sink = sink_template;
	struct opd_trans dec;
	struct opd_trans_stats st;

	memset(l, 0, sizeof(*l));
	sink.ctx = l;
	opd_trans_init(&dec, &sink, "test");
	if (!chunk)
		chunk = n ? n : 1;
	for (size_t i = 0; i < n; i += chunk)
		opd_trans_feed(&dec, w + i, i + chunk <= n ? chunk : n - i);
	opd_trans_finish(&dec);
	st = dec.stats;
	opd_trans_free(&dec);
	return st;
}

/* The decoder's log is exactly expect; both shown when it is not. */
static void check_log(struct log const *l, char const *expect, char const *what)
{
	if (!check(!strcmp(l->buf, expect), "%s", what))
		printf("# --- expected\n%s# --- got\n%s# ---\n", expect,
		       l->buf);
}

/* A stream that uses every code we produce or accept. */
static void build_all_codes(struct word_buffer *wb)
{
	char const *name = "[vdso]";

	sw_cpu(wb, 1);
	sw_cookie_def(wb, 5, "/usr/bin/app");
	sw_ctx(wb, 101, 5, 100);
	sw_kernel(wb);
	opd_words_push2(wb, 0xffffffff81000010UL, 0);
	sw_user(wb);
	sw_cookie_def(wb, 6, "/lib/libc.so.6 (deleted)");
	sw_cookie(wb, 6);
	opd_words_push2(wb, 0x1234, 1);
	sw_anon_def(wb, 7, 100, 0x7000, 0x9000, name);
	sw_cookie(wb, 7);
	opd_words_push2(wb, 0x10, 0);
	sw_esc(wb, OP_CODE_MODULE_LOADED);
	sw_esc(wb, OP_CODE_KERNEL_IMAGE);
	opd_words_push2(wb, 0xffffffffc0000000UL, 0xffffffffc0001000UL);
	opd_words_push(wb, 3);
	opd_words_push_string(wb, "ext", 3);
	sw_esc(wb, OP_CODE_LOST);
	opd_words_push2(wb, OP_LOST_NO_MAPPING, 3);
	/* a backtrace: kernel sample, one kernel frame, two user frames */
	sw_esc(wb, OP_CODE_TRACE_BEGIN);
	sw_kernel(wb);
	opd_words_push2(wb, 0xffffffff81000020UL, 2);
	opd_words_push2(wb, 0xffffffff81000030UL, 0);
	sw_user(wb);
	sw_cookie(wb, 6);
	opd_words_push2(wb, 0x2000, 0);
	sw_cookie(wb, 5);
	opd_words_push2(wb, 0x3000, 0);
	/* the producer says why the trace ends: a short stack copy */
	sw_esc(wb, OP_CODE_UNWIND_STOP);
	opd_words_push(wb, 3);
	/* a second trace, ended by the cpu switch below */
	sw_esc(wb, OP_CODE_TRACE_BEGIN);
	opd_words_push2(wb, 0x3100, 1);
	opd_words_push2(wb, 0x3200, 0);
	/* a new cpu resets task and mode: the next sample re-establishes */
	sw_cpu(wb, 0);
	sw_ctx(wb, 0, OP_NO_COOKIE, 0);
	sw_kernel(wb);
	opd_words_push2(wb, 0xffffffff81000040UL, 0);
}

static char const all_codes_log[] =
	"C 5 /usr/bin/app\n"
	"S cpu1 100/101 app5 k0 0xffffffff81000010 e0\n"
	"C 6 /lib/libc.so.6 (deleted)\n"
	"S cpu1 100/101 app5 c6 0x1234 e1\n"
	"N 7 100 0x7000-0x9000 [vdso]\n"
	"S cpu1 100/101 app5 c7 0x10 e0\n"
	"M\n"
	"I 0xffffffffc0000000-0xffffffffc0001000 ext\n"
	"L 3 3\n"
	"S cpu1 100/101 app5 k0 0xffffffff81000020 e2\n"
	"A e2 k0:0xffffffff81000030 -> k0:0xffffffff81000020\n"
	"A e2 c6:0x2000 -> k0:0xffffffff81000030\n"
	"A e2 c5:0x3000 -> c6:0x2000\n"
	"T e2 100/101 stop3 k0:0xffffffff81000020 k0:0xffffffff81000030"
	" c6:0x2000 c5:0x3000\n"
	"S cpu1 100/101 app5 c5 0x3100 e1\n"
	"A e1 c5:0x3200 -> c5:0x3100\n"
	"T e1 100/101 stop6 c5:0x3100 c5:0x3200\n"
	"S cpu0 0/0 app0 k0 0xffffffff81000040 e0\n";

static void test_opd_trans__every_code(void)
{
	struct word_buffer wb;
	struct log l;
	struct opd_trans_stats st;

	opd_words_init(&wb);
	build_all_codes(&wb);
	st = decode(wb.w, wb.len, 0, &l);
	check_log(&l, all_codes_log, "every code decodes");
	check(st.errors == 0 && st.samples == 6 && st.arcs == 4 &&
	      st.kernel_samples == 3 && st.lost[OP_LOST_NO_MAPPING] == 3 &&
	      st.words == wb.len, "every code: stats");
	opd_words_free(&wb);
}

/* Chunks of every size, and every two-way split: the same log. */
static void test_opd_trans__chunks(void)
{
	struct word_buffer wb;
	struct log l;

	opd_words_init(&wb);
	build_all_codes(&wb);
	for (size_t chunk = 1; chunk <= wb.len; chunk++) {
		decode(wb.w, wb.len, chunk, &l);
		check_log(&l, all_codes_log, "chunked decode");
		if (check_failed)
			break;
	}
	for (size_t cut = 0; cut <= wb.len && !check_failed; cut++) {
		struct opd_sink sink = sink_template;
		struct opd_trans dec;

		memset(&l, 0, sizeof(l));
		sink.ctx = &l;
		opd_trans_init(&dec, &sink, "split");
		opd_trans_feed(&dec, wb.w, cut);
		opd_trans_feed(&dec, wb.w + cut, wb.len - cut);
		check(opd_trans_finish(&dec) == 0, "split: no errors");
		opd_trans_free(&dec);
		check_log(&l, all_codes_log, "two-way split");
	}
	opd_words_free(&wb);
}

/* Truncation at every point: exactly one error, at the end. */
static void test_opd_trans__truncated(void)
{
	struct word_buffer wb;
	struct log l;

	opd_words_init(&wb);
	build_all_codes(&wb);
	for (size_t n = 1; n < wb.len; n++) {
		struct opd_trans_stats st = decode(wb.w, n, 3, &l);

		check(st.errors <= 1, "truncated: at most one error");
		check(st.words == n, "truncated: every word accounted for");
	}
	decode(wb.w, 7, 5, &l);	/* inside the app's COOKIE_DEF */
	check(l.errors == 1 && strstr(l.buf, "E @3 stream ends inside a record"),
	      "truncated: error names the record's position");
	opd_words_free(&wb);
}

struct bad_case {
	char const *what;
	unsigned long w[16];
	size_t n;
	char const *error;	/* expected in the log */
};

static struct bad_case const bad_cases[] = {
	{ "unknown code", { ESC, 99 }, 2, "E @0 unknown escape code 99" },
	{ "xen code", { ESC, 10 }, 2, "E @0 unsupported escape code 10" },
	{ "trace_end", { ESC, OP_CODE_TRACE_END }, 2, "unsupported escape code 9" },
	{ "lone ctx_tgid", { ESC, OP_CODE_CTX_TGID, 5 }, 3, "ctx_tgid without" },
	{ "double escape", { ESC, ESC, OP_CODE_KERNEL_ENTER }, 3,
	  "escape followed by an escape" },
	{ "ctx without tgid", { ESC, 1, 5, 0, 7, 7, 7 }, 7,
	  "ctx_switch not followed by ctx_tgid" },
	{ "pair cut", { 0x10, ESC, OP_CODE_KERNEL_ENTER }, 3,
	  "sample pair cut short" },
	{ "empty name", { ESC, OP_CODE_COOKIE_DEF, 5, 0 }, 4,
	  "cookie_def name length 0 out of range" },
	{ "huge name", { ESC, OP_CODE_COOKIE_DEF, 5, ~0UL - 1 }, 4,
	  "out of range" },
	{ "reserved cookie", { ESC, OP_CODE_COOKIE_DEF, 0, 1, 'a' }, 5,
	  "cookie_def of reserved cookie" },
	{ "NUL in name", { ESC, OP_CODE_COOKIE_DEF, 5, 2, 0x6100 }, 5,
	  "string holds a NUL byte" },
	{ "padding", { ESC, OP_CODE_COOKIE_DEF, 5, 1, 0x6161 }, 5,
	  "string padding is not zero" },
	{ "empty anon", { ESC, OP_CODE_ANON_DEF, 5, 1, 9, 9, 1, 'a' }, 8,
	  "anon_def region 0x9-0x9 is empty" },
	{ "lost category", { ESC, OP_CODE_LOST, 99, 1 }, 4,
	  "lost count of unknown category 99" },
	{ "no cpu", { ESC, OP_CODE_KERNEL_ENTER, 0x10, 0 }, 4,
	  "sample before its cpu is known" },
	{ "no task", { ESC, 2, 0, ESC, OP_CODE_KERNEL_ENTER, 0x10, 0 }, 7,
	  "sample before its task is known" },
	{ "no mode", { ESC, 2, 0, ESC, 1, 1, 0, ESC, 7, 1, 0x10, 0 }, 12,
	  "sample before its mode is known" },
	{ "no cookie", { ESC, 2, 0, ESC, 1, 1, 0, ESC, 7, 1, ESC, 5, 0x10, 0 },
	  14, "sample before its cookie is known" },
	{ "undefined cookie", { ESC, OP_CODE_COOKIE_SWITCH, 42 }, 3,
	  "cookie_switch to undefined cookie 0x2a" },
	{ "undefined app", { ESC, 1, 1, 42, ESC, 7, 1 }, 7,
	  "ctx_switch to undefined app cookie 0x2a" },
	{ "frame event", { ESC, 2, 0, ESC, 1, 1, 0, ESC, 7, 1, ESC, 8, ESC, 4,
	  0x10, 3 }, 16, NULL },
	{ "empty image", { ESC, OP_CODE_KERNEL_IMAGE, 9, 9, 1, 'a' }, 6,
	  "kernel_image range 0x9-0x9 is empty" },
};

static void test_opd_trans__bad_input(void)
{
	/* after each bad case, a valid record must still decode */
	static unsigned long const tail[] = {
		ESC, OP_CODE_CPU_SWITCH, 3, ESC, 1, 9, 0, ESC, 7, 9,
		ESC, OP_CODE_KERNEL_ENTER, 0xabc, 0,
	};

	for (size_t i = 0; i < sizeof(bad_cases) / sizeof(*bad_cases); i++) {
		struct bad_case const *c = &bad_cases[i];
		unsigned long w[32];
		struct log l;
		char what[128];

		memcpy(w, c->w, c->n * sizeof(*w));
		memcpy(w + c->n, tail, sizeof(tail));
		decode(w, c->n + sizeof(tail) / sizeof(*tail), 1, &l);
		snprintf(what, sizeof(what), "bad input '%s' gives its error "
			 "and resynchronises", c->what);
		if (!check(l.errors >= (c->error ? 1 : 0) &&
			   (!c->error || strstr(l.buf, c->error)) &&
			   strstr(l.buf, "S cpu3 9/9 app0 k0 0xabc e0\n"),
			   "%s", what))
			printf("# decoder log:\n%s", l.buf);
	}
}

/* A traced sample with a nonzero frame event: one error, frames dropped. */
/* UNWIND_STOP outside a trace is an error; a trace past OPD_TRACE_MAX
 * frames is cut with depth_limit. */
static void test_opd_trans__unwind_stop(void)
{
	unsigned long w[] = { ESC, 2, 0, ESC, 1, 1, 0, ESC, 7, 1, ESC, 4,
			      0x10, 0, ESC, 40, 2 };
	struct word_buffer wb;
	struct opd_trans_stats st;
	struct log l;

	st = decode(w, sizeof(w) / sizeof(*w), 0, &l);
	check(st.errors == 1 && st.samples == 1 && !strstr(l.buf, "T "),
	      "unwind_stop outside a trace: one error, no trace");
	opd_words_init(&wb);
	sw_cpu(&wb, 0);
	sw_ctx(&wb, 1, 0, 1);
	sw_kernel(&wb);
	sw_esc(&wb, OP_CODE_TRACE_BEGIN);
	opd_words_push2(&wb, 0x10, 0);
	for (unsigned i = 0; i < OPD_TRACE_MAX + 5; i++)
		opd_words_push2(&wb, 0x100 + i, 0);
	sw_esc(&wb, OP_CODE_UNWIND_STOP);
	opd_words_push(&wb, 0);
	st = decode(wb.w, wb.len, 0, &l);
	if (!check(st.errors == 0 && strstr(l.buf, "T e0 1/1 stop5 k0:0x10 "),
	      "a trace longer than OPD_TRACE_MAX ends with depth_limit"))
		printf("# %.300s\n", strstr(l.buf, "T ") ? strstr(l.buf, "T ") : l.buf);
	opd_words_free(&wb);
}

static void test_opd_trans__frame_event(void)
{
	unsigned long w[] = { ESC, 2, 0, ESC, 1, 1, 0, ESC, 7, 1, ESC, 8, ESC, 4,
			      0x10, 3, 0x20, 5, 0x30, 0 };
	struct opd_trans_stats st;
	struct log l;

	st = decode(w, sizeof(w) / sizeof(*w), 0, &l);
	check(st.errors == 1 && st.samples == 1 && st.arcs == 0,
	      "nonzero frame event: one error, trace dropped");
}

/* Redefinition: the same path again is fine, another path is an error. */
static void test_opd_trans__redefine(void)
{
	struct word_buffer wb;
	struct log l;
	struct opd_trans_stats st;

	opd_words_init(&wb);
	sw_cookie_def(&wb, 5, "/a");
	sw_cookie_def(&wb, 5, "/a");
	sw_cookie_def(&wb, 5, "/b");
	st = decode(wb.w, wb.len, 0, &l);
	check(st.errors == 1 && strstr(l.buf, "cookie 0x5 redefined differently"),
	      "redefinition with another path is an error");
	check(!strstr(l.buf, "/b"), "the first definition stays");
	opd_words_free(&wb);
}

/* ESC COUNT: known counters reach the sink and the stats, unknown ones
 * are skipped without an error, and decoding goes on after either. */
static void test_opd_trans__count(void)
{
	unsigned long w[] = {
		ESC, OP_CODE_COUNT, OP_COUNT_MAPS_REREAD, 3,
		ESC, OP_CODE_COUNT, OP_COUNT_MAX + 5, 7,
		ESC, OP_CODE_COUNT, 0, 1,
		ESC, OP_CODE_COUNT, OP_COUNT_MAPS_REREAD_GONE, 2,
		ESC, OP_CODE_COUNT, OP_COUNT_MAPS_REREAD, 4,
		ESC, OP_CODE_CPU_SWITCH, 3, ESC, 1, 9, 0, ESC, 7, 9,
		ESC, OP_CODE_KERNEL_ENTER, 0xabc, 0,
	};
	size_t n = sizeof(w) / sizeof(*w);

	for (size_t chunk = 0; chunk < 6; chunk++) {
		struct opd_trans_stats st;
		struct log l;

		st = decode(w, n, chunk, &l);
		check(st.errors == 0 && st.samples == 1,
		      "count records decode with no error");
		check(st.count[OP_COUNT_MAPS_REREAD] == 7 &&
		      st.count[OP_COUNT_MAPS_REREAD_GONE] == 2 &&
		      st.count[OP_COUNT_MAPS_REREAD_HIT] == 0,
		      "count records add up by counter");
		check_log(&l, "K 1 3\nK 3 2\nK 1 4\nS cpu3 9/9 app0 k0 0xabc e0\n",
			  "known counters reach the sink, unknown ones do not");
	}
}

/* Random words rich in escapes and small codes: chunking never changes
 * the outcome, nothing crashes (run under ASan for reads). */
static void test_opd_trans__random(void)
{
	static unsigned long w[4096];
	static struct log a, b;
	uint64_t x = 88172645463325252ULL;

	for (int round = 0; round < 200; round++) {
		size_t n = 1 + (x % 4096);
		struct opd_trans_stats sa, sb;

		for (size_t i = 0; i < n; i++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			switch (x % 4) {
			case 0: w[i] = ESC; break;
			case 1: w[i] = (x >> 8) % 40; break;
			case 2: w[i] = (x >> 8) % 4; break;
			default: w[i] = x >> 3; break;
			}
		}
		sa = decode(w, n, 0, &a);
		sb = decode(w, n, 1 + (x >> 40) % 17, &b);
		check(!strcmp(a.buf, b.buf) && sa.errors == sb.errors &&
		      sa.words == n && sb.words == n,
		      "random words: chunked decode equals whole decode");
		if (check_failed)
			break;
	}
}

/* ESC WEIGHT: what the next sample, its arcs and its trace count. */
static void w_sample(void *ctx, struct opd_transient const *t,
		     unsigned long pc, unsigned long event)
{
	(void)event;
	log_line(ctx, "S %#lx w%lu\n", pc, t->weight);
}

static void w_arc(void *ctx, struct opd_transient const *t,
		  struct opd_frame const *caller, struct opd_frame const *callee)
{
	(void)callee;
	log_line(ctx, "A %#lx w%lu\n", caller->pc, t->weight);
}

static void w_trace(void *ctx, struct opd_trace const *tr)
{
	log_line(ctx, "T w%lu\n", tr->t.weight);
}

static void w_error(void *ctx, uint64_t pos, char const *msg)
{
	(void)pos;
	log_line(ctx, "E %s\n", msg);
}

static void test_opd_trans__weight(void)
{
	struct opd_sink sink = { .sample = w_sample, .arc = w_arc,
				 .trace = w_trace, .error = w_error };
	struct word_buffer wb;
	struct opd_trans dec;
	static struct log l;

	opd_words_init(&wb);
	sw_cpu(&wb, 0);
	sw_ctx(&wb, 1, 0, 1);
	sw_kernel(&wb);
	sw_esc(&wb, OP_CODE_WEIGHT);
	opd_words_push(&wb, 500);
	opd_words_push2(&wb, 0x10, 0);
	/* only the next sample */
	opd_words_push2(&wb, 0x20, 0);
	/* a trace: its arcs and its whole stack count the weight */
	sw_esc(&wb, OP_CODE_WEIGHT);
	opd_words_push(&wb, 7);
	sw_esc(&wb, OP_CODE_TRACE_BEGIN);
	opd_words_push2(&wb, 0x30, 0);
	opd_words_push2(&wb, 0x40, 0);
	sw_esc(&wb, OP_CODE_UNWIND_STOP);
	opd_words_push(&wb, 0);
	/* 0 and too heavy: errors, the next sample counts 1 */
	sw_esc(&wb, OP_CODE_WEIGHT);
	opd_words_push(&wb, 0);
	opd_words_push2(&wb, 0x50, 0);
	sw_esc(&wb, OP_CODE_WEIGHT);
	opd_words_push(&wb, ~0UL);
	opd_words_push2(&wb, 0x60, 0);
	/* a weight before a sample dropped (no task after a cpu switch)
	 * is that sample's, not the next one's */
	sw_esc(&wb, OP_CODE_WEIGHT);
	opd_words_push(&wb, 9);
	sw_cpu(&wb, 1);
	sw_kernel(&wb);
	opd_words_push2(&wb, 0x70, 0);
	sw_ctx(&wb, 1, 0, 1);
	opd_words_push2(&wb, 0x80, 0);
	memset(&l, 0, sizeof(l));
	sink.ctx = &l;
	opd_trans_init(&dec, &sink, "test");
	/* word by word: a weight split from its sample is the same */
	for (size_t i = 0; i < wb.len; i++)
		opd_trans_feed(&dec, wb.w + i, 1);
	opd_trans_finish(&dec);
	check_log(&l, "S 0x10 w500\nS 0x20 w1\nS 0x30 w7\nA 0x40 w7\nT w7\n"
		  "E sample weight 0 out of range 1..4294967295\nS 0x50 w1\n"
		  "E sample weight 18446744073709551615 out of range 1..4294967295\n"
		  "S 0x60 w1\nE sample before its task is known\nS 0x80 w1\n",
		  "ESC WEIGHT counts for the next sample, its arcs and its trace only");
	check(dec.stats.weighted == 2, "two weighted samples counted (%llu)",
	      (unsigned long long)dec.stats.weighted);
	opd_trans_free(&dec);
	opd_words_free(&wb);
}

int main(void)
{
	op_set_progname("opd_trans_test");
	test_opd_trans__every_code();
	test_opd_trans__chunks();
	test_opd_trans__truncated();
	test_opd_trans__bad_input();
	test_opd_trans__frame_event();
	test_opd_trans__unwind_stop();
	test_opd_trans__redefine();
	test_opd_trans__count();
	test_opd_trans__weight();
	test_opd_trans__random();
	return check_done();
}
