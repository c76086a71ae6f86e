/*
 * Image interning. Lookups go through one hash table over a string key
 * that encodes kind and identity; ids index a growing array. Images are
 * never freed while the daemon runs: there are few of them (binaries and
 * regions seen), and ids must stay stable for the sample file cache.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "op_message.h"
#include "opd_image.h"

struct entry {
	char *key;
	int id;
	struct entry *next;
};

#define NR_BUCKETS 4096

static struct entry *buckets[NR_BUCKETS];
static struct opd_image **images;
static int nr_images;

static uint32_t hash_str(char const *s)
{
	uint32_t h = 2166136261u;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 16777619u;
	return h;
}

static int intern(char const *key, struct opd_image const *proto)
{
	uint32_t b = hash_str(key) % NR_BUCKETS;
	struct entry *e;
	struct opd_image *img;

	for (e = buckets[b]; e; e = e->next)
		if (!strcmp(e->key, key))
			return e->id;

	img = op_xcalloc(1, sizeof(*img));
	*img = *proto;
	img->name = op_xstrdup(proto->name);
	img->id = nr_images;
	images = op_xrealloc(images, (nr_images + 1) * sizeof(*images));
	images[nr_images] = img;

	e = op_xmalloc(sizeof(*e));
	e->key = op_xstrdup(key);
	e->id = nr_images;
	e->next = buckets[b];
	buckets[b] = e;
	return nr_images++;
}

int opd_image_file(char const *path)
{
	struct opd_image proto = { .kind = OPD_IMAGE_FILE, .name = (char *)path };
	char key[4200];
	struct stat st;

	/* A deleted binary keeps its samples; its mtime is just unknown. */
	if (stat(path, &st) == 0)
		proto.mtime = (uint64_t)st.st_mtime;
	/* one image per build: a rebuilt binary is a new image */
	snprintf(key, sizeof(key), "f:%" PRIu64 ":%s", proto.mtime, path);
	return intern(key, &proto);
}

int opd_image_anon(int tgid, uint64_t start, uint64_t end, char const *name)
{
	struct opd_image proto = {
		.kind = OPD_IMAGE_ANON, .name = (char *)name,
		.start = start, .end = end, .tgid = tgid,
	};
	char key[512];

	snprintf(key, sizeof(key), "a:%d:%" PRIx64 ":%" PRIx64 ":%.200s",
		 tgid, start, end, name);
	return intern(key, &proto);
}

int opd_image_kernel(char const *name, uint64_t start, uint64_t end)
{
	struct opd_image proto = {
		.kind = OPD_IMAGE_KERNEL, .name = (char *)name,
		.start = start, .end = end,
	};
	char key[4200];

	snprintf(key, sizeof(key), "k:%" PRIx64 ":%s", start, name);
	return intern(key, &proto);
}

struct opd_image const *opd_image_get(int id)
{
	return id >= 0 && id < nr_images ? images[id] : NULL;
}

void opd_image_exit(void)
{
	int i;

	for (i = 0; i < NR_BUCKETS; i++) {
		struct entry *e = buckets[i], *next;
		for (; e; e = next) {
			next = e->next;
			free(e->key);
			free(e);
		}
		buckets[i] = NULL;
	}
	for (i = 0; i < nr_images; i++) {
		free(images[i]->name);
		free(images[i]);
	}
	free(images);
	images = NULL;
	nr_images = 0;
}
