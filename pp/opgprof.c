/*
 * opgprof [spec] IMAGE: the samples of one image as GNU gprof's
 * gmon.out (libpp/pp_gmon.h): a histogram over its code and, when the
 * session has {cg} files, the call arcs between its functions. Then
 * "gprof IMAGE gmon.out" gives the flat profile and call graph. The
 * first class (event) is used; -m merges separated profiles first.
 * Exit 0 on success, 1 on a runtime failure, 2 on a usage error.
 */
#include "config.h"

#include <bfd.h>
#include <popt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "op_config.h"
#include "op_cpu_type.h"
#include "op_message.h"
#include "op_util.h"
#include "pp_binary.h"
#include "pp_gmon.h"
#include "pp_populate.h"
#include "pp_run.h"

static struct opgprof_opts {
	char *output, *merge, *session_dir, *image_path, *root;
} opts;

enum { OPT_SESSION_DIR = 256 };

static struct poptOption const options[] = {
	{ "output-filename", 'o', POPT_ARG_STRING, NULL, 'o', "the file to write (default gmon.out)", "file" },
	{ "merge", 'm', POPT_ARG_STRING, NULL, 'm', "merge separated profiles", "cpu,lib,tid,tgid,unitmask,all" },
	PP_RUN_OPT_SESSION_DIR(OPT_SESSION_DIR),
	PP_RUN_OPT_IMAGE_PATH,
	PP_RUN_OPT_ROOT,
	PP_RUN_OPT_VERSION,
	POPT_AUTOHELP
	POPT_TABLEEND
};

#define usage_error(...) \
	op_usage_error("opgprof --help lists the options", __VA_ARGS__)

/* The image asked for and what was gathered of it. */
struct target {
	char const *image;
	bool found;              /* an image of that name was populated */
	bool have_range;
	struct pp_gmon gmon;
	struct pp_classes const *classes;   /* headers read when populated */
	bool failed;             /* gmon.out could not be written */
};

static bool same_image(char const *want, char const *name)
{
	char const *base = strrchr(name, '/');

	if (!strcmp(want, name))
		return true;
	return !strchr(want, '/') && base && !strcmp(base + 1, want);
}

/* Whether a selected sample file is of the image: when none is, the
 * error comes before every other binary is opened (and warned about). */
static bool selected(struct pp_filelist const *files, char const *want)
{
	for (size_t i = 0; i < files->n; i++)
		if (same_image(want, files->v[i].name.image_name))
			return true;
	return false;
}

static bool code_range(struct pp_binary const *bin, uint64_t *lo,
		       uint64_t *hi)
{
	bool any = false;

	if (!bin->abfd)
		return false;
	for (asection *s = bin->abfd->sections; s; s = s->next) {
		flagword f = bfd_section_flags(s);
		uint64_t start = bfd_section_vma(s);
		uint64_t end = start + bfd_section_size(s);

		if ((f & (SEC_CODE | SEC_HAS_CONTENTS)) !=
		    (SEC_CODE | SEC_HAS_CONTENTS))
			continue;
		*lo = any && *lo < start ? *lo : start;
		*hi = any && *hi > end ? *hi : end;
		any = true;
	}
	return any;
}

static uint32_t rate_of(struct pp_classes const *c)
{
	struct pp_class const *k = c->n ? &c->v[0] : NULL;

	if (k && k->has_header && k->header.cpu_type == CPU_TIMER_INT &&
	    k->count > 0)
		return (uint32_t)(1000000000u / (unsigned)k->count);
	return 100;
}

/* pp_populate_opts.image_done: the image's samples into the histogram. */
static void image_done(void *arg, struct pp_binary const *bin,
		       struct pp_profile const *p, size_t from,
		       char const *image)
{
	struct target *t = arg;
	uint64_t lo, hi;

	if (!same_image(t->image, image))
		return;
	t->found = true;
	if (!t->have_range) {
		if (!code_range(bin, &lo, &hi))
			return;
		pp_gmon_init(&t->gmon, lo, hi, rate_of(t->classes));
		t->have_range = true;
	}
	for (size_t i = from; i < p->n; i++) {
		struct pp_entry const *e = &p->v[i];

		if (!e->has_vma) {
			t->gmon.outside += e->counts[0];
			continue;
		}
		for (size_t d = 0; d < e->nr_details; d++)
			pp_gmon_add(&t->gmon, e->details[d].vma,
				    e->details[d].counts[0]);
	}
}

