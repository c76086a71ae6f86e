/* Copying a profile, its binaries and debug files; see pp_archive.h. */
#include "config.h"

#include <bfd.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "op_build_id.h"
#include "op_config.h"
#include "op_escape.h"
#include "op_file.h"
#include "op_mangle.h"
#include "op_message.h"
#include "op_session.h"
#include "op_stacks.h"
#include "op_util.h"
#include "op_walk.h"
#include "pp_archive.h"
#include "pp_debuginfo.h"
#include "pp_files.h"
#include "pp_locate.h"

struct archiver {
	struct pp_archive_opts const *o;
	struct pp_filelist const *files;
	char **sess;               /* each session's directory below DIR */
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

struct tree_put {
	struct archiver *a;
	char const *to_rel;
};

static int put_tree_entry(void *arg, struct op_walk_entry const *e)
{
	struct tree_put *t = arg;
	char *to;

	if (e->st && S_ISREG(e->st->st_mode)) {
		to = op_xasprintf("%s/%s", t->to_rel, e->rel);
		put_session_file(t->a, e->path, to);
		free(to);
	}
	return 0;
}

/* Every regular file below dir, at the same place below to_rel. */
static void put_tree(struct archiver *a, char const *dir, char const *to_rel)
{
	struct tree_put t = { a, to_rel };

	op_walk(dir, OP_WALK_RECURSE, put_tree_entry, NULL, &t);
}

/* Whether the file at path has the .gnu_debuglink CRC crc. */
static bool crc_is(char const *path, unsigned long crc)
{
	unsigned long got = 0;
	char buf[65536];
	ssize_t n;
	int fd = op_open_regular(path, O_RDONLY);

	if (fd < 0)
		return false;
	while ((n = op_read_full(fd, buf, sizeof(buf))) > 0)
		got = bfd_calc_gnu_debuglink_crc32(got, (bfd_byte *)buf,
						   (bfd_size_type)n);
	close(fd);
	return !n && got == crc;
}

/*
 * The debug file of the binary at path, archived as image: where
 * OProfile 1.x's reports look in an archive, IMAGEDIR/.debug/NAME, when
 * the binary's .gnu_debuglink names it and its CRC is that file's (a
 * file found by build-id may be another copy; ours look there too); else at
 * its build-id path when it has one; else at its own.
 */
static void put_debug_file(struct archiver *a, char const *path,
			   char const *image)
{
	char const *why;
	bfd *abfd = pp_bfd_open_object(path, &why);
	struct pp_build_id id;
	enum pp_debug_how how;
	unsigned long crc = 0;
	char *dpath, *rel, *link;
	char hex[2 * PP_BUILD_ID_MAX + 1];

	if (!abfd)
		return;
	if (pp_bfd_has_dwarf(abfd) ||
	    !(dpath = pp_debuginfo_find(abfd, path, NULL, &how))) {
		bfd_close(abfd);
		return;
	}
	link = bfd_get_debug_link_info(abfd, &crc);
	if (link && op_debuglink_name_ok(link) && crc_is(dpath, crc)) {
		char const *slash = strrchr(image, '/');

		rel = op_xasprintf("%.*s/.debug/%s",
				   slash ? (int)(slash - image) : 0, image, link);
	} else if (pp_build_id_read(abfd, &id) && id.len > 1) {
		pp_build_id_hex(&id, hex);
		rel = op_xasprintf("/usr/lib/debug/.build-id/%.2s/%s.debug",
				   hex, hex + 2);
	} else {
		rel = op_xstrdup(dpath);
	}
	free(link);
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
		      char const *id, size_t idlen, size_t s)
{
	char have[OP_BUILD_ID_HEX_MAX], why[1024];
	char *path, *loc, *to;

	path = op_xasprintf("%.*s", (int)plen, image);
	loc = pp_locate_image(a->o->locate, path, why, sizeof(why));
	to = op_xasprintf("%s/%s/%s/%.*s", a->sess[s], OP_META_DIR,
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

/*
 * The binary at the sampled path is another build than the one the
 * session recorded (rebuilt since): archived as if sampled, it would
 * give its symbols to samples of other code, and OProfile's reports
 * cannot tell. The sampled build instead: the session's copy of it
 * (--keep-binaries), at the binary's path; else its debug file, by
 * build-id (the reports map it through the session's segments); else
 * nothing, and the warning names both builds.
 */
static void put_rebuilt(struct archiver *a, char const *image,
			char const *loc, char const *have, char const *want,
			size_t s)
{
	char const *dir = a->files->sessions[s].dir;
	char *kept = op_xasprintf("%s/%s/%s/%s", dir, OP_META_DIR,
				  OP_META_BINARIES, want);
	char const *shown = have[0] ? have : "none";
	struct pp_build_id id;
	enum pp_debug_how how;
	struct stat st;
	char *dpath = NULL, *rel;

	if (!stat(kept, &st) && S_ISREG(st.st_mode)) {
		op_warn("binary '%s' is another build than the one sampled "
			"(build-id %s, the session recorded %s): the session's "
			"copy of the sampled build '%s' archived in its place",
			loc, shown, want, kept);
		put(a, kept, image);
		put_debug_file(a, kept, image);
	} else if (pp_build_id_parse(want, &id) &&
		   (dpath = pp_debuginfo_find_id(&id, &how))) {
		op_warn("binary '%s' is another build than the one sampled "
			"(build-id %s, the session recorded %s): not archived; "
			"the sampled build's debug file '%s' archived instead",
			loc, shown, want, dpath);
		rel = op_xasprintf("/usr/lib/debug/.build-id/%.2s/%s.debug",
				   want, want + 2);
		put(a, dpath, rel);
		free(rel);
	} else {
		op_warn("binary '%s' not archived: it is another build than "
			"the one sampled (build-id %s, the session recorded %s) "
			"and neither a copy of the sampled build (%s/%s/%s) nor "
			"its debug file was found", loc, shown, want,
			OP_META_DIR, OP_META_BINARIES, want);
	}
	free(dpath);
	free(kept);
}

static void put_binary(struct archiver *a, char const *image, size_t s)
{
	char why[1024], want[OP_BUILD_ID_HEX_MAX], have[OP_BUILD_ID_HEX_MAX];
	char const *id;
	size_t plen, idlen;
	uint64_t mtime = 0;
	struct stat st;
	char *path;

	if (pp_strlist_has(&a->images, image))
		return;
	pp_strlist_add(&a->images, image);
	plen = op_build_tag_split(image, &id, &idlen);
	if (plen) {
		put_build(a, image, plen, id, idlen, s);
		return;
	}
	path = pp_locate_image(a->o->locate, image, why, sizeof(why));
	if (!path) {
		op_warn("binary '%s' not archived: %s", image, why);
		return;
	}
	/* the build the session recorded for the path, as the reports
	 * look it up (the line of the binary's mtime, else the last) */
	if (!stat(path, &st))
		mtime = (uint64_t)st.st_mtime;
	if (pp_session_build_id(a->files->sessions[s].dir, image, mtime, want,
				sizeof(want)) &&
	    (op_build_id_of(path, have) || strcmp(have, want))) {
		put_rebuilt(a, image, path, have, want, s);
		free(path);
		return;
	}
	put(a, path, image);
	put_debug_file(a, path, image);
	free(path);
}

static void put_sample_file(struct archiver *a, struct pp_sfile const *f)
{
	struct op_parsed_name const *n = &f->name;
	char const *dir = a->files->sessions[f->session].dir;
	size_t dl = strlen(dir);
	char *to;

	/* a sample file is below its session's directory (pp_files.c) */
	if (strncmp(f->path, dir, dl) || f->path[dl] != '/')
		to = op_xstrdup(f->path);
	else
		to = op_xasprintf("%s%s", a->sess[f->session], f->path + dl);
	put_session_file(a, f->path, to);
	free(to);
	if (!n->image_is_kernel && !n->image_is_anon)
		put_binary(a, n->image_name, f->session);
	if (n->is_callgraph && n->cg_image_name && !n->cg_is_kernel &&
	    !n->cg_is_anon)
		put_binary(a, n->cg_image_name, f->session);
}

/*
 * The session's whole stacks (stacks/), and the binaries their frames
 * are in: a caller's library may hold no sample of its own, and without
 * it the archive's --stacks would show that frame without a name.
 */
static void put_stacks(struct archiver *a, size_t s)
{
	char const *dir = a->files->sessions[s].dir;
	char *from = op_session_path(dir, OP_STACKS_DIR);
	char *to = op_xasprintf("%s/%s", a->sess[s], OP_STACKS_DIR);
	struct op_stacks *st;
	struct op_parsed_name pn;
	char err[256];

	put_tree(a, from, to);
	free(to);
	free(from);
	if (op_stacks_open(dir, &st))
		return;		/* none, or an error already said */
	for (size_t i = 0; i < op_stacks_nimages(st); i++) {
		char const *name = op_stacks_image(st, (uint32_t)i)->name;

		if (op_parse_image_name(name, &pn, err, sizeof(err))) {
			op_warn("stack table of '%s': image '%s' is no image "
				"name (%s): its binary not archived", dir,
				name, err);
			continue;
		}
		if (!pn.image_is_kernel && !pn.image_is_anon)
			put_binary(a, pn.image_name, s);
		op_parsed_name_free(&pn);
	}
	op_stacks_close(st);
}

/*
 * Each session's directory in the archive, as OProfile's oparchive
 * names it: PP_ARCHIVE_SESSION_DIR/samples/ and its directory's name
 * (a second session of the same name gets ".2", ...).
 */
static void name_sessions(struct archiver *a)
{
	struct pp_strlist used = { 0 };

	a->sess = op_xmalloc((a->files->nr_sessions + 1) * sizeof(*a->sess));
	for (size_t s = 0; s < a->files->nr_sessions; s++) {
		char const *dir = a->files->sessions[s].dir;
		char const *slash = strrchr(dir, '/');
		char const *base = slash ? slash + 1 : dir;
		char *name;

		if (!*base || !strcmp(base, ".") || !strcmp(base, ".."))
			base = OP_CURRENT_SESSION;
		name = op_xstrdup(base);
		for (unsigned i = 2; pp_strlist_has(&used, name); i++) {
			free(name);
			name = op_xasprintf("%s.%u", base, i);
		}
		pp_strlist_add(&used, name);
		a->sess[s] = op_xasprintf("%s/%s/%s", PP_ARCHIVE_SESSION_DIR,
					  OP_SAMPLES_DIR, name);
		free(name);
	}
	pp_strlist_free(&used);
}

/* name=value, the value escaped (it comes from input: a path) */
static void manifest_line(FILE *m, char const *key, char const *value)
{
	char *v = op_escape(value);

	fprintf(m, "%s=%s\n", key, v);
	free(v);
}

/* DIR/PP_ARCHIVE_MANIFEST: what the archive holds (pp_archive.h) */
static void put_manifest(struct archiver *a)
{
	char *text = NULL, err[1024], when[64];
	size_t len = 0;
	time_t now = time(NULL);
	struct tm tm;
	FILE *m = open_memstream(&text, &len);

	if (!m)
		op_die("out of memory");
	if (!gmtime_r(&now, &tm) ||
	    !strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm))
		snprintf(when, sizeof(when), "%lld", (long long)now);
	fprintf(m, "# oparchive: a profile, its binaries and debug files; "
		"read with opreport archive:DIR\n");
	fprintf(m, "format=%d\n", PP_ARCHIVE_FORMAT);
	fprintf(m, "tool=oparchive (%s %s)\n", PACKAGE, PACKAGE_VERSION);
	fprintf(m, "created=%s\n", when);
	if (a->o->session_dir)
		manifest_line(m, "session_dir", a->o->session_dir);
	fprintf(m, "samples=%s/%s\n", PP_ARCHIVE_SESSION_DIR, OP_SAMPLES_DIR);
	for (size_t s = 0; s < a->files->nr_sessions; s++) {
		char *from = op_escape(a->files->sessions[s].dir);
		char *name = op_escape(strrchr(a->sess[s], '/') + 1);

		fprintf(m, "session=%s %s\n", name, from);
		free(name);
		free(from);
	}
	if (fclose(m))
		op_die("out of memory");
	if (op_write_file_beneath(a->o->dir, PP_ARCHIVE_MANIFEST, text, len,
				  err, sizeof(err))) {
		op_error("%s", err);
		a->rc = -1;
	}
	free(text);
}

int pp_archive(struct pp_filelist const *files,
	       struct pp_archive_opts const *o)
{
	struct archiver a = { .o = o, .files = files };
	char *conf, *to;
	struct stat st;

	bfd_init();
	if (!o->list) {
		int rc = op_mkdir_p(o->dir);

		if (rc)
			return op_error("cannot create '%s': %s", o->dir,
					op_file_strerror(-rc));
	}
	name_sessions(&a);
	for (size_t i = 0; i < files->n; i++)
		put_sample_file(&a, &files->v[i]);
	for (size_t i = 0; i < files->nr_cg; i++)
		put_sample_file(&a, &files->cg[i]);
	for (size_t s = 0; s < files->nr_sessions; s++) {
		char const *dir = files->sessions[s].dir;
		char *meta = op_session_path(dir, OP_META_DIR);
		char *stats = op_session_path(dir, OP_STATS_DIR);

		to = op_xasprintf("%s/%s", a.sess[s], OP_META_DIR);
		put_tree(&a, meta, to);
		free(to);
		to = op_xasprintf("%s/%s", a.sess[s], OP_STATS_DIR);
		put_tree(&a, stats, to);
		free(to);
		free(meta);
		free(stats);
		put_stacks(&a, s);
		conf = op_session_path(dir, OP_SESSION_CONF);
		to = op_xasprintf("%s/%s", a.sess[s], OP_SESSION_CONF);
		if (!stat(conf, &st))
			put_session_file(&a, conf, to);
		free(to);
		free(conf);
	}
	if (!o->list)
		put_manifest(&a);
	for (size_t s = 0; s < files->nr_sessions; s++)
		free(a.sess[s]);
	free(a.sess);
	pp_strlist_free(&a.done);
	pp_strlist_free(&a.images);
	return a.rc;
}

/* --- reading an archive ---------------------------------------------------- */

int pp_archive_manifest_parse(char const *text, size_t len, char **samples,
			      char *err, size_t errlen)
{
	char const *p = text, *end = text + len;
	unsigned line = 0;
	bool have_format = false;

	*samples = NULL;
	if (memchr(text, '\0', len)) {
		snprintf(err, errlen, "a NUL byte: not a text file");
		return -1;
	}
	for (size_t n = 0; p < end; p += n + (p + n < end)) {
		char const *eq, *v;
		size_t klen, vlen;

		n = strcspn(p, "\n");
		eq = memchr(p, '=', n);
		klen = eq ? (size_t)(eq - p) : 0;
		v = eq ? eq + 1 : NULL;
		vlen = eq ? n - klen - 1 : 0;
		line++;
		if (!n || p[0] == '#')
			continue;
		if (!eq || !klen) {
			snprintf(err, errlen, "line %u: not key=value", line);
			goto bad;
		}
		if (klen == 6 && !memcmp(p, "format", 6)) {
			char *e;
			unsigned long f;

			if (!vlen || !memchr("0123456789", v[0], 10))
				f = 0, e = (char *)v;
			else
				f = strtoul(v, &e, 10);
			if (e != v + vlen || !f) {
				snprintf(err, errlen, "line %u: format is not "
					 "a number", line);
				goto bad;
			}
			if (f > PP_ARCHIVE_FORMAT) {
				snprintf(err, errlen, "format %lu: made by a later "
					 "oparchive (this one reads format %d)",
					 f, PP_ARCHIVE_FORMAT);
				goto bad;
			}
			have_format = true;
		} else if (klen == 7 && !memcmp(p, "samples", 7)) {
			char *path = op_xasprintf("%.*s", (int)vlen, v);

			free(*samples);
			*samples = path;
			if (path[0] != '/' || op_needs_escape(path, vlen) ||
			    op_path_escapes(path)) {
				char *shown = op_escape(path);

				snprintf(err, errlen, "line %u: samples '%s' is "
					 "not an absolute path below the archive "
					 "without '..' and control bytes", line,
					 shown);
				free(shown);
				goto bad;
			}
		}
		/* other keys say what the archive holds, for its reader */
	}
	if (!have_format) {
		snprintf(err, errlen, "no format= line");
		goto bad;
	}
	return 0;
bad:
	free(*samples);
	*samples = NULL;
	return -1;
}

static bool is_dir(char const *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISDIR(st.st_mode);
}

/*
 * The manifest's samples directory below dir (malloc'd), or NULL: none,
 * or one that cannot be used, warned about. Read beneath dir only: no
 * symbolic link, no FIFO or device, at most PP_ARCHIVE_MANIFEST_MAX.
 */
static char *manifest_samples(char const *dir)
{
	char *shown = op_xasprintf("%s/%s", dir, PP_ARCHIVE_MANIFEST);
	char *text = NULL, *samples = NULL, err[512];
	int fd = op_open_beneath(dir, PP_ARCHIVE_MANIFEST,
				 O_RDONLY | O_NONBLOCK, 0);
	ssize_t n = -1;

	if (fd < 0) {
		if (errno != ENOENT)
			op_warn("archive manifest '%s' not read: %s", shown,
				op_file_strerror(errno));
		goto out;
	}
	text = op_xmalloc(PP_ARCHIVE_MANIFEST_MAX + 1);
	n = op_read_full(fd, text, PP_ARCHIVE_MANIFEST_MAX + 1);
	close(fd);
	if (n < 0) {
		op_warn("archive manifest '%s' not read: %s", shown,
			strerror(errno));
		goto out;
	}
	if (n > PP_ARCHIVE_MANIFEST_MAX) {
		op_warn("archive manifest '%s' not read: larger than %d bytes",
			shown, PP_ARCHIVE_MANIFEST_MAX);
		goto out;
	}
	text[n] = '\0';
	if (pp_archive_manifest_parse(text, (size_t)n, &samples, err,
				      sizeof(err))) {
		op_warn("archive manifest '%s': %s; ignored", shown, err);
		goto out;
	}
out:
	free(text);
	free(shown);
	return samples;
}

char *pp_archive_session_base(char const *dir, char const *session_dir)
{
	char *samples = manifest_samples(dir), *base, *probe;
	size_t sl = samples ? strlen(samples) : 0;
	size_t tl = strlen("/" OP_SAMPLES_DIR);

	/* the session directory is the samples directory's parent */
	if (samples) {
		probe = op_xasprintf("%s%s", dir, samples);
		if (sl > tl && !strcmp(samples + sl - tl, "/" OP_SAMPLES_DIR) &&
		    is_dir(probe)) {
			base = op_xasprintf("%s%.*s", dir, (int)(sl - tl), samples);
			free(probe);
			free(samples);
			return base;
		}
		op_warn("archive manifest '%s/%s': samples '%s' is no '%s' "
			"directory in the archive; ignored", dir,
			PP_ARCHIVE_MANIFEST, samples, OP_SAMPLES_DIR);
		free(probe);
	}
	free(samples);
	probe = op_xasprintf("%s%s/%s", dir, PP_ARCHIVE_SESSION_DIR,
			     OP_SAMPLES_DIR);
	base = is_dir(probe) ? op_xasprintf("%s%s", dir, PP_ARCHIVE_SESSION_DIR)
			     : op_xasprintf("%s/%s", dir, session_dir);
	free(probe);
	return base;
}
