/*
 * A debug file's identity and checks (pp_debugfile.c): the GNU build-id
 * note, opening an object file with libbfd without ever waiting on a FIFO
 * or a device, whether it has DWARF, and whether a candidate found by
 * pp_debuginfo.h's search is the one wanted.
 */
#ifndef PP_DEBUGFILE_H
#define PP_DEBUGFILE_H

#include <stdbool.h>
#include <stddef.h>

struct bfd;

#define PP_BUILD_ID_MAX 64   /* bytes */

struct pp_build_id {
	unsigned char v[PP_BUILD_ID_MAX];
	size_t len;           /* 0: none */
};

/* The GNU build-id note of abfd; false when it has none. */
bool pp_build_id_read(struct bfd *abfd, struct pp_build_id *id);

/* id as lower-case hex into out (2 * len + 1 bytes). */
void pp_build_id_hex(struct pp_build_id const *id, char *out);

/* Parse hex into id; false when it is not an even run of hex digits. */
bool pp_build_id_parse(char const *hex, struct pp_build_id *id);

/*
 * Is path a usable debug file: a readable regular file, ELF, with the
 * wanted build-id (when want has one and the file too; need_id: the file
 * must have one) and the wanted CRC (crc != NULL)? A file that does not
 * exist is quietly not; any other problem is warned about, naming it.
 */
bool pp_debug_file_usable(char const *path, struct pp_build_id const *want,
			  unsigned long const *crc, bool need_id);

/* True when abfd carries DWARF line info (.debug_info and .debug_line). */
bool pp_bfd_has_dwarf(struct bfd *abfd);

/*
 * path opened with libbfd as an object file, its compressed debug
 * sections (gcc -gz, objcopy --compress-debug-sections, Debian's -dbg
 * packages: zlib and zstd, and the old .zdebug_*) read as plain ones, so
 * that lines come from them as from any. It is opened through
 * op_open_regular (op_file.h) and handed to bfd_fdopenr: a FIFO or a
 * device there is refused, never waited on (and libbfd never reopens it
 * by name). NULL when it cannot be opened or is not an object, with *why
 * saying why (op_file_strerror, or libbfd's message).
 */
struct bfd *pp_bfd_open_object(char const *path, char const **why);

#endif /* PP_DEBUGFILE_H */
