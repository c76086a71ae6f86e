/*
 * odb_check(): the structural check of a whole sample file, for files
 * that no writer is changing (after a dump, or after the writer died).
 *
 * It must be linear in time and memory whatever the file holds: OProfile's
 * checker allocated one byte per possible key and crashed on callgraph
 * files, whose keys are 64-bit. Here chains are walked with one bit per
 * node (a node seen twice is a cycle, since every node is first checked to
 * belong to the bucket being walked). Equal keys share a bucket, so
 * duplicates can only be on one chain: short chains, nearly all of them,
 * are compared pairwise as they are walked; the nodes of chains longer
 * than ODB_SHORT_CHAIN (a hostile file can put every key in one bucket)
 * are LSD radix sorted as (key, node) pairs, at most eight counting passes.
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

/* Chains up to this long are checked for duplicates pairwise, in place. */
#define ODB_SHORT_CHAIN 16

struct odb_kn {
	odb_key_t key;
	odb_index_t node;
};

/* What the chain walk hands to the duplicate check. */
struct odb_walk {
	uint8_t *seen;		/* one bit per node */
	uint32_t *longs;	/* buckets whose chain is longer than short */
	size_t nr_longs;
	size_t alloc_longs;
	size_t long_nodes;	/* nodes on those chains */
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

static int odb_note_long(struct odb *db, struct odb_walk *w, uint32_t b)
{
	uint32_t *p;

	if (w->nr_longs == w->alloc_longs) {
		w->alloc_longs = w->alloc_longs ? 2 * w->alloc_longs : 64;
		p = realloc(w->longs, w->alloc_longs * sizeof(*p));
		if (!p)
			return odb_fail(db, -ENOMEM, "out of memory checking chains");
		w->longs = p;
	}
	w->longs[w->nr_longs++] = b;
	return 0;
}

/* Pairwise duplicate check of a short chain: keys and nodes seen so far. */
static int odb_short_dup(struct odb *db, struct odb_kn const *chain,
			 uint32_t len, odb_key_t key, odb_index_t idx)
{
	uint32_t j;

	for (j = 0; j < len; j++) {
		if (chain[j].key != key)
			continue;
		return odb_fail(db, -EINVAL, "duplicate key 0x%llx in nodes %u and %u",
				(unsigned long long)key,
				chain[j].node < idx ? chain[j].node : idx,
				chain[j].node < idx ? idx : chain[j].node);
	}
	return 0;
}

/* Walk bucket b's chain: indexes in range, right bucket, no cycle. */
static int odb_walk_chain(struct odb *db, struct odb_walk *w, uint32_t b,
			  uint32_t idx, uint32_t cur)
{
	struct odb_kn chain[ODB_SHORT_CHAIN];
	uint32_t mask = odb_view_nodes(db) - 1, len = 0;
	odb_key_t key;
	int rc;

	for (; idx; idx = db->nodes[idx].next, len++) {
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
		if (w->seen[idx / 8] & (1u << (idx % 8)))
			return odb_fail(db, -EINVAL,
					"chain cycle at node %u (bucket %u)", idx, b);
		w->seen[idx / 8] |= 1u << (idx % 8);
		if (len < ODB_SHORT_CHAIN) {
			rc = odb_short_dup(db, chain, len, key, idx);
			if (rc)
				return rc;
			chain[len].key = key;
			chain[len].node = idx;
		} else if (len == ODB_SHORT_CHAIN) {
			rc = odb_note_long(db, w, b);
			if (rc)
				return rc;
		}
	}
	if (len > ODB_SHORT_CHAIN)
		w->long_nodes += len;
	return 0;
}

static int odb_check_chains(struct odb *db, uint32_t cur, struct odb_walk *w)
{
	uint32_t size = odb_view_nodes(db), mask = size - 1, b, idx;
	int pending = 0, rc;

	for (b = 0; b < size; b++) {
		rc = odb_walk_chain(db, w, b, odb_chain_start(db, b, cur, &pending),
				    cur);
		if (rc)
			return rc;
	}
	for (idx = 1; idx < cur; idx++) {
		if (w->seen[idx / 8] & (1u << (idx % 8)))
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

/* Gather the nodes of the long chains (now known to be sound) in a. */
static void odb_gather_longs(struct odb *db, struct odb_walk const *w,
			     struct odb_kn *a)
{
	uint32_t cur = odb_load_current(db), idx;
	size_t i, n = 0;
	int pending = 0;

	for (i = 0; i < w->nr_longs; i++) {
		idx = odb_chain_start(db, w->longs[i], cur, &pending);
		for (; idx; idx = db->nodes[idx].next) {
			a[n].key = db->nodes[idx].key;
			a[n++].node = idx;
		}
	}
}

static int odb_check_long_chains(struct odb *db, struct odb_walk const *w)
{
	size_t n = w->long_nodes, i;
	struct odb_kn *a, *tmp, *sorted;
	int rc = 0;

	if (!n)
		return 0;
	a = malloc(n * sizeof(*a));
	tmp = malloc(n * sizeof(*tmp));
	if (!a || !tmp) {
		rc = odb_fail(db, -ENOMEM, "out of memory checking %zu keys", n);
		goto out;
	}
	odb_gather_longs(db, w, a);
	sorted = odb_radix_sort(a, tmp, n);
	for (i = 1; i < n; i++) {
		uint32_t lo = sorted[i - 1].node, hi = sorted[i].node;

		if (sorted[i].key != sorted[i - 1].key)
			continue;
		rc = odb_fail(db, -EINVAL, "duplicate key 0x%llx in nodes %u and %u",
			      (unsigned long long)sorted[i].key,
			      lo < hi ? lo : hi, lo < hi ? hi : lo);
		break;
	}
out:
	free(a);
	free(tmp);
	return rc;
}

int odb_check(struct odb *db)
{
	struct odb_walk w = { 0 };
	uint32_t cur;
	int rc;

	if (!db->base)
		return odb_fail(db, -EBADF, "sample file is not open");
	rc = odb_check_sizes(db, &cur);
	if (rc)
		return rc;
	/* a hash rebuild was interrupted: chains mean nothing, nodes do */
	if (odb_growing(db))
		return 0;
	w.seen = calloc(cur / 8 + 1, 1);
	if (!w.seen)
		return odb_fail(db, -ENOMEM, "out of memory checking %u nodes", cur);
	rc = odb_check_chains(db, cur, &w);
	if (!rc)
		rc = odb_check_long_chains(db, &w);
	free(w.seen);
	free(w.longs);
	return rc;
}
