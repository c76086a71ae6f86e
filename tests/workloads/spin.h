/* Shared by the workloads: run fn(chunk) until this process has used
 * seconds of CPU time. The clock is read once per chunk (about a
 * millisecond), so the time check is a negligible share of samples. */
#ifndef SPIN_H
#define SPIN_H

#include <time.h>

/* Clock id's time in seconds (the control tests' programs use it too). */
static inline double clock_seconds(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static inline double cpu_seconds(void)
{
	return clock_seconds(CLOCK_PROCESS_CPUTIME_ID);
}

static inline void spin_for(double seconds, unsigned long (*fn)(unsigned long),
			    unsigned long chunk)
{
	double end = cpu_seconds() + seconds;

	while (cpu_seconds() < end)
		fn(chunk);
}

#endif /* SPIN_H */
