/*
 * Path interning for the producer side (see opd_cookie.h). Lookups run
 * once per mmap record, not per sample: samples carry the cookie found in
 * the process maps. Paths are in the one hash map (op_hashmap.h).
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "opd_cookie.h"
#include "op_stream.h"
#include "op_util.h"
#include "opd_words.h"

/* A path in the table: the cookie of the file it names now. The entry
 * array moves as it grows, so the map holds nodes of their own. */
struct path_node {
	struct op_hashmap_entry ent;
	unsigned long cookie;
};

/* A path being looked up: keydata of op_hashmap_get. */
struct path_key {
	char const *path;
	size_t len;
};

static int path_cmp(void const *data, struct op_hashmap_entry const *a,
		    struct op_hashmap_entry const *b, void const *keydata)
{
	struct cookie_table const *ct = data;
	struct cookie_entry const *e =
		ct->ent[OP_HASHMAP_ENTRY(a, struct path_node, ent)->cookie - 1];
	struct path_key const *k = keydata;

	(void)b;
	return e->len != k->len || memcmp(e->name, k->path, k->len);
}

void opd_cookie_init(struct cookie_table *ct)
{
	memset(ct, 0, sizeof(*ct));
	ct->gen = 1;
	op_hashmap_init(&ct->paths, path_cmp, ct, 256);
}

static void free_path(struct op_hashmap_entry *e)
{
	free(OP_HASHMAP_ENTRY(e, struct path_node, ent));
}

static void entry_free(struct cookie_entry *e)
{
	if (e)
		free(e->name);
	free(e);
}

void opd_cookie_free(struct cookie_table *ct)
{
	for (size_t i = 0; i < ct->nr; i++)
		entry_free(ct->ent[i]);
	free(ct->ent);
	op_hashmap_clear(&ct->paths, free_path);
	memset(ct, 0, sizeof(*ct));
}

static unsigned long add_entry(struct cookie_table *ct, char const *name,
			       size_t len, enum ct_kind kind)
{
	struct cookie_entry *e;

	OP_ALLOC_GROW(ct->ent, ct->nr + 1, ct->cap);
	e = op_xcalloc(1, sizeof(*e));
	ct->ent[ct->nr] = e;
	ct->live++;
	e->name = op_xmalloc(len + 1);
	memcpy(e->name, name, len);
	e->name[len] = '\0';
	e->len = len;
	e->kind = kind;
	return ++ct->nr;
}

/* A new file cookie for path, with the file's identity; prev: the
 * path's cookie until now (0: none). */
static unsigned long add_file(struct cookie_table *ct, char const *path,
			      size_t len, struct ct_file_id const *id,
			      unsigned long prev)
{
	unsigned long c = add_entry(ct, path, len, CT_FILE);
	struct cookie_entry *e = ct->ent[c - 1];

	e->dev = id->dev;
	e->ino = id->ino;
	e->prev = prev;
	e->build_id_len = id->build_id_len;
	memcpy(e->build_id, id->build_id, id->build_id_len);
	return c;
}

static bool same_build_id(struct cookie_entry const *e,
			  struct ct_file_id const *id)
{
	return e->build_id_len == id->build_id_len &&
	       !memcmp(e->build_id, id->build_id, id->build_id_len);
}

/*
 * A mapping known by its build-id: the path's cookie of that build (the
 * current one or an older one), the current one if it knows nothing of
 * its file yet, else a new one. A cookie known only by device and inode
 * cannot be compared: a new cookie (the same file under two cookies is
 * one image for the consumer; two files under one would be wrong).
 */
static unsigned long intern_build_id(struct cookie_table *ct,
				     struct path_node *n, char const *path,
				     size_t len, struct ct_file_id const *id)
{
	struct cookie_entry *e = ct->ent[n->cookie - 1];

	for (unsigned long c = n->cookie; c; c = ct->ent[c - 1]->prev) {
		if (same_build_id(ct->ent[c - 1], id)) {
			n->cookie = c;
			return c;
		}
	}
	if (!e->build_id_len && !e->ino) {
		e->build_id_len = id->build_id_len;
		memcpy(e->build_id, id->build_id, id->build_id_len);
		return n->cookie;
	}
	n->cookie = add_file(ct, path, len, id, n->cookie);
	return n->cookie;
}

unsigned long opd_cookie_intern_file(struct cookie_table *ct, char const *path,
			     size_t len, struct ct_file_id id)
{
	struct path_key key = { path, len };
	struct op_hashmap_entry probe, *found;
	struct path_node *n;
	struct cookie_entry *e;

	op_hashmap_entry_init(&probe, op_hash_mem(path, len));
	found = op_hashmap_get(&ct->paths, &probe, &key);
	if (!found) {
		n = op_xmalloc(sizeof(*n));
		n->cookie = add_file(ct, path, len, &id, 0);
		op_hashmap_entry_init(&n->ent, probe.hash);
		op_hashmap_add(&ct->paths, &n->ent);
		return n->cookie;
	}
	n = OP_HASHMAP_ENTRY(found, struct path_node, ent);
	if (id.build_id_len)
		return intern_build_id(ct, n, path, len, &id);
	e = ct->ent[n->cookie - 1];
	if (!id.ino || (e->dev == id.dev && e->ino == id.ino))
		return n->cookie;
	if (!e->ino) {
		e->dev = id.dev;
		e->ino = id.ino;
		return n->cookie;
	}
	/* the path names another file now: a new cookie takes the path */
	n->cookie = add_file(ct, path, len, &id, n->cookie);
	return n->cookie;
}

