/*
 * What the stack table's codec, reader and writer share, and nothing
 * outside libstacks includes: the record layout (doc/formats.md section
 * 6) and the table both sides hold in memory (op_stacks_table.c).
 */
#ifndef OP_STACKS_INT_H
#define OP_STACKS_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "op_hashmap.h"
#include "op_stacks.h"

#define TABLE_MAGIC "OPSTACKS"
#define TABLE_VERSION 2
#define TABLE_HEADER 16		/* magic, u32 version, u32 zero */
#define REC_HEADER 8		/* u32 payload length, u32 checksum */
#define REC_IMAGE 1
#define REC_STACK 2
#define IMAGE_FIXED 16		/* type, index, name length, build-id length */
#define REC_NODE 3
#define STACK_BYTES 32		/* type, tgid, id (u64), app, stop, nframes,
				 * leaf node */
#define NODE_BYTES 20		/* type, parent node, image, offset (u64) */
#define NAME_MAX_BYTES 4096
#define BUILD_ID_MAX_BYTES 128
#define TABLE_MAX_BYTES (1ull << 32)

struct image_ent {
	struct op_hashmap_entry ent;
	struct op_stack_image img;
	uint32_t index;
};

struct stack_ent {
	struct op_hashmap_entry ent;
	struct op_stack s;
};

/* A frame in the prefix tree: callers are shared between stacks. */
struct node {
	struct op_hashmap_entry ent;
	uint32_t id;		/* 1, 2, ...: its record's rank */
	uint32_t parent;	/* node id of the caller's frame; 0: none */
	uint32_t image;
	uint64_t offset;
};

/* What both sides hold: the images and the stacks of the table. */
struct table {
	char *path;
	struct image_ent **images;
	size_t nimages, aimages;
	struct stack_ent **stacks;	/* stacks[i]->s.id == i + 1 */
	size_t nstacks, astacks;
	struct op_hashmap by_name;
	struct op_hashmap by_frames;
	struct node **nodes;		/* nodes[i] has id i + 1 */
	size_t nnodes, anodes;
	struct op_hashmap by_node;	/* (parent, image, offset) */
	size_t good_len;		/* bytes up to the last whole record */
};

/* ---- the table in memory (op_stacks_table.c) ---- */

/* An empty table of the file at path. */
void op_stacks_table_init(struct table *t, char const *path);
void op_stacks_table_free(struct table *t);
/* The image named name, or NULL. */
struct image_ent *op_stacks_table_find_image(struct table const *t,
					     char const *name);
/* Add the image of the next index (name and build-id copied). */
void op_stacks_table_add_image(struct table *t, char const *name,
			       size_t name_len, char const *bid,
			       size_t bid_len);
/* Add the frame (parent, image, offset) as the next node. */
struct node *op_stacks_table_add_node(struct table *t, uint32_t parent,
				      uint32_t image, uint64_t offset);
/* Add s as the next stack; takes frames (malloc'ed). */
struct stack_ent *op_stacks_table_add_stack(struct table *t,
					    struct op_stack const *s,
					    struct op_stack_frame *frames);
/* The hashes the table's maps key nodes and stacks by. */
unsigned op_stacks_node_hash(struct node const *n);
unsigned op_stacks_stack_hash(struct op_stack const *s);

/* ---- the file's bytes (op_stacks_codec.c) ---- */

/*
 * Read t->path into t: 0; -ENOENT when there is no file; another -errno
 * after an error naming the file. A torn tail ends the table
 * (t->good_len: the bytes up to the last whole record).
 */
int op_stacks_table_load(struct table *t);
/* Fill in the header of the record of len payload bytes at rec. */
void op_stacks_seal(unsigned char *rec, size_t len);

#endif /* OP_STACKS_INT_H */
