/*
 * The writer: adding to a key's count, inserting new keys, and doubling
 * the file when the node array is full.
 *
 * There is one writer and any number of lock-free readers in other
 * processes (odb.h). A new node is filled, linked at the head of its
 * bucket, and only then published by a release store of current_size, so
 * a reader that loads current_size with acquire sees whole nodes. Counts
 * are single aligned 32-bit stores, so a reader never sees a torn value.
 *
 * Growth is ordered so that a writer killed at any instruction leaves a
 * file that still opens (odb_open.c explains what a reader makes of it):
 *   (1) ftruncate() to the doubled length (the extension reads as zeros),
 *   (2) remap,
 *   (3) descr->padding[0] = ODB_PAD_GROWING, then descr->size = new size,
 *   (4) rebuild the hash table, now after the doubled node array,
 *   (5) clear the marker.
 * The old hash table is left behind in node slots that are not in use yet;
 * nodes never move, which is what lets readers ignore growth until they
 * choose to odb_refresh().
 *
 * Every index read from the file is still checked here: the file may have
 * been damaged by another process while we hold it.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE		/* mremap, fallocate */
#endif
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "odb_int.h"

/*
 * Steps (1) and (2) can fail (disk full, quota, I/O error, no address
 * space). The file is then cut back to its old length, so it stays exactly
 * as it was: OProfile's odb_open refuses a file whose length does not
 * match its size field. The next add tries again.
 */
static int odb_grow_undo(struct odb *db, uint64_t old_len, int err,
			 char const *what, uint32_t nodes)
{
	int rc = odb_fail(db, err, "cannot %s to %u nodes: %s", what, nodes,
			  strerror(-err));

	if (ftruncate(db->fd, (off_t)old_len))
		odb_fail(db, err, "cannot %s to %u nodes: %s (and cannot cut the file back: %s)",
			 what, nodes, strerror(-err), strerror(errno));
	return rc;
}

static int odb_grow(struct odb *db)
{
	uint32_t size = odb_view_nodes(db);
	uint64_t old_len = db->map_size;
	uint64_t new_len = odb_layout_size(db->header_size, 2 * (uint64_t)size);
	void *p;

	if (size > UINT32_MAX / 2)
		return odb_fail(db, -EFBIG, "cannot grow beyond %u nodes", size);
	if (ftruncate(db->fd, (off_t)new_len))
		return odb_grow_undo(db, old_len, -errno, "grow", 2 * size);
	/* Reserve the blocks: a store into a hole of a full disk is SIGBUS.
	 * A filesystem without fallocate gets the sparse file. */
	if (fallocate(db->fd, 0, (off_t)old_len, (off_t)(new_len - old_len)) &&
	    errno != EOPNOTSUPP && errno != ENOSYS)
		return odb_grow_undo(db, old_len, -errno, "grow", 2 * size);
	p = mremap(db->base, db->map_size, (size_t)new_len, MREMAP_MAYMOVE);
	if (p == MAP_FAILED)
		return odb_grow_undo(db, old_len, -errno, "remap", 2 * size);
	db->base = p;
	db->map_size = (size_t)new_len;
	odb_set_view(db, size);
	odb_finish_growth(db, 2 * size);
	return 0;
}

/* Only the writer stores values, so a plain load of our own value is exact. */
static int odb_bump(struct odb *db, struct odb_node *node, odb_value_t n)
{
	odb_value_t v = node->value;

	if (n > UINT32_MAX - v) {
		__atomic_store_n(&node->value, UINT32_MAX, __ATOMIC_RELAXED);
		db->saturated++;
		return ODB_SATURATED;
	}
	__atomic_store_n(&node->value, v + n, __ATOMIC_RELAXED);
	return 0;
}

static int odb_insert(struct odb *db, odb_key_t key, odb_value_t n,
		      uint32_t cur)
{
	struct odb_node *node;
	odb_index_t *head;
	uint32_t size = odb_view_nodes(db);
	int rc;

	if (cur >= size) {
		rc = odb_grow(db);
		if (rc)
			return rc;
		size = odb_view_nodes(db);
	}
	node = &db->nodes[cur];
	head = &db->hash[odb_hash(key, size - 1)];
	node->key = key;
	__atomic_store_n(&node->value, n, __ATOMIC_RELAXED);
	node->next = *head;
	/* the node is whole before it is linked: odb_check relies on it */
	__atomic_store_n(head, cur, __ATOMIC_RELEASE);
	__atomic_store_n(&db->descr->current_size, cur + 1, __ATOMIC_RELEASE);
	return 0;
}

int odb_add(struct odb *db, odb_key_t key, odb_value_t n)
{
	struct odb_node *nodes = db->nodes;
	uint32_t size, cur, idx, steps = 0;

	if (!db->base || db->mode != ODB_RDWR)
		return odb_fail(db, -EBADF, "sample file is not open for writing");
	size = odb_view_nodes(db);
	cur = __atomic_load_n(&db->descr->current_size, __ATOMIC_ACQUIRE);
	if (cur > size && odb_load_size(db) > size) {
		/* another handle on this file grew it: its growth is
		 * finished (it ran to the end before we were called), so
		 * take its view rather than fail */
		int rc = odb_refresh(db);

		if (rc)
			return rc;
		nodes = db->nodes;
		size = odb_view_nodes(db);
		cur = __atomic_load_n(&db->descr->current_size, __ATOMIC_ACQUIRE);
	}
	if (cur == 0 || cur > size)
		return odb_fail(db, -EINVAL, "current_size %u outside 1 .. %u",
				cur, size);
	for (idx = db->hash[odb_hash(key, size - 1)]; idx; idx = nodes[idx].next) {
		if (idx >= cur)
			return odb_fail(db, -EINVAL,
					"bucket %u chain reaches node %u beyond current_size %u",
					odb_hash(key, size - 1), idx, cur);
		if (nodes[idx].key == key)
			return odb_bump(db, &nodes[idx], n);
		if (++steps >= cur)
			return odb_fail(db, -EINVAL, "chain cycle at node %u", idx);
	}
	return odb_insert(db, key, n, cur);
}
