/*
 * The sample file cache: finds or creates the sample file for a set of
 * transient values (app, image, callee image, tgid, tid, cpu, event) and
 * keeps at most a bounded number of them open, least recently used first
 * to close. A closed file reopens on its next sample.
 */
#ifndef OPD_SFILE_H
#define OPD_SFILE_H

#include <stddef.h>
#include <stdint.h>

#include "odb.h"
#include "opd_core.h"

struct opd_sfile_key {
	int32_t app;     /* image id of A; equals image when not separated */
	int32_t image;   /* image id of B */
	int32_t cg;      /* image id of C for {cg} files, -1 otherwise */
	int32_t tgid;    /* -1: all */
	int32_t tid;     /* -1: all */
	int32_t cpu;     /* -1: all */
	int32_t event;   /* index into the configured events */
};

struct opd_sfile;
struct opd_sfiles;
struct opd_images;

/*
 * A cache of the sample files under samples_dir (SESSION/samples/current),
 * named after the images of images. Keeps pointers to cfg and images;
 * each entry holds a reference to the images of its key (opd_image_ref),
 * and records them in the session (opd_image_record) when it opens its
 * file.
 */
struct opd_sfiles *opd_sfiles_new(struct opd_config const *cfg,
				  struct opd_images *images,
				  char const *samples_dir);
/* Flush, close the files and free the cache. */
void opd_sfiles_free(struct opd_sfiles *sfs);

/*
 * Count one sample at key in the file for k. Samples are summed in memory
 * and reach the files on opd_sfile_flush (and sync, close, counts); their
 * fate is then counted in struct opd_sfile_counts.
 */
void opd_sfile_add(struct opd_sfiles *sfs, struct opd_sfile_key const *k,
		   uint64_t key);
/* The same for a sample that counts n (an off-CPU sample's weight). */
void opd_sfile_add_n(struct opd_sfiles *sfs, struct opd_sfile_key const *k,
		     uint64_t key, uint32_t n);
/*
 * Close and free the entries whose key names image id (its cookie was
 * forgotten), so that they no longer hold it; pending samples are written
 * first. A later sample makes the entry again (the file reopens).
 */
void opd_sfile_release_image(struct opd_sfiles *sfs, int id);

/* Write every pending sample to its file. */
void opd_sfile_flush(struct opd_sfiles *sfs);

/*
 * Write one sample (counting n) at key in the file for k now, not aggregated, and
 * count its fate as opd_sfile_add's: 1 if it is in the file, 0 if not
 * (saturated, or counted as an error or no space). For a sample whose
 * stack is counted only when the sample itself is in its file.
 */
int opd_sfile_add_now(struct opd_sfiles *sfs, struct opd_sfile_key const *k,
		      uint64_t key, uint32_t n);

/* What became of the samples flushed so far (flushes first). */
struct opd_sfile_counts {
	uint64_t written;    /* added to a sample file */
	uint64_t saturated;  /* the count had reached UINT32_MAX */
	uint64_t errors;     /* the file could not be opened or written */
	uint64_t no_space;   /* ... because the device is full (ENOSPC, EDQUOT) */
	uint64_t arcs;       /* callgraph arcs added to {cg} files */
	uint64_t arcs_dropped;  /* callgraph arcs that could not be added */
};
struct opd_sfile_counts const *opd_sfile_counts(struct opd_sfiles *sfs);
void opd_sfile_reset_counts(struct opd_sfiles *sfs);

/* "No space left on device on DEV..." while the device is full, else NULL. */
char const *opd_sfile_no_space(struct opd_sfiles const *sfs);

/*
 * Out of descriptors: close every open sample file, without writing the
 * pending samples (they are written when their file reopens), so that
 * another file can be opened. Safe from within the cache's own opens
 * (no file is opened, no entry freed). Returns the files closed.
 */
size_t opd_sfile_release_fds(struct opd_sfiles *sfs);

void opd_sfile_sync_all(struct opd_sfiles *sfs);
void opd_sfile_close_all(struct opd_sfiles *sfs);

/*
 * Complete every growth a crash cut short in the sample trees (odb_settle),
 * so that no file stays in that state once a daemon has started.
 */
void opd_sfiles_settle(struct opd_sfiles *sfs);

/* Files currently open (for tests of the LRU bound). */
size_t opd_sfile_nr_open(struct opd_sfiles const *sfs);

#endif /* OPD_SFILE_H */
