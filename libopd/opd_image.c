/*
 * Image interning. Lookups go through one hash map over string keys
 * that encode kind and identity (a binary's build by its build-id, or by
 * mtime, device and inode when it has none; "p:PATH" names a path's
 * first build); ids
 * index a growing array. An image is freed when the last reference to it
 * goes (opd_image_unref: cookies, sample file entries), so a daemon that
 * sees binaries come and go for months keeps only the live ones. Ids are
 * never reused (a freed one is a NULL slot, 8 bytes): caches keyed by id
 * (the stack table's) stay right. A freed first build leaves its "p:PATH"
 * record behind, with its identity instead of its id, so that the plain
 * name stays with that build while its files are in the session. The
 * lines of the session's build-ids and segments files are a second map,
 * so that each is written once and those of a session the daemon is
 * started on again are kept.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "op_file.h"
#include "op_hashmap.h"
#include "op_mangle.h"
#include "op_message.h"
#include "op_session.h"
#include "op_util.h"
#include "opd_image.h"

struct key_node;

struct image_node {
	struct opd_image img;
	size_t nr_anon;         /* an app's anonymous regions (the core's bound) */
	unsigned refs;
	unsigned gen;           /* the session generation it was recorded in */
	struct key_node *key;   /* its identity key ("b:", "f:", "a:", ...) */
};

/*
 * A lookup key and the image it names (a path's first build has two).
 * A "p:PATH" record outlives its image: id -1, and owner the identity
 * key of the build that owns the plain name.
 */
struct key_node {
	struct op_hashmap_entry ent;
	char *key;
	char *owner;            /* "p:" records only */
	int id;
};

/* A line of the session's build-ids or segments file. */
struct line_node {
	struct op_hashmap_entry ent;
	int file;                     /* RECORD_BUILD_IDS, RECORD_SEGMENTS */
	char text[];
};

enum { RECORD_BUILD_IDS, RECORD_SEGMENTS, RECORD_FILES };

/* The lines of one of those files, in order. */
struct record_lines {
	struct line_node **v;
	size_t nr, alloc;
};

struct opd_images {
	struct op_hashmap by_key;     /* key_node by key */
	struct image_node **nodes;    /* by id; NULL: freed */
	size_t nr, alloc;
	size_t live;
	unsigned gen;                 /* the session's (opd_images_new_session) */
	/* the session's build-ids and segments files: each line once */
	struct op_hashmap lines;      /* line_node by file and text */
	struct record_lines record[RECORD_FILES];
	char *dir;                    /* where they are (the last write) */
	bool started;                 /* written once, or a new session */
};

static int key_cmp(void const *data, struct op_hashmap_entry const *a,
		   struct op_hashmap_entry const *b, void const *key)
{
	(void)data;
	(void)b;
	return strcmp(OP_HASHMAP_ENTRY(a, struct key_node, ent)->key, key);
}

static int line_cmp(void const *data, struct op_hashmap_entry const *a,
		    struct op_hashmap_entry const *b, void const *key)
{
	struct line_node const *l = OP_HASHMAP_ENTRY(a, struct line_node, ent);
	struct line_node const *k = key;

	(void)data;
	(void)b;
	return l->file != k->file || strcmp(l->text, k->text);
}

struct opd_images *opd_images_new(void)
{
	struct opd_images *images = op_xcalloc(1, sizeof(*images));

	op_hashmap_init(&images->by_key, key_cmp, NULL, 1024);
	op_hashmap_init(&images->lines, line_cmp, NULL, 256);
	images->gen = 1;
	return images;
}

static void free_key(struct op_hashmap_entry *e)
{
	struct key_node *k = OP_HASHMAP_ENTRY(e, struct key_node, ent);

	free(k->key);
	free(k->owner);
	free(k);
}

static void free_node(struct image_node *n)
{
	if (!n)
		return;
	free(n->img.name);
	free(n->img.tagged);
	free(n->img.root);
	free(n);
}

