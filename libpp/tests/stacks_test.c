/*
 * Stacks of a profile (pp_stacks.h) and their outputs, under the unit
 * tests' sanitizers: a session with sample files (sfwriter.h) and a stack
 * table (the daemon's writer) whose binary is gone, so frames are named
 * "[image]"; selection by the sample files (another event, an image with
 * no selected file), paths, the stop label, folded text, the pprof
 * profile read back with protobuf-c, the flame graph page.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "op_sample_file.h"
#include "op_stacks.h"
#include "pp_flame.h"
#include "pp_locate.h"
#include "pp_pprof.h"
#include "pp_stacks_output.h"
#include "pprof_profile.pb-c.h"
#include "sfwriter.h"
#include "check.h"

static char const *dir;

#define PROG "{root}/nonexistent/bin/prog"
#define LIB "{root}/nonexistent/lib/libx.so"

static void sample_file(char const *rel, uint64_t key, uint32_t count)
{
	struct sf_header h = { .cpu_type = 4, .count = 100000 };
	struct sf_sample s = { key, count };
	char p[1024];

	snprintf(p, sizeof(p), "%s/samples/current/%s", dir, rel);
	check_assert(!sf_write(p, &h, &s, 1), "sample file %s", rel);
}

static void add(struct op_stacks_writer *w, char const *event, uint32_t n,
		uint32_t stop, char const *const *imgs, uint64_t const *offs,
		uint32_t nframes)
{
	struct op_stack_frame f[8];
	struct op_stack s = { .tgid = 42, .stop = stop, .nframes = nframes,
			      .frames = f };
	struct opd_header h;
	uint64_t id;

	op_header_init(&h);
	h.ctr_count = 100000;
	check_assert(!op_stacks_writer_image(w, PROG, NULL, &s.app), "app");
	for (uint32_t i = 0; i < nframes; i++) {
		check_assert(!op_stacks_writer_image(w, imgs[i], "abcd", &f[i].image),
			     "image");
		f[i].offset = offs[i];
	}
	check_assert(!op_stacks_writer_stack(w, &s, &id), "stack");
	check_assert(op_stacks_writer_count(w, event, &h, id, n) >= 0, "count");
}

static void write_session(void)
{
	static char const *const pp[] = { PROG, PROG, PROG };
	static char const *const lp[] = { LIB, PROG, PROG };
	static char const *const other[] = { "{root}/nonexistent/other" };
	char samples[1024];
	struct op_stacks_writer *w;

	sample_file(PROG "/{dep}/" PROG "/CPU_CLOCK.100000.0.all.all.all",
		    0x1000, 70);
	sample_file(PROG "/{dep}/" LIB "/CPU_CLOCK.100000.0.all.all.all",
		    0x500, 20);
	snprintf(samples, sizeof(samples), "%s/samples/current", dir);
	check_assert(!op_stacks_writer_open(samples, &w), "writer");
	add(w, "CPU_CLOCK.100000.0", 60, 0, pp, (uint64_t[]){ 0x1000, 0x2005, 0x3005 }, 3);
	add(w, "CPU_CLOCK.100000.0", 10, 1, pp, (uint64_t[]){ 0x1000 }, 1);
	add(w, "CPU_CLOCK.100000.0", 20, 0, lp, (uint64_t[]){ 0x500, 0x2005, 0x3005 }, 3);
	/* another event, and a leaf no selected file holds: left out */
	add(w, "BR_MISS.5000.0", 99, 0, pp, (uint64_t[]){ 0x1000 }, 1);
	add(w, "CPU_CLOCK.100000.0", 7, 0, other, (uint64_t[]){ 0x9000 }, 1);
	op_stacks_writer_close(w);
}

static char *slurp_gz(char const *path, size_t *len)
{
	gzFile gz = gzopen(path, "rb");
	size_t cap = 1 << 16;
	char *buf = malloc(cap);
	int n;

	*len = 0;
	while (gz && (n = gzread(gz, buf + *len, (unsigned)(cap - *len))) > 0) {
		*len += (size_t)n;
		if (*len == cap)
			buf = realloc(buf, cap *= 2);
	}
	if (gz)
		gzclose(gz);
	return buf;
}

