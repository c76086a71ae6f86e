/*
 * opreport --pprof=FILE: the stacks as a gzipped perftools.profiles
 * Profile (pprof_profile.proto, encoded by protobuf-c), for go tool
 * pprof, Pyroscope and Parca.
 *
 * Every image of the stacks is a Mapping with its file name and build-id,
 * placed at a base of its own (image number << 36) with file_offset 0,
 * so that address - memory_start is the frame's offset in the image's
 * sample key space: the file offset for binaries and libraries (what a
 * symboliser that fetches the file by build-id wants), the offset from
 * the image start for kernel images. A frame is a Location whose lines
 * are its inline chain, innermost first, the outermost named as the
 * flat profile names the symbol; pprof needs no symbolisation of its
 * own (has_functions). A stack whose unwinding stopped early ends, at
 * its root, in a location named by its stop label. Every string goes
 * through the printing rule of op_escape.h: protobuf strings must be
 * valid UTF-8, and pprof prints them to terminals.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "op_escape.h"
#include "op_events.h"
#include "op_file.h"
#include "op_hashmap.h"
#include "op_util.h"
#include "pp_pprof.h"
#include "pp_stacks_output.h"
#include "pprof_profile.pb-c.h"

#define IMAGE_SHIFT 36

typedef Perftools__Profiles__Profile Profile;
typedef Perftools__Profiles__ValueType ValueType;
typedef Perftools__Profiles__Sample Sample;
typedef Perftools__Profiles__Label Label;
typedef Perftools__Profiles__Mapping Mapping;
typedef Perftools__Profiles__Location Location;
typedef Perftools__Profiles__Line Line;
typedef Perftools__Profiles__Function Function;

struct str_ent {
	struct op_hashmap_entry ent;
	size_t idx;
};

/* A function of the profile: name and file, interned. */
struct fn_ent {
	struct op_hashmap_entry ent;
	int64_t name, file;
	size_t idx;
};

struct pb {
	Profile p;
	struct op_hashmap strs, fns;
	size_t alloc_strs, alloc_fns;
	Function *fn;            /* the functions, then pointers to them */
	size_t nr_fn;
	uint64_t *stop_loc;      /* per stop reason: its location id */
	struct pp_stacks const *st;
};

static int cmp_str(void const *data, struct op_hashmap_entry const *a,
		   struct op_hashmap_entry const *b, void const *key)
{
	struct pb const *pb = data;

	(void)b;
	return strcmp(pb->p.string_table[OP_HASHMAP_ENTRY(a, struct str_ent,
							    ent)->idx], key);
}

static int cmp_fn(void const *data, struct op_hashmap_entry const *a,
		  struct op_hashmap_entry const *b, void const *key)
{
	struct fn_ent const *x = OP_HASHMAP_ENTRY(a, struct fn_ent, ent);
	struct fn_ent const *y = OP_HASHMAP_ENTRY(b, struct fn_ent, ent);

	(void)data;
	(void)key;
	return x->name != y->name || x->file != y->file;
}

/* The index of s in the string table, escaped (op_escape.h): a protobuf
 * string must be valid UTF-8, and pprof prints these to a terminal. */
static int64_t str(struct pb *pb, char const *raw)
{
	struct str_ent key, *e;
	struct op_hashmap_entry *hit;
	char *s = op_escape(raw ? raw : "");

	op_hashmap_entry_init(&key.ent, op_hash_str(s));
	hit = op_hashmap_get(&pb->strs, &key.ent, s);
	if (hit) {
		free(s);
		return (int64_t)OP_HASHMAP_ENTRY(hit, struct str_ent, ent)->idx;
	}
	OP_ALLOC_GROW(pb->p.string_table, pb->p.n_string_table + 1,
		      pb->alloc_strs);
	pb->p.string_table[pb->p.n_string_table] = s;
	e = op_xcalloc(1, sizeof(*e));
	e->idx = pb->p.n_string_table++;
	op_hashmap_entry_init(&e->ent, key.ent.hash);
	op_hashmap_add(&pb->strs, &e->ent);
	return (int64_t)e->idx;
}

