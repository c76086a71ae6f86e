/*
 * Selecting sample files: sessions, every matching stage, -x, callgraph
 * files left out (or kept apart and matched by the same stages),
 * unparsable names noted, and the message that names the stage which
 * emptied the selection. An archive's manifest parsed as hostile input.
 */
#include "config.h"

#include <stdlib.h>

#include "pp_archive.h"
#include "pp_files.h"
#include "pp_invert.h"
#include "sfwriter.h"
#include "check.h"

static char const *dir;

static void mk(char const *session, char const *rel)
{
	struct sf_header h = { .cpu_type = 4, .count = 100000 };
	struct sf_sample s = { 1, 1 };
	char p[1024];

	snprintf(p, sizeof(p), "%s/samples/%s/%s", dir, session, rel);
	if (sf_write(p, &h, &s, 1))
		printf("# cannot write %s\n", p);
}

/* With callgraph: whether sel() keeps {cg} files, how many it kept. */
static bool sel_cg;
static long sel_nr_cg;

/* Select with the given spec words; returns the count, -1 on error. */
static long sel(char const *words, bool x, struct pp_strlist *notes,
		char *err, size_t errlen)
{
	char const *argv[8];
	char buf[256], *save = NULL;
	struct pp_select_opts o = { dir, x, sel_cg, NULL, NULL };
	struct pp_filelist l;
	struct pp_spec spec;
	int argc = 0;
	long n;

	snprintf(buf, sizeof(buf), "%s", words);
	for (char *w = strtok_r(buf, " ", &save); w; w = strtok_r(NULL, " ", &save))
		argv[argc++] = w;
	if (pp_spec_parse(&spec, argc, argv, err, errlen))
		return -2;
	n = pp_files_select(&spec, &o, &l, notes, err, errlen) ? -1 : (long)l.n;
	sel_nr_cg = n >= 0 ? (long)l.nr_cg : -1;
	if (n >= 0)
		pp_files_free(&l);
	pp_spec_free(&spec);
	return n;
}

/* pp_archive_manifest_parse of text: its return, samples in *out */
static int manifest(char const *text, char **out, char *err, size_t errlen)
{
	err[0] = '\0';
	return pp_archive_manifest_parse(text, strlen(text), out, err, errlen);
}

static void test_files__manifest(void)
{
	static struct { char const *text, *err; } const bad[] = {
		{ "", "no format= line" },
		{ "samples=/x/samples\n", "no format= line" },
		{ "format=2\n", "format 2: made by a later oparchive" },
		{ "format=99999999999999999999999\n", "made by a later oparchive" },
		{ "format=\n", "line 1: format is not a number" },
		{ "format=-1\n", "line 1: format is not a number" },
		{ "format=1x\n", "line 1: format is not a number" },
		{ "format=1\ngarbage\n", "line 2: not key=value" },
		{ "format=1\n=x\n", "line 2: not key=value" },
		{ "format=1\nsamples=relative/samples\n", "samples 'relative/samples' is not an absolute path" },
		{ "format=1\nsamples=/a/../../samples\n", "samples '/a/../../samples'" },
		{ "format=1\nsamples=/..\n", "samples '/..'" },
		{ "format=1\nsamples=/x\033[2J/samples\n", "samples '/x\\x1b[2J/samples'" },
		{ "format=1\nsamples=/x\r/samples\n", "samples '/x\\x0d/samples'" },
	};
	char err[512], *samples;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		samples = (char *)1;
		check(manifest(bad[i].text, &samples, err, sizeof(err)) == -1 &&
		      !samples && strstr(err, bad[i].err),
		      "manifest %zu refused: %s", i, err);
	}
	check(pp_archive_manifest_parse("format=1\n\0samples=/x", 20, &samples,
					err, sizeof(err)) == -1 && !samples &&
	      strstr(err, "NUL"), "a NUL byte refused: %s", err);
	check(!manifest("# comment\nformat=1\ntool=x\nsamples=/var/lib/oprofile/samples\n"
			"session=current /a=b\nunknown=kept\n", &samples, err, sizeof(err)) &&
	      samples && !strcmp(samples, "/var/lib/oprofile/samples"),
	      "a good manifest: its samples directory");
	free(samples);
	check(!manifest("format=1", &samples, err, sizeof(err)) && !samples,
	      "no samples= and no final newline: read, no directory");
	check(!manifest("format=1\nsamples=/a\nsamples=/b/samples", &samples, err,
			sizeof(err)) && samples && !strcmp(samples, "/b/samples"),
	      "the last samples= counts");
	free(samples);
}

/* An anonymous region as reports name it: by its process and program. */
static void test_files__anon_display(void)
{
	static struct { char const *name, *app, *want; int tgid; } const c[] = {
		{ "anon", "/usr/bin/node", "anon (4242:node)", 4242 },
		{ "[anon:v8 jit]", "/usr/bin/node", "[anon:v8 jit] (4242:node)", 4242 },
		/* a later build of the program: its tag is not its name */
		{ "anon", "/usr/bin/node/{build:0123456789abcdef}",
		  "anon (7:node)", 7 },
		{ "anon", "/opt/x/", "anon (7:x)", 7 },
		{ "anon", "/", "anon (7)", 7 },
		{ "anon", "", "anon (7)", 7 },
		{ "anon", NULL, "anon (7)", 7 },
	};
	struct op_parsed_name merged = { .image_name = "anon",
					 .image_is_anon = 1,
					 .app_name = "/usr/bin/node", .tgid = 5 };
	char *got;

	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		got = pp_anon_display(c[i].name, c[i].tgid, c[i].app);
		check_str(got, c[i].want, "region %s of %s", c[i].name,
			  c[i].app ? c[i].app : "(null)");
		free(got);
	}
	/* the regions merged past the daemon's bound: many processes */
	got = pp_image_display(&merged);
	check_str(got, "anon (regions past the bound, merged)",
		  "the merged regions name no process");
	free(got);
}

