/*
 * perf_event_open(2); see perf_open.h.
 */
#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "perf_open.h"

int perf_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd)
{
	return (int)syscall(SYS_perf_event_open, attr, pid, cpu, group_fd,
			    PERF_FLAG_FD_CLOEXEC);
}
