/*
 * The fleet's whole stacks (see pp_fleet.h) made into the stack set that
 * --stacks, --folded, --pprof and --flame read (pp_stacks.h). The server
 * groups the stacks by application and frames; a frame is "image\tsymbol"
 * as the shipper named it, outermost first, so here a frame is one
 * (image, symbol) with the offset one of its samples had (pprof's
 * address). Frames travel hex-encoded: names are other machines' bytes,
 * and hex needs no array parser. Only one event: counts of two do not
 * add up (the first one, as locally; a note names the others).
 */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "op_hashmap.h"
#include "op_util.h"
#include "pp_files.h"
#include "pp_fleet_int.h"
#include "pp_notes.h"

struct name_ent {
	struct op_hashmap_entry ent;
	char *key;
	size_t idx;
};

struct load {
	struct pp_stacks *st;
	struct pp_fleet_spec const *fs;
	bool lines;
	struct op_hashmap frames, images, procs;
	size_t alloc_images, alloc_frames, alloc_stacks, alloc_procs;
};

static int cmp_name(void const *data, struct op_hashmap_entry const *a,
		    struct op_hashmap_entry const *b, void const *keydata)
{
	(void)data;
	return strcmp(OP_HASHMAP_ENTRY(a, struct name_ent, ent)->key,
		      keydata ? keydata :
		      OP_HASHMAP_ENTRY(b, struct name_ent, ent)->key);
}

/* The index of key in map; *added when it is new (as idx next). */
static size_t intern(struct op_hashmap *map, char const *key, size_t next,
		     bool *added)
{
	struct name_ent k, *e;
	struct op_hashmap_entry *hit;

	op_hashmap_entry_init(&k.ent, op_hash_str(key));
	hit = op_hashmap_get(map, &k.ent, key);
	*added = !hit;
	if (hit)
		return OP_HASHMAP_ENTRY(hit, struct name_ent, ent)->idx;
	e = op_xcalloc(1, sizeof(*e));
	e->key = op_xstrdup(key);
	e->idx = next;
	op_hashmap_entry_init(&e->ent, k.ent.hash);
	op_hashmap_add(map, &e->ent);
	return next;
}

static void free_name(struct op_hashmap_entry *e)
{
	struct name_ent *n = OP_HASHMAP_ENTRY(e, struct name_ent, ent);

	free(n->key);
	free(n);
}

static char const *base_of(char const *path)
{
	char const *s = strrchr(path, '/');

	return s && s[1] ? s + 1 : path;
}

static size_t image_of(struct load *l, char const *name)
{
	struct pp_stacks *st = l->st;
	bool added;
	size_t i = intern(&l->images, name, st->nr_images, &added);

	if (added) {
		OP_ALLOC_GROW(st->images, st->nr_images + 1, l->alloc_images);
		st->images[st->nr_images++] = (struct pp_simage){
			.display = op_xstrdup(name),
			.base = op_xstrdup(base_of(name)),
			.path = op_xstrdup(name),
			.kern = name[0] == '[' || !strncmp(name, "/lib/modules/", 13),
		};
	}
	return i;
}

/* A function per (image, name): frames are named, not addressed. */
static size_t func_of(struct load *l, size_t image, char const *sym)
{
	struct pp_stacks *st = l->st;
	struct pp_simage const *g = &st->images[image];

	OP_ALLOC_GROW(st->funcs, st->nr_funcs + 1, st->alloc_funcs);
	st->funcs[st->nr_funcs] = (struct pp_sfunc){
		.name = *sym ? op_xstrdup(sym) : *g->base == '[' ?
			op_xstrdup(g->base) : op_xasprintf("[%s]", g->base),
		.image = g->display, .has_symbol = *sym != '\0',
	};
	return st->nr_funcs++;
}

/* The frame named text ("image\tsymbol"), made on first sight. */
static size_t frame_of(struct load *l, char const *text, uint64_t offset)
{
	struct pp_stacks *st = l->st;
	char const *tab = strchr(text, '\t');
	struct pp_sframe *f;
	char *image;
	bool added;
	size_t i = intern(&l->frames, text, st->nr_frames, &added);

	if (!added)
		return i;
	image = op_xasprintf("%.*s", (int)(tab ? tab - text : (long)strlen(text)),
			     text);
	OP_ALLOC_GROW(st->frames, st->nr_frames + 1, l->alloc_frames);
	f = &st->frames[st->nr_frames++];
	*f = (struct pp_sframe){ .image = image_of(l, image), .key = offset };
	free(image);
	f->func = func_of(l, f->image, tab ? tab + 1 : "");
	if (offset > st->images[f->image].max_key)
		st->images[f->image].max_key = offset;
	if (l->lines) {
		f->lines = op_xcalloc(1, sizeof(*f->lines));
		f->lines[0].func = op_xstrdup(st->funcs[f->func].name);
		f->nr_lines = 1;
	}
	return i;
}

