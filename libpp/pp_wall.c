/*
 * The wall-clock view; see pp_wall.h.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "op_escape.h"
#include "op_events.h"
#include "op_util.h"
#include "pp_sample_file.h"
#include "pp_samples.h"
#include "pp_wall.h"

/* A file's row: its thread when the session separates them, else its
 * process, else its application. */
static struct pp_wall_row *find_row(struct pp_wall *w,
				    struct op_parsed_name const *n)
{
	for (size_t i = 0; i < w->n; i++) {
		struct pp_wall_row *r = &w->v[i];

		if (!(n->tgid >= 0 ? r->tgid == n->tgid && r->tid == n->tid :
		      r->tgid < 0 && !strcmp(r->app, n->app_name)))
			continue;
		if (pp_sfile_app_rank(n) > r->app_rank) {
			free(r->app);
			r->app = op_xstrdup(n->app_name);
			r->app_rank = pp_sfile_app_rank(n);
		}
		return r;
	}
	OP_ALLOC_GROW(w->v, w->n + 1, w->alloc);
	w->v[w->n] = (struct pp_wall_row){ .tgid = n->tgid, .tid = n->tid,
					   .app = op_xstrdup(n->app_name),
					   .app_rank = pp_sfile_app_rank(n) };
	return &w->v[w->n++];
}

static int by_wall(void const *a, void const *b)
{
	struct pp_wall_row const *x = a, *y = b;
	double wx = x->on_us + x->off_us, wy = y->on_us + y->off_us;

	if (wx != wy)
		return wx < wy ? 1 : -1;
	return x->tid - y->tid;
}

int pp_wall_build(struct pp_wall *w, struct pp_filelist const *files,
		  struct pp_strlist *notes, char *err, size_t errlen)
{
	bool off = false;

	memset(w, 0, sizeof(*w));
	for (size_t i = 0; i < files->n; i++) {
		struct op_parsed_name const *n = &files->v[i].name;
		bool clock = pp_event_is_clock(n->event_name) && n->count > 0;
		struct pp_samples s = { 0 };
		struct opd_header hdr;
		char e[1024];
		uint64_t total;

		/* {cg} files hold arcs, not samples */
		if (n->is_callgraph || (!clock && !op_event_is_off_cpu(n->event_name)))
			continue;
		if (clock && !w->clock) {
			w->clock = op_xstrdup(n->event_name);
			w->period_ns = (uint64_t)n->count;
		}
		if (clock && (strcmp(w->clock, n->event_name) ||
			      w->period_ns != (uint64_t)n->count)) {
			snprintf(err, errlen, "two clocks to count on-CPU time with: "
				 "%s:%llu and %s:%d; choose one with event:NAME",
				 w->clock, (unsigned long long)w->period_ns,
				 n->event_name, n->count);
			pp_wall_free(w);
			return -1;
		}
		if (pp_samples_read(&s, files->v[i].path, &hdr, e, sizeof(e))) {
			pp_strlist_add(notes, e);
			w->nr_bad_files++;
			continue;
		}
		total = pp_samples_total(&s);
		pp_samples_free(&s);
		if (clock)
			find_row(w, n)->on_us += (double)total *
						 (double)w->period_ns / 1e3;
		else {
			find_row(w, n)->off_us += (double)total;
			off = true;
		}
	}
	if (!w->n) {
		snprintf(err, errlen, "no %s or clock (CPU_CLOCK, TASK_CLOCK) samples "
			 "for a wall-clock view", OP_EVENT_OFF_CPU);
		pp_wall_free(w);
		return -1;
	}
	if (!off)
		pp_strlist_add(notes, "no " OP_EVENT_OFF_CPU " samples: the off-CPU "
			       "column is empty (sample OFF_CPU with the clock)");
	if (!w->clock)
		pp_strlist_add(notes, "no clock samples: the on-CPU column is empty "
			       "(sample CPU_CLOCK with OFF_CPU)");
	/* a thread seen only in the kernel (off-CPU samples of a thread
	 * that only blocks, when kernel files are not apart) takes the name
	 * of its process's program from its other threads */
	for (size_t i = 0; i < w->n; i++)
		for (size_t j = 0; j < w->n; j++)
			if (w->v[i].tgid >= 0 && w->v[j].tgid == w->v[i].tgid &&
			    w->v[j].app_rank > w->v[i].app_rank) {
				free(w->v[i].app);
				w->v[i].app = op_xstrdup(w->v[j].app);
				w->v[i].app_rank = w->v[j].app_rank;
			}
	qsort(w->v, w->n, sizeof(*w->v), by_wall);
	return 0;
}

static char const *base(char const *path)
{
	char const *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

void pp_wall_print(FILE *out, struct pp_wall const *w, double threshold)
{
	double all = 0;
	size_t hidden = 0;

	for (size_t i = 0; i < w->n; i++)
		all += w->v[i].on_us + w->v[i].off_us;
	if (w->clock)
		fprintf(out, "Wall-clock time per thread, in microseconds: on-CPU = %s "
			"samples x %llu ns / 1000, off-CPU = %s (us)\n", w->clock,
			(unsigned long long)w->period_ns, OP_EVENT_OFF_CPU);
	else
		fprintf(out, "Wall-clock time per thread, in microseconds: off-CPU = %s "
			"(us), no clock samples for on-CPU\n", OP_EVENT_OFF_CPU);
	fprintf(out, "Time runnable but waiting for a cpu is in neither column.\n");
	fprintf(out, "%8s %8s %-20s %14s %7s %14s %7s %14s\n", "pid", "tid",
		"command", "on-CPU us", "on %", "off-CPU us", "off %", "wall us");
	for (size_t i = 0; i < w->n; i++) {
		struct pp_wall_row const *r = &w->v[i];
		double wall = r->on_us + r->off_us;
		char *app;

		if (all > 0 && 100.0 * wall / all < threshold) {
			hidden++;
			continue;
		}
		if (r->tgid >= 0)
			fprintf(out, "%8d %8d", r->tgid, r->tid);
		else
			fprintf(out, "%8s %8s", "all", "all");
		app = op_escape(base(r->app));
		fprintf(out, " %-20s %14.0f %7.2f %14.0f %7.2f %14.0f\n", app,
			r->on_us, wall > 0 ? 100.0 * r->on_us / wall : 0,
			r->off_us, wall > 0 ? 100.0 * r->off_us / wall : 0, wall);
		free(app);
	}
	if (hidden)
		fprintf(out, "(%zu rows below %g %% of all the wall time not shown)\n",
			hidden, threshold);
}

void pp_wall_free(struct pp_wall *w)
{
	for (size_t i = 0; i < w->n; i++)
		free(w->v[i].app);
	free(w->v);
	free(w->clock);
	memset(w, 0, sizeof(*w));
}
