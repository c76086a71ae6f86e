/* The one hash map; see op_hashmap.h for the contract. */
#include <stdlib.h>

#include "op_hashmap.h"
#include "op_message.h"

#define MIN_BUCKETS 64
/* grow when size reaches 80% of the buckets */
#define LOAD_PERCENT 80

unsigned op_hash_mem(void const *buf, size_t len)
{
	unsigned char const *p = buf;
	unsigned h = 2166136261u;

	while (len--)
		h = (h ^ *p++) * 16777619u;
	return h ^ (h >> 15);
}

unsigned op_hash_str(char const *s)
{
	unsigned h = 2166136261u;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 16777619u;
	return h ^ (h >> 15);
}

static void alloc_table(struct op_hashmap *map, size_t buckets)
{
	map->table = op_xcalloc(buckets, sizeof(*map->table));
	map->mask = buckets - 1;
	map->grow_at = buckets * LOAD_PERCENT / 100;
}

void op_hashmap_init(struct op_hashmap *map, op_hashmap_cmp_fn cmp,
		     void const *cmpdata, size_t initial_size)
{
	size_t buckets = MIN_BUCKETS;

	while (buckets * LOAD_PERCENT / 100 < initial_size)
		buckets *= 2;
	map->cmp = cmp;
	map->cmpdata = cmpdata;
	map->size = 0;
	alloc_table(map, buckets);
}

void op_hashmap_clear(struct op_hashmap *map,
		      void (*free_entry)(struct op_hashmap_entry *))
{
	struct op_hashmap_entry *e, *next;
	size_t i;

	if (!map->table)
		return;
	for (i = 0; free_entry && i <= map->mask; i++) {
		for (e = map->table[i]; e; e = next) {
			next = e->next;
			free_entry(e);
		}
	}
	free(map->table);
	map->table = NULL;
	map->size = 0;
	map->mask = 0;
	map->grow_at = 0;
}

static void grow(struct op_hashmap *map)
{
	struct op_hashmap_entry **old = map->table, *e, *next;
	size_t i, old_buckets = map->mask + 1;

	alloc_table(map, old_buckets * 2);
	for (i = 0; i < old_buckets; i++) {
		for (e = old[i]; e; e = next) {
			struct op_hashmap_entry **b = &map->table[e->hash & map->mask];

			next = e->next;
			e->next = *b;
			*b = e;
		}
	}
	free(old);
}

struct op_hashmap_entry *op_hashmap_get_next(struct op_hashmap const *map,
					     struct op_hashmap_entry const *entry)
{
	struct op_hashmap_entry *e = entry->next;

	for (; e; e = e->next)
		if (e->hash == entry->hash &&
		    !map->cmp(map->cmpdata, e, entry, NULL))
			return e;
	return NULL;
}

void op_hashmap_add(struct op_hashmap *map, struct op_hashmap_entry *entry)
{
	struct op_hashmap_entry **b = &map->table[entry->hash & map->mask];

	entry->next = *b;
	*b = entry;
	if (++map->size >= map->grow_at)
		grow(map);
}

struct op_hashmap_entry *op_hashmap_remove(struct op_hashmap *map,
					   struct op_hashmap_entry const *key,
					   void const *keydata)
{
	struct op_hashmap_entry **pp = &map->table[key->hash & map->mask];

	for (; *pp; pp = &(*pp)->next) {
		struct op_hashmap_entry *e = *pp;

		if (e->hash != key->hash ||
		    map->cmp(map->cmpdata, e, key, keydata))
			continue;
		*pp = e->next;
		e->next = NULL;
		map->size--;
		return e;
	}
	return NULL;
}

/* The first entry of the first non-empty bucket from it->bucket on. */
static struct op_hashmap_entry *next_bucket(struct op_hashmap_iter *it)
{
	struct op_hashmap *map = it->map;

	for (; it->bucket <= map->mask; it->bucket++) {
		struct op_hashmap_entry *e = map->table[it->bucket];

		if (e) {
			it->bucket++;
			it->next = e->next;
			return e;
		}
	}
	return NULL;
}

struct op_hashmap_entry *op_hashmap_iter_first(struct op_hashmap *map,
					       struct op_hashmap_iter *it)
{
	it->map = map;
	it->bucket = 0;
	it->next = NULL;
	if (!map->table)
		return NULL;
	return next_bucket(it);
}

struct op_hashmap_entry *op_hashmap_iter_next(struct op_hashmap_iter *it)
{
	struct op_hashmap_entry *e = it->next;

	if (e) {
		it->next = e->next;
		return e;
	}
	return next_bucket(it);
}
