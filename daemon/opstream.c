/*
 * opstream: record the perf source's event stream to a file, or dump a
 * recorded stream as text (one line per escape and per sample). A tool
 * for tests, benchmarks and debugging the stream, not for users' profiles.
 *
 *	opstream record --duration=5 --event=cpu-clock:1000000 -o run.ops
 *	opstream dump run.ops
 *	opstream check run.ops		(decode only: counts, errors, speed)
 */
#include <errno.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <popt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "op_message.h"
#include "opd_trans.h"
#include "opd_stream_dump.h"
#include "opd_perf.h"
#include "opd_stream_file.h"
#include "opd_words.h"

#define MAX_EVENTS 8

/* SIGINT/SIGTERM end a recording early but cleanly. */
static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
	(void)sig;
	stop_requested = 1;
}

struct record_opts {
	double duration;
	char *output;
	int depth;
	int ring_pages;
	int no_kernel;
	int no_user;
	struct perf_source_event events[MAX_EVENTS];
	unsigned nr_events;
};

/* "cpu-clock[:PERIOD]" or "task-clock[:PERIOD]" (period in ns). */
static int parse_event(struct record_opts *o, char const *spec)
{
	struct perf_source_event *ev = &o->events[o->nr_events];
	char const *colon = strchr(spec, ':');
	size_t len = colon ? (size_t)(colon - spec) : strlen(spec);
	char *end;

	if (o->nr_events == MAX_EVENTS)
		return op_error("too many events (at most %d)", MAX_EVENTS);
	ev->type = PERF_TYPE_SOFTWARE;
	if (len == 9 && !strncmp(spec, "cpu-clock", len))
		ev->config = PERF_COUNT_SW_CPU_CLOCK;
	else if (len == 10 && !strncmp(spec, "task-clock", len))
		ev->config = PERF_COUNT_SW_TASK_CLOCK;
	else
		return op_error("unknown event '%.*s' (cpu-clock or task-clock)",
				(int)len, spec);
	ev->period = 1000000;
	if (colon) {
		errno = 0;
		ev->period = strtoull(colon + 1, &end, 0);
		if (errno || *end || !ev->period)
			return op_error("bad sample period in '%s'", spec);
	}
	ev->name = spec;
	o->nr_events++;
	return 0;
}

static int write_words(struct stream_writer *sw, struct perf_source *ps)
{
	struct word_buffer *wb = opd_perf_words(ps);
	int err = opd_stream_writer_write(sw, wb->w, wb->len);

	opd_words_reset(wb);
	return err;
}

static void print_stats(struct opd_perf_stats const *st, uint64_t words)
{
	fprintf(stderr, "samples %llu (kernel %llu, user %llu), records %llu, "
		"words %llu, rounds %llu\n",
		(unsigned long long)st->samples,
		(unsigned long long)st->kernel_samples,
		(unsigned long long)st->user_samples,
		(unsigned long long)st->records, (unsigned long long)words,
		(unsigned long long)st->rounds);
	fprintf(stderr, "mmaps %llu, execs %llu, forks %llu, exits %llu, "
		"seeded %llu, throttles %llu, bad %llu, max pending %llu\n",
		(unsigned long long)st->mmaps, (unsigned long long)st->execs,
		(unsigned long long)st->forks, (unsigned long long)st->exits,
		(unsigned long long)st->seeded,
		(unsigned long long)st->throttles,
		(unsigned long long)st->bad,
		(unsigned long long)st->max_pending);
	for (int c = 1; c < OP_LOST_CATEGORY_MAX; c++)
		if (st->lost[c])
			fprintf(stderr, "lost category %d: %llu\n", c,
				(unsigned long long)st->lost[c]);
	if (st->count[OP_COUNT_MAPS_REREAD] || st->count[OP_COUNT_MAPS_REREAD_GONE])
		fprintf(stderr, "maps re-read %llu (resolved %llu, gone %llu)\n",
			(unsigned long long)st->count[OP_COUNT_MAPS_REREAD],
			(unsigned long long)st->count[OP_COUNT_MAPS_REREAD_HIT],
			(unsigned long long)st->count[OP_COUNT_MAPS_REREAD_GONE]);
}

