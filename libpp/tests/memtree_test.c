/*
 * Sample files in memory (pp_memtree): once attached, pp_files_select
 * lists them and pp_samples_read reads them as files on disk; counts
 * fold by key however many samples are added; another build of a file,
 * or a path outside the tree, is refused; freed, the tree is gone.
 */
#include "config.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "op_sample_file.h"
#include "pp_files.h"
#include "pp_memtree.h"
#include "pp_sample_file.h"
#include "pp_samples.h"
#include "check.h"

static char const *dir;
static char cur[300], samples[256];

#define APP "{root}/bin/a/{dep}/{root}/bin/a/CPU_CLOCK.100000.0.all.all.all"
#define LIB "{root}/bin/a/{dep}/{root}/lib/libc.so.6/CPU_CLOCK.100000.0.all.all.all"

static char *at(char const *rel)
{
	static char buf[512];

	snprintf(buf, sizeof(buf), "%s/%s", cur, rel);
	return buf;
}

/* The files the empty specification selects in dir: their number, -1. */
static long selected(struct pp_filelist *l)
{
	struct pp_select_opts o = { dir, false, false, NULL, NULL };
	struct pp_strlist notes = { 0 };
	struct pp_spec spec;
	char err[1024];
	long n;

	if (pp_spec_parse(&spec, 0, NULL, err, sizeof(err)))
		return -2;
	n = pp_files_select(&spec, &o, l, &notes, err, sizeof(err)) ? -1 : (long)l->n;
	pp_spec_free(&spec);
	pp_strlist_free(&notes);
	return n;
}

int main(void)
{
	struct opd_header h, other, got;
	struct pp_samples s = { 0 };
	struct pp_memfile *app, *lib;
	struct pp_memtree *t;
	struct pp_filelist l;
	char err[1024] = "";
	long n;

	dir = check_tmpdir();
	snprintf(samples, sizeof(samples), "%s/samples", dir);
	snprintf(cur, sizeof(cur), "%s/current", samples);
	if (mkdir(samples, 0700) || mkdir(cur, 0700))
		return 99;
	op_header_init(&h);
	h.cpu_type = 4;
	h.ctr_count = 100000;
	h.mtime = 77;
	t = pp_memtree_new(cur);
	app = pp_memtree_open(t, at(APP), &h, err, sizeof(err));
	lib = pp_memtree_open(t, at(LIB), &h, err, sizeof(err));
	check(app && lib && pp_memtree_size(t) == 2, "two files made (%s)", err);
	check(pp_memtree_open(t, at(APP), &h, err, sizeof(err)) == app &&
	      pp_memtree_size(t) == 2, "a path opened again is the same file");
	other = h;
	other.mtime = 78;
	check(!pp_memtree_open(t, at(APP), &other, err, sizeof(err)) &&
	      strstr(err, "another build"), "another build's header is refused: %s", err);
	check(!pp_memtree_open(t, "/elsewhere/x", &h, err, sizeof(err)) &&
	      strstr(err, "/elsewhere/x"), "a path outside the tree is refused: %s", err);
	check(!pp_memtree_open(t, cur, &h, err, sizeof(err)),
	      "the root itself is no file");
	/* 100,000 samples at one key, 10,000 distinct keys, both folded */
	for (int i = 0; i < 100000; i++)
		pp_memtree_add(app, 0x10, 1);
	for (uint64_t k = 0; k < 10000; k++)
		pp_memtree_add(lib, k * 4099, 2);
	pp_memtree_add(app, 0x20, UINT32_MAX);
	pp_memtree_add(app, 0x20, 5);

	check(selected(&l) == -1, "not attached: nothing on disk is selected");
	pp_memtree_attach(t);
	pp_memtree_attach(t);
	n = selected(&l);
	check(n == 2 && !strcmp(l.v[0].path, at(APP)) &&
	      !strcmp(l.v[1].path, at(LIB)) && !strcmp(l.v[1].name.image_name, "/lib/libc.so.6"),
	      "attached: both files are selected and parsed as on disk");
	if (n >= 0)
		pp_files_free(&l);
	check(!pp_samples_read(&s, at(APP), &got, err, sizeof(err)) &&
	      got.mtime == 77 && got.ctr_count == 100000,
	      "an in-memory file's header is read (%s)", err);
	pp_samples_finish(&s);
	check(s.n == 2 && s.v[0].key == 0x10 && s.v[0].count == 100000 &&
	      s.v[1].count == (uint64_t)UINT32_MAX + 5,
	      "its counts folded by key, past 2^32 without saturating");
	pp_samples_free(&s);
	check(!pp_samples_read(&s, at(LIB), &got, err, sizeof(err)), "the other read");
	pp_samples_finish(&s);
	check(s.n == 10000 && pp_samples_total(&s) == 20000, "10,000 keys, 20,000 samples");
	pp_samples_free(&s);

	pp_memtree_free(t);
	check(pp_samples_read(&s, at(APP), &got, err, sizeof(err)) == -1 &&
	      strstr(err, "CPU_CLOCK"), "freed: the path is read from disk, where it is not: %s", err);
	check(selected(&l) == -1, "freed: nothing is selected");
	rmdir(cur);
	rmdir(samples);
	rmdir(dir);
	return check_done();
}
