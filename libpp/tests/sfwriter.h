/*
 * Test-only writer of OProfile 1.x sample files, byte by byte with raw
 * write(): independent of libdb and of the libop header code, so that a
 * test of the reader is not a test of the reader against itself. The
 * layout is doc/formats.md section 2, spelled out here by offsets.
 *
 * Header-only (static functions): included by libpp unit tests and by
 * pp/tests/mksample.c.
 */
#ifndef SFWRITER_H
#define SFWRITER_H

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct sf_header {
	uint32_t cpu_type;       /* 4 = timer */
	uint32_t event;          /* event code */
	uint32_t unit_mask;
	uint32_t count;
	uint32_t is_kernel;
	double cpu_speed;        /* MHz */
	uint64_t mtime;          /* of the binary */
	uint64_t anon_start;
	uint32_t cg_to_is_kernel;   /* {cg} files: the callee image is kernel */
	uint64_t cg_to_anon_start;  /* {cg} files: the callee's anon start */
};

struct sf_sample {
	uint64_t key;
	uint32_t count;
};

static void sf_put32(unsigned char *p, uint32_t v)
{
	memcpy(p, &v, 4);    /* native endianness, as the format says */
}

static void sf_put64(unsigned char *p, uint64_t v)
{
	memcpy(p, &v, 8);
}

/* mkdir -p of the directory part of path. */
static int sf_mkdirs(char const *path)
{
	char *p = strdup(path);
	int rc = 0;

	if (!p)
		return -1;
	for (char *s = strchr(p + 1, '/'); s && !rc; s = strchr(s + 1, '/')) {
		*s = '\0';
		if (mkdir(p, 0755) && errno != EEXIST)
			rc = -1;
		*s = '/';
	}
	free(p);
	return rc;
}

static uint32_t sf_bucket(uint64_t key, uint32_t mask)
{
	uint32_t t = (uint32_t)((key >> 32) ^ key);

	return (t ^ (t >> 8)) & mask;
}

/*
 * Write path: a 72-byte header, the 32-byte descriptor, the nodes (keys
 * in the order given, linked at the head of their bucket) and the hash
 * table. Keys must be distinct. 0 or -1 (errno set).
 */
static int sf_write(char const *path, struct sf_header const *h,
		    struct sf_sample const *s, size_t n)
{
	uint32_t size = 128, i;
	size_t len;
	unsigned char *buf, *nodes, *hash;
	int fd, rc;

	while (size < n + 1)
		size *= 2;
	len = 72 + 32 + (size_t)size * 20;
	buf = calloc(1, len);
	if (!buf)
		return -1;
	memcpy(buf, "DAE\n", 4);
	sf_put32(buf + 4, 0x13);
	sf_put32(buf + 8, h->cpu_type);
	sf_put32(buf + 12, h->event);
	sf_put32(buf + 16, h->unit_mask);
	sf_put32(buf + 20, h->count);
	sf_put32(buf + 24, h->is_kernel);
	memcpy(buf + 32, &h->cpu_speed, 8);
	sf_put64(buf + 40, h->mtime);
	sf_put32(buf + 48, h->cg_to_is_kernel);
	sf_put64(buf + 56, h->anon_start);
	sf_put64(buf + 64, h->cg_to_anon_start);
	sf_put32(buf + 72, size);
	sf_put32(buf + 76, (uint32_t)n + 1);
	nodes = buf + 104;
	hash = nodes + (size_t)size * 16;
	for (i = 1; i <= n; i++) {
		uint32_t b = sf_bucket(s[i - 1].key, size - 1), head;

		memcpy(&head, hash + 4 * b, 4);
		sf_put64(nodes + 16 * i, s[i - 1].key);
		sf_put32(nodes + 16 * i + 8, s[i - 1].count);
		sf_put32(nodes + 16 * i + 12, head);
		sf_put32(hash + 4 * b, i);
	}
	rc = -1;
	if (!sf_mkdirs(path)) {
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd >= 0) {
			rc = write(fd, buf, len) == (ssize_t)len ? 0 : -1;
			if (close(fd))
				rc = -1;
		}
	}
	free(buf);
	return rc;
}

#endif /* SFWRITER_H */
