/*
 * oprofiled's control: the signals (signalfd), the sync timer (timerfd) and
 * the control FIFO's commands (op_session_control.h), and their answers.
 */
#include "config.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "op_message.h"
#include "op_util.h"
#include "op_session.h"
#include "op_session_control.h"
#include "oprofiled.h"

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

void handle_command(struct daemon *d, struct op_command const *c)
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
		if (ret == 0)
			fleet_closed(d, c->name);
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

void handle_signals(struct daemon *d)
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
		case SIGCHLD:
			break;	/* the loop reaps (fleet_poll, retention) */
		}
	}
}

void handle_timer(struct daemon *d)
{
	uint64_t ticks;

	if (read(d->timerfd, &ticks, sizeof(ticks)) != sizeof(ticks))
		return;
	opd_core_sync(d->core);
	write_stats(d);
}

/* Block the signals we take through the signalfd. */
sigset_t daemon_signals(void)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGUSR2);
	/* a child ended (a shipper, retention): wakes the loop, which reaps
	 * it, also when not sampling and so polling without a timeout */
	sigaddset(&set, SIGCHLD);
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

int setup_fds(struct daemon *d)
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
