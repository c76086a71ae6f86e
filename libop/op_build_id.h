/*
 * The GNU build-id of an ELF file, read without libbfd (the daemon
 * records it for each binary it samples; reports compare it with the
 * binary they find), and the session files that keep them:
 * samples/SESSION/session/build-ids, one line per binary image,
 * "HEX MTIME PATH" (PATH to the end of the line), and
 * samples/SESSION/session/segments, one line per loadable segment of a
 * build, "HEX 0xOFFSET 0xVADDR 0xFILESZ": how that build's file offsets
 * (the sample keys) become addresses, so a binary rebuilt after sampling
 * can be symbolised from the sampled build's debug file, whose segments
 * have no file contents.
 */
#ifndef OP_BUILD_ID_H
#define OP_BUILD_ID_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define OP_BUILD_ID_HEX_MAX 129   /* 64 bytes as hex, and the NUL */

/*
 * The build-id of the ELF file at path as lower-case hex in hex: 0, or
 * -1 when it cannot be read, is not ELF of this machine's byte order or
 * has no NT_GNU_BUILD_ID note (hex is then "").
 */
int op_build_id_of(char const *path, char hex[OP_BUILD_ID_HEX_MAX]);

/* The line of a build-ids file for one binary (no newline, malloc'd). */
char *op_build_id_line(char const *hex, uint64_t mtime, char const *path);

/*
 * Parse one line of a build-ids file: 0 with hex, mtime and *path
 * (pointing into line), or -1 for a malformed line.
 */
int op_build_id_parse_line(char *line, char hex[OP_BUILD_ID_HEX_MAX],
			   uint64_t *mtime, char const **path);

/* One PT_LOAD segment of an ELF file. */
struct op_segment {
	uint64_t offset;     /* p_offset */
	uint64_t vaddr;      /* p_vaddr */
	uint64_t filesz;     /* p_filesz */
};

#define OP_SEGMENTS_MAX 16

/*
 * The loadable segments with file contents of the ELF file at path, in
 * file order, into v (at most max): how many, or -1 when it cannot be
 * read or is not ELF of this machine's byte order.
 */
int op_elf_segments(char const *path, struct op_segment *v, size_t max);

/* The line of a segments file for one segment (no newline, malloc'd). */
char *op_segment_line(char const *hex, struct op_segment const *seg);

/* Parse one line of a segments file: 0 with hex and seg, or -1. */
int op_segment_parse_line(char const *line, char hex[OP_BUILD_ID_HEX_MAX],
			  struct op_segment *seg);

/*
 * The good lines of a session's build-ids file (segments: of its
 * segments file) at path, each ending in a newline, malloc'd; "" when
 * there is no such file. A line that does not parse, or the last one
 * without its newline (an append torn by a daemon killed mid-write), is
 * left out with a warning naming the file and the line. NULL with errno
 * when the file is there but cannot be read.
 */
char *op_build_id_file_read(char const *path, bool segments);

/*
 * The separate debug file of build hex below the debug directories
 * ($OPROFILE_DEBUG_DIRS, a colon list, default /usr/lib/debug):
 * DIR/.build-id/ab/cdef....debug when it exists and has that build-id
 * (malloc'd), else NULL. The daemon's unwinder uses it for .debug_frame;
 * the report tools' fuller lookup (debuglink, debuginfod, a root) is
 * libpp/pp_debuginfo.c.
 */
char *op_debug_file_by_build_id(char const *hex);

/*
 * Whether a .gnu_debuglink name may be looked for: a plain file name (not
 * empty, no '/', not "." or ".."), as gdb takes it. With a '/' or as
 * "..", a binary would name any file on the machine (read, archived).
 */
bool op_debuglink_name_ok(char const *name);

/*
 * The separate debug file a .gnu_debuglink names (name, crc: the
 * section's contents) for the binary at path: path's directory, its
 * .debug/, then DIR/<path's directory> for each debug directory; the
 * first whose CRC-32 matches (malloc'd), else NULL (also for a name
 * op_debuglink_name_ok refuses).
 */
char *op_debug_file_by_debuglink(char const *path, char const *name,
				 uint32_t crc);

#endif /* OP_BUILD_ID_H */