static void free_line(struct op_hashmap_entry *e)
{
	free(OP_HASHMAP_ENTRY(e, struct line_node, ent));
}

/* The session's files begin anew: no line in them yet. */
static void forget_lines(struct opd_images *images)
{
	op_hashmap_clear(&images->lines, free_line);
	for (int k = 0; k < RECORD_FILES; k++) {
		free(images->record[k].v);
		images->record[k] = (struct record_lines){ NULL, 0, 0 };
	}
}

void opd_images_free(struct opd_images *images)
{
	size_t i;

	if (!images)
		return;
	forget_lines(images);
	free(images->dir);
	op_hashmap_clear(&images->by_key, free_key);
	for (i = 0; i < images->nr; i++)
		free_node(images->nodes[i]);
	free(images->nodes);
	free(images);
}

static struct key_node *find_key(struct opd_images const *images,
				 char const *key)
{
	struct op_hashmap_entry probe, *e;

	op_hashmap_entry_init(&probe, op_hash_str(key));
	e = op_hashmap_get(&images->by_key, &probe, key);
	return e ? OP_HASHMAP_ENTRY(e, struct key_node, ent) : NULL;
}

/* The image key names, or -1. */
static int lookup(struct opd_images const *images, char const *key)
{
	struct key_node *k = find_key(images, key);

	return k ? k->id : -1;
}

static struct key_node *add_key(struct opd_images *images, char const *key,
				int id)
{
	struct key_node *k = op_xcalloc(1, sizeof(*k));

	k->key = op_xstrdup(key);
	k->id = id;
	op_hashmap_entry_init(&k->ent, op_hash_str(key));
	op_hashmap_add(&images->by_key, &k->ent);
	return k;
}

/* A new image's identity key. */
static void add_identity(struct opd_images *images, char const *key, int id)
{
	images->nodes[id]->key = add_key(images, key, id);
}

static int add_image(struct opd_images *images, struct opd_image const *proto)
{
	struct image_node *n = op_xcalloc(1, sizeof(*n));

	n->img = *proto;
	n->img.name = op_xstrdup(proto->name);
	n->img.id = (int)images->nr;
	OP_ALLOC_GROW(images->nodes, images->nr + 1, images->alloc);
	images->nodes[images->nr++] = n;
	images->live++;
	return n->img.id;
}

static int intern(struct opd_images *images, char const *key,
		  struct opd_image const *proto)
{
	int id = lookup(images, key);

	if (id < 0) {
		id = add_image(images, proto);
		add_identity(images, key, id);
	}
	return id;
}

/*
 * The first build of a path keeps the path as its sample files' name; a
 * later one is named PATH/{build:ID} (op_mangle.h): its build-id, else
 * 'm' and its mtime. The first build is told by its identity key, so
 * that it takes its plain name back when it comes again after its image
 * was freed (its files are still there), and no other build does.
 */
static void name_build(struct opd_images *images, int id)
{
	struct image_node *n = images->nodes[id];
	struct opd_image *img = &n->img;
	char key[4200], tag[OP_BUILD_ID_HEX_MAX + 24];
	struct key_node *first;
	size_t len;

	snprintf(key, sizeof(key), "p:%s", img->name);
	first = find_key(images, key);
	if (!first) {
		first = add_key(images, key, id);
		first->owner = op_xstrdup(n->key->key);
		return;
	}
	if (first->id == id)
		return;
	if (first->id < 0 && !strcmp(first->owner, n->key->key)) {
		first->id = id;
		return;
	}
	if (img->build_id[0])
		snprintf(tag, sizeof(tag), "%s", img->build_id);
	else
		snprintf(tag, sizeof(tag), "m%" PRIu64, img->mtime);
	len = strlen(img->name) + sizeof(tag) + 16;
	img->tagged = op_xmalloc(len);
	if (op_build_tag_name(img->name, tag, img->tagged, len) < 0) {
		free(img->tagged);      /* cannot happen: a checked tag */
		img->tagged = NULL;
	}
}

