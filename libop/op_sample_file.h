/*
 * The sample file header, byte-compatible with OProfile 1.x (version 0x13).
 *
 * A sample file is [struct opd_header][libdb area] (see libdb/odb.h). All
 * fields are native-endian with native x86-64 alignment:
 *
 *   off size field
 *     0    4 magic            "DAE\n"
 *     4    4 version          0x13
 *     8    4 cpu_type         enum op_cpu (OProfile 1.x numbering)
 *    12    4 ctr_event        event code
 *    16    4 ctr_um           unit mask
 *    20    4 ctr_count        sampling period
 *    24    4 is_kernel        samples are kernel/module offsets
 *    28    4 (padding, zero)
 *    32    8 cpu_speed        MHz, double
 *    40    8 mtime            st_mtime of the binary when sampled
 *    48    4 cg_to_is_kernel  callgraph files: the callee side is kernel
 *    52    4 (padding, zero)
 *    56    8 anon_start       start address of an anonymous region
 *    64    8 cg_to_anon_start callgraph files: callee side's anon start
 *    72      (end; the libdb descriptor follows)
 */
#ifndef OP_SAMPLE_FILE_H
#define OP_SAMPLE_FILE_H

#include <stddef.h>
#include <stdint.h>

#define OPD_MAGIC "DAE\n"
#define OPD_VERSION 0x13

struct opd_header {
	uint8_t magic[4];
	uint32_t version;
	uint32_t cpu_type;
	uint32_t ctr_event;
	uint32_t ctr_um;
	uint32_t ctr_count;
	uint32_t is_kernel;
	double cpu_speed;
	uint64_t mtime;
	uint32_t cg_to_is_kernel;
	uint64_t anon_start;
	uint64_t cg_to_anon_start;
};

_Static_assert(sizeof(struct opd_header) == 72, "OProfile 1.x header is 72 bytes");
_Static_assert(offsetof(struct opd_header, cpu_speed) == 32, "cpu_speed at 32");
_Static_assert(offsetof(struct opd_header, anon_start) == 56, "anon_start at 56");

/* Zero the whole header (padding included) and set magic and version. */
void op_header_init(struct opd_header *h);

/*
 * Check magic and version of a header read from file `path`. Returns 0, or
 * -1 with a message "PATH: what is wrong" in err.
 */
int op_header_validate(struct opd_header const *h, char const *path,
		       char *err, size_t errlen);

/* Read and validate the header of a sample file. 0 or -1 with err set. */
int op_header_read(char const *path, struct opd_header *h,
		   char *err, size_t errlen);

#endif /* OP_SAMPLE_FILE_H */
