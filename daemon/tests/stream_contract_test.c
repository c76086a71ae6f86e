/*
 * The stream contract (libop/op_stream.h) from both producers' sides: the
 * driver's sync encode step (driver/sync_encode.h, the same code the
 * module compiles) and the perf source's emitter (stream_emit.c) are fed
 * the same samples, switches and definitions, and
 *  - the driver's words are what the driver wrote before they shared the
 *    encoders (golden streams, below);
 *  - with every cookie defined up front, both producers write the same
 *    words;
 *  - with definitions left to each producer (they place them differently),
 *    the decoder (opd_trans) sees the same samples, arcs and definitions
 *    in both, and exactly the input, without an error.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "cookie_table.h"
#include "op_stacks.h"
#include "opd_trans.h"
#include "stream_emit.h"
#include "stream_words.h"
#include "sync_encode.h"

#define NR(a) (sizeof(a) / sizeof((a)[0]))

/* --- the input ----------------------------------------------------------- */

struct in_cookie {
	char const *name;
	int anon;
	unsigned long tgid, start, end;
};

/* Cookie i + 1: both producers hand them out in this order. */
static struct in_cookie const cookies[] = {
	{ "/usr/bin/app", 0, 0, 0, 0 },
	{ "/usr/lib/x86_64-linux-gnu/libc.so.6", 0, 0, 0, 0 },
	{ "[heap]", 1, 200, 0x55550000, 0x55571000 },
	{ "/usr/bin/after-exec", 0, 0, 0, 0 },
	{ "/usr/lib/libframe.so.1", 0, 0, 0, 0 },
	{ "//anon", 1, 100, 0x7f0000000000, 0x7f0000010000 },
};

struct in_frame {
	int kernel;
	unsigned long cookie, pc;
};

struct in_sample {
	unsigned long cpu;
	int task;                       /* which task (the driver's pointer) */
	int ctx;                        /* the ring entry carried a context */
	unsigned long tid, tgid, app;
	int kernel;
	unsigned long cookie, pc, event;
	unsigned int nr_frames;
	struct in_frame frames[4];
};

#define K(x) (0xffffffff81000000ul + (x))

/* Without backtraces: task, cpu and mode changes, an exec (same task, new
 * app cookie), another thread of the same process. */
static struct in_sample const plain[] = {
	{ 0, 1, 1, 100, 100, 1, 0, 1, 0x1000, 0, 0, { { 0 } } },
	{ 0, 1, 0, 100, 100, 1, 1, 0, K(0x10), 0, 0, { { 0 } } },
	{ 0, 1, 0, 100, 100, 1, 0, 2, 0x2040, 1, 0, { { 0 } } },
	{ 0, 1, 0, 100, 100, 1, 0, 2, 0x2048, 1, 0, { { 0 } } },
	{ 1, 2, 1, 201, 200, 1, 1, 0, K(0x20), 0, 0, { { 0 } } },
	{ 1, 2, 0, 201, 200, 1, 0, 3, 0x40, 0, 0, { { 0 } } },
	{ 1, 2, 1, 201, 200, 4, 0, 4, 0x50, 0, 0, { { 0 } } },
	{ 0, 1, 0, 100, 100, 1, 1, 0, K(0x30), 1, 0, { { 0 } } },
	{ 1, 3, 1, 202, 200, 4, 0, 4, 0x60, 0, 0, { { 0 } } },
	{ 1, 3, 0, 202, 200, 4, 0, 1, 0x1010, 0, 0, { { 0 } } },
};

/* With backtraces: kernel and user frames, frames in binaries no sample
 * was in yet (their cookies defined on the way), a frameless sample. */
