/*
 * The fleet's whole stacks (see pp_fleet.h) made into the stack set that
 * --stacks, --folded, --pprof and --flame read (pp_stacks.h). A frame is
 * "image\tsymbol" as the shipper named it, so here a frame is one
 * (image, symbol), with (for --pprof) the offset one of its samples had.
 *
 * Two queries: the distinct frames, each once with its cityHash64 as its
 * id (hex-encoded: names are other machines' bytes, and hex needs no
 * array parser), then the stacks grouped by application and frames, each
 * as its frames' ids, outermost first. A busy machine's stacks repeat the
 * same long names thousands of times: by id the answer is a fraction of
 * the size. Two frames with one id are refused, as is an id the first
 * answer did not give. Only one event: counts of two do not add up (the
 * first one, as locally; a note names the others).
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

/* A frame by its id (the server's cityHash64 of its name). */
struct id_ent {
	struct op_hashmap_entry ent;
	uint64_t id;
	size_t frame;
};

/* A frame's key before any stack gave it an offset. */
#define NO_KEY UINT64_MAX

struct load {
	struct pp_stacks *st;
	struct pp_fleet_spec const *fs;
	bool lines;
	struct op_hashmap frames, images, procs, ids;
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
static size_t frame_of(struct load *l, char const *text)
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
	*f = (struct pp_sframe){ .image = image_of(l, image), .key = NO_KEY };
	free(image);
	f->func = func_of(l, f->image, tab ? tab + 1 : "");
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

static int cmp_id(void const *data, struct op_hashmap_entry const *a,
		  struct op_hashmap_entry const *b, void const *keydata)
{
	(void)data;
	(void)keydata;
	return OP_HASHMAP_ENTRY(a, struct id_ent, ent)->id !=
	       OP_HASHMAP_ENTRY(b, struct id_ent, ent)->id;
}

static struct id_ent *id_find(struct load *l, uint64_t id)
{
	struct id_ent k = { .id = id };

	op_hashmap_entry_init(&k.ent, op_hash_u64(id));
	return OP_HASHMAP_ENTRY(op_hashmap_get(&l->ids, &k.ent, NULL),
				struct id_ent, ent);
}

/* A row of the frames' answer: id, name (hex). */
static int take_frame(struct load *l, struct pp_fleet_rows *r, char *err,
		      size_t errlen)
{
	struct id_ent *e;
	uint64_t id;
	char *name;

	if (pp_fleet_u64(r, 0, &id, err, errlen))
		return -1;
	name = op_xstrdup(r->field[1]);
	if (unhex(name) || id_find(l, id)) {
		snprintf(err, errlen, "row %zu of the frames: %s", r->row,
			 id_find(l, id) ? "an id given twice" : "a bad name");
		free(name);
		return -1;
	}
	e = op_xcalloc(1, sizeof(*e));
	e->id = id;
	e->frame = frame_of(l, name);
	op_hashmap_entry_init(&e->ent, op_hash_u64(id));
	op_hashmap_add(&l->ids, &e->ent);
	free(name);
	return 0;
}

/* The next number of a space-separated list at *p; false at its end. */
static bool next_u64(char const **p, uint64_t *v, bool *bad)
{
	char *end;

	while (**p == ' ')
		(*p)++;
	if (!**p)
		return false;
	*v = strtoull(*p, &end, 10);
	*bad = end == *p || (*end && *end != ' ');
	*p = end;
	return !*bad;
}

/* A row of the stacks' answer: app, frame ids, offsets, samples. */
static int take_row(struct load *l, struct pp_fleet_rows *r, char *err,
		    size_t errlen)
{
	struct pp_stacks *st = l->st;
	size_t frames[4096], n = 0;
	char const *ids = r->field[1], *offs = r->field[2];
	struct pp_sstack *s;
	bool bad = false;
	uint64_t count, id, off;
	char *app;

	if (pp_fleet_u64(r, 3, &count, err, errlen))
		return -1;
	while (next_u64(&ids, &id, &bad)) {
		struct id_ent const *e = id_find(l, id);

		if (!e || n == sizeof(frames) / sizeof(frames[0])) {
			bad = true;
			break;
		}
		frames[n++] = e->frame;
	}
	if (bad) {
		snprintf(err, errlen, "row %zu of the stacks: a frame the "
			 "frames' answer did not give, or over %zu frames",
			 r->row, sizeof(frames) / sizeof(frames[0]));
		return -1;
	}
	if (!n || !count)
		return 0;
	/* not separated by application: the root's image names it */
	app = op_xstrdup(*r->field[0] ? r->field[0] :
			 st->images[st->frames[frames[0]].image].path);
	OP_ALLOC_GROW(st->v, st->n + 1, l->alloc_stacks);
	s = &st->v[st->n++];
	*s = (struct pp_sstack){
		.frames = pp_stacks_alloc_frames(st, n), .nr_frames = n,
		.proc = proc_of(l, app), .count = count,
	};
	free(app);
	/* the rows are root first, a stack leaf first */
	for (size_t i = 0; i < n; i++) {
		struct pp_sframe *f = &st->frames[frames[i]];

		s->frames[n - 1 - i] = frames[i];
		if (next_u64(&offs, &off, &bad) && f->key == NO_KEY)
			f->key = off;
	}
	st->total += count;
	return 0;
}

/* Frames no stack gave an offset are at 0; each image's largest. */
static void finish_keys(struct pp_stacks *st)
{
	for (size_t i = 0; i < st->nr_frames; i++) {
		struct pp_sframe *f = &st->frames[i];

		if (f->key == NO_KEY)
			f->key = 0;
		if (f->key > st->images[f->image].max_key)
			st->images[f->image].max_key = f->key;
	}
}

/* The first (event, count) of the selection; a note names the others. */
static int choose_event(struct pp_fleet *f, struct pp_fleet_spec const *fs,
			char **event, uint64_t *count,
			struct pp_strlist *notes, char *err, size_t errlen)
{
	struct pp_fleet_rows r;
	char *body;
	struct pp_fleet_sql q;
	FILE *out = pp_fleet_sql_begin(&q);
	int rc;