static void hex_of(unsigned char const *bytes, size_t n,
		   char hex[OP_BUILD_ID_HEX_MAX])
{
	hex[0] = '\0';
	for (size_t i = 0; i < n && 2 * i + 2 < OP_BUILD_ID_HEX_MAX; i++)
		snprintf(hex + 2 * i, 3, "%02x", bytes[i]);
}

/*
 * A binary gone from disk whose build was never told (no build-id from
 * the kernel, none to read: another test's program deleted before a
 * replay, a process older than the daemon) is an unknown build, not
 * another one: the path's live image of unknown build, if it owns the
 * plain name, becomes build hex (its identity key changes), and an
 * unknown build meeting a live first build of its path is that build.
 * In the daemon's own mount namespace only: under another root the host's
 * file at that path may be another program.
 */
/* The live image that owns path's plain name, and its "p:" record. */
static struct image_node *plain_owner(struct opd_images const *images,
				      char const *path, struct key_node **rec)
{
	char key[4200];
	struct key_node *p;

	snprintf(key, sizeof(key), "p:%s", path);
	p = find_key(images, key);
	if (!p || p->id < 0 || (size_t)p->id >= images->nr)
		return NULL;
	if (rec)
		*rec = p;
	return images->nodes[p->id];
}

static bool unknown_build(struct image_node const *n)
{
	return n->img.kind == OPD_IMAGE_FILE && !n->img.build_id[0] &&
	       !n->img.mtime && !n->img.root && n->key &&
	       !strncmp(n->key->key, "f:0:0:0:", 8);
}

static void record_known_build(struct opd_images *images,
			       struct image_node const *n);

static int adopt_unknown(struct opd_images *images, char const *path,
			 char const *key, char const *hex)
{
	struct key_node *p = NULL;
	struct image_node *n = plain_owner(images, path, &p);

	if (!n || !unknown_build(n))
		return -1;
	op_hashmap_remove(&images->by_key, &n->key->ent, n->key->key);
	free_key(&n->key->ent);
	add_identity(images, key, n->img.id);
	free(p->owner);
	p->owner = op_xstrdup(key);
	snprintf(n->img.build_id, sizeof(n->img.build_id), "%s", hex);
	record_known_build(images, n);
	return n->img.id;
}

/* Build hex of path (the kernel's, or the file's when file_is_it): the
 * file at the path gives its mtime and segments only when it is that
 * build. */
static int image_of_build(struct opd_images *images, char const *path,
			  char const *file, struct stat const *st,
			  char const *hex, bool file_is_it)
{
	struct opd_image proto = { .kind = OPD_IMAGE_FILE, .name = (char *)path };
	char key[4300], have[OP_BUILD_ID_HEX_MAX];
	int id;

	snprintf(key, sizeof(key), "b:%s:%s", hex, path);
	id = lookup(images, key);
	if (id >= 0)
		return id;
	id = strcmp(file, path) ? -1 : adopt_unknown(images, path, key, hex);
	if (id >= 0)
		return id;
	snprintf(proto.build_id, sizeof(proto.build_id), "%s", hex);
	if (file_is_it || (!op_build_id_of(file, have) && !strcmp(have, hex))) {
		proto.mtime = (uint64_t)st->st_mtime;
		proto.nr_segs = op_elf_segments(file, proto.segs,
						OP_SEGMENTS_MAX);
		if (proto.nr_segs < 0)
			proto.nr_segs = 0;
	}
	id = add_image(images, &proto);
	add_identity(images, key, id);
	return id;
}

/*
 * No build-id from the kernel: the file as it is now, by the build-id it
 * has (a build touched or installed again stays one image), else by its
 * identity: mtime, device and inode (a file renamed over the path within
 * the same second has another inode).
 */
