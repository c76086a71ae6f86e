/*
 * Reading sample files into memory: (key, count) pairs of one or more
 * files, folded by key. Keys are whatever the file's image uses (file
 * offsets, kernel image offsets, anon offsets); pp_symbols.c gives them
 * meaning. Every file is untrusted: its header is validated and its
 * structure checked (libdb) before any count is used.
 */
#ifndef PP_SAMPLES_H
#define PP_SAMPLES_H

#include <stddef.h>
#include <stdint.h>

#include "op_sample_file.h"

struct pp_count {
	uint64_t key;       /* offset in the image */
	uint64_t count;     /* samples (sums of u32 file values) */
};

struct pp_samples {
	struct pp_count *v;
	size_t n, alloc;
};

/*
 * Read the header of path into *hdr and add its samples to s. Returns 0,
 * or -1 with err "PATH: what is wrong" and s unchanged.
 */
int pp_samples_read(struct pp_samples *s, char const *path,
		    struct opd_header *hdr, char *err, size_t errlen);

/* Append the samples of src to dst and free src. */
void pp_samples_move(struct pp_samples *dst, struct pp_samples *src);

/* Sort by key and fold equal keys. */
void pp_samples_finish(struct pp_samples *s);

uint64_t pp_samples_total(struct pp_samples const *s);
void pp_samples_free(struct pp_samples *s);

#endif /* PP_SAMPLES_H */