static struct in_sample const traced[] = {
	{ 0, 1, 1, 100, 100, 1, 1, 0, K(0x100), 0, 4,
	  { { 1, 0, K(0x200) }, { 1, 0, K(0x300) }, { 0, 1, 0x1100 },
	    { 0, 2, 0x2200 } } },
	{ 0, 1, 0, 100, 100, 1, 0, 1, 0x1110, 0, 3,
	  { { 0, 5, 0x300 }, { 0, 6, 0x40 }, { 0, 1, 0x1120 } } },
	{ 1, 2, 1, 201, 200, 1, 0, 3, 0x48, 0, 0, { { 0 } } },
	{ 1, 2, 0, 201, 200, 1, 1, 0, K(0x400), 0, 1, { { 1, 0, K(0x500) } } },
	{ 1, 2, 0, 201, 200, 1, 0, 2, 0x2300, 0, 2,
	  { { 0, 2, 0x2400 }, { 0, 1, 0x1130 } } },
};

/* The driver only: a new sampling run (op_start), where the same task's
 * first entry carries its context again, and another task with the same
 * pid (reused): the driver says the task again. */
static struct in_sample const restarted[] = {
	{ 0, 1, 1, 100, 100, 1, 0, 1, 0x1000, 0, 0, { { 0 } } },
	{ 0, 1, 1, 100, 100, 1, 0, 1, 0x1008, 0, 0, { { 0 } } },
	{ 0, 4, 1, 100, 100, 1, 0, 1, 0x1010, 0, 0, { { 0 } } },
};

/* --- the driver's side: buffer_sync.c's use of sync_encode.h -------------- */

struct driver {
	struct op_sync_state ss;
	bool defined[NR(cookies) + 1];
	struct word_buffer *wb;
	unsigned long rec[OP_SYNC_MAX_RECORD(OP_MAX_BACKTRACE_DEPTH)];
};

static struct op_stream_def def_of(unsigned long cookie)
{
	struct in_cookie const *c = &cookies[cookie - 1];

	return (struct op_stream_def){
		.cookie = cookie, .name = c->name, .nbytes = strlen(c->name),
		.anon = c->anon, .tgid = c->tgid, .start = c->start, .end = c->end,
	};
}

static struct op_stream_out driver_out(struct driver *d)
{
	return (struct op_stream_out){ d->rec, 0, NR(d->rec) };
}

static void driver_add(struct driver *d, struct op_stream_out const *o)
{
	check(!op_out_overflowed(o), "driver record of %lu words fits", o->len);
	for (unsigned long i = 0; i < o->len; i++)
		wb_push(d->wb, o->w[i]);
}

/* A definition in a record of its own (buffer_sync.c does this for the
 * frames' cookies). */
static void driver_define(struct driver *d, unsigned long cookie)
{
	struct op_stream_out o = driver_out(d);
	struct op_stream_def def = def_of(cookie);

	if (d->defined[cookie])
		return;
	op_put_def(&o, &def);
	driver_add(d, &o);
	d->defined[cookie] = true;
}

/* What buffer_sync.c's take / resolve / encode do with one sample. */
static void driver_sample(struct driver *d, struct in_sample const *x,
			  int trace)
{
	static char const tasks[8];
	struct op_sync_frame frames[4];
	struct op_stream_def def_app, def;
	struct op_sync_sample s = {
		.cpu = x->cpu, .task = &tasks[x->task],
		.tid = x->tid, .tgid = x->tgid, .app_cookie = x->app,
		.trace = trace, .kernel = x->kernel,
		.cookie = x->kernel ? OP_NO_COOKIE : x->cookie,
		.pc = x->pc, .event = x->event,
		.frames = frames, .nr_frames = x->nr_frames,
	};
	struct op_sync_state n;
	struct op_stream_out o = driver_out(d);

	if (x->ctx) {
		op_sync_new_context(&d->ss, x->cpu, s.task);
		if (!d->defined[x->app]) {
			def_app = def_of(x->app);
			s.def_app = &def_app;
		}
	}
	if (!x->kernel && !d->defined[x->cookie] &&
	    !(s.def_app && s.def_app->cookie == x->cookie)) {
		def = def_of(x->cookie);
		s.def = &def;
	}
	for (unsigned int i = 0; i < x->nr_frames; i++) {
		unsigned long c = x->frames[i].cookie;

		frames[i] = (struct op_sync_frame){
			.pc = x->frames[i].pc, .kernel = x->frames[i].kernel,
			.cookie = x->frames[i].kernel ? OP_NO_COOKIE : c,
		};
		if (!frames[i].kernel && (!s.def_app || s.def_app->cookie != c) &&
		    (!s.def || s.def->cookie != c))
			driver_define(d, c);
	}
	n = d->ss;
	op_sync_encode(&n, &o, &s);
	driver_add(d, &o);
	if (s.def_app)
		d->defined[s.def_app->cookie] = true;
	if (s.def)
		d->defined[s.def->cookie] = true;
	d->ss = n;
}

