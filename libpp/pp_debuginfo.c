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

#define NT_GNU_BUILD_ID_TYPE 3

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

static uint32_t note_word(bfd *abfd, unsigned char const *p)
{
	return (uint32_t)bfd_get_32(abfd, p);
}

/* Walk the notes of one section for NT_GNU_BUILD_ID "GNU". */
static bool build_id_in(bfd *abfd, unsigned char const *p, size_t size,
			struct pp_build_id *id)
{
	size_t off = 0;

	/* off passes size when the last note's padding is cut off */
	while (off <= size && size - off >= 12) {
		uint32_t namesz = note_word(abfd, p + off);
		uint32_t descsz = note_word(abfd, p + off + 4);
		uint32_t type = note_word(abfd, p + off + 8);
		size_t name = off + 12;
		size_t desc = name + ((namesz + 3) & ~3u);

		if (desc > size || descsz > size - desc)
			return false;
		if (type == NT_GNU_BUILD_ID_TYPE && namesz == 4 &&
		    !memcmp(p + name, "GNU", 4) && descsz &&
		    descsz <= PP_BUILD_ID_MAX) {
			memcpy(id->v, p + desc, descsz);
			id->len = descsz;
			return true;
		}
		off = desc + ((descsz + 3) & ~3u);
	}
	return false;
}

bool pp_build_id_read(bfd *abfd, struct pp_build_id *id)
{
	id->len = 0;
	for (asection *sec = abfd->sections; sec; sec = sec->next) {
		bfd_size_type size = bfd_section_size(sec);
		bfd_byte *buf = NULL;
		bool found;

		if (strncmp(bfd_section_name(sec), ".note", 5))
			continue;
		if (!(bfd_section_flags(sec) & SEC_HAS_CONTENTS) || !size ||
		    size > (1 << 20))
			continue;
		if (!bfd_malloc_and_get_section(abfd, sec, &buf))
			continue;
		found = build_id_in(abfd, buf, size, id);
		free(buf);
		if (found)
			return true;
	}
	return false;
}

void pp_build_id_hex(struct pp_build_id const *id, char *out)
{
	for (size_t i = 0; i < id->len; i++)
		sprintf(out + 2 * i, "%02x", id->v[i]);
	out[2 * id->len] = '\0';
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

bool pp_build_id_parse(char const *hex, struct pp_build_id *id)
{
	size_t n = strlen(hex);

	id->len = 0;
	if (!n || n % 2 || n / 2 > PP_BUILD_ID_MAX)
		return false;
	for (size_t i = 0; i < n / 2; i++) {
		int hi = hexval(hex[2 * i]), lo = hexval(hex[2 * i + 1]);

		if (hi < 0 || lo < 0)
			return false;
		id->v[i] = (unsigned char)(hi << 4 | lo);
	}
	id->len = n / 2;
	return true;
}

bfd *pp_bfd_open_object(char const *path, char const **why)
{
	int fd = op_open_regular(path, O_RDONLY);
	bfd *abfd;

	if (fd < 0) {
		*why = op_file_strerror(errno);
		return NULL;
	}
	abfd = bfd_fdopenr(path, NULL, fd);	/* owns fd, even on failure */
	if (!abfd) {
		*why = bfd_errmsg(bfd_get_error());
		return NULL;
	}
	abfd->flags |= BFD_DECOMPRESS;
	if (!bfd_check_format(abfd, bfd_object)) {
		*why = bfd_errmsg(bfd_get_error());
		bfd_close(abfd);
		return NULL;
	}
	return abfd;
}

bool pp_bfd_has_dwarf(bfd *abfd)
{
	asection *info = bfd_get_section_by_name(abfd, ".debug_info");
	asection *line = bfd_get_section_by_name(abfd, ".debug_line");

	return info && line && (bfd_section_flags(info) & SEC_HAS_CONTENTS) &&
	       (bfd_section_flags(line) & SEC_HAS_CONTENTS);
}

/* A debug file is read whole for its CRC: one over 8 GB is not one. */
#define MAX_DEBUG_FILE ((off_t)8 << 30)

static bool file_crc(char const *path, unsigned long *crc)
{
	unsigned char buf[65536];
	int fd = op_open_regular_max(path, O_RDONLY, MAX_DEBUG_FILE);
	ssize_t n;

	if (fd < 0)
		return false;
	*crc = 0;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		*crc = bfd_calc_gnu_debuglink_crc32(*crc, buf, (bfd_size_type)n);
	close(fd);
	return n == 0;
}

/* path opened for bfd if it is a regular file; NULL, warned, if not */
static bfd *open_regular(char const *path)
{
	/* never blocks: a FIFO in place of a debug file must not hang us */
	int fd = op_open_regular(path, O_RDONLY);
	bfd *abfd;

	if (fd < 0) {
		if (errno != ENOENT && errno != ENOTDIR)
			op_warn("debug file '%s' not used: %s", path,
				op_file_strerror(errno));
		return NULL;
	}
	abfd = bfd_fdopenr(path, NULL, fd);   /* closes fd when it fails */
	if (abfd)
		abfd->flags |= BFD_DECOMPRESS;
	if (!abfd || !bfd_check_format(abfd, bfd_object)) {
		op_warn("debug file '%s' not used: %s", path,
			bfd_errmsg(bfd_get_error()));
		if (abfd)
			bfd_close(abfd);
		return NULL;
	}
	return abfd;
}

bool pp_debug_file_usable(char const *path, struct pp_build_id const *want,
			  unsigned long const *crc, bool need_id)
{
	struct pp_build_id have = { .len = 0 };
	unsigned long got;
	char hw[2 * PP_BUILD_ID_MAX + 1], hh[2 * PP_BUILD_ID_MAX + 1];
	bfd *abfd = open_regular(path);
	bool ok = true;

	if (!abfd)
		return false;
	if (want && want->len && !pp_build_id_read(abfd, &have) && need_id) {
		op_warn("debug file '%s' not used: it has no build-id", path);
		ok = false;
	} else if (want && want->len && have.len &&
		   (have.len != want->len || memcmp(have.v, want->v, have.len))) {
		pp_build_id_hex(want, hw);
		pp_build_id_hex(&have, hh);
		op_warn("debug file '%s' not used: its build-id %s is not the "
			"binary's %s", path, hh, hw);
		ok = false;
	}
	bfd_close(abfd);
	if (ok && crc && !file_crc(path, &got)) {
		op_warn_errno("debug file '%s' not used", path);
		ok = false;
	} else if (ok && crc && got != *crc) {
		op_warn("debug file '%s' not used: CRC %08lx, the binary's "
			".gnu_debuglink wants %08lx", path, got, *crc);
		ok = false;
	}
	return ok;
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
