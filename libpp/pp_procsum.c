/*
 * The process summary; see pp_procsum.h.
 */
#include <stdlib.h>
#include <string.h>

#include "op_escape.h"
#include "op_events.h"
#include "op_message.h"
#include "op_util.h"
#include "pp_invert.h"
#include "pp_notes.h"
#include "pp_procsum.h"
#include "pp_sample_file.h"
#include "pp_samples.h"

/*
 * The row of a file: its tgid when known (named after the process's own
 * program, the best ranked of its files' applications), else its
 * application.
 */
static struct pp_proc *find_proc(struct pp_procsum *ps,
				 struct op_parsed_name const *n)
{
	struct pp_proc *p = NULL;
	int rank = pp_sfile_app_rank(n);

	for (size_t i = 0; i < ps->n && !p; i++)
		if (n->tgid >= 0 ? ps->v[i].tgid == n->tgid :
		    ps->v[i].tgid < 0 && !strcmp(ps->v[i].app, n->app_name))
			p = &ps->v[i];
	if (!p) {
		OP_ALLOC_GROW(ps->v, ps->n + 1, ps->alloc);
		p = &ps->v[ps->n++];
		*p = (struct pp_proc){ .tgid = n->tgid,
				       .app = op_xstrdup(n->app_name),
				       .app_is_kernel = n->app_is_kernel,
				       .app_rank = rank };
	} else if (rank > p->app_rank) {
		free(p->app);
		p->app = op_xstrdup(n->app_name);
		p->app_is_kernel = n->app_is_kernel;
		p->app_rank = rank;
	}
	return p;
}

static int by_samples(void const *a, void const *b)
{
	struct pp_proc const *x = a, *y = b;
	uint64_t sx = x->user + x->sys, sy = y->user + y->sys;

	if (sx != sy)
		return sx < sy ? 1 : -1;
	return x->tgid - y->tgid;
}

/* The samples of one file; false (noted) when it cannot be read. */
static bool file_total(struct pp_sfile const *f, uint64_t *total,
		       struct pp_strlist *notes)
{
	struct pp_samples s = { 0 };
	struct opd_header hdr;
	char err[1024];

	if (pp_samples_read(&s, f->path, &hdr, err, sizeof(err))) {
		pp_strlist_add(notes, err);
		return false;
	}
	*total = pp_samples_total(&s);
	pp_samples_free(&s);
	return true;
}

int pp_procsum_build(struct pp_procsum *ps, struct pp_filelist const *files,
		     struct pp_strlist *notes, char *err, size_t errlen)
{
	memset(ps, 0, sizeof(*ps));
	for (size_t i = 0; i < files->n; i++) {
		struct op_parsed_name const *n = &files->v[i].name;
		struct pp_proc *p;
		uint64_t total;

		if (!ps->event) {
			ps->event = op_xstrdup(n->event_name);
			/* OFF_CPU counts microseconds: 1000 ns each */
			ps->period_ns = pp_event_is_clock(n->event_name) ?
					(uint64_t)n->count :
					op_event_is_off_cpu(n->event_name) ? 1000 : 0;
		}
		if (strcmp(ps->event, n->event_name))
			continue;
		if (!file_total(&files->v[i], &total, notes)) {
			ps->nr_bad_files++;
			continue;
		}
		p = find_proc(ps, n);
		if (n->image_is_kernel) {
			p->sys += total;
			ps->sys += total;
		} else {
			p->user += total;
			ps->user += total;
		}
	}
	if (!ps->n) {
		snprintf(err, errlen, "no readable samples for a process summary");
		pp_procsum_free(ps);
		return -1;
	}
	qsort(ps->v, ps->n, sizeof(*ps->v), by_samples);
	return 0;
}

