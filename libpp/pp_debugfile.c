/*
 * What makes a file a usable debug file: its build-id note, its CRC, its
 * DWARF, opened safely with libbfd (see pp_debugfile.h).
 */
#include "config.h"

#include <bfd.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "op_file.h"
#include "op_message.h"
#include "op_util.h"
#include "pp_debugfile.h"

#define NT_GNU_BUILD_ID_TYPE 3

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

bool pp_build_id_parse(char const *hex, struct pp_build_id *id)
{
	size_t n = strlen(hex);

	id->len = 0;
	if (!n || n % 2 || n / 2 > PP_BUILD_ID_MAX)
		return false;
	for (size_t i = 0; i < n / 2; i++) {
		int hi = op_hex_digit(hex[2 * i]), lo = op_hex_digit(hex[2 * i + 1]);

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
