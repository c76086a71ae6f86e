/*
 * odb_check(): the structural check of a whole sample file, for files
 * that no writer is changing (after a dump, or after the writer died).
 *
 * It must be linear in time and memory whatever the file holds: OProfile's
 * checker allocated one byte per possible key and crashed on callgraph
 * files, whose keys are 64-bit. Here chains are walked with one bit per
 * node (a node seen twice is a cycle, since every node is first checked to
 * belong to the bucket being walked), and duplicate keys are found by an
 * LSD radix sort of (key, node) pairs, at most eight counting passes.
 *
 * One inconsistency is accepted on purpose: a writer killed after linking
 * a new node at the head of its bucket, but before publishing it through
 * current_size, leaves hash[b] == current_size. That node is not part of
 * the file yet; the walk skips it (odb_open for writing unlinks it).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "odb_int.h"

struct odb_kn {
	odb_key_t key;
	odb_index_t node;
};

static int odb_check_sizes(struct odb *db, uint32_t *cur)
{
	uint32_t size = odb_load_size(db), view = odb_view_nodes(db);
	struct stat st;

	*cur = odb_load_current(db);
	if (!odb_is_pow2(size))
		return odb_fail(db, -EINVAL, "node count %u is not a power of two",
				size);
	if (size != view)
		return odb_fail(db, -EINVAL,
				"node count %u differs from the %u nodes mapped (the file changed since it was opened)",
				size, view);
	if (*cur == 0)
		return odb_fail(db, -EINVAL,
				"current_size 0 is invalid (node 0 is reserved, so it is at least 1)");
	if (*cur > size)
		return odb_fail(db, -EINVAL, "current_size %u exceeds size %u",
				*cur, size);
	if (fstat(db->fd, &st))
		return odb_fail(db, -errno, "cannot stat: %s", strerror(errno));
	if ((uint64_t)st.st_size < db->map_size)
		return odb_fail(db, -EINVAL,
				"file truncated to %lld bytes since it was opened (%zu mapped)",
				(long long)st.st_size, db->map_size);
	return 0;
}

/* First index to walk in bucket b, stepping over a linked, unpublished node. */
static uint32_t odb_chain_start(struct odb *db, uint32_t b, uint32_t cur,
				int *pending)
{
	uint32_t size = odb_view_nodes(db), idx = db->hash[b];
	struct odb_node const *node;

	if (idx != cur || cur >= size || *pending)
		return idx;
	node = &db->nodes[cur];
	if (odb_hash(node->key, size - 1) != b)
		return idx;	/* not a node being inserted: report it */
	*pending = 1;
	return node->next;
}

static int odb_check_chains(struct odb *db, uint32_t cur, uint8_t *seen)
{
	uint32_t size = odb_view_nodes(db), mask = size - 1, b, idx;
	int pending = 0;

	for (b = 0; b < size; b++) {
		idx = odb_chain_start(db, b, cur, &pending);
		for (; idx; idx = db->nodes[idx].next) {
			odb_key_t key;

			if (idx >= cur)
				return odb_fail(db, -EINVAL,
						"bucket %u chain reaches node %u beyond current_size %u",
						b, idx, cur);
			key = db->nodes[idx].key;
			if (odb_hash(key, mask) != b)
				return odb_fail(db, -EINVAL,
						"key 0x%llx in node %u is in bucket %u, expected bucket %u",
						(unsigned long long)key, idx, b,
						odb_hash(key, mask));
			if (seen[idx / 8] & (1u << (idx % 8)))
				return odb_fail(db, -EINVAL,
						"chain cycle at node %u (bucket %u)",
						idx, b);
			seen[idx / 8] |= 1u << (idx % 8);
		}
	}
	for (idx = 1; idx < cur; idx++) {
		if (seen[idx / 8] & (1u << (idx % 8)))
			continue;
		return odb_fail(db, -EINVAL,
				"node %u (key 0x%llx) is not linked from its bucket %u",
				idx, (unsigned long long)db->nodes[idx].key,
				odb_hash(db->nodes[idx].key, mask));
	}
	return 0;
}

/* One stable counting-sort pass of n pairs on the byte at shift. */
static void odb_radix_pass(struct odb_kn const *from, struct odb_kn *to,
			   size_t n, unsigned shift)
{
	size_t count[256] = { 0 }, pos = 0, i, c;

	for (i = 0; i < n; i++)
		count[(from[i].key >> shift) & 0xff]++;
	for (i = 0; i < 256; i++) {
		c = count[i];
		count[i] = pos;
		pos += c;
	}
	for (i = 0; i < n; i++)
		to[count[(from[i].key >> shift) & 0xff]++] = from[i];
}

/* Sort (key, node) pairs by key; returns the sorted array (a or tmp). */
static struct odb_kn *odb_radix_sort(struct odb_kn *a, struct odb_kn *tmp,
				     size_t n)
{
	odb_key_t differ = 0;
	unsigned shift;
	size_t i;

	for (i = 1; i < n; i++)
		differ |= a[i].key ^ a[0].key;
	for (shift = 0; shift < 64; shift += 8) {
		struct odb_kn *swap;

		if (!((differ >> shift) & 0xff))
			continue;	/* every key has the same byte here */
		odb_radix_pass(a, tmp, n, shift);
		swap = a;
		a = tmp;
		tmp = swap;
	}
	return a;
}

static int odb_check_duplicates(struct odb *db, uint32_t cur)
{
	size_t n = cur - 1, i;
	struct odb_kn *a, *tmp, *sorted;
	int rc = 0;

	if (n < 2)
		return 0;
	a = malloc(n * sizeof(*a));
	tmp = malloc(n * sizeof(*tmp));
	if (!a || !tmp) {
		rc = odb_fail(db, -ENOMEM, "out of memory checking %zu keys", n);
		goto out;
	}
	for (i = 0; i < n; i++) {
		a[i].key = db->nodes[i + 1].key;
		a[i].node = (odb_index_t)(i + 1);
	}
	/* stable, so equal keys stay in node order */
	sorted = odb_radix_sort(a, tmp, n);
	for (i = 1; i < n; i++) {
		if (sorted[i].key != sorted[i - 1].key)
			continue;
		rc = odb_fail(db, -EINVAL, "duplicate key 0x%llx in nodes %u and %u",
			      (unsigned long long)sorted[i].key,
			      sorted[i - 1].node, sorted[i].node);
		break;
	}
out:
	free(a);
	free(tmp);
	return rc;
}

int odb_check(struct odb *db)
{
	uint32_t cur;
	uint8_t *seen;
	int rc;

	if (!db->base)
		return odb_fail(db, -EBADF, "sample file is not open");
	rc = odb_check_sizes(db, &cur);
	if (rc)
		return rc;
	/* a hash rebuild was interrupted: chains mean nothing, nodes do */
	if (odb_growing(db))
		return 0;
	seen = calloc(cur / 8 + 1, 1);
	if (!seen)
		return odb_fail(db, -ENOMEM, "out of memory checking %u nodes", cur);
	rc = odb_check_chains(db, cur, seen);
	free(seen);
	if (rc)
		return rc;
	return odb_check_duplicates(db, cur);
}
