/*
 * libdb internals shared by odb_open.c, odb_view.c, odb_insert.c,
 * odb_travel.c and odb_check.c: the layout arithmetic, the reader's "view" of the node
 * array, and the error formatter. Not part of the API; see odb.h.
 */
#ifndef ODB_INT_H
#define ODB_INT_H

#include <stdint.h>
#include <sys/types.h>

#include "odb.h"

/* Bytes of a file with header_size bytes of header and nodes nodes. */
static inline uint64_t odb_layout_size(size_t header_size, uint64_t nodes)
{
	return (uint64_t)header_size + sizeof(struct odb_descr) +
		nodes * (sizeof(struct odb_node) + sizeof(odb_index_t));
}

static inline int odb_is_pow2(uint32_t n)
{
	return n && !(n & (n - 1));
}

/*
 * Number of nodes this handle may touch. The hash table always sits right
 * after them in the mapping, so the pointer difference is the node count
 * that was validated against the mapping. It equals descr->size except for
 * a reader that opened a file whose growth was interrupted (odb_open.c).
 */
static inline uint32_t odb_view_nodes(struct odb const *db)
{
	return (uint32_t)((struct odb_node const *)db->hash - db->nodes);
}

static inline uint32_t odb_load_current(struct odb const *db)
{
	return __atomic_load_n(&db->descr->current_size, __ATOMIC_ACQUIRE);
}

static inline uint32_t odb_load_size(struct odb const *db)
{
	return __atomic_load_n(&db->descr->size, __ATOMIC_ACQUIRE);
}

static inline int odb_growing(struct odb const *db)
{
	return __atomic_load_n(&db->descr->padding[0], __ATOMIC_ACQUIRE) ==
		ODB_PAD_GROWING;
}

/* Point descr, nodes and hash into the mapping for a view of nodes nodes. */
void odb_set_view(struct odb *db, uint32_t nodes);

/* Fill db->err with "PATH: " and the message; returns err (a -errno). */
int odb_fail(struct odb *db, int err, char const *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Relink nodes 1 .. current_size - 1 into a cleared hash table. */
void odb_rehash(struct odb *db);

/*
 * Finish a doubling that a writer started: the file and mapping already
 * hold 2 * size nodes. Steps (3)-(5) of odb_insert.c's growth.
 */
void odb_finish_growth(struct odb *db, uint32_t new_size);

#endif /* ODB_INT_H */