/* The id of the function named so in file. */
static uint64_t function(struct pb *pb, char const *name, char const *file)
{
	struct fn_ent key = { .name = str(pb, name), .file = str(pb, file) };
	struct op_hashmap_entry *hit;
	struct fn_ent *e;
	Function *f;

	op_hashmap_entry_init(&key.ent, op_hash_u64((uint64_t)key.name << 32 ^
						    (uint64_t)key.file));
	hit = op_hashmap_get(&pb->fns, &key.ent, NULL);
	if (hit)
		return OP_HASHMAP_ENTRY(hit, struct fn_ent, ent)->idx + 1;
	OP_ALLOC_GROW(pb->fn, pb->nr_fn + 1, pb->alloc_fns);
	f = &pb->fn[pb->nr_fn];
	perftools__profiles__function__init(f);
	f->id = pb->nr_fn + 1;
	f->name = key.name;
	f->system_name = key.name;
	f->filename = key.file;
	e = op_xcalloc(1, sizeof(*e));
	*e = key;
	e->idx = pb->nr_fn++;
	op_hashmap_add(&pb->fns, &e->ent);
	return f->id;
}

static ValueType *value_type(char const *type, char const *unit,
			     struct pb *pb)
{
	ValueType *v = op_xcalloc(1, sizeof(*v));

	perftools__profiles__value_type__init(v);
	v->type = str(pb, type);
	v->unit = str(pb, unit);
	return v;
}

/* A clock event counts nanoseconds: its samples are cpu time too. */
static bool clock_event(char const *event, int64_t *period)
{
	char const *dot = strchr(event, '.');

	*period = dot ? strtoll(dot + 1, NULL, 10) : 0;
	return (!strncmp(event, "CPU_CLOCK.", 10) ||
		!strncmp(event, "TASK_CLOCK.", 11)) && *period > 0;
}

static void add_types(struct pb *pb)
{
	Profile *p = &pb->p;
	char *name = op_xstrdup(pb->st->event);
	int64_t period;
	bool clock = clock_event(pb->st->event, &period);
	bool off_cpu = op_event_key_is_off_cpu(pb->st->event);

	*strchr(name, '.') = '\0';
	if (off_cpu) {
		/* counts are blocked time in microseconds, not samples */
		p->n_sample_type = 1;
		p->sample_type = op_xcalloc(1, sizeof(*p->sample_type));
		p->sample_type[0] = value_type("off-cpu", "microseconds", pb);
		p->period_type = value_type("off-cpu", "microseconds", pb);
		p->period = 1;
		p->time_nanos = pb->st->start_time * 1000000000;
		free(name);
		return;
	}
	p->n_sample_type = clock ? 2 : 1;
	p->sample_type = op_xcalloc(2, sizeof(*p->sample_type));
	p->sample_type[0] = value_type("samples", "count", pb);
	if (clock) {
		p->sample_type[1] = value_type("cpu", "nanoseconds", pb);
		p->period_type = value_type("cpu", "nanoseconds", pb);
	} else {
		p->period_type = value_type(name, "events", pb);
	}
	p->period = period;
	p->time_nanos = pb->st->start_time * 1000000000;
	free(name);
}

static void add_mappings(struct pb *pb)
{
	struct pp_stacks const *st = pb->st;
	Profile *p = &pb->p;
	Mapping *m;

	if (!st->nr_images)
		return;
	m = op_xcalloc(st->nr_images + 1, sizeof(*m));
	p->mapping = op_xcalloc(st->nr_images + 1, sizeof(*p->mapping));
	p->n_mapping = st->nr_images;
	for (size_t i = 0; i < st->nr_images; i++) {
		struct pp_simage const *g = &st->images[i];

		perftools__profiles__mapping__init(&m[i]);
		m[i].id = i + 1;
		m[i].memory_start = (uint64_t)(i + 1) << IMAGE_SHIFT;
		m[i].memory_limit = m[i].memory_start + g->max_key + 1;
		/* a region has no file: its name as reports give it */
		m[i].filename = str(pb, g->anon ? g->display : g->path);
		m[i].build_id = str(pb, g->build_id);
		m[i].has_functions = true;
		m[i].has_filenames = true;
		m[i].has_line_numbers = true;
		m[i].has_inline_frames = true;
		p->mapping[i] = &m[i];
	}
}

