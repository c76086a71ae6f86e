/*
 * oprofiled: the daemon process. It turns its options into the core's
 * configuration, takes the session directory (op_session.h), becomes a
 * daemon, and then runs one poll() loop over the stream source, its
 * signals (signalfd), a sync timer (timerfd) and the control FIFO
 * (op_session_control.h). Everything after the stream is the core's
 * (opd_core.h); everything before it, the source's (opd_source.h).
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

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <popt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "op_cpu_type.h"
#include "op_events.h"
#include "op_file.h"
#include "op_message.h"
#include "op_util.h"
#include "op_session.h"
#include "op_session_control.h"
#include "op_session_rotate.h"
#include "opd_core.h"
#include "opd_options.h"
#include "opd_rotate.h"
#include "opd_source.h"
#include "opd_stats_file.h"
#include "opd_stream_file.h"

#define MAX_POLL_FDS 256

struct daemon {
	struct opd_options opt;
	struct opd_config cfg;
	struct opd_core *core;
	char *session_dir;              /* absolute */
	struct opd_source src;
	struct op_control ctl;
	int sigfd;
	int timerfd;
	uint64_t flushed_ns;            /* when samples last reached the files */
	int log_fd;                     /* -1 with --no-daemon */
	int log_broken;                 /* the log cannot be written: syslog */
	pid_t lock_pid;                 /* the pid the lock file names */
	struct stream_writer rec;       /* --record-stream */
	int recording;
	int sampling;
	int quit;
	struct opd_rotation rot;        /* --rotate's clock */
	struct opd_retention retain;    /* --keep, --keep-size, off the loop */
	uint64_t total_received;        /* samples of the sessions saved or reset */
	rlim_t nofile;                  /* the open-file limit it runs with */
	int fds_released;               /* sample files closed for want of fds */
};