unsigned long opd_cookie_intern(struct cookie_table *ct, char const *path, size_t len)
{
	return opd_cookie_intern_file(ct, path, len, (struct ct_file_id){ 0 });
}

unsigned long opd_cookie_new_anon(struct cookie_table *ct, unsigned long tgid,
			  unsigned long start, unsigned long end,
			  char const *name)
{
	unsigned long c = add_entry(ct, name, strlen(name), CT_ANON);
	struct cookie_entry *e = ct->ent[c - 1];

	e->tgid = tgid;
	e->start = start;
	e->end = end;
	return c;
}

struct cookie_entry *opd_cookie_get(struct cookie_table *ct, unsigned long cookie)
{
	if (cookie == OP_NO_COOKIE || cookie > ct->nr)
		return NULL;
	return ct->ent[cookie - 1];
}

void opd_cookie_new_stream(struct cookie_table *ct)
{
	ct->gen++;
}

/* The path node of file cookie e's path, or NULL. */
static struct path_node *path_of(struct cookie_table *ct,
				 struct cookie_entry const *e,
				 struct path_key *key, unsigned hash)
{
	struct op_hashmap_entry probe, *found;

	*key = (struct path_key){ e->name, e->len };
	op_hashmap_entry_init(&probe, hash);
	found = op_hashmap_get(&ct->paths, &probe, key);
	return found ? OP_HASHMAP_ENTRY(found, struct path_node, ent) : NULL;
}

/* Take file cookie c out of its path's chain of builds (newest first,
 * linked by prev); the path goes when c was its only one. */
static void unlink_path(struct cookie_table *ct, unsigned long c)
{
	struct cookie_entry *e = ct->ent[c - 1];
	unsigned hash = op_hash_mem(e->name, e->len);
	struct path_key key;
	struct path_node *n = path_of(ct, e, &key, hash);

	if (!n)
		return;
	if (n->cookie != c) {
		for (unsigned long x = n->cookie; x; x = ct->ent[x - 1]->prev) {
			if (ct->ent[x - 1]->prev == c) {
				ct->ent[x - 1]->prev = e->prev;
				break;
			}
		}
		return;
	}
	if (e->prev) {
		n->cookie = e->prev;
		return;
	}
	op_hashmap_remove(&ct->paths, &n->ent, &key);
	free(n);
}

void opd_cookie_forget(struct cookie_table *ct, unsigned long cookie)
{
	struct cookie_entry *e = opd_cookie_get(ct, cookie);

	if (!e)
		return;
	if (e->kind == CT_FILE)
		unlink_path(ct, cookie);
	entry_free(e);
	ct->ent[cookie - 1] = NULL;
	ct->live--;
	while (ct->first_live < ct->nr && !ct->ent[ct->first_live])
		ct->first_live++;
}

void opd_cookie_sweep_begin(struct cookie_table *ct)
{
	ct->sweep++;
}

size_t opd_cookie_sweep_idle(struct cookie_table *ct, uint64_t now, uint64_t grace_ns,
		     void (*forget)(void *arg, unsigned long cookie),
		     void *arg)
{
	size_t n = 0;

	for (size_t i = ct->first_live; i < ct->nr; i++) {
		struct cookie_entry *e = ct->ent[i];

		if (!e)
			continue;
		if (e->mark == ct->sweep) {
			e->idle_since = 0;
		} else if (!e->idle_since) {
			e->idle_since = now;
		} else if (now - e->idle_since >= grace_ns) {
			forget(arg, i + 1);
			n++;
		}
	}
	return n;
}

void opd_cookie_define(struct cookie_table *ct, unsigned long cookie,
	       struct word_buffer *wb)
{
	struct cookie_entry *e = opd_cookie_get(ct, cookie);

	if (!e || e->stream_gen == ct->gen)
		return;
	e->stream_gen = ct->gen;
	opd_words_reserve(wb, 7 + opd_words_string_words(e->len));
	opd_words_push2(wb, OP_ESCAPE_CODE,
		 e->kind == CT_ANON ? OP_CODE_ANON_DEF : OP_CODE_COOKIE_DEF);
	opd_words_push(wb, cookie);
	if (e->kind == CT_ANON) {
		opd_words_push2(wb, e->tgid, e->start);
		opd_words_push(wb, e->end);
	}
	opd_words_push(wb, e->len);
	opd_words_push_string(wb, e->name, e->len);
}
