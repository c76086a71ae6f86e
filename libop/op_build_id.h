/*
 * The GNU build-id of an ELF file, read without libbfd (the daemon
 * records it for each binary it samples; reports compare it with the
 * binary they find), and the session file that keeps them:
 * samples/SESSION/session/build-ids, one line per binary image,
 * "HEX MTIME PATH" (PATH to the end of the line).
 */
#ifndef OP_BUILD_ID_H
#define OP_BUILD_ID_H

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

#endif /* OP_BUILD_ID_H */
