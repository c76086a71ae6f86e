/*
 * Sample file reading (see pp_samples.h). Readers only walk nodes
 * 1 .. current_size-1 (odb_for_each), which a live writer never disturbs;
 * the chain check can race with a writer linking a node it has not yet
 * published, so a failing check is retried briefly before the file is
 * declared bad.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "odb.h"
#include "op_util.h"
#include "pp_memtree.h"
#include "pp_samples.h"

#define CHECK_TRIES 3

static void push(struct pp_samples *s, uint64_t key, uint64_t count)
{
	OP_ALLOC_GROW(s->v, s->n + 1, s->alloc);
	s->v[s->n].key = key;
	s->v[s->n].count = count;
	s->n++;
}

static int add_node(odb_key_t key, odb_value_t value, void *arg)
{
	if (value)
		push(arg, key, value);
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

void pp_samples_move(struct pp_samples *dst, struct pp_samples *src)
{
	for (size_t i = 0; i < src->n; i++)
		push(dst, src->v[i].key, src->v[i].count);
	pp_samples_free(src);
}

static int cmp_count(void const *a, void const *b)
{
	uint64_t x = ((struct pp_count const *)a)->key;
	uint64_t y = ((struct pp_count const *)b)->key;

	return x < y ? -1 : x > y;
}

void pp_samples_finish(struct pp_samples *s)
{
	size_t out = 0;

	if (s->n > 1)
		qsort(s->v, s->n, sizeof(*s->v), cmp_count);
	for (size_t i = 0; i < s->n; i++) {
		if (out && s->v[out - 1].key == s->v[i].key)
			s->v[out - 1].count += s->v[i].count;
		else
			s->v[out++] = s->v[i];
	}
	s->n = out;
}

uint64_t pp_samples_total(struct pp_samples const *s)
{
	uint64_t t = 0;

	for (size_t i = 0; i < s->n; i++)
		t += s->v[i].count;
	return t;
}

void pp_samples_free(struct pp_samples *s)
{
	free(s->v);
	memset(s, 0, sizeof(*s));
}
