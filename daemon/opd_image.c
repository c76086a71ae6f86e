/*
 * Image interning. Lookups go through one hash map over a string key
 * that encodes kind and identity; ids index a growing array. Images are
 * never freed while the core runs: there are few of them (binaries and
 * regions seen), and ids must stay stable for the sample file cache.
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

#include "op_hashmap.h"
#include "op_session.h"
#include "op_util.h"
#include "opd_image.h"

struct image_node {
	struct op_hashmap_entry ent;
	char *key;
	struct opd_image img;
	size_t nr_anon;         /* an app's anonymous regions (the core's bound) */
};

struct opd_images {
	struct op_hashmap by_key;     /* image_node by key */
	struct image_node **nodes;    /* by id */
	size_t nr, alloc;
};

static int key_cmp(void const *data, struct op_hashmap_entry const *a,
		   struct op_hashmap_entry const *b, void const *key)
{
	(void)data;
	(void)b;
	return strcmp(OP_HASHMAP_ENTRY(a, struct image_node, ent)->key, key);
}

struct opd_images *opd_images_new(void)
{
	struct opd_images *images = op_xcalloc(1, sizeof(*images));

	op_hashmap_init(&images->by_key, key_cmp, NULL, 1024);
	return images;
}

void opd_images_free(struct opd_images *images)
{
	size_t i;

	if (!images)
		return;
	op_hashmap_clear(&images->by_key, NULL);
	for (i = 0; i < images->nr; i++) {
		free(images->nodes[i]->key);
		free(images->nodes[i]->img.name);
		free(images->nodes[i]->img.root);
		free(images->nodes[i]);
	}
	free(images->nodes);
	free(images);
}

static int intern(struct opd_images *images, char const *key,
		  struct opd_image const *proto)
{
	struct op_hashmap_entry probe;
	struct op_hashmap_entry *e;
	struct image_node *n;

	op_hashmap_entry_init(&probe, op_hash_str(key));
	e = op_hashmap_get(&images->by_key, &probe, key);
	if (e)
		return OP_HASHMAP_ENTRY(e, struct image_node, ent)->img.id;

	n = op_xcalloc(1, sizeof(*n));
	n->key = op_xstrdup(key);
	n->img = *proto;
	n->img.name = op_xstrdup(proto->name);
	n->img.id = (int)images->nr;
	op_hashmap_entry_init(&n->ent, probe.hash);
	op_hashmap_add(&images->by_key, &n->ent);
	OP_ALLOC_GROW(images->nodes, images->nr + 1, images->alloc);
	images->nodes[images->nr++] = n;
	return n->img.id;
}

int opd_image_file_at(struct opd_images *images, char const *path,
		      char const *root)
{
	struct opd_image proto = { .kind = OPD_IMAGE_FILE, .name = (char *)path };
	char key[4300], file[4200];
	struct stat st = { 0 };
	size_t nr;
	int id;

	snprintf(file, sizeof(file), "%s%s", root ? root : "", path);
	/* A deleted binary keeps its samples; its mtime is just unknown. */
	if (stat(file, &st) == 0)
		proto.mtime = (uint64_t)st.st_mtime;
	/* one image per build: a rebuilt binary is a new image; another
	 * namespace's file is another one (told apart by its inode) */
	if (root)
		snprintf(key, sizeof(key), "f:%" PRIu64 ":%llu:%llu:%s",
			 proto.mtime, (unsigned long long)st.st_dev,
			 (unsigned long long)st.st_ino, path);
	else
		snprintf(key, sizeof(key), "f:%" PRIu64 ":%s", proto.mtime,
			 path);
	nr = images->nr;
	id = intern(images, key, &proto);
	if (images->nr > nr) {
		struct opd_image *img = &images->nodes[id]->img;

		if (!op_build_id_of(file, img->build_id))
			img->nr_segs = op_elf_segments(file, img->segs,
						       OP_SEGMENTS_MAX);
		if (img->nr_segs < 0)
			img->nr_segs = 0;
		img->root = root ? op_xstrdup(root) : NULL;
	}
	return id;
}