static void driver_init(struct driver *d, struct word_buffer *wb)
{
	memset(d, 0, sizeof(*d));
	d->wb = wb;
	op_sync_reset(&d->ss);
}

/* --- the perf source's side: perf_records.c's use of stream_emit ---------- */

struct daemon {
	struct cookie_table ct;
	struct stream_emit se;
};

static void daemon_init(struct daemon *p, struct word_buffer *wb)
{
	ct_init(&p->ct);
	for (size_t i = 0; i < NR(cookies); i++) {
		struct in_cookie const *c = &cookies[i];
		unsigned long id = c->anon ?
			ct_new_anon(&p->ct, c->tgid, c->start, c->end, c->name) :
			ct_intern(&p->ct, c->name, strlen(c->name));

		if (id != i + 1)
			check_bail("the cookie table gave cookie %lu, not %zu",
				   id, i + 1);
	}
	se_init(&p->se, wb, &p->ct);
}

static void daemon_sample(struct daemon *p, struct in_sample const *x,
			  int trace)
{
	struct stream_emit *se = &p->se;

	se_cpu(se, x->cpu);
	se_task(se, x->tid, x->tgid, x->app);
	if (trace)
		se_escape(se, OP_CODE_TRACE_BEGIN);
	se_mode(se, x->kernel);
	if (!x->kernel)
		se_cookie(se, x->cookie);
	se_pair(se, x->pc, x->event);
	for (unsigned int i = 0; i < x->nr_frames; i++) {
		struct in_frame const *f = &x->frames[i];

		se_mode(se, f->kernel);
		if (!f->kernel)
			se_cookie(se, f->cookie);
		se_pair(se, f->pc, 0);
	}
}

/* --- the decoder's view ------------------------------------------------- */

struct view_sample {
	unsigned long cpu, tid, tgid, app, cookie, pc, event;
	bool kernel;
};

struct view {
	struct view_sample s[64];
	struct opd_frame arcs[64][2];   /* caller, callee */
	unsigned long defs[16];         /* cookies, in the order defined */
	size_t nr, nr_arcs, nr_defs;
	struct opd_trans dec;
};

static void view_sample(void *ctx, struct opd_transient const *t,
			unsigned long pc, unsigned long event)
{
	struct view *v = ctx;

	if (v->nr < NR(v->s))
		v->s[v->nr++] = (struct view_sample){
			t->cpu, t->tid, t->tgid, t->app_cookie,
			t->in_kernel ? OP_NO_COOKIE : t->cookie, pc, event,
			t->in_kernel,
		};
}

static void view_arc(void *ctx, struct opd_transient const *t,
		     struct opd_frame const *caller,
		     struct opd_frame const *callee)
{
	struct view *v = ctx;

	(void)t;
	if (v->nr_arcs < NR(v->arcs)) {
		v->arcs[v->nr_arcs][0] = *caller;
		v->arcs[v->nr_arcs++][1] = *callee;
	}
}

static void view_def(void *ctx, struct opd_cookie const *c)
{
	struct view *v = ctx;

	if (v->nr_defs < NR(v->defs))
		v->defs[v->nr_defs++] = c->cookie;
}

