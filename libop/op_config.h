/* Paths and defaults shared by the daemon, opcontrol and the report tools. */
#ifndef OP_CONFIG_H
#define OP_CONFIG_H

/* The session directory's names and the driver directory. */
#include "op_session.h"

/* Where events/ is installed; OPROFILE_EVENTS_DIR overrides it at run time. */
#ifndef OP_EVENTS_DIR
#define OP_EVENTS_DIR "/usr/local/share/oprofile-ng/events"
#endif
#define OP_EVENTS_DIR_ENV "OPROFILE_EVENTS_DIR"

/*
 * The kernel proper's image name in sample files and kernel_images, as
 * OProfile 1.x names it, so that its tools find the symbols: the vmlinux
 * path when one is given, else /proc/kallsyms (sample files
 * {root}/proc/kallsyms/...). OProfile writes no-vmlinux when even kallsyms
 * cannot be read. Sessions before this rule say "vmlinux"
 * ({kern}/vmlinux/...); reports show the kernel proper as "vmlinux"
 * whichever name it has (doc/formats.md section 3).
 */
#define OP_KALLSYMS_IMAGE "/proc/kallsyms"
#define OP_NO_VMLINUX_IMAGE "no-vmlinux"
#define OP_VMLINUX_IMAGE "vmlinux"

#endif /* OP_CONFIG_H */
