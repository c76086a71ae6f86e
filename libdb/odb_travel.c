/*
 * Reading: counting and visiting the committed nodes.
 *
 * Readers never use the hash table. They visit nodes 1 .. current_size - 1
 * in file order, which is how OProfile's own tools read, and it stays
 * correct while a writer in another process adds nodes or rebuilds the
 * hash. current_size is loaded with acquire ordering (pairing with the
 * writer's release store), and is clamped to the nodes this handle has
 * mapped, so a value written by a damaged or growing file can never make
 * us read past the mapping.
 */
#include "odb_int.h"

/* Number of node slots, node 0 included, that a reader may visit now. */
static uint32_t odb_visible_end(struct odb *db)
{
	uint32_t cur, view;

	if (!db->base)
		return 0;
	cur = odb_load_current(db);
	view = odb_view_nodes(db);
	return cur < view ? cur : view;
}

uint32_t odb_count(struct odb *db)
{
	uint32_t end = odb_visible_end(db);

	return end ? end - 1 : 0;
}

int odb_for_each(struct odb *db, odb_visit_fn fn, void *arg)
{
	uint32_t end = odb_visible_end(db), i;
	int rc;

	for (i = 1; i < end; i++) {
		struct odb_node const *node = &db->nodes[i];

		rc = fn(node->key,
			__atomic_load_n(&node->value, __ATOMIC_RELAXED), arg);
		if (rc)
			return rc;
	}
	return 0;
}
