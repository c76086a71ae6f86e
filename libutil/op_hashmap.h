/*
 * The one hash map of the tree (git's hashmap.h model): chained, with the
 * chain node embedded in the caller's struct, so an entry costs no extra
 * allocation and the map never copies or frees what it holds.
 *
 *	struct proc {
 *		struct op_hashmap_entry ent;	(any member name)
 *		unsigned long tgid;
 *		...
 *	};
 *
 *	static int proc_cmp(void const *data, struct op_hashmap_entry const *a,
 *			    struct op_hashmap_entry const *b, void const *key)
 *	{
 *		return OP_HASHMAP_ENTRY(a, struct proc, ent)->tgid !=
 *		       OP_HASHMAP_ENTRY(b, struct proc, ent)->tgid;
 *	}
 *
 *	op_hashmap_init(&map, proc_cmp, NULL, 0);
 *	p->tgid = 42;
 *	op_hashmap_entry_init(&p->ent, op_hash_u64(42));
 *	op_hashmap_add(&map, &p->ent);
 *
 *	struct proc key = { .tgid = 42 };
 *	op_hashmap_entry_init(&key.ent, op_hash_u64(42));
 *	e = op_hashmap_get(&map, &key.ent, NULL);	(NULL: absent)
 *
 * Contract:
 *  - The caller computes the hash (op_hash_* below) and sets it with
 *    op_hashmap_entry_init() before add, get or remove; equal entries must
 *    have equal hashes. The map takes the low bits of the hash as the
 *    bucket, so the hash must mix its low bits well (op_hash_* do).
 *  - cmp returns 0 when the two entries are equal. a is always an entry of
 *    the map, b the key given to get/remove; keydata is passed through
 *    from get/remove (NULL from add and grow), so a lookup may match on
 *    data that is not in a struct (git's keydata). data is the cmpdata
 *    given to init.
 *  - An entry may be in one map at a time, and must neither move nor
 *    change its key while it is in the map.
 *  - add does not look for duplicates: get first if the key may be there.
 *  - The table grows (doubling) at 80% load; it never shrinks.
 *  - op_hashmap_clear() frees the table (and each entry with free_entry
 *    when given); the map can be reused after op_hashmap_init() again.
 *  - Iteration order is unspecified; do not add or remove while iterating,
 *    except op_hashmap_remove() of the entry just returned.
 */
#ifndef OP_HASHMAP_H
#define OP_HASHMAP_H

#include <stddef.h>
#include <stdint.h>

struct op_hashmap_entry {
	struct op_hashmap_entry *next;
	unsigned hash;
};

typedef int (*op_hashmap_cmp_fn)(void const *data,
				 struct op_hashmap_entry const *a,
				 struct op_hashmap_entry const *b,
				 void const *keydata);

struct op_hashmap {
	struct op_hashmap_entry **table;
	op_hashmap_cmp_fn cmp;
	void const *cmpdata;
	size_t size;		/* entries in the map */
	size_t mask;		/* buckets - 1 (a power of two) */
	size_t grow_at;		/* size that doubles the table */
};

struct op_hashmap_iter {
	struct op_hashmap *map;
	struct op_hashmap_entry *next;
	size_t bucket;
};

/* The struct holding entry ptr (NULL stays NULL). */
#define OP_HASHMAP_ENTRY(ptr, type, member) \
	((type *)op_hashmap_container((ptr), offsetof(type, member)))

static inline void *op_hashmap_container(void const *ptr, size_t offset)
{
	return ptr ? (char *)ptr - offset : NULL;
}

/* Hash functions: FNV-1a over bytes or a string, and a 64-bit mixer. */
unsigned op_hash_mem(void const *buf, size_t len);
unsigned op_hash_str(char const *s);
static inline unsigned op_hash_u64(uint64_t v)
{
	v ^= v >> 33;
	v *= 0xff51afd7ed558ccdull;
	v ^= v >> 33;
	return (unsigned)v;
}

/* An empty map; initial_size: entries expected (0: a small default). */
void op_hashmap_init(struct op_hashmap *map, op_hashmap_cmp_fn cmp,
		     void const *cmpdata, size_t initial_size);
/* Free the table; free_entry (may be NULL) is called on every entry. */
void op_hashmap_clear(struct op_hashmap *map,
		      void (*free_entry)(struct op_hashmap_entry *));

static inline void op_hashmap_entry_init(struct op_hashmap_entry *e,
					 unsigned hash)
{
	e->next = NULL;
	e->hash = hash;
}

/* The entry equal to key (key's hash set), or NULL. */
static inline struct op_hashmap_entry *
op_hashmap_get(struct op_hashmap const *map,
	       struct op_hashmap_entry const *key, void const *keydata)
{
	struct op_hashmap_entry *e = map->table[key->hash & map->mask];

	for (; e; e = e->next)
		if (e->hash == key->hash &&
		    !map->cmp(map->cmpdata, e, key, keydata))
			return e;
	return NULL;
}

/* The next entry equal to entry (duplicates added on purpose), or NULL. */
struct op_hashmap_entry *op_hashmap_get_next(struct op_hashmap const *map,
					     struct op_hashmap_entry const *entry);

/* Add entry (its hash set); see the contract on duplicates. */
void op_hashmap_add(struct op_hashmap *map, struct op_hashmap_entry *entry);

/* Take the entry equal to key out of the map: it, or NULL if absent. */
struct op_hashmap_entry *op_hashmap_remove(struct op_hashmap *map,
					   struct op_hashmap_entry const *key,
					   void const *keydata);

static inline size_t op_hashmap_size(struct op_hashmap const *map)
{
	return map->size;
}

/* Iterate: for (e = op_hashmap_iter_first(map, &it); e;
 *		 e = op_hashmap_iter_next(&it)) */
struct op_hashmap_entry *op_hashmap_iter_first(struct op_hashmap *map,
					       struct op_hashmap_iter *it);
struct op_hashmap_entry *op_hashmap_iter_next(struct op_hashmap_iter *it);

#endif /* OP_HASHMAP_H */