static int image_of_file(struct opd_images *images, char const *path,
			 char const *file, struct stat const *st)
{
	struct opd_image proto = { .kind = OPD_IMAGE_FILE, .name = (char *)path };
	char key[4300], hex[OP_BUILD_ID_HEX_MAX];

	if (!op_build_id_of(file, hex))
		return image_of_build(images, path, file, st, hex, true);
	if (!st->st_ino && !st->st_mtime && !strcmp(file, path)) {
		struct image_node *n = plain_owner(images, path, NULL);

		if (n)		/* gone, build unknown: the path's first build */
			return n->img.id;
	}
	proto.mtime = (uint64_t)st->st_mtime;
	snprintf(key, sizeof(key), "f:%" PRIu64 ":%llu:%llu:%s", proto.mtime,
		 (unsigned long long)st->st_dev,
		 (unsigned long long)st->st_ino, path);
	return intern(images, key, &proto);
}

int opd_image_binary(struct opd_images *images, char const *path,
		     char const *root, unsigned char const *build_id,
		     size_t n)
{
	char file[4200], hex[OP_BUILD_ID_HEX_MAX];
	struct stat st = { 0 };
	size_t nr = images->nr;
	int id;

	snprintf(file, sizeof(file), "%s%s", root ? root : "", path);
	/* A deleted binary keeps its samples; its mtime is just unknown. */
	if (stat(file, &st))
		memset(&st, 0, sizeof(st));
	hex_of(build_id, build_id ? n : 0, hex);
	if (hex[0])
		id = image_of_build(images, path, file, &st, hex, false);
	else
		id = image_of_file(images, path, file, &st);
	if (images->nr > nr) {
		images->nodes[id]->img.root = root ? op_xstrdup(root) : NULL;
		name_build(images, id);
	}
	return id;
}

char *opd_image_path(struct opd_image const *img)
{
	return op_xasprintf("%s%s", img->root ? img->root : "", img->name);
}

int opd_image_file_at(struct opd_images *images, char const *path,
		      char const *root)
{
	return opd_image_binary(images, path, root, NULL, 0);
}

int opd_image_file(struct opd_images *images, char const *path)
{
	return opd_image_file_at(images, path, NULL);
}

int opd_image_copy(struct opd_images *images, char const *name,
		   char const *copy)
{
	struct opd_image proto = { .kind = OPD_IMAGE_FILE, .name = (char *)name };
	char key[4300];
	size_t nr = images->nr;
	int id;

	snprintf(key, sizeof(key), "c:%s", name);
	id = intern(images, key, &proto);
	if (images->nr > nr) {
		struct opd_image *img = &images->nodes[id]->img;

		if (!op_build_id_of(copy, img->build_id))
			img->nr_segs = op_elf_segments(copy, img->segs,
						       OP_SEGMENTS_MAX);
		if (img->nr_segs < 0)
			img->nr_segs = 0;
	}
	return id;
}

static void anon_key(char *key, size_t size, int tgid, uint64_t start,
		     uint64_t end, char const *name)
{
	snprintf(key, size, "a:%d:%" PRIx64 ":%" PRIx64 ":%.200s", tgid,
		 start, end, name);
}

int opd_image_anon(struct opd_images *images, int tgid, uint64_t start,
		   uint64_t end, char const *name)
{
	struct opd_image proto = {
		.kind = OPD_IMAGE_ANON, .name = (char *)name,
		.start = start, .end = end, .tgid = tgid,
	};
	char key[512];

	anon_key(key, sizeof(key), tgid, start, end, name);
	return intern(images, key, &proto);
}

int opd_image_anon_find(struct opd_images const *images, int tgid,
			uint64_t start, uint64_t end, char const *name)
{
	char key[512];

	anon_key(key, sizeof(key), tgid, start, end, name);
	return lookup(images, key);
}

int opd_image_kernel(struct opd_images *images, char const *name,
		     uint64_t start, uint64_t end)
{
	struct opd_image proto = {
		.kind = OPD_IMAGE_KERNEL, .name = (char *)name,
		.start = start, .end = end,
	};
	char key[4200];

	snprintf(key, sizeof(key), "k:%" PRIx64 ":%s", start, name);
	return intern(images, key, &proto);
}

static struct image_node *node_of(struct opd_images const *images, int id)
{
	return id >= 0 && (size_t)id < images->nr ? images->nodes[id] : NULL;
}

