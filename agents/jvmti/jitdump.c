/**
 * @file jitdump.c
 * Writing jit-PID.dump and perf-PID.map from inside a JIT's process.
 *
 * The files are created with O_EXCL|O_NOFOLLOW: a name planted in a shared
 * directory (a link, a FIFO, someone else's file) is refused, never
 * followed or truncated. A write that fails (a full disk) truncates the
 * file back to its last whole record and turns that output off, with one
 * warning: the JVM keeps running.
 */
#include "jitdump.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#if defined(__x86_64__)
#define JD_ELF_MACH EM_X86_64
#elif defined(__i386__)
#define JD_ELF_MACH EM_386
#elif defined(__aarch64__)
#define JD_ELF_MACH EM_AARCH64
#elif defined(__arm__)
#define JD_ELF_MACH EM_ARM
#elif defined(__powerpc64__)
#define JD_ELF_MACH EM_PPC64
#elif defined(__s390x__)
#define JD_ELF_MACH EM_S390
#elif defined(__riscv)
#define JD_ELF_MACH EM_RISCV
#else
#define JD_ELF_MACH EM_NONE
#endif

static void warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void warn(const char *fmt, ...)
{
	static const char prefix[] = "jvmti_oprofile: ";
	char buf[4608];
	size_t len = sizeof(prefix) - 1;
	va_list ap;
	int n;

	memcpy(buf, prefix, len);
	va_start(ap, fmt);
	n = vsnprintf(buf + len, sizeof(buf) - len - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	len += (size_t)n < sizeof(buf) - len - 1 ? (size_t)n : sizeof(buf) - len - 2;
	buf[len++] = '\n';
	/* one write: lines from two threads do not interleave */
	ssize_t r = write(STDERR_FILENO, buf, len);
	(void)r;
}

uint64_t jd_timestamp(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_MONOTONIC, &ts))
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void jd_clean_name(char *dst, size_t len, const char *src)
{
	size_t i = 0;

	if (!len)
		return;
	for (; src && src[i] && i + 1 < len; i++) {
		unsigned char c = (unsigned char)src[i];
		dst[i] = (c < 0x20 || c == 0x7f) ? '?' : (char)c;
	}
	dst[i] = '\0';
}

static int write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n == 0)
				errno = ENOSPC;
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Little helpers to lay a record out in a buffer (native byte order, as
 * the specification says: the magic tells a reader the order). */
struct buf {
	char *p;
	size_t len, cap;
	int oom;
};

static void put(struct buf *b, const void *data, size_t len)
{
	if (b->oom)
		return;
	if (b->len + len > b->cap) {
		size_t cap = b->cap ? b->cap : 256;
		while (cap < b->len + len)
			cap *= 2;
		char *p = realloc(b->p, cap);
		if (!p) {
			b->oom = 1;
			return;
		}
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->len, data, len);
	b->len += len;
}

static void put32(struct buf *b, uint32_t v) { put(b, &v, 4); }
static void put64(struct buf *b, uint64_t v) { put(b, &v, 8); }

static void disable(struct jd_writer *w)
{
	if (w->map)
		munmap(w->map, w->map_len);
	w->map = NULL;
	if (w->fd >= 0)
		close(w->fd);
	/* the agent reads fd outside its lock as a hint */
	__atomic_store_n(&w->fd, -1, __ATOMIC_RELAXED);
}

/* Append one whole record, or none: a failed write is cut back off. */
static void emit(struct jd_writer *w, struct buf *b)
{
	if (b->oom) {
		warn("out of memory for a record of '%s': the jitdump stops here", w->path);
		disable(w);
		return;
	}
	if (write_all(w->fd, b->p, b->len)) {
		int err = errno;
		if (ftruncate(w->fd, (off_t)w->offset) == 0)
			lseek(w->fd, (off_t)w->offset, SEEK_SET);
		warn("cannot write '%s': %s: the jitdump stops here", w->path, strerror(err));
		disable(w);
		return;
	}
	w->offset += b->len;
}

static void record_header(struct buf *b, uint32_t id)
{
	put32(b, id);
	put32(b, 0);	/* total_size, set by finish() */
	put64(b, jd_timestamp());
}

static void finish(struct buf *b)
{
	uint32_t size = (uint32_t)b->len;

	if (!b->oom)
		memcpy(b->p + 4, &size, 4);
}

