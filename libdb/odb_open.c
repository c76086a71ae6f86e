/*
 * Opening, validating, remapping and closing sample files.
 *
 * Every byte of the file is untrusted: before anything is dereferenced the
 * descriptor is checked against the file length, so that no later access
 * can fall outside the mapping. A writer may grow the file while a reader
 * opens it, so a reader that sees sizes disagree looks again before calling
 * the file corrupt.
 *
 * Crash safety of growth (see odb_insert.c for the writer's order): a
 * writer killed part-way through doubling leaves one of
 *   (a) a file already ftruncate()d to 2 * size nodes, descr->size still
 *       the old size and current_size == size (only a full array grows):
 *       the old node array and the old hash table are intact at their old
 *       offsets, the extension is zeros;
 *   (b) descr->padding[0] == ODB_PAD_GROWING: the hash table is being
 *       rebuilt, so chains are unusable but nodes are sound.
 * A read-only open accepts both, using the size recorded in descr for (a);
 * a read-write open completes the growth. Anything else is refused.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE		/* mremap, fallocate */
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "odb_int.h"
#include "op_file.h"

/* How often a reader looks again when the file changes while it opens. */
#define ODB_OPEN_RETRIES 64

int odb_fail(struct odb *db, int err, char const *fmt, ...)
{
	size_t len = sizeof(db->err);
	va_list ap;
	int n;

	n = snprintf(db->err, len, "%s: ", db->path ? db->path : "(no path)");
	if (n < 0)
		n = 0;
	if ((size_t)n >= len)
		return err;
	va_start(ap, fmt);
	vsnprintf(db->err + n, len - n, fmt, ap);
	va_end(ap);
	return err;
}

static int odb_map(struct odb *db, off_t len)
{
	int prot = PROT_READ;
	void *p;

	if (db->mode == ODB_RDWR)
		prot |= PROT_WRITE;
	p = mmap(NULL, (size_t)len, prot, MAP_SHARED, db->fd, 0);
	if (p == MAP_FAILED)
		return odb_fail(db, -errno, "cannot map %lld bytes: %s",
				(long long)len, strerror(errno));
	db->base = p;
	db->map_size = (size_t)len;
	return 0;
}

static void odb_unmap(struct odb *db)
{
	if (db->base)
		munmap(db->base, db->map_size);
	db->base = NULL;
	db->map_size = 0;
	db->descr = NULL;
	db->nodes = NULL;
	db->hash = NULL;
}

/*
 * Check the descriptor against the file length st_size (the length that is
 * mapped). On success *view is the node count to use and *interrupted says
 * the file already has room for twice that many (state (a) above).
 */
static int odb_check_layout(struct odb *db, off_t st_size, uint32_t *view,
			    int *interrupted)
{
	struct odb_descr const *d = db->descr;
	uint32_t size = __atomic_load_n(&d->size, __ATOMIC_ACQUIRE);
	uint32_t cur = __atomic_load_n(&d->current_size, __ATOMIC_ACQUIRE);
	uint64_t want = odb_layout_size(db->header_size, size);
	uint64_t len = (uint64_t)st_size;

	*interrupted = 0;
	if (!odb_is_pow2(size))
		return odb_fail(db, -EINVAL, "node count %u is not a power of two",
				size);
	if (len < want)
		return odb_fail(db, -EINVAL,
				"file truncated: %u nodes need %llu bytes, file has %llu",
				size, (unsigned long long)want,
				(unsigned long long)len);
	if (len != want) {
		/*
		 * Only a full node array is ever doubled, so a doubled file
		 * whose descriptor is not full is damage, not a crash. (u32
		 * indexes: a file of 2^31 nodes cannot have started to grow.)
		 */
		if (size > UINT32_MAX / 2 || cur != size ||
		    len != odb_layout_size(db->header_size, 2 * (uint64_t)size))
			return odb_fail(db, -EINVAL,
					"file size %llu does not match %u nodes (expected %llu bytes)",
					(unsigned long long)len, size,
					(unsigned long long)want);
		*interrupted = 1;
	}
	if (cur == 0)
		return odb_fail(db, -EINVAL,
				"current_size 0 is invalid (node 0 is reserved, so it is at least 1)");
	if (cur > size)
		return odb_fail(db, -EINVAL, "current_size %u exceeds size %u",
				cur, size);
	*view = size;
	return 0;
}

/*
 * Map the file and validate its layout. A writer growing the file between
 * our fstat() and our reading descr makes them disagree for a moment; the
 * file length then changes, and that is how a race is told from damage.
 */
