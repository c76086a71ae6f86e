/*
 * The daemon's stats/ files: one file per counter, rewritten over old
 * ones as one snapshot (no stats.new left behind), and balanced:
 * sample_received = sample_written + the dropped counters.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "op_message.h"
#include "op_session.h"
#include "opd_stats_file.h"

static char session[256];

static unsigned long long stat_file(char const *name)
{
	char rel[256], buf[64];
	char *p;
	unsigned long long v = ~0ull;

	snprintf(rel, sizeof(rel), "%s/%s/%s/%s", OP_SAMPLES_DIR,
		 OP_CURRENT_SESSION, OP_STATS_DIR, name);
	p = op_session_path(session, rel);
	if (op_session_read_small(p, buf, sizeof(buf)) > 0)
		v = strtoull(buf, NULL, 10);
	free(p);
	return v;
}

int main(void)
{
	struct opd_stats st;
	struct opd_stat_field const *f;
	unsigned long long dropped = 0;
	struct stat sb;
	char *tmp;

	op_set_progname("stats_file_test");
	snprintf(session, sizeof(session), "%s/session", check_tmpdir());
	if (op_session_create(session) < 0)
		check_bail("cannot create '%s'", session);
	memset(&st, 0, sizeof(st));
	st.written = 100;
	st.no_app = 1;
	st.bad_event = 2;
	st.unresolved_kernel = 3;
	st.unknown_cookie = 4;
	st.no_mapping = 5;
	st.sfile_errors = 6;
	st.saturated = 7;
	st.received = 128;
	st.lost[OP_LOST_OVERFLOW] = 50;
	st.stream_errors = 9;
	check_int(opd_stats_dropped(&st), 28, "dropped sum");
	check(opd_stats_write(session, &st) == 0, "write stats");
	check(opd_stats_write(session, &st) == 0, "rewrite stats over existing ones");
	for (f = opd_stat_fields; f->name; f++)
		if (f->dropped)
			dropped += stat_file(f->name);
	check(stat_file("sample_received") == stat_file("sample_written") + dropped,
	      "stats files balance");
	check_int(stat_file("sample_lost_overflow"), 50, "lost category file");
	check_int(stat_file("stream_errors"), 9, "stream_errors file");
	tmp = op_session_samples(session, OP_CURRENT_SESSION "/" OP_STATS_DIR ".new");
	check(stat(tmp, &sb) < 0, "no temp dir left");
	free(tmp);
	check(opd_stats_sync(session) == 0, "the session synced at exit");
	check(opd_stats_sync("/proc/no-such-session") < 0,
	      "a session that is not there: an error, not a crash");
	if (op_session_remove_tree(session) < 0)
		check_note("cannot remove '%s'", session);
	return check_done();
}
