/*
 * The writer of a session's stacks (op_stacks.h), used by the daemon:
 * images and stacks interned and their records appended to the table,
 * a new stack's records in one write, before any count of it; the counts
 * per stack id in one libdb file per event.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "odb.h"
#include "op_bytes.h"
#include "op_file.h"
#include "op_sample_file.h"
#include "op_stacks_int.h"
#include "op_util.h"

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

static int write_header(struct op_stacks_writer *w)
{
	unsigned char h[TABLE_HEADER] = { 0 };

	memcpy(h, TABLE_MAGIC, 8);
	op_put32(h + 8, TABLE_VERSION);
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
	int ret = op_stacks_table_load(&w->t);

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
	op_stacks_table_init(&w->t, path);
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
	op_stacks_table_free(&w->t);
	free(w->dir);
	free(w);
}

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

/* Append one record (len payload bytes after its header) in one write. */
static int append(struct op_stacks_writer *w, unsigned char *rec, size_t len)
{
	op_stacks_seal(rec, len);
	return write_records(w, rec, REC_HEADER + len);
}

int op_stacks_writer_image(struct op_stacks_writer *w, char const *name,
			   char const *build_id, uint32_t *index)
{
	struct image_ent *e = op_stacks_table_find_image(&w->t, name);
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
	op_put32(rec + REC_HEADER, REC_IMAGE);
	op_put32(rec + REC_HEADER + 4, (uint32_t)w->t.nimages);
	op_put32(rec + REC_HEADER + 8, (uint32_t)nlen);
	op_put32(rec + REC_HEADER + 12, (uint32_t)blen);
	memcpy(rec + REC_HEADER + IMAGE_FIXED, name, nlen);
	if (blen)
		memcpy(rec + REC_HEADER + IMAGE_FIXED + nlen, build_id, blen);
	ret = append(w, rec, IMAGE_FIXED + nlen + blen);
	free(rec);
	if (ret)
		return ret;
	*index = (uint32_t)w->t.nimages;
	op_stacks_table_add_image(&w->t, name, nlen, build_id, blen);
	return 0;
}

/* The id of the node (parent, f) in the table; false if new. */
static bool find_node(struct op_stacks_writer const *w, uint32_t parent,
		      struct op_stack_frame const *f, uint32_t *id)
{
	struct node key = { .parent = parent, .image = f->image,
			    .offset = f->offset };
	struct op_hashmap_entry *e;

	op_hashmap_entry_init(&key.ent, op_stacks_node_hash(&key));
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
		op_put32(rec + REC_HEADER, REC_NODE);
		op_put32(rec + REC_HEADER + 4, leaf);
		op_put32(rec + REC_HEADER + 8, s->frames[i].image);
		op_put64(rec + REC_HEADER + 12, s->frames[i].offset);
		op_stacks_seal(rec, NODE_BYTES);
		len += REC_HEADER + NODE_BYTES;
		leaf = ++next;	/* ids follow the table's, from 1 */
	}
	rec = w->batch + len;
	op_put32(rec + REC_HEADER, REC_STACK);
	op_put32(rec + REC_HEADER + 4, s->tgid);
	op_put64(rec + REC_HEADER + 8, w->t.nstacks + 1);
	op_put32(rec + REC_HEADER + 16, s->app);
	op_put32(rec + REC_HEADER + 20, s->stop);
	op_put32(rec + REC_HEADER + 24, s->nframes);
	op_put32(rec + REC_HEADER + 28, leaf);
	op_stacks_seal(rec, STACK_BYTES);
	ret = write_records(w, w->batch, len + REC_HEADER + STACK_BYTES);
	if (ret)
		return ret;
	for (i = known; i-- > 0;)
		parent = op_stacks_table_add_node(&w->t, parent, s->frames[i].image,
					s->frames[i].offset)->id;
	frames = op_xcalloc(s->nframes ? s->nframes : 1, sizeof(*frames));
	memcpy(frames, s->frames, s->nframes * sizeof(*frames));
	*id = op_stacks_table_add_stack(&w->t, s, frames)->s.id;
	return 0;
}

int op_stacks_writer_stack(struct op_stacks_writer *w,
			   struct op_stack const *s, uint64_t *id)
{
	struct op_hashmap_entry key;
	struct op_hashmap_entry *found;
	int ret;

	op_hashmap_entry_init(&key, op_stacks_stack_hash(s));
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