static void add_arcs(struct target *t, struct pp_profile const *p)
{
	for (size_t i = 0; i < p->nr_arcs; i++) {
		struct pp_entry const *from = &p->v[p->arcs[i].caller];
		struct pp_entry const *to = &p->v[p->arcs[i].callee];

		if (from->has_vma && to->has_vma && p->arcs[i].counts[0] &&
		    same_image(t->image, from->image) &&
		    same_image(t->image, to->image))
			pp_gmon_add_arc(&t->gmon, from->vma, to->vma,
					p->arcs[i].counts[0]);
	}
}

static void write_gmon(struct target *t, struct pp_profile const *p)
{
	char err[1024];
	uint64_t scale;

	add_arcs(t, p);
	if (pp_gmon_write(&t->gmon, opts.output, &scale, err, sizeof(err))) {
		op_error("%s", err);
		t->failed = true;
		return;
	}
	if (scale > 1)
		op_warn("more than 65535 samples in a histogram bin: counts "
			"divided by %llu in '%s'", (unsigned long long)scale,
			opts.output);
	if (t->gmon.outside)
		op_warn("%llu samples of '%s' are outside its code or symbols "
			"and not in '%s'", (unsigned long long)t->gmon.outside,
			t->image, opts.output);
}

static int gprof(struct target *t, int argc, char const *const *argv)
{
	struct pp_run_opts ro = {
		.session_dir = opts.session_dir, .image_path = opts.image_path,
		.root = opts.root, .callgraph = true,
	};
	struct pp_populate_opts po = {
		.symbols = true, .details = true, .demangle = PP_DEMANGLE_NONE,
		.image_done = image_done, .image_done_arg = t,
	};
	struct pp_run r = { 0 };
	char err[512];
	int rc;

	if (opts.merge && pp_merge_parse(opts.merge, &ro.merge, err, sizeof(err)))
		usage_error("--merge: %s", err);
	t->classes = &r.classes;
	rc = pp_run_select(&r, &ro, argc, argv,
			   "opgprof --help lists the options");
	if (!rc && !selected(&r.files, t->image))
		rc = op_error("no samples of image '%s' in this profile",
			      t->image);
	else if (!rc) {
		po.callgraph = r.files.nr_cg > 0;
		rc = pp_run_populate(&r, &ro, &po);
	}
	if (!rc && r.classes.n > 1)
		op_warn("%zu classes (events, cpus or threads): gmon.out holds "
			"the first, %s; --merge merges the others into it",
			r.classes.n, r.classes.v[0].event);
	if (!rc && !t->found)
		rc = op_error("no samples of image '%s' in this profile",
			      t->image);
	else if (!rc && !t->have_range)
		rc = op_error("cannot read the code of '%s': no binary",
			      t->image);
	else if (!rc)
		write_gmon(t, &r.profile);
	if (t->failed)
		rc = -1;
	pp_gmon_free(&t->gmon);
	pp_run_free(&r);
	return rc;
}

static void take_string(poptContext ctx, int val)
{
	char *arg = poptGetOptArg(ctx);
	char **field = val == 'o' ? &opts.output : val == 'm' ? &opts.merge :
		       val == 'p' ? &opts.image_path : val == 'R' ? &opts.root :
		       val == OPT_SESSION_DIR ? &opts.session_dir : NULL;

	pp_run_keep(field, arg);
}

int main(int argc, char const **argv)
{
	struct target t = { 0 };
	char const *const *args;
	char const *spec[64];
	int nargs, nspec = 0, rc;
	poptContext ctx = pp_run_options(argc, argv, options, take_string,
					 "opgprof --help lists the options",
					 &args, &nargs);

	/* the one word without a tag is the image; the rest is the spec */
	for (int i = 0; i < nargs; i++) {
		if (strchr(args[i], ':')) {
			if (nspec == 63)
				usage_error("%s", "too many profile specification words");
			spec[nspec++] = args[i];
		} else if (t.image) {
			usage_error("one image: '%s' and '%s'", t.image, args[i]);
		} else {
			t.image = args[i];
		}
	}
	if (!t.image)
		usage_error("%s", "name the image: opgprof [spec] IMAGE");
	spec[nspec] = NULL;
	if (!opts.output)
		opts.output = op_xstrdup("gmon.out");
	if (!opts.session_dir)
		opts.session_dir = op_xstrdup(OP_SESSION_DIR_DEFAULT);
	rc = gprof(&t, nspec, spec);
	free(opts.output);
	free(opts.merge);
	free(opts.session_dir);
	free(opts.image_path);
	free(opts.root);
	poptFreeContext(ctx);
	return rc ? 1 : 0;
}