int main(void)
{
	struct pp_strlist notes = { 0 };
	char err[1024];

	test_files__anon_display();
	dir = check_tmpdir();
	mk("current", "{root}/bin/a/{dep}/{root}/bin/a/CPU_CLOCK.100000.0.all.all.all");
	mk("current", "{root}/bin/a/{dep}/{root}/lib/libc.so.6/CPU_CLOCK.100000.0.all.all.all");
	mk("current", "{root}/bin/a/{dep}/{kern}/vmlinux/CPU_CLOCK.100000.0.all.all.all");
	mk("current", "{root}/bin/b/{dep}/{root}/bin/b/TASK_CLOCK.20000.0.all.all.all");
	mk("current", "{root}/bin/a/{dep}/{root}/bin/a/{cg}/{root}/lib/libc.so.6/CPU_CLOCK.100000.0.all.all.all");
	mk("current", "{root}/bin/a/{dep}/{kern}/vmlinux/{cg}/{kern}/vmlinux/CPU_CLOCK.100000.0.all.all.all");
	mk("current", "{root}/bin/a/{dep}/{root}/bin/a/not-a-name");
	mk("current", "stats/sample_received");
	mk("old", "{kern}/vmlinux/{dep}/{kern}/vmlinux/CPU_CLOCK.100000.0.all.all.all");

	check(sel("", false, &notes, err, sizeof(err)) == 4, "default session: 4 files (cg and stats out)");
	check(notes.n == 1 && strstr(notes.v[0], "not-a-name"), "the unparsable name is noted");
	check(sel("image:/bin/a", false, NULL, err, sizeof(err)) == 3, "image:/bin/a: the app and its dependents");
	check(sel("lib-image:*libc*", false, NULL, err, sizeof(err)) == 1, "lib-image glob");
	check(sel("libc.so.6", false, NULL, err, sizeof(err)) == 1, "bare base name matches an image");
	check(sel("vmlinux", false, NULL, err, sizeof(err)) == 1, "bare kernel name");
	check(sel("image-exclude:/bin/a", false, NULL, err, sizeof(err)) == 1, "image-exclude");
	check(sel("event:TASK_CLOCK count:20000", false, NULL, err, sizeof(err)) == 1, "event and count");
	check(sel("", true, NULL, err, sizeof(err)) == 2, "-x keeps only A == B");
	check(sel("session:old", false, NULL, err, sizeof(err)) == 1, "session:old");
	check(sel("session:*", false, NULL, err, sizeof(err)) == 5, "session:* reads both sessions");
	check(sel("session:* session-exclude:current", false, NULL, err, sizeof(err)) == 1, "session-exclude");

	check(sel("image:/bin/zz", false, NULL, err, sizeof(err)) == -1 &&
	      strstr(err, "4 files in session 'current', 0 left after image:/bin/zz "
		     "(images present: /bin/a, /bin/b)"), "image:/bin/zz: %s", err);
	check(sel("image:/bin/b event:CPU_CLOCK", false, NULL, err, sizeof(err)) == -1 &&
	      strstr(err, "0 left after event:CPU_CLOCK (events present: TASK_CLOCK)"),
	      "the stage that empties it is named: %s", err);
	check(sel("cpu:0", false, NULL, err, sizeof(err)) == -1 &&
	      strstr(err, "cpus present: all (not separated)"), "cpu:0: %s", err);
	check(sel("session:gone", false, NULL, err, sizeof(err)) == -1 &&
	      strstr(err, "session 'gone' not found") && strstr(err, "current, old"),
	      "unknown session: %s", err);
	check(sel("image:/bin/b", true, NULL, err, sizeof(err)) == 1, "-x with an image");
	check(sel("lib-image:vmlinux", true, NULL, err, sizeof(err)) == -1 &&
	      strstr(err, "0 left after --exclude-dependent"), "-x empties it: %s", err);

	check(sel("", false, NULL, err, sizeof(err)) == 4 && sel_nr_cg == 0,
	      "without callgraph no {cg} file is kept");
	sel_cg = true;
	check(sel("", false, NULL, err, sizeof(err)) == 4 && sel_nr_cg == 2,
	      "callgraph: the 2 {cg} files kept apart, the flat 4 unchanged");
	check(sel("image:/bin/a", false, NULL, err, sizeof(err)) == 3 && sel_nr_cg == 2,
	      "callgraph: image:/bin/a keeps its {cg} files");
	check(sel("lib-image:vmlinux", false, NULL, err, sizeof(err)) == 1 && sel_nr_cg == 1,
	      "callgraph: lib-image: matches the caller's image (B), not the callee");
	check(sel("", true, NULL, err, sizeof(err)) == 2 && sel_nr_cg == 1,
	      "callgraph: -x keeps the {cg} files with A == B");
	check(sel("event:TASK_CLOCK", false, NULL, err, sizeof(err)) == 1 && sel_nr_cg == 0,
	      "callgraph: event: leaves out {cg} files of other events");
	check(sel("image:/bin/zz", false, NULL, err, sizeof(err)) == -1,
	      "callgraph: nothing flat selected is still an error");
	sel_cg = false;
	pp_strlist_free(&notes);
	test_files__manifest();
	return check_done();
}
