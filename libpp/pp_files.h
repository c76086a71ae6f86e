/*
 * Choosing sample files: resolve the sessions of a profile specification,
 * list every sample file in them, parse each name (op_parse_filename) and
 * keep those the specification matches.
 *
 * When nothing is left, the error says which stage removed everything and
 * what the files offered instead ("12 files in session 'current', 0 left
 * after image:/bin/foo (images present: /usr/bin/python3, ...)"): an empty
 * report with no reason was OProfile's most common complaint.
 *
 * Callgraph ({cg}) files are not part of that selection: they are left
 * out, or for a callgraph report kept apart and matched by the same
 * stages on their application (A) and image (B), the caller's side.
 */
#ifndef PP_FILES_H
#define PP_FILES_H

#include <stdbool.h>
#include <stddef.h>

#include "op_mangle.h"
#include "pp_spec.h"
#include "pp_strlist.h"

struct pp_session {
	char *name;      /* as the user knows it: "current", "mysave", a path */
	char *dir;       /* the directory holding its sample files */
};

struct pp_sfile {
	char *path;                   /* full path of the sample file */
	size_t session;               /* index in pp_filelist.sessions */
	struct op_parsed_name name;   /* its parsed name */
	int cls;                      /* class (column), set by pp_classify */
};

struct pp_filelist {
	struct pp_session *sessions;
	size_t nr_sessions;
	struct pp_sfile *v;           /* matching files, sorted by path */
	size_t n;
	size_t nr_callgraph;          /* {cg} files found, kept or not */
	struct pp_sfile *cg;          /* with callgraph: the {cg} files the */
	size_t nr_cg;                 /* specification keeps, by path */
};

struct pp_select_opts {
	char const *session_dir;      /* e.g. /var/lib/oprofile */
	bool exclude_dependent;       /* -x: only files with A == B */
	bool callgraph;               /* keep {cg} files (in cg), matched
				       * like the others by A and B */
	char const *since, *until;    /* --since/--until (pp_timerange.h):
				       * the rotated sessions in that range
				       * instead of session:; NULL: none */
};

/*
 * Fill out with the files spec selects. Unparsable names are noted (with
 * the file and the reason) and skipped. Returns 0, or -1 with err saying
 * why nothing can be reported (no such session, nothing matched); out
 * then holds nothing to free.
 */
int pp_files_select(struct pp_spec const *spec,
		    struct pp_select_opts const *opts,
		    struct pp_filelist *out, struct pp_strlist *notes,
		    char *err, size_t errlen);
void pp_files_free(struct pp_filelist *l);

/* The session base a spec reads from: session_dir, or archive:DIR's
 * (pp_archive_session_base). */
char *pp_files_session_base(struct pp_spec const *spec,
			    char const *session_dir);

/* A parsed image name as selected files carry it: OProfile 1.x's name of
 * a kallsyms-resolved kernel proper ("/proc/kallsyms") becomes the kernel
 * image "vmlinux"; "no-vmlinux" stays itself, a kernel image without
 * symbols (the stack table names images as files do). */
void pp_files_kernel_alias(char **name, int *is_kernel);

/* Whether a file's image (B) is another than its application (A). */
bool pp_sfile_is_dependent(struct op_parsed_name const *n);

/*
 * How much a file's application looks like its process's program, 0 to
 * 3: a session that does not separate libraries or the kernel files each
 * image's samples under that image, so a process's files name the
 * kernel (0), [vdso] (1) and libraries (2) as well as its program (3);
 * its anonymous regions' files name the program (3). A row of a process
 * takes the name of its highest.
 */
int pp_sfile_app_rank(struct op_parsed_name const *n);

/* Whether an event counts clock time: its count is a period in ns. */
bool pp_event_is_clock(char const *event);

/* Whether name matches an image pattern list (basename too for "ls"). */
bool pp_image_match(struct pp_strlist const *pats, char const *name);

#endif /* PP_FILES_H */