/* Decode words into v; false on a decoding error. */
static bool view_decode(struct view *v, struct word_buffer const *wb,
			char const *name)
{
	struct opd_sink sink = {
		.ctx = v, .sample = view_sample, .arc = view_arc,
		.cookie_def = view_def, .anon_def = view_def,
	};
	int ret;

	memset(v, 0, sizeof(*v));
	opd_trans_init(&v->dec, &sink, name);
	opd_trans_feed(&v->dec, wb->w, wb->len);
	ret = opd_trans_finish(&v->dec);
	return ret == 0;
}

static bool frame_is(struct opd_frame const *f, int kernel,
		     unsigned long cookie, unsigned long pc)
{
	return f->in_kernel == !!kernel && f->pc == pc &&
	       (kernel || f->cookie == cookie);
}

/* The decoder saw exactly the input, each cookie defined, and the
 * definitions carry the input's names. */
static void check_view_is_input(struct view *v, struct in_sample const *in,
				size_t n, char const *what)
{
	size_t arc = 0;
	bool same = v->nr == n;

	for (size_t i = 0; same && i < n; i++) {
		struct view_sample const *s = &v->s[i];
		struct in_sample const *x = &in[i];

		same = s->cpu == x->cpu && s->tid == x->tid &&
		       s->tgid == x->tgid && s->app == x->app &&
		       s->kernel == !!x->kernel && s->pc == x->pc &&
		       s->event == x->event &&
		       (x->kernel || s->cookie == x->cookie);
		for (unsigned int f = 0; same && f < x->nr_frames; f++, arc++) {
			struct in_frame const *callee = f ? &x->frames[f - 1] : NULL;
			struct in_frame const *caller = &x->frames[f];

			same = arc < v->nr_arcs &&
			       frame_is(&v->arcs[arc][0], caller->kernel,
					caller->cookie, caller->pc) &&
			       (callee ? frame_is(&v->arcs[arc][1], callee->kernel,
						  callee->cookie, callee->pc) :
				frame_is(&v->arcs[arc][1], x->kernel, x->cookie,
					 x->pc));
		}
	}
	check(same && arc == v->nr_arcs,
	      "%s: the decoder sees the %zu input samples and their arcs", what, n);
	for (size_t i = 0; i < v->nr_defs; i++) {
		struct opd_cookie const *c = opd_trans_cookie(&v->dec, v->defs[i]);
		struct in_cookie const *want = &cookies[v->defs[i] - 1];

		same = c && !strcmp(c->name, want->name) && c->anon == !!want->anon &&
		       (!c->anon || (c->tgid == want->tgid &&
				     c->start == want->start && c->end == want->end));
		if (!same)
			break;
	}
	check(same, "%s: the %zu definitions are the input's", what, v->nr_defs);
	opd_trans_free(&v->dec);
}

static bool same_words(struct word_buffer const *a, struct word_buffer const *b)
{
	return a->len == b->len && !memcmp(a->w, b->w, a->len * sizeof(*a->w));
}

static void note_diff(struct word_buffer const *a, struct word_buffer const *b)
{
	size_t i;

	for (i = 0; i < a->len && i < b->len && a->w[i] == b->w[i]; i++)
		;
	check_note("lengths %zu and %zu, first difference at word %zu",
		   a->len, b->len, i);
}

/* --- the golden streams -------------------------------------------------- */

/*
 * What the driver's sync wrote for the input before it encoded through
 * op_stream.h (its own rec_put/rec_def/rec_mode/rec_cookie, run on the
 * input above), so the module's stream is unchanged word for word. These
 * helpers and stream_words.h's write the records by hand, as
 * doc/formats.md lists them.
 */
static void trace_begin(struct word_buffer *g)
{
	sw_esc(g, OP_CODE_TRACE_BEGIN);
}

static void def(struct word_buffer *g, unsigned long cookie)
{
	struct in_cookie const *c = &cookies[cookie - 1];

	if (c->anon)
		sw_anon_def(g, cookie, c->tgid, c->start, c->end, c->name);
	else
		sw_cookie_def(g, cookie, c->name);
}

static void pair(struct word_buffer *g, unsigned long pc, unsigned long event)
{
	wb_push2(g, pc, event);
}

static void frame(struct word_buffer *g, unsigned long pc)
{
	wb_push2(g, pc, 0);
}

