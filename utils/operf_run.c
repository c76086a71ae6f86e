/*
 * operf's sampling: the perf source on the command's (or pid's) threads
 * or on every cpu, its words straight into an in-process daemon core.
 *
 * A command is forked first (op_child.h); the child waits until the
 * events are open on it (inherit: its threads and children are followed;
 * enable_on_exec: counting starts when it execs the command, so operf's
 * own code in the child is never sampled), then execs.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "op_child.h"
#include "op_message.h"
#include "op_util.h"
#include "opd_perf_event.h"
#include "opd_stats_file.h"
#include "operf.h"
#include "opd_perf.h"
#include "opd_stream_file.h"
#include "opd_words.h"

static double now_s(void)
{
	return (double)opd_perf_now() / 1e9;
}

struct run {
	struct operf_options const *o;
	struct opd_core *core;
	struct perf_source *ps;
	struct op_child child;	/* OPERF_COMMAND */
	struct stream_writer rec;	/* --record-stream */
	bool recording;
};

/* The perf source for the target, opened (not enabled). */
static int open_source(struct run *r)
{
	struct opd_config const *cfg = &r->o->cfg;
	struct perf_source_event ev[OPD_MAX_EVENTS];
	struct perf_source_config pc;
	pid_t *tasks = NULL;
	int n = 0, err;

	memset(&pc, 0, sizeof(pc));
	for (size_t i = 0; i < cfg->nr_events; i++)
		if (opd_perf_event(cfg, &cfg->events[i], &ev[i]) < 0)
			return -1;
	pc.events = ev;
	pc.nr_events = (unsigned)cfg->nr_events;
	pc.callgraph_depth = r->o->callgraph;
	pc.fp_only = !r->o->stack_size;
	pc.stack_size = r->o->stack_size > 0 ? (unsigned)r->o->stack_size : 0;
	if (r->o->target == OPERF_COMMAND) {
		tasks = op_xmalloc(sizeof(*tasks));
		tasks[0] = r->child.pid;
		n = 1;
		pc.enable_on_exec = true;
	} else if (r->o->target == OPERF_PID) {
		n = op_pid_threads(r->o->pid, &tasks);
		if (n < 0)
			return -1;
	}
	pc.tasks = tasks;
	pc.nr_tasks = (unsigned)n;
	err = opd_perf_open(&r->ps, &pc);
	free(tasks);
	return err ? -1 : 0;
}

/* The words the source wrote so far, into the core. */
static void deliver(struct run *r)
{
	struct word_buffer *wb = opd_perf_words(r->ps);

	if (wb->len && r->recording &&
	    opd_stream_writer_write(&r->rec, wb->w, wb->len) < 0) {
		op_error("stopped recording the stream to '%s'",
			 r->o->record_stream);
		opd_stream_writer_close(&r->rec);
		r->recording = false;
	}
	if (wb->len)
		opd_core_process(r->core, wb->w, wb->len);
	opd_words_reset(wb);
}

/* Whether the target is still there; reaps the command when it exits. */
static bool target_alive(struct run *r, struct operf_result *res)
{
	pid_t got;

	switch (r->o->target) {
	case OPERF_COMMAND:
		got = wait4(r->child.pid, &res->status, WNOHANG, &res->ru);
		if (got == r->child.pid) {
			r->child.pid = 0;
			return false;
		}
		return got == 0;
	case OPERF_PID:
		return op_pid_running(r->o->pid);
	case OPERF_SYSTEM:
		return true;
	}
	return false;
}

static int sample_loop(struct run *r, struct operf_result *res)
{
	double start = now_s();

	while (!op_child_stop && target_alive(r, res)) {
		int err = opd_perf_read(r->ps, 100);

		deliver(r);
		if (err) {
			errno = -err;
			return op_error_errno("cannot read the perf rings");
		}
	}
	res->elapsed = now_s() - start;
	opd_perf_disable(r->ps);
	opd_perf_flush(r->ps, UINT64_MAX);
	deliver(r);
	return 0;
}

static int start(struct run *r)
{
	if (r->o->target == OPERF_COMMAND &&
	    op_child_fork(&r->child, r->o->argv) < 0)
		return -1;
	if (open_source(r) < 0)
		return -1;
	if (opd_perf_enable(r->ps) < 0)
		return -1;
	deliver(r);
	if (r->o->target == OPERF_COMMAND &&
	    op_child_start(&r->child, r->o->argv[0]) < 0)
		return -1;
	return 0;
}

static void log_stats(struct run *r)
{
	struct opd_perf_stats const *st = opd_perf_stats(r->ps);

	fprintf(stderr, "operf: %llu samples (%llu kernel, %llu user), "
		"%llu forks, %llu execs, %llu exits, %llu lost records\n",
		(unsigned long long)st->samples,
		(unsigned long long)st->kernel_samples,
		(unsigned long long)st->user_samples,
		(unsigned long long)st->forks, (unsigned long long)st->execs,
		(unsigned long long)st->exits,
		(unsigned long long)st->lost[OP_LOST_OVERFLOW]);
}

/*
 * Samples that happened but are not in the profile, said once at the end
 * as OProfile's operf does ("Lost samples detected"): the report alone
 * cannot tell. A filter's or a time window's choices are not losses;
 * a backtrace cut short is shown in the reports themselves.
 */
static void warn_losses(struct opd_stats const *st, char const *dir)
{
	uint64_t lost = 0, dropped = st->no_app + st->bad_event +
		st->unresolved_kernel + st->unknown_cookie + st->no_mapping +
		st->sfile_errors + st->no_space;

	for (int i = 1; i < OP_LOST_CATEGORY_MAX; i++)
		if (i != OP_LOST_BT_NO_MAPPING)
			lost += st->lost[i];
	if (lost || dropped)
		op_warn("%llu samples lost before the sample files and %llu "
			"dropped: the profile counts fewer than happened; the "
			"counts by cause are in '%s/samples/current/stats/'",
			(unsigned long long)lost, (unsigned long long)dropped,
			dir);
	if (st->saturated)
		op_warn("%llu samples beyond the count a sample file keeps "
			"(4,294,967,295 at one address): those addresses show "
			"less than happened (stats/sample_saturated)",
			(unsigned long long)st->saturated);
}

int operf_run(struct operf_options const *o, struct operf_result *res)
{
	struct run r = { .o = o, .child = { 0, -1, -1 } };
	int ret = -1;

	memset(res, 0, sizeof(*res));
	op_child_catch_stop(o->target == OPERF_COMMAND);
	r.core = opd_core_new(&o->cfg);
	if (!r.core)
		return -1;
	if (o->record_stream) {
		if (opd_stream_writer_open(&r.rec, o->record_stream) < 0) {
			opd_core_free(r.core);
			return -1;
		}
		r.recording = true;
	}
	if (start(&r) == 0)
		ret = sample_loop(&r, res);
	op_child_kill(&r.child);
	if (r.ps && o->verbose)
		log_stats(&r);
	opd_perf_close(r.ps);
	opd_core_save_jit_maps(r.core);
	opd_core_sync(r.core);
	opd_stats_write(o->session_dir, opd_core_stats(r.core));
	warn_losses(opd_core_stats(r.core), o->session_dir);
	opd_core_free(r.core);
	if (r.recording && opd_stream_writer_close(&r.rec) < 0)
		ret = -1;
	return ret;
}
