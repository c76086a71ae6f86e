/* Finding sampled binaries below a root or in image path dirs; see pp_locate.h. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "op_util.h"
#include "op_walk.h"
#include "pp_debuginfo.h"
#include "pp_locate.h"

#define INDEX_DEPTH 16

int pp_locate_init(struct pp_locate *l, char const *root,
		   char const *image_path, char *err, size_t errlen)
{
	memset(l, 0, sizeof(*l));
	if (root && root[0]) {
		size_t len = strlen(root);

		l->root = op_xstrdup(root);
		while (len > 1 && l->root[len - 1] == '/')
			l->root[--len] = '\0';
	}
	/* separate debug files of an archive or sysroot are below it too */
	pp_debuginfo_set_root(l->root);
	if (image_path && pp_strlist_split(&l->dirs, image_path, err, errlen))
		return -1;
	return 0;
}

static bool is_file(char const *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISREG(st.st_mode);
}

static int index_entry(void *arg, struct op_walk_entry const *e)
{
	struct pp_locate *l = arg;

	if (e->st && S_ISDIR(e->st->st_mode))
		return e->depth < INDEX_DEPTH ? 0 : OP_WALK_PRUNE;
	if (is_file(e->path)) {
		pp_strlist_add(&l->names, e->name);
		pp_strlist_add(&l->paths, e->path);
	}
	return 0;
}

static void index_dir(struct pp_locate *l, char const *dir)
{
	op_walk(dir, OP_WALK_RECURSE, index_entry, NULL, l);
}

static char *find_in_dirs(struct pp_locate *l, char const *image,
			  char *why, size_t whylen)
{
	char const *base = strrchr(image, '/');
	struct pp_strlist found = { 0 };
	char *out = NULL;

	base = base ? base + 1 : image;
	if (!l->indexed) {
		for (size_t i = 0; i < l->dirs.n; i++)
			index_dir(l, l->dirs.v[i]);
		l->indexed = true;
	}
	for (size_t i = 0; i < l->names.n; i++)
		if (!strcmp(l->names.v[i], base) &&
		    !pp_strlist_has(&found, l->paths.v[i]))
			pp_strlist_add(&found, l->paths.v[i]);
	if (found.n == 1) {
		out = op_xstrdup(found.v[0]);
	} else if (found.n > 1) {
		char *list = pp_strlist_join(&found, 4);
		snprintf(why, whylen, "'%s' is ambiguous in --image-path: %s",
			 base, list);
		free(list);
	}
	pp_strlist_free(&found);
	return out;
}

char *pp_locate_image(struct pp_locate *l, char const *image,
		      char *why, size_t whylen)
{
	char *path, *dirs;

	path = op_xasprintf("%s%s", l->root ? l->root : "", image);
	if (is_file(path))
		return path;
	why[0] = '\0';
	if (l->dirs.n) {
		char *found = find_in_dirs(l, image, why, whylen);
		if (found) {
			free(path);
			return found;
		}
	}
	if (!why[0]) {
		dirs = pp_strlist_join(&l->dirs, 4);
		if (l->root || l->dirs.n)
			snprintf(why, whylen, "not found at '%s'%s%s", path,
				 l->dirs.n ? " nor in --image-path " : "",
				 dirs);
		else
			snprintf(why, whylen, "no such file; --image-path "
				 "or --root can say where it is now");
		free(dirs);
	}
	free(path);
	return NULL;
}

void pp_locate_free(struct pp_locate *l)
{
	free(l->root);
	pp_strlist_free(&l->dirs);
	pp_strlist_free(&l->names);
	pp_strlist_free(&l->paths);
	memset(l, 0, sizeof(*l));
}
