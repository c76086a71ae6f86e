/*
 * Writes struct opd_stats as samples/current/stats/NAME files (see
 * opd_stats_file.h for the names and the balance they keep).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "op_config.h"
#include "op_file.h"
#include "op_message.h"
#include "op_session.h"
#include "op_util.h"
#include "opd_stats_file.h"

#define FIELD(name, member, dropped) \
	{ name, offsetof(struct opd_stats, member), dropped },
#define LOST_FIELD(category, value, name) FIELD(name, lost[category], 0)
#define COUNT_FIELD(counter, value, name) FIELD(name, count[counter], 0)
#define UNWIND_FIELD(e, value, name) \
	FIELD("unwind_stop_" #name, unwind_stop[value], 0)

struct opd_stat_field const opd_stat_fields[] = {
	FIELD("sample_received", received, 0)
	FIELD("sample_written", written, 0)
	FIELD("sample_dropped_no_app", no_app, 1)
	FIELD("sample_dropped_bad_event", bad_event, 1)
	FIELD("sample_dropped_unresolved_kernel", unresolved_kernel, 1)
	FIELD("sample_dropped_unknown_cookie", unknown_cookie, 1)
	FIELD("sample_dropped_no_mapping", no_mapping, 1)
	FIELD("sample_dropped_image_filter", filtered, 1)
	FIELD("sample_dropped_time_window", outside_window, 1)
	FIELD("sample_dropped_sfile_error", sfile_errors, 1)
	FIELD("sample_dropped_no_space", no_space, 1)
	FIELD("sample_saturated", saturated, 1)
	FIELD("stream_errors", stream_errors, 0)
	FIELD("cg_arcs_written", arcs, 0)
	FIELD("cg_arcs_dropped", arcs_dropped, 0)
	FIELD("cookies_forgotten", cookies_forgotten, 0)
	FIELD("decoder_cookies", decoder_cookies, 0)
	FIELD("images_live", images_live, 0)
	FIELD("anon_regions_folded", anon_regions_folded, 0)
	FIELD("jit_maps_read", jit_maps_read, 0)
	FIELD("jit_maps_refused", jit_maps_refused, 0)
	FIELD("jit_maps_cut", jit_maps_cut, 0)
	FIELD("jit_entries_cut", jit_entries_cut, 0)
	FIELD("jit_dumps_read", jit_dumps_read, 0)
	FIELD("jit_dumps_refused", jit_dumps_refused, 0)
	FIELD("jit_dump_loads_cut", jit_dump_loads_cut, 0)
	/* lost before the stream, and producer counters (not samples):
	 * op_stream.h's names */
	OP_LOST_CATEGORIES(LOST_FIELD)
	OP_COUNTS(COUNT_FIELD)
	/* whole stacks: samples counted again, outside the balance */
	FIELD("stack_samples_written", stack_written, 0)
	FIELD("stack_samples_dropped", stack_dropped, 0)
	OP_UNWIND_STOPS(UNWIND_FIELD)
	{ NULL, 0, 0 }
};

static uint64_t field_value(struct opd_stats const *st,
			    struct opd_stat_field const *f)
{
	uint64_t v;

	memcpy(&v, (char const *)st + f->offset, sizeof(v));
	return v;
}

uint64_t opd_stats_dropped(struct opd_stats const *st)
{
	struct opd_stat_field const *f;
	uint64_t sum = 0;

	for (f = opd_stat_fields; f->name; f++)
		if (f->dropped)
			sum += field_value(st, f);
	return sum;
}

/* One counter's file text. */
static void field_text(struct opd_stats const *st,
		       struct opd_stat_field const *f, char *text, size_t size)
{
	snprintf(text, size, "%" PRIu64 "\n", field_value(st, f));
}

/* One counter's file, new in the snapshot directory: no temporary file
 * and no fsync of its own (see opd_stats_write). */
static int write_counter(char const *path, char const *text, char *err,
			 size_t errlen)
{
	int fd = op_open_safe(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
			      0644);
	int rc = fd < 0 || op_write_full(fd, text, strlen(text)) < 0 ? -1 : 0;

	if (fd >= 0 && close(fd) && !rc)
		rc = -1;
	if (rc) {
		int saved = errno;

		snprintf(err, errlen, "cannot write '%s': %s", path,
			 strerror(errno));
		errno = saved;
	}
	return rc;
}

/*
 * Write every counter file into dir (which must not exist yet). 0, or -1
 * with errno set and err naming what failed.
 */
static int write_counters(char const *dir, struct opd_stats const *st,
			  char *err, size_t errlen)
{
	struct opd_stat_field const *f;

	if (mkdir(dir, 0755) < 0) {
		snprintf(err, errlen, "cannot create stats directory '%s': %s",
			 dir, strerror(errno));
		return -1;
	}
	for (f = opd_stat_fields; f->name; f++) {
		char *path = op_session_path(dir, f->name);
		char text[32];
		int ret;

		field_text(st, f, text, sizeof(text));
		ret = write_counter(path, text, err, errlen);
		free(path);
		if (ret < 0)
			return -1;
	}
	return 0;
}

