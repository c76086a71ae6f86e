/*
 * A session's kernel metadata, samples/NAME/session/: what a report needs
 * to resolve kernel samples after a reboot, never read from the running
 * system's /proc. The daemon writes it, the report tools read it, both
 * through this file:
 *
 *   kallsyms.gz     /proc/kallsyms of the sampled boot, gzipped ("kallsyms",
 *                   a plain copy, is read as well)
 *   kallsyms.idx    our extension: kallsyms.gz's symbols as fixed-size
 *                   entries and a name pool, with the size and CRC-32 of
 *                   the kallsyms.gz it was made from (doc/formats.md);
 *                   read instead of inflating kallsyms.gz when they match
 *   modules         /proc/modules of the sampled boot (empty without
 *                   module support)
 *   kernel_images   "NAME 0xSTART 0xEND" per line: the runtime range
 *                   [START, END) of vmlinux (or the --vmlinux path) and of
 *                   each module; kernel sample keys are pc - START
 */
#ifndef OP_SESSION_KERNEL_H
#define OP_SESSION_KERNEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct op_kernel_image {
	char *name;          /* "/proc/kallsyms" (older sessions: "vmlinux"), a vmlinux path or a module name */
	uint64_t start;      /* runtime range [start, end) */
	uint64_t end;
};

/* Where the writer takes the boot's data from. */
struct op_kernel_sources {
	char const *kallsyms;     /* plain text, e.g. /proc/kallsyms; NULL: none */
	char const *kallsyms_gz;  /* a gzipped copy to link or copy, or NULL */
	char const *kallsyms_idx; /* its index, linked or copied with it, or NULL */
	char const *modules;      /* e.g. /proc/modules; missing: empty copy */
};

/*
 * Write dir (an existing session/ directory): kallsyms.gz (a hard link to
 * src->kallsyms_gz when possible, else a copy of it, else src->kallsyms
 * gzipped; with no src->kallsyms none, and an old one is removed),
 * modules, and kernel_images from the n images v. 0, or -1 with err
 * naming the file.
 */
int op_session_kernel_write(char const *dir, struct op_kernel_sources const *src,
			    struct op_kernel_image const *v, size_t n,
			    char *err, size_t errlen);

/* Write len bytes of text gzipped (level 1: fast) to path, atomically.
 * 0, or -1 with errno set. */
int op_session_write_gz(char const *path, char const *text, size_t len);

/*
 * Write the kallsyms text gzipped to gz_path, then its index to idx_path
 * (both atomically, mode 0600). 0, or -1 with errno set when gz_path
 * could not be written; an index that cannot be written is removed
 * (the readers then inflate kallsyms.gz, as without one).
 */
int op_session_write_kallsyms(char const *gz_path, char const *idx_path,
			      char const *text, size_t len);

/*
 * Read dir/kernel_images into a malloc'ed array (*v, *n; free with
 * op_kernel_images_free). 0, or -1 with err naming the file (and line).
 */
int op_session_kernel_images(char const *dir, struct op_kernel_image **v,
			     size_t *n, char *err, size_t errlen);

void op_kernel_images_free(struct op_kernel_image *v, size_t n);

/* One kallsyms line: "ADDR TYPE NAME[\t[MODULE]]". */
struct op_ksym {
	uint64_t addr;
	char type;               /* 'T', 't', 'W', ... */
	char const *name;
	char const *module;      /* NULL: the kernel proper */
};

typedef void (*op_ksym_fn)(struct op_ksym const *sym, void *arg);

/*
 * Call fn for every well-formed line of dir's saved kallsyms, in order.
 * *any_address tells whether some line had a non-zero address (with
 * kernel.kptr_restrict every address reads 0). 0, -1 when dir has
 * no saved kallsyms, -2 when it is not one (damaged gzip data, or not a
 * single well-formed line: the symbols read, if any, were passed on).
 */
int op_session_kallsyms(char const *dir, op_ksym_fn fn, void *arg,
			bool *any_address);

/*
 * The kallsyms index in buf (len bytes): when it is one made from a
 * kallsyms.gz of gz_size bytes and CRC-32 gz_crc, call fn for each of its
 * symbols as op_session_kallsyms would, and return 0. 1: another version,
 * or made from another kallsyms.gz (nothing called). -1: damaged, with err
 * saying what is wrong (nothing called: all is checked first).
 */
int op_kallsyms_index_parse(void const *buf, size_t len, uint64_t gz_size,
			    uint32_t gz_crc, op_ksym_fn fn, void *arg,
			    bool *any_address, char *err, size_t errlen);

#endif /* OP_SESSION_KERNEL_H */
