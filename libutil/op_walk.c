/* The one directory walk; see op_walk.h. */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "op_alloc.h"
#include "op_walk.h"

struct walk {
	unsigned flags;
	int (*fn)(void *arg, struct op_walk_entry const *e);
	int (*dir_err)(void *arg, char const *path, int errnum);
	void *arg;
	size_t root_len;
};

static int walk_dir(struct walk *w, char const *dir, int depth);

/* One entry: fn, then what it holds when it is a directory to go into. */
static int walk_entry(struct walk *w, char const *dir, char const *name,
		      int depth)
{
	struct op_walk_entry e = { .name = name, .depth = depth };
	char *path = op_xasprintf("%s/%s", dir, name);
	struct stat st;
	int ret;

	e.path = path;
	e.rel = path + w->root_len + 1;
	if (w->flags & (OP_WALK_STAT | OP_WALK_RECURSE)) {
		if (lstat(path, &st))
			e.errnum = errno;
		else
			e.st = &st;
	}
	ret = w->fn(w->arg, &e);
	if (ret == OP_WALK_PRUNE)
		ret = 0;
	else if (!ret && (w->flags & OP_WALK_RECURSE) && e.st &&
		 S_ISDIR(st.st_mode))
		ret = walk_dir(w, path, depth + 1);
	free(path);
	return ret;
}

static int walk_dir(struct walk *w, char const *dir, int depth)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int ret = 0;

	if (!d) {
		if (w->dir_err)
			return w->dir_err(w->arg, dir, errno);
		return depth ? 0 : -1;
	}
	while (!ret && (de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			ret = walk_entry(w, dir, de->d_name, depth);
	closedir(d);
	return ret;
}

int op_walk(char const *root, unsigned flags,
	    int (*fn)(void *arg, struct op_walk_entry const *e),
	    int (*dir_err)(void *arg, char const *path, int errnum),
	    void *arg)
{
	struct walk w = { flags, fn, dir_err, arg, strlen(root) };

	return walk_dir(&w, root, 0);
}