int opd_image_set_build_id(struct opd_images *images, int id,
			   unsigned char const *bytes, size_t n)
{
	char hex[OP_BUILD_ID_HEX_MAX];
	struct opd_image *img;

	if (id < 0 || (size_t)id >= images->nr || !n ||
	    2 * n >= sizeof(hex))
		return 0;
	img = &images->nodes[id]->img;
	if (img->kind != OPD_IMAGE_FILE)
		return 0;
	for (size_t i = 0; i < n; i++)
		snprintf(hex + 2 * i, 3, "%02x", bytes[i]);
	if (!strcmp(hex, img->build_id))
		return 0;
	/* the file at the path is gone or another build: its segments
	 * are not the sampled build's */
	memcpy(img->build_id, hex, 2 * n + 1);
	img->nr_segs = 0;
	return 1;
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
	struct op_hashmap_entry probe, *e;
	char key[512];

	anon_key(key, sizeof(key), tgid, start, end, name);
	op_hashmap_entry_init(&probe, op_hash_str(key));
	e = op_hashmap_get(&images->by_key, &probe, key);
	return e ? OP_HASHMAP_ENTRY(e, struct image_node, ent)->img.id : -1;
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

size_t opd_image_anon_count(struct opd_images *images, int id, size_t add)
{
	if (id < 0 || (size_t)id >= images->nr)
		return 0;
	return images->nodes[id]->nr_anon += add;
}

struct opd_image const *opd_image_get(struct opd_images const *images, int id)
{
	return id >= 0 && (size_t)id < images->nr ? &images->nodes[id]->img : NULL;
}

size_t opd_images_nr(struct opd_images const *images)
{
	return images->nr;
}

/* The lines of img in the build-ids (or segments) file, malloc'd. */
static char *build_id_lines(struct opd_image const *img, bool segments)
{
	char *text = NULL, *line;
	size_t len = 0;
	FILE *mem;

	if (img->kind != OPD_IMAGE_FILE || !img->build_id[0])
		return NULL;
	mem = open_memstream(&text, &len);
	for (int i = 0; i < (segments ? img->nr_segs : 1); i++) {
		line = segments ? op_segment_line(img->build_id, &img->segs[i]) :
			op_build_id_line(img->build_id, img->mtime, img->name);
		fprintf(mem, "%s\n", line);
		free(line);
	}
	fclose(mem);
	return text;
}

static int append(char const *path, char const *text)
{
	int fd, rc = 0;

	fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0 || op_write_full(fd, text, strlen(text)) < 0)
		rc = -1;
	if (fd >= 0 && close(fd) && !rc)
		rc = -1;
	return rc;
}

static char const *const record_names[2] = {
	OP_META_BUILD_IDS, OP_META_SEGMENTS,
};

int opd_image_append_build_id(struct opd_image const *img, char const *dir)
{
	int rc = 0;

	for (int k = 0; k < 2 && !rc; k++) {
		char *text = build_id_lines(img, k), *path;

		if (!text)
			return 0;
		path = op_xasprintf("%s/%s", dir, record_names[k]);
		rc = text[0] ? append(path, text) : 0;
		free(path);
		free(text);
	}
	return rc;
}

int opd_images_write_build_ids(struct opd_images const *images,
			       char const *dir, char *err, size_t errlen)
{
	int rc = 0;

	for (int k = 0; k < 2 && !rc; k++) {
		char *text = NULL, *path;
		size_t len = 0;
		FILE *mem = open_memstream(&text, &len);

		for (size_t i = 0; i < images->nr; i++) {
			char *lines = build_id_lines(&images->nodes[i]->img, k);

			if (lines)
				fputs(lines, mem);
			free(lines);
		}
		fclose(mem);
		path = op_xasprintf("%s/%s", dir, record_names[k]);
		rc = op_write_file_atomic(path, text, len, err, errlen);
		free(path);
		free(text);
	}
	return rc;
}
