/*
 * oprofiled --replay: a recorded stream file through the core.
 */
#include "config.h"

#include <unistd.h>

#include "op_file.h"
#include "op_session.h"
#include "op_util.h"
#include "opd_stats_file.h"
#include "oprofiled.h"

/*
 * --replay: the recorded stream through the core into the session, as the
 * live run would have written it, then exit. 0 or 1.
 */
int replay(struct daemon *d)
{
	static unsigned long words[16384];
	struct stream_reader sr;
	long n = -1;
	pid_t owner;

	if (op_lock_acquire(d->session_dir, getpid(), &owner) < 0)
		return 1;
	d->lock_pid = getpid();
	if (opd_options_save(&d->opt, &d->cfg) < 0 || !(d->core = opd_core_new(&d->cfg)))
		goto out;
	if (opd_stream_reader_open(&sr, d->opt.replay) == 0) {
		while ((n = opd_stream_reader_read(&sr, words, sizeof(words) / sizeof(words[0]))) > 0)
			opd_core_process(d->core, words, (size_t)n);
		opd_stream_reader_close(&sr);
	}
	opd_core_sync(d->core);
	write_stats(d);
	opd_stats_sync(d->session_dir);
	if (d->opt.verbose)
		opd_stats_log(opd_core_stats(d->core), 1);
	opd_core_free(d->core);
out:
	op_lock_release(d->session_dir, d->lock_pid);
	return n == 0 ? 0 : 1;
}
