/* Finding a binary's separate debug file; see pp_debuginfo.h. */
#include "config.h"

#include <bfd.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "op_build_id.h"
#include "op_file.h"
#include "op_message.h"
#include "op_session.h"
#include "op_util.h"
#include "pp_debuginfo.h"
#include "pp_debuginfod.h"
#include "pp_strlist.h"

static char *debug_root;

void pp_debuginfo_set_root(char const *root)
{
	free(debug_root);
	debug_root = root && root[0] ? op_xstrdup(root) : NULL;
}

char const *pp_debug_how_name(enum pp_debug_how how)
{
	switch (how) {
	case PP_DEBUG_BUILD_ID: return "build-id";
	case PP_DEBUG_DEBUGLINK: return "debuglink";
	case PP_DEBUG_DEBUGINFOD: return "debuginfod";
	default: return "none";
	}
}

static void debug_dirs(struct pp_strlist *dirs)
{
	char const *env = getenv("OPROFILE_DEBUG_DIRS");
	char *copy = op_xstrdup(env && env[0] ? env : "/usr/lib/debug");
	char *save = NULL;

	for (char *d = strtok_r(copy, ":", &save); d;
	     d = strtok_r(NULL, ":", &save)) {
		char *p = op_xasprintf("%s%s", debug_root ? debug_root : "",
				       d);

		pp_strlist_add(dirs, p);
		free(p);
	}
	free(copy);
}

static char *by_build_id(struct pp_strlist const *dirs,
			 struct pp_build_id const *id)
{
	char hex[2 * PP_BUILD_ID_MAX + 1];

	if (id->len < 2)
		return NULL;
	pp_build_id_hex(id, hex);
	for (size_t i = 0; i < dirs->n; i++) {
		char *p = op_xasprintf("%s/.build-id/%.2s/%s.debug", dirs->v[i],
				       hex, hex + 2);

		if (pp_debug_file_usable(p, id, NULL, false))
			return p;
		free(p);
	}
	return NULL;
}

/* The binary's directory as it was sampled: path without the root. */
static char *sampled_dir(char const *path)
{
	char const *slash = strrchr(path, '/');
	size_t rl = debug_root ? strlen(debug_root) : 0;
	char *dir;

	dir = slash ? op_xasprintf("%.*s", (int)(slash - path), path) :
		      op_xstrdup(".");
	if (rl && !strncmp(dir, debug_root, rl) && dir[rl] == '/')
		memmove(dir, dir + rl, strlen(dir + rl) + 1);
	return dir;
}

static void add_owned(struct pp_strlist *l, char *s)
{
	pp_strlist_add(l, s);
	free(s);
}

void pp_debuglink_candidates(char const *path, char const *name,
			     struct pp_strlist *out)
{
	struct pp_strlist dirs = { 0 };
	char *dir, *here;

	/* a file name, not a path: it comes from the binary */
	if (!op_debuglink_name_ok(name))
		return;
	here = op_xstrdup(path);
	*(strrchr(here, '/') ? strrchr(here, '/') : here) = '\0';
	dir = sampled_dir(path);
	debug_dirs(&dirs);
	add_owned(out, op_xasprintf("%s/%s", here[0] ? here : ".", name));
	add_owned(out, op_xasprintf("%s/.debug/%s", here[0] ? here : ".",
				    name));
	for (size_t i = 0; i < dirs.n; i++)
		add_owned(out, op_xasprintf("%s%s/%s", dirs.v[i], dir, name));
	pp_strlist_free(&dirs);
	free(here);
	free(dir);
}

static char *by_debuglink(bfd *abfd, char const *path,
			  struct pp_build_id const *id)
{
	unsigned long crc = 0;
	char *name = bfd_get_debug_link_info(abfd, &crc);
	char *out = NULL;
	struct pp_strlist cand = { 0 };

	if (!name)
		return NULL;
	/* a file name, looked for in the places below only */
	if (!op_debuglink_name_ok(name)) {
		op_warn("binary '%s': its .gnu_debuglink '%s' is not a plain "
			"file name: not used", path, name);
		free(name);
		return NULL;
	}
	pp_debuglink_candidates(path, name, &cand);
	for (size_t i = 0; i < cand.n && !out; i++) {
		/* the binary itself may carry the same name: not a debug file */
		if (!strcmp(cand.v[i], path))
			continue;
		if (pp_debug_file_usable(cand.v[i], id, &crc, false))
			out = op_xstrdup(cand.v[i]);
	}
	pp_strlist_free(&cand);
	free(name);
	return out;
}

