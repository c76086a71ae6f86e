/*
 * Sessions by time (--rotate): the live session saved under its period's
 * name at every boundary, between two deliveries of the stream, so that a
 * sample is in exactly one session; the clock and retention are opd_rotate.h's.
 */
#include "config.h"

#include <time.h>

#include "op_message.h"
#include "op_util.h"
#include "opd_stats_file.h"
#include "oprofiled.h"

/*
 * Save the live session under its period's name and begin the next
 * period at start. A period that received nothing is not kept: the next
 * one just begins.
 */
void rotate(struct daemon *d, time_t start)
{
	char name[64], err[1024];
	struct opd_stats st;

	flush_to(d, op_monotonic_ns());
	if (opd_core_stats(d->core)->received == 0) {
		d->rot.period_start = start;
		return;
	}
	opd_rotation_name(&d->rot, d->session_dir, name, sizeof(name));
	if (do_save(d, name, err, sizeof(err), &st) == 0) {
		d->rot.nr_rotated++;
		opd_rotation_mark_end(d->session_dir, name, start);
		opd_options_save(&d->opt, &d->cfg);	/* the new start_time */
		fleet_closed(d, name);	/* marked and ended: ready to ship */
		log_msg("rotated: session '%s' holds received %llu, written %llu, dropped %llu; received since start %llu",
			name, (unsigned long long)st.received,
			(unsigned long long)st.written,
			(unsigned long long)opd_stats_dropped(&st),
			(unsigned long long)d->total_received);
	}
	d->rot.period_start = start;
	opd_retention_run(&d->retain, d->session_dir, d->opt.keep,
			  d->opt.keep_size);
}

/* In the loop: rotate when a boundary has passed. */
void rotate_on_time(struct daemon *d)
{
	time_t start = opd_rotation_due(&d->rot, time(NULL));

	opd_retention_poll(&d->retain);
	fleet_poll(d);
	if (start)
		rotate(d, start);
}

/* Start (or, after a reload, restart) the clock; retention at once. */
void rotate_setup(struct daemon *d)
{
	opd_rotation_start(&d->rot, d->opt.rotate, time(NULL));
	if (d->opt.rotate)
		opd_retention_run(&d->retain, d->session_dir, d->opt.keep,
				  d->opt.keep_size);
}
