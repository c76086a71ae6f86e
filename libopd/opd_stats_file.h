/*
 * samples/current/stats/: one file per counter of struct opd_stats, each
 * holding one decimal number and a newline, so that shell scripts and
 * opcontrol can read them with cat. The file names are OProfile's where
 * OProfile had the counter; the lost categories and producer counters
 * have op_stream.h's names (OP_LOST_CATEGORIES, OP_COUNTS).
 *
 * The counters balance (doc/formats.md section 5):
 *   sample_received = sample_written + sample_saturated
 *                     + the sample_dropped_* files
 * The sample_lost_* / event_lost_overflow / bt_lost_no_mapping /
 * sample_invalid_eip files count samples lost before the stream, which
 * therefore never reached sample_received; stream_errors counts malformed
 * records, not samples.
 */
#ifndef OPD_STATS_FILE_H
#define OPD_STATS_FILE_H

#include <stddef.h>
#include <stdint.h>

#include "opd_core.h"

/* One counter: its stats/ file name and its value in st. */
struct opd_stat_field {
	char const *name;
	size_t offset;   /* of its uint64_t in struct opd_stats */
	int dropped;     /* on the "dropped" side of the balance */
};

/* Every counter, in the order they are written; ends with a NULL name. */
extern struct opd_stat_field const opd_stat_fields[];

/*
 * Write every counter into SESSION/samples/current/stats/ (created as
 * needed; all files replaced at once, or rewritten in place on a full
 * disk; not fsync'ed). 0 or -1 (message printed).
 */
int opd_stats_write(char const *session_dir, struct opd_stats const *st);

/*
 * Put the session's files (sample files, stats/) on disk with one
 * syncfs(2) of SESSION/samples/current's filesystem: at exit, as the
 * writes do not fsync. 0 or -1 (message printed).
 */
int opd_stats_sync(char const *session_dir);

/* A "name value" message (op_info) per non-zero counter (all when verbose):
 * each a whole line of the log. */
void opd_stats_log(struct opd_stats const *st, int all);

/* Sum of the dropped counters: received - written when the stats balance. */
uint64_t opd_stats_dropped(struct opd_stats const *st);

#endif /* OPD_STATS_FILE_H */
