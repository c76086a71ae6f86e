/*
 * Whole stacks of a profile (opreport --stacks, --folded, --pprof,
 * --flame): the stack tables of the selected sessions (libstacks/op_stacks.h)
 * read, filtered like the sample files and symbolised through the same
 * image opener as opreport -l (pp_image_open: libbfd, debug files, the
 * session's kallsyms), so a frame has the name the flat profile gives it.
 *
 * A stack is selected when a selected sample file holds its leaf: same
 * event, the leaf's image is the file's image (B), and the file's
 * application (A) is the stack's or the file is not separated by
 * application (A == B), and the file's tgid, when it has one, is the
 * stack's. Only one event is used (the first selected; a note says
 * which were left out): counts of two events do not add up.
 */
#ifndef PP_STACKS_H
#define PP_STACKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pp_demangle.h"
#include "pp_files.h"
#include "pp_strlist.h"

struct pp_locate;

/* One source line of a frame; lines[0] is the innermost inlined one. */
struct pp_sline {
	char *func;              /* function (the symbol for the outermost) */
	char *file;              /* NULL: unknown */
	unsigned line;
};

/* A sampled image of a stack table, opened once. */
struct pp_simage {
	char *display;           /* as reports name it */
	char *base;              /* its base name, for frames without symbols */
	char *path;              /* the sampled path, or kernel image name */
	char *build_id;          /* hex, or NULL */
	uint64_t max_key;        /* the highest offset a frame has in it */
	size_t session;          /* in the file list (kernel symbols) */
	bool kern, anon;
	bool unparsed;           /* not an image name: no symbols */
	bool rebuilt;            /* another build than the sampled one */
	int anon_tgid;
	uint64_t anon_start, anon_end;
};

/* A distinct (image, offset) of the stacks. */
struct pp_sframe {
	size_t image;            /* in pp_stacks.images */
	uint64_t key;            /* offset in the image's sample key space */
	size_t func;             /* in pp_stacks.funcs */
	bool has_vma;
	uint64_t vma;
	struct pp_sline *lines;  /* pprof only; innermost first */
	size_t nr_lines;
};

/* A function as reports name it: symbol, or "[image]" without one. */
struct pp_sfunc {
	char *name;
	char *image;             /* display of its image (borrowed) */
	bool has_symbol;
};

/* A stack of the profile, with its count in the selected event. */
struct pp_sstack {
	size_t *frames;          /* in pp_stacks.frames, leaf first */
	size_t nr_frames;
	uint32_t tgid;
	char const *proc;        /* the process name (app base name) */
	uint32_t stop;           /* 0: reached its root; else why not */
	uint64_t count;
};

struct pp_stop_total {
	uint32_t reason;
	uint64_t count;
};

struct pp_frame_block;

struct pp_stacks {
	char *event;             /* "CPU_CLOCK.100000.0" */
	struct pp_simage *images;
	size_t nr_images;
	struct pp_sframe *frames;
	size_t nr_frames;
	struct pp_sfunc *funcs;
	size_t nr_funcs, alloc_funcs;
	struct pp_sstack *v;
	size_t n;
	uint64_t total;          /* sum of the stacks' counts */
	uint64_t flat;           /* of which from sessions without stacks
				  * (one frame each, never unwound) */
	struct pp_stop_total *stops;   /* stacks not unwound to their root */
	size_t nr_stops;
	char **procs;            /* process names, owned */
	size_t nr_procs;
	int64_t start_time;      /* the first session's start (epoch s), 0 */
	struct pp_frame_block *frame_blocks;  /* where v[].frames live */
};

struct pp_stacks_opts {
	struct pp_locate *locate;
	enum pp_demangle demangle;
	bool lines;              /* source lines and inlined frames (pprof) */
};

/*
 * Read the stacks of the selected files' sessions; a session recorded
 * without stacks gives each sample as a one-frame stack under its process
 * (a note says so). 0, or -1 with err.
 */
int pp_stacks_load(struct pp_stacks *st, struct pp_filelist const *files,
		   struct pp_stacks_opts const *o, struct pp_strlist *notes,
		   char *err, size_t errlen);
void pp_stacks_free(struct pp_stacks *st);

/* Room for n frame indexes of a stack of st, freed with st (for sources
 * that fill st themselves: pp_fleet_stacks.c). */
size_t *pp_stacks_alloc_frames(struct pp_stacks *st, size_t n);

/* The name a stack's unwinding stop shows: "[unwinding stopped: why]". */
char *pp_stacks_stop_label(uint32_t reason);

#endif /* PP_STACKS_H */
