/*
 * oprofiled's one poll() loop over the stream source, its signals, the
 * sync timer and the control FIFO.
 */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <time.h>

#include "op_message.h"
#include "op_util.h"
#include "oprofiled.h"

#define MAX_POLL_FDS 256

/* Poll timeout: the source's 100 ms while sampling, else until the next
 * boundary (or forever). */
static int poll_timeout(struct daemon *d)
{
	return d->sampling ? 100 : opd_rotation_timeout(&d->rot, time(NULL));
}

/* Samples reach the files every --flush-interval ms while sampling. */
static void flush_on_time(struct daemon *d)
{
	uint64_t now = op_monotonic_ns();

	if (now - d->flushed_ns < (uint64_t)d->opt.flush_interval_ms * 1000000u)
		return;
	opd_core_flush(d->core);
	d->flushed_ns = now;
}

int main_loop(struct daemon *d)
{
	struct pollfd fds[MAX_POLL_FDS];
	struct op_command cmd;

	while (!d->quit) {
		size_t n = 0;

		fds[n++] = (struct pollfd){ .fd = d->sigfd, .events = POLLIN };
		fds[n++] = (struct pollfd){ .fd = d->timerfd, .events = POLLIN };
		fds[n++] = (struct pollfd){ .fd = d->ctl.fd, .events = POLLIN };
		n += d->src.ops->pollfds(&d->src, fds + n, MAX_POLL_FDS - n);
		/* The source is read at least every 100 ms while sampling: its
		 * rings wake us only past a watermark. */
		if (poll(fds, n, poll_timeout(d)) < 0 && errno != EINTR)
			return op_error_errno("poll failed");
		if (d->sampling && d->src.ops->read(&d->src) < 0)
			op_error("cannot read the %s source", d->src.ops->name);
		if (d->sampling)
			flush_on_time(d);
		rotate_on_time(d);
		if (fds[0].revents)
			handle_signals(d);
		if (fds[1].revents)
			handle_timer(d);
		if (fds[2].revents)
			while (!d->quit && op_control_next(&d->ctl, &cmd))
				handle_command(d, &cmd);
	}
	return 0;
}
