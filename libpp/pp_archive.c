/* Copying a profile, its binaries and debug files; see pp_archive.h. */
#include "config.h"

#include <bfd.h>
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "op_build_id.h"
#include "op_escape.h"
#include "op_file.h"
#include "op_message.h"
#include "op_session.h"
#include "op_util.h"
#include "pp_archive.h"
#include "pp_debuginfo.h"
#include "pp_files.h"
#include "pp_locate.h"

struct archiver {
	struct pp_archive_opts const *o;
	struct pp_strlist done;    /* destinations already written */
	struct pp_strlist images;  /* binaries already looked for */
	int rc;
};

/*
 * Copy from to DIR/to_rel, keeping its mtime; listed instead with list.
 * Beneath DIR only (op_copy_file_beneath): to_rel comes from the session
 * and from the binaries (a debug file's path), a '..' in it or a link
 * planted in an existing DIR must not send root's copy elsewhere.
 */
static void put(struct archiver *a, char const *from, char const *to_rel)
{
	char *to = op_xasprintf("%s%s%s", a->o->dir, to_rel[0] == '/' ? "" : "/",
				to_rel);
	char err[1024];

	if (pp_strlist_has(&a->done, to)) {
		free(to);
		return;
	}
	pp_strlist_add(&a->done, to);
	if (a->o->list) {
		op_fputs_escaped(a->o->list, from);
		fputc('\n', a->o->list);
		free(to);
		return;
	}
	if (op_copy_file_beneath(from, a->o->dir, to_rel, err, sizeof(err))) {
		op_error("%s", err);
		a->rc = -1;
	}
	free(to);
}

/*
 * The largest session file copied: the largest any reader takes (a stack
 * table, 4 GiB). A session file past it (a planted 64 GiB sparse file)
 * is refused by its size, before a byte is read, not copied for minutes.
 */
#define SESSION_FILE_MAX (1ull << 32)

/* put of a file of the session itself (samples, stacks, metadata). */
static void put_session_file(struct archiver *a, char const *from,
			     char const *to_rel)
{
	struct stat st;

	if (!stat(from, &st) && (uint64_t)st.st_size > SESSION_FILE_MAX) {
		op_error("'%s' is %lld bytes, more than a session file holds "
			 "(at most %llu): not archived", from,
			 (long long)st.st_size, SESSION_FILE_MAX);
		a->rc = -1;
		return;
	}
	put(a, from, to_rel);
}

/* Every regular file below dir, at its own path below DIR. */
static void put_tree(struct archiver *a, char const *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d))) {
		struct stat st;
		char *p;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		p = op_xasprintf("%s/%s", dir, e->d_name);
		if (!lstat(p, &st) && S_ISDIR(st.st_mode))
			put_tree(a, p);
		else if (S_ISREG(st.st_mode))
			put_session_file(a, p, p);
		free(p);
	}
	closedir(d);
}

/* The debug file of a binary: at its build-id path when it has one. */
static void put_debug_file(struct archiver *a, char const *path)
{
	bfd *abfd = pp_bfd_open_object(path);
	struct pp_build_id id;
	enum pp_debug_how how;
	char *dpath, *rel;
	char hex[2 * PP_BUILD_ID_MAX + 1];

	if (!abfd)
		return;
	if (pp_bfd_has_dwarf(abfd) ||
	    !(dpath = pp_debuginfo_find(abfd, path, NULL, &how))) {
		bfd_close(abfd);
		return;
	}
	if (pp_build_id_read(abfd, &id) && id.len > 1) {
		pp_build_id_hex(&id, hex);
		rel = op_xasprintf("/usr/lib/debug/.build-id/%.2s/%s.debug",
				   hex, hex + 2);
	} else {
		rel = op_xstrdup(dpath);
	}
	bfd_close(abfd);
	put(a, dpath, rel);
	free(rel);
	free(dpath);
}

/*
 * A later build of a path (PATH/{build:ID}, op_mangle.h) is read from
 * its session's binaries/ID: archived there from PATH when PATH is that
 * build (a copy the daemon kept is archived with the session anyway).
 */
static void put_build(struct archiver *a, char const *image, size_t plen,
		      char const *id, size_t idlen, char const *session_dir)
{
	char have[OP_BUILD_ID_HEX_MAX], why[1024];
	char *path, *loc, *to;

	path = op_xasprintf("%.*s", (int)plen, image);
	loc = pp_locate_image(a->o->locate, path, why, sizeof(why));
	to = op_xasprintf("%s/%s/%s/%.*s", session_dir, OP_META_DIR,
			  OP_META_BINARIES, (int)idlen, id);
	if (!loc)
		op_warn("binary '%s' not archived: %s", image, why);
	else if (id[0] == 'm' || op_build_id_of(loc, have) ||
		 strlen(have) != idlen || memcmp(have, id, idlen))
		op_warn("binary '%s' not archived from '%s': that is another "
			"build", image, loc);
	else
		put(a, loc, to);
	free(to);
	free(loc);
	free(path);
}

static void put_binary(struct archiver *a, char const *image,
		       char const *session_dir)
{
	char why[1024];
	char const *id;
	size_t plen, idlen;
	char *path;

	if (pp_strlist_has(&a->images, image))
		return;
	pp_strlist_add(&a->images, image);
	plen = op_build_tag_split(image, &id, &idlen);
	if (plen) {
		put_build(a, image, plen, id, idlen, session_dir);
		return;
	}
	path = pp_locate_image(a->o->locate, image, why, sizeof(why));
	if (!path) {
		op_warn("binary '%s' not archived: %s", image, why);
		return;
	}
	put(a, path, image);
	put_debug_file(a, path);
	free(path);
}

static void put_sample_file(struct archiver *a, struct pp_filelist const *fl,
			    struct pp_sfile const *f)
{
	struct op_parsed_name const *n = &f->name;
	char const *dir = fl->sessions[f->session].dir;

	put_session_file(a, f->path, f->path);
	if (!n->image_is_kernel && !n->image_is_anon)
		put_binary(a, n->image_name, dir);
	if (n->is_callgraph && n->cg_image_name && !n->cg_is_kernel &&
	    !n->cg_is_anon)
		put_binary(a, n->cg_image_name, dir);
}

int pp_archive(struct pp_filelist const *files,
	       struct pp_archive_opts const *o)
{
	struct archiver a = { .o = o };
	char *conf;
	struct stat st;

	bfd_init();
	if (!o->list) {
		int rc = op_mkdir_p(o->dir);

		if (rc)
			return op_error("cannot create '%s': %s", o->dir,
					op_file_strerror(-rc));
	}
	for (size_t i = 0; i < files->n; i++)
		put_sample_file(&a, files, &files->v[i]);
	for (size_t i = 0; i < files->nr_cg; i++)
		put_sample_file(&a, files, &files->cg[i]);
	for (size_t s = 0; s < files->nr_sessions; s++) {
		char const *dir = files->sessions[s].dir;
		char *meta = op_session_path(dir, OP_META_DIR);
		char *stats = op_session_path(dir, OP_STATS_DIR);

		put_tree(&a, meta);
		put_tree(&a, stats);
		free(meta);
		free(stats);
		conf = op_session_path(dir, OP_SESSION_CONF);
		if (!stat(conf, &st))
			put_session_file(&a, conf, conf);
		free(conf);
	}
	pp_strlist_free(&a.done);
	pp_strlist_free(&a.images);
	return a.rc;
}
