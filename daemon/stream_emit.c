/* Writing context switches only when they change; see stream_emit.h. */
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
	se->cpu = -1;
	se->task_known = false;
	se->mode = -1;
	se->cookie_known = false;
}

void se_cpu(struct stream_emit *se, unsigned long cpu)
{
	if (se->cpu == (long)cpu)
		return;
	se_escape(se, OP_CODE_CPU_SWITCH);
	wb_push(se->wb, cpu);
	se->cpu = (long)cpu;
	se->task_known = false;
	se->mode = -1;
	se->cookie_known = false;
}

void se_task(struct stream_emit *se, unsigned long tid, unsigned long tgid,
	     unsigned long app)
{
	if (se->task_known && se->tid == tid && se->tgid == tgid &&
	    se->app == app)
		return;
	/* the definition cannot sit between CTX_SWITCH and CTX_TGID */
	ct_define(se->ct, app, se->wb);
	se_escape(se, OP_CODE_CTX_SWITCH);
	wb_push2(se->wb, tid, app);
	se_escape(se, OP_CODE_CTX_TGID);
	wb_push(se->wb, tgid);
	se->task_known = true;
	se->tid = tid;
	se->tgid = tgid;
	se->app = app;
	se->cookie_known = false;
}

void se_mode(struct stream_emit *se, bool kernel)
{
	if (se->mode == (int)kernel)
		return;
	se_escape(se, kernel ? OP_CODE_KERNEL_ENTER : OP_CODE_USER_ENTER);
	se->mode = kernel;
}

void se_cookie(struct stream_emit *se, unsigned long cookie)
{
	if (se->cookie_known && se->cookie == cookie)
		return;
	ct_define(se->ct, cookie, se->wb);
	se_escape(se, OP_CODE_COOKIE_SWITCH);
	wb_push(se->wb, cookie);
	se->cookie_known = true;
	se->cookie = cookie;
}

void se_lost(struct stream_emit *se, unsigned long category,
	     unsigned long count)
{
	se_escape(se, OP_CODE_LOST);
	wb_push2(se->wb, category, count);
}

void se_count(struct stream_emit *se, unsigned long counter, unsigned long n)
{
	se_escape(se, OP_CODE_COUNT);
	wb_push2(se->wb, counter, n);
}
