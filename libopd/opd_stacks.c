/*
 * Whole stacks into the session's stack table (opd_stacks.h). A sample
 * file name's image part names each image, so reports symbolise the
 * frames with the code they use for sample files.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "op_mangle.h"
#include "op_sample_file.h"
#include "op_util.h"
#include "opd_core.h"
#include "opd_image.h"
#include "opd_stacks.h"
#include "opd_trans.h"

struct opd_stacks {
	char *current_dir;
	struct opd_config const *cfg;
	struct opd_images const *images;
	struct op_stacks_writer *w;
	bool broken;		/* an error: no stacks until the next close */
	uint32_t *index;	/* image id -> table index + 1; 0: not yet */
	size_t nindex;
	char event[OPD_MAX_EVENTS][96];
	struct opd_header hdr[OPD_MAX_EVENTS];
	struct op_stack_frame frames[OPD_TRACE_MAX];
};

struct opd_stacks *opd_stacks_new(char const *current_dir,
				  struct opd_config const *cfg,
				  struct opd_images const *images)
{
	struct opd_stacks *st = op_xcalloc(1, sizeof(*st));
	size_t i;

	st->current_dir = op_xstrdup(current_dir);
	st->cfg = cfg;
	st->images = images;
	for (i = 0; i < cfg->nr_events && i < OPD_MAX_EVENTS; i++) {
		struct opd_event const *ev = &cfg->events[i];
		struct opd_header *h = &st->hdr[i];

		snprintf(st->event[i], sizeof(st->event[i]), "%s.%u.%u",
			 ev->name, ev->count, ev->unit_mask);
		op_header_init(h);
		h->cpu_type = (uint32_t)cfg->cpu_type;
		h->ctr_event = ev->code;
		h->ctr_um = ev->unit_mask;
		h->ctr_count = ev->count;
		h->cpu_speed = cfg->cpu_speed;
	}
	return st;
}

void opd_stacks_close(struct opd_stacks *st)
{
	if (!st)
		return;
	op_stacks_writer_close(st->w);
	st->w = NULL;
	st->broken = false;
	free(st->index);
	st->index = NULL;
	st->nindex = 0;
}

void opd_stacks_free(struct opd_stacks *st)
{
	if (!st)
		return;
	opd_stacks_close(st);
	free(st->current_dir);
	free(st);
}

void opd_stacks_sync(struct opd_stacks *st)
{
	if (st && st->w)
		op_stacks_writer_sync(st->w);
}

/* The table index of image id (interned by its sample-file name). */
static int table_index(struct opd_stacks *st, int id, uint32_t *out)
{
	struct opd_image const *img;
	struct op_mangle_values v = { 0 };
	char name[4200];

	/* known: no image lookup (an id is never reused for another) */
	if (id >= 0 && (size_t)id < st->nindex && st->index[id]) {
		*out = st->index[id] - 1;
		return 0;
	}
	img = opd_image_get(st->images, id);
	if (!img)
		return -1;
	if (img->kind == OPD_IMAGE_KERNEL)
		v.flags |= OP_MANGLE_KERNEL;
	if (img->kind == OPD_IMAGE_ANON) {
		v.flags |= OP_MANGLE_ANON;
		v.anon_name = img->name;
		v.anon_start = img->start;
		v.anon_end = img->end;
		v.tgid = img->tgid;
	}
	v.image_name = opd_image_sfname(img);   /* a later build: tagged */
	if (op_mangle_image_name(&v, name, sizeof(name)) < 0 ||
	    op_stacks_writer_image(st->w, name, img->build_id[0] ?
				   img->build_id : NULL, out))
		return -1;
	if ((size_t)id >= st->nindex) {
		size_t alloc = st->nindex;

		OP_ALLOC_GROW(st->index, (size_t)id + 1, alloc);
		memset(st->index + st->nindex, 0,
		       (alloc - st->nindex) * sizeof(*st->index));
		st->nindex = alloc;
	}
	st->index[id] = *out + 1;
	return 0;
}

static int record(struct opd_stacks *st, struct op_stack *s, int app,
		  int const *images, uint64_t const *offsets,
		  unsigned long event, uint32_t weight)
{
	uint64_t id;
	size_t i;

	if (!st->w && op_stacks_writer_open(st->current_dir, &st->w))
		return -1;
	if (table_index(st, app, &s->app))
		return -1;
	for (i = 0; i < s->nframes; i++) {
		if (table_index(st, images[i], &st->frames[i].image))
			return -1;
		st->frames[i].offset = offsets[i];
	}
	s->frames = st->frames;
	if (op_stacks_writer_stack(st->w, s, &id))
		return -1;
	/* 1: the count saturated (dropped, but nothing is broken) */
	return op_stacks_writer_count(st->w, st->event[event],
				      &st->hdr[event], id, weight);
}

void opd_stacks_add(struct opd_stacks *st, uint32_t tgid, int app,
		    uint32_t stop, int const *images, uint64_t const *offsets,
		    size_t n, unsigned long event, uint32_t weight,
		    struct opd_stats *stats)
{
	struct op_stack s = { .tgid = tgid, .stop = stop };
	int ret;

	if (n > OPD_TRACE_MAX)
		n = OPD_TRACE_MAX;
	s.nframes = (uint32_t)n;
	stats->unwind_stop[stop < OP_UNWIND_NR ? stop : OP_UNWIND_BAD_FRAME] += weight;
	if (event >= st->cfg->nr_events || !n || st->broken) {
		stats->stack_dropped += weight;
		return;
	}
	ret = record(st, &s, app, images, offsets, event, weight);
	if (ret < 0) {
		op_warn("whole stacks are not recorded until the session's "
			"files are reopened (HUP, reset, save)");
		st->broken = true;
	}
	if (ret)
		stats->stack_dropped += weight;
	else
		stats->stack_written += weight;
}
