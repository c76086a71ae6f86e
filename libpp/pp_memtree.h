/*
 * Sample files held in memory: a session's samples/current tree that was
 * never written (opreport --stream replays a stream through the daemon's
 * core into one: written out it costs a directory per path component and
 * a page per file, hundreds of times the stream). Once attached, libpp
 * lists and reads the tree's files as if they were on disk under its
 * root: pp_files_select finds them, pp_samples_read reads them.
 */
#ifndef PP_MEMTREE_H
#define PP_MEMTREE_H

#include <stddef.h>
#include <stdint.h>

#include "op_sample_file.h"

struct pp_memtree;
struct pp_memfile;

/* An empty tree standing for the directory root (SESSION/samples/current). */
struct pp_memtree *pp_memtree_new(char const *root);
/* Detaches it and frees it with its files. */
void pp_memtree_free(struct pp_memtree *t);

/*
 * The file at path (under root), made with header h when new. NULL with
 * err when path is not under root, or the file holds another build's
 * samples (its header's mtime differs): as the daemon, never mixed.
 */
struct pp_memfile *pp_memtree_open(struct pp_memtree *t, char const *path,
				   struct opd_header const *h,
				   char *err, size_t errlen);
/* n more samples at key. Counts are 64-bit sums: they do not saturate. */
void pp_memtree_add(struct pp_memfile *f, uint64_t key, uint32_t n);
/* Files in the tree. */
size_t pp_memtree_size(struct pp_memtree const *t);

/* Read through t from now on (until pp_memtree_free). */
void pp_memtree_attach(struct pp_memtree *t);

/* For libpp's readers: the attached tree whose root is dir, or NULL; its
 * n-th file's path relative to the root. */
struct pp_memtree const *pp_memtree_at(char const *dir);
char const *pp_memtree_rel(struct pp_memtree const *t, size_t i);

/* The attached file at path: 1 and its header and samples (added to s,
 * as pp_samples_read in pp_sample_file.h), or 0: no such file in memory. */
struct pp_samples;
int pp_memtree_read(char const *path, struct pp_samples *s,
		    struct opd_header *hdr);

#endif /* PP_MEMTREE_H */
