/*
 * perf_event_open(2), which the C library does not wrap: every event the
 * tools open (the perf source's samples, opwatch's probes and counters,
 * ocount's counters) is opened close-on-exec, so that a command they
 * start never inherits one.
 */
#ifndef PERF_OPEN_H
#define PERF_OPEN_H

#include <sys/types.h>

struct perf_event_attr;

/* The new event's fd, or -1 with errno set (the kernel's errno). */
int perf_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd);

#endif /* PERF_OPEN_H */