static void log_msg(char const *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * When the log cannot take a whole line (its disk is full) the line is
 * cut back off and the message goes to syslog; the switch is said once,
 * and undone by the next line that fits.
 */
static void log_to_syslog(struct daemon *d, char const *line, int err)
{
	if (!d->log_broken) {
		openlog("oprofiled", LOG_PID, LOG_DAEMON);
		syslog(LOG_ERR, "cannot write the log '%s/%s': %s; messages go to syslog",
		       d->session_dir, OP_LOG_FILE, strerror(err));
		d->log_broken = 1;
	}
	syslog(LOG_ERR, "%s", line);
}

/* Every message a line of the log, with the time: written whole or not. */
static void log_sink(void *ctx, enum op_message_kind kind, char const *text)
{
	struct daemon *d = ctx;
	char stamp[32], line[4400];
	time_t now = time(NULL);
	struct stat st;
	FILE *m = fmemopen(line, sizeof(line), "w");
	ssize_t n;
	size_t len;
	off_t end;
	int is_log;

	strftime(stamp, sizeof(stamp), "%Y-%m-%d %H:%M:%S", localtime(&now));
	if (!m) {
		op_message_write(stderr, stamp, kind, text);
		return;
	}
	op_message_write(m, stamp, kind, text);
	fclose(m);
	line[sizeof(line) - 1] = '\0';
	len = strlen(line);
	is_log = !fstat(STDERR_FILENO, &st) && S_ISREG(st.st_mode);
	n = write(STDERR_FILENO, line, len);
	if (n == (ssize_t)len) {
		d->log_broken = 0;
		return;
	}
	if (!is_log)
		return;		/* a terminal or a pipe: nothing better to do */
	/*
	 * A part of a line (full disk) is cut back off, from where this write
	 * began: O_APPEND left the offset at its end. (The size before the
	 * write could be stale: the retention child logs to the same file.)
	 */
	if (n >= 0) {
		end = lseek(STDERR_FILENO, 0, SEEK_CUR);
		if (n > 0 && end >= n && ftruncate(STDERR_FILENO, end - n) < 0)
			syslog(LOG_ERR, "cannot cut a part line off the log: %s",
			       strerror(errno));
		errno = ENOSPC;
	}
	log_to_syslog(d, line, errno);
}

/* An informational line in the log. */
static void log_msg(char const *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	op_vmessage(OP_MSG_INFO, fmt, ap);
	va_end(ap);
}

/* Append to the log; with stdout and stderr pointing at it when daemonised. */
static int log_open(struct daemon *d)
{
	char *path = op_session_path(d->session_dir, OP_LOG_FILE);
	int fd = op_open_safe(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);

	if (fd < 0) {
		op_error("cannot open log '%s': %s", path, op_file_strerror(errno));
		free(path);
		return -1;
	}
	free(path);
	if (d->log_fd >= 0)
		close(d->log_fd);
	d->log_fd = fd;
	return 0;
}

static void log_redirect(struct daemon *d)
{
	fflush(stdout);
	fflush(stderr);
	dup2(d->log_fd, STDOUT_FILENO);
	dup2(d->log_fd, STDERR_FILENO);
}

static void write_state(struct daemon *d)
{
	char *path = op_session_path(d->session_dir, OP_STATE_FILE);

	op_session_write_text(path, d->sampling ? "sampling\n" : "paused\n");
	free(path);
}

static int write_stats(struct daemon *d)
{
	return opd_stats_write(d->session_dir, opd_core_stats(d->core));
}

/*
 * Emit everything sampled up to until_ns into the files and sync them.
 * 0, or -1 when the statistics could not be written (logged).
 */
static int flush_to(struct daemon *d, uint64_t until_ns)
{
	if (d->src.ops && d->src.ops->flush(&d->src, until_ns) < 0)
		op_error("cannot flush the %s source", d->src.ops->name);
	opd_core_sync(d->core);
	return write_stats(d);
}

/* The sink of every source: the stream goes to the record file, if any,
 * and to the core. */
static void deliver(unsigned long const *words, size_t n, void *arg)
{
	struct daemon *d = arg;

	if (d->recording && opd_stream_writer_write(&d->rec, words, n) < 0) {
		op_error("stopped recording the stream to '%s'", d->opt.record_stream);
		opd_stream_writer_close(&d->rec);
		d->recording = 0;
	}
	opd_core_process(d->core, words, n);
}

static int start_sampling(struct daemon *d)
{
	if (d->sampling)
		return 0;
	if (d->src.ops->start(&d->src) < 0)
		return -1;
	d->sampling = 1;
	write_state(d);
	return 0;
}

/* At startup: sample at once, or with --paused wait for "start". */
static int begin_sampling(struct daemon *d)
{
	if (!d->opt.paused)
		return start_sampling(d);
	write_state(d);
	return 0;
}

static int stop_sampling(struct daemon *d)
{
	int ret = 0;

	if (!d->sampling)
		return 0;
	if (d->src.ops->stop(&d->src) < 0)
		ret = -1;
	d->sampling = 0;
	flush_to(d, UINT64_MAX);
	write_state(d);
	log_msg("sampling stopped");
	return ret;
}

static int do_reset(struct daemon *d)
{
	int ret;

	flush_to(d, op_monotonic_ns());
	d->total_received += opd_core_stats(d->core)->received;
	opd_core_close_files(d->core);
	ret = op_session_reset(d->session_dir);
	opd_core_new_session(d->core);
	opd_core_reset_stats(d->core);
	write_stats(d);
	log_msg("session reset");
	return ret;
}

/*
 * Save the live session as samples/NAME and start a new one. The stats
 * of the saved session (what it holds) go to *saved when not NULL.
 */
static int do_save(struct daemon *d, char const *name, char *err, size_t errlen,
		   struct opd_stats *saved)
{
	flush_to(d, op_monotonic_ns());
	if (saved)
		*saved = *opd_core_stats(d->core);
	opd_core_close_files(d->core);
	if (op_session_save(d->session_dir, name, err, errlen) < 0)
		return -1;
	d->total_received += opd_core_stats(d->core)->received;
	opd_core_new_session(d->core);
	opd_core_reset_stats(d->core);
	write_stats(d);
	if (!saved)
		log_msg("session saved as '%s'", name);
	return 0;
}

/* --- sessions by time (--rotate, opd_rotate.h) ----------------------- */

/*
 * Save the live session under its period's name and begin the next
 * period at start. A period that received nothing is not kept: the next
 * one just begins.
 */
static void rotate(struct daemon *d, time_t start)
{
	char name[64], err[1024];
	struct opd_stats st;

	flush_to(d, op_monotonic_ns());
	if (opd_core_stats(d->core)->received == 0) {
		d->rot.period_start = start;
		return;
	}
	opd_rotation_name(&d->rot, d->session_dir, name, sizeof(name));
	if (do_save(d, name, err, sizeof(err), &st) == 0) {
		d->rot.nr_rotated++;
		opd_rotation_mark_end(d->session_dir, name, start);
		opd_options_save(&d->opt, &d->cfg);	/* the new start_time */
		log_msg("rotated: session '%s' holds received %llu, written %llu, dropped %llu; received since start %llu",
			name, (unsigned long long)st.received,
			(unsigned long long)st.written,
			(unsigned long long)opd_stats_dropped(&st),
			(unsigned long long)d->total_received);
	}
	d->rot.period_start = start;
	opd_retention_run(&d->retain, d->session_dir, d->opt.keep,
			  d->opt.keep_size);
}

/* In the loop: rotate when a boundary has passed. */
static void rotate_on_time(struct daemon *d)
{
	time_t start = opd_rotation_due(&d->rot, time(NULL));

	opd_retention_poll(&d->retain);
	if (start)
		rotate(d, start);
}

/* Start (or, after a reload, restart) the clock; retention at once. */
static void rotate_setup(struct daemon *d)
{
	opd_rotation_start(&d->rot, d->opt.rotate, time(NULL));
	if (d->opt.rotate)
		opd_retention_run(&d->retain, d->session_dir, d->opt.keep,
				  d->opt.keep_size);
}

/* Poll timeout: the source's 100 ms while sampling, else until the next
 * boundary (or forever). */
static int poll_timeout(struct daemon *d)
{
	return d->sampling ? 100 : opd_rotation_timeout(&d->rot, time(NULL));
}

/* A full disk is said at once, not by a dump that never completes. */
static void do_dump(struct daemon *d, char const *id)
{
	char const *full;
	int stats = flush_to(d, op_monotonic_ns());

	full = opd_core_no_space(d->core);
	if (!full && stats < 0)
		full = "cannot write the statistics (stats/): see the log";
	if (op_control_dump_done(d->session_dir, id, full) < 0)
		op_error("cannot answer dump %s in '%s': opcontrol waits for "
			 "it in vain", id, d->session_dir);
	if (d->opt.verbose)
		log_msg("dump %s complete", id);
}

static void handle_command(struct daemon *d, struct op_command const *c)
{
	char err[1024] = "";
	int ret = 0;

	static char const *const names[] = {
		[OP_CMD_START] = "start", [OP_CMD_STOP] = "stop",
		[OP_CMD_DUMP] = "dump", [OP_CMD_RESET] = "reset",
		[OP_CMD_SAVE] = "save", [OP_CMD_EXIT] = "exit",
	};

	if (d->opt.verbose)
		log_msg("control: %s%s%s%s%s", names[c->cmd], c->name[0] ? " " : "",
			c->name, c->id[0] ? " id " : "", c->id);
	switch (c->cmd) {
	case OP_CMD_START:
		ret = start_sampling(d);
		log_msg("sampling %s", ret ? "could not start" : "started");
		break;
	case OP_CMD_STOP:
		ret = stop_sampling(d);
		break;
	case OP_CMD_DUMP:
		do_dump(d, c->id);
		return;
	case OP_CMD_RESET:
		ret = do_reset(d);
		break;
	case OP_CMD_SAVE:
		ret = do_save(d, c->name, err, sizeof(err), NULL);
		break;
	case OP_CMD_EXIT:
		d->quit = 1;
		break;
	}
	if (ret < 0 && !err[0])
		snprintf(err, sizeof(err), "command failed: see '%s/%s'",
			 d->session_dir, OP_LOG_FILE);
	if (c->id[0])
		op_control_reply(d->session_dir, c->id, ret < 0 ? err : NULL);
}

static void handle_signals(struct daemon *d)
{
	struct signalfd_siginfo si;

	while (read(d->sigfd, &si, sizeof(si)) == sizeof(si)) {
		switch (si.ssi_signo) {
		case SIGHUP:
			opd_core_close_files(d->core);
			if (d->log_fd >= 0 && log_open(d) == 0)
				log_redirect(d);
			log_msg("SIGHUP: sample files closed, log reopened");
			if (opd_options_reload(&d->opt) == 0)
				rotate_setup(d);
			break;
		case SIGTERM:
		case SIGINT:
			d->quit = 1;
			break;
		case SIGUSR1:
			log_msg("SIGUSR1: sampling %s",
				start_sampling(d) ? "could not start" : "started");
			break;
		case SIGUSR2:
			stop_sampling(d);
			break;
		}
	}
}

static void handle_timer(struct daemon *d)
{
	uint64_t ticks;

	if (read(d->timerfd, &ticks, sizeof(ticks)) != sizeof(ticks))
		return;
	opd_core_sync(d->core);
	write_stats(d);
}

/* Samples reach the files every --flush-interval ms while sampling. */
static void flush_on_time(struct daemon *d)
{
	uint64_t now = op_monotonic_ns();

	if (now - d->flushed_ns < (uint64_t)d->opt.flush_interval_ms * 1000000u)
		return;
	opd_core_flush(d->core);
	d->flushed_ns = now;
}

static int main_loop(struct daemon *d)
{
	struct pollfd fds[MAX_POLL_FDS];
	struct op_command cmd;

	while (!d->quit) {
		size_t n = 0;

		fds[n++] = (struct pollfd){ .fd = d->sigfd, .events = POLLIN };
		fds[n++] = (struct pollfd){ .fd = d->timerfd, .events = POLLIN };
		fds[n++] = (struct pollfd){ .fd = d->ctl.fd, .events = POLLIN };
		n += d->src.ops->pollfds(&d->src, fds + n, MAX_POLL_FDS - n);
		/* The source is read at least every 100 ms while sampling: its
		 * rings wake us only past a watermark. */
		if (poll(fds, n, poll_timeout(d)) < 0 && errno != EINTR)
			return op_error_errno("poll failed");
		if (d->sampling && d->src.ops->read(&d->src) < 0)
			op_error("cannot read the %s source", d->src.ops->name);
		if (d->sampling)
			flush_on_time(d);
		rotate_on_time(d);
		if (fds[0].revents)
			handle_signals(d);
		if (fds[1].revents)
			handle_timer(d);
		if (fds[2].revents)
			while (!d->quit && op_control_next(&d->ctl, &cmd))
				handle_command(d, &cmd);
	}
	return 0;
}

/* Block the signals we take through the signalfd. */
static sigset_t daemon_signals(void)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGUSR2);
	return set;
}