static char const *base(char const *path)
{
	char const *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

/* pp_path_display(path) under the printing rule (op_escape.h). */
static char *escaped_display(char const *path)
{
	char *shown = pp_path_display(path), *e = op_escape(shown);

	free(shown);
	return e;
}

static void print_time(FILE *out, struct pp_procsum const *ps, uint64_t n)
{
	if (ps->period_ns)
		fprintf(out, " %10.4f", (double)n * (double)ps->period_ns / 1e9);
	else
		fprintf(out, " %10s", "-");
}

void pp_procsum_print(FILE *out, struct pp_procsum const *ps,
		      double threshold)
{
	uint64_t all = ps->user + ps->sys;
	size_t hidden = 0;

	char *event = op_escape(ps->event);

	fprintf(out, "Process summary (event %s%s)\n", event,
		op_event_is_off_cpu(ps->event) ?
		"; counts are microseconds off the cpu, time their seconds" :
		ps->period_ns ? "; time = samples x period" :
		": not a clock, no time");
	free(event);
	fprintf(out, "%8s %-20s %10s %10s %10s %10s %7s\n", "pid", "command",
		"user", "user s", "system", "system s", "%");
	for (size_t i = 0; i < ps->n; i++) {
		struct pp_proc const *p = &ps->v[i];
		double share = all ? 100.0 * (double)(p->user + p->sys) /
				     (double)all : 0;
		char *app;

		if (share < threshold) {
			hidden++;
			continue;
		}
		if (p->tgid >= 0)
			fprintf(out, "%8d", p->tgid);
		else
			fprintf(out, "%8s", "all");
		app = escaped_display(p->app);  /* a later build: tagged */
		fprintf(out, " %-20s %10llu", base(app),
			(unsigned long long)p->user);
		free(app);
		print_time(out, ps, p->user);
		fprintf(out, " %10llu", (unsigned long long)p->sys);
		print_time(out, ps, p->sys);
		fprintf(out, " %7.2f\n", share);
	}
	fprintf(out, "%8s %-20s %10llu", "", "total",
		(unsigned long long)ps->user);
	print_time(out, ps, ps->user);
	fprintf(out, " %10llu", (unsigned long long)ps->sys);
	print_time(out, ps, ps->sys);
	fprintf(out, " %7.2f\n", all ? 100.0 : 0.0);
	if (hidden)
		fprintf(out, "(%zu processes below %g %% not shown)\n", hidden,
			threshold);
}

/* Whether image is one the files name as a kernel image. */
static bool kernel_image(struct pp_filelist const *files, char const *image)
{
	for (size_t i = 0; i < files->n; i++)
		if (files->v[i].name.image_is_kernel &&
		    !strcmp(files->v[i].name.image_name, image))
			return true;
	return false;
}

static uint64_t entry_total(struct pp_profile const *p, size_t i)
{
	uint64_t t = 0;

	for (size_t c = 0; c < p->nr_classes; c++)
		t += p->v[i].counts[c];
	return t;
}

/* A symbol row summed over entries: name, image and samples. */
struct sym_row {
	char const *symbol, *image;
	uint64_t n;
};

static int by_count(void const *a, void const *b)
{
	struct sym_row const *x = a, *y = b;

	return x->n < y->n ? 1 : x->n > y->n ? -1 : 0;
}

static void add_row(struct sym_row **rows, size_t *n, size_t *alloc,
		    char const *sym, char const *image, uint64_t count)
{
	for (size_t i = 0; i < *n; i++)
		if (!strcmp((*rows)[i].symbol, sym) &&
		    !strcmp((*rows)[i].image, image)) {
			(*rows)[i].n += count;
			return;
		}
	OP_ALLOC_GROW(*rows, *n + 1, *alloc);
	(*rows)[(*n)++] = (struct sym_row){ sym, image, count };
}

/* The symbols of p in kernel images (kernel) or in the others. */
static void print_portion(FILE *out, char const *title,
			  struct pp_profile const *p,
			  struct pp_filelist const *files, bool kernel,
			  double threshold)
{
	struct sym_row *rows = NULL;
	size_t n = 0, alloc = 0;
	uint64_t total = 0;

	for (size_t i = 0; i < p->n; i++) {
		uint64_t t = entry_total(p, i);

		if (!t || kernel_image(files, p->v[i].image) != kernel)
			continue;
		add_row(&rows, &n, &alloc, p->v[i].symbol ? p->v[i].symbol :
			"(no symbols)", base(p->v[i].image), t);
		total += t;
	}
	fprintf(out, "  %s: %llu %s\n", title, (unsigned long long)total,
		files->n ? op_event_count_word(files->v[0].name.event_name) :
		"samples");
	if (n > 1)	/* a portion without samples has no rows (NULL) */
		qsort(rows, n, sizeof(*rows), by_count);
	for (size_t i = 0; i < n; i++) {
		double share = 100.0 * (double)rows[i].n / (double)total;
		char *sym, *image;

		if (share < threshold)
			break;
		sym = op_escape(rows[i].symbol);
		image = op_escape(rows[i].image);

		fprintf(out, "  %10llu %7.2f  %-32s %s\n",
			(unsigned long long)rows[i].n, share, sym, image);
		free(sym);
		free(image);
	}
	free(rows);
}

void pp_procsum_print_portions(FILE *out, struct pp_proc const *proc,
			       struct pp_profile const *p,
			       struct pp_filelist const *files,
			       double threshold)
{
	char *app = escaped_display(proc->app);

	if (proc->tgid >= 0)
		fprintf(out, "\nProcess %d %s\n", proc->tgid, app);
	else
		fprintf(out, "\nApplication %s\n", app);
	free(app);
	print_portion(out, "USER portion", p, files, false, threshold);
	print_portion(out, "KERNEL portion", p, files, true, threshold);
}

void pp_procsum_print_kernel(FILE *out, struct pp_profile const *p,
			     struct pp_filelist const *files,
			     double threshold)
{
	fprintf(out, "\nGlobal kernel profile\n");
	print_portion(out, "KERNEL", p, files, true, threshold);
}

char *pp_procsum_spec(struct pp_proc const *proc)
{
	if (proc->tgid >= 0)
		return op_xasprintf("tgid:%d", proc->tgid);
	return op_xasprintf("image:%s", proc->app);
}

void pp_procsum_free(struct pp_procsum *ps)
{
	for (size_t i = 0; i < ps->n; i++)
		free(ps->v[i].app);
	free(ps->v);
	free(ps->event);
	memset(ps, 0, sizeof(*ps));
}
