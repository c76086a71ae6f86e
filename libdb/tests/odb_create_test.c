/*
 * odb_create: a new file appears complete (header, descriptor, 2664 bytes)
 * in one step; an existing file is opened as it is, its header untouched;
 * an unborn (zero-filled) file left by a crash gets the header.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "odb.h"
#include "op_sample_file.h"


static void header(struct opd_header *h, uint32_t count)
{
	op_header_init(h);
	h->cpu_type = 4;
	h->ctr_count = count;
}

int main(void)
{
	char const *dir = check_tmpdir();
	char path[256], entries[256];
	struct opd_header h, got;
	struct odb db;
	struct stat st;
	int fd;

	snprintf(path, sizeof(path), "%s/f", dir);

	header(&h, 1000);
	check(odb_create(&db, path, &h, sizeof(h)) == 0, "create: %s", db.err);
	check(odb_add(&db, 42, 3) == 0, "add");
	odb_close(&db);
	check(stat(path, &st) == 0 && st.st_size == 2664 && (st.st_mode & 0777) == 0644,
	      "new file is %lld bytes mode %o", (long long)st.st_size, st.st_mode & 0777);
	check(op_header_read(path, &got, entries, sizeof(entries)) == 0 &&
	      got.ctr_count == 1000, "header of a created file");
	check_note("stage: new file created complete, 2664 bytes, header in place");

	header(&h, 2000);  /* an existing file keeps its own header */
	check(odb_create(&db, path, &h, sizeof(h)) == 0, "reopen: %s", db.err);
	check(odb_count(&db) == 1, "count after reopen %u", odb_count(&db));
	odb_close(&db);
	check(op_header_read(path, &got, entries, sizeof(entries)) == 0 &&
	      got.ctr_count == 1000, "header kept on reopen");
	check_note("stage: existing file reopened, header untouched");

	snprintf(path, sizeof(path), "%s/unborn", dir);
	fd = open(path, O_CREAT | O_RDWR, 0644);
	check(fd >= 0 && ftruncate(fd, 2664) == 0, "make unborn file");
	close(fd);
	check(odb_create(&db, path, &h, sizeof(h)) == 0, "unborn: %s", db.err);
	odb_close(&db);
	check(op_header_read(path, &got, entries, sizeof(entries)) == 0 &&
	      got.ctr_count == 2000, "unborn file got the header");
	check_note("stage: unborn file initialised with the header");

	snprintf(path, sizeof(path), "%s/no/such/dir/f", dir);
	check(odb_create(&db, path, &h, sizeof(h)) == -ENOENT &&
	      strstr(db.err, "no/such/dir/f"), "missing dir: %s", db.err);
	check_note("stage: missing directory refused naming the file");

	check(!check_rmtree(dir), "the scratch directory is removed");
	return check_done();
}
