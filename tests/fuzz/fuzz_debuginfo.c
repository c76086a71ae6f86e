/*
 * libFuzzer target for finding a binary's separate debug file
 * (libpp/pp_debuginfo.c, libop/op_build_id.c): the input is the bytes of
 * a binary, kept in one file of a private directory (under /dev/shm when
 * there is one) rewritten in place, as sampled at ROOT/usr/lib/prog with
 * ROOT the report's root (-R, archive:). What is read from it:
 *   - its GNU build-id note (pp_build_id_read through libbfd, and
 *     op_build_id_of, the project's own ELF reader, with op_elf_segments)
 *   - its .gnu_debuglink name and CRC (libbfd), turned into candidate
 *     paths (pp_debuglink_candidates)
 *   - the whole lookup (pp_debuginfo_find), over empty debug directories:
 *     no file of the machine is read, no debuginfod asked
 * Every candidate path must stay inside the directory it is built under
 * (the binary's directory, or a debug directory below ROOT): no ".."
 * component, no absolute name taken from the input. A build-id gives
 * hex only. Anything else aborts.
 *
 * FUZZ-SOURCES: libpp/pp_debuginfo.c libpp/pp_debugfile.c libpp/pp_debuginfod.c libpp/pp_strlist.c
 * FUZZ-LIBS: -lbfd -ldebuginfod
 */
#include "config.h"

#include <bfd.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "op_build_id.h"
#include "op_file.h"
#include "op_message.h"
#include "pp_debuginfo.h"
#include "pp_strlist.h"
#include "fuzz_scratch.h"

int LLVMFuzzerTestOneInput(uint8_t const *data, size_t size);

static char top[128], root[192], bin[256], sampled[256];
static char here[256], dbg[2][256];
static int bin_fd = -1;

static void quiet(void *ctx, enum op_message_kind kind, char const *text)
{
	(void)ctx;
	(void)kind;
	(void)text;
}

/* libbfd's warnings about each malformed input: not wanted here */
static void bfd_quiet(char const *fmt, va_list ap)
{
	(void)fmt;
	(void)ap;
}

/* The private directory goes at exit (a crash leaves it for a look). */
static void remove_top(void)
{
	fuzz_remove_tree(top);
}

static void setup(void)
{
	char const *base = access("/dev/shm", W_OK) ? "/tmp" : "/dev/shm";
	char env[600];

	snprintf(top, sizeof(top), "%s/fuzz-debuginfo-%ld", base,
		 (long)getpid());
	atexit(remove_top);
	snprintf(root, sizeof(root), "%s/root", top);
	snprintf(bin, sizeof(bin), "%s/bin", top);
	snprintf(sampled, sizeof(sampled), "%s/usr/lib/prog", root);
	snprintf(here, sizeof(here), "%s/usr/lib", root);
	snprintf(dbg[0], sizeof(dbg[0]), "%s/usr/lib/debug", root);
	snprintf(dbg[1], sizeof(dbg[1]), "%s/opt/dbg", root);
	if (op_mkdir_p(here) || op_mkdir_p(dbg[0]) || op_mkdir_p(dbg[1]))
		abort();
	snprintf(env, sizeof(env), "/usr/lib/debug:/opt/dbg");
	setenv("OPROFILE_DEBUG_DIRS", env, 1);
	unsetenv("DEBUGINFOD_URLS");
	pp_debuginfo_set_root(root);
	op_set_message_sink(quiet, NULL);
	bfd_init();
	bfd_set_error_handler(bfd_quiet);
	bin_fd = open(bin, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (bin_fd < 0)
		abort();
}

static void put(uint8_t const *data, size_t size)
{
	if ((size && pwrite(bin_fd, data, size, 0) != (ssize_t)size) ||
	    ftruncate(bin_fd, (off_t)size))
		abort();
}

static bool is_hex(char const *s)
{
	if (!*s || strlen(s) % 2)
		return false;
	for (; *s; s++)
		if (!((*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'f')))
			return false;
	return true;
}

/* rel has no "." or ".." component and does not start with '/'. */
static bool plain_below(char const *rel)
{
	if (*rel == '/' || !*rel)
		return false;
	for (char const *c = rel; c; c = strchr(c, '/') ? strchr(c, '/') + 1 :
						       NULL) {
		size_t len = strcspn(c, "/");

		if (!len || (len == 1 && c[0] == '.') ||
		    (len == 2 && c[0] == '.' && c[1] == '.'))
			return false;
	}
	return true;
}

static bool inside(char const *path, char const *dir)
{
	size_t n = strlen(dir);

	return !strncmp(path, dir, n) && path[n] == '/' &&
	       plain_below(path + n + 1);
}

static void candidates(char const *name)
{
	struct pp_strlist c = { 0 };

	pp_debuglink_candidates(sampled, name, &c);
	for (size_t i = 0; i < c.n; i++)
		if (!inside(c.v[i], here) && !inside(c.v[i], dbg[0]) &&
		    !inside(c.v[i], dbg[1]))
			abort();	/* a candidate out of its directory */
	pp_strlist_free(&c);
}

static void own_reader(void)
{
	char hex[OP_BUILD_ID_HEX_MAX];
	struct op_segment seg[8];

	if (!op_build_id_of(bin, hex) && !is_hex(hex))
		abort();
	op_elf_segments(bin, seg, 8);
}

int LLVMFuzzerTestOneInput(uint8_t const *data, size_t size)
{
	char hex[2 * PP_BUILD_ID_MAX + 1];
	struct pp_build_id id;
	enum pp_debug_how how;
	unsigned long crc;
	char *link, *found;
	bfd *abfd;

	if (!top[0])
		setup();
	put(data, size);
	own_reader();
	abfd = bfd_openr(bin, NULL);
	if (!abfd)
		return 0;
	if (!bfd_check_format(abfd, bfd_object)) {
		bfd_close(abfd);
		return 0;
	}
	if (pp_build_id_read(abfd, &id)) {
		if (!id.len || id.len > PP_BUILD_ID_MAX)
			abort();
		pp_build_id_hex(&id, hex);
		if (!is_hex(hex))
			abort();
	}
	link = bfd_get_debug_link_info(abfd, &crc);
	if (link) {
		candidates(link);
		free(link);
	}
	found = pp_debuginfo_find(abfd, sampled, NULL, &how);
	if (found)
		abort();	/* the debug directories are empty */
	bfd_close(abfd);
	return 0;
}
