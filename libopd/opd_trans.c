/*
 * The stream decoder; see opd_trans.h for the contract and op_stream.h for
 * what each escape does to the transient state. Framing errors (unknown
 * code, bad length, a pair cut by an escape) resynchronise at the next
 * escape word; context errors (a sample before its cpu, task, mode or
 * cookie is known) drop just that record.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "op_message.h"
#include "op_stacks.h"
#include "op_util.h"
#include "opd_trans.h"

#define ESC OP_ESCAPE_CODE
#define W sizeof(unsigned long)
/* Errors printed to stderr before the rest are only counted. */
#define MAX_PRINTED_ERRORS 20

static char const *const code_names[OP_CODE_LAST] = {
	[OP_CODE_CTX_SWITCH] = "ctx_switch",
	[OP_CODE_CPU_SWITCH] = "cpu_switch",
	[OP_CODE_COOKIE_SWITCH] = "cookie_switch",
	[OP_CODE_KERNEL_ENTER] = "kernel_enter",
	[OP_CODE_USER_ENTER] = "user_enter",
	[OP_CODE_MODULE_LOADED] = "module_loaded",
	[OP_CODE_CTX_TGID] = "ctx_tgid",
	[OP_CODE_TRACE_BEGIN] = "trace_begin",
	[OP_CODE_TRACE_END] = "trace_end",
	[OP_CODE_COOKIE_DEF] = "cookie_def",
	[OP_CODE_ANON_DEF] = "anon_def",
	[OP_CODE_LOST] = "lost",
	[OP_CODE_KERNEL_IMAGE] = "kernel_image",
	[OP_CODE_COUNT] = "count",
	[OP_CODE_BUILD_ID] = "build_id",
	[OP_CODE_COOKIE_FORGET] = "cookie_forget",
	[OP_CODE_TIME] = "time",
	[OP_CODE_UNWIND_STOP] = "unwind_stop",
	[OP_CODE_WEIGHT] = "weight",
};

char const *opd_code_name(unsigned long code)
{
	return code < OP_CODE_LAST ? code_names[code] : NULL;
}

static int cookie_cmp(void const *data, struct op_hashmap_entry const *a,
		      struct op_hashmap_entry const *b, void const *key);
static void cookie_free(struct op_hashmap_entry *e);

void opd_trans_init(struct opd_trans *dec, struct opd_sink const *sink,
		    char const *name)
{
	static struct opd_sink const none;

	memset(dec, 0, offsetof(struct opd_trans, carry));
	dec->t.weight = 1;
	dec->sink = sink ? sink : &none;
	dec->name = name ? name : "stream";
	op_hashmap_init(&dec->tab, cookie_cmp, NULL, 0);
}

void opd_trans_free(struct opd_trans *dec)
{
	op_hashmap_clear(&dec->tab, cookie_free);
}

/* Count an error at word pos and say so (first few only). */
__attribute__((format(printf, 3, 4)))
static void error_at(struct opd_trans *dec, uint64_t pos, char const *fmt, ...)
{
	char msg[256];
	va_list ap;

	dec->stats.errors++;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (dec->sink->error) {
		dec->sink->error(dec->sink->ctx, pos, msg);
		return;
	}
	if (dec->errors_printed++ < MAX_PRINTED_ERRORS)
		op_error("malformed stream '%s' at word %llu: %s", dec->name,
			 (unsigned long long)pos, msg);
	if (dec->errors_printed == MAX_PRINTED_ERRORS)
		op_warn("further errors in stream '%s' are only counted",
			dec->name);
}

/* Hand the trace collected so far to the sink. */
static void end_trace(struct opd_trans *dec)
{
	if (!dec->tr_active)
		return;
	dec->tr_active = false;
	dec->sink->trace(dec->sink->ctx, &dec->tr);
}

/* A framing error: the words that follow cannot be trusted either. */
static size_t framing_error(struct opd_trans *dec, size_t consumed)
{
	if (dec->tr_active)
		dec->tr.stop = OP_UNWIND_BAD_FRAME;
	end_trace(dec);
	dec->resync = true;
	dec->t.in_trace = false;
	return consumed;
}

