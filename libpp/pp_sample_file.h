/*
 * Reading a sample file (pp_sample_file.c): from the tree in memory when
 * one is attached there (pp_memtree.h), else from disk through libdb.
 * Every file is untrusted: its header is validated and its structure
 * checked (libdb) before any count is used.
 */
#ifndef PP_SAMPLE_FILE_H
#define PP_SAMPLE_FILE_H

#include <stddef.h>

#include "op_sample_file.h"
#include "pp_samples.h"

/*
 * Read the header of path into *hdr and add its samples to s. Returns 0,
 * or -1 with err "PATH: what is wrong" and s unchanged.
 */
int pp_samples_read(struct pp_samples *s, char const *path,
		    struct opd_header *hdr, char *err, size_t errlen);

#endif /* PP_SAMPLE_FILE_H */
