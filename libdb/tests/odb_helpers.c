/*
 * Helpers shared by the libdb tests; see odb_helpers.h.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "odb_helpers.h"

char const *t_tmpdir(void)
{
	return check_tmpdir();
}

char const *t_path(char const *name)
{
	static char buf[8][4096];
	static unsigned next;
	char *p = buf[next++ % 8];

	snprintf(p, sizeof(buf[0]), "%s/%s", t_tmpdir(), name);
	return p;
}

off_t t_file_size(char const *path)
{
	struct stat st;

	if (stat(path, &st))
		return -1;
	return st.st_size;
}

void t_open(struct odb *db, char const *path, enum odb_mode mode)
{
	int rc = odb_open(db, path, mode, HDR);

	check_assert(rc == 0, "odb_open(%s, %s) = %d: %s", path,
		     mode == ODB_RDWR ? "RDWR" : "RDONLY", rc, db->err);
}

void t_expect_err(int rc, char const *err, char const *want, char const *what)
{
	check_assert(rc < 0, "%s: expected a failure, got %d", what, rc);
	check_assert(strstr(err, want), "%s: message \"%s\" lacks \"%s\"",
		     what, err, want);
}

static uint64_t t_mix(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdULL;
	k ^= k >> 33;
	return k;
}

void t_model_init(struct t_model *m)
{
	m->cap = 1024;
	m->n = 0;
	m->keys = calloc(m->cap, sizeof(*m->keys));
	m->vals = calloc(m->cap, sizeof(*m->vals));
	m->used = calloc(m->cap, 1);
	check_assert(m->keys && m->vals && m->used, "out of memory");
}

void t_model_free(struct t_model *m)
{
	free(m->keys);
	free(m->vals);
	free(m->used);
	memset(m, 0, sizeof(*m));
}

static size_t t_model_pos(struct t_model const *m, uint64_t key)
{
	size_t i = t_mix(key) & (m->cap - 1);

	while (m->used[i] && m->keys[i] != key)
		i = (i + 1) & (m->cap - 1);
	return i;
}

static void t_model_grow(struct t_model *m)
{
	struct t_model old = *m;
	size_t i;

	m->cap *= 2;
	m->n = 0;
	m->keys = calloc(m->cap, sizeof(*m->keys));
	m->vals = calloc(m->cap, sizeof(*m->vals));
	m->used = calloc(m->cap, 1);
	check_assert(m->keys && m->vals && m->used, "out of memory");
	for (i = 0; i < old.cap; i++)
		if (old.used[i])
			*t_model_slot(m, old.keys[i]) = old.vals[i];
	t_model_free(&old);
}

uint32_t *t_model_slot(struct t_model *m, uint64_t key)
{
	size_t i;

	if (2 * (m->n + 1) > m->cap)
		t_model_grow(m);
	i = t_model_pos(m, key);
	if (!m->used[i]) {
		m->used[i] = 1;
		m->keys[i] = key;
		m->vals[i] = 0;
		m->n++;
	}
	return &m->vals[i];
}

uint32_t *t_model_find(struct t_model const *m, uint64_t key)
{
	size_t i = t_model_pos(m, key);

	return m->used[i] ? &m->vals[i] : NULL;
}

struct t_cmp {
	struct t_model const *want;
	struct t_model seen;
	char const *what;
};

static int t_compare_one(odb_key_t key, odb_value_t value, void *arg)
{
	struct t_cmp *c = arg;
	uint32_t *want = t_model_find(c->want, key);
	size_t before = c->seen.n;

	*t_model_slot(&c->seen, key) = value;
	check_assert(c->seen.n == before + 1, "%s: key 0x%llx appears twice",
		     c->what, (unsigned long long)key);
	check_assert(want, "%s: key 0x%llx is not in the model", c->what,
		     (unsigned long long)key);
	check_assert(*want == value, "%s: key 0x%llx has %u, model says %u",
		     c->what, (unsigned long long)key, value, *want);
	return 0;
}

void t_compare(struct odb *db, struct t_model const *m, char const *what)
{
	struct t_cmp c = { .want = m, .what = what };

	t_model_init(&c.seen);
	check_assert(odb_for_each(db, t_compare_one, &c) == 0,
		     "%s: odb_for_each failed", what);
	check_assert(c.seen.n == m->n, "%s: %zu keys in the file, model has %zu",
		     what, c.seen.n, m->n);
	check_assert(odb_count(db) == m->n, "%s: odb_count %u, model has %zu",
		     what, odb_count(db), m->n);
	t_model_free(&c.seen);
}

/* pwrite wbuf, or else pread into rbuf, exactly len bytes at off of
 * path, or fail the test. */
static void t_pio(char const *path, void *rbuf, void const *wbuf, size_t len,
		  off_t off)
{
	char const *op = wbuf ? "pwrite" : "pread";
	int fd = open(path, wbuf ? O_WRONLY : O_RDONLY);
	ssize_t n;

	check_assert(fd >= 0, "open %s: %s", path, strerror(errno));
	n = wbuf ? pwrite(fd, wbuf, len, off) : pread(fd, rbuf, len, off);
	check_assert(n == (ssize_t)len, "%s %s at %lld: %zd of %zu bytes",
		     op, path, (long long)off, n, len);
	close(fd);
}

void t_pread(char const *path, void *buf, size_t len, off_t off)
{
	t_pio(path, buf, NULL, len, off);
}

void t_pwrite(char const *path, void const *buf, size_t len, off_t off)
{
	t_pio(path, NULL, buf, len, off);
}