/* --- the cookie table ------------------------------------------------ */

static int cookie_cmp(void const *data, struct op_hashmap_entry const *a,
		      struct op_hashmap_entry const *b, void const *key)
{
	(void)data;
	(void)key;
	return OP_HASHMAP_ENTRY(a, struct opd_cookie, ent)->cookie !=
	       OP_HASHMAP_ENTRY(b, struct opd_cookie, ent)->cookie;
}

static void cookie_free(struct op_hashmap_entry *e)
{
	struct opd_cookie *c = OP_HASHMAP_ENTRY(e, struct opd_cookie, ent);

	free(c->name);
	free(c);
}

struct opd_cookie *opd_trans_cookie_mut(struct opd_trans *dec,
					unsigned long cookie)
{
	unsigned h = op_hash_u64(cookie);
	struct opd_cookie **slot = &dec->recent[h % OP_ARRAY_SIZE(dec->recent)];
	struct opd_cookie key;
	struct op_hashmap_entry *e;

	if (*slot && (*slot)->cookie == cookie)
		return *slot;
	if (cookie == OP_NO_COOKIE || cookie == OP_INVALID_COOKIE)
		return NULL;
	key.cookie = cookie;
	op_hashmap_entry_init(&key.ent, h);
	e = op_hashmap_get(&dec->tab, &key.ent, NULL);
	if (!e)
		return NULL;
	return *slot = OP_HASHMAP_ENTRY(e, struct opd_cookie, ent);
}

struct opd_cookie const *opd_trans_cookie(struct opd_trans const *dec,
					  unsigned long cookie)
{
	struct opd_cookie key;
	struct op_hashmap_entry *e;

	if (cookie == OP_NO_COOKIE || cookie == OP_INVALID_COOKIE)
		return NULL;
	key.cookie = cookie;
	op_hashmap_entry_init(&key.ent, op_hash_u64(cookie));
	e = op_hashmap_get(&dec->tab, &key.ent, NULL);
	return e ? OP_HASHMAP_ENTRY(e, struct opd_cookie, ent) : NULL;
}

static bool same_def(struct opd_cookie const *a, struct opd_cookie const *b)
{
	return a->anon == b->anon && !strcmp(a->name, b->name) &&
	       (!a->anon || (a->tgid == b->tgid && a->start == b->start &&
			     a->end == b->end));
}

/* Record definition c (its name is taken over); false if it conflicts. */
static bool tab_define(struct opd_trans *dec, struct opd_cookie *c,
		       bool *is_new)
{
	struct opd_cookie const *old = opd_trans_cookie(dec, c->cookie);
	struct opd_cookie *n;
	bool same;

	*is_new = !old;
	if (*is_new) {
		n = op_xmalloc(sizeof(*n));
		*n = *c;
		n->image = -1;
		op_hashmap_entry_init(&n->ent, op_hash_u64(n->cookie));
		op_hashmap_add(&dec->tab, &n->ent);
		return true;
	}
	/* the same definition again is harmless (a restarted producer) */
	same = same_def(old, c);
	free(c->name);
	return same;
}

static bool is_defined(struct opd_trans *dec, unsigned long cookie)
{
	return cookie == OP_NO_COOKIE || cookie == OP_INVALID_COOKIE ||
	       opd_trans_cookie_mut(dec, cookie);
}

/* --- records ----------------------------------------------------------- */

static bool sample_context_ok(struct opd_trans *dec, uint64_t pos)
{
	unsigned need = OPD_KNOWN_CPU | OPD_KNOWN_TASK | OPD_KNOWN_MODE;
	unsigned missing;

	if (dec->t.known & OPD_KNOWN_MODE && !dec->t.in_kernel)
		need |= OPD_KNOWN_COOKIE;
	missing = need & ~dec->t.known;
	if (!missing)
		return true;
	error_at(dec, pos, "sample before its %s is known",
		 missing & OPD_KNOWN_CPU ? "cpu" :
		 missing & OPD_KNOWN_TASK ? "task" :
		 missing & OPD_KNOWN_MODE ? "mode" : "cookie");
	return false;
}