size_t opd_image_anon_count(struct opd_images *images, int id, size_t add)
{
	struct image_node *n = node_of(images, id);

	return n ? n->nr_anon += add : 0;
}

struct opd_image const *opd_image_get(struct opd_images const *images, int id)
{
	struct image_node *n = node_of(images, id);

	return n ? &n->img : NULL;
}

size_t opd_images_nr(struct opd_images const *images)
{
	return images->nr;
}

size_t opd_images_live(struct opd_images const *images)
{
	return images->live;
}

void opd_image_ref(struct opd_images *images, int id)
{
	struct image_node *n = node_of(images, id);

	if (n)
		n->refs++;
}

/* A freed first build keeps its "p:" record, by identity (name_build). */
static void release_plain_name(struct opd_images *images,
			       struct image_node const *n)
{
	char key[4200];
	struct key_node *p;

	if (n->img.kind != OPD_IMAGE_FILE || n->img.tagged)
		return;
	snprintf(key, sizeof(key), "p:%s", n->img.name);
	p = find_key(images, key);
	if (p && p->id == n->img.id)
		p->id = -1;
}

void opd_image_unref(struct opd_images *images, int id)
{
	struct image_node *n = node_of(images, id);

	if (!n || !n->refs || --n->refs)
		return;
	release_plain_name(images, n);
	if (n->key) {
		op_hashmap_remove(&images->by_key, &n->key->ent, n->key->key);
		free_key(&n->key->ent);
	}
	images->nodes[id] = NULL;
	images->live--;
	free_node(n);
}

void opd_images_new_session(struct opd_images *images)
{
	struct op_hashmap_iter it;
	struct op_hashmap_entry *e;

	images->gen++;
	/* the new session has no plain-named file of a freed first build */
	for (e = op_hashmap_iter_first(&images->by_key, &it); e;
	     e = op_hashmap_iter_next(&it)) {
		struct key_node *k = OP_HASHMAP_ENTRY(e, struct key_node, ent);

		if (k->id >= 0)
			continue;
		op_hashmap_remove(&images->by_key, e, k->key);
		free_key(e);
	}
	/* ... and no build-ids: nothing of the last one is kept */
	forget_lines(images);
	op_hashmap_init(&images->lines, line_cmp, NULL, 256);
	images->started = true;
}

static char const *const record_names[RECORD_FILES] = {
	OP_META_BUILD_IDS, OP_META_SEGMENTS,
};

/* Line (no newline) in the session's file k: true if it was not yet. */
static bool add_line(struct opd_images *images, int k, char const *line)
{
	size_t n = strlen(line);
	struct line_node *l = op_xmalloc(sizeof(*l) + n + 1);
	struct record_lines *r = &images->record[k];

	l->file = k;
	memcpy(l->text, line, n + 1);
	op_hashmap_entry_init(&l->ent, op_hash_str(line) ^ (unsigned)k);
	if (op_hashmap_get(&images->lines, &l->ent, l)) {
		free(l);
		return false;
	}
	op_hashmap_add(&images->lines, &l->ent);
	OP_ALLOC_GROW(r->v, r->nr + 1, r->alloc);
	r->v[r->nr++] = l;
	return true;
}

/*
 * The lines of img in the session's file k (build-ids or segments) that
 * it has not yet, now counted in: malloc'd, NULL for none.
 */
static char *new_lines(struct opd_images *images,
		       struct opd_image const *img, int k)
{
	char *text = NULL, *line;
	size_t len = 0;
	FILE *mem;

