/*
 * The fleet (doc/fleet.md): with fleet_url in the settings file, every
 * session the daemon closes (a rotation, a save) is queued in
 * SESSION/fleet/queue/NAME and the shipper, `opfleet ship`, is started in
 * a child process to symbolise and upload it. The daemon never talks to
 * the network and never waits for the shipper: sampling goes on whatever
 * the server does. The shipper takes a lock, so starting it while one
 * works costs one short process.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "op_file.h"
#include "op_message.h"
#include "op_session.h"
#include "op_session_kv.h"
#include "oprofiled.h"

static bool fleet_on(struct daemon const *d)
{
	return op_kv_get(&d->opt.config, "fleet_url") != NULL;
}

/* The child: a plain process's signals, low priority, only stdio, then
 * opfleet next to oprofiled, in the build tree's pp/, or in PATH. */
static _Noreturn void shipper_child(struct daemon const *d)
{
	char self[PATH_MAX], *slash, prog[PATH_MAX + 32];
	char const *rel[] = { "opfleet", "../pp/opfleet" };
	char *argv[] = { "opfleet", "ship", "--session-dir", d->session_dir, NULL };
	sigset_t none;
	ssize_t n;

	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGINT, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	if (nice(10) == -1)
		errno = 0;
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	/* the daemon's perf fds, sample files and lock stay its own */
	close_range(3, ~0u, 0);
	if (n > 0) {
		self[n] = '\0';
		slash = strrchr(self, '/');
		if (slash) {
			slash[1] = '\0';
			for (size_t i = 0; i < sizeof(rel) / sizeof(rel[0]); i++) {
				snprintf(prog, sizeof(prog), "%s%s", self, rel[i]);
				if (access(prog, X_OK) == 0)
					execv(prog, argv);
			}
		}
	}
	execvp("opfleet", argv);
	op_warn_errno("cannot run the shipper 'opfleet'");
	_exit(127);
}

/* Under the service (no network), oprofiled-fleet.path starts the
 * shipper instead: OPROFILE_FLEET_SHIPPER=service in the unit. */
static bool ship_here(void)
{
	char const *v = getenv("OPROFILE_FLEET_SHIPPER");

	return !v || strcmp(v, "service");
}

static void shipper_start(struct daemon *d)
{
	pid_t pid;
	size_t i;

	fleet_poll(d);
	for (i = 0; i < FLEET_MAX_SHIPPERS && d->shippers[i]; i++)
		;
	if (i == FLEET_MAX_SHIPPERS)
		return;	/* they are all at work: one of them takes the queue */
	pid = fork();
	if (pid < 0) {
		op_warn_errno("cannot fork the shipper");
		return;
	}
	if (pid == 0)
		shipper_child(d);
	d->shippers[i] = pid;
}

void fleet_poll(struct daemon *d)
{
	for (size_t i = 0; i < FLEET_MAX_SHIPPERS; i++) {
		int status;
		pid_t got;

		if (!d->shippers[i])
			continue;
		got = waitpid(d->shippers[i], &status, WNOHANG);
		if (got == 0)
			continue;
		if (got > 0 && !(WIFEXITED(status) && WEXITSTATUS(status) == 0))
			op_warn("the shipper (process %d) %s %d", (int)got,
				WIFEXITED(status) ? "exited with status" : "was killed by signal",
				WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
		d->shippers[i] = 0;
	}
}

void fleet_setup(struct daemon *d)
{
	if (fleet_on(d) && ship_here())
		shipper_start(d);	/* what an earlier daemon left spooled */
}

void fleet_queue(struct daemon *d, char const *name)
{
	char *dir, *rel;
	int fd;

	if (!fleet_on(d))
		return;
	dir = op_session_path(d->session_dir, OP_FLEET_DIR);
	if (mkdir(dir, 0700) && errno != EEXIST)
		op_warn_errno("cannot create '%s'", dir);
	free(dir);
	rel = op_xasprintf("%s/%s", OP_FLEET_QUEUE, name);
	fd = op_open_beneath(d->session_dir, rel, O_WRONLY | O_CREAT, 0600);
	if (fd < 0)
		op_warn("cannot queue session '%s' for the fleet: %s", name,
			op_file_strerror(errno));
	else
		close(fd);
	free(rel);
}

void fleet_closed(struct daemon *d, char const *name)
{
	if (!fleet_on(d))
		return;
	fleet_queue(d, name);
	if (ship_here())
		shipper_start(d);
}

/* At exit, with the daemon's statistics: the shipper's counters so far
 * (SESSION/fleet/stats; a shipper may still be at work). */
void fleet_log_stats(struct daemon *d)
{
	char *path;
	struct op_kv st = { 0 };
	char const *keys[] = { "spool_entries", "spool_bytes", "dropped",
			       "uploaded", "already_shipped", "failures",
			       "unsymbolised" };

	if (!fleet_on(d))
		return;
	path = op_session_path(d->session_dir, OP_FLEET_STATS);
	if (op_kv_read(&st, path) == 0)
		for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
			log_msg("statistic fleet_%s %s", keys[i],
				op_kv_get(&st, keys[i]) ? op_kv_get(&st, keys[i]) : "0");
	op_kv_free(&st);
	free(path);
}
