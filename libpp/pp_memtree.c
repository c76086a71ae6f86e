/* Sample files held in memory (see pp_memtree.h). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "op_hashmap.h"
#include "op_util.h"
#include "pp_memtree.h"
#include "pp_samples.h"

struct pp_memfile {
	struct op_hashmap_entry ent;
	char *rel;                 /* path under the root */
	struct opd_header h;
	struct pp_samples s;       /* folded when it fills (pp_memtree_add) */
	size_t folded;             /* entries after the last fold */
};

struct pp_memtree {
	char *root;
	size_t root_len;
	struct op_hashmap by_rel;
	struct pp_memfile **v;     /* in the order made */
	size_t n, alloc;
	struct pp_memtree *next;   /* attached trees */
	int attached;
};

/* The trees libpp reads through; a process replays one stream at a time. */
static struct pp_memtree *attached;

static int rel_cmp(void const *data, struct op_hashmap_entry const *a,
		   struct op_hashmap_entry const *b, void const *keydata)
{
	(void)data;
	return strcmp(OP_HASHMAP_ENTRY(a, struct pp_memfile, ent)->rel,
		      keydata ? keydata :
		      OP_HASHMAP_ENTRY(b, struct pp_memfile, ent)->rel);
}

struct pp_memtree *pp_memtree_new(char const *root)
{
	struct pp_memtree *t = op_xcalloc(1, sizeof(*t));

	t->root = op_xstrdup(root);
	t->root_len = strlen(root);
	op_hashmap_init(&t->by_rel, rel_cmp, NULL, 256);
	return t;
}

void pp_memtree_free(struct pp_memtree *t)
{
	if (!t)
		return;
	for (struct pp_memtree **p = &attached; *p; p = &(*p)->next)
		if (*p == t) {
			*p = t->next;
			break;
		}
	for (size_t i = 0; i < t->n; i++) {
		free(t->v[i]->rel);
		pp_samples_free(&t->v[i]->s);
		free(t->v[i]);
	}
	free(t->v);
	op_hashmap_clear(&t->by_rel, NULL);
	free(t->root);
	free(t);
}

static struct pp_memfile *find(struct pp_memtree const *t, char const *rel)
{
	struct op_hashmap_entry probe, *e;

	op_hashmap_entry_init(&probe, op_hash_str(rel));
	e = op_hashmap_get(&t->by_rel, &probe, rel);
	return e ? OP_HASHMAP_ENTRY(e, struct pp_memfile, ent) : NULL;
}

/* path's part under t's root, or NULL */
static char const *under(struct pp_memtree const *t, char const *path)
{
	if (strncmp(path, t->root, t->root_len) || path[t->root_len] != '/' ||
	    !path[t->root_len + 1])
		return NULL;
	return path + t->root_len + 1;
}

struct pp_memfile *pp_memtree_open(struct pp_memtree *t, char const *path,
				   struct opd_header const *h,
				   char *err, size_t errlen)
{
	char const *rel = under(t, path);
	struct pp_memfile *f;

	if (!rel) {
		snprintf(err, errlen, "'%s' is not under '%s'", path, t->root);
		return NULL;
	}
	f = find(t, rel);
	if (f) {
		if (f->h.mtime && h->mtime && f->h.mtime != h->mtime) {
			snprintf(err, errlen, "samples of another build (mtime "
				 "%llu) of '%s' dropped: it holds those of mtime %llu",
				 (unsigned long long)h->mtime, rel,
				 (unsigned long long)f->h.mtime);
			return NULL;
		}
		return f;
	}
	f = op_xcalloc(1, sizeof(*f));
	f->rel = op_xstrdup(rel);
	f->h = *h;
	op_hashmap_entry_init(&f->ent, op_hash_str(f->rel));
	op_hashmap_add(&t->by_rel, &f->ent);
	OP_ALLOC_GROW(t->v, t->n + 1, t->alloc);
	t->v[t->n++] = f;
	return f;
}

void pp_memtree_add(struct pp_memfile *f, uint64_t key, uint32_t n)
{
	struct pp_samples *s = &f->s;

	/* full: fold equal keys first, so that the memory is the distinct
	 * keys', not the samples' (again only when twice as many, so that
	 * distinct keys cost no fold per sample) */
	if (s->n == s->alloc && s->n >= 2 * f->folded + 64) {
		pp_samples_finish(s);
		f->folded = s->n;
	}
	OP_ALLOC_GROW(s->v, s->n + 1, s->alloc);
	s->v[s->n].key = key;
	s->v[s->n].count = n;
	s->n++;
}

size_t pp_memtree_size(struct pp_memtree const *t)
{
	return t->n;
}

void pp_memtree_attach(struct pp_memtree *t)
{
	if (t->attached)
		return;
	t->attached = 1;
	t->next = attached;
	attached = t;
}

struct pp_memtree const *pp_memtree_at(char const *dir)
{
	for (struct pp_memtree const *t = attached; t; t = t->next)
		if (!strcmp(t->root, dir))
			return t;
	return NULL;
}

char const *pp_memtree_rel(struct pp_memtree const *t, size_t i)
{
	return i < t->n ? t->v[i]->rel : NULL;
}

int pp_memtree_read(char const *path, struct pp_samples *s,
		    struct opd_header *hdr)
{
	for (struct pp_memtree const *t = attached; t; t = t->next) {
		char const *rel = under(t, path);
		struct pp_memfile const *f = rel ? find(t, rel) : NULL;

		if (!f)
			continue;
		*hdr = f->h;
		for (size_t i = 0; i < f->s.n; i++) {
			OP_ALLOC_GROW(s->v, s->n + 1, s->alloc);
			s->v[s->n++] = f->s.v[i];
		}
		return 1;
	}
	return 0;
}