static void frame_here(struct opd_trans const *dec, struct opd_frame *f,
		       unsigned long pc)
{
	f->pc = pc;
	f->in_kernel = dec->t.in_kernel;
	f->cookie = dec->t.in_kernel ? OP_NO_COOKIE : dec->t.cookie;
}

static void put_sample(struct opd_trans *dec, unsigned long pc,
		       unsigned long event, uint64_t pos)
{
	struct opd_sink const *s = dec->sink;
	unsigned long weight = dec->next_weight;

	end_trace(dec);
	/* a weight is the next sample's, dropped or not */
	dec->next_weight = 0;
	if (dec->t.in_trace)
		dec->trace_sample = false;
	if (!sample_context_ok(dec, pos)) {
		dec->trace_broken = true;
		return;
	}
	dec->t.event = event;
	dec->t.weight = weight ? weight : 1;
	if (weight)
		dec->stats.weighted++;
	dec->stats.samples++;
	if (dec->t.in_kernel)
		dec->stats.kernel_samples++;
	else
		dec->stats.user_samples++;
	if (s->sample)
		s->sample(s->ctx, &dec->t, pc, event);
	dec->trace_broken = false;
	frame_here(dec, &dec->callee, pc);
	if (dec->t.in_trace && s->trace) {
		dec->tr_active = true;
		dec->tr.t = dec->t;
		dec->tr.stop = OP_UNWIND_FP_CHAIN_END;
		dec->tr.nframes = 1;
		dec->tr.frames[0] = dec->callee;
	}
}

/* One more caller of the trace in progress. */
static void trace_frame(struct opd_trans *dec, struct opd_frame const *f)
{
	if (!dec->tr_active)
		return;
	if (dec->tr.nframes == OPD_TRACE_MAX) {
		dec->tr.stop = OP_UNWIND_DEPTH_LIMIT;
		return;
	}
	dec->tr.frames[dec->tr.nframes++] = *f;
}

static void put_frame(struct opd_trans *dec, unsigned long pc,
		      unsigned long zero, uint64_t pos)
{
	struct opd_sink const *s = dec->sink;
	struct opd_frame caller;

	if (dec->trace_broken)
		return;
	if (zero) {
		error_at(dec, pos, "backtrace frame with event word %lu, not 0",
			 zero);
		dec->trace_broken = true;
		if (dec->tr_active)
			dec->tr.stop = OP_UNWIND_BAD_FRAME;
		end_trace(dec);
		return;
	}
	if (!sample_context_ok(dec, pos)) {
		dec->trace_broken = true;
		return;
	}
	frame_here(dec, &caller, pc);
	trace_frame(dec, &caller);
	dec->stats.arcs++;
	if (s->arc)
		s->arc(s->ctx, &dec->t, &caller, &dec->callee);
	dec->callee = caller;
}

/* A pair (pc, event) at w[0..1]. */
static size_t decode_pair(struct opd_trans *dec, unsigned long const *w,
			  size_t avail)
{
	if (avail < 2)
		return 0;
	if (w[1] == ESC) {
		error_at(dec, dec->pos, "sample pair cut short by an escape");
		return framing_error(dec, 1);
	}
	if (dec->t.in_trace && !dec->trace_sample)
		put_frame(dec, w[0], w[1], dec->pos);
	else
		put_sample(dec, w[0], w[1], dec->pos);
	return 2;
}

/*
 * Unpack a string of nbytes bytes from w (already bounds-checked) into a
 * fresh NUL-terminated copy; NULL (and an error) if it holds a NUL byte or
 * its padding is not zero.
 */
static char *unpack_string(struct opd_trans *dec, unsigned long const *w,
			   size_t nbytes)
{
	size_t words = (nbytes + W - 1) / W;
	char *s = op_xmalloc(words * W + 1);

	memcpy(s, w, words * W);
	for (size_t i = nbytes; i < words * W; i++) {
		if (s[i]) {
			error_at(dec, dec->pos, "string padding is not zero");
			free(s);
			return NULL;
		}
	}
	if (memchr(s, '\0', nbytes)) {
		error_at(dec, dec->pos, "string holds a NUL byte");
		free(s);
		return NULL;
	}
	s[nbytes] = '\0';
	return s;
}