static Line *lines_of(struct pb *pb, struct pp_sframe const *f)
{
	Line *l = op_xcalloc(f->nr_lines + 1, sizeof(*l));

	for (size_t i = 0; i < f->nr_lines; i++) {
		perftools__profiles__line__init(&l[i]);
		l[i].function_id = function(pb, f->lines[i].func,
					    f->lines[i].file);
		l[i].line = f->lines[i].line;
	}
	return l;
}

/* Locations 1..nr_frames are the frames; the stop labels follow. */
static void add_locations(struct pb *pb)
{
	struct pp_stacks const *st = pb->st;
	Profile *p = &pb->p;
	size_t n = st->nr_frames + st->nr_stops;
	Location *loc;

	pb->stop_loc = op_xcalloc(st->nr_stops + 1, sizeof(*pb->stop_loc));
	if (!n)
		return;
	loc = op_xcalloc(n + 1, sizeof(*loc));
	p->location = op_xcalloc(n + 1, sizeof(*p->location));
	p->n_location = n;
	for (size_t i = 0; i < st->nr_frames; i++) {
		struct pp_sframe const *f = &st->frames[i];
		Line *l = lines_of(pb, f);

		perftools__profiles__location__init(&loc[i]);
		loc[i].id = i + 1;
		loc[i].mapping_id = f->image + 1;
		loc[i].address = ((uint64_t)(f->image + 1) << IMAGE_SHIFT) +
				 f->key;
		loc[i].n_line = f->nr_lines;
		loc[i].line = op_xcalloc(f->nr_lines + 1, sizeof(*loc[i].line));
		for (size_t k = 0; k < f->nr_lines; k++)
			loc[i].line[k] = &l[k];
		p->location[i] = &loc[i];
	}
	for (size_t i = 0; i < st->nr_stops; i++) {
		Location *s = &loc[st->nr_frames + i];
		Line *l = op_xcalloc(1, sizeof(*l));
		char *name = pp_stacks_stop_label(st->stops[i].reason);

		perftools__profiles__location__init(s);
		perftools__profiles__line__init(l);
		l->function_id = function(pb, name, NULL);
		free(name);
		s->id = st->nr_frames + i + 1;
		s->n_line = 1;
		s->line = op_xcalloc(1, sizeof(*s->line));
		s->line[0] = l;
		p->location[st->nr_frames + i] = s;
		pb->stop_loc[i] = s->id;
	}
}

static uint64_t stop_location(struct pb const *pb, uint32_t reason)
{
	for (size_t i = 0; i < pb->st->nr_stops; i++)
		if (pb->st->stops[i].reason == reason)
			return pb->stop_loc[i];
	return 0;
}

static void add_samples(struct pb *pb)
{
	struct pp_stacks const *st = pb->st;
	Profile *p = &pb->p;
	int64_t period = p->period;
	Sample *s;
	Label *lab;

	if (!st->n)
		return;
	s = op_xcalloc(st->n + 1, sizeof(*s));
	lab = op_xcalloc(2 * st->n + 1, sizeof(*lab));
	p->sample = op_xcalloc(st->n + 1, sizeof(*p->sample));
	p->n_sample = st->n;
	for (size_t i = 0; i < st->n; i++) {
		struct pp_sstack const *x = &st->v[i];
		uint64_t stop = x->stop ? stop_location(pb, x->stop) : 0;

		perftools__profiles__sample__init(&s[i]);
		s[i].location_id = op_xcalloc(x->nr_frames + 1,
					      sizeof(uint64_t));
		for (size_t k = 0; k < x->nr_frames; k++)
			s[i].location_id[s[i].n_location_id++] =
				x->frames[k] + 1;
		if (stop)
			s[i].location_id[s[i].n_location_id++] = stop;
		s[i].n_value = p->n_sample_type;
		s[i].value = op_xcalloc(2, sizeof(int64_t));
		s[i].value[0] = (int64_t)x->count;
		if (s[i].n_value > 1)
			s[i].value[1] = (int64_t)x->count * period;
		s[i].n_label = 2;
		s[i].label = op_xcalloc(2, sizeof(*s[i].label));
		for (int k = 0; k < 2; k++) {
			perftools__profiles__label__init(&lab[2 * i + k]);
			s[i].label[k] = &lab[2 * i + k];
		}
		lab[2 * i].key = str(pb, "process");
		lab[2 * i].str = str(pb, x->proc);
		lab[2 * i + 1].key = str(pb, "pid");
		lab[2 * i + 1].num = x->tgid;
		p->sample[i] = &s[i];
	}
}