int jd_open(struct jd_writer *w, const char *dir, pid_t pid)
{
	int n;

	memset(w, 0, sizeof(*w));
	w->fd = -1;
	n = snprintf(w->path, sizeof(w->path), "%s/jit-%ld.dump", dir, (long)pid);
	if (n < 0 || (size_t)n >= sizeof(w->path)) {
		warn("jitdump directory '%.64s...' is too long (%zu bytes): no jitdump",
		     dir, strlen(dir));
		return -1;
	}
	w->fd = open(w->path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (w->fd < 0) {
		warn("cannot create '%s': %s: no jitdump", w->path, strerror(errno));
		return -1;
	}

	struct buf b = { 0 };
	put32(&b, JITDUMP_MAGIC);
	put32(&b, JITDUMP_VERSION);
	put32(&b, JITDUMP_HEADER_SIZE);
	put32(&b, JD_ELF_MACH);
	put32(&b, 0);
	put32(&b, (uint32_t)pid);
	put64(&b, jd_timestamp());
	put64(&b, 0);	/* flags: timestamps are CLOCK_MONOTONIC, not the arch's */
	emit(w, &b);
	free(b.p);
	if (w->fd < 0)
		return -1;

	/* perf record sees this executable mapping of jit-PID.dump and perf
	 * inject --jit finds the dump through it; so will a profiler. */
	long page = sysconf(_SC_PAGESIZE);
	w->map_len = page > 0 ? (size_t)page : 4096;
	w->map = mmap(NULL, w->map_len, PROT_READ | PROT_EXEC, MAP_PRIVATE, w->fd, 0);
	if (w->map == MAP_FAILED) {
		w->map = NULL;
		warn("cannot map '%s' executable: %s: perf will not find the jitdump",
		     w->path, strerror(errno));
	}
	return 0;
}

void jd_debug_info(struct jd_writer *w, uint64_t code_addr,
		   const struct jd_line *lines, size_t nr)
{
	struct buf b = { 0 };
	static const char zeros[8];

	if (w->fd < 0 || !nr)
		return;
	record_header(&b, JIT_CODE_DEBUG_INFO);
	put64(&b, code_addr);
	put64(&b, nr);
	for (size_t i = 0; i < nr; i++) {
		char name[1024];
		jd_clean_name(name, sizeof(name), lines[i].file);
		put64(&b, lines[i].addr);
		put32(&b, lines[i].line);
		put32(&b, 0);	/* discriminator */
		put(&b, name, strlen(name) + 1);
	}
	/* whole records end on 8 bytes, as perf's own agent writes them */
	put(&b, zeros, (8 - b.len % 8) % 8);
	finish(&b);
	emit(w, &b);
	free(b.p);
}

void jd_code_load(struct jd_writer *w, uint32_t pid, uint32_t tid, const char *name,
		  uint64_t addr, uint64_t size)
{
	struct buf b = { 0 };
	char clean[2048];

	if (w->fd < 0)
		return;
	jd_clean_name(clean, sizeof(clean), name);
	record_header(&b, JIT_CODE_LOAD);
	put32(&b, pid);
	put32(&b, tid);
	put64(&b, addr);	/* vma */
	put64(&b, addr);	/* code_addr */
	put64(&b, size);
	put64(&b, w->code_index++);
	put(&b, clean, strlen(clean) + 1);
	/* the code ends the record: perf inject finds it at total_size -
	 * code_size, so nothing may follow it */
	put(&b, (const void *)(uintptr_t)addr, size);
	finish(&b);
	emit(w, &b);
	free(b.p);
}

void jd_close(struct jd_writer *w)
{
	struct buf b = { 0 };

	if (w->fd < 0)
		return;
	record_header(&b, JIT_CODE_CLOSE);
	finish(&b);
	emit(w, &b);
	free(b.p);
	disable(w);
}

int pm_open(struct pm_writer *w, const char *dir, pid_t pid)
{
	int n;
	struct stat st;

	w->fd = -1;
	w->offset = 0;
	n = snprintf(w->path, sizeof(w->path), "%s/perf-%ld.map", dir, (long)pid);
	if (n < 0 || (size_t)n >= sizeof(w->path)) {
		warn("perf map directory '%.64s...' is too long (%zu bytes): no perf map",
		     dir, strlen(dir));
		return -1;
	}
	w->fd = open(w->path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (w->fd < 0 && errno == EEXIST) {
		/* A map left by an earlier process of the same pid is taken over
		 * only when it is plainly ours: a regular file we own, one link. */
		w->fd = open(w->path, O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
		if (w->fd >= 0 && (fstat(w->fd, &st) || !S_ISREG(st.st_mode) ||
				   st.st_uid != geteuid() || st.st_nlink != 1 ||
				   ftruncate(w->fd, 0))) {
			close(w->fd);
			w->fd = -1;
			errno = EEXIST;
		}
	}
	if (w->fd < 0) {
		warn("cannot create '%s': %s: no perf map", w->path, strerror(errno));
		return -1;
	}
	return 0;
}

void pm_write(struct pm_writer *w, uint64_t addr, uint64_t size, const char *name)
{
	char clean[2048], line[2100];
	int n;

	if (w->fd < 0)
		return;
	jd_clean_name(clean, sizeof(clean), name);
	n = snprintf(line, sizeof(line), "%llx %llx %s\n", (unsigned long long)addr,
		     (unsigned long long)size, clean);
	if (n < 0 || (size_t)n >= sizeof(line))
		return;
	if (write_all(w->fd, line, (size_t)n)) {
		int err = errno;
		/* no half line for a reader to take for a whole one */
		if (ftruncate(w->fd, (off_t)w->offset)) {}
		warn("cannot write '%s': %s: the perf map stops here", w->path, strerror(err));
		close(w->fd);
		w->fd = -1;
		return;
	}
	w->offset += (uint64_t)n;
}

void pm_close(struct pm_writer *w)
{
	if (w->fd >= 0)
		close(w->fd);
	w->fd = -1;
}
