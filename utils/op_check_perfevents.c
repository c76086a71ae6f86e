/*
 * op-check-perfevents: OProfile 1.x's probe, run by scripts before they
 * use operf or ocount. Exit status 0 when perf_events can count for this
 * user, else the errno of perf_event_open (ENOSYS: no perf_events, ENOENT:
 * no such event, EACCES/EPERM: not allowed). OProfile opens the hardware
 * cycles counter only; our tools also sample and count with the software
 * cpu clock (the "timer" cpu type), so either one counts as support.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <linux/perf_event.h>

#include "op_cpu_type.h"

static void usage(FILE *out)
{
	fprintf(out, "usage: op-check-perfevents [-h|--help] [-v|--verbose]\n"
		"exit status 0 when perf_events can count for this user (the\n"
		"hardware cycles counter, else the software cpu clock), else\n"
		"the errno of perf_event_open\n");
}

int main(int argc, char **argv)
{
	int verbose = 0, hw_err, sw_err;

	if (argc > 2) {
		usage(stderr);
		return 1;
	}
	if (argc == 2) {
		if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
			usage(stdout);
			return 0;
		}
		if (strcmp(argv[1], "-v") && strcmp(argv[1], "--verbose")) {
			fprintf(stderr, "op-check-perfevents: error: '%s': unknown option\n",
				argv[1]);
			usage(stderr);
			return 1;
		}
		verbose = 1;
	}
	errno = 0;
	if (op_perf_event_opens(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES,
				getpid(), -1)) {
		if (verbose)
			fprintf(stderr, "perf_event_open: the hardware cycles counter opens\n");
		return 0;
	}
	hw_err = errno;
	errno = 0;
	if (op_perf_event_opens(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK,
				getpid(), -1)) {
		if (verbose)
			fprintf(stderr, "perf_event_open: no hardware cycles counter "
				"(%s); the software cpu clock opens (cpu type timer)\n",
				strerror(hw_err));
		return 0;
	}
	sw_err = errno ? errno : 1;
	if (verbose)
		fprintf(stderr, "perf_event_open: %s (hardware cycles: %s)\n",
			strerror(sw_err), strerror(hw_err));
	return sw_err > 255 ? 1 : sw_err;
}
