/*
 * libFuzzer target for the stream decoder. The input is a stream: its
 * first byte picks a chunk size, the rest are words. Decoding it whole and
 * decoding it in chunks must agree exactly (samples, arcs, errors, words);
 * any crash, out-of-bounds read (ASan) or disagreement is a bug.
 *
 *	clang -g -fsanitize=fuzzer,address,undefined -Ilibop -Ilibutil -Ilibstacks -Ilibopd \
 *		tests/fuzz/fuzz_stream.c libopd/opd_trans.c libutil/op_*.c
 *	./a.out -max_total_time=60 -max_len=4096 CORPUS tests/fuzz/corpus/stream
 *
 * FUZZ-SOURCES: libopd/opd_trans.c
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "opd_trans.h"

/* A running hash of everything the sink sees, so that two decodes can be
 * compared without storing their output. */
struct digest {
	uint64_t h;
};

static void mix(struct digest *d, uint64_t v)
{
	d->h = (d->h ^ v) * 0x100000001b3ULL;
}

static void on_sample(void *ctx, struct opd_transient const *t,
		      unsigned long pc, unsigned long event)
{
	mix(ctx, t->cpu);
	mix(ctx, t->tid);
	mix(ctx, t->tgid);
	mix(ctx, t->app_cookie);
	mix(ctx, t->in_kernel ? ~0UL : t->cookie);
	mix(ctx, pc);
	mix(ctx, event);
}

static void on_arc(void *ctx, struct opd_transient const *t,
		   struct opd_frame const *caller, struct opd_frame const *callee)
{
	(void)t;
	mix(ctx, caller->pc);
	mix(ctx, caller->cookie);
	mix(ctx, callee->pc);
	mix(ctx, callee->cookie);
}

static void on_lost(void *ctx, unsigned long cat, unsigned long n)
{
	mix(ctx, cat);
	mix(ctx, n);
}

static void on_def(void *ctx, struct opd_cookie const *c)
{
	mix(ctx, c->cookie);
	mix(ctx, strlen(c->name));
	mix(ctx, c->start);
}

static void on_image(void *ctx, unsigned long s, unsigned long e,
		     char const *name)
{
	mix(ctx, s);
	mix(ctx, e);
	mix(ctx, strlen(name));
}

static void on_error(void *ctx, uint64_t pos, char const *msg)
{
	mix(ctx, pos);
	mix(ctx, strlen(msg));
}

static void decode(unsigned long const *w, size_t n, size_t chunk,
		   struct digest *d, struct opd_trans_stats *st)
{
	struct opd_sink sink = {
		.ctx = d, .sample = on_sample, .arc = on_arc, .lost = on_lost,
		.cookie_def = on_def, .anon_def = on_def,
		.kernel_image = on_image, .error = on_error,
	};
	struct opd_trans *dec = malloc(sizeof(*dec));

	d->h = 14695981039346656037ULL;
	opd_trans_init(dec, &sink, "fuzz");
	for (size_t i = 0; i < n; i += chunk)
		opd_trans_feed(dec, w + i, i + chunk <= n ? chunk : n - i);
	if (!n)
		opd_trans_feed(dec, w, 0);
	opd_trans_finish(dec);
	*st = dec->stats;
	opd_trans_free(dec);
	free(dec);
}

int LLVMFuzzerTestOneInput(uint8_t const *data, size_t size)
{
	struct opd_trans_stats a, b;
	struct digest da, db;
	unsigned long *w;
	size_t n, chunk;

	if (!size)
		return 0;
	chunk = 1 + data[0] % 16;
	n = (size - 1) / sizeof(*w);
	/* an exact-size copy, so ASan sees any read past the end */
	w = malloc(n * sizeof(*w) + 1);
	memcpy(w, data + 1, n * sizeof(*w));
	decode(w, n, n ? n : 1, &da, &a);
	decode(w, n, chunk, &db, &b);
	if (da.h != db.h || memcmp(&a, &b, sizeof(a)) || a.words != n)
		abort();
	free(w);
	return 0;
}