char *pp_debuginfo_find(bfd *abfd, char const *path,
			struct pp_build_id const *want,
			enum pp_debug_how *how)
{
	struct pp_build_id own;
	struct pp_build_id const *id = want;
	struct pp_strlist dirs = { 0 };
	char *out;

	*how = PP_DEBUG_NONE;
	if (!id || !id->len) {
		pp_build_id_read(abfd, &own);
		id = &own;
	}
	debug_dirs(&dirs);
	if ((out = by_build_id(&dirs, id)))
		*how = PP_DEBUG_BUILD_ID;
	else if ((out = by_debuglink(abfd, path, id)))
		*how = PP_DEBUG_DEBUGLINK;
	else if ((out = pp_debuginfod_fetch(id)))
		*how = PP_DEBUG_DEBUGINFOD;
	pp_strlist_free(&dirs);
	return out;
}

char *pp_debuginfo_find_id(struct pp_build_id const *id,
			   enum pp_debug_how *how)
{
	struct pp_strlist dirs = { 0 };
	char *out;

	*how = PP_DEBUG_NONE;
	debug_dirs(&dirs);
	if ((out = by_build_id(&dirs, id)))
		*how = PP_DEBUG_BUILD_ID;
	else if ((out = pp_debuginfod_fetch(id)))
		*how = PP_DEBUG_DEBUGINFOD;
	pp_strlist_free(&dirs);
	return out;
}

/*
 * The session's build-ids or segments (bounded: 64 MB is far more than
 * any session lists). One that is there but cannot be read (a FIFO, a
 * device, a directory, too large) is said once, naming it.
 */
static char *read_record_file(char const *file)
{
	static char *said;
	char err[PATH_MAX + 128];
	char *text = op_read_file(file, 64u << 20, NULL, err, sizeof(err));

	if (!text && errno != ENOENT && (!said || strcmp(said, file))) {
		op_warn("%s: the builds it records are not used", err);
		free(said);
		said = op_xstrdup(file);
	}
	return text;
}

size_t pp_session_segments(char const *session_dir, char const *hex,
			   struct op_segment **out)
{
	char *file = op_xasprintf("%s/%s/%s", session_dir, OP_META_DIR,
				  OP_META_SEGMENTS);
	char *text = read_record_file(file), *save = NULL;
	size_t n = 0, alloc = 0;

	free(file);
	*out = NULL;
	if (!text)
		return 0;
	for (char *l = strtok_r(text, "\n", &save); l;
	     l = strtok_r(NULL, "\n", &save)) {
		char h[OP_BUILD_ID_HEX_MAX];
		struct op_segment seg;
		bool dup = false;

		if (op_segment_parse_line(l, h, &seg) || strcmp(h, hex))
			continue;
		/* one build sampled at two paths has its lines twice */
		for (size_t i = 0; i < n && !dup; i++)
			dup = !memcmp(&(*out)[i], &seg, sizeof(seg));
		if (dup)
			continue;
		OP_ALLOC_GROW(*out, n + 1, alloc);
		(*out)[n++] = seg;
	}
	free(text);
	return n;
}

bool pp_session_build_id(char const *session_dir, char const *path,
			 uint64_t mtime, char *hex, size_t hexlen)
{
	char *file = op_xasprintf("%s/%s/%s", session_dir, OP_META_DIR,
				  OP_META_BUILD_IDS);
	char *text = read_record_file(file), *save = NULL;
	bool found = false, exact = false;

	free(file);
	if (!text)
		return false;
	for (char *l = strtok_r(text, "\n", &save); l && !exact;
	     l = strtok_r(NULL, "\n", &save)) {
		char h[OP_BUILD_ID_HEX_MAX];
		char const *p;
		uint64_t m;

		if (op_build_id_parse_line(l, h, &m, &p) || strcmp(p, path))
			continue;
		snprintf(hex, hexlen, "%s", h);
		found = true;
		exact = m == mtime;
	}
	free(text);
	return found;
}
