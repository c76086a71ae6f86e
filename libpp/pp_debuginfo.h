/*
 * Separate debug info, found the way gdb and perf find it. A binary that
 * has no .symtab code symbols or no DWARF of its own may have them in a
 * separate debug file:
 *
 *   1. by build-id: DIR/.build-id/ab/cdef....debug
 *   2. by .gnu_debuglink NAME (CRC checked): next to the binary,
 *      in its .debug/, and DIR/<the binary's directory>/NAME; NAME must
 *      be a plain file name (a '/' or ".." is warned about, not used)
 *   3. from a debuginfod server when DEBUGINFOD_URLS is set (its cache
 *      first: libdebuginfod keeps one), within limits of time and size
 *      (pp_debuginfod.h)
 *
 * DIR is each of the debug directories: $OPROFILE_DEBUG_DIRS (a colon
 * list, like gdb's debug-file-directory), default /usr/lib/debug; each
 * below the report's root (-R or archive:) when it has one. A candidate
 * that exists but cannot be used (unreadable, not ELF, wrong CRC, another
 * build-id) is warned about, naming the file, and skipped.
 */
#ifndef PP_DEBUGINFO_H
#define PP_DEBUGINFO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pp_debugfile.h"

struct bfd;

/* Where debug files are looked for below: NULL or "" for none. */
void pp_debuginfo_set_root(char const *root);

/* How a debug file was found. */
enum pp_debug_how {
	PP_DEBUG_NONE,
	PP_DEBUG_BUILD_ID,
	PP_DEBUG_DEBUGLINK,
	PP_DEBUG_DEBUGINFOD,
};

char const *pp_debug_how_name(enum pp_debug_how how);

/*
 * The separate debug file of the binary abfd read from path (malloc'd),
 * or NULL. want: the build-id the file must have (the binary's, or the
 * one the session recorded); may be empty.
 */
char *pp_debuginfo_find(struct bfd *abfd, char const *path,
			struct pp_build_id const *want,
			enum pp_debug_how *how);

struct pp_strlist;

/*
 * Where a separate debug file that a .gnu_debuglink calls name is looked
 * for, for the binary read from path, in order, added to out: path's
 * directory, its .debug/, then each debug directory at the binary's
 * sampled directory. None when name is no plain file name (empty, "."
 * or "..", or with a '/'): it comes from the binary and must not lead
 * out of those directories.
 */
void pp_debuglink_candidates(char const *path, char const *name,
			     struct pp_strlist *out);

/*
 * The debug file of the build id, when the binary is not at hand (it was
 * rebuilt or removed after sampling): by build-id below the debug
 * directories, else from debuginfod. malloc'd, or NULL.
 */
char *pp_debuginfo_find_id(struct pp_build_id const *id,
			   enum pp_debug_how *how);

struct op_segment;

/*
 * The loadable segments the daemon recorded in the session in
 * session_dir for the build hex (op_build_id.h), malloc'd into *out: how
 * many (0: none recorded, *out NULL).
 */
size_t pp_session_segments(char const *session_dir, char const *hex,
			   struct op_segment **out);

/*
 * The build-id (hex) the daemon recorded in the session whose samples are
 * in session_dir for the binary sampled as path: the line with that mtime
 * when there is one, else the last line of path. false when none.
 */
bool pp_session_build_id(char const *session_dir, char const *path,
			 uint64_t mtime, char *hex, size_t hexlen);

#endif /* PP_DEBUGINFO_H */
