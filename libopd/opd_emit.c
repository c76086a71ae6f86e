/* The perf source's encoding through op_stream.h; see opd_emit.h. */
#include "opd_cookie.h"
#include "opd_emit.h"

void opd_emit_init(struct stream_emit *se, struct word_buffer *wb,
	     struct cookie_table *ct)
{
	se->wb = wb;
	se->ct = ct;
	opd_emit_reset(se);
}

void opd_emit_reset(struct stream_emit *se)
{
	op_stream_reset(&se->st);
}

void opd_emit_cpu(struct stream_emit *se, unsigned long cpu)
{
	struct op_stream_out o = opd_emit_out(se, OP_WORDS_CPU_SWITCH);

	op_put_cpu(&se->st, &o, cpu);
	opd_emit_commit(se, &o);
}

void opd_emit_task(struct stream_emit *se, unsigned long tid, unsigned long tgid,
	     unsigned long app)
{
	struct op_stream_out o;

	if (op_task_known(&se->st, tid, tgid, app))
		return;
	/* the definition cannot sit between CTX_SWITCH and CTX_TGID */
	opd_emit_define(se, app);
	o = opd_emit_out(se, OP_WORDS_CTX_SWITCH);
	op_put_task(&se->st, &o, tid, tgid, app);
	opd_emit_commit(se, &o);
}

void opd_emit_mode(struct stream_emit *se, bool kernel)
{
	struct op_stream_out o = opd_emit_out(se, OP_WORDS_ESCAPE);

	op_put_mode(&se->st, &o, kernel);
	opd_emit_commit(se, &o);
}

void opd_emit_cookie(struct stream_emit *se, unsigned long cookie)
{
	struct op_stream_out o;

	if (op_cookie_known(&se->st, cookie))
		return;
	opd_emit_define(se, cookie);
	o = opd_emit_out(se, OP_WORDS_COOKIE_SWITCH);
	op_put_cookie(&se->st, &o, cookie);
	opd_emit_commit(se, &o);
}

/* The table marks a cookie defined in the current stream by its
 * generation (opd_cookie.h); the words come from op_put_def() and,
 * for a binary whose build-id is known, op_put_build_id(). */
void opd_emit_define(struct stream_emit *se, unsigned long cookie)
{
	struct cookie_entry *e = opd_cookie_get(se->ct, cookie);
	struct op_stream_def d;
	struct op_stream_out o;

	if (!e || e->stream_gen == se->ct->gen)
		return;
	e->stream_gen = se->ct->gen;
	d = (struct op_stream_def){
		.cookie = cookie, .name = e->name, .nbytes = e->len,
		.anon = e->kind == CT_ANON,
		.tgid = e->tgid, .start = e->start, .end = e->end,
	};
	o = opd_emit_out(se, OP_WORDS_DEF(d.nbytes, d.anon));
	op_put_def(&o, &d);
	opd_emit_commit(se, &o);
	/* the build-id the kernel gave at mmap time, right after */
	if (e->kind == CT_FILE && e->build_id_len) {
		o = opd_emit_out(se, OP_WORDS_BUILD_ID(e->build_id_len));
		op_put_build_id(&o, cookie, e->build_id, e->build_id_len);
		opd_emit_commit(se, &o);
	}
}

void opd_emit_forget(struct stream_emit *se, unsigned long cookie)
{
	struct cookie_entry *e = opd_cookie_get(se->ct, cookie);
	struct op_stream_out o;

	if (!e)
		return;
	if (e->stream_gen == se->ct->gen) {
		o = opd_emit_out(se, OP_WORDS_COOKIE_FORGET);
		op_put_cookie_forget(&se->st, &o, cookie);
		opd_emit_commit(se, &o);
	}
	opd_cookie_forget(se->ct, cookie);
}

void opd_emit_lost(struct stream_emit *se, unsigned long category,
	     unsigned long count)
{
	struct op_stream_out o = opd_emit_out(se, OP_WORDS_LOST);

	op_put_lost(&o, category, count);
	opd_emit_commit(se, &o);
}

void opd_emit_count(struct stream_emit *se, unsigned long counter, unsigned long n)
{
	struct op_stream_out o = opd_emit_out(se, OP_WORDS_COUNT);

	op_put_count(&o, counter, n);
	opd_emit_commit(se, &o);
}