	fprintf(out, "SELECT event, event_count FROM %s.stacks", f->database);
	pp_fleet_where(out, f, fs);
	fputs(" GROUP BY event, event_count ORDER BY event, event_count "
	      "FORMAT TabSeparated", out);
	rc = pp_fleet_ask_sql(f, &q, &body, &r, err, errlen);
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
	pp_fleet_rows_free(&r);
	if (!rc && !*event) {
		snprintf(err, errlen, "no stacks shipped to '%s' match the "
			 "specification", f->url);
		rc = -1;
	}
	if (rc < 0) {
		free(*event);
		*event = NULL;
		return -1;
	}
	return 0;
}

/* " WHERE ... AND event = E AND event_count = N": the stacks read. */
static void where_event(FILE *out, struct pp_fleet const *f,
			struct load const *l, char const *event,
			uint64_t count)
{
	pp_fleet_where(out, f, l->fs);
	fputs(" AND event = ", out);
	pp_fleet_sql_quote(out, event);
	fprintf(out, " AND event_count = %" PRIu64, count);
}

/* Each row of sql's answer (nf fields) through take. 0 or -1. */
static int read_answer(struct pp_fleet *f, struct load *l, char const *sql,
		       size_t nf,
		       int (*take)(struct load *, struct pp_fleet_rows *,
				   char *, size_t),
		       char *err, size_t errlen)
{
	struct pp_fleet_rows r;
	char *body;
	int rc = pp_fleet_ask(f, sql, &body, &r, err, errlen);

	while (rc >= 0 && (rc = pp_fleet_rows_next(&r, nf, err, errlen)) > 0)
		rc = take(l, &r, err, errlen) ? -1 : 0;
	free(body);
	pp_fleet_rows_free(&r);
	return rc < 0 ? -1 : 0;
}

static int read_stacks(struct pp_fleet *f, struct load *l, char const *event,
		       uint64_t count, char *err, size_t errlen)
{
	struct pp_fleet_sql q;
	FILE *out = pp_fleet_sql_begin(&q);
	char *sql;
	int rc;

	fprintf(out, "SELECT toString(cityHash64(fr)), hex(fr) FROM (SELECT "
		"DISTINCT arrayJoin(frames) AS fr FROM %s.stacks", f->database);
	where_event(out, f, l, event, count);
	fputs(") FORMAT TabSeparated", out);
	sql = pp_fleet_sql_end(&q);
	rc = read_answer(f, l, sql, 2, take_frame, err, errlen);
	free(sql);
	if (rc)
		return -1;
	out = pp_fleet_sql_begin(&q);
	/* offsets only for --pprof's addresses */
	fprintf(out, "SELECT app, arrayStringConcat(arrayMap(x -> toString("
		"cityHash64(x)), frames), ' '), %s, sum(samples) FROM %s.stacks",
		l->lines ? "arrayStringConcat(arrayMap(x -> toString(x), "
		"any(frame_offsets)), ' ')" : "''", f->database);
	where_event(out, f, l, event, count);
	fputs(" GROUP BY app, frames FORMAT TabSeparated", out);
	sql = pp_fleet_sql_end(&q);
	rc = read_answer(f, l, sql, 4, take_row, err, errlen);
	free(sql);
	finish_keys(l->st);
	return rc;
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
	if (fs->builds.n) {
		snprintf(err, errlen, "the stacks rows keep no build-id: "
			 "build-id: goes with the flat reports");
		return -1;
	}
	if (pp_fleet_info_read(f, fs, info, err, errlen) ||
	    choose_event(f, fs, &event, &count, notes, err, errlen))
		return -1;
	st->event = op_xasprintf("%s.%" PRIu64 ".0", event, count);
	st->start_time = info->first;
	op_hashmap_init(&l.frames, cmp_name, NULL, 0);
	op_hashmap_init(&l.images, cmp_name, NULL, 0);
	op_hashmap_init(&l.procs, cmp_name, NULL, 0);
	op_hashmap_init(&l.ids, cmp_id, NULL, 0);
	rc = read_stacks(f, &l, event, count, err, errlen);
	op_hashmap_clear(&l.frames, free_name);
	op_hashmap_clear(&l.images, free_name);
	op_hashmap_clear(&l.procs, free_name);
	op_hashmap_clear(&l.ids, (void (*)(struct op_hashmap_entry *))free);
	free(event);
	if (rc) {
		pp_stacks_free(st);
		return -1;
	}
	filter_stacks(&l);
	return 0;
}
