/*
 * oprofiled: the daemon process. It turns its options into the core's
 * configuration, takes the session directory (op_session.h), becomes a
 * daemon, and then runs one poll() loop over the stream source, its
 * signals (signalfd), a sync timer (timerfd) and the control FIFO
 * (op_session_control.h). Everything after the stream is the core's
 * (opd_core.h); everything before it, the source's (opd_source.h).
 * This file keeps main and the order of things; the jobs are one per file:
 * the log (oprofiled_log.c), becoming a daemon (oprofiled_daemonise.c),
 * the open-file limit (oprofiled_fds.c), the session's actions
 * (oprofiled_session.c), rotation (oprofiled_rotate.c), signals, timer and
 * commands (oprofiled_control.c), the poll loop (oprofiled_loop.c) and
 * --replay (oprofiled_replay.c); oprofiled.h holds their shared state.
 *
 * Signals, as OProfile's daemon:
 *   SIGHUP        close every sample file (they reopen lazily), reopen the
 *                 log, read the settings file again (opd_options_reload)
 *   SIGTERM/INT   stop, flush, sync, write stats, remove the lock, exit 0
 *   SIGUSR1/USR2  start / stop sampling
 * and every --sync-interval seconds: sync the sample files, write stats.
 * Samples are aggregated in memory and written into the mmap'ed sample
 * files every --flush-interval milliseconds (500 by default), so a kill -9
 * loses at most that, the source's 100 ms read period and its ordering
 * slack: under a second.
 *
 * With --rotate the live session is saved as samples/UTC-TIME at every
 * boundary of the interval (opd_rotate.h, op_session_rotate.h): in this
 * loop, between two deliveries of the stream, so a sample is in exactly
 * one session.
 *
 * Every file it creates in the session has an explicit mode (umask 022 is
 * set first) and is opened without following symbolic links (op_file.h).
 */
#include "config.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "op_file.h"
#include "op_message.h"
#include "op_session.h"
#include "opd_stats_file.h"
#include "oprofiled.h"

static void shutdown_daemon(struct daemon *d)
{
	char *state = op_session_path(d->session_dir, OP_STATE_FILE);

	stop_sampling(d);
	flush_to(d, UINT64_MAX);
	if (d->opt.rotate)	/* the last period is a session too */
		rotate(d, time(NULL));
	d->src.ops->close(&d->src);
	opd_core_sync(d->core);
	write_stats(d);
	opd_stats_sync(d->session_dir);	/* the one sync of the session */
	opd_retention_wait(&d->retain);
	log_msg("exiting; statistics:");
	opd_stats_log(opd_core_stats(d->core), d->opt.verbose);
	fleet_log_stats(d);
	log_msg("received since start %llu samples; %u sessions rotated",
		(unsigned long long)(d->total_received +
				     opd_core_stats(d->core)->received),
		d->rot.nr_rotated);
	op_file_set_fd_release(NULL, NULL);
	opd_core_free(d->core);
	d->core = NULL;
	if (d->recording && opd_stream_writer_close(&d->rec) == 0)
		log_msg("recorded the stream to '%s'", d->opt.record_stream);
	op_control_close(&d->ctl);
	unlink(state);
	free(state);
	op_lock_release(d->session_dir, d->lock_pid);
}

/*
 * Everything after the options: the lock, the log, the core, the source,
 * then the loop. Returns the exit status.
 */