static void golden_plain(struct word_buffer *g)
{
	/* sample 0 */
	sw_cpu(g, 0);
	def(g, 1);
	sw_ctx(g, 100, 1, 100);
	sw_user(g);
	sw_cookie(g, 1);
	pair(g, 0x1000, 0);
	/* sample 1 */
	sw_kernel(g);
	pair(g, K(0x10), 0);
	/* sample 2 */
	def(g, 2);
	sw_user(g);
	sw_cookie(g, 2);
	pair(g, 0x2040, 1);
	/* sample 3 */
	pair(g, 0x2048, 1);
	/* sample 4 */
	sw_cpu(g, 1);
	sw_ctx(g, 201, 1, 200);
	sw_kernel(g);
	pair(g, K(0x20), 0);
	/* sample 5 */
	def(g, 3);
	sw_user(g);
	sw_cookie(g, 3);
	pair(g, 0x40, 0);
	/* sample 6 */
	def(g, 4);
	sw_ctx(g, 201, 4, 200);
	sw_cookie(g, 4);
	pair(g, 0x50, 0);
	/* sample 7 */
	sw_cpu(g, 0);
	sw_ctx(g, 100, 1, 100);
	sw_kernel(g);
	pair(g, K(0x30), 1);
	/* sample 8 */
	sw_cpu(g, 1);
	sw_ctx(g, 202, 4, 200);
	sw_user(g);
	sw_cookie(g, 4);
	pair(g, 0x60, 0);
	/* sample 9 */
	sw_cookie(g, 1);
	pair(g, 0x1010, 0);
}

static void golden_traced(struct word_buffer *g)
{
	/* sample 0 */
	def(g, 2);	/* a frame's, in a record of its own */
	sw_cpu(g, 0);
	def(g, 1);
	sw_ctx(g, 100, 1, 100);
	trace_begin(g);
	sw_kernel(g);
	pair(g, K(0x100), 0);
	frame(g, K(0x200));
	frame(g, K(0x300));
	sw_user(g);
	sw_cookie(g, 1);
	frame(g, 0x1100);
	sw_cookie(g, 2);
	frame(g, 0x2200);
	/* sample 1 */
	def(g, 5);	/* a frame's, in a record of its own */
	def(g, 6);	/* a frame's, in a record of its own */
	trace_begin(g);
	sw_cookie(g, 1);
	pair(g, 0x1110, 0);
	sw_cookie(g, 5);
	frame(g, 0x300);
	sw_cookie(g, 6);
	frame(g, 0x40);
	sw_cookie(g, 1);
	frame(g, 0x1120);
	/* sample 2 */
	sw_cpu(g, 1);
	def(g, 3);
	sw_ctx(g, 201, 1, 200);
	trace_begin(g);
	sw_user(g);
	sw_cookie(g, 3);
	pair(g, 0x48, 0);
	/* sample 3 */
	trace_begin(g);
	sw_kernel(g);
	pair(g, K(0x400), 0);
	frame(g, K(0x500));
	/* sample 4 */
	trace_begin(g);
	sw_user(g);
	sw_cookie(g, 2);
	pair(g, 0x2300, 0);
	frame(g, 0x2400);
	sw_cookie(g, 1);
	frame(g, 0x1130);
}

static void golden_restarted(struct word_buffer *g)
{
	/* sample 0 */
	sw_cpu(g, 0);
	def(g, 1);
	sw_ctx(g, 100, 1, 100);
	sw_user(g);
	sw_cookie(g, 1);
	pair(g, 0x1000, 0);
	/* sample 1 */
	sw_ctx(g, 100, 1, 100);
	sw_cookie(g, 1);
	pair(g, 0x1008, 0);
	/* sample 2 */
	sw_ctx(g, 100, 1, 100);
	sw_cookie(g, 1);
	pair(g, 0x1010, 0);
}