/*
 * The answer files exist from the start, so that on a full disk they can
 * still be overwritten in place (op_control_dump_done). "-" is no id.
 */
static void make_answer_files(struct daemon *d)
{
	static char const *const names[] = { OP_DUMP_FILE, OP_REPLY_FILE };

	op_control_clean_replies(d->session_dir);

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		char *path = op_session_path(d->session_dir, names[i]);

		if (access(path, F_OK))
			op_session_write_text(path, "-\n");
		free(path);
	}
}

static int setup_fds(struct daemon *d)
{
	sigset_t set = daemon_signals();
	struct itimerspec its = { { d->opt.sync_interval, 0 },
				  { d->opt.sync_interval, 0 } };

	d->sigfd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
	if (d->sigfd < 0)
		return op_error_errno("cannot create signalfd");
	d->timerfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (d->timerfd < 0 || timerfd_settime(d->timerfd, 0, &its, NULL) < 0)
		return op_error_errno("cannot create the sync timer");
	make_answer_files(d);
	return op_control_open(&d->ctl, d->session_dir);
}

/*
 * Double fork and setsid. The first process waits until the daemon says
 * it is ready (a 0 byte on the pipe whose write end *ready_fd the daemon
 * gets) and exits 0, or exits 1 when the daemon failed before that (the
 * daemon printed why on the still shared stderr).
 */
