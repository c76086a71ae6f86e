/*
 * Path interning for the producer side (see cookie_table.h). Lookups run
 * once per mmap record, not per sample: samples carry the cookie found in
 * the process maps, so a plain open-addressing table is enough.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cookie_table.h"
#include "op_message.h"
#include "op_stream.h"
#include "word_buffer.h"

void ct_init(struct cookie_table *ct)
{
	memset(ct, 0, sizeof(*ct));
	ct->gen = 1;
	ct->hash_mask = 255;
	ct->hash = op_xcalloc(ct->hash_mask + 1, sizeof(*ct->hash));
}

void ct_free(struct cookie_table *ct)
{
	for (size_t i = 0; i < ct->nr; i++)
		free(ct->ent[i].name);
	free(ct->ent);
	free(ct->hash);
	memset(ct, 0, sizeof(*ct));
}

/* FNV-1a: short paths, few lookups; anything reasonable will do. */
static size_t hash_path(char const *s, size_t len)
{
	uint64_t h = 14695981039346656037ULL;

	for (size_t i = 0; i < len; i++) {
		h ^= (unsigned char)s[i];
		h *= 1099511628211ULL;
	}
	return (size_t)(h ^ (h >> 32));
}

static unsigned long add_entry(struct cookie_table *ct, char const *name,
			       size_t len, enum ct_kind kind)
{
	struct cookie_entry *e;

	if (ct->nr == ct->cap) {
		ct->cap = ct->cap ? ct->cap * 2 : 64;
		ct->ent = op_xrealloc(ct->ent, ct->cap * sizeof(*ct->ent));
	}
	e = &ct->ent[ct->nr];
	memset(e, 0, sizeof(*e));
	e->name = op_xmalloc(len + 1);
	memcpy(e->name, name, len);
	e->name[len] = '\0';
	e->len = len;
	e->kind = kind;
	return ++ct->nr;
}

static void rehash(struct cookie_table *ct)
{
	size_t mask = ct->hash_mask * 2 + 1;
	unsigned long *hash = op_xcalloc(mask + 1, sizeof(*hash));

	for (size_t i = 0; i <= ct->hash_mask; i++) {
		unsigned long c = ct->hash[i];
		struct cookie_entry *e;
		size_t h;

		if (!c)
			continue;
		e = &ct->ent[c - 1];
		for (h = hash_path(e->name, e->len) & mask; hash[h];
		     h = (h + 1) & mask)
			;
		hash[h] = c;
	}
	free(ct->hash);
	ct->hash = hash;
	ct->hash_mask = mask;
}

unsigned long ct_intern_file(struct cookie_table *ct, char const *path,
			     size_t len, struct ct_file_id id)
{
	size_t h = hash_path(path, len) & ct->hash_mask;
	unsigned long c;

	for (; (c = ct->hash[h]); h = (h + 1) & ct->hash_mask) {
		struct cookie_entry *e = &ct->ent[c - 1];

		if (e->len != len || memcmp(e->name, path, len))
			continue;
		if (!id.ino || (e->dev == id.dev && e->ino == id.ino))
			return c;
		if (!e->ino) {
			e->dev = id.dev;
			e->ino = id.ino;
			return c;
		}
		/* the path names another file now: a new cookie takes
		 * the path's slot (add_entry may move ent[]) */
		c = add_entry(ct, path, len, CT_FILE);
		ct->ent[c - 1].dev = id.dev;
		ct->ent[c - 1].ino = id.ino;
		ct->hash[h] = c;
		return c;
	}
	c = add_entry(ct, path, len, CT_FILE);
	ct->ent[c - 1].dev = id.dev;
	ct->ent[c - 1].ino = id.ino;
	ct->hash[h] = c;
	if (++ct->nr_files * 2 > ct->hash_mask)
		rehash(ct);
	return c;
}

unsigned long ct_intern(struct cookie_table *ct, char const *path, size_t len)
{
	return ct_intern_file(ct, path, len, (struct ct_file_id){ 0, 0 });
}

unsigned long ct_new_anon(struct cookie_table *ct, unsigned long tgid,
			  unsigned long start, unsigned long end,
			  char const *name)
{
	unsigned long c = add_entry(ct, name, strlen(name), CT_ANON);
	struct cookie_entry *e = &ct->ent[c - 1];

	e->tgid = tgid;
	e->start = start;
	e->end = end;
	return c;
}

struct cookie_entry *ct_get(struct cookie_table *ct, unsigned long cookie)
{
	if (cookie == OP_NO_COOKIE || cookie > ct->nr)
		return NULL;
	return &ct->ent[cookie - 1];
}

void ct_new_stream(struct cookie_table *ct)
{
	ct->gen++;
}

void ct_define(struct cookie_table *ct, unsigned long cookie,
	       struct word_buffer *wb)
{
	struct cookie_entry *e = ct_get(ct, cookie);

	if (!e || e->stream_gen == ct->gen)
		return;
	e->stream_gen = ct->gen;
	wb_reserve(wb, 7 + wb_string_words(e->len));
	wb_push2(wb, OP_ESCAPE_CODE,
		 e->kind == CT_ANON ? OP_CODE_ANON_DEF : OP_CODE_COOKIE_DEF);
	wb_push(wb, cookie);
	if (e->kind == CT_ANON) {
		wb_push2(wb, e->tgid, e->start);
		wb_push(wb, e->end);
	}
	wb_push(wb, e->len);
	wb_push_string(wb, e->name, e->len);
}
