/*
 * The stack table of a session: reader and writer (op_stacks.h; the byte
 * layout is doc/formats.md section 6).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "odb.h"
#include "op_file.h"
#include "op_hashmap.h"
#include "op_sample_file.h"
#include "op_stacks.h"
#include "op_util.h"

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

char const *op_unwind_stop_name(uint32_t reason)
{
	static char const *const names[] = {
#define OP_UNWIND_NAME(e, v, n) [v] = #n,
		OP_UNWIND_STOPS(OP_UNWIND_NAME)
#undef OP_UNWIND_NAME
	};

	if (reason < OP_ARRAY_SIZE(names) && names[reason])
		return names[reason];
	return "unknown";
}

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

struct op_stacks {
	struct table t;
	char *dir;
	char **events;
	size_t nevents;
};

struct event_file {
	char *event;
	struct odb db;
};

struct op_stacks_writer {
	struct table t;
	char *dir;
	int fd;
	struct event_file *events;
	size_t nevents, aevents;
	unsigned char *batch;	/* a new stack's records, written at once */
	size_t abatch;
};

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

static unsigned node_hash(struct node const *n)
{
	return op_hash_u64(n->offset ^ ((uint64_t)n->image << 40) ^
			   ((uint64_t)n->parent * 0x9e3779b97f4a7c15ull));
}

static struct node *table_add_node(struct table *t, uint32_t parent,
				   uint32_t image, uint64_t offset)
{
	struct node *n = op_xcalloc(1, sizeof(*n));

	n->parent = parent;
	n->image = image;
	n->offset = offset;
	op_hashmap_entry_init(&n->ent, node_hash(n));
	op_hashmap_add(&t->by_node, &n->ent);
	OP_ALLOC_GROW(t->nodes, t->nnodes + 1, t->anodes);
	t->nodes[t->nnodes++] = n;
	n->id = (uint32_t)t->nnodes;
	return n;
}

static unsigned stack_hash(struct op_stack const *s)
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

static void table_init(struct table *t, char const *path)
{
	memset(t, 0, sizeof(*t));
	t->path = op_xstrdup(path);
	op_hashmap_init(&t->by_name, image_cmp, NULL, 0);
	op_hashmap_init(&t->by_frames, stack_cmp, NULL, 0);
	op_hashmap_init(&t->by_node, node_cmp, NULL, 0);
}

static void table_free(struct table *t)
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

static struct image_ent *table_find_image(struct table const *t,
					  char const *name)
{
	struct op_hashmap_entry key;

	op_hashmap_entry_init(&key, op_hash_str(name));
	return OP_HASHMAP_ENTRY(op_hashmap_get(&t->by_name, &key, name),
				struct image_ent, ent);
}

static bool image_named(struct table const *t, char const *name,
			size_t len)
{
	char *n = op_xmalloc(len + 1);
	bool found;

	memcpy(n, name, len);
	n[len] = 0;
	found = table_find_image(t, n) != NULL;
	free(n);
	return found;
}

