/*
 * Helpers shared by the libdb tests: the scratch directory (check.h's), a
 * seeded PRNG so every run is the same, and an in-memory key ->
 * count model to compare files with. Their invariants are tests/check.h's
 * check_assert(): silent while they hold, the test ends at the first that
 * does not.
 */
#ifndef ODB_HELPERS_H
#define ODB_HELPERS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "check.h"
#include "odb.h"
#include "op_sample_file.h"

#define HDR sizeof(struct opd_header)

/*
 * The test's scratch directory: tests/check.h's check_tmpdir() (under
 * $TMPDIR, removed at exit unless CHECK_KEEP_TMPDIR is set).
 */
char const *t_tmpdir(void);

/* dir/name in a static rotating buffer (valid for a few calls). */
char const *t_path(char const *name);

/* Length of a file, or -1. */
off_t t_file_size(char const *path);

/* Nodes a handle has mapped: the hash table follows them. */
static inline uint32_t t_view(struct odb const *db)
{
	return (uint32_t)((struct odb_node const *)db->hash - db->nodes);
}

/* Open that must succeed. */
void t_open(struct odb *db, char const *path, enum odb_mode mode);

/* rc must be -EINVAL-like (negative) and db->err must contain want. */
void t_expect_err(int rc, char const *err, char const *want, char const *what);

/* splitmix64: small, fast, good enough to drive tests. */
static inline uint64_t t_rand(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Key -> count model (open addressing, grows itself). */
struct t_model {
	uint64_t *keys;
	uint32_t *vals;
	uint8_t *used;
	size_t cap;
	size_t n;
};

void t_model_init(struct t_model *m);
void t_model_free(struct t_model *m);
/* Pointer to key's count, inserting 0 if absent. */
uint32_t *t_model_slot(struct t_model *m, uint64_t key);
/* Pointer to key's count or NULL. */
uint32_t *t_model_find(struct t_model const *m, uint64_t key);

/*
 * Compare a db with a model: same key set, same counts, no key twice.
 * Prints nothing on success; fails the test otherwise.
 */
void t_compare(struct odb *db, struct t_model const *m, char const *what);

/* Read len bytes at off from a file with pread (not through libdb). */
void t_pread(char const *path, void *buf, size_t len, off_t off);
void t_pwrite(char const *path, void const *buf, size_t len, off_t off);

#endif /* ODB_HELPERS_H */