/*
 * The disk is full: no new snapshot can be made, but the files of the
 * last one can be overwritten in place (a counter's file is one block
 * whatever its value), so stats/ keeps counting, without the snapshot
 * guarantee. 0 or -1 (message printed).
 */
static int rewrite_counters(char const *dir, struct opd_stats const *st)
{
	struct opd_stat_field const *f;
	char err[1024];
	int ret = 0;

	for (f = opd_stat_fields; f->name && !ret; f++) {
		char *path = op_session_path(dir, f->name);
		char text[32];

		field_text(st, f, text, sizeof(text));
		ret = op_rewrite_in_place(path, text, strlen(text), err, sizeof(err));
		free(path);
	}
	if (ret)
		return op_error("%s", err);
	return 0;
}

/* Move the files of from/ into to/ one by one (no RENAME_EXCHANGE). */
static int move_counters(char const *from, char const *to)
{
	struct opd_stat_field const *f;
	int ret = 0;

	if (mkdir(to, 0755) < 0 && errno != EEXIST)
		return op_error_errno("cannot create stats directory '%s'", to);
	for (f = opd_stat_fields; f->name && !ret; f++) {
		char *src = op_session_path(from, f->name);
		char *dst = op_session_path(to, f->name);

		if (rename(src, dst) < 0)
			ret = op_error_errno("cannot rename '%s' to '%s'", src,
					     dst);
		free(src);
		free(dst);
	}
	return ret;
}

/*
 * The counters are written into stats.new/ and swapped with stats/ in one
 * renameat2(RENAME_EXCHANGE), so a reader of stats/ sees one snapshot (the
 * balance holds across files), not a mix of two writes. A kill -9 keeps
 * the page cache: stats/ is the last whole snapshot, and the next write
 * removes a stats.new/ cut short. So no file is fsync'ed here (41
 * fsyncs at every sync interval and dump bought nothing: the sample
 * files, never msync'ed, lose as much at a power cut); opd_stats_sync
 * puts the whole session on disk at exit.
 */
int opd_stats_write(char const *session_dir, struct opd_stats const *st)
{
	char *current = op_session_samples(session_dir, OP_CURRENT_SESSION);
	char *dir = op_session_path(current, OP_STATS_DIR);
	char *tmp = op_session_path(current, OP_STATS_DIR ".new");
	static int warned_in_place;
	char err[1024];
	int ret = -1;

	if (op_session_remove_tree(tmp) < 0)
		goto out;
	if (write_counters(tmp, st, err, sizeof(err)) < 0) {
		int full = errno == ENOSPC || errno == EDQUOT;

		op_session_remove_tree(tmp);
		if (full && rewrite_counters(dir, st) == 0) {
			if (!warned_in_place++)
				op_warn("%s: statistics rewritten in place in '%s' "
					"until there is space for a new snapshot",
					err, dir);
			ret = 0;
		} else {
			op_error("%s", err);
		}
		goto out;
	}
	warned_in_place = 0;
	if (rename(tmp, dir) == 0) {
		ret = 0;  /* there was no stats/ yet */
	} else if (errno != EEXIST && errno != ENOTEMPTY) {
		op_error_errno("cannot rename '%s' to '%s'", tmp, dir);
	} else if (renameat2(AT_FDCWD, tmp, AT_FDCWD, dir, RENAME_EXCHANGE) == 0) {
		ret = 0;
	} else if (errno == EINVAL || errno == ENOSYS) {
		ret = move_counters(tmp, dir);
	} else {
		op_error_errno("cannot exchange '%s' and '%s'", tmp, dir);
	}
	op_session_remove_tree(tmp);
out:
	free(tmp);
	free(dir);
	free(current);
	return ret;
}

int opd_stats_sync(char const *session_dir)
{
	char *current = op_session_samples(session_dir, OP_CURRENT_SESSION);
	int fd = open(current, O_RDONLY | O_DIRECTORY | O_CLOEXEC), ret = 0;

	if (fd < 0 || syncfs(fd) < 0)
		ret = op_error_errno("cannot sync the session '%s' to disk",
				     current);
	if (fd >= 0)
		close(fd);
	free(current);
	return ret;
}

void opd_stats_log(struct opd_stats const *st, int all)
{
	struct opd_stat_field const *f;

	for (f = opd_stat_fields; f->name; f++) {
		uint64_t v = field_value(st, f);

		/* a message each, so every log line has its prefix and time */
		if (v || all)
			op_info("statistic %s %" PRIu64, f->name, v);
	}
}
