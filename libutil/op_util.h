/*
 * Small utilities every component uses (git's wrapper.c, OProfile's
 * libutil): full reads and writes, whole-file reading and safe file
 * replacement; array growth and formatted allocation come with
 * op_alloc.h, included here.
 *
 * Conventions: functions that can fail return 0 (or a length) on success
 * and -1 on failure with errno set; those that take an err buffer also
 * write there a message that names the file ("cannot write '/x': No space
 * left on device"), ready for op_error("%s", err). op_x* die instead.
 */
#ifndef OP_UTIL_H
#define OP_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include <sys/types.h>

#include "op_alloc.h"		/* OP_ALLOC_GROW, op_xasprintf */
#include "op_message.h"

/* The number of elements of an array (not a pointer). */
#define OP_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* clock in nanoseconds */
static inline uint64_t op_clock_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The value of one hexadecimal digit (either case), -1 if c is none. */
static inline int op_hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* CLOCK_MONOTONIC in nanoseconds: the one clock of timeouts, flushes and
 * timed events. */
static inline uint64_t op_monotonic_ns(void)
{
	return op_clock_ns(CLOCK_MONOTONIC);
}

/*
 * read()/write() of exactly len bytes, retrying on EINTR and short
 * transfers. op_read_full returns the bytes read (less than len only at
 * end of file) or -1; op_write_full returns len or -1.
 */
ssize_t op_read_full(int fd, void *buf, size_t len);
ssize_t op_write_full(int fd, void const *buf, size_t len);

/*
 * The whole of path (a regular file only: op_open_regular) in a malloc'ed
 * buffer, NUL-terminated (the NUL is not counted in *len, which may be
 * NULL). max: the largest size accepted
 * (0: no limit); a larger file fails with EFBIG, before any read when its
 * size says so (op_open_regular_max). NULL on failure, with
 * errno set and err (may be NULL) naming path.
 */
char *op_read_file(char const *path, size_t max, size_t *len, char *err,
		   size_t errlen);

/*
 * Write buf to path through a temporary file in the same directory, then
 * fsync and rename it over path, so readers see the old or the new
 * contents, never a part. 0, or -1 with errno set and err naming the file
 * (every write, fsync, close and rename is checked).
 */
int op_write_file_atomic(char const *path, void const *buf, size_t len,
			 char *err, size_t errlen);
/* The same with the file's mode (op_write_file_atomic: 0644). The
 * temporary file is created with O_EXCL through op_open_safe (op_file.h):
 * no symbolic link is followed. */
int op_write_file_atomic_mode(char const *path, void const *buf, size_t len,
			      mode_t mode, char *err, size_t errlen);

/*
 * Overwrite the existing file path with buf in place: not atomic, but it
 * needs no new block when the file already had that many bytes, so it is
 * what still works on a full disk. 0, or -1 with errno and err set.
 */
int op_rewrite_in_place(char const *path, void const *buf, size_t len,
			char *err, size_t errlen);
/* Copy the file from to to (replaced atomically, as above), with the
 * mode of from but never more than 0644. 0 or -1. */
int op_copy_file(char const *from, char const *to, char *err, size_t errlen);

/*
 * Copy the file from to rel inside the directory dir, never outside it:
 * rel and its parents are reached as op_open_beneath reaches them (a
 * ".." component fails with EXDEV, a symbolic link in any component from
 * dir down with ELOOP; missing parents are made), and the copy is written
 * to a new temporary file there and renamed over rel, so a link (or
 * anything else) already at rel is replaced, never written through.
 * The copy keeps from's access and modification times and its mode, but
 * never more than 0644 (for an archive: oparchive -o). 0, or -1 with
 * errno set and err naming the file.
 */
int op_copy_file_beneath(char const *from, char const *dir, char const *rel,
			 char *err, size_t errlen);

/* The same for a file made of buf (len bytes, mode 0644): oparchive's
 * manifest. 0, or -1 with errno set and err naming the file. */
int op_write_file_beneath(char const *dir, char const *rel, void const *buf,
			  size_t len, char *err, size_t errlen);

/*
 * Binary search over n sorted elements of size bytes at base: the index
 * of the first element for which before(elem, key) is false (n if none).
 * before must be true for a prefix of the array and false after it.
 */
size_t op_partition_point(void const *base, size_t n, size_t size,
			  int (*before)(void const *elem, void const *key),
			  void const *key);

#endif /* OP_UTIL_H */