static void finish_functions(struct pb *pb)
{
	pb->p.n_function = pb->nr_fn;
	pb->p.function = op_xcalloc(pb->nr_fn + 1, sizeof(*pb->p.function));
	for (size_t i = 0; i < pb->nr_fn; i++)
		pb->p.function[i] = &pb->fn[i];
}

static void free_pb(struct pb *pb)
{
	Profile *p = &pb->p;

	if (p->n_sample)
		free(p->sample[0]->label[0]);     /* the labels' one array */
	for (size_t i = 0; i < p->n_sample; i++) {
		free(p->sample[i]->location_id);
		free(p->sample[i]->value);
		free(p->sample[i]->label);
	}
	if (p->n_sample)
		free(p->sample[0]);               /* the samples' one array */
	free(p->sample);
	for (size_t i = 0; i < p->n_location; i++) {
		if (p->location[i]->n_line)
			free(p->location[i]->line[0]);
		free(p->location[i]->line);
	}
	if (p->n_location)
		free(p->location[0]);
	free(p->location);
	if (p->n_mapping)
		free(p->mapping[0]);
	free(p->mapping);
	for (size_t i = 0; i < p->n_sample_type; i++)
		free(p->sample_type[i]);
	free(p->sample_type);
	free(p->period_type);
	for (size_t i = 0; i < p->n_string_table; i++)
		free(p->string_table[i]);
	free(p->string_table);
	free(p->function);
	free(pb->fn);
	free(pb->stop_loc);
	op_hashmap_clear(&pb->strs, (void (*)(struct op_hashmap_entry *))free);
	op_hashmap_clear(&pb->fns, (void (*)(struct op_hashmap_entry *))free);
}

static int write_gz(char const *path, uint8_t const *buf, size_t len,
		    char *err, size_t errlen)
{
	int fd = op_open_output(path, 0644), zerr;
	gzFile gz = fd < 0 ? NULL : gzdopen(fd, "wb");

	if (!gz) {
		snprintf(err, errlen, "cannot write '%s': %s", path,
			 op_file_strerror(errno ? errno : ENOMEM));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	while (len) {
		unsigned chunk = len > (1u << 30) ? 1u << 30 : (unsigned)len;

		if (gzwrite(gz, buf, chunk) != (int)chunk) {
			snprintf(err, errlen, "writing '%s' failed: %s", path,
				 gzerror(gz, &zerr));
			gzclose(gz);
			return -1;
		}
		buf += chunk;
		len -= chunk;
	}
	if (gzclose(gz) != Z_OK) {
		snprintf(err, errlen, "writing '%s' failed", path);
		return -1;
	}
	return 0;
}

int pp_pprof_write(char const *path, struct pp_stacks const *st,
		   char *err, size_t errlen)
{
	struct pb pb = { .st = st };
	uint8_t *buf;
	size_t len;
	int rc;

	perftools__profiles__profile__init(&pb.p);
	op_hashmap_init(&pb.strs, cmp_str, &pb, 0);
	op_hashmap_init(&pb.fns, cmp_fn, &pb, 0);
	str(&pb, "");
	add_types(&pb);
	add_mappings(&pb);
	add_locations(&pb);
	add_samples(&pb);
	finish_functions(&pb);
	len = perftools__profiles__profile__get_packed_size(&pb.p);
	buf = op_xmalloc(len + 1);
	perftools__profiles__profile__pack(&pb.p, buf);
	rc = write_gz(path, buf, len, err, errlen);
	free(buf);
	free_pb(&pb);
	return rc;
}