static void check_golden(struct word_buffer const *got,
			 void (*golden)(struct word_buffer *), char const *what)
{
	struct word_buffer want;

	wb_init(&want);
	golden(&want);
	if (!check(same_words(got, &want),
		   "%s: the driver's words are the golden stream", what))
		note_diff(got, &want);
	wb_free(&want);
}

/* --- the scenarios ------------------------------------------------------- */

static void run_driver(struct word_buffer *wb, struct in_sample const *in,
		       size_t n, int trace, bool predefine)
{
	struct driver d;

	driver_init(&d, wb);
	for (unsigned long c = 1; predefine && c <= NR(cookies); c++)
		driver_define(&d, c);
	for (size_t i = 0; i < n; i++)
		driver_sample(&d, &in[i], trace);
}

static void run_daemon(struct word_buffer *wb, struct in_sample const *in,
		       size_t n, int trace, bool predefine)
{
	struct daemon p;

	daemon_init(&p, wb);
	for (unsigned long c = 1; predefine && c <= NR(cookies); c++)
		se_define(&p.se, c);
	for (size_t i = 0; i < n; i++)
		daemon_sample(&p, &in[i], trace);
	ct_free(&p.ct);
}

static void scenario(char const *what, struct in_sample const *in, size_t n,
		     int trace, void (*golden)(struct word_buffer *))
{
	struct word_buffer drv, dmn;
	struct view v;
	char name[64];

	/* every cookie defined up front: the same words */
	wb_init(&drv);
	wb_init(&dmn);
	run_driver(&drv, in, n, trace, true);
	run_daemon(&dmn, in, n, trace, true);
	if (!check(same_words(&drv, &dmn),
		   "%s, cookies defined first: driver and daemon write the same words",
		   what))
		note_diff(&drv, &dmn);
	snprintf(name, sizeof(name), "%s (predefined)", what);
	check(view_decode(&v, &drv, name), "%s: decodes without an error", name);
	check_view_is_input(&v, in, n, name);

	/* each producer defines cookies its own way */
	wb_reset(&drv);
	wb_reset(&dmn);
	run_driver(&drv, in, n, trace, false);
	run_daemon(&dmn, in, n, trace, false);
	check_golden(&drv, golden, what);
	snprintf(name, sizeof(name), "%s (driver)", what);
	check(view_decode(&v, &drv, name), "%s: decodes without an error", name);
	check_view_is_input(&v, in, n, name);
	snprintf(name, sizeof(name), "%s (daemon)", what);
	check(view_decode(&v, &dmn, name), "%s: decodes without an error", name);
	check_view_is_input(&v, in, n, name);
	wb_free(&drv);
	wb_free(&dmn);
}

/* --- the encoders' details ---------------------------------------------- */

static void test_strings(void)
{
	static char const s[] = "/usr/lib/x86_64-linux-gnu/a.so";
	bool same = true;

	/* op_put_string packs as the daemon's word buffer always did */
	for (unsigned long n = 1; n < sizeof(s) && same; n++) {
		unsigned long w[8];
		struct op_stream_out o = { w, 0, NR(w) };
		struct word_buffer wb;

		wb_init(&wb);
		op_put_string(&o, s, n);
		wb_push_string(&wb, s, n);
		same = o.len == OP_NAME_WORDS(n) && o.len == wb.len &&
		       !memcmp(w, wb.w, o.len * sizeof(*w));
		wb_free(&wb);
	}
	check(same, "op_put_string packs names as wb_push_string");
}

static void test_out_bound(void)
{
	unsigned long w[4] = { 0, 0, 0, 7 };
	struct op_stream_out o = { w, 0, 3 };

	op_put_lost(&o, OP_LOST_NO_MM, 5);
	check(op_out_overflowed(&o) && o.len == OP_WORDS_LOST && w[3] == 7,
	      "a record longer than its room is flagged, nothing written past it");
}

