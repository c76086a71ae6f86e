/*
 * Kernel images of the running boot: the kernel text and every module,
 * with their runtime address ranges (KASLR included), read from
 * /proc/kallsyms and /proc/modules. Kernel samples arrive as raw pcs; this
 * turns a pc into (image, offset from the image start).
 */
#ifndef OPD_KERNEL_H
#define OPD_KERNEL_H

#include <stdint.h>
#include <stddef.h>

struct opd_kimage {
	char *name;       /* "/proc/kallsyms" (or the --vmlinux path) or a module name */
	uint64_t start;   /* runtime start; sample keys are pc - start */
	uint64_t end;     /* exclusive */
	int id;           /* stable index for the sample file cache */
};

struct opd_kernel;

/*
 * Read the kernel text range and the module list. vmlinux: the path given
 * with --vmlinux, or NULL to name the kernel image "/proc/kallsyms" (as
 * OProfile 1.x names a kallsyms-resolved kernel: op_config.h). cache: a
 * directory where kallsyms is kept once per boot (NULL: no cache). When
 * kallsyms gives no text range (unreadable, or zero addresses as for a
 * non-root reader or kptr_restrict) that is said once and every kernel pc
 * outside the modules goes to the image "no-vmlinux", keyed by the pc, as
 * OProfile does. Returns the table (err is kept for callers that check for
 * NULL: there is no failure left).
 */
struct opd_kernel *opd_kernel_new(char const *vmlinux, char const *cache,
				  char *err, size_t errlen);
void opd_kernel_free(struct opd_kernel *k);

/* Re-read the module list (new modules get new ids; old ones keep theirs).
 * Returns 0: a kernel range that cannot be read again keeps the old one. */
int opd_kernel_reload(struct opd_kernel *k, char *err, size_t errlen);

/* Image containing pc (no-vmlinux when there is no text range), or NULL. */
struct opd_kimage const *opd_kernel_find(struct opd_kernel const *k, uint64_t pc);

/* Images by id (ids are 0 .. opd_kernel_nr_ids() - 1; some may be NULL). */
struct opd_kimage const *opd_kernel_by_id(struct opd_kernel const *k, int id);
int opd_kernel_nr_ids(struct opd_kernel const *k);

/*
 * Save what a report needs to resolve kernel symbols after a reboot into
 * dir, a session's session/ (op_session_kernel.h: kallsyms.gz, modules,
 * kernel_images). 0 or -1 with err set.
 */
int opd_kernel_save(struct opd_kernel const *k, char const *dir, char *err,
		    size_t errlen);

#endif /* OPD_KERNEL_H */