/*
 * Length in words of the string record whose nbytes word is w[at]: 0 if
 * more words are needed to know, SIZE_MAX if nbytes is out of range.
 */
static size_t string_record_len(unsigned long const *w, size_t avail,
				size_t at)
{
	if (avail <= at)
		return 0;
	if (w[at] == 0 || w[at] > OP_MAX_NAME)
		return SIZE_MAX;
	return at + 1 + (w[at] + W - 1) / W;
}

static size_t decode_def(struct opd_trans *dec, unsigned long const *w,
			 size_t avail, bool anon)
{
	size_t at = anon ? 6 : 3;
	size_t len = string_record_len(w, avail, at);
	struct opd_sink const *s = dec->sink;
	struct opd_cookie c = { .cookie = w[2], .anon = anon };
	bool is_new;

	if (len == SIZE_MAX) {
		error_at(dec, dec->pos, "%s name length %lu out of range",
			 code_names[w[1]], w[at]);
		return framing_error(dec, at + 1);
	}
	if (!len || avail < len)
		return 0;
	if (c.cookie == OP_NO_COOKIE || c.cookie == OP_INVALID_COOKIE) {
		error_at(dec, dec->pos, "%s of reserved cookie %#lx",
			 code_names[w[1]], c.cookie);
		return len;
	}
	if (anon) {
		c.tgid = w[3];
		c.start = w[4];
		c.end = w[5];
		if (c.start >= c.end) {
			error_at(dec, dec->pos, "anon_def region %#lx-%#lx is empty",
				 c.start, c.end);
			return len;
		}
	}
	c.name = unpack_string(dec, w + at + 1, w[at]);
	if (!c.name)
		return len;
	if (!tab_define(dec, &c, &is_new)) {
		error_at(dec, dec->pos, "cookie %#lx redefined differently",
			 c.cookie);
		return len;
	}
	if (is_new && anon && s->anon_def)
		s->anon_def(s->ctx, opd_trans_cookie(dec, c.cookie));
	if (is_new && !anon && s->cookie_def)
		s->cookie_def(s->ctx, opd_trans_cookie(dec, c.cookie));
	return len;
}

static size_t decode_kernel_image(struct opd_trans *dec,
				  unsigned long const *w, size_t avail)
{
	size_t len = string_record_len(w, avail, 4);
	struct opd_sink const *s = dec->sink;
	char *name;

	if (len == SIZE_MAX) {
		error_at(dec, dec->pos, "kernel_image name length %lu out of range",
			 w[4]);
		return framing_error(dec, 5);
	}
	if (!len || avail < len)
		return 0;
	if (w[2] >= w[3]) {
		error_at(dec, dec->pos, "kernel_image range %#lx-%#lx is empty",
			 w[2], w[3]);
		return len;
	}
	name = unpack_string(dec, w + 5, w[4]);
	if (!name)
		return len;
	if (s->kernel_image)
		s->kernel_image(s->ctx, w[2], w[3], name);
	free(name);
	return len;
}

static size_t decode_lost(struct opd_trans *dec, unsigned long const *w,
			  size_t avail)
{
	struct opd_sink const *s = dec->sink;

	if (avail < 4)
		return 0;
	if (!op_lost_name(w[2])) {
		error_at(dec, dec->pos, "lost count of unknown category %lu",
			 w[2]);
		return 4;
	}
	dec->stats.lost[w[2]] += w[3];
	if (s->lost)
		s->lost(s->ctx, w[2], w[3]);
	return 4;
}