	if (img->kind != OPD_IMAGE_FILE || !img->build_id[0])
		return NULL;
	/* a line per binary: a newline in its name (perf hands names raw)
	 * would forge another binary's build-id line; it goes unlisted */
	if (k == RECORD_BUILD_IDS && strchr(opd_image_sfname(img), '\n'))
		return NULL;
	mem = open_memstream(&text, &len);
	for (int i = 0; i < (k == RECORD_SEGMENTS ? img->nr_segs : 1); i++) {
		line = k == RECORD_SEGMENTS ?
			op_segment_line(img->build_id, &img->segs[i]) :
			op_build_id_line(img->build_id, img->mtime,
					 opd_image_sfname(img));
		if (add_line(images, k, line))
			fprintf(mem, "%s\n", line);
		free(line);
	}
	fclose(mem);
	if (!len) {
		free(text);
		return NULL;
	}
	return text;
}

static int append(char const *path, char const *text)
{
	int fd, rc = 0;

	/* as every file of the session: no planted link followed, and out of
	 * descriptors the sample files make room */
	fd = op_open_safe(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0 || op_write_full(fd, text, strlen(text)) < 0)
		rc = -1;
	if (fd >= 0 && close(fd) && !rc)
		rc = -1;
	return rc;
}

/* Append the lines of img the session's files have not yet, in dir. */
static int append_build_id(struct opd_images *images,
			   struct opd_image const *img, char const *dir)
{
	int rc = 0;

	for (int k = 0; k < RECORD_FILES; k++) {
		char *text = new_lines(images, img, k), *path;

		if (!text)
			continue;
		path = op_xasprintf("%s/%s", dir, record_names[k]);
		/* named: a FIFO or a device planted there is refused (not
		 * waited on) and said, as a full disk is */
		if (append(path, text) && !rc) {
			op_warn_errno("cannot record the build-id of '%s' in '%s'",
				      img->name, path);
			rc = -1;
		}
		free(path);
		free(text);
	}
	return rc;
}

int opd_image_record(struct opd_images *images, int id, char const *dir)
{
	struct image_node *n = node_of(images, id);

	if (!n || n->gen == images->gen)
		return 0;
	n->gen = images->gen;
	return append_build_id(images, &n->img, dir);
}

/*
 * The build of an image recorded in this session became known (an
 * unknown build adopted): its line is due now, as its samples are in.
 */
static void record_known_build(struct opd_images *images,
			       struct image_node const *n)
{
	if (n->gen != images->gen || !images->dir)
		return;
	append_build_id(images, &n->img, images->dir);	/* said there */
}

/* The lines a session's files in dir have already (a restarted daemon). */
static void keep_session_lines(struct opd_images *images, char const *dir)
{
	for (int k = 0; k < RECORD_FILES; k++) {
		char *path = op_xasprintf("%s/%s", dir, record_names[k]);
		char *text = op_build_id_file_read(path, k == RECORD_SEGMENTS);
		char *save = NULL;

		if (!text)	/* rewritten without them: say so */
			op_warn("cannot read '%s': %s: its lines are not kept",
				path, op_file_strerror(errno));
		for (char *l = text ? strtok_r(text, "\n", &save) : NULL; l;
		     l = strtok_r(NULL, "\n", &save))
			add_line(images, k, l);
		free(text);
		free(path);
	}
}

int opd_images_write_build_ids(struct opd_images *images, char const *dir,
			       char *err, size_t errlen)
{
	int rc = 0;

	if (!images->started)
		keep_session_lines(images, dir);
	images->started = true;
	free(images->dir);
	images->dir = op_xstrdup(dir);
	for (size_t i = 0; i < images->nr; i++) {
		struct image_node const *n = images->nodes[i];

		for (int k = 0; n && n->gen == images->gen && k < RECORD_FILES; k++)
			free(new_lines(images, &n->img, k));
	}
	for (int k = 0; k < RECORD_FILES && !rc; k++) {
		struct record_lines const *r = &images->record[k];
		char *path = op_xasprintf("%s/%s", dir, record_names[k]);
		char *text = NULL;
		size_t len = 0;
		FILE *mem = open_memstream(&text, &len);

		for (size_t i = 0; i < r->nr; i++)
			fprintf(mem, "%s\n", r->v[i]->text);
		fclose(mem);
		rc = op_write_file_atomic(path, text, len, err, errlen);
		free(text);
		free(path);
	}
	return rc;
}
