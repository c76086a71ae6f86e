/*
 * Building inverted profiles (see pp_invert.h), OProfile's
 * invert_profiles(): sort file indexes by (image, application, class)
 * and cut the runs. Kernel images also sort by session, since each
 * session carries its own kallsyms.
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "op_util.h"
#include "pp_invert.h"

char *pp_path_display(char const *name)
{
	char const *id;
	size_t plen, idlen;

	plen = op_build_tag_split(name, &id, &idlen);
	if (!plen)
		return op_xstrdup(name);
	/* a later build of its path: the path and a short build-id */
	if (id[0] == 'm')
		return op_xasprintf("%.*s (build of mtime %.*s)", (int)plen,
				    name, (int)idlen - 1, id + 1);
	return op_xasprintf("%.*s (build %.*s)", (int)plen, name,
			    (int)(idlen < PP_SHORT_BUILD_ID ? idlen :
				  PP_SHORT_BUILD_ID), id);
}

char *pp_anon_display(char const *name, int tgid, char const *app)
{
	char const *id, *base;
	size_t plen, idlen, blen;

	if (!app || !*app)
		return op_xasprintf("%s (%d)", name, tgid);
	/* the program's base name; a later build's tag is not part of it */
	plen = op_build_tag_split(app, &id, &idlen);
	if (!plen)
		plen = strlen(app);
	while (plen > 1 && app[plen - 1] == '/')
		plen--;
	base = app + plen;
	while (base > app && base[-1] != '/')
		base--;
	blen = (size_t)(app + plen - base);
	if (!blen)		/* "/": no base name */
		return op_xasprintf("%s (%d)", name, tgid);
	return op_xasprintf("%s (%d:%.*s)", name, tgid, (int)blen, base);
}

char *pp_image_display(struct op_parsed_name const *n)
{
	/* past the daemon's bound on regions, an app's further anonymous
	 * regions share one image: tgid 0, no range (opd_core.c); its
	 * files hold samples of many processes, so no pid names it */
	if (n->image_is_anon && !n->anon_tgid &&
	    OP_MANGLE_ANON_MERGED(n->anon_start, n->anon_end))
		return op_xasprintf("%s (regions past the bound, merged)",
				    n->image_name);
	if (n->image_is_anon)
		return pp_anon_display(n->image_name, n->anon_tgid,
				       n->app_is_kernel ? NULL : n->app_name);
	return pp_path_display(n->image_name);
}

struct sort_ctx {
	struct pp_filelist const *files;
	bool merge_lib;
};

static int cmp_u64(uint64_t a, uint64_t b)
{
	return a < b ? -1 : a > b;
}

/* Same image (B): same kind, name, anon region and, for kernels, session. */
static int cmp_image(struct pp_sfile const *a, struct pp_sfile const *b)
{
	struct op_parsed_name const *x = &a->name, *y = &b->name;
	int c = x->image_is_kernel - y->image_is_kernel;

	if (!c)
		c = x->image_is_anon - y->image_is_anon;
	if (!c)
		c = strcmp(x->image_name, y->image_name);
	if (!c && x->image_is_anon)
		c = x->anon_tgid - y->anon_tgid;
	if (!c && x->image_is_anon)
		c = cmp_u64(x->anon_start, y->anon_start);
	if (!c && x->image_is_anon)
		c = cmp_u64(x->anon_end, y->anon_end);
	if (!c && x->image_is_kernel)
		c = cmp_u64(a->session, b->session);
	return c;
}

static char const *app_of(struct pp_sfile const *f, bool merge_lib)
{
	return merge_lib ? NULL : f->name.app_name;
}

static int cmp_app(struct pp_sfile const *a, struct pp_sfile const *b,
		   bool merge_lib)
{
	char const *x = app_of(a, merge_lib), *y = app_of(b, merge_lib);

	if (!x || !y)
		return 0;
	return strcmp(x, y);
}

static int cmp_index(void const *pa, void const *pb, void *arg)
{
	struct sort_ctx const *ctx = arg;
	struct pp_sfile const *a = &ctx->files->v[*(size_t const *)pa];
	struct pp_sfile const *b = &ctx->files->v[*(size_t const *)pb];
	int c = cmp_image(a, b);

	if (!c)
		c = cmp_app(a, b, ctx->merge_lib);
	if (!c)
		c = a->cls - b->cls;
	if (!c)
		c = strcmp(a->path, b->path);
	return c;
}

static void add_group(struct pp_inverted *inv, struct pp_sfile const *f,
		      bool merge_lib)
{
	struct pp_group *g;

	OP_ALLOC_GROW(inv->groups, inv->n + 1, inv->alloc);
	g = &inv->groups[inv->n++];
	g->app = merge_lib ? pp_image_display(&f->name) :
			     pp_path_display(f->name.app_name);
	g->cls = f->cls;
	g->files = NULL;
	g->n = 0;
	g->alloc = 0;
}

void pp_invert(struct pp_filelist const *files, bool merge_lib,
	       struct pp_invlist *out)
{
	struct sort_ctx ctx = { files, merge_lib };
	size_t *idx = op_xcalloc(files->n, sizeof(*idx));

	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < files->n; i++)
		idx[i] = i;
	if (files->n > 1)
		qsort_r(idx, files->n, sizeof(*idx), cmp_index, &ctx);
	for (size_t i = 0; i < files->n; i++) {
		struct pp_sfile const *f = &files->v[idx[i]];
		struct pp_sfile const *prev = i ? &files->v[idx[i - 1]] : NULL;
		struct pp_inverted *inv;
		struct pp_group *g;

		if (!prev || cmp_image(prev, f)) {
			OP_ALLOC_GROW(out->v, out->n + 1, out->alloc);
			out->v[out->n++] = (struct pp_inverted){
				.first = idx[i],
			};
			prev = NULL;
		}
		inv = &out->v[out->n - 1];
		if (!prev || cmp_app(prev, f, merge_lib) || prev->cls != f->cls)
			add_group(inv, f, merge_lib);
		g = &inv->groups[inv->n - 1];
		OP_ALLOC_GROW(g->files, g->n + 1, g->alloc);
		g->files[g->n++] = idx[i];
	}
	free(idx);
}

void pp_invlist_free(struct pp_invlist *l)
{
	for (size_t i = 0; i < l->n; i++) {
		for (size_t j = 0; j < l->v[i].n; j++) {
			free(l->v[i].groups[j].app);
			free(l->v[i].groups[j].files);
		}
		free(l->v[i].groups);
	}
	free(l->v);
	memset(l, 0, sizeof(*l));
}
