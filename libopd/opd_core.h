/*
 * The daemon's core: everything after the event stream. oprofiled.c (the
 * process: options, session, control, main loop) talks to it through this
 * interface only; the stream's producers (perf source, driver buffer, a
 * replayed file) hand it words.
 */
#ifndef OPD_CORE_H
#define OPD_CORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "op_events.h"
#include "op_stacks.h"
#include "op_stream.h"

/* --separate= bits */
enum opd_separate {
	OPD_SEP_LIB = 1 << 0,     /* libraries under their application */
	OPD_SEP_KERNEL = 1 << 1,  /* kernel samples under their application (implies lib) */
	OPD_SEP_THREAD = 1 << 2,  /* per tgid/tid files */
	OPD_SEP_CPU = 1 << 3,     /* per cpu files */
};

#define OPD_MAX_EVENTS 8

struct opd_header;

/*
 * Sample files kept by the caller instead of written (opreport --stream:
 * a replay into files costs a directory per path component and a page per
 * file, hundreds of times the stream). A file is opened by its path and
 * header, then counts are added to it; the session's other files (build
 * ids, stacks) are still written.
 */
struct opd_sample_sink {
	void *ctx;
	/* the file of path, made with h if new: a handle, or NULL after a
	 * message (its samples are then counted as sample file errors) */
	void *(*open)(void *ctx, char const *path, struct opd_header const *h);
	/* n more samples (or arcs) at key */
	void (*add)(void *file, uint64_t key, uint32_t n);
};

/* One configured event; index i is the stream's event index i. */
struct opd_event {
	char name[64];
	uint32_t code;        /* events/ code: header ctr_event */
	uint32_t unit_mask;
	uint32_t count;       /* sampling period */
	int kernel, user;
};

struct opd_config {
	char const *session_dir;     /* e.g. /var/lib/oprofile */
	enum op_cpu cpu_type;
	double cpu_speed;
	unsigned separate;           /* enum opd_separate bits */
	size_t nr_events;
	struct opd_event events[OPD_MAX_EVENTS];
	char const *vmlinux;         /* NULL: kernel samples go to {root}/proc/kallsyms via kallsyms */
	size_t max_open_files;       /* LRU bound on open sample files (0: default) */
	int no_kernel;               /* the producer samples no kernel mode
				      * (operf as a user): no kernel symbol
				      * data to read or save */
	char const *const *image_filter;  /* NULL-ended paths to keep; NULL: all */
	bool keep_binaries;          /* copy each sampled binary into session/binaries */
	/* keep what the perf maps of processes sampled live say about their
	 * sampled anonymous regions (opd_jit.h): at a process's exit and at
	 * opd_core_save_jit_maps; never for a replayed stream (its pids are
	 * not the live ones) */
	bool jit_maps;
	/* opreport --stream --time: keep only samples (and arcs) whose ESC
	 * TIME is in [time_start, time_end); a sample before any TIME has
	 * time 0. Off (all kept) unless time_window. */
	bool time_window;
	uint64_t time_start, time_end;
	struct opd_sample_sink const *sink;  /* NULL: sample files on disk */
};

