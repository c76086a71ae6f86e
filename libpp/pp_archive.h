/*
 * oparchive: a profile made portable, in OProfile 1.x's archive layout,
 * so that its opreport reads it too. Into DIR:
 *   - the selected sample files (and {cg} files) of each session under
 *     DIR/var/lib/oprofile/samples/SESSION/ (SESSION: the session
 *     directory's name), wherever the session was: OProfile's reports
 *     look for an archive's samples there whatever --session-dir says,
 *   - each session's saved metadata (its session/ directory: kernel
 *     symbols and images, the binaries' build-ids and kept copies), its
 *     stats/ and its settings (session.conf), in the archived session,
 *   - every binary the sample files name, at its own absolute path below
 *     DIR, with its mtime (reports check it), found as reports find it
 *     (-R, -p); a binary rebuilt since it was sampled is replaced by the
 *     sampled build (the session's kept copy, else its debug file) or
 *     left out, warned about,
 *   - each binary's separate debug file (pp_debuginfo.h): as OProfile
 *     puts it, at DIR/BINDIR/.debug/NAME when the binary's debuglink
 *     names it, else under DIR/usr/lib/debug/.build-id/ when it has a
 *     build-id,
 *   - DIR/oparchive.manifest: what the archive holds (below).
 * Reports then read it with archive:DIR, with no --session-dir.
 */
#ifndef PP_ARCHIVE_H
#define PP_ARCHIVE_H

#include <stdbool.h>
#include <stdio.h>

struct pp_filelist;
struct pp_locate;

struct pp_archive_opts {
	char const *dir;           /* where to (created) */
	char const *session_dir;   /* --session-dir, for the manifest */
	struct pp_locate *locate;  /* finding the binaries */
	FILE *list;                /* --list-files: name each file here, copy none */
};

/* 0, or -1 when a file could not be copied (each one named). Binaries
 * that cannot be found are warned about and left out. */
int pp_archive(struct pp_filelist const *files,
	       struct pp_archive_opts const *o);

/*
 * The manifest, DIR/PP_ARCHIVE_MANIFEST: key=value lines ('#' starts a
 * comment line), values from input escaped (op_escape.h):
 *   format=1                    the layout (a reader refuses a later one)
 *   tool=oparchive (PACKAGE VERSION)
 *   created=2026-01-01T00:00:00Z
 *   session_dir=/the/original/--session-dir
 *   samples=/var/lib/oprofile/samples   below DIR: the sessions
 *   session=NAME FROM           one a session: its name in samples/, and
 *                               the directory it was archived from
 */
#define PP_ARCHIVE_MANIFEST "oparchive.manifest"
#define PP_ARCHIVE_FORMAT 1
/* OProfile's session directory in an archive, below DIR */
#define PP_ARCHIVE_SESSION_DIR "/var/lib/oprofile"
/* The largest manifest read: a few lines a session */
#define PP_ARCHIVE_MANIFEST_MAX (256 * 1024)

/*
 * Parse a manifest's text (len bytes, NUL-terminated): 0 with *samples
 * the samples directory it names below the archive (malloc'd; NULL when
 * it names none), or -1 with err saying what is wrong (a later format, a
 * samples path with '..', a control byte or not absolute, a line that is
 * no key=value). The text is input: anything is refused, nothing trusted.
 */
int pp_archive_manifest_parse(char const *text, size_t len, char **samples,
			      char *err, size_t errlen);

/*
 * The session directory the reports read in the archive dir (malloc'd):
 * where its manifest says, else OProfile's (DIR/var/lib/oprofile) when
 * it has samples/, else DIR/session_dir (the layout of oparchive before
 * the manifest, read with the original --session-dir). A manifest that
 * cannot be read (a link, not a regular file, too large) or parsed is
 * warned about, naming it, and the layout is looked for instead.
 */
char *pp_archive_session_base(char const *dir, char const *session_dir);

#endif /* PP_ARCHIVE_H */