static int odb_map_valid(struct odb *db, int *interrupted)
{
	uint64_t min = odb_layout_size(db->header_size, 0);
	struct stat st, again;
	uint32_t view = 0;
	int rc, tries;

	for (tries = 0;; tries++) {
		if (fstat(db->fd, &st))
			return odb_fail(db, -errno, "cannot stat: %s",
					strerror(errno));
		if (!S_ISREG(st.st_mode))
			return odb_fail(db, -EINVAL, "not a regular file");
		if ((uint64_t)st.st_size < min)
			return odb_fail(db, -EINVAL,
					"file too small for a sample file (%lld bytes)",
					(long long)st.st_size);
		if ((uint64_t)st.st_size > SIZE_MAX)
			return odb_fail(db, -EFBIG, "file too large to map (%lld bytes)",
					(long long)st.st_size);
		rc = odb_map(db, st.st_size);
		if (rc)
			return rc;
		odb_set_view(db, 0);
		rc = odb_check_layout(db, st.st_size, &view, interrupted);
		if (!rc) {
			odb_set_view(db, view);
			return 0;
		}
		odb_unmap(db);
		if (fstat(db->fd, &again) || again.st_size == st.st_size ||
		    tries >= ODB_OPEN_RETRIES)
			return rc;
	}
}

/* Reserve the blocks so that stores into the mapping cannot SIGBUS later. */
static int odb_reserve(struct odb *db, uint64_t from, uint64_t to)
{
	if (!fallocate(db->fd, 0, (off_t)from, (off_t)(to - from)))
		return 0;
	if (errno == ENOSPC || errno == EDQUOT)
		return odb_fail(db, -errno, "cannot reserve %llu bytes: %s",
				(unsigned long long)(to - from), strerror(errno));
	return 0;	/* no fallocate on this filesystem: best effort */
}

/* Size an empty (or never initialised) file to ODB_DEFAULT_NODES nodes. */
static int odb_init_new(struct odb *db)
{
	uint64_t len = odb_layout_size(db->header_size, ODB_DEFAULT_NODES);
	int rc;

	if (ftruncate(db->fd, (off_t)len))
		return odb_fail(db, -errno, "cannot size a new sample file: %s",
				strerror(errno));
	rc = odb_reserve(db, 0, len);
	if (rc)
		return rc;
	rc = odb_map(db, (off_t)len);
	if (rc)
		return rc;
	odb_set_view(db, ODB_DEFAULT_NODES);
	__atomic_store_n(&db->descr->size, ODB_DEFAULT_NODES, __ATOMIC_RELAXED);
	__atomic_store_n(&db->descr->current_size, 1, __ATOMIC_RELEASE);
	return 0;
}

/*
 * A writer killed between creating a file and writing its descriptor
 * leaves a zero-filled file of exactly the new-file length. Readers refuse
 * it (node count 0); the next writer simply initialises it.
 */
static int odb_is_unborn(struct odb *db, off_t st_size)
{
	struct odb_descr d;

	if ((uint64_t)st_size != odb_layout_size(db->header_size, ODB_DEFAULT_NODES))
		return 0;
	if (pread(db->fd, &d, sizeof(d), (off_t)db->header_size) != sizeof(d))
		return 0;
	return d.size == 0 && d.current_size == 0;
}

/*
 * A writer killed after linking a new node at the head of its bucket but
 * before publishing it leaves hash[b] == current_size (odb_check accepts
 * that). Unlink it so that node slot can be reused; refuse other bad heads.
 */
static int odb_unlink_pending(struct odb *db)
{
	uint32_t size = db->descr->size, cur = db->descr->current_size, b;
	struct odb_node const *pending = &db->nodes[cur];

	for (b = 0; b < size; b++) {
		uint32_t idx = db->hash[b];

		if (idx < cur)
			continue;
		if (idx == cur && cur < size && pending->next < cur &&
		    odb_hash(pending->key, size - 1) == b) {
			db->hash[b] = pending->next;
			continue;
		}
		return odb_fail(db, -EINVAL,
				"bucket %u chain reaches node %u beyond current_size %u",
				b, idx, cur);
	}
	return 0;
}

static int odb_open_writer(struct odb *db)
{
	struct stat st;
	int interrupted, rc;

	if (fstat(db->fd, &st))
		return odb_fail(db, -errno, "cannot stat: %s", strerror(errno));
	if (!S_ISREG(st.st_mode))
		return odb_fail(db, -EINVAL, "not a regular file");
	if (st.st_size == 0 || odb_is_unborn(db, st.st_size))
		return odb_init_new(db);
	rc = odb_map_valid(db, &interrupted);
	if (rc)
		return rc;
	if (interrupted)
		odb_finish_growth(db, 2 * db->descr->size);
	else if (odb_growing(db))
		odb_finish_growth(db, db->descr->size);
	return odb_unlink_pending(db);
}

