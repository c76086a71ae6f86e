/*
 * Sample file reading (see pp_sample_file.h). Readers only walk nodes
 * 1 .. current_size-1 (odb_for_each), which a live writer never disturbs;
 * the chain check can race with a writer linking a node it has not yet
 * published, so a failing check is retried briefly before the file is
 * declared bad.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "odb.h"
#include "pp_memtree.h"
#include "pp_sample_file.h"
#include "pp_samples.h"

#define CHECK_TRIES 3

static int add_node(odb_key_t key, odb_value_t value, void *arg)
{
	if (value)
		pp_samples_add(arg, key, value);
	return 0;
}

static int check_file(struct odb *db)
{
	struct timespec pause = { 0, 10 * 1000 * 1000 };
	int rc = -EINVAL;

	for (int i = 0; i < CHECK_TRIES; i++) {
		if (i) {
			nanosleep(&pause, NULL);
			odb_refresh(db);   /* a failure shows in the check */
		}
		rc = odb_check(db);
		if (!rc)
			return 0;
	}
	return rc;
}

int pp_samples_read(struct pp_samples *s, char const *path,
		    struct opd_header *hdr, char *err, size_t errlen)
{
	struct odb db;
	size_t before = s->n;
	int rc;

	if (pp_memtree_read(path, s, hdr))
		return 0;
	if (op_header_read(path, hdr, err, errlen))
		return -1;
	rc = odb_open(&db, path, ODB_RDONLY, sizeof(struct opd_header));
	if (rc) {
		snprintf(err, errlen, "%s", db.err);
		return -1;
	}
	rc = check_file(&db);
	if (!rc)
		rc = odb_for_each(&db, add_node, s);
	if (rc) {
		snprintf(err, errlen, "%s", db.err[0] ? db.err : strerror(-rc));
		s->n = before;
	}
	odb_close(&db);
	return rc ? -1 : 0;
}