static char const *proc_of(struct load *l, char const *app)
{
	struct pp_stacks *st = l->st;
	char const *name = base_of(app);
	bool added;
	size_t i = intern(&l->procs, name, st->nr_procs, &added);

	if (added) {
		OP_ALLOC_GROW(st->procs, st->nr_procs + 1, l->alloc_procs);
		st->procs[st->nr_procs++] = op_xstrdup(name);
	}
	return st->procs[i];
}

/* Hex "6c69..." in place into bytes; -1 when it is not hex. */
static int unhex(char *s)
{
	size_t n = strlen(s);
	char *out = s;

	if (n % 2)
		return -1;
	for (size_t i = 0; i < n; i += 2) {
		int hi = op_hex_digit(s[i]), lo = op_hex_digit(s[i + 1]);

		if (hi < 0 || lo < 0 || (!hi && !lo))
			return -1;
		*out++ = (char)(hi << 4 | lo);
	}
	*out = '\0';
	return 0;
}

/* One row: app, frames (hex, ' '), offsets (' '), samples. */
static int take_row(struct load *l, struct pp_fleet_rows *r, char *err,
		    size_t errlen)
{
	struct pp_stacks *st = l->st;
	struct pp_sstack *s;
	char *frames[4096], *offs = r->field[2], *save = NULL, *app;
	size_t n = 0;
	uint64_t count;

	if (pp_fleet_u64(r, 3, &count, err, errlen))
		return -1;
	for (char *t = strtok_r(r->field[1], " ", &save); t;
	     t = strtok_r(NULL, " ", &save)) {
		if (n == sizeof(frames) / sizeof(frames[0]) || unhex(t)) {
			snprintf(err, errlen, "row %zu of the answer: a stack "
				 "with a bad frame or over %zu frames", r->row,
				 sizeof(frames) / sizeof(frames[0]));
			return -1;
		}
		frames[n++] = t;
	}
	if (!n || !count)
		return 0;
	/* not separated by application: the root's image names it */
	app = *r->field[0] ? op_xstrdup(r->field[0]) :
	      op_xasprintf("%.*s", (int)strcspn(frames[0], "\t"), frames[0]);
	OP_ALLOC_GROW(st->v, st->n + 1, l->alloc_stacks);
	s = &st->v[st->n++];
	*s = (struct pp_sstack){
		.frames = pp_stacks_alloc_frames(st, n), .nr_frames = n,
		.proc = proc_of(l, app), .count = count,
	};
	free(app);
	/* the rows are root first, a stack leaf first */
	for (size_t i = 0; i < n; i++) {
		uint64_t off = strtoull(offs, &offs, 10);

		s->frames[n - 1 - i] = frame_of(l, frames[i], off);
	}
	st->total += count;
	return 0;
}

/* The first (event, count) of the selection; a note names the others. */
static int choose_event(struct pp_fleet *f, struct pp_fleet_spec const *fs,
			char **event, uint64_t *count,
			struct pp_strlist *notes, char *err, size_t errlen)
{
	struct pp_fleet_rows r;
	char *sql = NULL, *body;
	size_t len;
	FILE *out = open_memstream(&sql, &len);
	int rc;

	if (!out)
		op_die("out of memory");
	fprintf(out, "SELECT event, event_count FROM %s.stacks", f->database);
	pp_fleet_where(out, f, fs);
	fputs(" GROUP BY event, event_count ORDER BY event, event_count "
	      "FORMAT TabSeparated", out);
	fclose(out);
	rc = pp_fleet_ask(f, sql, &body, &r, err, errlen);
	free(sql);
	*event = NULL;
	while (rc >= 0 && (rc = pp_fleet_rows_next(&r, 2, err, errlen)) > 0) {
		if (!*event) {
			if (pp_fleet_u64(&r, 1, count, err, errlen)) {
				rc = -1;
				break;
			}
			*event = op_xstrdup(r.field[0]);
		} else {
			pp_note(notes, "stacks of event %s count %s left out: "
				"only %s's are shown", r.field[0], r.field[1],
				*event);
		}
	}
	free(body);
	if (!rc && !*event) {
		snprintf(err, errlen, "no stacks shipped to '%s' match the "
			 "specification", f->url);
		rc = -1;
	}
	return rc < 0 ? -1 : 0;
}

