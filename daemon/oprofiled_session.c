/*
 * What oprofiled does to the live session: deliver the stream, start and
 * stop sampling, flush, reset and save.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>

#include "op_file.h"
#include "op_message.h"
#include "op_util.h"
#include "op_session.h"
#include "op_session_control.h"
#include "opd_stats_file.h"
#include "oprofiled.h"

static void write_state(struct daemon *d)
{
	char *path = op_session_path(d->session_dir, OP_STATE_FILE);

	op_session_write_text(path, d->sampling ? "sampling\n" : "paused\n");
	free(path);
}

int write_stats(struct daemon *d)
{
	return opd_stats_write(d->session_dir, opd_core_stats(d->core));
}

/*
 * Emit everything sampled up to until_ns into the files and sync them.
 * 0, or -1 when the statistics could not be written (logged).
 */
int flush_to(struct daemon *d, uint64_t until_ns)
{
	if (d->src.ops && d->src.ops->flush(&d->src, until_ns) < 0)
		op_error("cannot flush the %s source", d->src.ops->name);
	opd_core_save_jit_maps(d->core);
	opd_core_sync(d->core);
	return write_stats(d);
}

/* The sink of every source: the stream goes to the record file, if any,
 * and to the core. */
void deliver(unsigned long const *words, size_t n, void *arg)
{
	struct daemon *d = arg;

	if (d->recording && opd_stream_writer_write(&d->rec, words, n) < 0) {
		op_error("stopped recording the stream to '%s'", d->opt.record_stream);
		opd_stream_writer_close(&d->rec);
		d->recording = 0;
	}
	opd_core_process(d->core, words, n);
}

int start_sampling(struct daemon *d)
{
	if (d->sampling)
		return 0;
	if (d->src.ops->start(&d->src) < 0)
		return -1;
	d->sampling = 1;
	write_state(d);
	return 0;
}

/* At startup: sample at once, or with --paused wait for "start". */
int begin_sampling(struct daemon *d)
{
	if (!d->opt.paused)
		return start_sampling(d);
	write_state(d);
	return 0;
}

int stop_sampling(struct daemon *d)
{
	int ret = 0;

	if (!d->sampling)
		return 0;
	if (d->src.ops->stop(&d->src) < 0)
		ret = -1;
	d->sampling = 0;
	flush_to(d, UINT64_MAX);
	write_state(d);
	log_msg("sampling stopped");
	return ret;
}

int do_reset(struct daemon *d)
{
	int ret;

	flush_to(d, op_monotonic_ns());
	d->total_received += opd_core_stats(d->core)->received;
	opd_core_close_files(d->core);
	ret = op_session_reset(d->session_dir);
	opd_core_new_session(d->core);
	opd_core_reset_stats(d->core);
	write_stats(d);
	log_msg("session reset");
	return ret;
}

/*
 * Save the live session as samples/NAME and start a new one. The stats
 * of the saved session (what it holds) go to *saved when not NULL.
 */
int do_save(struct daemon *d, char const *name, char *err, size_t errlen,
		   struct opd_stats *saved)
{
	flush_to(d, op_monotonic_ns());
	if (saved)
		*saved = *opd_core_stats(d->core);
	opd_core_close_files(d->core);
	if (op_session_save(d->session_dir, name, err, errlen) < 0)
		return -1;
	d->total_received += opd_core_stats(d->core)->received;
	opd_core_new_session(d->core);
	opd_core_reset_stats(d->core);
	write_stats(d);
	if (!saved)
		log_msg("session saved as '%s'", name);
	return 0;
}
