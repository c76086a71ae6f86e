/*
 * ocount's counters: perf_event_open in counting mode, one per event,
 * target and cpu, each read with its enabled and running times so that a
 * multiplexed counter can be scaled and marked.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "op_child.h"
#include "op_message.h"
#include "ocount.h"
#include "perf_open.h"

static int *fd_at(struct ocount_counters const *c, int t, int cpu, int e)
{
	return &c->fds[(t * c->nr_cpus + cpu) * c->nr_events + e];
}

static int open_one(struct ocount_counters *c, int t, int cpu, int e,
		    bool inherit, bool on_exec)
{
	struct perf_event_attr a;
	pid_t pid = c->tasks[t];
	int fd;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = c->ev[e].type;
	a.config = c->ev[e].config;
	a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
			PERF_FORMAT_TOTAL_TIME_RUNNING;
	a.disabled = 1;
	a.inherit = inherit && pid >= 0;
	a.enable_on_exec = on_exec;
	/* a user may count their own tasks in user and kernel mode only
	 * when perf_event_paranoid allows; ocount then counts user mode */
	a.exclude_kernel = c->ev[e].no_kernel ||
			   (geteuid() != 0 && pid >= 0 && !op_kernel_visible());
	a.exclude_user = c->ev[e].no_user;
	if (a.exclude_kernel && a.exclude_user) {
		op_error("cannot count '%s' in kernel mode: this user may count "
			 "user mode only (kernel.perf_event_paranoid)",
			 c->ev[e].name);
		return -1;
	}
	fd = perf_open(&a, pid, c->cpus[cpu], -1);
	if (fd < 0) {
		int err = errno;

		if (pid >= 0)
			op_error_errno("cannot count '%s' for task %d", c->ev[e].name,
				       (int)pid);
		else
			op_error_errno("cannot count '%s' on cpu %d", c->ev[e].name,
				       c->cpus[cpu]);
		if (err == EACCES || err == EPERM)
			op_hint(pid >= 0 ? "a user may count only their own processes"
				: "counting whole cpus needs root, or "
				  "kernel.perf_event_paranoid <= 0");
		return -1;
	}
	*fd_at(c, t, cpu, e) = fd;
	return 0;
}

int ocount_open(struct ocount_counters *c, bool inherit, bool on_exec)
{
	size_t n = (size_t)(c->nr_tasks * c->nr_cpus * c->nr_events);

	c->fds = op_xmalloc(n * sizeof(*c->fds));
	memset(c->fds, -1, n * sizeof(*c->fds));
	for (int t = 0; t < c->nr_tasks; t++)
		for (int cpu = 0; cpu < c->nr_cpus; cpu++)
			for (int e = 0; e < c->nr_events; e++)
				if (open_one(c, t, cpu, e, inherit, on_exec) < 0)
					return -1;
	return 0;
}

static int ioctl_all(struct ocount_counters *c, unsigned long req)
{
	int n = c->nr_tasks * c->nr_cpus * c->nr_events, ret = 0;

	for (int i = 0; c->fds && i < n; i++)
		if (c->fds[i] >= 0 && ioctl(c->fds[i], req, 0) < 0)
			ret = -1;
	return ret;
}

int ocount_enable(struct ocount_counters *c)
{
	if (ioctl_all(c, PERF_EVENT_IOC_ENABLE) < 0)
		return op_error_errno("cannot start the counters");
	return 0;
}

void ocount_disable(struct ocount_counters *c)
{
	ioctl_all(c, PERF_EVENT_IOC_DISABLE);
}

void ocount_read(struct ocount_counters const *c, int t, int cpu, int e,
		 struct ocount_value *v)
{
	uint64_t buf[3];
	int fd = *fd_at(c, t, cpu, e);

	memset(v, 0, sizeof(*v));
	if (fd >= 0 && read(fd, buf, sizeof(buf)) == sizeof(buf)) {
		v->count = buf[0];
		v->enabled = buf[1];
		v->running = buf[2];
	}
}

void ocount_close(struct ocount_counters *c)
{
	int n = c->nr_tasks * c->nr_cpus * c->nr_events;

	for (int i = 0; c->fds && i < n; i++)
		if (c->fds[i] >= 0)
			close(c->fds[i]);
	free(c->fds);
	c->fds = NULL;
}

uint64_t ocount_scaled(struct ocount_value const *v, bool *scaled)
{
	*scaled = v->running && v->running < v->enabled;
	if (!*scaled)
		return v->count;
	return (uint64_t)((long double)v->count * v->enabled / v->running);
}
