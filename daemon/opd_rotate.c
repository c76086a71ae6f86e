/* The clock of sessions by time (see opd_rotate.h). */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "op_message.h"
#include "op_session.h"
#include "op_session_kv.h"
#include "op_session_rotate.h"
#include "op_session_settings.h"
#include "opd_rotate.h"

static time_t next_boundary(time_t t, uint64_t interval)
{
	return (time_t)(((uint64_t)t / interval + 1) * interval);
}

void opd_rotation_start(struct opd_rotation *r, uint64_t interval, time_t now)
{
	char text[32], next[32];
	struct tm tm;

	r->interval = interval;
	if (!interval)
		return;
	if (!r->period_start)
		r->period_start = now;
	r->next = next_boundary(now, interval);
	op_settings_duration_text(interval, text, sizeof(text));
	if (!gmtime_r(&r->next, &tm) ||
	    !strftime(next, sizeof(next), "%Y-%m-%d %H:%M:%S UTC", &tm))
		snprintf(next, sizeof(next), "%lld", (long long)r->next);
	op_info("sessions rotate every %s (names in UTC), next at %s", text,
		next);
}

time_t opd_rotation_due(struct opd_rotation *r, time_t now)
{
	if (!r->interval || now < r->next)
		return 0;
	r->next = next_boundary(now, r->interval);
	return now - (time_t)((uint64_t)now % r->interval);
}

int opd_rotation_timeout(struct opd_rotation const *r, time_t now)
{
	if (!r->interval)
		return -1;
	if (now >= r->next)
		return 0;
	return (int)(r->next - now < 60 ? r->next - now : 60) * 1000;
}

/* name for a period beginning at start: the interval's form, to the
 * second when it began off a boundary (the first) or the name is taken,
 * then with .2, .3, ... */
static void unique_name(time_t start, uint64_t interval, char const *session_dir,
			char *name, size_t size)
{
	char base[48];
	struct stat st;
	char *dir;

	op_rotate_name(start, (uint64_t)start % interval ? 1 : interval,
		       base, sizeof(base));
	for (unsigned k = 1; k < 1000; k++) {
		if (k == 2)
			op_rotate_name(start, 1, base, sizeof(base));
		if (k <= 2)
			snprintf(name, size, "%s", base);
		else
			snprintf(name, size, "%s.%u", base, k - 1);
		dir = op_session_samples(session_dir, name);
		if (lstat(dir, &st) < 0) {
			free(dir);
			return;
		}
		free(dir);
	}
}

void opd_rotation_name(struct opd_rotation const *r, char const *session_dir,
		       char *name, size_t size)
{
	unique_name(r->period_start, r->interval ? r->interval : 1, session_dir,
		    name, size);
}

void opd_rotation_mark_end(char const *session_dir, char const *name, time_t end)
{
	if (op_rotate_mark(session_dir, name, end) < 0)
		op_warn("cannot mark session '%s' as rotated: retention will keep it",
			name);
}

/* Whether a session directory holds sample trees. */
static bool has_samples(char const *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	bool any = false;

	while (d && !any && (de = readdir(d)))
		any = op_session_is_sample_tree(de->d_name);
	if (d)
		closedir(d);
	return any;
}

void opd_rotation_leftover(char const *session_dir, char *saved, size_t size)
{
	char *current = op_session_samples(session_dir, OP_CURRENT_SESSION);
	char *conf = op_session_path(current, OP_SESSION_CONF);
	char name[64], err[1024];
	char const *start;
	struct op_kv kv;
	time_t t;

	if (size)
		saved[0] = '\0';
	if (has_samples(current) && op_kv_read(&kv, conf) == 0) {
		start = op_kv_get(&kv, "start_time");
		t = start ? (time_t)strtoll(start, NULL, 10) : 0;
		unique_name(t > 0 ? t : time(NULL), 1, session_dir, name, sizeof(name));
		if (op_session_save(session_dir, name, err, sizeof(err)) == 0) {
			op_info("the live session held samples of an earlier run: saved as '%s'",
				name);
			/* a period of a rotating run: retention's to remove */
			opd_rotation_mark_end(session_dir, name, 0);
			snprintf(saved, size, "%s", name);
		}
		op_kv_free(&kv);
	}
	free(conf);
	free(current);
}

/* --- retention in a child process (opd_retention) --------------------- */

/* The child: signals as a plain process has them (the daemon blocks the
 * ones its signalfd takes), low priority, the removal, and out without
 * the daemon's exit handlers. */
static void retention_child(struct opd_retention const *r)
{
	sigset_t none;

	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGINT, SIG_DFL);
	if (nice(10) == -1)	/* refused: at the daemon's priority then */
		errno = 0;
	_exit(op_rotate_retain(r->session_dir, time(NULL), r->keep,
			       r->keep_bytes) < 0);
}

static void retention_start(struct opd_retention *r)
{
	pid_t pid = fork();

	if (pid < 0) {
		/* no child: at least the loop's own removal, as before */
		op_warn_errno("cannot fork for retention; removing in the daemon");
		op_rotate_retain(r->session_dir, time(NULL), r->keep,
				 r->keep_bytes);
		return;
	}
	if (pid == 0)
		retention_child(r);
	r->pid = pid;
	r->again = false;
}

void opd_retention_run(struct opd_retention *r, char const *session_dir,
		       uint64_t keep, uint64_t keep_bytes)
{
	if (!keep && !keep_bytes)
		return;
	r->session_dir = session_dir;
	r->keep = keep;
	r->keep_bytes = keep_bytes;
	opd_retention_poll(r);
	if (r->pid)
		r->again = true;
	else
		retention_start(r);
}

/* The child ended (status of waitpid): said if it failed. */
static void retention_ended(struct opd_retention *r, int status)
{
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		op_warn("retention (process %d) %s", (int)r->pid,
			WIFEXITED(status) ? "could not remove every session" :
			"was killed");
	r->pid = 0;
}

void opd_retention_poll(struct opd_retention *r)
{
	int status;
	pid_t got;

	if (!r->pid)
		return;
	got = waitpid(r->pid, &status, WNOHANG);
	if (got == 0)
		return;
	if (got < 0)	/* not ours any more (ECHILD): gone */
		r->pid = 0;
	else
		retention_ended(r, status);
	if (r->again)
		retention_start(r);
}

void opd_retention_wait(struct opd_retention *r)
{
	int status;

	while (r->pid) {
		if (waitpid(r->pid, &status, 0) < 0) {
			if (errno == EINTR)
				continue;
			r->pid = 0;
		} else {
			retention_ended(r, status);
		}
		if (r->again)
			retention_start(r);
	}
}
