/* Small file system helpers shared by the daemon and the tools. */
#ifndef OP_FILE_H
#define OP_FILE_H

#include <stddef.h>
#include <sys/types.h>

/*
 * Create directory dir and every missing parent, as mkdir -p (mode 0755).
 * 0 if it exists afterwards, else -errno of the component that failed
 * (-ELOOP: a component below the guard directory is a symbolic link).
 */
int op_mkdir_p(char const *dir);

/* op_mkdir_p of the directory part of path (nothing if it has none). */
int op_mkdir_parents(char const *path);

/*
 * The guard directory: an absolute, resolved path (the session directory
 * of the daemon or opcontrol, which run as root). Below it no symbolic
 * link is ever followed by op_open_safe and op_mkdir_p, so a link planted
 * in the session cannot send a write elsewhere. NULL: no guard.
 */
void op_file_set_guard(char const *dir);

/*
 * open(2) that follows no symbolic link: in no component below the guard
 * directory (openat2 RESOLVE_NO_SYMLINKS from it), and in the last
 * component elsewhere (O_NOFOLLOW). A link fails with errno ELOOP.
 */
int op_open_safe(char const *path, int flags, mode_t mode);

/*
 * Out of descriptors (EMFILE, ENFILE), op_open_safe calls release(arg)
 * once, to close what its owner can spare (the daemon: sample files, which
 * reopen on their next sample), and tries again once: a session file the
 * daemon must write (a control reply, stats, session/, stacks/, the log)
 * is not lost to the files it keeps open. release must not open a file;
 * it is not called again from within itself. NULL: none.
 */
void op_file_set_fd_release(void (*release)(void *arg), void *arg);

/* strerror(err), but ELOOP says what it means here. */
char const *op_file_strerror(int err);

/*
 * "DEVICE (mounted on DIR)" for the file system holding path, from
 * /proc/self/mountinfo; "the device of 'PATH'" when it cannot be found.
 */
void op_device_name(char const *path, char *buf, size_t size);

#endif /* OP_FILE_H */
