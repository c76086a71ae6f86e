/*
 * libFuzzer target for reading an archive (opreport archive:DIR, made by
 * oparchive, libpp/pp_archive.h). An archive has no index: what a report
 * takes from its bytes is the sample files' names (the directory walk
 * hands each to op_parse_filename) and the session's metadata, and from
 * those it makes paths below DIR: the binary (DIR/PATH), a later build's
 * kept copy (session/binaries/ID), the sampled build's debug file
 * (DIR/usr/lib/debug/.build-id/...). The input is
 *   line 1:  a sample file name, relative to the session's samples dir
 *   the rest: the session's session/build-ids and session/segments files
 * in an archive in a private directory (under /dev/shm when there is
 * one) made once, with a binary, a kept copy and a bait file beside the
 * archive. Every user image of the name (A, B, C) is found as reports
 * find it (pp_image_find, the archive as root) and the session's build-id
 * and segments for it are read; every file found must be inside DIR (a
 * path through a symlink or ".." would show as one outside), every
 * build-id given hex only. Anything else aborts.
 *
 * FUZZ-SOURCES: libpp/pp_*.c $B/libpp/pprof_profile.pb-c.c
 * FUZZ-SOURCES: $B/libpp/pp_flame_html.c
 * FUZZ-LIBS: -lbfd -lopcodes -liberty -ldebuginfod -lprotobuf-c -lpopt
 */
#include "config.h"

#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "op_build_id.h"
#include "op_file.h"
#include "op_mangle.h"
#include "op_message.h"
#include "op_session.h"
#include "op_util.h"
#include "pp_image.h"
#include "pp_debuginfo.h"
#include "pp_locate.h"
#include "pp_strlist.h"
#include "fuzz_scratch.h"

int LLVMFuzzerTestOneInput(uint8_t const *data, size_t size);

#define KEPT_ID "0f878c4b8b9f648e20478778aa77fbbf33042c0a"

static char top[128], arch[PATH_MAX], *session;
static struct pp_locate locate;
static int ids_fd = -1, segs_fd = -1;

static void quiet(void *ctx, enum op_message_kind kind, char const *text)
{
	(void)ctx;
	(void)kind;
	(void)text;
}

static void plant(char const *dir, char const *rel)
{
	char *path = op_xasprintf("%s/%s", dir, rel);
	FILE *f;

	if (op_mkdir_parents(path))
		abort();
	f = fopen(path, "w");
	if (!f || fputs("not an ELF file\n", f) < 0 || fclose(f))
		abort();
	free(path);
}

static int open_meta(char const *name)
{
	char *path = op_xasprintf("%s/%s/%s", session, OP_META_DIR, name);
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	if (fd < 0)
		abort();
	free(path);
	return fd;
}

/* The private directory goes at exit (a crash leaves it for a look). */
static void remove_top(void)
{
	fuzz_remove_tree(top);
}

static void setup(void)
{
	char const *base = access("/dev/shm", W_OK) ? "/tmp" : "/dev/shm";
	char *path, err[256];

	snprintf(top, sizeof(top), "%s/fuzz-archive-%ld", base,
		 (long)getpid());
	atexit(remove_top);
	path = op_xasprintf("%s/arch", top);
	if (op_mkdir_p(path) || !realpath(path, arch))
		abort();
	free(path);
	session = op_xasprintf("%s/var/lib/oprofile/samples/current", arch);
	/* what a report may find: in the archive, and a bait beside it */
	plant(arch, "usr/bin/prog");
	plant(arch, "usr/lib/libx.so");
	plant(session, OP_META_DIR "/" OP_META_BINARIES "/" KEPT_ID);
	plant(top, "bait");
	plant(top, "usr/bin/prog");
	ids_fd = open_meta(OP_META_BUILD_IDS);
	segs_fd = open_meta(OP_META_SEGMENTS);
	path = op_xasprintf("%s/usr/lib/debug", arch);
	if (op_mkdir_p(path))
		abort();
	free(path);
	setenv("OPROFILE_DEBUG_DIRS", "/usr/lib/debug", 1);
	unsetenv("DEBUGINFOD_URLS");
	op_set_message_sink(quiet, NULL);
	/* as archive:DIR does: the archive is the root (debug files too) */
	if (pp_locate_init(&locate, arch, NULL, err, sizeof(err)))
		abort();
}

static void put(int fd, uint8_t const *data, size_t size)
{
	if ((size && pwrite(fd, data, size, 0) != (ssize_t)size) ||
	    ftruncate(fd, (off_t)size))
		abort();
}

static bool is_hex(char const *s)
{
	size_t n = strspn(s, "0123456789abcdef");

	return n && !s[n] && n % 2 == 0;
}

/* path names a file inside the archive, symlinks and ".." resolved. */
static void check_inside(char const *path)
{
	char real[PATH_MAX];
	size_t n = strlen(arch);

	if (!realpath(path, real))
		return;		/* gone: nothing was read from it */
	if (strncmp(real, arch, n) || real[n] != '/')
		abort();	/* a file outside the archive */
}

static void image(char const *name)
{
	struct pp_image_ref ref = { .name = name, .display = name };
	struct pp_strlist notes = { 0 };
	struct pp_image im;
	struct pp_build_id id;
	struct op_segment *segs;
	enum pp_debug_how how;
	char hex[OP_BUILD_ID_HEX_MAX];
	char *dpath;

	memset(&im, 0, sizeof(im));
	pp_image_find(&im, &ref, &locate, session, NULL, &notes);
	if (im.path)
		check_inside(im.path);
	pp_image_free(&im);
	pp_strlist_free(&notes);
	if (!pp_session_build_id(session, name, 0, hex, sizeof(hex)))
		return;
	if (!is_hex(hex) || !pp_build_id_parse(hex, &id))
		abort();
	pp_session_segments(session, hex, &segs);
	free(segs);
	dpath = pp_debuginfo_find_id(&id, &how);
	if (dpath)
		check_inside(dpath);
	free(dpath);
}

int LLVMFuzzerTestOneInput(uint8_t const *data, size_t size)
{
	struct op_parsed_name n;
	uint8_t const *nl;
	char *name, err[256];

	if (!top[0])
		setup();
	nl = memchr(data, '\n', size);
	if (!nl)
		nl = data + size;
	name = strndup((char const *)data, (size_t)(nl - data));
	if (!name)
		abort();
	if (nl < data + size)
		nl++;
	put(ids_fd, nl, (size_t)(data + size - nl));
	put(segs_fd, nl, (size_t)(data + size - nl));
	if (!op_parse_filename(name, &n, err, sizeof(err))) {
		if (!n.app_is_kernel)
			image(n.app_name);
		if (!n.image_is_kernel && !n.image_is_anon)
			image(n.image_name);
		if (n.is_callgraph && !n.cg_is_kernel && !n.cg_is_anon)
			image(n.cg_image_name);
		op_parsed_name_free(&n);
	} else if (!err[0]) {
		abort();	/* a refusal says why */
	}
	free(name);
	return 0;
}
