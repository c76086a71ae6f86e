/* The perf source's encoding through op_stream.h; see stream_emit.h. */
#include "cookie_table.h"
#include "stream_emit.h"

void se_init(struct stream_emit *se, struct word_buffer *wb,
	     struct cookie_table *ct)
{
	se->wb = wb;
	se->ct = ct;
	se_reset(se);
}

void se_reset(struct stream_emit *se)
{
	op_stream_reset(&se->st);
}

void se_cpu(struct stream_emit *se, unsigned long cpu)
{
	struct op_stream_out o = se_out(se, OP_WORDS_CPU_SWITCH);

	op_put_cpu(&se->st, &o, cpu);
	se_commit(se, &o);
}

void se_task(struct stream_emit *se, unsigned long tid, unsigned long tgid,
	     unsigned long app)
{
	struct op_stream_out o;

	if (op_task_known(&se->st, tid, tgid, app))
		return;
	/* the definition cannot sit between CTX_SWITCH and CTX_TGID */
	se_define(se, app);
	o = se_out(se, OP_WORDS_CTX_SWITCH);
	op_put_task(&se->st, &o, tid, tgid, app);
	se_commit(se, &o);
}

void se_mode(struct stream_emit *se, bool kernel)
{
	struct op_stream_out o = se_out(se, OP_WORDS_ESCAPE);

	op_put_mode(&se->st, &o, kernel);
	se_commit(se, &o);
}

void se_cookie(struct stream_emit *se, unsigned long cookie)
{
	struct op_stream_out o;

	if (op_cookie_known(&se->st, cookie))
		return;
	se_define(se, cookie);
	o = se_out(se, OP_WORDS_COOKIE_SWITCH);
	op_put_cookie(&se->st, &o, cookie);
	se_commit(se, &o);
}

/* The table marks a cookie defined in the current stream by its
 * generation (cookie_table.h); the words come from op_put_def() and,
 * for a binary whose build-id is known, op_put_build_id(). */
void se_define(struct stream_emit *se, unsigned long cookie)
{
	struct cookie_entry *e = ct_get(se->ct, cookie);
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
	o = se_out(se, OP_WORDS_DEF(d.nbytes, d.anon));
	op_put_def(&o, &d);
	se_commit(se, &o);
	/* the build-id the kernel gave at mmap time, right after */
	if (e->kind == CT_FILE && e->build_id_len) {
		o = se_out(se, OP_WORDS_BUILD_ID(e->build_id_len));
		op_put_build_id(&o, cookie, e->build_id, e->build_id_len);
		se_commit(se, &o);
	}
}

void se_forget(struct stream_emit *se, unsigned long cookie)
{
	struct cookie_entry *e = ct_get(se->ct, cookie);
	struct op_stream_out o;

	if (!e)
		return;
	if (e->stream_gen == se->ct->gen) {
		o = se_out(se, OP_WORDS_COOKIE_FORGET);
		op_put_cookie_forget(&se->st, &o, cookie);
		se_commit(se, &o);
	}
	ct_forget(se->ct, cookie);
}

void se_lost(struct stream_emit *se, unsigned long category,
	     unsigned long count)
{
	struct op_stream_out o = se_out(se, OP_WORDS_LOST);

	op_put_lost(&o, category, count);
	se_commit(se, &o);
}

void se_count(struct stream_emit *se, unsigned long counter, unsigned long n)
{
	struct op_stream_out o = se_out(se, OP_WORDS_COUNT);

	op_put_count(&o, counter, n);
	se_commit(se, &o);
}