/* Counters the core keeps; stats/ files are written from these. */
struct opd_stats {
	uint64_t received;           /* sample pairs decoded */
	uint64_t written;            /* added to a sample file */
	uint64_t lost[OP_LOST_CATEGORY_MAX];  /* reported in-band by the producer */
	uint64_t count[OP_COUNT_MAX];         /* producer counters (ESC COUNT), not samples */
	uint64_t no_app;             /* kernel samples dropped: no app where one is required */
	uint64_t bad_event;          /* event index out of range */
	uint64_t unresolved_kernel;  /* kernel pc in no known kernel image */
	uint64_t unknown_cookie;     /* user sample under a cookie never defined */
	uint64_t no_mapping;         /* user sample with no binary (NO/INVALID_COOKIE) */
	uint64_t filtered;           /* neither image nor app in the image filter */
	uint64_t sfile_errors;       /* sample file could not be opened/grown */
	uint64_t no_space;           /* ... because its device is full */
	uint64_t saturated;          /* count stopped at UINT32_MAX */
	uint64_t stream_errors;      /* malformed stream records */
	uint64_t arcs;               /* callgraph arcs recorded (not samples) */
	uint64_t arcs_dropped;       /* callgraph arcs that could not be recorded */
	uint64_t cookies_forgotten;  /* definitions the producer freed (COOKIE_FORGET) */
	uint64_t decoder_cookies;    /* definitions held now (not a count: a size) */
	uint64_t images_live;        /* images the daemon holds now (a size) */
	uint64_t anon_regions_folded; /* regions beyond the bound, in {anon:NAME}/0.0x0.0x0 */
	uint64_t outside_window;     /* samples outside cfg time_window */
	/* JIT perf maps (opd_jit.h): not samples */
	uint64_t jit_maps_read;      /* maps read into session/jit/ */
	uint64_t jit_maps_refused;   /* not a regular file, a link, another user's */
	uint64_t jit_maps_cut;       /* read only up to the byte bound */
	uint64_t jit_entries_cut;    /* entries past the per-process or total bound */
	uint64_t jit_dumps_read;     /* jitdumps read into session/jit/TGID.so */
	uint64_t jit_dumps_refused;  /* not a jitdump, a link, another user's */
	uint64_t jit_dump_loads_cut; /* code loads past the bounds, not kept */
	/* whole stacks (stacks/): samples, not in the balance */
	uint64_t stack_written;      /* samples counted under their stack */
	uint64_t stack_dropped;      /* samples whose stack could not be */
	uint64_t unwind_stop[OP_UNWIND_NR];  /* stacks by why they end */
};

struct opd_core;

/*
 * A core writing to SESSION/samples/current/. Saves the kernel symbol data
 * of this boot (kallsyms, module list) there. NULL on error (message
 * printed). cfg is copied, its strings (session_dir, vmlinux,
 * image_filter) are not:
 * they must outlive the core. Cores share no state: several may run in
 * one process.
 */
struct opd_core *opd_core_new(struct opd_config const *cfg);

/* Close everything and free the core (NULL is allowed). */
void opd_core_free(struct opd_core *core);

/* Decode and record a chunk of stream words (may end mid-record). */
void opd_core_process(struct opd_core *core, unsigned long const *words,
		      size_t n);

/* A new stream begins (new producer or file): forget in-band definitions. */
void opd_core_new_stream(struct opd_core *core);

/*
 * Write the samples aggregated in memory into their (mmap'ed) files, so
 * that they outlive a kill -9 of the daemon; no msync.
 */
void opd_core_flush(struct opd_core *core);
/* "no space left on DEVICE" while sample files cannot grow, else NULL. */
char const *opd_core_no_space(struct opd_core const *core);
/* Flush, then msync every open sample file. */
void opd_core_sync(struct opd_core *core);

/*
 * (Re)write the session data a later report needs into
 * SESSION/samples/current/session/: kallsyms, modules, kernel_images. Call
 * after creation (done by opd_core_new), and after reset or save recreated
 * the current session. 0 or -1 (message printed).
 */
int opd_core_write_session(struct opd_core *core);
/*
 * The current session was saved (or reset) and begins anew: its build-ids
 * list only the images it gets samples of (opd_images_new_session), and
 * its session data is written again. 0 or -1 (message printed).
 */
int opd_core_new_session(struct opd_core *core);

/* Close every sample file (HUP, reset, save); they reopen lazily. */
void opd_core_close_files(struct opd_core *core);

/* Out of descriptors: close the sample files, pending samples kept
 * (opd_sfile_release_fds); the number closed. */
size_t opd_core_release_fds(struct opd_core *core);

/*
 * Read the perf maps of every process with sampled anonymous regions now
 * and keep what they say in the session (at a dump, operf's end): see
 * opd_jit.h. Nothing unless cfg jit_maps.
 */
void opd_core_save_jit_maps(struct opd_core *core);

/* Re-read kernel images (module list) now. */
void opd_core_reload_kernel(struct opd_core *core);

struct opd_stats const *opd_core_stats(struct opd_core *core);
void opd_core_reset_stats(struct opd_core *core);

/* Sample files open now (for tests of the LRU bound). */
size_t opd_core_nr_open_files(struct opd_core const *core);

#endif /* OPD_CORE_H */