static void daemonise(int *ready_fd)
{
	int p[2];
	pid_t pid;

	if (pipe2(p, O_CLOEXEC) < 0)
		op_die_errno("cannot create a pipe");
	pid = fork();
	if (pid < 0)
		op_die_errno("cannot fork");
	if (pid > 0) {
		char b = 1;

		close(p[1]);
		waitpid(pid, NULL, 0);
		while (read(p[0], &b, 1) < 0 && errno == EINTR)
			;
		_exit(b == 0 ? 0 : 1);
	}
	close(p[0]);
	if (setsid() < 0)
		op_die_errno("setsid failed");
	pid = fork();
	if (pid < 0)
		op_die_errno("cannot fork");
	if (pid > 0)
		_exit(0);
	if (chdir("/") < 0)
		op_die_errno("cannot chdir to '/'");
	*ready_fd = p[1];
}

static void detach_stdio(struct daemon *d)
{
	int null = open("/dev/null", O_RDONLY);

	if (null >= 0) {
		dup2(null, STDIN_FILENO);
		close(null);
	}
	log_redirect(d);
}

static void tell_ready(int ready_fd)
{
	char ok = 0;

	if (write(ready_fd, &ok, 1) != 1)
		op_warn("cannot tell the starting process that the daemon is ready");
	close(ready_fd);
}

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
 * --replay: the recorded stream through the core into the session, as the
 * live run would have written it, then exit. 0 or 1.
 */