static int record(struct record_opts *o)
{
	struct perf_source_config cfg = {
		.events = o->events,
		.nr_events = o->nr_events,
		.callgraph_depth = (unsigned)o->depth,
		.ring_pages = (unsigned)o->ring_pages,
	};
	struct stream_writer sw;
	struct perf_source *ps;
	uint64_t stop;
	int err;

	for (unsigned e = 0; e < o->nr_events; e++) {
		o->events[e].kernel = !o->no_kernel;
		o->events[e].user = !o->no_user;
	}
	if (opd_perf_open(&ps, &cfg))
		return 1;
	if (opd_stream_writer_open(&sw, o->output)) {
		opd_perf_close(ps);
		return 1;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	err = opd_perf_enable(ps);
	stop = opd_perf_now() + (uint64_t)(o->duration * 1e9);
	while (!err && !stop_requested && opd_perf_now() < stop) {
		err = opd_perf_read(ps, 100);
		if (!err)
			err = write_words(&sw, ps);
	}
	opd_perf_disable(ps);
	opd_perf_flush(ps, UINT64_MAX);
	if (!err)
		err = write_words(&sw, ps);
	print_stats(opd_perf_stats(ps), sw.words);
	if (opd_stream_writer_close(&sw))
		err = -1;
	opd_perf_close(ps);
	return err ? 1 : 0;
}

static int cmd_record(int argc, char const **argv)
{
	struct record_opts o = { .duration = 1.0 };
	char *event = NULL;
	struct poptOption opts[] = {
		{ "duration", 'd', POPT_ARG_DOUBLE, &o.duration, 0,
		  "seconds to record", "S" },
		{ "event", 'e', POPT_ARG_STRING, &event, 'e',
		  "cpu-clock or task-clock, with :PERIOD in ns", "EV[:PERIOD]" },
		{ "output", 'o', POPT_ARG_STRING, &o.output, 0,
		  "stream file to write", "FILE" },
		{ "callgraph", 'c', POPT_ARG_INT, &o.depth, 0,
		  "backtrace depth (0: none)", "N" },
		{ "ring-pages", 0, POPT_ARG_INT, &o.ring_pages, 0,
		  "data pages per cpu ring (power of two)", "N" },
		{ "no-kernel", 0, POPT_ARG_NONE, &o.no_kernel, 0,
		  "do not sample kernel mode", NULL },
		{ "no-user", 0, POPT_ARG_NONE, &o.no_user, 0,
		  "do not sample user mode", NULL },
		POPT_AUTOHELP
		POPT_TABLEEND
	};
	poptContext pc = poptGetContext("opstream record", argc, argv, opts, 0);
	int rc, ret = 2;

	while ((rc = poptGetNextOpt(pc)) > 0) {
		if (rc == 'e' && parse_event(&o, event))
			goto out;
	}
	if (rc < -1) {
		op_error("bad option '%s': %s", poptBadOption(pc, 0),
			 poptStrerror(rc));
		goto out;
	}
	if (!o.output || o.duration <= 0 || o.depth < 0 || o.ring_pages < 0) {
		op_error("record needs -o FILE and a positive --duration");
		goto out;
	}
	if (!o.nr_events && parse_event(&o, "cpu-clock"))
		goto out;
	ret = record(&o);
out:
	poptFreeContext(pc);
	return ret;
}

/* Decode a file with no sink: totals, errors and the decoder's speed. */
static int cmd_check(char const *path)
{
	struct opd_trans dec;
	uint64_t t0 = opd_perf_now(), ns;
	int err;

	opd_trans_init(&dec, NULL, path);
	err = opd_stream_file_replay(path, &dec, 0);
	ns = opd_perf_now() - t0;
	printf("words %" PRIu64 ", samples %" PRIu64 " (kernel %" PRIu64
	       ", user %" PRIu64 "), arcs %" PRIu64 ", errors %" PRIu64 "\n",
	       dec.stats.words, dec.stats.samples, dec.stats.kernel_samples,
	       dec.stats.user_samples, dec.stats.arcs, dec.stats.errors);
	for (int c = 1; c < OP_LOST_CATEGORY_MAX; c++)
		if (dec.stats.lost[c])
			printf("lost category %d: %" PRIu64 "\n", c,
			       dec.stats.lost[c]);
	printf("decoded in %.3f ms: %.1f ns per sample\n", ns / 1e6,
	       dec.stats.samples ? (double)ns / dec.stats.samples : 0.0);
	opd_trans_free(&dec);
	return err ? 1 : 0;
}

int main(int argc, char const **argv)
{
	op_set_progname(argv[0]);
	if (argc >= 2 && !strcmp(argv[1], "record"))
		return cmd_record(argc - 1, argv + 1);
	if (argc == 3 && !strcmp(argv[1], "dump"))
		return opd_stream_dump(argv[2], stdout) ? 1 : 0;
	if (argc == 3 && !strcmp(argv[1], "check"))
		return cmd_check(argv[2]);
	fprintf(stderr, "usage: opstream record [--duration=S] "
		"[--event=cpu-clock:PERIOD]... [--callgraph=N] -o FILE\n"
		"       opstream dump FILE\n"
		"       opstream check FILE\n");
	return 2;
}