static void test_names(void)
{
	check_str(op_lost_name(OP_LOST_OVERFLOW), "sample_lost_overflow",
		  "lost category 1's stats name");
	check_str(op_lost_name(OP_LOST_THROTTLED), "sample_lost_throttled",
		  "lost category 7's stats name");
	check(!op_lost_name(0) && !op_lost_name(OP_LOST_CATEGORY_MAX),
	      "no name outside the lost categories");
	check_str(op_count_name(OP_COUNT_MAPS_REREAD_GONE), "maps_reread_gone",
		  "counter 3's stats name");
	check(!op_count_name(0) && !op_count_name(OP_COUNT_MAX),
	      "no name outside the counters");
	check_int(OP_MAX_RECORD, 7 + OP_MAX_NAME / sizeof(unsigned long),
		  "the longest record: an ANON_DEF with the longest name");
}

/* ESC UNWIND_STOP reason: its encoder's words, and the decoder ends the
 * trace with that reason (decoder details: opd_trans_test). */
static void trace_stop(void *ctx, struct opd_trace const *tr)
{
	*(unsigned long *)ctx = tr->stop + 1;
}

static void test_unwind_stop(void)
{
	unsigned long w[3] = { 0 };
	struct op_stream_out o = { w, 0, NR(w) };
	unsigned long head[] = { OP_ESCAPE_CODE, OP_CODE_CPU_SWITCH, 0,
				 OP_ESCAPE_CODE, OP_CODE_CTX_SWITCH, 1, 0,
				 OP_ESCAPE_CODE, OP_CODE_CTX_TGID, 1,
				 OP_ESCAPE_CODE, OP_CODE_KERNEL_ENTER,
				 OP_ESCAPE_CODE, OP_CODE_TRACE_BEGIN, 0x10, 0,
				 0x20, 0 };
	unsigned long got = 0;
	struct opd_sink sink = { .ctx = &got, .trace = trace_stop };
	struct opd_trans dec;

	op_put_unwind_stop(&o, OP_UNWIND_STACK_END);
	check(o.len == OP_WORDS_UNWIND_STOP && w[0] == OP_ESCAPE_CODE &&
	      w[1] == 40 && w[2] == OP_UNWIND_STACK_END,
	      "UNWIND_STOP is ESC 40 reason");
	opd_trans_init(&dec, &sink, "unwind_stop");
	opd_trans_feed(&dec, head, NR(head));
	check(!got, "a trace is not delivered before it ends");
	opd_trans_feed(&dec, w, o.len);
	check(got == OP_UNWIND_STACK_END + 1 && !dec.stats.errors,
	      "UNWIND_STOP ends the trace with its reason");
	opd_trans_free(&dec);
}

static void test_known_after(void)
{
	unsigned int all = OP_KNOWN_CPU | OP_KNOWN_TASK | OP_KNOWN_MODE |
			   OP_KNOWN_COOKIE;

	check_int(op_known_after(all, OP_CODE_CPU_SWITCH), OP_KNOWN_CPU,
		  "CPU_SWITCH forgets task, mode and cookie");
	check_int(op_known_after(all, OP_CODE_CTX_SWITCH), all & ~OP_KNOWN_COOKIE,
		  "CTX_SWITCH forgets the cookie only");
	check_int(op_known_after(all & ~OP_KNOWN_MODE, OP_CODE_USER_ENTER), all,
		  "USER_ENTER keeps the cookie");
	check_int(op_known_after(OP_KNOWN_CPU, OP_CODE_LOST), OP_KNOWN_CPU,
		  "LOST changes nothing");
}

int main(void)
{
	test_names();
	test_known_after();
	test_strings();
	test_out_bound();
	test_unwind_stop();
	scenario("plain", plain, NR(plain), 0, golden_plain);
	scenario("traced", traced, NR(traced), 1, golden_traced);
	{
		/* the driver alone: a restart says the same task again */
		struct word_buffer drv;
		struct view v;

		wb_init(&drv);
		run_driver(&drv, restarted, NR(restarted), 0, false);
		check_golden(&drv, golden_restarted, "restarted");
		check(view_decode(&v, &drv, "restarted"),
		      "restarted: decodes without an error");
		check_view_is_input(&v, restarted, NR(restarted), "restarted");
		wb_free(&drv);
	}
	return check_done();
}
