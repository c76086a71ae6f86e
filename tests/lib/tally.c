/* In-memory sample tally for tests; see tally.h. */
#include <stdio.h>
#include <stdlib.h>

#include "op_util.h"
#include "tally.h"

static void on_sample(void *ctx, struct opd_transient const *tr,
		      unsigned long pc, unsigned long event)
{
	struct tally *t = ctx;
	struct tally_sample *s;

	OP_ALLOC_GROW(t->s, t->nr + 1, t->cap);
	s = &t->s[t->nr++];
	s->cpu = tr->cpu;
	s->tid = tr->tid;
	s->tgid = tr->tgid;
	s->app = tr->app_cookie;
	s->cookie = tr->in_kernel ? OP_NO_COOKIE : tr->cookie;
	s->pc = pc;
	s->event = event;
	s->in_kernel = tr->in_kernel;
}

static void on_arc(void *ctx, struct opd_transient const *tr,
		   struct opd_frame const *caller,
		   struct opd_frame const *callee)
{
	struct tally *t = ctx;
	struct tally_arc *a;

	OP_ALLOC_GROW(t->a, t->nr_arcs + 1, t->cap_arcs);
	a = &t->a[t->nr_arcs++];
	a->tgid = tr->tgid;
	a->caller = *caller;
	a->callee = *callee;
}

static void on_lost(void *ctx, unsigned long category, unsigned long count)
{
	struct tally *t = ctx;

	t->lost[category] += count;
}

void tally_init(struct tally *t, char const *name)
{
	*t = (struct tally){ 0 };
	t->sink.ctx = t;
	t->sink.sample = on_sample;
	t->sink.arc = on_arc;
	t->sink.lost = on_lost;
	opd_trans_init(&t->dec, &t->sink, name);
}

void tally_free(struct tally *t)
{
	opd_trans_free(&t->dec);
	free(t->s);
	free(t->a);
	t->s = NULL;
	t->a = NULL;
}

char const *tally_cookie_name(struct tally const *t, unsigned long cookie)
{
	struct opd_cookie const *c = opd_trans_cookie(&t->dec, cookie);

	return c ? c->name : "";
}

void tally_report(struct tally const *t, char const *what)
{
	struct opd_trans_stats const *st = &t->dec.stats;

	fprintf(stderr, "%s: %llu samples (kernel %llu, user %llu), %llu arcs, "
		"%llu words, %llu decode errors\n", what,
		(unsigned long long)st->samples,
		(unsigned long long)st->kernel_samples,
		(unsigned long long)st->user_samples,
		(unsigned long long)st->arcs, (unsigned long long)st->words,
		(unsigned long long)st->errors);
	for (int c = 1; c < OP_LOST_CATEGORY_MAX; c++)
		fprintf(stderr, "%s%s lost[%d]=%llu", c == 1 ? what : "",
			c == 1 ? ":" : "", c, (unsigned long long)t->lost[c]);
	fputc('\n', stderr);
}
