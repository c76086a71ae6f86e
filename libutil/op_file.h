/* Small file system helpers shared by the daemon and the tools. */
#ifndef OP_FILE_H
#define OP_FILE_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
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
/* Unless flags has O_DIRECTORY or O_PATH, op_open_safe opens a regular
 * file only (OP_ENOTREG, below), without ever blocking on a FIFO. */

/*
 * Out of descriptors (EMFILE, ENFILE), op_open_safe calls release(arg)
 * once, to close what its owner can spare (the daemon: sample files, which
 * reopen on their next sample), and tries again once: a session file the
 * daemon must write (a control reply, stats, session/, stacks/, the log)
 * is not lost to the files it keeps open. release must not open a file;
 * it is not called again from within itself. NULL: none.
 */
void op_file_set_fd_release(void (*release)(void *arg), void *arg);

/*
 * Reading a file whose path input can influence (a session's files, an
 * archive, a binary or its debug file, a settings file): only a regular
 * file is ever read. The open itself cannot block (O_NONBLOCK: a FIFO
 * with no writer, a tape or a terminal would stall it), and anything but
 * a regular file is refused with errno OP_ENOTREG, which
 * op_file_strerror names "not a regular file". Below the guard directory
 * no symbolic link is followed (as op_open_safe); elsewhere links are
 * followed, as readers of binaries must (/lib64/ld-linux-x86-64.so.2).
 * flags: extra open flags (O_CLOEXEC is always set); the descriptor is
 * returned in blocking mode. -1 with errno set on failure.
 */
#define OP_ENOTREG EMEDIUMTYPE
int op_open_regular(char const *path, int flags);

/* op_open_regular as a stdio stream for reading ("re"); NULL + errno. */
FILE *op_fopen_regular(char const *path);

/*
 * The same with a bound on the file's size, checked (fstat) before a
 * byte is read: a larger file fails with EFBIG, so a huge (or sparse)
 * file planted where a small one belongs is refused at once. 0: none.
 * Files of /proc have size 0: bound their reading (op_read_file) instead.
 */
int op_open_regular_max(char const *path, int flags, off_t max);
FILE *op_fopen_regular_max(char const *path, off_t max);

/*
 * Whether rel, a path from input to be placed inside some directory,
 * would leave it: it has a ".." component. A leading '/' does not make
 * it leave (op_open_beneath takes it as relative).
 */
bool op_path_escapes(char const *rel);

/*
 * Open rel inside the directory dir without ever leaving it: for a tool
 * that writes a tree of files named by input (opannotate -o, oparchive
 * -o). rel is taken as relative to dir (leading '/' dropped); a ".."
 * component fails with EXDEV; no component from dir down may be a
 * symbolic link (ELOOP), so a link planted in an existing output
 * directory sends nothing elsewhere; with O_CREAT the missing parent
 * directories are made (0755). Reads through it are regular files only
 * (OP_ENOTREG), as op_open_regular. The fd, or -1 with errno set.
 */
int op_open_beneath(char const *dir, char const *rel, int flags, mode_t mode);

/*
 * Create or truncate the file a tool's user named for its output (-o,
 * --output, --pprof=, --flame=, --record-stream=), often in a shared
 * directory such as /tmp where another user may have planted something:
 * a symbolic link at the name is followed only when the caller or root
 * owns it (/dev/stdout; ELOOP otherwise: root's report must not
 * overwrite the target of another user's link), a FIFO without a reader
 * is refused without blocking (OP_ENOTREG), and only a regular file is
 * truncated; a character device (/dev/null) or a pipe with a reader is
 * written as it is. The fd (O_CLOEXEC, in blocking mode), or -1 with
 * errno set.
 */
int op_open_output(char const *path, mode_t mode);

/* op_open_output as a stdio stream (mode "w", 0644); NULL + errno. */
FILE *op_fopen_output(char const *path);

/* mkdir -p of rel inside dir with the rules of op_open_beneath. 0 or -errno. */
int op_mkdir_beneath(char const *dir, char const *rel);

/*
 * The directory rel inside dir (dir itself for ""), reached with the
 * rules of op_open_beneath and made first with create: an O_PATH
 * descriptor, for the *at() calls that work on what is in it (the rename
 * of op_copy_file_beneath). -1 with errno set.
 */
int op_opendir_beneath(char const *dir, char const *rel, bool create);

/* strerror(err), but ELOOP, EXDEV, OP_ENOTREG and EFBIG (op_open_regular_max)
 * say what they mean here. */
char const *op_file_strerror(int err);

/*
 * "DEVICE (mounted on DIR)" for the file system holding path, from
 * /proc/self/mountinfo; "the device of 'PATH'" when it cannot be found.
 */
void op_device_name(char const *path, char *buf, size_t size);

#endif /* OP_FILE_H */
