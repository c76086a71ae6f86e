/*
 * A failed growth leaves the file exactly as it was (OProfile's odb_open
 * refuses a file whose length does not match its size field), a growth a
 * crash cut short is completed by odb_settle, and a writer refuses
 * symbolic links: a dangling one is not created through, one to a file
 * does not overwrite it. The growth is made to fail with
 * RLIMIT_FSIZE (EFBIG), which needs no small file system.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "odb_helpers.h"

static void fill(struct odb *db, uint32_t from, uint32_t n)
{
	for (uint32_t k = from; k < from + n; k++)
		check_assert(odb_add(db, k, 1) == 0, "add %u: %s", k, db->err);
}

static void failed_grow(void)
{
	char const *path = t_path("grow");
	struct rlimit old, lim;
	struct odb db;
	int rc;

	t_open(&db, path, ODB_RDWR);
	fill(&db, 1, ODB_DEFAULT_NODES - 1);	/* full: the next key grows */
	check_int(t_file_size(path), 2664, "full file before the growth");
	getrlimit(RLIMIT_FSIZE, &old);
	lim = old;
	lim.rlim_cur = 4096;
	signal(SIGXFSZ, SIG_IGN);
	setrlimit(RLIMIT_FSIZE, &lim);
	rc = odb_add(&db, 1000, 1);
	setrlimit(RLIMIT_FSIZE, &old);
	check(rc < 0, "growth past the file size limit fails (%d: %s)", rc, db.err);
	check_int(t_file_size(path), 2664, "the file keeps its old length");
	check(odb_check(&db) == 0, "still sound: %s", db.err);
	check(odb_add(&db, 1000, 1) == 0, "the next add grows: %s", db.err);
	check_int(t_file_size(path), 72 + 32 + 256 * 20, "grown to 256 nodes");
	check(odb_check(&db) == 0, "sound after the growth: %s", db.err);
	odb_close(&db);
}

/* The crash state (a) of odb_open.c: doubled length, old size field. */
static void settle(void)
{
	char const *path = t_path("settle");
	uint64_t sum = 0;
	struct odb db;
	char err[600];

	t_open(&db, path, ODB_RDWR);
	fill(&db, 1, ODB_DEFAULT_NODES - 1);
	odb_close(&db);
	check_int(odb_settle(path, HDR, err, sizeof(err)), 0,
		  "a sound file is left alone");
	check_assert(truncate(path, 72 + 32 + 256 * 20) == 0, "truncate %s", path);
	check_int(odb_settle(path, HDR, err, sizeof(err)), 1,
		  "an interrupted growth is completed");
	check_int(t_file_size(path), 72 + 32 + 256 * 20, "length after settling");
	t_open(&db, path, ODB_RDONLY);
	check_int(db.descr->size, 256, "the size field matches the length");
	check(odb_check(&db) == 0, "sound after settling: %s", db.err);
	for (uint32_t i = 1; i < odb_count(&db) + 1; i++)
		sum += db.nodes[i].value;
	check_int((long long)sum, ODB_DEFAULT_NODES - 1, "every sample kept");
	odb_close(&db);
}

static void refuses_links(void)
{
	char const *target = t_path("target"), *link = t_path("link");
	char const *dangling = t_path("dangling"), *nowhere = t_path("nowhere");
	struct opd_header h;
	struct odb db;
	FILE *f;

	f = fopen(target, "w");
	check_assert(f && fclose(f) == 0, "create %s", target);
	check_assert(symlink(target, link) == 0, "symlink %s", link);
	check_assert(symlink(nowhere, dangling) == 0, "symlink %s", dangling);
	op_header_init(&h);
	check(odb_create(&db, link, &h, sizeof(h)) < 0 && strstr(db.err, "symbolic link"),
	      "a link to a file is refused: %s", db.err);
	check_int(t_file_size(target), 0, "its target is untouched");
	check(odb_create(&db, dangling, &h, sizeof(h)) < 0 && strstr(db.err, "symbolic link"),
	      "a dangling link is refused: %s", db.err);
	check(access(nowhere, F_OK) && errno == ENOENT, "nothing created through it");
	check(odb_open(&db, link, ODB_RDWR, sizeof(h)) < 0, "odb_open refuses it too: %s",
	      db.err);
}

int main(void)
{
	failed_grow();
	settle();
	refuses_links();
	return check_done();
}