/* ESC COUNT counter n: a counter this decoder does not know is skipped. */
static size_t decode_count(struct opd_trans *dec, unsigned long const *w,
			   size_t avail)
{
	struct opd_sink const *s = dec->sink;

	if (avail < 4)
		return 0;
	if (!op_count_name(w[2]))
		return 4;
	dec->stats.count[w[2]] += w[3];
	if (s->count)
		s->count(s->ctx, w[2], w[3]);
	return 4;
}

/*
 * ESC BUILD_ID cookie nbytes id...: the build-id of a defined binary
 * cookie, kept in its definition for the consumer. The same one again is
 * harmless (a restarted producer); another one is an error.
 */
static size_t decode_build_id(struct opd_trans *dec, unsigned long const *w,
			      size_t avail)
{
	size_t len, n;
	struct opd_cookie *c;
	unsigned char id[OP_NAME_WORDS(OP_MAX_BUILD_ID) * W];

	if (avail < 4)
		return 0;
	n = w[3];
	if (n == 0 || n > OP_MAX_BUILD_ID) {
		error_at(dec, dec->pos, "build_id length %zu out of range", n);
		return framing_error(dec, 4);
	}
	len = 4 + OP_NAME_WORDS(n);
	if (avail < len)
		return 0;
	memset(id, 0, sizeof(id));
	memcpy(id, w + 4, OP_NAME_WORDS(n) * W);
	for (size_t i = n; i < OP_NAME_WORDS(n) * W; i++) {
		if (id[i]) {
			error_at(dec, dec->pos, "build_id padding is not zero");
			return len;
		}
	}
	c = opd_trans_cookie_mut(dec, w[2]);
	if (!c || c->anon) {
		error_at(dec, dec->pos, "build_id of %s cookie %#lx",
			 c ? "anonymous" : "undefined", w[2]);
		return len;
	}
	if (c->build_id_len && (c->build_id_len != n ||
				memcmp(c->build_id, id, n))) {
		error_at(dec, dec->pos, "cookie %#lx given another build_id",
			 w[2]);
		return len;
	}
	memcpy(c->build_id, id, n);
	c->build_id_len = (unsigned)n;
	return len;
}

/* ESC TIME t: the time of the samples that follow. */
static size_t decode_time(struct opd_trans *dec, unsigned long const *w,
			  size_t avail)
{
	if (avail < OP_WORDS_TIME)
		return 0;
	dec->t.time = w[2];
	dec->stats.times++;
	return OP_WORDS_TIME;
}

/* ESC WEIGHT w: what the next sample counts. */
static size_t decode_weight(struct opd_trans *dec, unsigned long const *w,
			    size_t avail)
{
	if (avail < OP_WORDS_WEIGHT)
		return 0;
	if (!w[2] || w[2] > OP_MAX_WEIGHT) {
		error_at(dec, dec->pos, "sample weight %lu out of range 1..%lu",
			 w[2], OP_MAX_WEIGHT);
		dec->next_weight = 0;
		return OP_WORDS_WEIGHT;
	}
	dec->next_weight = w[2];
	return OP_WORDS_WEIGHT;
}

static size_t decode_ctx_switch(struct opd_trans *dec, unsigned long const *w,
				size_t avail)
{
	if (avail < 7)
		return 0;
	if (w[4] != ESC || w[5] != OP_CODE_CTX_TGID) {
		error_at(dec, dec->pos, "ctx_switch not followed by ctx_tgid");
		return framing_error(dec, 4);
	}
	if (!is_defined(dec, w[3]))
		error_at(dec, dec->pos, "ctx_switch to undefined app cookie %#lx",
			 w[3]);
	dec->t.tid = w[2];
	dec->t.app_cookie = w[3];
	dec->t.tgid = w[6];
	dec->t.known = op_known_after(dec->t.known, OP_CODE_CTX_SWITCH);
	return 7;
}

static size_t decode_cpu_switch(struct opd_trans *dec, unsigned long const *w,
				size_t avail)
{
	uint64_t time = dec->t.time;

	if (avail < 3)
		return 0;
	memset(&dec->t, 0, sizeof(dec->t));
	dec->t.time = time;
	dec->t.cpu = w[2];
	dec->t.known = op_known_after(0, OP_CODE_CPU_SWITCH);
	return 3;
}

