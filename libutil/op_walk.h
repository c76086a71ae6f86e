/*
 * The one directory walk: every entry of a directory, or of a whole
 * tree, handed to a callback with its path, its path below the root and
 * (when asked) its lstat. Written once so that each walker skips "." and
 * "..", never follows a symbolic link into another tree, and frees what
 * it allocated, the same way.
 */
#ifndef OP_WALK_H
#define OP_WALK_H

#include <sys/stat.h>

struct op_walk_entry {
	char const *path;	/* ROOT/.../NAME */
	char const *rel;	/* the path below ROOT: "NAME", "DIR/NAME" */
	char const *name;	/* the last component */
	struct stat const *st;	/* its lstat (OP_WALK_STAT); NULL when not
				 * asked or when lstat failed (errnum) */
	int errnum;		/* lstat's errno, or 0 */
	int depth;		/* 0 for an entry of ROOT itself */
};

/* op_walk's flags. */
enum {
	OP_WALK_STAT = 1,	/* lstat each entry */
	OP_WALK_RECURSE = 2,	/* go into directories (lstat's: a link to
				 * one is not followed); implies OP_WALK_STAT */
};

/* What fn may return, besides 0 (go on, into a directory too) and a
 * value that stops the walk: go on, but not into this directory. */
#define OP_WALK_PRUNE 1

/*
 * Call fn(arg, e) for each entry below root other than "." and "..", in
 * readdir order, a directory before what it holds (OP_WALK_RECURSE).
 * fn's value other than 0 and OP_WALK_PRUNE stops the walk and is
 * returned. A directory that cannot be read (root included) is passed to
 * dir_err(arg, path, errno): its value other than 0 stops the walk and
 * is returned, 0 goes on. Without dir_err such a directory below root is
 * skipped, and root itself gives -1 with errno set. Else 0.
 */
int op_walk(char const *root, unsigned flags,
	    int (*fn)(void *arg, struct op_walk_entry const *e),
	    int (*dir_err)(void *arg, char const *path, int errnum),
	    void *arg);

#endif /* OP_WALK_H */
