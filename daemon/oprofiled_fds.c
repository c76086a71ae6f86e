/*
 * oprofiled's open-file limit: raised to its hard limit, fitted by the
 * sample files under a low one, and relieved when a file of the session
 * must be written and none is left.
 */
#include "config.h"

#include <stdint.h>
#include <sys/resource.h>

#include "op_file.h"
#include "op_message.h"
#include "oprofiled.h"

/*
 * The soft open-file limit raised to the hard one, as perf and
 * systemd-era daemons do: the daemon holds a descriptor per open sample
 * file, per cpu and event, and briefly one per binary it reads.
 */
void raise_fd_limit(struct daemon *d)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl)) {
		d->nofile = RLIM_INFINITY;
		return;
	}
	if (rl.rlim_cur < rl.rlim_max) {
		rlim_t was = rl.rlim_cur;

		rl.rlim_cur = rl.rlim_max;
		if (setrlimit(RLIMIT_NOFILE, &rl))
			rl.rlim_cur = was;
	}
	d->nofile = rl.rlim_cur;
}

#define LOW_FD_LIMIT 1024

/* Under a low limit, sample files keep at most half of it open: the rest
 * is for the source, the binaries read and the session's other files. */
void fit_fd_limit(struct daemon *d)
{
	size_t half;

	if (d->nofile >= LOW_FD_LIMIT)
		return;
	half = d->nofile / 2 > 4 ? (size_t)(d->nofile / 2) : 4;
	if (!d->cfg.max_open_files || d->cfg.max_open_files > half)
		d->cfg.max_open_files = half;
}

void log_fd_limit(struct daemon *d)
{
	if (d->nofile < LOW_FD_LIMIT)
		log_msg("running with a low open-file limit: %llu (its hard "
			"limit; ulimit -n, LimitNOFILE=): at most %zu sample "
			"files are kept open, others reopen as needed",
			(unsigned long long)d->nofile, d->cfg.max_open_files);
}

/* Out of descriptors, a file of the session to write: the sample files
 * make room (op_file_set_fd_release). */
void release_fds(void *arg)
{
	struct daemon *d = arg;
	size_t n;

	if (!d->core)
		return;
	n = opd_core_release_fds(d->core);
	if (!d->fds_released++)	/* said once: it may recur every sync */
		op_warn("out of file descriptors (limit %llu): %zu sample files "
			"closed to write a file of the session; they reopen on "
			"their next sample", (unsigned long long)d->nofile, n);
}
