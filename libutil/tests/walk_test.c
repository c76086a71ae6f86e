/*
 * op_walk: every entry once with its path below the root and its depth,
 * "." and ".." never, a symbolic link to a directory not followed, a
 * FIFO or a device reported but never opened, names with control bytes
 * as they are; pruning, stopping, and directories that cannot be read
 * (the root, and one removed under the walk).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "check.h"
#include "op_util.h"
#include "op_walk.h"

static char const *dir;     /* check_tmpdir() */

struct seen {
	char list[4096];	/* "rel:depth:type " per entry, sorted later */
	int prune_sub;		/* prune "sub" */
	int stop_at;		/* stop with -7 at the entry named "stop" */
	int remove_gone;	/* rmdir "gone" when it is reported */
	char errs[1024];	/* dir_err's paths */
};

static int record(void *arg, struct op_walk_entry const *e)
{
	struct seen *s = arg;
	char t = !e->st ? '?' : S_ISDIR(e->st->st_mode) ? 'd' :
		 S_ISREG(e->st->st_mode) ? 'f' : S_ISLNK(e->st->st_mode) ? 'l' :
		 S_ISFIFO(e->st->st_mode) ? 'p' : S_ISCHR(e->st->st_mode) ? 'c' : 'o';
	size_t n = strlen(s->list);

	snprintf(s->list + n, sizeof(s->list) - n, "%s:%d:%c ", e->rel,
		 e->depth, t);
	if (strcmp(e->name, strrchr(e->path, '/') + 1) ||
	    strncmp(e->path, dir, strlen(dir)) ||
	    strcmp(e->path + strlen(dir) + 1, e->rel))
		strcat(s->list, "BADPATH ");
	if (s->remove_gone && !strcmp(e->name, "gone"))
		rmdir(e->path);
	if (s->stop_at && !strcmp(e->name, "stop"))
		return -7;
	return s->prune_sub && !strcmp(e->rel, "sub") ? OP_WALK_PRUNE : 0;
}

static int note_err(void *arg, char const *path, int errnum)
{
	struct seen *s = arg;
	size_t n = strlen(s->errs);

	snprintf(s->errs + n, sizeof(s->errs) - n, "%s:%s ",
		 path + (strncmp(path, dir, strlen(dir)) ? 0 : strlen(dir)),
		 errnum == ENOENT ? "ENOENT" : "other");
	return 0;
}

/* The entries sorted, so that readdir's order does not matter. */
static char *sorted(char const *list)
{
	char *copy = op_xstrdup(list), *words[64], *tok, *save = NULL;
	char *out = op_xmalloc(strlen(list) + 1);
	size_t n = 0;

	for (tok = strtok_r(copy, " ", &save); tok && n < 64;
	     tok = strtok_r(NULL, " ", &save))
		words[n++] = tok;
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && strcmp(words[j - 1], words[j]) > 0; j--) {
			tok = words[j];
			words[j] = words[j - 1];
			words[j - 1] = tok;
		}
	out[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		strcat(out, words[i]);
		strcat(out, " ");
	}
	free(copy);
	return out;
}

/* dir/rel, in a buffer of its own per call site's use (the last one). */
static char const *in_dir(char const *rel)
{
	static char buf[4096];

	snprintf(buf, sizeof(buf), "%s/%s", dir, rel);
	return buf;
}

static void make(char const *rel, char type)
{
	char const *p = in_dir(rel);
	int fd;

	if (type == 'd' && mkdir(p, 0755))
		check_bail("mkdir %s: %s", p, strerror(errno));
	if (type == 'f') {
		fd = open(p, O_WRONLY | O_CREAT | O_EXCL, 0644);
		if (fd < 0)
			check_bail("create %s: %s", p, strerror(errno));
		close(fd);
	}
	if (type == 'p' && mkfifo(p, 0644))
		check_bail("mkfifo %s: %s", p, strerror(errno));
	if (type == 'l' && symlink("/", p))
		check_bail("symlink %s: %s", p, strerror(errno));
}

int main(void)
{
	struct seen s;
	char *got, *missing;
	int ret;

	dir = check_tmpdir();
	make("a", 'f');
	make("sub", 'd');
	make("sub/b", 'f');
	make("sub/deep", 'd');
	make("sub/deep/c", 'f');
	make("sub/fifo", 'p');
	make("root-link", 'l');
	make("esc\x1b[31m\nname", 'f');
	make("..x", 'f');

	memset(&s, 0, sizeof(s));
	ret = op_walk(dir, OP_WALK_RECURSE, record, note_err, &s);
	got = sorted(s.list);
	check_int(ret, 0, "a whole walk returns 0");
	check_str(got, "..x:0:f a:0:f esc\x1b[31m\nname:0:f root-link:0:l "
		  "sub/b:1:f sub/deep/c:2:f sub/deep:1:d sub/fifo:1:p sub:0:d ",
		  "every entry once, at its depth; the link and the FIFO "
		  "reported, not followed or opened; names as they are");
	check_str(s.errs, "", "no directory failed");
	free(got);

	memset(&s, 0, sizeof(s));
	op_walk(dir, 0, record, NULL, &s);
	got = sorted(s.list);
	check_str(got, "..x:0:? a:0:? esc\x1b[31m\nname:0:? root-link:0:? sub:0:? ",
		  "without flags: the root's entries only, no lstat");
	free(got);

	memset(&s, 0, sizeof(s));
	s.prune_sub = 1;
	op_walk(dir, OP_WALK_RECURSE, record, NULL, &s);
	check(!strstr(s.list, "sub/"), "OP_WALK_PRUNE keeps the walk out of "
	      "that directory");
	check(strstr(s.list, "sub:0:d") != NULL, "but reports it");

	make("sub/deep/stop", 'f');
	memset(&s, 0, sizeof(s));
	s.stop_at = 1;
	ret = op_walk(dir, OP_WALK_RECURSE, record, NULL, &s);
	check_int(ret, -7, "fn's value stops the walk and is returned, from "
		  "two levels down");

	make("gone", 'd');
	make("gone/x", 'f');
	memset(&s, 0, sizeof(s));
	s.remove_gone = 1;
	unlink(in_dir("gone/x"));
	ret = op_walk(dir, OP_WALK_RECURSE, record, note_err, &s);
	check_int(ret, 0, "a directory gone under the walk: it goes on");
	check_str(s.errs, "/gone:ENOENT ", "dir_err names it and why");
	memset(&s, 0, sizeof(s));

	missing = op_xasprintf("%s/none", dir);
	errno = 0;
	ret = op_walk(missing, OP_WALK_RECURSE, record, NULL, &s);
	check(ret == -1 && errno == ENOENT, "a root that cannot be read: -1, "
	      "errno ENOENT");
	ret = op_walk(missing, OP_WALK_RECURSE, record, note_err, &s);
	check(ret == 0 && !strcmp(s.errs, "/none:ENOENT "),
	      "or dir_err's value, dir_err naming it: %s", s.errs);
	ret = op_walk(in_dir("a"), 0, record, NULL, &s);
	check(ret == -1 && errno == ENOTDIR, "a root that is a file: ENOTDIR");
	free(missing);

	return check_done();
}
