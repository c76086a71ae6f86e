/*
 * GNU gprof's gmon.out for one image (opgprof): a histogram of the
 * samples over the image's code, two bytes of code per bin (counts are
 * 16 bits: a profile with more samples in one bin is scaled down, shares
 * kept, and that is said), and call arcs. The layout is gprof's
 * (gmon_out.h): the "gmon" header, version 1, then tagged records: the
 * histogram (tag 0: lowpc, highpc, bins, rate, "seconds", 's'; then the
 * bins) and each arc (tag 1: from_pc, self_pc, count), in the host's
 * byte order and address size.
 */
#ifndef PP_GMON_H
#define PP_GMON_H

#include <stddef.h>
#include <stdint.h>

#define PP_GMON_BIN_BYTES 2

struct pp_gmon_arc {
	uint64_t from, self;     /* call site, callee */
	uint64_t count;
};

struct pp_gmon {
	uint64_t lowpc, highpc;  /* the code covered: [lowpc, highpc) */
	uint64_t *bins;
	size_t nr_bins;
	uint32_t rate;           /* samples per second, for gprof's times */
	struct pp_gmon_arc *arcs;
	size_t nr_arcs, alloc_arcs;
	uint64_t outside;        /* samples outside [lowpc, highpc) */
};

void pp_gmon_init(struct pp_gmon *g, uint64_t lowpc, uint64_t highpc,
		  uint32_t rate);
void pp_gmon_add(struct pp_gmon *g, uint64_t vma, uint64_t count);
void pp_gmon_add_arc(struct pp_gmon *g, uint64_t from, uint64_t self,
		     uint64_t count);

/* Write path; 0 or -1 with err naming it. *scale: the divisor applied to
 * the bins (1: none). */
int pp_gmon_write(struct pp_gmon const *g, char const *path,
		  uint64_t *scale, char *err, size_t errlen);

void pp_gmon_free(struct pp_gmon *g);

#endif /* PP_GMON_H */
