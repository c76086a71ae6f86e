/*
 * Watched processes; see op_child.h.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "op_child.h"
#include "op_message.h"
#include "op_util.h"

/* The child: wait for the go byte, then become the command. */
static _Noreturn void child_exec(char **argv, int go_fd, int err_fd)
{
	char b;
	int e;

	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	if (read(go_fd, &b, 1) != 1)
		_exit(127);
	close(go_fd);
	execvp(argv[0], argv);
	e = errno;
	if (write(err_fd, &e, sizeof(e)) != sizeof(e))
		_exit(127);
	_exit(127);
}

int op_child_fork(struct op_child *c, char **argv)
{
	int go[2], err[2];

	c->pid = 0;
	c->go_fd = c->err_fd = -1;
	if (pipe2(go, O_CLOEXEC) < 0)
		return op_error_errno("cannot create a pipe");
	if (pipe2(err, O_CLOEXEC) < 0) {
		close(go[0]);
		close(go[1]);
		return op_error_errno("cannot create a pipe");
	}
	c->pid = fork();
	if (c->pid < 0) {
		c->pid = 0;
		return op_error_errno("cannot fork");
	}
	if (c->pid == 0) {
		close(go[1]);
		close(err[0]);
		child_exec(argv, go[0], err[1]);
	}
	close(go[0]);
	close(err[1]);
	c->go_fd = go[1];
	c->err_fd = err[0];
	return 0;
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

int op_child_start(struct op_child *c, char const *name)
{
	char b = 0;
	int e = 0;
	ssize_t n;

	if (write(c->go_fd, &b, 1) != 1)
		return op_error_errno("cannot start '%s'", name);
	close_fd(&c->go_fd);
	do
		n = read(c->err_fd, &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	close_fd(&c->err_fd);
	if (n == sizeof(e)) {
		errno = e;
		return op_error_errno("cannot run '%s'", name);
	}
	return 0;
}

void op_child_kill(struct op_child *c)
{
	close_fd(&c->go_fd);
	close_fd(&c->err_fd);
	if (c->pid <= 0)
		return;
	kill(c->pid, SIGKILL);
	waitpid(c->pid, NULL, 0);
	c->pid = 0;
}

poptContext op_child_options(char const *name, int argc, char const **argv,
			     struct poptOption const *options,
			     void (*take)(poptContext ctx, int val, void *arg),
			     void *arg)
{
	poptContext ctx = poptGetContext(name, argc, argv, options,
					 POPT_CONTEXT_POSIXMEHARDER);
	char usage[64];
	int rc;

	while ((rc = poptGetNextOpt(ctx)) > 0 && take)
		take(ctx, rc, arg);
	if (rc < -1) {
		snprintf(usage, sizeof(usage), "%s --help lists the options", name);
		op_usage_error(usage, "%s: %s", poptBadOption(ctx, 0),
			       poptStrerror(rc));
	}
	return ctx;
}

char **op_child_argv(char const *const *words)
{
	size_t n = 0;
	char **argv;

	if (!words)
		return NULL;
	while (words[n])
		n++;
	argv = op_xcalloc(n + 1, sizeof(*argv));
	for (size_t i = 0; i < n; i++)
		argv[i] = op_xstrdup(words[i]);
	return argv;
}

void op_child_argv_free(char **argv)
{
	for (size_t i = 0; argv && argv[i]; i++)
		free(argv[i]);
	free(argv);
}

int op_child_exit_status(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return 1;
}

volatile sig_atomic_t op_child_stop;

static void on_stop(int sig)
{
	(void)sig;
	op_child_stop = 1;
}

void op_child_catch_stop(bool command)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sa.sa_handler = command ? SIG_IGN : on_stop;
	sigaction(SIGINT, &sa, NULL);
}

bool op_pid_running(pid_t pid)
{
	char path[64], buf[512], *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	p = strrchr(buf, ')');
	return p && p[1] == ' ' && p[2] != 'Z' && p[2] != 'X';
}

int op_pid_threads(pid_t pid, pid_t **out)
{
	char path[64];
	struct dirent *de;
	size_t n = 0, cap = 0;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	if (!d)
		return op_error_errno("cannot list the threads of process %d ('%s')",
				      (int)pid, path);
	*out = NULL;
	OP_ALLOC_GROW(*out, n + 1, cap);
	(*out)[n++] = pid;
	while ((de = readdir(d))) {
		long tid = strtol(de->d_name, NULL, 10);

		if (tid <= 0 || tid == pid)
			continue;
		OP_ALLOC_GROW(*out, n + 1, cap);
		(*out)[n++] = (pid_t)tid;
	}
	closedir(d);
	return (int)n;
}

bool op_kernel_visible(void)
{
	FILE *f;
	int level = 2;

	if (geteuid() == 0)
		return true;
	f = fopen("/proc/sys/kernel/perf_event_paranoid", "re");
	if (f) {
		if (fscanf(f, "%d", &level) != 1)
			level = 2;
		fclose(f);
	}
	return level <= 1;
}