static size_t decode_cookie_switch(struct opd_trans *dec,
				   unsigned long const *w, size_t avail)
{
	if (avail < 3)
		return 0;
	if (!is_defined(dec, w[2]))
		error_at(dec, dec->pos, "cookie_switch to undefined cookie %#lx",
			 w[2]);
	dec->t.cookie = w[2];
	dec->t.known = op_known_after(dec->t.known, OP_CODE_COOKIE_SWITCH);
	return 3;
}

/* ESC COOKIE_FORGET cookie: drop the definition (the consumer first, so it
 * lets go of what it kept of it) and the state that names it. */
static size_t decode_cookie_forget(struct opd_trans *dec,
				   unsigned long const *w, size_t avail)
{
	struct opd_sink const *s = dec->sink;
	struct opd_cookie *c;
	unsigned long cookie;

	if (avail < 3)
		return 0;
	cookie = w[2];
	c = opd_trans_cookie_mut(dec, cookie);
	if (!c) {
		error_at(dec, dec->pos, "cookie_forget of undefined cookie %#lx",
			 cookie);
		return 3;
	}
	if (s->cookie_forget)
		s->cookie_forget(s->ctx, c);
	dec->recent[op_hash_u64(cookie) % OP_ARRAY_SIZE(dec->recent)] = NULL;
	op_hashmap_remove(&dec->tab, &c->ent, NULL);
	cookie_free(&c->ent);
	dec->stats.forgotten++;
	if ((dec->t.known & OPD_KNOWN_COOKIE) && dec->t.cookie == cookie)
		dec->t.known &= ~OPD_KNOWN_COOKIE;
	if ((dec->t.known & OPD_KNOWN_TASK) && dec->t.app_cookie == cookie)
		dec->t.known &= ~OPD_KNOWN_TASK;
	return 3;
}

/* ESC UNWIND_STOP reason: the trace in progress ends, for reason. */
static size_t decode_unwind_stop(struct opd_trans *dec,
				 unsigned long const *w, size_t avail)
{
	struct opd_sink const *s = dec->sink;

	if (avail < 3)
		return 0;
	if (!dec->t.in_trace) {
		error_at(dec, dec->pos, "unwind_stop outside a backtrace");
		return 3;
	}
	/* frames cut here stay cut: depth_limit wins over the reason */
	if (dec->tr_active && dec->tr.stop != OP_UNWIND_DEPTH_LIMIT)
		dec->tr.stop = w[2];
	end_trace(dec);
	dec->t.in_trace = false;
	dec->stats.escapes++;
	if (s->escape)
		s->escape(s->ctx, &dec->t, OP_CODE_UNWIND_STOP, dec->pos);
	return 3;
}