static void check_pprof(struct pp_stacks const *st)
{
	char path[1024], err[512];
	Perftools__Profiles__Profile *p;
	uint64_t sum = 0;
	size_t len;
	char *buf;

	snprintf(path, sizeof(path), "%s/prof.pb.gz", dir);
	check(!pp_pprof_write(path, st, err, sizeof(err)), "pprof written");
	buf = slurp_gz(path, &len);
	p = perftools__profiles__profile__unpack(NULL, len, (uint8_t *)buf);
	check(p != NULL, "the profile unpacks (%zu bytes)", len);
	if (p) {
		for (size_t i = 0; i < p->n_sample; i++)
			sum += (uint64_t)p->sample[i]->value[0];
		check_int((long long)sum, 90, "pprof samples sum to 90");
		check_int((long long)p->n_sample_type, 2, "samples and cpu time");
		check_int((long long)p->period, 100000, "period");
		check_int((long long)p->n_mapping, 3, "a mapping per image");
		check_str(p->string_table[p->mapping[1]->build_id], "abcd",
			  "the mapping has the build-id");
		check_str(p->string_table[0], "", "string 0 is empty");
		perftools__profiles__profile__free_unpacked(p, NULL);
	}
	free(buf);
	snprintf(path, sizeof(path), "%s/nodir/prof.pb.gz", dir);
	check(pp_pprof_write(path, st, err, sizeof(err)) == -1 &&
	      strstr(err, "nodir"), "an unwritable file: error naming it");
}

static void check_outputs(struct pp_stacks *st)
{
	struct pp_stacks_print pr = { 0, 20, false };
	struct pp_spaths p;
	char *text = NULL, path[1024], err[512];
	size_t len = 0;
	FILE *f;

	pp_spaths_build(&p, st, PP_GROUP_NAME);
	check_int((long long)p.n, 3, "three paths");
	check_int((long long)p.v[0].count, 60, "the most common first");
	f = open_memstream(&text, &len);
	pp_stacks_folded(f, st, &p);
	fclose(f);
	check_contains(text, "prog;[prog];[prog];[prog] 60\n", "folded: frames without symbols");
	check_contains(text, "prog;[unwinding stopped: no_cfi];[prog] 10\n",
		       "folded: the stop label");
	check_contains(text, "prog;[prog];[prog];[libx.so] 20\n", "folded: the library");
	free(text);
	f = open_memstream(&text, &len);
	pp_stacks_report(f, st, &p, &pr, NULL);
	fclose(f);
	check_contains(text, "90 samples, 3 stacks, 3 distinct paths", "report header");
	check_contains(text, "no_cfi", "report: the stop reason");
	free(text);
	snprintf(path, sizeof(path), "%s/f.html", dir);
	check(!pp_flame_write(path, "t<>", st, &p, st, &p, err, sizeof(err)),
	      "flame page written");
	pp_spaths_free(&p);
}

int main(void)
{
	struct pp_select_opts so;
	struct pp_filelist files;
	struct pp_strlist notes = { 0 };
	struct pp_stacks st;
	struct pp_stacks_opts o = { 0 };
	struct pp_locate loc;
	struct pp_spec spec;
	char err[1024];
	int rc;

	dir = check_tmpdir();
	write_session();
	so = (struct pp_select_opts){ .session_dir = dir };
	check_assert(!pp_spec_parse(&spec, 0, NULL, err, sizeof(err)), "spec");
	check_assert(!pp_files_select(&spec, &so, &files, &notes, err, sizeof(err)),
		     "select: %s", err);
	check_assert(!pp_locate_init(&loc, NULL, NULL, err, sizeof(err)), "locate");
	o.locate = &loc;
	o.lines = true;
	rc = pp_stacks_load(&st, &files, &o, &notes, err, sizeof(err));
	check_int(rc, 0, "stacks loaded");
	if (!rc) {
		check_str(st.event, "CPU_CLOCK.100000.0", "the event");
		check_int((long long)st.total, 90, "90 samples selected");
		check_int((long long)st.n, 3, "three stacks");
		check_int((long long)st.nr_stops, 1, "one stop reason");
		check_pprof(&st);
		check_outputs(&st);
		pp_stacks_free(&st);
	}
	pp_locate_free(&loc);
	pp_files_free(&files);
	pp_spec_free(&spec);
	pp_strlist_free(&notes);
	check(!check_rmtree(dir), "cleaned up");
	return check_done();
}
