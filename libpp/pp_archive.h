/*
 * oparchive: a profile made portable. Into DIR, in OProfile's archive
 * layout (every file at its own absolute path below DIR):
 *   - the selected sample files (and {cg} files) of each session,
 *   - each session's saved metadata (its session/ directory: kernel
 *     symbols and images, the binaries' build-ids), its stats/ and its
 *     settings (session.conf),
 *   - every binary the sample files name, with its mtime (reports check
 *     it), found as reports find it (-R, -p),
 *   - each binary's separate debug file (pp_debuginfo.h), under
 *     DIR/usr/lib/debug/.build-id/ when it has a build-id.
 * Reports then read it with archive:DIR, wherever the binaries went.
 */
#ifndef PP_ARCHIVE_H
#define PP_ARCHIVE_H

#include <stdbool.h>
#include <stdio.h>

struct pp_filelist;
struct pp_locate;

struct pp_archive_opts {
	char const *dir;           /* where to (created) */
	struct pp_locate *locate;  /* finding the binaries */
	FILE *list;                /* --list-files: name each file here, copy none */
};

/* 0, or -1 when a file could not be copied (each one named). Binaries
 * that cannot be found are warned about and left out. */
int pp_archive(struct pp_filelist const *files,
	       struct pp_archive_opts const *o);

#endif /* PP_ARCHIVE_H */