int odb_open(struct odb *db, char const *path, enum odb_mode mode,
	     size_t header_size)
{
	int interrupted, rc;

	memset(db, 0, sizeof(*db));
	db->fd = -1;
	db->mode = mode;
	db->header_size = header_size;
	db->path = strdup(path ? path : "(no path)");
	if (!db->path) {
		snprintf(db->err, sizeof(db->err), "%s: out of memory",
			 path ? path : "(no path)");
		return -ENOMEM;
	}
	if (mode != ODB_RDONLY && mode != ODB_RDWR)
		rc = odb_fail(db, -EINVAL, "invalid open mode %d", (int)mode);
	else if (header_size % 8)
		rc = odb_fail(db, -EINVAL,
			      "header size %zu is not a multiple of 8", header_size);
	else
		rc = 0;
	if (rc)
		goto out_free_path;

	/* a writer follows no symbolic link (op_file.h): a link planted in
	 * the session must not redirect a write */
	if (mode == ODB_RDWR)
		db->fd = op_open_safe(db->path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	else	/* a FIFO or a device planted there is refused, never mapped */
		db->fd = op_open_regular(db->path, O_RDONLY);
	if (db->fd < 0 && errno == OP_ENOTREG) {
		rc = odb_fail(db, -EINVAL, "not a regular file");
		goto out_free_path;
	}
	if (db->fd < 0) {
		rc = odb_fail(db, -errno, "cannot open: %s",
			      op_file_strerror(errno));
		goto out_free_path;
	}
	if (mode == ODB_RDWR)
		rc = odb_open_writer(db);
	else
		rc = odb_map_valid(db, &interrupted);
	if (!rc)
		return 0;

	odb_unmap(db);
	close(db->fd);
	db->fd = -1;
out_free_path:
	free(db->path);
	db->path = NULL;
	return rc;
}

/* Build a complete new file on fd: header, empty descriptor, 128 nodes. */
static int write_new_file(int fd, void const *header, size_t header_size)
{
	uint64_t len = odb_layout_size(header_size, ODB_DEFAULT_NODES);
	struct odb_descr d = { .size = ODB_DEFAULT_NODES, .current_size = 1 };

	if (ftruncate(fd, (off_t)len))
		return -errno;
	/* a store into a hole of a full disk would be SIGBUS later */
	if (fallocate(fd, 0, 0, (off_t)len) && errno != EOPNOTSUPP &&
	    errno != ENOSYS)
		return -errno;
	if (pwrite(fd, header, header_size, 0) != (ssize_t)header_size ||
	    pwrite(fd, &d, sizeof(d), (off_t)header_size) != (ssize_t)sizeof(d))
		return -errno;
	return 0;
}

/* Create path atomically through an unnamed file; -EOPNOTSUPP if we can't. */
static int create_linked(char const *path, void const *header,
			 size_t header_size)
{
	char *dir = strdup(path), *slash;
	char const *base = path;
	char fdpath[64];
	int dfd, fd, rc;

	if (!dir)
		return -ENOMEM;
	slash = strrchr(dir, '/');
	if (slash) {
		base = path + (slash - dir) + 1;
		slash[slash == dir] = '\0';
	}
	dfd = op_open_safe(slash ? dir : ".", O_PATH | O_DIRECTORY | O_CLOEXEC, 0);
	free(dir);
	if (dfd < 0)
		return -errno;
	fd = openat(dfd, ".", O_TMPFILE | O_RDWR | O_CLOEXEC, 0644);
	if (fd < 0) {
		rc = errno;
		close(dfd);
		return rc == EISDIR || rc == EINVAL || rc == EOPNOTSUPP ?
			-EOPNOTSUPP : -rc;
	}
	rc = write_new_file(fd, header, header_size);
	if (!rc && fchmod(fd, 0644))
		rc = -errno;
	snprintf(fdpath, sizeof(fdpath), "/proc/self/fd/%d", fd);
	/* linkat never follows a link at base: it fails with EEXIST */
	if (!rc && linkat(AT_FDCWD, fdpath, dfd, base, AT_SYMLINK_FOLLOW) &&
	    errno != EEXIST)  /* EEXIST: someone else made it first; use theirs */
		rc = -errno;
	close(fd);
	close(dfd);
	return rc;
}

static int all_zero(unsigned char const *p, size_t n)
{
	while (n--)
		if (*p++)
			return 0;
	return 1;
}

int odb_create(struct odb *db, char const *path, void const *header,
	       size_t header_size)
{
	int rc = -EEXIST;

	if (faccessat(AT_FDCWD, path, F_OK, AT_SYMLINK_NOFOLLOW) &&
	    errno == ENOENT)
		rc = create_linked(path, header, header_size);
	if (rc && rc != -EEXIST && rc != -EOPNOTSUPP) {
		memset(db, 0, sizeof(*db));
		db->fd = -1;
		snprintf(db->err, sizeof(db->err), "%s: cannot create: %s",
			 path, op_file_strerror(-rc));
		return rc;
	}
	rc = odb_open(db, path, ODB_RDWR, header_size);
	/* A file made by the fallback, or left unborn by a crash, has an
	 * all-zero header: give it ours. */
	if (!rc && odb_count(db) == 0 && all_zero(db->base, header_size))
		memcpy(db->base, header, header_size);
	return rc;
}

int odb_settle(char const *path, size_t header_size, char *err,
	       size_t errlen)
{
	struct odb_descr d;
	struct stat st;
	uint64_t len;
	struct odb db;
	int fd, rc, growing;

	fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return 0;	/* not a file we could repair */
	rc = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
		pread(fd, &d, sizeof(d), (off_t)header_size) == (ssize_t)sizeof(d);
	close(fd);
	if (!rc || !odb_is_pow2(d.size) || d.size > UINT32_MAX / 2)
		return 0;
	len = (uint64_t)st.st_size;
	growing = d.padding[0] == ODB_PAD_GROWING &&
		len == odb_layout_size(header_size, d.size);
	if (!growing && (d.current_size != d.size ||
			 len != odb_layout_size(header_size, 2 * (uint64_t)d.size)))
		return 0;
	rc = odb_open(&db, path, ODB_RDWR, header_size);
	if (rc) {
		snprintf(err, errlen, "%s", db.err);
		return rc;
	}
	odb_close(&db);
	return 1;
}

void *odb_get_header(struct odb *db)
{
	return db->base;
}

/*
 * The writer stores descr->size only after the file has been extended, so
 * when both agree (or the file is already doubled again) the new size is
 * safe to map; any other combination is a growth we caught half-way.
 * A writer refreshes when another handle on the same file (in this
 * process, one after the other) grew it: odb_add does that itself.
 */
int odb_refresh(struct odb *db)
{
	uint32_t size, view;
	uint64_t len;
	struct stat st;
	void *p;

	if (!db->base)
		return odb_fail(db, -EBADF, "sample file is not open");
	size = odb_load_size(db);
	view = odb_view_nodes(db);
	if (size == view)
		return 0;
	if (!odb_is_pow2(size) || size < view)
		return odb_fail(db, -EINVAL,
				"node count changed from %u to %u, which is not a growth",
				view, size);
	if (fstat(db->fd, &st))
		return odb_fail(db, -errno, "cannot stat: %s", strerror(errno));
	len = (uint64_t)st.st_size;
	/* a writer takes only a finished growth: it is about to write */
	if (db->mode == ODB_RDWR && (odb_growing(db) ||
				     len != odb_layout_size(db->header_size, size)))
		return odb_fail(db, -EINVAL,
				"file grown to %u nodes by another writer, growth not finished",
				size);
	if (len != odb_layout_size(db->header_size, size) &&
	    len != odb_layout_size(db->header_size, 2 * (uint64_t)size))
		return odb_fail(db, -EAGAIN,
				"file size %llu does not match %u nodes yet (growth in progress)",
				(unsigned long long)len, size);
	p = mremap(db->base, db->map_size, (size_t)len, MREMAP_MAYMOVE);
	if (p == MAP_FAILED)
		return odb_fail(db, -errno, "cannot remap to %llu bytes: %s",
				(unsigned long long)len, strerror(errno));
	db->base = p;
	db->map_size = (size_t)len;
	odb_set_view(db, size);
	return 0;
}

int odb_sync(struct odb *db)
{
	if (!db->base)
		return odb_fail(db, -EBADF, "sample file is not open");
	if (msync(db->base, db->map_size, MS_ASYNC))
		return odb_fail(db, -errno, "cannot sync: %s", strerror(errno));
	return 0;
}

void odb_close(struct odb *db)
{
	odb_unmap(db);
	if (db->path && db->fd >= 0)
		close(db->fd);
	db->fd = -1;
	free(db->path);
	db->path = NULL;
}
