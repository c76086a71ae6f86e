/*
 * opstream dump: decode a stream file with opd_trans and print it, one
 * line per escape record (with the state it leaves) and per sample, so a
 * human or a test can see exactly what a producer wrote.
 */
#include <inttypes.h>
#include <stdio.h>

#include "op_escape.h"
#include "op_message.h"
#include "opd_trans.h"
#include "opd_stream_dump.h"
#include "opd_stream_file.h"

static void dump_escape(void *ctx, struct opd_transient const *t,
			unsigned long code, uint64_t pos)
{
	FILE *out = ctx;

	fprintf(out, "%" PRIu64 " %s", pos, opd_code_name(code));
	switch (code) {
	case OP_CODE_CPU_SWITCH:
		fprintf(out, " cpu=%lu", t->cpu);
		break;
	case OP_CODE_CTX_SWITCH:
		fprintf(out, " tid=%lu tgid=%lu app=%lu", t->tid, t->tgid,
			t->app_cookie);
		break;
	case OP_CODE_COOKIE_SWITCH:
		fprintf(out, " cookie=%lu", t->cookie);
		break;
	default:
		break;
	}
	fputc('\n', out);
}

static void dump_sample(void *ctx, struct opd_transient const *t,
			unsigned long pc, unsigned long event)
{
	fprintf(ctx, "  sample %s %#lx event=%lu\n",
		t->in_kernel ? "kernel" : "user", pc, event);
}

static void dump_arc(void *ctx, struct opd_transient const *t,
		     struct opd_frame const *caller,
		     struct opd_frame const *callee)
{
	(void)t;
	fprintf(ctx, "  arc %s%#lx/%lu <- %s%#lx/%lu\n",
		callee->in_kernel ? "k:" : "", callee->pc, callee->cookie,
		caller->in_kernel ? "k:" : "", caller->pc, caller->cookie);
}

static void dump_lost(void *ctx, unsigned long category, unsigned long count)
{
	fprintf(ctx, "  lost category=%lu count=%lu\n", category, count);
}

static void dump_count(void *ctx, unsigned long counter, unsigned long n)
{
	fprintf(ctx, "  count counter=%lu n=%lu\n", counter, n);
}

/* A name from the stream ends the line, escaped (op_escape.h). */
static void put_name(FILE *out, char const *name)
{
	op_fputs_escaped(out, name);
	fputc('\n', out);
}

static void dump_cookie(void *ctx, struct opd_cookie const *c)
{
	fprintf(ctx, "  cookie %lu = ", c->cookie);
	put_name(ctx, c->name);
}

static void dump_forget(void *ctx, struct opd_cookie const *c)
{
	fprintf(ctx, "  forget %lu = ", c->cookie);
	put_name(ctx, c->name);
}

static void dump_anon(void *ctx, struct opd_cookie const *c)
{
	fprintf(ctx, "  anon %lu = tgid %lu %#lx-%#lx ", c->cookie,
		c->tgid, c->start, c->end);
	put_name(ctx, c->name);
}

static void dump_image(void *ctx, unsigned long start, unsigned long end,
		       char const *name)
{
	fprintf(ctx, "  kernel image %#lx-%#lx ", start, end);
	put_name(ctx, name);
}

int opd_stream_dump(char const *path, FILE *out)
{
	struct opd_sink sink = {
		.ctx = out,
		.sample = dump_sample,
		.arc = dump_arc,
		.lost = dump_lost,
		.count = dump_count,
		.cookie_def = dump_cookie,
		.cookie_forget = dump_forget,
		.anon_def = dump_anon,
		.kernel_image = dump_image,
		.escape = dump_escape,
	};
	struct opd_trans dec;
	int err;

	opd_trans_init(&dec, &sink, path);
	err = opd_stream_file_replay(path, &dec, 0);
	fprintf(out, "# words %" PRIu64 ", samples %" PRIu64 " (kernel %"
		PRIu64 ", user %" PRIu64 "), arcs %" PRIu64 ", errors %"
		PRIu64 "\n", dec.stats.words, dec.stats.samples,
		dec.stats.kernel_samples, dec.stats.user_samples,
		dec.stats.arcs, dec.stats.errors);
	opd_trans_free(&dec);
	return err;
}
