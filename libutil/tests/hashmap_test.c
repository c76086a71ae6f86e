/* op_hashmap: add, get, duplicates, remove, iterate, grow, keydata. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "op_hashmap.h"
#include "op_message.h"

struct item {
	struct op_hashmap_entry ent;
	unsigned long key;
	int value;
	int seen;
};

static int item_cmp(void const *data, struct op_hashmap_entry const *a,
		    struct op_hashmap_entry const *b, void const *keydata)
{
	struct item const *x = OP_HASHMAP_ENTRY(a, struct item, ent);
	struct item const *y = OP_HASHMAP_ENTRY(b, struct item, ent);

	(void)data;
	if (keydata)
		return x->key != *(unsigned long const *)keydata;
	return x->key != y->key;
}

static struct item *new_item(unsigned long key, int value)
{
	struct item *it = op_xcalloc(1, sizeof(*it));

	it->key = key;
	it->value = value;
	op_hashmap_entry_init(&it->ent, op_hash_u64(key));
	return it;
}

static struct item *find(struct op_hashmap *map, unsigned long key)
{
	struct item k = { .key = key };

	op_hashmap_entry_init(&k.ent, op_hash_u64(key));
	return OP_HASHMAP_ENTRY(op_hashmap_get(map, &k.ent, NULL), struct item, ent);
}

static int nr_freed;

static void free_item(struct op_hashmap_entry *e)
{
	nr_freed++;
	free(OP_HASHMAP_ENTRY(e, struct item, ent));
}

static void test_hashmap__grow_and_get(void)
{
	struct op_hashmap map;
	int missing = 0, wrong = 0;
	unsigned long i, n = 100000;

	op_hashmap_init(&map, item_cmp, NULL, 0);
	check(find(&map, 1) == NULL, "an empty map has nothing");
	for (i = 1; i <= n; i++)
		op_hashmap_add(&map, &new_item(i * 7, (int)i)->ent);
	check_int((long long)op_hashmap_size(&map), (long long)n, "size after %lu adds", n);
	check(map.mask + 1 >= n, "the table grew (%zu buckets)", map.mask + 1);
	for (i = 1; i <= n; i++) {
		struct item *it = find(&map, i * 7);

		if (!it)
			missing++;
		else if (it->value != (int)i)
			wrong++;
	}
	check_int(missing, 0, "every key is found after growing");
	check_int(wrong, 0, "every key finds its own entry");
	check(find(&map, 3) == NULL, "an absent key is not found");
	nr_freed = 0;
	op_hashmap_clear(&map, free_item);
	check_int(nr_freed, (long long)n, "clear frees every entry");
	check(map.table == NULL && op_hashmap_size(&map) == 0, "clear empties the map");
}

static void test_hashmap__remove_and_iterate(void)
{
	struct op_hashmap map;
	struct op_hashmap_iter iter;
	struct op_hashmap_entry *e;
	struct item *items[50], probe = { .key = 999 };
	unsigned long key = 20;
	int i, count = 0, twice = 0;

	op_hashmap_init(&map, item_cmp, NULL, 8);
	for (i = 0; i < 50; i++) {
		items[i] = new_item((unsigned long)i, i);
		op_hashmap_add(&map, &items[i]->ent);
	}
	e = op_hashmap_remove(&map, &items[10]->ent, NULL);
	check(e == &items[10]->ent, "remove returns the entry");
	check(find(&map, 10) == NULL, "a removed key is gone");
	check(op_hashmap_remove(&map, &items[10]->ent, NULL) == NULL,
	      "removing it again finds nothing");
	free(items[10]);
	op_hashmap_entry_init(&probe.ent, op_hash_u64(key));
	e = op_hashmap_remove(&map, &probe.ent, &key);
	check(e == &items[20]->ent, "keydata matches on data outside the key struct");
	free(items[20]);
	check_int((long long)op_hashmap_size(&map), 48, "size after two removes");

	for (e = op_hashmap_iter_first(&map, &iter); e; e = op_hashmap_iter_next(&iter)) {
		struct item *it = OP_HASHMAP_ENTRY(e, struct item, ent);

		if (it->seen++)
			twice++;
		count++;
		if (it->key % 2) {
			op_hashmap_remove(&map, e, NULL);
			free(it);
		}
	}
	check_int(count, 48, "iteration visits every entry");
	check_int(twice, 0, "iteration visits each entry once");
	check_int((long long)op_hashmap_size(&map), 23,
		  "removing the current entry while iterating");
	check(find(&map, 2) && !find(&map, 3), "the right half was removed");
	op_hashmap_clear(&map, free_item);
}

static void test_hashmap__duplicates(void)
{
	struct op_hashmap map;
	struct item *a = new_item(5, 1), *b = new_item(5, 2), *k = new_item(5, 0);
	struct op_hashmap_entry *e, *next;

	op_hashmap_init(&map, item_cmp, NULL, 0);
	op_hashmap_add(&map, &a->ent);
	op_hashmap_add(&map, &b->ent);
	e = op_hashmap_get(&map, &k->ent, NULL);
	next = e ? op_hashmap_get_next(&map, e) : NULL;
	check(e && next && e != next, "get_next finds the duplicate");
	check(next && !op_hashmap_get_next(&map, next), "and then nothing");
	op_hashmap_clear(&map, free_item);
	free(k);
}

static void test_hashmap__hashes(void)
{
	check(op_hash_str("vmlinux") == op_hash_mem("vmlinux", 7),
	      "op_hash_str and op_hash_mem agree");
	check(op_hash_str("a") != op_hash_str("b"), "different strings differ");
	check((op_hash_u64(1) & 63) != (op_hash_u64(2) & 63) ||
	      (op_hash_u64(2) & 63) != (op_hash_u64(3) & 63),
	      "op_hash_u64 spreads neighbours over the low bits");
}

int main(void)
{
	test_hashmap__grow_and_get();
	test_hashmap__remove_and_iterate();
	test_hashmap__duplicates();
	test_hashmap__hashes();
	return check_done();
}