/* Apply the escape record at w[0] (w[0] == ESC); words used, 0 if short. */
static size_t decode_escape(struct opd_trans *dec, unsigned long const *w,
			    size_t avail)
{
	unsigned long code;
	struct opd_sink const *s = dec->sink;
	size_t used = 2;

	if (avail < 2)
		return 0;
	code = w[1];
	if (code == ESC) {
		error_at(dec, dec->pos, "escape followed by an escape");
		return framing_error(dec, 1);
	}
	if (code == OP_CODE_UNWIND_STOP)
		return decode_unwind_stop(dec, w, avail);
	if (code == OP_CODE_TRACE_BEGIN || !op_code_keeps_trace(code))
		end_trace(dec);
	switch (code) {
	case OP_CODE_CTX_SWITCH:
		used = decode_ctx_switch(dec, w, avail);
		break;
	case OP_CODE_CPU_SWITCH:
		used = decode_cpu_switch(dec, w, avail);
		break;
	case OP_CODE_COOKIE_SWITCH:
		used = decode_cookie_switch(dec, w, avail);
		break;
	case OP_CODE_KERNEL_ENTER:
	case OP_CODE_USER_ENTER:
		dec->t.in_kernel = code == OP_CODE_KERNEL_ENTER;
		dec->t.known = op_known_after(dec->t.known, code);
		break;
	case OP_CODE_MODULE_LOADED:
		if (s->module_loaded)
			s->module_loaded(s->ctx);
		break;
	case OP_CODE_TRACE_BEGIN:
		break;
	case OP_CODE_COOKIE_DEF:
	case OP_CODE_ANON_DEF:
		used = avail < 4 ? 0 :
			decode_def(dec, w, avail, code == OP_CODE_ANON_DEF);
		break;
	case OP_CODE_LOST:
		used = decode_lost(dec, w, avail);
		break;
	case OP_CODE_KERNEL_IMAGE:
		used = decode_kernel_image(dec, w, avail);
		break;
	case OP_CODE_COUNT:
		used = decode_count(dec, w, avail);
		break;
	case OP_CODE_BUILD_ID:
		used = decode_build_id(dec, w, avail);
		break;
	case OP_CODE_COOKIE_FORGET:
		used = decode_cookie_forget(dec, w, avail);
		break;
	case OP_CODE_TIME:
		used = decode_time(dec, w, avail);
		break;
	case OP_CODE_WEIGHT:
		used = decode_weight(dec, w, avail);
		break;
	case OP_CODE_CTX_TGID:
		error_at(dec, dec->pos, "ctx_tgid without ctx_switch");
		return framing_error(dec, 2);
	default:
		error_at(dec, dec->pos, "%s escape code %lu",
			 code < OP_CODE_LAST ? "unsupported" : "unknown", code);
		return framing_error(dec, 2);
	}
	if (!used || dec->resync)
		return used;
	if (code == OP_CODE_TRACE_BEGIN) {
		dec->t.in_trace = true;
		dec->trace_sample = true;
		dec->trace_broken = false;
	} else if (!op_code_keeps_trace(code)) {
		dec->t.in_trace = false;
	}
	dec->stats.escapes++;
	if (s->escape)
		s->escape(s->ctx, &dec->t, code, dec->pos);
	return used;
}

/* Decode whole records from w; returns the words consumed. */
static size_t run(struct opd_trans *dec, unsigned long const *w, size_t n)
{
	size_t i = 0;

	while (i < n) {
		size_t used;

		if (dec->resync) {
			if (w[i] != ESC) {
				dec->stats.skipped++;
				dec->pos++;
				i++;
				continue;
			}
			dec->resync = false;
		}
		if (w[i] == ESC)
			used = decode_escape(dec, w + i, n - i);
		else
			used = decode_pair(dec, w + i, n - i);
		if (!used)
			break;
		i += used;
		dec->pos += used;
	}
	dec->stats.words += i;
	return i;
}

void opd_trans_feed(struct opd_trans *dec, unsigned long const *w, size_t n)
{
	size_t used;

	/* Complete the kept record first; the carry holds at least one
	 * longest record, so each round decodes something or ends. */
	while (dec->carry_len && n) {
		size_t take = OP_MAX_RECORD - dec->carry_len;

		if (take > n)
			take = n;
		memcpy(dec->carry + dec->carry_len, w, take * W);
		dec->carry_len += take;
		w += take;
		n -= take;
		used = run(dec, dec->carry, dec->carry_len);
		if (!used && !take)
			break;	/* cannot happen: a full carry holds a record */
		dec->carry_len -= used;
		memmove(dec->carry, dec->carry + used, dec->carry_len * W);
	}
	if (dec->carry_len)
		return;
	used = run(dec, w, n);
	dec->carry_len = n - used;
	if (dec->carry_len)	/* w may be NULL when n is 0 */
		memcpy(dec->carry, w + used, dec->carry_len * W);
}

int opd_trans_finish(struct opd_trans *dec)
{
	end_trace(dec);
	if (dec->carry_len) {
		error_at(dec, dec->pos, "stream ends inside a record (%zu words)",
			 dec->carry_len);
		dec->stats.skipped += dec->carry_len;
		dec->stats.words += dec->carry_len;
		dec->pos += dec->carry_len;
		dec->carry_len = 0;
	}
	return dec->stats.errors ? -1 : 0;
}
