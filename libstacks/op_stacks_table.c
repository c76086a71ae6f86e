/*
 * The stack table in memory, as the reader and the writer both hold it:
 * images by name, frames as a prefix tree of nodes, stacks by their
 * frames (op_stacks_int.h).
 */
#include <stdlib.h>
#include <string.h>

#include "op_stacks_int.h"
#include "op_util.h"

static int image_cmp(void const *data, struct op_hashmap_entry const *a,
		     struct op_hashmap_entry const *b, void const *key)
{
	(void)data;
	(void)b;
	return strcmp(OP_HASHMAP_ENTRY(a, struct image_ent, ent)->img.name,
		      key);
}

static bool same_stack(struct op_stack const *a, struct op_stack const *b)
{
	uint32_t i;

	if (a->tgid != b->tgid || a->app != b->app || a->stop != b->stop ||
	    a->nframes != b->nframes)
		return false;
	for (i = 0; i < a->nframes; i++)
		if (a->frames[i].image != b->frames[i].image ||
		    a->frames[i].offset != b->frames[i].offset)
			return false;
	return true;
}

static int stack_cmp(void const *data, struct op_hashmap_entry const *a,
		     struct op_hashmap_entry const *b, void const *key)
{
	(void)data;
	(void)b;
	return !same_stack(&OP_HASHMAP_ENTRY(a, struct stack_ent, ent)->s,
			   key);
}

static int node_cmp(void const *data, struct op_hashmap_entry const *a,
		    struct op_hashmap_entry const *b, void const *key)
{
	struct node const *x = OP_HASHMAP_ENTRY(a, struct node, ent);
	struct node const *y = OP_HASHMAP_ENTRY(b, struct node, ent);

	(void)data;
	(void)key;
	return x->parent != y->parent || x->image != y->image ||
	       x->offset != y->offset;
}

unsigned op_stacks_node_hash(struct node const *n)
{
	return op_hash_u64(n->offset ^ ((uint64_t)n->image << 40) ^
			   ((uint64_t)n->parent * 0x9e3779b97f4a7c15ull));
}

struct node *op_stacks_table_add_node(struct table *t, uint32_t parent,
				      uint32_t image, uint64_t offset)
{
	struct node *n = op_xcalloc(1, sizeof(*n));

	n->parent = parent;
	n->image = image;
	n->offset = offset;
	op_hashmap_entry_init(&n->ent, op_stacks_node_hash(n));
	op_hashmap_add(&t->by_node, &n->ent);
	OP_ALLOC_GROW(t->nodes, t->nnodes + 1, t->anodes);
	t->nodes[t->nnodes++] = n;
	n->id = (uint32_t)t->nnodes;
	return n;
}

unsigned op_stacks_stack_hash(struct op_stack const *s)
{
	uint64_t h = ((uint64_t)s->tgid << 32 | s->app) ^
		     ((uint64_t)s->stop << 32 | s->nframes) * 31;
	uint32_t i;

	for (i = 0; i < s->nframes; i++)
		h = h * 0x100000001b3ull ^
		    op_hash_u64(s->frames[i].offset ^
				(uint64_t)s->frames[i].image << 48);
	return op_hash_u64(h);
}

void op_stacks_table_init(struct table *t, char const *path)
{
	memset(t, 0, sizeof(*t));
	t->path = op_xstrdup(path);
	op_hashmap_init(&t->by_name, image_cmp, NULL, 0);
	op_hashmap_init(&t->by_frames, stack_cmp, NULL, 0);
	op_hashmap_init(&t->by_node, node_cmp, NULL, 0);
}

void op_stacks_table_free(struct table *t)
{
	size_t i;

	op_hashmap_clear(&t->by_name, NULL);
	op_hashmap_clear(&t->by_frames, NULL);
	op_hashmap_clear(&t->by_node, NULL);
	for (i = 0; i < t->nnodes; i++)
		free(t->nodes[i]);
	free(t->nodes);
	for (i = 0; i < t->nimages; i++) {
		free((char *)t->images[i]->img.name);
		free((char *)t->images[i]->img.build_id);
		free(t->images[i]);
	}
	for (i = 0; i < t->nstacks; i++) {
		free((void *)t->stacks[i]->s.frames);
		free(t->stacks[i]);
	}
	free(t->images);
	free(t->stacks);
	free(t->path);
}

struct image_ent *op_stacks_table_find_image(struct table const *t,
					     char const *name)
{
	struct op_hashmap_entry key;

	op_hashmap_entry_init(&key, op_hash_str(name));
	return OP_HASHMAP_ENTRY(op_hashmap_get(&t->by_name, &key, name),
				struct image_ent, ent);
}

void op_stacks_table_add_image(struct table *t, char const *name,
			       size_t name_len, char const *bid, size_t bid_len)
{
	struct image_ent *e = op_xcalloc(1, sizeof(*e));
	char *n = op_xmalloc(name_len + 1);

	memcpy(n, name, name_len);
	n[name_len] = 0;
	e->img.name = n;
	if (bid_len) {
		char *b = op_xmalloc(bid_len + 1);

		memcpy(b, bid, bid_len);
		b[bid_len] = 0;
		e->img.build_id = b;
	}
	e->index = (uint32_t)t->nimages;
	op_hashmap_entry_init(&e->ent, op_hash_str(n));
	op_hashmap_add(&t->by_name, &e->ent);
	OP_ALLOC_GROW(t->images, t->nimages + 1, t->aimages);
	t->images[t->nimages++] = e;
}

/* Takes frames (malloc'ed). */
struct stack_ent *op_stacks_table_add_stack(struct table *t,
					    struct op_stack const *s,
					    struct op_stack_frame *frames)
{
	struct stack_ent *e = op_xcalloc(1, sizeof(*e));

	e->s = *s;
	e->s.id = t->nstacks + 1;
	e->s.frames = frames;
	op_hashmap_entry_init(&e->ent, op_stacks_stack_hash(&e->s));
	op_hashmap_add(&t->by_frames, &e->ent);
	OP_ALLOC_GROW(t->stacks, t->nstacks + 1, t->astacks);
	t->stacks[t->nstacks++] = e;
	return e;
}
