/*
 * The samples of sample files in memory: (key, count) pairs of one or
 * more files (read by pp_sample_file.h), folded by key. Keys are whatever
 * the file's image uses (file offsets, kernel image offsets, anon
 * offsets); the image's binary gives them meaning.
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

/* Add count samples at key (unsorted until pp_samples_finish). */
void pp_samples_add(struct pp_samples *s, uint64_t key, uint64_t count);

/* Append the samples of src to dst and free src. */
void pp_samples_move(struct pp_samples *dst, struct pp_samples *src);

/* Sort by key and fold equal keys. */
void pp_samples_finish(struct pp_samples *s);

uint64_t pp_samples_total(struct pp_samples const *s);
void pp_samples_free(struct pp_samples *s);

#endif /* PP_SAMPLES_H */