static int replay(struct daemon *d)
{
	static unsigned long words[16384];
	struct stream_reader sr;
	long n = -1;
	pid_t owner;

	if (op_lock_acquire(d->session_dir, getpid(), &owner) < 0)
		return 1;
	d->lock_pid = getpid();
	if (opd_options_save(&d->opt, &d->cfg) < 0 || !(d->core = opd_core_new(&d->cfg)))
		goto out;
	if (opd_stream_reader_open(&sr, d->opt.replay) == 0) {
		while ((n = opd_stream_reader_read(&sr, words, sizeof(words) / sizeof(words[0]))) > 0)
			opd_core_process(d->core, words, (size_t)n);
		opd_stream_reader_close(&sr);
	}
	opd_core_sync(d->core);
	write_stats(d);
	opd_stats_sync(d->session_dir);
	if (d->opt.verbose)
		opd_stats_log(opd_core_stats(d->core), 1);
	opd_core_free(d->core);
out:
	op_lock_release(d->session_dir, d->lock_pid);
	return n == 0 ? 0 : 1;
}

/*
 * Issue 21: the soft open-file limit raised to the hard one, as perf and
 * systemd-era daemons do: the daemon holds a descriptor per open sample
 * file, per cpu and event, and briefly one per binary it reads.
 */
static void raise_fd_limit(struct daemon *d)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl)) {
		d->nofile = RLIM_INFINITY;
		return;
	}
	if (rl.rlim_cur < rl.rlim_max) {
		rlim_t was = rl.rlim_cur;

		rl.rlim_cur = rl.rlim_max;
		if (setrlimit(RLIMIT_NOFILE, &rl))
			rl.rlim_cur = was;
	}
	d->nofile = rl.rlim_cur;
}

#define LOW_FD_LIMIT 1024

/* Under a low limit, sample files keep at most half of it open: the rest
 * is for the source, the binaries read and the session's other files. */
static void fit_fd_limit(struct daemon *d)
{
	size_t half;

	if (d->nofile >= LOW_FD_LIMIT)
		return;
	half = d->nofile / 2 > 4 ? (size_t)(d->nofile / 2) : 4;
	if (!d->cfg.max_open_files || d->cfg.max_open_files > half)
		d->cfg.max_open_files = half;
}

static void log_fd_limit(struct daemon *d)
{
	if (d->nofile < LOW_FD_LIMIT)
		log_msg("running with a low open-file limit: %llu (its hard "
			"limit; ulimit -n, LimitNOFILE=): at most %zu sample "
			"files are kept open, others reopen as needed",
			(unsigned long long)d->nofile, d->cfg.max_open_files);
}

/* Out of descriptors, a file of the session to write: the sample files
 * make room (op_file_set_fd_release). */
static void release_fds(void *arg)
{
	struct daemon *d = arg;
	size_t n;

	if (!d->core)
		return;
	n = opd_core_release_fds(d->core);
	if (!d->fds_released++)	/* said once: it may recur every sync */
		op_warn("out of file descriptors (limit %llu): %zu sample files "
			"closed to write a file of the session; they reopen on "
			"their next sample", (unsigned long long)d->nofile, n);
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
	if (d->opt.rotate)
		opd_rotation_leftover(d->session_dir);
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
