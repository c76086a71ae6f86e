/*
 * The stream contract (libop/op_stream.h) from both producers' sides: the
 * driver's sync encode step (driver/sync_encode.h, the same code the
 * module compiles) and the perf source's emitter (opd_emit.c) are fed
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
#include "opd_cookie.h"
#include "op_stacks.h"
#include "opd_trans.h"
#include "opd_emit.h"
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
		opd_words_push(d->wb, o->w[i]);
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

/* --- the perf source's side: opd_perf_records.c's use of stream_emit ---------- */

struct daemon {
	struct cookie_table ct;
	struct stream_emit se;
};

static void daemon_init(struct daemon *p, struct word_buffer *wb)
{
	opd_cookie_init(&p->ct);
	for (size_t i = 0; i < NR(cookies); i++) {
		struct in_cookie const *c = &cookies[i];
		unsigned long id = c->anon ?
			opd_cookie_new_anon(&p->ct, c->tgid, c->start, c->end, c->name) :
			opd_cookie_intern(&p->ct, c->name, strlen(c->name));

		if (id != i + 1)
			check_bail("the cookie table gave cookie %lu, not %zu",
				   id, i + 1);
	}
	opd_emit_init(&p->se, wb, &p->ct);
}

static void daemon_sample(struct daemon *p, struct in_sample const *x,
			  int trace)
{
	struct stream_emit *se = &p->se;

	opd_emit_cpu(se, x->cpu);
	opd_emit_task(se, x->tid, x->tgid, x->app);
	if (trace)
		opd_emit_escape(se, OP_CODE_TRACE_BEGIN);
	opd_emit_mode(se, x->kernel);
	if (!x->kernel)
		opd_emit_cookie(se, x->cookie);
	opd_emit_pair(se, x->pc, x->event);
	for (unsigned int i = 0; i < x->nr_frames; i++) {
		struct in_frame const *f = &x->frames[i];

		opd_emit_mode(se, f->kernel);
		if (!f->kernel)
			opd_emit_cookie(se, f->cookie);
		opd_emit_pair(se, f->pc, 0);
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

static void view_error_quiet(void *ctx, uint64_t pos, char const *msg)
{
	(void)ctx;
	(void)pos;
	(void)msg;
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
	opd_words_push2(g, pc, event);
}

static void frame(struct word_buffer *g, unsigned long pc)
{
	opd_words_push2(g, pc, 0);
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

	opd_words_init(&want);
	golden(&want);
	if (!check(same_words(got, &want),
		   "%s: the driver's words are the golden stream", what))
		note_diff(got, &want);
	opd_words_free(&want);
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
		opd_emit_define(&p.se, c);
	for (size_t i = 0; i < n; i++)
		daemon_sample(&p, &in[i], trace);
	opd_cookie_free(&p.ct);
}

static void scenario(char const *what, struct in_sample const *in, size_t n,
		     int trace, void (*golden)(struct word_buffer *))
{
	struct word_buffer drv, dmn;
	struct view v;
	char name[64];

	/* every cookie defined up front: the same words */
	opd_words_init(&drv);
	opd_words_init(&dmn);
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
	opd_words_reset(&drv);
	opd_words_reset(&dmn);
	run_driver(&drv, in, n, trace, false);
	run_daemon(&dmn, in, n, trace, false);
	check_golden(&drv, golden, what);
	snprintf(name, sizeof(name), "%s (driver)", what);
	check(view_decode(&v, &drv, name), "%s: decodes without an error", name);
	check_view_is_input(&v, in, n, name);
	snprintf(name, sizeof(name), "%s (daemon)", what);
	check(view_decode(&v, &dmn, name), "%s: decodes without an error", name);
	check_view_is_input(&v, in, n, name);
	opd_words_free(&drv);
	opd_words_free(&dmn);
}

/* --- the encoders' details ---------------------------------------------- */

static void test_stream_contract__strings(void)
{
	static char const s[] = "/usr/lib/x86_64-linux-gnu/a.so";
	bool same = true;

	/* op_put_string packs as the daemon's word buffer always did */
	for (unsigned long n = 1; n < sizeof(s) && same; n++) {
		unsigned long w[8];
		struct op_stream_out o = { w, 0, NR(w) };
		struct word_buffer wb;

		opd_words_init(&wb);
		op_put_string(&o, s, n);
		opd_words_push_string(&wb, s, n);
		same = o.len == OP_NAME_WORDS(n) && o.len == wb.len &&
		       !memcmp(w, wb.w, o.len * sizeof(*w));
		opd_words_free(&wb);
	}
	check(same, "op_put_string packs names as opd_words_push_string");
}

static void test_stream_contract__out_bound(void)
{
	unsigned long w[4] = { 0, 0, 0, 7 };
	struct op_stream_out o = { w, 0, 3 };

	op_put_lost(&o, OP_LOST_NO_MM, 5);
	check(op_out_overflowed(&o) && o.len == OP_WORDS_LOST && w[3] == 7,
	      "a record longer than its room is flagged, nothing written past it");
}

static void test_stream_contract__names(void)
{
	check_str(op_lost_name(OP_LOST_OVERFLOW), "sample_lost_overflow",
		  "lost category 1's stats name");
	check_str(op_lost_name(OP_LOST_THROTTLED), "sample_lost_throttled",
		  "lost category 7's stats name");
	check(!op_lost_name(0) && !op_lost_name(OP_LOST_CATEGORY_MAX),
	      "no name outside the lost categories");
	check_str(op_count_name(OP_COUNT_UNWIND_RULES_FLUSHED),
		  "unwind_rules_flushed", "counter 5's file name");
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

static void test_stream_contract__unwind_stop(void)
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

static void test_stream_contract__known_after(void)
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

/* --- ESC BUILD_ID: the perf source's build-ids reach the decoder ------- */

static unsigned char const id_a[20] = {
	0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99,
	0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff, 0x01, 0x02, 0x03, 0x04,
};

static struct ct_file_id with_build_id(unsigned char const *id, size_t n)
{
	struct ct_file_id f = { .build_id_len = (uint8_t)n };

	memcpy(f.build_id, id, n);
	return f;
}

/* The words a hand-written ESC BUILD_ID cookie n bytes... takes. */
static void put_build_id(struct word_buffer *wb, unsigned long cookie,
			 unsigned char const *id, unsigned long n)
{
	unsigned long w[8];
	struct op_stream_out o = { w, 0, NR(w) };

	op_put_build_id(&o, cookie, id, n);
	for (unsigned long i = 0; i < o.len; i++)
		opd_words_push(wb, w[i]);
}

static void test_stream_contract__build_id_words(void)
{
	struct daemon p;
	struct word_buffer wb;
	struct view v;
	struct opd_cookie const *c;
	unsigned long k, plain_lib;
	size_t at;

	opd_words_init(&wb);
	opd_cookie_init(&p.ct);
	k = opd_cookie_intern_file(&p.ct, "/usr/bin/app", 12, with_build_id(id_a, 20));
	plain_lib = opd_cookie_intern(&p.ct, "/usr/lib/libnoid.so", 19);
	opd_emit_init(&p.se, &wb, &p.ct);
	opd_emit_define(&p.se, k);
	opd_emit_define(&p.se, plain_lib);
	at = OP_WORDS_DEF(12, 0);
	check(wb.len == at + OP_WORDS_BUILD_ID(20) + OP_WORDS_DEF(19, 0) &&
	      wb.w[at] == OP_ESCAPE_CODE && wb.w[at + 1] == OP_CODE_BUILD_ID &&
	      wb.w[at + 2] == k && wb.w[at + 3] == 20 &&
	      !memcmp(&wb.w[at + 4], id_a, 20),
	      "a binary with a build-id: ESC BUILD_ID cookie 20 bytes right after its COOKIE_DEF, none for one without");
	/* a new stream defines both again: the same build-id is no error */
	opd_cookie_new_stream(&p.ct);
	opd_emit_reset(&p.se);
	opd_emit_define(&p.se, k);
	check(view_decode(&v, &wb, "build-id"), "build-id: decodes without an error (defined twice)");
	c = opd_trans_cookie(&v.dec, k);
	check(c && c->build_id_len == 20 && !memcmp(c->build_id, id_a, 20),
	      "the decoder keeps the cookie's build-id");
	c = opd_trans_cookie(&v.dec, plain_lib);
	check(c && !c->build_id_len, "a cookie without ESC BUILD_ID has none");
	opd_trans_free(&v.dec);

	/* another build-id for the cookie, an undefined cookie, bad lengths */
	put_build_id(&wb, k, id_a + 1, 19);
	check(!view_decode(&v, &wb, "build-id"), "another build-id for a cookie is an error");
	c = opd_trans_cookie(&v.dec, k);
	check(c && c->build_id_len == 20 && !memcmp(c->build_id, id_a, 20),
	      "... and the first one stays");
	opd_trans_free(&v.dec);
	opd_words_reset(&wb);
	put_build_id(&wb, 77, id_a, 20);
	check(!view_decode(&v, &wb, "build-id"), "the build-id of an undefined cookie is an error");
	opd_trans_free(&v.dec);
	opd_words_reset(&wb);
	opd_words_push2(&wb, OP_ESCAPE_CODE, OP_CODE_BUILD_ID);
	opd_words_push2(&wb, k, OP_MAX_BUILD_ID + 1);
	check(!view_decode(&v, &wb, "build-id"), "a build-id longer than %d bytes is an error",
	      OP_MAX_BUILD_ID);
	opd_trans_free(&v.dec);
	opd_words_free(&wb);
	opd_cookie_free(&p.ct);
}

/* A binary first met in a backtrace frame: its COOKIE_DEF and BUILD_ID
 * between the frames do not end the trace. */
static void test_stream_contract__build_id_in_trace(void)
{
	static struct in_sample const in = {
		0, 1, 1, 100, 100, 1, 0, 1, 0x1000, 0, 1,
		{ { 0, 2, 0x2000 } },
	};
	struct daemon p;
	struct word_buffer wb;
	struct view v;

	opd_words_init(&wb);
	opd_cookie_init(&p.ct);
	opd_cookie_intern(&p.ct, "/usr/bin/app", 12);
	opd_cookie_intern_file(&p.ct, "/usr/lib/libid.so", 17, with_build_id(id_a, 20));
	opd_emit_init(&p.se, &wb, &p.ct);
	daemon_sample(&p, &in, 1);
	check(view_decode(&v, &wb, "trace"), "trace with a build-id: decodes without an error");
	check(v.nr == 1 && v.nr_arcs == 1 && frame_is(&v.arcs[0][0], 0, 2, 0x2000),
	      "the frame in the binary defined mid-trace is still an arc");
	opd_trans_free(&v.dec);
	opd_words_free(&wb);
	opd_cookie_free(&p.ct);
}

/* --- COOKIE_FORGET ------------------------------------------------------ */

static unsigned long forget_seen;

static void forget_sink(void *ctx, struct opd_cookie const *c)
{
	(void)ctx;
	forget_seen = c->cookie;
}

/* Decode o's words: the decoder's errors, samples and definitions held. */
static void forget_decode(struct op_stream_out const *o, unsigned long *errors,
			  unsigned long *samples, unsigned long *held,
			  unsigned long *forgotten)
{
	struct opd_sink sink = { .cookie_forget = forget_sink,
				 .error = view_error_quiet };
	struct opd_trans dec;

	opd_trans_init(&dec, &sink, "forget");
	opd_trans_feed(&dec, o->w, o->len);
	opd_trans_finish(&dec);
	*errors = dec.stats.errors;
	*samples = dec.stats.samples;
	*held = op_hashmap_size(&dec.tab);
	*forgotten = dec.stats.forgotten;
	opd_trans_free(&dec);
}

static void test_stream_contract__cookie_forget(void)
{
	static unsigned long w[256];
	struct op_stream_out o = { w, 0, NR(w) };
	struct op_stream_state s;
	struct op_stream_def app = def_of(1), lib = def_of(2), again = def_of(2);
	unsigned long errors, samples, held, forgotten;

	op_stream_reset(&s);
	op_put_cpu(&s, &o, 0);
	op_put_def(&o, &app);
	op_put_def(&o, &lib);
	op_put_task(&s, &o, 100, 100, 1);
	op_put_mode(&s, &o, 0);
	op_put_cookie(&s, &o, 2);
	op_put_pair(&o, 0x40, 0);
	/* the driver freed the library's cookie, then the app's */
	op_put_cookie_forget(&s, &o, 2);
	check(!(s.known & OP_KNOWN_COOKIE) && (s.known & OP_KNOWN_TASK),
	      "forgetting the current cookie forgets the cookie part only");
	op_put_cookie_forget(&s, &o, 1);
	check(!(s.known & OP_KNOWN_TASK), "forgetting the app cookie forgets the task");
	check_int(o.len, OP_WORDS_CPU_SWITCH + OP_WORDS_DEF(app.nbytes, 0) +
		  OP_WORDS_DEF(lib.nbytes, 0) + OP_WORDS_CTX_SWITCH +
		  OP_WORDS_ESCAPE + OP_WORDS_COOKIE_SWITCH + OP_WORDS_PAIR +
		  2 * OP_WORDS_COOKIE_FORGET, "COOKIE_FORGET is 3 words");
	/* the library sampled again: a fresh cookie, a new definition */
	again.cookie = 7;
	op_put_def(&o, &again);
	op_put_task(&s, &o, 100, 100, OP_NO_COOKIE);
	op_put_cookie(&s, &o, 7);
	op_put_pair(&o, 0x48, 0);
	forget_decode(&o, &errors, &samples, &held, &forgotten);
	check_int(errors, 0, "a stream with forgets decodes without an error");
	check_int(samples, 2, "both samples decoded");
	check_int(held, 1, "the decoder holds only the definition in use");
	check_int(forgotten, 2, "two definitions dropped");
	check_int(forget_seen, 1, "the consumer is told before each drop");

	/* a forgotten cookie used again without a definition is an error,
	 * and so is forgetting a cookie never defined */
	o.len = 0;
	op_stream_reset(&s);
	op_put_cpu(&s, &o, 0);
	op_put_def(&o, &app);
	op_put_task(&s, &o, 100, 100, 1);
	op_put_mode(&s, &o, 0);
	op_put_cookie(&s, &o, 1);
	op_put_escape(&o, OP_CODE_COOKIE_FORGET);
	op_put(&o, 1);
	op_put_pair(&o, 0x40, 0);
	op_put_escape(&o, OP_CODE_COOKIE_SWITCH);
	op_put(&o, 1);
	op_put_escape(&o, OP_CODE_COOKIE_FORGET);
	op_put(&o, 9);
	forget_decode(&o, &errors, &samples, &held, &forgotten);
	check_int(errors, 3, "a sample after the forget, a switch to the "
		  "forgotten cookie and a forget of an undefined one are errors");
	check_int(samples + held, 0, "nothing decoded or kept after the forget");
}

/* The first sample's time seen by a sink, and each sample's. */
struct time_view {
	uint64_t t[8];
	size_t n;
};

static void time_sample(void *ctx, struct opd_transient const *t,
			unsigned long pc, unsigned long event)
{
	struct time_view *v = ctx;

	(void)pc;
	(void)event;
	if (v->n < NR(v->t))
		v->t[v->n++] = t->time;
}

/* ESC TIME: written when due, kept across a cpu switch, optional. */
static void test_stream_contract__time(void)
{
	unsigned long const G = OP_TIME_GRANULARITY_NS, t0 = 5000000000UL;
	unsigned long const at[] = { t0, t0 + G / 2, t0 + G, t0 + 3 * G };
	struct word_buffer wb;
	struct cookie_table ct;
	struct stream_emit se;
	struct time_view v = { { 0 }, 0 };
	struct opd_sink sink = { .ctx = &v, .sample = time_sample };
	struct opd_trans dec;
	size_t times = 0;

	opd_words_init(&wb);
	opd_cookie_init(&ct);
	opd_emit_init(&se, &wb, &ct);
	for (size_t i = 0; i < NR(at); i++) {
		opd_emit_time(&se, at[i]);
		opd_emit_cpu(&se, i);	/* a cpu switch each time: time is kept */
		opd_emit_task(&se, 7, 7, OP_NO_COOKIE);
		opd_emit_mode(&se, true);
		opd_emit_pair(&se, 0xffffffff81000000UL + i, 0);
	}
	for (size_t i = 0; i + 1 < wb.len; i++)
		times += wb.w[i] == OP_ESCAPE_CODE && wb.w[i + 1] == OP_CODE_TIME;
	check_int(times, 3, "TIME written before the first sample and then "
		  "only when time advanced by the granularity");
	opd_trans_init(&dec, &sink, "time");
	opd_trans_feed(&dec, wb.w, wb.len);
	check(opd_trans_finish(&dec) == 0 && v.n == 4,
	      "a stream with TIME codes decodes without an error");
	check(v.t[0] == t0 && v.t[1] == t0 && v.t[2] == t0 + G &&
	      v.t[3] == t0 + 3 * G,
	      "each sample carries the last TIME, across cpu switches");
	check_int(dec.stats.times, 3, "the decoder counts TIME records");
	opd_trans_free(&dec);

	/* a stream without TIME (the driver's, an older one): time 0 */
	opd_words_reset(&wb);
	opd_emit_reset(&se);
	v.n = 0;
	opd_emit_cpu(&se, 0);
	opd_emit_task(&se, 7, 7, OP_NO_COOKIE);
	opd_emit_mode(&se, true);
	opd_emit_pair(&se, 0xffffffff81000000UL, 0);
	opd_trans_init(&dec, &sink, "no time");
	opd_trans_feed(&dec, wb.w, wb.len);
	check(opd_trans_finish(&dec) == 0 && v.n == 1 && v.t[0] == 0,
	      "a stream without TIME decodes, its samples have time 0");
	opd_trans_free(&dec);
	opd_cookie_free(&ct);
	opd_words_free(&wb);
}

int main(void)
{
	test_stream_contract__names();
	test_stream_contract__time();
	test_stream_contract__known_after();
	test_stream_contract__strings();
	test_stream_contract__out_bound();
	test_stream_contract__build_id_words();
	test_stream_contract__build_id_in_trace();
	test_stream_contract__cookie_forget();
	test_stream_contract__unwind_stop();
	scenario("plain", plain, NR(plain), 0, golden_plain);
	scenario("traced", traced, NR(traced), 1, golden_traced);
	{
		/* the driver alone: a restart says the same task again */
		struct word_buffer drv;
		struct view v;

		opd_words_init(&drv);
		run_driver(&drv, restarted, NR(restarted), 0, false);
		check_golden(&drv, golden_restarted, "restarted");
		check(view_decode(&v, &drv, "restarted"),
		      "restarted: decodes without an error");
		check_view_is_input(&v, restarted, NR(restarted), "restarted");
		opd_words_free(&drv);
	}
	return check_done();
}