static int read_stacks(struct pp_fleet *f, struct load *l, char const *event,
		       uint64_t count, char *err, size_t errlen)
{
	struct pp_fleet_rows r;
	char *sql = NULL, *body;
	size_t len;
	FILE *out = open_memstream(&sql, &len);
	int rc;

	if (!out)
		op_die("out of memory");
	fprintf(out, "SELECT app, arrayStringConcat(arrayMap(x -> hex(x), "
		"frames), ' ') AS fr, arrayStringConcat(arrayMap(x -> "
		"toString(x), any(frame_offsets)), ' '), sum(samples) FROM "
		"%s.stacks", f->database);
	pp_fleet_where(out, f, l->fs);
	fputs(" AND event = ", out);
	pp_fleet_sql_quote(out, event);
	fprintf(out, " AND event_count = %" PRIu64 " GROUP BY app, frames "
		"FORMAT TabSeparated", count);
	fclose(out);
	rc = pp_fleet_ask(f, sql, &body, &r, err, errlen);
	free(sql);
	while (rc >= 0 && (rc = pp_fleet_rows_next(&r, 4, err, errlen)) > 0)
		rc = take_row(l, &r, err, errlen) ? -1 : 0;
	free(body);
	return rc < 0 ? -1 : 0;
}

/* Whether the image filters keep a stack: its leaf's image and its
 * application, as a sample file holding the leaf would be kept. */
static void filter_stacks(struct load *l)
{
	struct pp_stacks *st = l->st;
	struct pp_spec const *s = &l->fs->spec;
	size_t out = 0;

	if (!s->given[PP_TAG_IMAGE] && !s->given[PP_TAG_IMAGE_EXCLUDE] &&
	    !s->given[PP_TAG_LIB_IMAGE] && !s->given[PP_TAG_LIB_IMAGE_EXCLUDE] &&
	    !s->given[PP_TAG_BARE])
		return;
	st->total = 0;
	for (size_t i = 0; i < st->n; i++) {
		struct pp_sstack *x = &st->v[i];
		char const *leaf = st->images[st->frames[x->frames[0]].image].path;
		char const *root = st->images[st->frames[x->frames[x->nr_frames - 1]].image].path;
		struct pp_strlist const *v = s->v;
		bool keep = true;

		if (s->given[PP_TAG_LIB_IMAGE])
			keep = pp_image_match(&v[PP_TAG_LIB_IMAGE], leaf);
		if (keep && s->given[PP_TAG_LIB_IMAGE_EXCLUDE])
			keep = !pp_image_match(&v[PP_TAG_LIB_IMAGE_EXCLUDE], leaf);
		if (keep && s->given[PP_TAG_IMAGE])
			keep = pp_image_match(&v[PP_TAG_IMAGE], root);
		if (keep && s->given[PP_TAG_IMAGE_EXCLUDE])
			keep = !pp_image_match(&v[PP_TAG_IMAGE_EXCLUDE], root);
		if (keep && s->given[PP_TAG_BARE])
			keep = pp_image_match(&v[PP_TAG_BARE], leaf) ||
			       pp_image_match(&v[PP_TAG_BARE], root);
		if (keep) {
			st->v[out++] = *x;
			st->total += x->count;
		}
	}
	st->n = out;
}

int pp_fleet_stacks(struct pp_fleet *f, struct pp_fleet_spec const *fs,
		    bool lines, struct pp_stacks *st,
		    struct pp_fleet_info *info, struct pp_strlist *notes,
		    char *err, size_t errlen)
{
	struct load l = { .st = st, .fs = fs, .lines = lines };
	uint64_t count = 0;
	char *event;
	int rc;

	memset(st, 0, sizeof(*st));
	if (pp_fleet_info_read(f, fs, info, err, errlen) ||
	    choose_event(f, fs, &event, &count, notes, err, errlen))
		return -1;
	st->event = op_xasprintf("%s.%" PRIu64 ".0", event, count);
	st->start_time = info->first;
	op_hashmap_init(&l.frames, cmp_name, NULL, 0);
	op_hashmap_init(&l.images, cmp_name, NULL, 0);
	op_hashmap_init(&l.procs, cmp_name, NULL, 0);
	rc = read_stacks(f, &l, event, count, err, errlen);
	op_hashmap_clear(&l.frames, free_name);
	op_hashmap_clear(&l.images, free_name);
	op_hashmap_clear(&l.procs, free_name);
	free(event);
	if (rc) {
		pp_stacks_free(st);
		return -1;
	}
	filter_stacks(&l);
	return 0;
}
