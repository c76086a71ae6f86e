/*
 * stackscheck: a stack table checked from doc/formats.md section 6 alone
 * (no libop: the checksum and the layout as the document spells them), so
 * the document and the daemon's writer cannot drift apart unnoticed.
 *
 *   stackscheck TABLE         every record whole, its checksum and size
 *                             right; prints the records by type
 *   stackscheck --sum HEX...  the checksum of the bytes given in hex
 *
 * Exit 0, or 1 with a message naming the file and the record's offset.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The document's algorithm, word for word. */
static uint32_t doc_checksum(unsigned char const *p, size_t len)
{
	uint32_t h = 0x811c9dc5u;

	for (size_t i = 0; i < len; i++)
		h = (h ^ p[i]) * 0x01000193u;
	return h ^ (h >> 15);
}

static uint32_t u32(unsigned char const *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

static int bad(char const *path, size_t off, char const *what)
{
	fprintf(stderr, "stackscheck: %s: record at byte %zu: %s\n", path, off,
		what);
	return 1;
}

static int check_table(char const *path)
{
	FILE *f = fopen(path, "rb");
	unsigned char *buf;
	size_t len = 0, cap = 1 << 16, n, off = 16;
	unsigned long counts[4] = { 0 };

	if (!f) {
		perror(path);
		return 1;
	}
	buf = malloc(cap);
	while (buf && (n = fread(buf + len, 1, cap - len, f)) > 0) {
		unsigned char *more;

		if ((len += n) < cap)
			continue;
		more = realloc(buf, cap * 2);
		if (!more)
			free(buf);
		buf = more;
		cap *= 2;
	}
	fclose(f);
	if (!buf)
		return bad(path, 0, "out of memory");
	if (len < 16 || memcmp(buf, "OPSTACKS", 8) || u32(buf + 8) != 2 ||
	    u32(buf + 12) != 0) {
		free(buf);
		return bad(path, 0, "not a version 2 stack table header");
	}
	while (off < len) {
		uint32_t plen, type;
		unsigned char const *p;
		int ret = 0;

		if (len - off < 8 || len - off - 8 < u32(buf + off))
			ret = bad(path, off, "cut short");
		else if (u32(buf + off) < 4)
			ret = bad(path, off, "payload shorter than its type");
		if (ret) {
			free(buf);
			return ret;
		}
		plen = u32(buf + off);
		p = buf + off + 8;
		if (u32(buf + off + 4) != doc_checksum(p, plen)) {
			fprintf(stderr, "stackscheck: %s: record at byte %zu: "
				"checksum %#010x, the document's algorithm gives "
				"%#010x\n", path, off, u32(buf + off + 4),
				doc_checksum(p, plen));
			free(buf);
			return 1;
		}
		type = u32(p);
		if ((type == 1 && (plen < 16 ||
				   plen != 16ull + u32(p + 8) + u32(p + 12))) ||
		    (type == 2 && plen != 32) || (type == 3 && plen != 20) ||
		    type < 1 || type > 3) {
			free(buf);
			return bad(path, off, "bad type or size");
		}
		counts[type]++;
		off += 8 + (size_t)plen;
	}
	free(buf);
	printf("%lu images, %lu frames, %lu stacks: every checksum right\n",
	       counts[1], counts[3], counts[2]);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "--sum")) {
		unsigned char bytes[256];
		int n = 0;

		for (int i = 2; i < argc && n < (int)sizeof(bytes); i++) {
			char *end;
			unsigned long b = strtoul(argv[i], &end, 16);

			if (end == argv[i] || *end || b > 0xff) {
				fprintf(stderr, "stackscheck: '%s' is not a hex byte\n",
					argv[i]);
				return 2;
			}
			bytes[n++] = (unsigned char)b;
		}
		printf("%#010x\n", doc_checksum(bytes, (size_t)n));
		return 0;
	}
	if (argc != 2) {
		fprintf(stderr, "usage: stackscheck TABLE | --sum HEX...\n");
		return 2;
	}
	return check_table(argv[1]);
}
