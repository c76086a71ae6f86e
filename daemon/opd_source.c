/*
 * The stream sources oprofiled can read (opd_source.h), and the adapter
 * that puts the perf_events producer (opd_perf.h) behind that
 * interface: events/ events become perf attributes, and the words the
 * producer writes go to the daemon's sink. The events/ to perf mapping is
 * opd_perf_event.c's, shared with operf.
 */
#include "config.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "op_cpu_type.h"
#include "op_message.h"
#include "op_session.h"
#include "opd_perf_event.h"
#include "opd_source.h"
#include "opd_perf.h"
#include "opd_words.h"

struct perf_priv {
	struct perf_source *ps;
	int verbose;
	struct perf_source_event events[OPD_MAX_EVENTS];
	opd_sink_fn sink;
	void *sink_arg;
};

/* Hand the words the producer wrote so far to the sink. */
static void perf_emit(struct perf_priv *p)
{
	struct word_buffer *wb = opd_perf_words(p->ps);

	if (wb->len)
		p->sink(wb->w, wb->len, p->sink_arg);
	opd_words_reset(wb);
}

static int perf_open(struct opd_source *src, struct opd_source_config const *cfg)
{
	struct perf_priv *p = op_xcalloc(1, sizeof(*p));
	struct perf_source_config pcfg;
	size_t i;

	for (i = 0; i < cfg->core->nr_events; i++) {
		if (opd_perf_event(cfg->core, &cfg->core->events[i], &p->events[i]) < 0) {
			free(p);
			return -1;
		}
	}
	memset(&pcfg, 0, sizeof(pcfg));
	pcfg.events = p->events;
	pcfg.nr_events = (unsigned)cfg->core->nr_events;
	pcfg.ring_pages = cfg->buffer_pages;
	pcfg.callgraph_depth = cfg->callgraph_depth;
	pcfg.fp_only = !cfg->stack_size;
	pcfg.stack_size = cfg->stack_size > 0 ? (unsigned)cfg->stack_size : 0;
	p->sink = cfg->sink;
	p->sink_arg = cfg->sink_arg;
	p->verbose = cfg->verbose;
	if (opd_perf_open(&p->ps, &pcfg) < 0) {
		free(p);
		return -1;
	}
	src->priv = p;
	return 0;
}

static int perf_start(struct opd_source *src)
{
	struct perf_priv *p = src->priv;
	int ret = opd_perf_enable(p->ps) ? -1 : 0;

	perf_emit(p);
	return ret;
}

static int perf_stop(struct opd_source *src)
{
	struct perf_priv *p = src->priv;

	return opd_perf_disable(p->ps) ? -1 : 0;
}

/* The perf source polls its rings itself, in read(). */
static size_t perf_pollfds(struct opd_source *src, struct pollfd *fds, size_t max)
{
	(void)src;
	(void)fds;
	(void)max;
	return 0;
}

static int perf_read(struct opd_source *src)
{
	struct perf_priv *p = src->priv;
	int err = opd_perf_read(p->ps, 0);

	perf_emit(p);
	if (!err)
		return 0;
	errno = -err;
	return op_error_errno("cannot read the perf rings");
}

static int perf_flush(struct opd_source *src, uint64_t until_ns)
{
	struct perf_priv *p = src->priv;

	opd_perf_flush(p->ps, until_ns);
	perf_emit(p);
	return 0;
}

/* The producer's own counters, for the log. */
static void perf_log_stats(struct opd_perf_stats const *st)
{
	op_info("perf source: %llu records in %llu rounds, %llu samples "
		"(%llu kernel, %llu user), %llu mmaps, %llu forks, %llu exits, "
		"%llu processes seeded, %llu exited by a look after lost "
		"records, %llu maps re-read (%llu resolved the "
		"pc, %llu gone), %llu throttles, %llu bad records, "
		"at most %llu records pending, %llu cookies forgotten "
		"(%llu held at the last sweep)",
		(unsigned long long)st->records, (unsigned long long)st->rounds,
		(unsigned long long)st->samples,
		(unsigned long long)st->kernel_samples,
		(unsigned long long)st->user_samples,
		(unsigned long long)st->mmaps, (unsigned long long)st->forks,
		(unsigned long long)st->exits, (unsigned long long)st->seeded,
		(unsigned long long)st->count[OP_COUNT_PROCS_EXIT_LOST],
		(unsigned long long)st->count[OP_COUNT_MAPS_REREAD],
		(unsigned long long)st->count[OP_COUNT_MAPS_REREAD_HIT],
		(unsigned long long)st->count[OP_COUNT_MAPS_REREAD_GONE],
		(unsigned long long)st->throttles, (unsigned long long)st->bad,
		(unsigned long long)st->max_pending,
		(unsigned long long)st->cookies_forgotten,
		(unsigned long long)st->cookies_held);
}

static void perf_close(struct opd_source *src)
{
	struct perf_priv *p = src->priv;

	if (!p)
		return;
	if (p->verbose)
		perf_log_stats(opd_perf_stats(p->ps));
	opd_perf_close(p->ps);
	free(p);
	src->priv = NULL;
}

static struct opd_source_ops const perf_ops = {
	.name = "perf",
	.open = perf_open,
	.start = perf_start,
	.stop = perf_stop,
	.pollfds = perf_pollfds,
	.read = perf_read,
	.flush = perf_flush,
	.close = perf_close,
};

struct opd_source_ops const *opd_source_find(char const *name)
{
	if (!strcmp(name, "auto"))
		return opd_driver_present() ? &opd_driver_ops : &perf_ops;
	if (!strcmp(name, "perf"))
		return &perf_ops;
	if (!strcmp(name, "driver")) {
		if (opd_driver_present())
			return &opd_driver_ops;
		op_error("the oprofile driver is not loaded (no %s/buffer): run 'opcontrol --init', or use --source=perf",
			 op_driver_dir());
		return NULL;
	}
	op_error("unknown source '%s': use perf, driver or auto", name);
	return NULL;
}
