/*
 * perfprobe: can this process open a system-wide cpu-clock sampling
 * event? The control tests skip (exit 77, automake's SKIP) when it
 * cannot, which is the only reason for them to skip as root.
 */
#include "config.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(void)
{
	struct perf_event_attr attr;
	long fd;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_CPU_CLOCK;
	attr.sample_period = 1000000;
	attr.disabled = 1;
	fd = syscall(SYS_perf_event_open, &attr, -1, 0, -1, 0);
	if (fd < 0) {
		printf("perf_event_open refused: %s\n", strerror(errno));
		return 77;
	}
	close((int)fd);
	return 0;
}
