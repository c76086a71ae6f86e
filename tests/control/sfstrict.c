/*
 * sfstrict: the strict, independent structural check of sample files,
 * written from the byte offsets of doc/formats.md section 2 (not from
 * libdb), and as strict as OProfile 1.x's odb_open: the file length must
 * be exactly 72 + 32 + 20 * N for the N in its descriptor.
 *
 *   sfstrict DIR...   check every sample file below each session DIR
 *                     (its {...} trees); print "N sample files ok", or
 *                     one line per bad file naming the fault; exit 1 if
 *                     any is bad
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define HEADER 72
#define DESCR 32
#define NODE 16

static size_t nr_files, nr_bad, prefix;

static uint32_t u32(unsigned char const *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

static uint64_t u64(unsigned char const *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

static int bad(char const *path, char const *fmt, unsigned long long a,
	       unsigned long long b)
{
	printf("%s: ", path);
	printf(fmt, a, b);
	printf("\n");
	nr_bad++;
	return 0;
}

/* The chains of the hash table: every node 1 .. cur-1 exactly once, in
 * the bucket of its key, no duplicate keys (a sorted copy finds them). */
static int cmp_u64(void const *a, void const *b)
{
	uint64_t x = *(uint64_t const *)a, y = *(uint64_t const *)b;

	return x < y ? -1 : x > y;
}

static void check_chains(char const *path, unsigned char const *f,
			 uint32_t n, uint32_t cur)
{
	unsigned char const *nodes = f + HEADER + DESCR;
	unsigned char const *hash = nodes + (size_t)n * NODE;
	unsigned char *seen = calloc(cur ? cur : 1, 1);
	uint64_t *keys = malloc(sizeof(*keys) * (cur ? cur : 1));
	uint32_t b, visited = 0;

	for (b = 0; b < n; b++) {
		uint32_t idx = u32(hash + 4 * (size_t)b), steps = 0;

		while (idx) {
			unsigned char const *node = nodes + (size_t)idx * NODE;
			uint64_t key;
			uint32_t t;

			if (idx >= cur) {
				bad(path, "bucket %llu reaches node %llu beyond current_size", b, idx);
				goto out;
			}
			if (seen[idx] || ++steps > cur) {
				bad(path, "node %llu is reached twice (bucket %llu)", idx, b);
				goto out;
			}
			seen[idx] = 1;
			key = u64(node);
			t = (uint32_t)((key >> 32) ^ key);
			if (((t ^ (t >> 8)) & (n - 1)) != b) {
				bad(path, "node %llu hangs in bucket %llu, not its key's", idx, b);
				goto out;
			}
			keys[visited++] = key;
			idx = u32(node + 12);
		}
	}
	if (visited != cur - 1) {
		bad(path, "%llu of %llu nodes are in no chain", cur - 1 - visited, cur - 1);
		goto out;
	}
	qsort(keys, visited, sizeof(*keys), cmp_u64);
	for (uint32_t i = 1; i < visited; i++)
		if (keys[i] == keys[i - 1]) {
			bad(path, "key %llu appears twice (%llu)", keys[i], 2);
			goto out;
		}
out:
	free(seen);
	free(keys);
}

static void check_file(char const *path, off_t len)
{
	unsigned char *f = malloc(len ? (size_t)len : 1);
	uint32_t n, cur;
	int fd = open(path, O_RDONLY | O_NOFOLLOW);

	nr_files++;
	if (fd < 0 || read(fd, f, (size_t)len) != (ssize_t)len) {
		bad(path, "cannot read %llu bytes (%llu)", (unsigned long long)len, 0);
		goto out;
	}
	if (len < HEADER + DESCR) {
		bad(path, "%llu bytes: shorter than header and descriptor (%llu)",
		    (unsigned long long)len, HEADER + DESCR);
		goto out;
	}
	if (memcmp(f, "DAE\n", 4) || u32(f + 4) != 0x13) {
		bad(path, "bad magic or version 0x%llx (%llu)", u32(f + 4), 0);
		goto out;
	}
	n = u32(f + HEADER);
	cur = u32(f + HEADER + 4);
	if (!n || (n & (n - 1))) {
		bad(path, "node count %llu is not a power of two (%llu)", n, 0);
		goto out;
	}
	if ((uint64_t)len != HEADER + DESCR + 20ull * n) {
		bad(path, "file %llu bytes, expected %llu", (unsigned long long)len,
		    HEADER + DESCR + 20ull * n);
		goto out;
	}
	if (u32(f + HEADER + 8)) {
		bad(path, "growth marker 0x%llx left set (%llu)", u32(f + HEADER + 8), 0);
		goto out;
	}
	if (cur < 1 || cur > n) {
		bad(path, "current_size %llu outside 1 .. %llu", cur, n);
		goto out;
	}
	check_chains(path, f, n, cur);
out:
	if (fd >= 0)
		close(fd);
	free(f);
}

static int visit(char const *path, struct stat const *st, int type,
		 struct FTW *ftw)
{
	char const *top = path + prefix;

	if (ftw->level == 1 && type == FTW_D && top[0] != '{')
		return FTW_SKIP_SUBTREE;
	if (type == FTW_SL) {
		bad(path, "a symbolic link in the sample tree (%llu %llu)", 0, 0);
		return FTW_CONTINUE;
	}
	if (type == FTW_F && ftw->level > 1)
		check_file(path, st->st_size);
	return FTW_CONTINUE;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: sfstrict SESSION_SAMPLES_DIR...\n");
		return 2;
	}
	for (int i = 1; i < argc; i++) {
		prefix = strlen(argv[i]) + 1;
		if (nftw(argv[i], visit, 16, FTW_PHYS | FTW_ACTIONRETVAL) < 0) {
			fprintf(stderr, "sfstrict: cannot walk '%s': %s\n", argv[i],
				strerror(errno));
			return 2;
		}
	}
	if (nr_bad)
		return 1;
	printf("%zu sample files ok\n", nr_files);
	return 0;
}
