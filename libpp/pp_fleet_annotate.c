/*
 * opannotate --fleet (see pp_fleet.h): the fleet's samples by address
 * on the code of one build. The rows' offsets are the addresses opreport
 * -d shows (doc/fleet.md), so once the sampled build's binary or debug
 * file is here - at its path when its build-id is the rows', else by
 * build-id below the debug directories or from debuginfod - the fleet's
 * entries are annotated as a local session's are (pp_annotate.h). An
 * image whose rows name several builds, or none, is not annotated: a
 * note says so (one build's addresses mean nothing in another's code).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "op_build_id.h"
#include "op_util.h"
#include "pp_annotate.h"
#include "pp_debugfile.h"
#include "pp_debuginfo.h"
#include "pp_fleet_int.h"
#include "pp_image.h"
#include "pp_notes.h"

/* The build-ids (hex) of each image of the selection, one line each:
 * "image\tid id ...". The answer is kept in *body. */
static int read_builds(struct pp_fleet *f, struct pp_fleet_spec const *fs,
		       char **body, struct pp_fleet_rows *r, char *err,
		       size_t errlen)
{
	struct pp_fleet_sql q;
	FILE *out = pp_fleet_sql_begin(&q);

	fprintf(out, "SELECT image, arrayStringConcat(arrayFilter(x -> x != "
		"'', groupUniqArray(build_id)), ' ') FROM %s.samples",
		f->database);
	pp_fleet_where(out, f, fs);
	pp_fleet_where_builds(out, fs);
	fputs(" GROUP BY image FORMAT TabSeparated", out);
	return pp_fleet_ask_sql(f, &q, body, r, err, errlen);
}

/* The sampled build's file: the binary at its path when it is that
 * build, else its debug file by build-id. NULL with a note. */
static char *build_file(char const *image, char const *hex,
			struct pp_locate *locate, struct pp_strlist *notes)
{
	struct pp_image_ref ref = { .name = image, .display = image };
	struct pp_image im = { 0 };
	char have[OP_BUILD_ID_HEX_MAX] = "";
	struct pp_build_id id;
	enum pp_debug_how how;
	char *path = NULL;

	pp_image_locate(&im, &ref, locate);
	if (im.path && !op_build_id_of(im.path, have) && !strcmp(have, hex)) {
		path = im.path;
		im.path = NULL;
	} else if (pp_build_id_parse(hex, &id)) {
		path = pp_debuginfo_find_id(&id, &how);
	}
	if (!path)
		pp_note(notes, "'%s' build %s: neither the binary (%s) nor a "
			"debug file by build-id is here: not annotated", image,
			hex, im.path ? "another build at its path" : im.why);
	pp_image_free(&im);
	return path;
}

/* Annotate the entries of image (each given its symbol's start). */
static void annotate_image(struct pp_profile *p, char const *image,
			   char const *path, struct pp_annotation *a,
			   struct pp_strlist *notes)
{
	struct pp_image_ref ref = { .name = path, .display = image };
	struct pp_image im = { .path = op_xstrdup(path) };
	struct pp_profile sub = { .nr_classes = p->nr_classes };
	char what[4096];

	if (pp_image_open(&im, &ref, false, NULL, what, sizeof(what)) !=
	    PP_IMAGE_OK) {
		pp_note(notes, "%s: '%s' not annotated", what, image);
		pp_image_free(&im);
		return;
	}
	sub.v = op_xcalloc(p->n + 1, sizeof(*sub.v));
	for (size_t i = 0; i < p->n; i++) {
		struct pp_entry *e = &p->v[i];
		struct pp_symbol const *s;

		if (strcmp(e->image, image) || !e->symbol || !e->nr_details)
			continue;
		s = pp_symtab_find(&im.bin.symtab, e->details[0].vma);
		if (!s)
			continue;
		e->has_vma = true;
		e->vma = s->start;
		sub.v[sub.n++] = *e;   /* borrowed: sub.v alone is freed */
	}
	pp_annotation_image(a, &im.bin, &sub, 0, image);
	free(sub.v);
	pp_image_free(&im);
}

int pp_fleet_annotate(struct pp_fleet *f, struct pp_fleet_spec const *fs,
		      struct pp_populate_opts const *opts,
		      struct pp_annotation *a, struct pp_profile *p,
		      struct pp_classes *classes, struct pp_fleet_info *info,
		      struct pp_strlist *notes, char *err, size_t errlen)
{
	struct pp_fleet_rows r;
	char *body = NULL;
	int rc;

	if (pp_fleet_profile(f, fs, opts, false, p, classes, info, err,
			     errlen) ||
	    read_builds(f, fs, &body, &r, err, errlen))
		return -1;
	while ((rc = pp_fleet_rows_next(&r, 2, err, errlen)) > 0) {
		char const *image = r.field[0], *ids = r.field[1];
		char *path;

		if (image[0] != '/')
			continue;      /* kernel images and regions: no file */
		if (!*ids || strchr(ids, ' ')) {
			pp_note(notes, "'%s': the rows name %s: not annotated",
				image, *ids ? "several builds (choose one host "
				"or time range)" : "no build-id");
			continue;
		}
		path = build_file(image, ids, opts->locate, notes);
		if (path)
			annotate_image(p, image, path, a, notes);
		free(path);
	}
	free(body);
	pp_fleet_rows_free(&r);
	return rc < 0 ? -1 : 0;
}
