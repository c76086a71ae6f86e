/*
 * The daemon's JIT perf maps (opd_jit.h) on maps written here for this
 * process and a child (their pids, their user): only the entries of the
 * sampled regions are kept; a region forgotten while its process runs
 * keeps the process known; a process gone is read at the next save and
 * forgotten; a later reading for the same pid keeps the earlier entries
 * of other regions; another user's map, a map from before the process started and
 * no map at all are not read; past the bound per process the entries are
 * cut and counted.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "op_message.h"
#include "op_perf_map.h"
#include "op_util.h"
#include "opd_core.h"
#include "opd_jit.h"
#include "check.h"

static char maps[CHECK_TMPDIR_MAX + 16], meta[CHECK_TMPDIR_MAX + 16];
static char map[CHECK_TMPDIR_MAX + 64], saved[CHECK_TMPDIR_MAX + 64];

static void quiet(void *ctx, enum op_message_kind kind, char const *text)
{
	(void)ctx;
	(void)kind;
	(void)text;
}

static void put_map(char const *text)
{
	FILE *f = fopen(map, "w");

	if (!f || fputs(text, f) < 0 || fclose(f))
		check_bail("cannot write %s", map);
}

/* The session's file read back; entries in *n, NULL when none. */
static struct op_perf_map *read_saved(struct op_perf_map *m)
{
	size_t len;
	char *text = op_read_file(saved, 0, &len, NULL, 0);

	memset(m, 0, sizeof(*m));
	if (!text)
		return NULL;
	op_perf_map_parse(m, text, len, NULL, 0, 0);
	free(text);
	return m;
}

static char const *name_at(struct op_perf_map const *m, uint64_t addr)
{
	struct op_perf_map_entry const *e = op_perf_map_find(m, addr);

	return e ? e->name : "(none)";
}

int main(void)
{
	unsigned long me = (unsigned long)getpid();
	struct opd_stats st = { 0 };
	struct op_perf_map m;
	struct opd_jit *j;

	op_set_message_sink(quiet, NULL);
	snprintf(maps, sizeof(maps), "%s/tmp", check_tmpdir());
	snprintf(meta, sizeof(meta), "%s/session", check_tmpdir());
	snprintf(map, sizeof(map), "%s/perf-%lu.map", maps, me);
	snprintf(saved, sizeof(saved), "%s/jit/%lu.map", meta, me);
	if (mkdir(maps, 0755) || mkdir(meta, 0755))
		check_bail("cannot make %s", maps);

	j = opd_jit_new(maps);
	opd_jit_region(j, me, 0x1000, 0x2000);
	opd_jit_save(j, meta, true, &st);
	check(access(saved, F_OK) && !st.jit_maps_read && !st.jit_maps_refused,
	      "no map: nothing read, nothing refused, nothing written");

	put_map("800 100 below\n1000 80 first\n1f00 200 across\n"
		"2000 10 above\n");
	opd_jit_save(j, meta, true, &st);
	if (read_saved(&m)) {
		check_int((long long)m.n, 2, "only the region's entries kept");
		check_str(name_at(&m, 0x1040), "first", "an entry inside");
		check_str(name_at(&m, 0x1f10), "across", "an entry across its end");
		op_perf_map_free(&m);
	} else {
		check(false, "no %s", saved);
	}
	check_int((long long)st.jit_maps_read, 1, "one map read");

	/* a region forgotten while the process runs: it stays known */
	put_map("1000 80 first_again\n");
	opd_jit_gone(j, me);
	check(opd_jit_pending(j), "a region forgotten: its map waits");
	opd_jit_save(j, meta, false, &st);
	check(!opd_jit_pending(j), "read at the next save");
	put_map("1000 80 first_third\n");
	opd_jit_save(j, meta, true, &st);
	read_saved(&m);
	check_str(name_at(&m, 0x1040), "first_third",
		  "a process still running is read again at the next dump");
	op_perf_map_free(&m);
	opd_jit_free(j);

	/* another daemon (or a later process of the pid): another region */
	j = opd_jit_new(maps);
	opd_jit_region(j, me, 0x5000, 0x6000);
	put_map("5000 20 second\n1000 80 not_this_process\n");
	opd_jit_save(j, meta, true, &st);
	if (read_saved(&m)) {
		check_str(name_at(&m, 0x5010), "second", "the later process's region");
		check_str(name_at(&m, 0x1040), "first_third",
			  "the earlier process's region kept, not renamed by "
			  "the later map");
		op_perf_map_free(&m);
	} else {
		check(false, "no %s", saved);
	}

	/* a process gone: read once more, then forgotten */
	{
		pid_t child = fork();
		char cmap[sizeof(map)], csaved[sizeof(saved)];
		FILE *f;

		if (child < 0)
			check_bail("cannot fork");
		if (!child) {
			pause();
			_exit(0);
		}
		snprintf(cmap, sizeof(cmap), "%s/perf-%d.map", maps, (int)child);
		snprintf(csaved, sizeof(csaved), "%s/jit/%d.map", meta, (int)child);
		opd_jit_region(j, (unsigned long)child, 0x7000, 0x8000);
		f = fopen(cmap, "w");
		if (!f || fputs("7000 10 child_last\n", f) < 0 || fclose(f))
			check_bail("cannot write %s", cmap);
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
		opd_jit_gone(j, (unsigned long)child);
		opd_jit_save(j, meta, false, &st);
		f = fopen(cmap, "w");
		if (!f || fputs("7000 10 after_its_end\n", f) < 0 || fclose(f))
			check_bail("cannot write %s", cmap);
		opd_jit_save(j, meta, true, &st);
		strcpy(saved, csaved);
		read_saved(&m);
		check_str(name_at(&m, 0x7000), "child_last",
			  "a process gone: its map read at its end, then forgotten");
		op_perf_map_free(&m);
		unlink(cmap);
		snprintf(saved, sizeof(saved), "%s/jit/%lu.map", meta, me);
	}

	/* a map from before the process started */
	{
		struct timespec t[2] = { { .tv_sec = 1000000 },
					 { .tv_sec = 1000000 } };

		put_map("5000 20 stale\n");
		utimensat(AT_FDCWD, map, t, 0);
		opd_jit_save(j, meta, true, &st);
		check_int((long long)st.jit_maps_refused, 1,
			  "a map last written before the process started: refused");
	}
	if (geteuid() == 0) {
		put_map("5000 20 not_mine\n");
		if (chown(map, 65534, 65534))
			check_bail("cannot chown %s", map);
		opd_jit_save(j, meta, true, &st);
		check_int((long long)st.jit_maps_refused, 2,
			  "another user's map: refused");
		read_saved(&m);
		check_str(name_at(&m, 0x5010), "second", "and not read");
		op_perf_map_free(&m);
	} else {
		check_note("another user's map: not checked (chown needs root)");
	}

	/* past the bound per process */
	{
		size_t n = OPD_JIT_PER_PROC + 100, at = 0;
		char *text = op_xmalloc(n * 24 + 1);

		for (size_t i = 0; i < n; i++)
			at += (size_t)sprintf(text + at, "%zx 10 f%zu\n",
					      (size_t)0x100000 + i * 16, i);
		unlink(map);
		put_map(text);
		free(text);
		opd_jit_region(j, me, 0x100000, 0x100000 + n * 16);
		opd_jit_save(j, meta, true, &st);
		check_int((long long)st.jit_entries_cut, 100,
			  "past the bound: 100 entries cut and counted");
	}
	opd_jit_free(j);
	return check_done();
}
