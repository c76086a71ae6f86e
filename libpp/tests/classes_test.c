/*
 * Classification: which axis the columns are, merge options, labels, the
 * refusal of a second varying axis, and the classes of callgraph files.
 */
#include "config.h"

#include <stdlib.h>

#include "op_mangle.h"
#include "pp_classes.h"
#include "check.h"

/* A file list from trailers of one image's sample files. */
static void make_files(struct pp_filelist *l, char const *const *trailers,
		       size_t n)
{
	char name[256], err[256];

	memset(l, 0, sizeof(*l));
	l->v = calloc(n, sizeof(*l->v));
	l->n = n;
	for (size_t i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "{root}/bin/p/{dep}/{root}/bin/p/%s",
			 trailers[i]);
		if (op_parse_filename(name, &l->v[i].name, err, sizeof(err)))
			printf("# cannot parse %s: %s\n", name, err);
		l->v[i].path = strdup(name);
	}
}

static int classify(char const *const *trailers, size_t n, char const *merge,
		    struct pp_classes *c, char *err, size_t errlen)
{
	struct pp_merge m = { 0 };
	struct pp_filelist l;
	int rc;

	if (merge && pp_merge_parse(merge, &m, err, errlen))
		return -2;
	make_files(&l, trailers, n);
	rc = pp_classify(&l, &m, c, err, errlen);
	pp_files_free(&l);
	return rc;
}

static void test_classes__tids(void)
{
	char const *t[] = { "CPU_CLOCK.100000.0.7.8.all", "CPU_CLOCK.100000.0.7.9.all",
			    "CPU_CLOCK.100000.0.7.8.all" };
	struct pp_classes c;
	char err[512];

	if (check(!classify(t, 3, NULL, &c, err, sizeof(err)), "two tids classify")) {
		check(c.n == 2 && c.axis == PP_AXIS_TID, "two classes on the tid axis");
		check_str(c.v[1].label, "tid:9", "label tid:9");
		pp_classes_free(&c);
	}
	if (check(!classify(t, 3, "tid", &c, err, sizeof(err)), "-m tid classifies")) {
		check(c.n == 1 && c.axis == PP_AXIS_NONE, "-m tid: one class");
		pp_classes_free(&c);
	}
}

static void test_classes__processes(void)
{
	char const *t[] = { "CPU_CLOCK.100000.0.7.7.all", "CPU_CLOCK.100000.0.9.9.all" };
	struct pp_classes c;
	char err[512];

	if (check(!classify(t, 2, NULL, &c, err, sizeof(err)), "two processes classify")) {
		check(c.axis == PP_AXIS_TID, "processes: one thread axis");
		check_str(c.v[0].label, "tgid:7 tid:7", "label shows tgid and tid");
		pp_classes_free(&c);
	}
	if (check(!classify(t, 2, "tgid", &c, err, sizeof(err)), "-m tgid classifies")) {
		check(c.n == 1, "-m tgid merges tids too");
		pp_classes_free(&c);
	}
}

static void test_classes__axes(void)
{
	char const *ev[] = { "CPU_CLOCK.100000.0.all.all.all", "TASK_CLOCK.100000.0.all.all.all" };
	char const *um[] = { "EV.1000.1.all.all.all", "EV.1000.2.all.all.all" };
	char const *two[] = { "CPU_CLOCK.100000.0.1.1.0", "CPU_CLOCK.100000.0.1.2.1" };
	struct pp_classes c;
	char err[512];

	if (check(!classify(ev, 2, NULL, &c, err, sizeof(err)), "two events classify")) {
		check(c.axis == PP_AXIS_EVENT, "event axis");
		check_str(c.v[1].label, "TASK_CLOCK:100000", "event label");
		pp_classes_free(&c);
	}
	if (check(!classify(um, 2, NULL, &c, err, sizeof(err)), "two unit masks classify")) {
		check(c.axis == PP_AXIS_UNIT_MASK, "unit mask axis");
		check_str(c.v[1].label, "um:0x2", "unit mask label");
		pp_classes_free(&c);
	}
	if (check(!classify(um, 2, "unitmask", &c, err, sizeof(err)), "-m unitmask classifies")) {
		check(c.n == 1 && c.v[0].unit_mask == -1, "-m unitmask: one class, mask merged");
		pp_classes_free(&c);
	}
	check(classify(two, 2, NULL, &c, err, sizeof(err)) == -1 &&
	      strstr(err, "more than one axis") && strstr(err, "tid cpu") &&
	      strstr(err, "-m tid, -m cpu"), "tid and cpu vary: refused (%s)", err);
	if (check(!classify(two, 2, "cpu", &c, err, sizeof(err)), "-m cpu leaves one axis")) {
		check(c.axis == PP_AXIS_TID, "tid axis after -m cpu");
		pp_classes_free(&c);
	}
}

/* {cg} files take the class of the sample files they match, never one of their own. */
static void test_classes__callgraph(void)
{
	char const *t[] = { "CPU_CLOCK.100000.0.7.8.all", "CPU_CLOCK.100000.0.7.9.all" };
	char const *cgt[] = { "CPU_CLOCK.100000.0.7.9.all", "CPU_CLOCK.100000.0.7.5.all",
			      "TASK_CLOCK.100000.0.7.8.all" };
	struct pp_merge m = { 0 };
	struct pp_filelist l;
	struct pp_classes c;
	char name[256], err[512];

	make_files(&l, t, 2);
	l.cg = calloc(3, sizeof(*l.cg));
	l.nr_cg = 3;
	for (size_t i = 0; i < 3; i++) {
		snprintf(name, sizeof(name), "{root}/bin/p/{dep}/{root}/bin/p/{cg}/{kern}/vmlinux/%s",
			 cgt[i]);
		if (op_parse_filename(name, &l.cg[i].name, err, sizeof(err)))
			printf("# cannot parse %s: %s\n", name, err);
		l.cg[i].path = strdup(name);
	}
	if (check(!pp_classify(&l, &m, &c, err, sizeof(err)), "sample and {cg} files classify")) {
		check(c.n == 2, "{cg} files make no class of their own");
		check(l.cg[0].cls == 1 && l.cg[1].cls == -1 && l.cg[2].cls == -1,
		      "a {cg} file of tid 9 is in tid 9's class; tid 5 and another event in none");
		pp_classes_free(&c);
	}
	pp_files_free(&l);
}

static void test_classes__merge_parse(void)
{
	struct pp_merge m = { 0 };
	char err[256];

	check(!pp_merge_parse("all", &m, err, sizeof(err)) && m.cpu && m.lib &&
	      m.tid && m.tgid && m.unitmask, "-m all merges everything");
	memset(&m, 0, sizeof(m));
	check(!pp_merge_parse("tgid", &m, err, sizeof(err)) && m.tid && !m.cpu,
	      "-m tgid implies tid");
	check(pp_merge_parse("cpu,bogus", &m, err, sizeof(err)) == -1 &&
	      strstr(err, "'bogus'"), "-m bogus refused: %s", err);
}

int main(void)
{
	test_classes__tids();
	test_classes__processes();
	test_classes__axes();
	test_classes__callgraph();
	test_classes__merge_parse();
	return check_done();
}
