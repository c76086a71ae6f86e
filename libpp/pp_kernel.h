/*
 * Kernel symbols from a session's saved metadata, never from /proc: a
 * report must work after a reboot. The daemon saves, and libop reads
 * (op_session_kernel.h), samples/<session>/session/: kernel_images (the
 * runtime range of vmlinux or its --vmlinux path, and of each module) and
 * kallsyms.gz (the /proc/kallsyms of the sampled boot). Kernel sample keys
 * are pc - START of their image; a symbol without a "[module]" suffix
 * belongs to the kernel proper, "[mod]" to module mod.
 */
#ifndef PP_KERNEL_H
#define PP_KERNEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pp_binary.h"
#include "pp_files.h"

struct pp_kimage {
	char *name;              /* "vmlinux", a vmlinux path, or a module */
	uint64_t start, end;     /* runtime range [start, end) */
	struct pp_symtab syms;   /* its kallsyms text symbols */
};

struct pp_kernel {
	char *dir;               /* the session's session/ directory */
	struct pp_kimage *v;     /* from kernel_images */
	size_t n;
	bool loaded;             /* kallsyms parsed */
	bool no_kallsyms;        /* no saved kallsyms */
	bool no_addresses;       /* kallsyms was saved with hidden addresses */
	bool bad_kallsyms;       /* the saved kallsyms is damaged or not one */
};

/* Whether a kernel image name is the kernel proper (not a module). */
bool pp_kernel_is_proper(char const *name);

/*
 * Fill b from a vmlinux file with symbols (libbfd: its symbols, DWARF and
 * code, keyed from its _text) for the kernel proper image name, after
 * checking it against the session's kallsyms: -1 with err when the
 * kallsyms functions are not at their places in it (another kernel).
 */
int pp_kernel_vmlinux(struct pp_kernel *k, char const *name,
		      char const *file, struct pp_binary *b, char *err,
		      size_t errlen);

/* Read session_dir/session/kernel_images. 0, or -1 with err (k empty). */
int pp_kernel_load(struct pp_kernel *k, char const *session_dir,
		   char *err, size_t errlen);

/*
 * Fill b with the symbols of kernel image name, keyed from its start.
 * 0, or -1 with err (unknown image, no kallsyms, hidden addresses).
 */
int pp_kernel_binary(struct pp_kernel *k, char const *name,
		     struct pp_binary *b, char *err, size_t errlen);

void pp_kernel_free(struct pp_kernel *k);

/*
 * The kernels of a report's sessions, each read on first use and shared
 * by the flat profile and the call graph.
 */
struct pp_kernels {
	struct pp_filelist const *files;  /* its sessions */
	struct pp_strlist *notes;
	char const *vmlinux;              /* --vmlinux FILE, or NULL */
	struct pp_kernel *v;              /* per session */
	int *state;                       /* per session: 0 unread, 1 ok, -1 bad */
};

void pp_kernels_init(struct pp_kernels *k, struct pp_filelist const *files,
		     struct pp_strlist *notes);

/* The kernel of session s, or NULL (why is noted once per session). */
struct pp_kernel *pp_kernels_get(struct pp_kernels *k, size_t s);

void pp_kernels_free(struct pp_kernels *k);

#endif /* PP_KERNEL_H */
