/*
 * Becoming a daemon: the double fork, and the pipe on which the starting
 * process waits until the daemon is ready.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "op_message.h"
#include "oprofiled.h"

/*
 * Double fork and setsid. The first process waits until the daemon says
 * it is ready (a 0 byte on the pipe whose write end *ready_fd the daemon
 * gets) and exits 0, or exits 1 when the daemon failed before that (the
 * daemon printed why on the still shared stderr).
 */
void daemonise(int *ready_fd)
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

void detach_stdio(struct daemon *d)
{
	int null = open("/dev/null", O_RDONLY);

	if (null >= 0) {
		dup2(null, STDIN_FILENO);
		close(null);
	}
	log_redirect(d);
}

void tell_ready(int ready_fd)
{
	char ok = 0;

	if (write(ready_fd, &ok, 1) != 1)
		op_warn("cannot tell the starting process that the daemon is ready");
	close(ready_fd);
}