static int run(struct daemon *d)
{
	struct opd_source_config scfg;
	int ready_fd = -1;
	pid_t owner;

	/*
	 * The lock is taken at once, holding the starting process's pid; the
	 * daemon replaces it with its own pid (atomically) before it tells
	 * the starting process, which waits until then, that it is ready. So
	 * the lock never names a process that is gone while the daemon runs.
	 */
	if (op_lock_acquire(d->session_dir, getpid(), &owner) < 0)
		return 1;
	d->lock_pid = getpid();
	if (log_open(d) < 0)
		goto fail_unlock;
	if (d->opt.rotate) {
		char saved[64];

		opd_rotation_leftover(d->session_dir, saved, sizeof(saved));
		if (saved[0])
			fleet_queue(d, saved);	/* fleet_setup ships it */
	}
	if (opd_options_save(&d->opt, &d->cfg) < 0)
		goto fail_unlock;
	if (!d->opt.no_daemon) {
		daemonise(&ready_fd);
		if (op_lock_update(d->session_dir, getpid()) < 0)
			goto fail_unlock;
		d->lock_pid = getpid();
	} else {
		close(d->log_fd);
		d->log_fd = -1;
	}
	fit_fd_limit(d);
	if (!(d->core = opd_core_new(&d->cfg)))
		goto fail_unlock;
	op_file_set_fd_release(release_fds, d);
	if (d->opt.record_stream) {
		if (opd_stream_writer_open(&d->rec, d->opt.record_stream) < 0)
			goto fail_core;
		d->recording = 1;
	}
	memset(&scfg, 0, sizeof(scfg));
	scfg.core = &d->cfg;
	scfg.buffer_pages = d->opt.buffer_pages;
	scfg.callgraph_depth = d->opt.callgraph;
	scfg.stack_size = d->opt.stack_size;
	scfg.verbose = d->opt.verbose;
	scfg.sink = deliver;
	scfg.sink_arg = d;
	d->src.ops = d->opt.source;
	if (d->src.ops->open(&d->src, &scfg) < 0)
		goto fail_core;
	if (setup_fds(d) < 0 || begin_sampling(d) < 0)
		goto fail_source;
	/* stats/ exists from the start: on a full disk it is rewritten in place */
	write_stats(d);
	if (ready_fd >= 0)
		detach_stdio(d);
	log_msg("daemon started: pid %ld, session '%s', %s source, sampling %s, callgraph depth %u",
		(long)getpid(), d->session_dir, d->src.ops->name, d->opt.events_text,
		d->opt.callgraph);
	log_fd_limit(d);
	rotate_setup(d);
	fleet_setup(d);
	/*
	 * Only now is the starting process let go: what the daemon says at
	 * start is in the log when `oprofiled` returns, not written later
	 * beside what the caller writes next.
	 */
	if (ready_fd >= 0)
		tell_ready(ready_fd);
	if (main_loop(d) < 0)
		op_error("main loop failed; shutting down");
	shutdown_daemon(d);
	return 0;

fail_source:
	d->src.ops->close(&d->src);
fail_core:
	if (d->recording)
		opd_stream_writer_close(&d->rec);
	op_file_set_fd_release(NULL, NULL);
	opd_core_free(d->core);
fail_unlock:
	op_lock_release(d->session_dir, d->lock_pid);
	return 1;
}

int main(int argc, char const **argv)
{
	struct daemon d;
	sigset_t set = daemon_signals();

	memset(&d, 0, sizeof(d));
	d.log_fd = -1;
	d.sigfd = d.timerfd = -1;
	op_set_progname("oprofiled");
	raise_fd_limit(&d);
	umask(022);	/* modes are ours (0644, 0755), not the caller's */
	opd_options_parse(&d.opt, &d.cfg, argc, argv);
	op_set_message_sink(log_sink, &d);
	if (op_session_create(d.opt.session_dir) < 0)
		return 1;
	d.session_dir = realpath(d.opt.session_dir, NULL);
	if (!d.session_dir)
		op_die_errno("cannot resolve session directory '%s'",
			     d.opt.session_dir);
	d.opt.session_dir = d.session_dir;
	d.cfg.session_dir = d.session_dir;
	op_file_set_guard(d.session_dir);
	if (d.opt.replay)
		return replay(&d);
	signal(SIGPIPE, SIG_IGN);
	if (sigprocmask(SIG_BLOCK, &set, NULL) < 0)
		op_die_errno("cannot block signals");
	return run(&d);
}