static void table_add_image(struct table *t, char const *name,
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
static struct stack_ent *table_add_stack(struct table *t,
					 struct op_stack const *s,
					 struct op_stack_frame *frames)
{
	struct stack_ent *e = op_xcalloc(1, sizeof(*e));

	e->s = *s;
	e->s.id = t->nstacks + 1;
	e->s.frames = frames;
	op_hashmap_entry_init(&e->ent, stack_hash(&e->s));
	op_hashmap_add(&t->by_frames, &e->ent);
	OP_ALLOC_GROW(t->stacks, t->nstacks + 1, t->astacks);
	t->stacks[t->nstacks++] = e;
	return e;
}

static uint32_t get32(unsigned char const *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

static uint64_t get64(unsigned char const *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

static void put32(unsigned char *p, uint32_t v)
{
	memcpy(p, &v, 4);
}

static void put64(unsigned char *p, uint64_t v)
{
	memcpy(p, &v, 8);
}

/*
 * Part of the file format (doc/formats.md section 6), so spelled out here
 * rather than borrowed from the hash map's hash, which may change: 32-bit
 * FNV-1a, then its high bits folded down once.
 */
uint32_t op_stacks_checksum(void const *payload, size_t len)
{
	unsigned char const *p = payload;
	uint32_t h = 2166136261u;

	while (len--)
		h = (h ^ *p++) * 16777619u;
	return h ^ (h >> 15);
}

static int bad_record(struct table const *t, size_t off, char const *what)
{
	op_error("%s: record at byte %zu: %s", t->path, off, what);
	return -EINVAL;
}

static bool lower_hex(unsigned char const *p, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (!((p[i] >= '0' && p[i] <= '9') || (p[i] >= 'a' && p[i] <= 'f')))
			return false;
	return len % 2 == 0;
}

static int parse_image(struct table *t, unsigned char const *p, size_t len,
		       size_t off)
{
	uint32_t index, nlen, blen;

	if (len < IMAGE_FIXED)
		return bad_record(t, off, "image record too short");
	index = get32(p + 4);
	nlen = get32(p + 8);
	blen = get32(p + 12);
	if (index != t->nimages)
		return bad_record(t, off, "image index out of sequence");
	if (!nlen || nlen > NAME_MAX_BYTES || blen > BUILD_ID_MAX_BYTES ||
	    len != IMAGE_FIXED + (size_t)nlen + blen)
		return bad_record(t, off, "bad image name or build-id length");
	if (memchr(p + IMAGE_FIXED, 0, nlen + blen))
		return bad_record(t, off, "NUL byte in an image name");
	/* reports put a build-id in paths (binaries/ID, .build-id/) */
	if (blen && !lower_hex(p + IMAGE_FIXED + nlen, blen))
		return bad_record(t, off, "build-id not in lower-case hex");
	if (image_named(t, (char const *)p + IMAGE_FIXED, nlen))
		return bad_record(t, off, "image named twice");
	table_add_image(t, (char const *)p + IMAGE_FIXED, nlen,
			(char const *)p + IMAGE_FIXED + nlen, blen);
	return 0;
}

static int parse_node(struct table *t, unsigned char const *p, size_t len,
		      size_t off)
{
	uint32_t parent, image;

	if (len != NODE_BYTES)
		return bad_record(t, off, "frame record of the wrong size");
	parent = get32(p + 4);
	image = get32(p + 8);
	if (parent > t->nnodes)
		return bad_record(t, off, "frame's caller not in the table");
	if (image >= t->nimages)
		return bad_record(t, off, "frame image not in the table");
	table_add_node(t, parent, image, get64(p + 12));
	return 0;
}

static int parse_stack(struct table *t, unsigned char const *p, size_t len,
		       size_t off)
{
	struct op_stack s;
	struct op_stack_frame *frames;
	uint32_t i, node;

	if (len != STACK_BYTES)
		return bad_record(t, off, "stack record of the wrong size");
	s.tgid = get32(p + 4);
	s.id = get64(p + 8);
	s.app = get32(p + 16);
	s.stop = get32(p + 20);
	s.nframes = get32(p + 24);
	node = get32(p + 28);
	if (s.id != t->nstacks + 1)
		return bad_record(t, off, "stack id out of sequence");
	if (s.nframes > OP_STACKS_MAX_FRAMES || node > t->nnodes)
		return bad_record(t, off, "bad number of frames or leaf frame");
	if (s.app >= t->nimages)
		return bad_record(t, off, "application image not in the table");
	frames = op_xcalloc(s.nframes ? s.nframes : 1, sizeof(*frames));
	/* leaf first: the leaf's node, then its callers' */
	for (i = 0; i < s.nframes && node; i++) {
		struct node const *n = t->nodes[node - 1];

		frames[i].image = n->image;
		frames[i].offset = n->offset;
		node = n->parent;
	}
	if (i != s.nframes || node) {
		free(frames);
		return bad_record(t, off, "its frames are not nframes long");
	}
	s.frames = frames;
	table_add_stack(t, &s, frames);
	return 0;
}

/*
 * Parse the table file's bytes. A record that is cut short or whose
 * checksum does not match ends the table (a torn append); a whole record
 * that makes no sense is an error naming the file.
 */
static int table_parse(struct table *t, unsigned char const *buf, size_t len)
{
	size_t off = TABLE_HEADER;

	if (len < TABLE_HEADER || memcmp(buf, TABLE_MAGIC, 8)) {
		op_error("%s: not a stack table (bad magic)", t->path);
		return -EINVAL;
	}
	if (get32(buf + 8) != TABLE_VERSION) {
		op_error("%s: stack table version %u, this build reads %u",
			 t->path, get32(buf + 8), TABLE_VERSION);
		return -EINVAL;
	}
	while (len - off >= REC_HEADER) {
		uint32_t rlen = get32(buf + off);
		unsigned char const *p = buf + off + REC_HEADER;
		int ret;

		if (rlen > len - off - REC_HEADER || rlen < 4 ||
		    get32(buf + off + 4) != op_stacks_checksum(p, rlen))
			break;
		if (get32(p) == REC_IMAGE)
			ret = parse_image(t, p, rlen, off);
		else if (get32(p) == REC_STACK)
			ret = parse_stack(t, p, rlen, off);
		else if (get32(p) == REC_NODE)
			ret = parse_node(t, p, rlen, off);
		else
			ret = bad_record(t, off, "unknown record type");
		if (ret)
			return ret;
		off += REC_HEADER + rlen;
	}
	t->good_len = off;
	return 0;
}

static int table_load(struct table *t)
{
	char err[1024];
	size_t len;
	char *buf = op_read_file(t->path, TABLE_MAX_BYTES, &len, err,
				 sizeof(err));
	int ret;

	if (!buf) {
		ret = -errno;
		if (ret != -ENOENT)
			op_error("%s", err);
		return ret;
	}
	ret = table_parse(t, (unsigned char *)buf, len);
	free(buf);
	return ret;
}

/* ---- reader ---- */

static int str_cmp(void const *a, void const *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool is_event_name(char const *name)
{
	return name[0] != '.' && strcmp(name, OP_STACKS_TABLE) &&
	       strchr(name, '.');
}

static int list_events(struct op_stacks *st)
{
	DIR *d = opendir(st->dir);
	struct dirent *de;
	size_t alloc = 0;

	if (!d) {
		int ret = -errno;

		op_error_errno("cannot read directory '%s'", st->dir);
		return ret;
	}
	while ((de = readdir(d))) {
		if (!is_event_name(de->d_name))
			continue;
		OP_ALLOC_GROW(st->events, st->nevents + 1, alloc);
		st->events[st->nevents++] = op_xstrdup(de->d_name);
	}
	closedir(d);
	if (st->nevents)
		qsort(st->events, st->nevents, sizeof(*st->events), str_cmp);
	return 0;
}

int op_stacks_open(char const *session_samples_dir, struct op_stacks **out)
{
	struct op_stacks *st = op_xcalloc(1, sizeof(*st));
	char *path;
	int ret;

	*out = NULL;
	st->dir = op_xasprintf("%s/%s", session_samples_dir, OP_STACKS_DIR);
	path = op_xasprintf("%s/%s", st->dir, OP_STACKS_TABLE);
	table_init(&st->t, path);
	free(path);
	ret = table_load(&st->t);
	if (!ret)
		ret = list_events(st);
	if (ret) {
		op_stacks_close(st);
		return ret;
	}
	*out = st;
	return 0;
}

void op_stacks_close(struct op_stacks *st)
{
	size_t i;

	if (!st)
		return;
	table_free(&st->t);
	for (i = 0; i < st->nevents; i++)
		free(st->events[i]);
	free(st->events);
	free(st->dir);
	free(st);
}

size_t op_stacks_nimages(struct op_stacks const *st)
{
	return st->t.nimages;
}

struct op_stack_image const *op_stacks_image(struct op_stacks const *st,
					     uint32_t i)
{
	return i < st->t.nimages ? &st->t.images[i]->img : NULL;
}

size_t op_stacks_nevents(struct op_stacks const *st)
{
	return st->nevents;
}

char const *op_stacks_event(struct op_stacks const *st, size_t i)
{
	return i < st->nevents ? st->events[i] : NULL;
}

size_t op_stacks_nstacks(struct op_stacks const *st)
{
	return st->t.nstacks;
}

struct op_stack const *op_stacks_stack(struct op_stacks const *st, size_t i)
{
	return i < st->t.nstacks ? &st->t.stacks[i]->s : NULL;
}

struct op_stack const *op_stacks_find(struct op_stacks const *st,
				      uint64_t id)
{
	return id && id <= st->t.nstacks ? &st->t.stacks[id - 1]->s : NULL;
}

struct visit {
	struct op_stacks const *st;
	char const *event;
	char const *path;
	int (*cb)(void *, struct op_stack const *, char const *, uint64_t);
	void *arg;
	int err;
};

static int visit_count(odb_key_t key, odb_value_t value, void *arg)
{
	struct visit *v = arg;
	struct op_stack const *s = op_stacks_find(v->st, key);

	if (!s) {
		op_error("%s: a count of stack %llu, which '%s' does not hold",
			 v->path, (unsigned long long)key, v->st->t.path);
		v->err = -EINVAL;
		return v->err;
	}
	if (!value)
		return 0;
	return v->cb(v->arg, s, v->event, value);
}

static int foreach_event(struct op_stacks const *st, char const *event,
			 struct visit *v)
{
	struct odb db;
	char *path = op_xasprintf("%s/%s", st->dir, event);
	int ret = odb_open(&db, path, ODB_RDONLY, sizeof(struct opd_header));

	if (ret) {
		op_error("%s", db.err);
		free(path);
		return ret;
	}
	v->event = event;
	v->path = path;
	ret = odb_for_each(&db, visit_count, v);
	odb_close(&db);
	free(path);
	return ret;
}

int op_stacks_foreach(struct op_stacks const *st, char const *event,
		      int (*cb)(void *arg, struct op_stack const *s,
				char const *event, uint64_t count),
		      void *arg)
{
	struct visit v = { .st = st, .cb = cb, .arg = arg };
	size_t i;
	int ret;

	for (i = 0; i < st->nevents; i++) {
		if (event && strcmp(event, st->events[i]))
			continue;
		ret = foreach_event(st, st->events[i], &v);
		if (ret)
			return ret;
	}
	return 0;
}

/* ---- writer ---- */

static int write_header(struct op_stacks_writer *w)
{
	unsigned char h[TABLE_HEADER] = { 0 };

	memcpy(h, TABLE_MAGIC, 8);
	put32(h + 8, TABLE_VERSION);
	if (op_write_full(w->fd, h, sizeof(h)) < 0) {
		int ret = -errno;

		op_error_errno("cannot write '%s'", w->t.path);
		return ret;
	}
	w->t.good_len = TABLE_HEADER;
	return 0;
}

/* Open the table for appending, cutting a torn tail off first. */
static int open_table(struct op_stacks_writer *w)
{
	int ret = table_load(&w->t);

	if (ret && ret != -ENOENT)
		return ret;
	w->fd = op_open_safe(w->t.path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (w->fd < 0) {
		ret = -errno;
		op_error("cannot open '%s': %s", w->t.path,
			 op_file_strerror(errno));
		return ret;
	}
	if (ret == -ENOENT || !w->t.good_len) {
		if (ftruncate(w->fd, 0) < 0) {
			ret = -errno;
			op_error_errno("cannot truncate '%s'", w->t.path);
			return ret;
		}
		return write_header(w);
	}
	if (ftruncate(w->fd, w->t.good_len) < 0 ||
	    lseek(w->fd, w->t.good_len, SEEK_SET) < 0) {
		ret = -errno;
		op_error_errno("cannot cut the torn tail of '%s'", w->t.path);
		return ret;
	}
	return 0;
}

int op_stacks_writer_open(char const *session_samples_dir,
			  struct op_stacks_writer **out)
{
	struct op_stacks_writer *w = op_xcalloc(1, sizeof(*w));
	char *path;
	int ret;

	*out = NULL;
	w->fd = -1;
	w->dir = op_xasprintf("%s/%s", session_samples_dir, OP_STACKS_DIR);
	path = op_xasprintf("%s/%s", w->dir, OP_STACKS_TABLE);
	table_init(&w->t, path);
	free(path);
	ret = op_mkdir_p(w->dir);
	if (ret) {
		op_error("cannot create '%s': %s", w->dir,
			 op_file_strerror(-ret));
	} else {
		ret = open_table(w);
	}
	if (ret) {
		op_stacks_writer_close(w);
		return ret;
	}
	*out = w;
	return 0;
}

void op_stacks_writer_close(struct op_stacks_writer *w)
{
	size_t i;

	if (!w)
		return;
	for (i = 0; i < w->nevents; i++) {
		odb_close(&w->events[i].db);
		free(w->events[i].event);
	}
	free(w->events);
	free(w->batch);
	if (w->fd >= 0)
		close(w->fd);
	table_free(&w->t);
	free(w->dir);
	free(w);
}

/* Append one record (payload p of len bytes) in one write. */
/* Fill in the header of the record of len payload bytes at rec. */
static void seal(unsigned char *rec, size_t len)
{
	put32(rec, (uint32_t)len);
	put32(rec + 4, op_stacks_checksum(rec + REC_HEADER, len));
}

/* Write len bytes of sealed records with one write(2). */
static int write_records(struct op_stacks_writer *w, unsigned char const *buf,
			 size_t len)
{
	if (op_write_full(w->fd, buf, len) < 0) {
		int ret = -errno;

		op_error_errno("cannot write '%s'", w->t.path);
		/* a part may be on disk: cut it so later appends are read */
		if (ftruncate(w->fd, w->t.good_len) == 0)
			lseek(w->fd, w->t.good_len, SEEK_SET);
		return ret;
	}
	w->t.good_len += len;
	return 0;
}

static int append(struct op_stacks_writer *w, unsigned char *rec, size_t len)
{
	seal(rec, len);
	return write_records(w, rec, REC_HEADER + len);
}

int op_stacks_writer_image(struct op_stacks_writer *w, char const *name,
			   char const *build_id, uint32_t *index)
{
	struct image_ent *e = table_find_image(&w->t, name);
	size_t nlen = strlen(name);
	size_t blen = build_id ? strlen(build_id) : 0;
	unsigned char *rec;
	int ret;

	if (e) {
		*index = e->index;
		return 0;
	}
	if (!nlen || nlen > NAME_MAX_BYTES || blen > BUILD_ID_MAX_BYTES) {
		op_error("%s: image name '%.100s' or its build-id is too long",
			 w->t.path, name);
		return -EINVAL;
	}
	rec = op_xmalloc(REC_HEADER + IMAGE_FIXED + nlen + blen);
	put32(rec + REC_HEADER, REC_IMAGE);
	put32(rec + REC_HEADER + 4, (uint32_t)w->t.nimages);
	put32(rec + REC_HEADER + 8, (uint32_t)nlen);
	put32(rec + REC_HEADER + 12, (uint32_t)blen);
	memcpy(rec + REC_HEADER + IMAGE_FIXED, name, nlen);
	if (blen)
		memcpy(rec + REC_HEADER + IMAGE_FIXED + nlen, build_id, blen);
	ret = append(w, rec, IMAGE_FIXED + nlen + blen);
	free(rec);
	if (ret)
		return ret;
	*index = (uint32_t)w->t.nimages;
	table_add_image(&w->t, name, nlen, build_id, blen);
	return 0;
}

/* The node of frame f under caller node parent, its record appended
 * when new. */
/* The id of the node (parent, f) in the table; false if new. */
static bool find_node(struct op_stacks_writer const *w, uint32_t parent,
		      struct op_stack_frame const *f, uint32_t *id)
{
	struct node key = { .parent = parent, .image = f->image,
			    .offset = f->offset };
	struct op_hashmap_entry *e;

	op_hashmap_entry_init(&key.ent, node_hash(&key));
	e = op_hashmap_get(&w->t.by_node, &key.ent, NULL);
	if (e)
		*id = OP_HASHMAP_ENTRY(e, struct node, ent)->id;
	return e != NULL;
}

static int check_stack(struct op_stacks_writer const *w,
		       struct op_stack const *s)
{
	uint32_t i;

	if (s->nframes > OP_STACKS_MAX_FRAMES || s->app >= w->t.nimages) {
		op_error("%s: a stack of %u frames, application image %u: "
			 "not recordable", w->t.path, s->nframes, s->app);
		return -EINVAL;
	}
	for (i = 0; i < s->nframes; i++) {
		if (s->frames[i].image >= w->t.nimages) {
			op_error("%s: frame image %u not in the table",
				 w->t.path, s->frames[i].image);
			return -EINVAL;
		}
	}
	return 0;
}

/*
 * A new stack: the frame records its path lacks (from the first unknown
 * one down to the leaf: once a node is new, its callees are too) and
 * the stack's record, written with one write(2) before any count of it,
 * then added to the table. One system call per new stack, not one per
 * record: on a fresh session nearly every sample's stack is new.
 */
static int add_stack(struct op_stacks_writer *w, struct op_stack const *s,
		     uint64_t *id)
{
	uint32_t known = s->nframes, leaf = 0, next = (uint32_t)w->t.nnodes;
	uint32_t parent;
	struct op_stack_frame *frames;
	size_t len = 0, need;
	unsigned char *rec;
	uint32_t i;
	int ret;

	while (known > 0 && find_node(w, leaf, &s->frames[known - 1], &leaf))
		known--;
	need = known * (REC_HEADER + NODE_BYTES) + REC_HEADER + STACK_BYTES;
	if (need > w->abatch) {
		free(w->batch);
		w->batch = op_xmalloc(need);
		w->abatch = need;
	}
	parent = leaf;	/* the last known node: the new ones hang below */
	for (i = known; i-- > 0;) {
		rec = w->batch + len;
		put32(rec + REC_HEADER, REC_NODE);
		put32(rec + REC_HEADER + 4, leaf);
		put32(rec + REC_HEADER + 8, s->frames[i].image);
		put64(rec + REC_HEADER + 12, s->frames[i].offset);
		seal(rec, NODE_BYTES);
		len += REC_HEADER + NODE_BYTES;
		leaf = ++next;	/* ids follow the table's, from 1 */
	}
	rec = w->batch + len;
	put32(rec + REC_HEADER, REC_STACK);
	put32(rec + REC_HEADER + 4, s->tgid);
	put64(rec + REC_HEADER + 8, w->t.nstacks + 1);
	put32(rec + REC_HEADER + 16, s->app);
	put32(rec + REC_HEADER + 20, s->stop);
	put32(rec + REC_HEADER + 24, s->nframes);
	put32(rec + REC_HEADER + 28, leaf);
	seal(rec, STACK_BYTES);
	ret = write_records(w, w->batch, len + REC_HEADER + STACK_BYTES);
	if (ret)
		return ret;
	for (i = known; i-- > 0;)
		parent = table_add_node(&w->t, parent, s->frames[i].image,
					s->frames[i].offset)->id;
	frames = op_xcalloc(s->nframes ? s->nframes : 1, sizeof(*frames));
	memcpy(frames, s->frames, s->nframes * sizeof(*frames));
	*id = table_add_stack(&w->t, s, frames)->s.id;
	return 0;
}

int op_stacks_writer_stack(struct op_stacks_writer *w,
			   struct op_stack const *s, uint64_t *id)
{
	struct op_hashmap_entry key;
	struct op_hashmap_entry *found;
	int ret;

	op_hashmap_entry_init(&key, stack_hash(s));
	found = op_hashmap_get(&w->t.by_frames, &key, s);
	if (found) {
		*id = OP_HASHMAP_ENTRY(found, struct stack_ent, ent)->s.id;
		return 0;
	}
	ret = check_stack(w, s);
	return ret ? ret : add_stack(w, s, id);
}

static struct odb *event_db(struct op_stacks_writer *w, char const *event,
			    struct opd_header const *hdr, int *err)
{
	struct event_file *ev;
	char *path;
	size_t i;

	for (i = 0; i < w->nevents; i++)
		if (!strcmp(w->events[i].event, event))
			return &w->events[i].db;
	if (!*event || strchr(event, '/') || !strchr(event, '.') ||
	    event[0] == '.') {
		op_error("%s: '%s' is no event name for a count file", w->dir,
			 event);
		*err = -EINVAL;
		return NULL;
	}
	OP_ALLOC_GROW(w->events, w->nevents + 1, w->aevents);
	ev = &w->events[w->nevents];
	path = op_xasprintf("%s/%s", w->dir, event);
	*err = odb_create(&ev->db, path, hdr, sizeof(*hdr));
	free(path);
	if (*err) {
		op_error("%s", ev->db.err);
		return NULL;
	}
	ev->event = op_xstrdup(event);
	w->nevents++;
	return &ev->db;
}

int op_stacks_writer_count(struct op_stacks_writer *w, char const *event,
			   struct opd_header const *hdr, uint64_t id,
			   uint32_t n)
{
	int ret = 0;
	struct odb *db = event_db(w, event, hdr, &ret);

	if (!db)
		return ret;
	if (!id || id > w->t.nstacks) {
		op_error("%s: count of stack %llu, which is not in the table",
			 w->dir, (unsigned long long)id);
		return -EINVAL;
	}
	ret = odb_add(db, id, n);
	if (ret < 0)
		op_error("%s", db->err);
	return ret;
}

int op_stacks_writer_sync(struct op_stacks_writer *w)
{
	int ret = 0;
	size_t i;

	/* the table first: a count on disk must find its stack there */
	if (fdatasync(w->fd) < 0) {
		ret = -errno;
		op_error_errno("cannot sync '%s'", w->t.path);
	}
	for (i = 0; i < w->nevents; i++) {
		int r = odb_sync(&w->events[i].db);

		if (r && !ret)
			ret = r;
	}
	return ret;
}

size_t op_stacks_writer_nstacks(struct op_stacks_writer const *w)
{
	return w->t.nstacks;
}
