/*
 * fleetrows SESSION_DIR PREFIX SAMPLES STACKS: a recorded session's rows
 * for the fleet's samples and stacks tables (doc/fleet.md), written with
 * libfleet's TabSeparated writer, symbolised by libpp as opreport -l
 * -d and --stacks name them. PREFIX is the row's first columns up to
 * end (day, host, labels, session_id, upload_id, start, end), already
 * TabSeparated; event and event_count come from each class. For the
 * fleet tests (t2035), which load hosts' sessions without a daemon's
 * shipper timing; prints the sum of the samples rows.
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fleet_tsv.h"
#include "op_build_id.h"
#include "pp_run.h"
#include "pp_stacks.h"

static void samples_rows(struct fleet_buf *b, char const *prefix,
			 struct pp_profile const *p,
			 struct pp_classes const *c, uint64_t *total)
{
	for (size_t i = 0; i < p->n; i++) {
		struct pp_entry const *e = &p->v[i];
		char id[OP_BUILD_ID_HEX_MAX] = "";

		/* the build-id of the binary at the path, as the host has it */
		if (e->image[0] != '/' || op_build_id_of(e->image, id))
			id[0] = '\0';

		for (size_t d = 0; d < e->nr_details; d++) {
			for (size_t k = 0; k < c->n; k++) {
				uint64_t n = e->details[d].counts[k];

				if (!n)
					continue;
				fleet_buf_printf(b, "%s\t", prefix);
				fleet_tsv_str(b, c->v[k].event);
				fleet_tsv_tab(b);
				fleet_tsv_u64(b, (uint64_t)c->v[k].count);
				fleet_tsv_tab(b);
				fleet_tsv_str(b, e->app);
				fleet_tsv_tab(b);
				fleet_tsv_str(b, e->image);
				fleet_tsv_tab(b);
				fleet_tsv_str(b, id);
				fleet_tsv_tab(b);
				fleet_tsv_str(b, e->symbol);
				fleet_tsv_tab(b);
				fleet_tsv_u64(b, e->details[d].vma);
				fleet_tsv_tab(b);
				fleet_tsv_u64(b, n);
				fleet_tsv_eol(b);
				*total += n;
			}
		}
	}
}

static void stacks_rows(struct fleet_buf *b, char const *prefix,
			struct pp_stacks const *st)
{
	char const *event = st->event;
	size_t elen = strcspn(event, ".");
	uint64_t count = strtoull(event + elen + 1, NULL, 10);

	for (size_t i = 0; i < st->n; i++) {
		struct pp_sstack const *s = &st->v[i];
		char **frames = calloc(s->nr_frames + 1, sizeof(*frames));
		uint64_t *offs = calloc(s->nr_frames + 1, sizeof(*offs));
		char ev[128];

		for (size_t k = 0; k < s->nr_frames; k++) {
			/* rows are root first, a stack leaf first */
			struct pp_sframe const *f = &st->frames[s->frames[s->nr_frames - 1 - k]];
			struct pp_sfunc const *fn = &st->funcs[f->func];

			if (asprintf(&frames[k], "%s\t%s", st->images[f->image].display,
				     fn->has_symbol ? fn->name : "") < 0)
				abort();
			offs[k] = f->has_vma ? f->vma : f->key;
		}
		snprintf(ev, sizeof(ev), "%.*s", (int)elen, event);
		fleet_buf_printf(b, "%s\t", prefix);
		fleet_tsv_str(b, ev);
		fleet_tsv_tab(b);
		fleet_tsv_u64(b, count);
		fleet_tsv_tab(b);
		fleet_tsv_str(b, s->proc);
		fleet_tsv_tab(b);
		fleet_tsv_array(b, (char const *const *)frames, s->nr_frames);
		fleet_tsv_tab(b);
		fleet_tsv_array_u64(b, offs, s->nr_frames);
		fleet_tsv_tab(b);
		fleet_tsv_u64(b, s->count);
		fleet_tsv_eol(b);
		for (size_t k = 0; k < s->nr_frames; k++)
			free(frames[k]);
		free(frames);
		free(offs);
	}
}

static int write_file(char const *path, struct fleet_buf const *b)
{
	FILE *f = fopen(path, "w");

	if (!f || (b->len && fwrite(b->p, 1, b->len, f) != b->len) ||
	    fclose(f)) {
		perror(path);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct pp_run_opts o = { 0 };
	struct pp_populate_opts po = { .symbols = true, .details = true,
				       .demangle = PP_DEMANGLE_NORMAL };
	struct pp_stacks_opts so = { .demangle = PP_DEMANGLE_NORMAL };
	struct pp_run r = { 0 };
	struct pp_stacks st;
	struct fleet_buf b = { 0 }, sb = { 0 };
	uint64_t total = 0;
	char err[4096];
	int rc;

	if (argc != 5) {
		fprintf(stderr, "usage: fleetrows SESSION_DIR PREFIX SAMPLES STACKS\n");
		return 2;
	}
	o.session_dir = argv[1];
	if (pp_run_select(&r, &o, 0, NULL, "fleetrows") ||
	    pp_run_populate(&r, &o, &po))
		return 1;
	samples_rows(&b, argv[2], &r.profile, &r.classes, &total);
	so.locate = &r.locate;
	if (pp_stacks_load(&st, &r.files, &so, &r.notes, err, sizeof(err))) {
		fprintf(stderr, "fleetrows: %s\n", err);
		return 1;
	}
	stacks_rows(&sb, argv[2], &st);
	rc = write_file(argv[3], &b) || write_file(argv[4], &sb);
	printf("%" PRIu64 "\n", total);
	pp_stacks_free(&st);
	pp_run_free(&r);
	fleet_buf_free(&b);
	fleet_buf_free(&sb);
	return rc ? 1 : 0;
}
