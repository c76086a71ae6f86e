/*
 * The view of a mapped sample file: where the descriptor, the node array
 * and the hash table sit in the mapping for a given node count, the hash
 * table rebuilt, and a doubling finished (steps (3)-(5) of the growth
 * described in odb_insert.c). The opener (odb_open.c, which completes a
 * growth a killed writer left) and the writer (odb_insert.c) both use it.
 */
#include <string.h>

#include "odb_int.h"

void odb_set_view(struct odb *db, uint32_t nodes)
{
	char *p = (char *)db->base + db->header_size;

	db->descr = (struct odb_descr *)p;
	db->nodes = (struct odb_node *)(p + sizeof(struct odb_descr));
	db->hash = (odb_index_t *)(db->nodes + nodes);
}

void odb_rehash(struct odb *db)
{
	uint32_t size = odb_view_nodes(db), mask = size - 1;
	uint32_t cur = db->descr->current_size, i;

	if (cur > size)
		cur = size;
	memset(db->hash, 0, size * sizeof(*db->hash));
	for (i = 1; i < cur; i++) {
		odb_index_t *head = &db->hash[odb_hash(db->nodes[i].key, mask)];

		db->nodes[i].next = *head;
		*head = i;
	}
}

void odb_finish_growth(struct odb *db, uint32_t new_size)
{
	struct odb_descr *d = db->descr;

	__atomic_store_n(&d->padding[0], ODB_PAD_GROWING, __ATOMIC_RELEASE);
	__atomic_store_n(&d->size, new_size, __ATOMIC_RELEASE);
	odb_set_view(db, new_size);
	odb_rehash(db);
	__atomic_store_n(&d->padding[0], 0, __ATOMIC_RELEASE);
}
