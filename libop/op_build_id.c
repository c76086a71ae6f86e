/* ELF build-id notes without libbfd; see op_build_id.h. */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "op_build_id.h"
#include "op_file.h"
#include "op_message.h"
#include "op_util.h"

#define MAX_NOTES (64 * 1024)

static int hex_of_notes(unsigned char const *p, size_t size,
			char hex[OP_BUILD_ID_HEX_MAX])
{
	size_t off = 0;

	/* off passes size when the last note's padding is cut off */
	while (off <= size && size - off >= 12) {
		uint32_t namesz, descsz, type;
		size_t name, desc;

		memcpy(&namesz, p + off, 4);
		memcpy(&descsz, p + off + 4, 4);
		memcpy(&type, p + off + 8, 4);
		name = off + 12;
		desc = name + ((namesz + 3) & ~(size_t)3);
		if (desc > size || descsz > size - desc)
			return -1;
		if (type == NT_GNU_BUILD_ID && namesz == 4 &&
		    !memcmp(p + name, "GNU", 4) && descsz &&
		    2 * descsz < OP_BUILD_ID_HEX_MAX) {
			for (uint32_t i = 0; i < descsz; i++)
				sprintf(hex + 2 * i, "%02x", p[desc + i]);
			return 0;
		}
		off = desc + ((descsz + 3) & ~(size_t)3);
	}
	return -1;
}

/* One PT_NOTE segment at off, size bytes. */
static int note_segment(int fd, uint64_t off, uint64_t size,
			char hex[OP_BUILD_ID_HEX_MAX])
{
	unsigned char *buf;
	int rc = -1;

	if (!size || size > MAX_NOTES)
		return -1;
	buf = op_xmalloc(size);
	if (pread(fd, buf, size, (off_t)off) == (ssize_t)size)
		rc = hex_of_notes(buf, size, hex);
	free(buf);
	return rc;
}

/* The program headers of an open ELF file, either class. */
struct phdrs {
	int fd;
	bool is64;
	uint64_t off;      /* e_phoff */
	unsigned nr;       /* e_phnum */
};

static int phdrs_open(int fd, struct phdrs *p)
{
	unsigned char ident[EI_NIDENT];
	unsigned char host = *(uint16_t const *)"\1\0" == 1 ? ELFDATA2LSB :
							       ELFDATA2MSB;
	Elf64_Ehdr e64;
	Elf32_Ehdr e32;

	p->fd = fd;
	if (pread(fd, ident, sizeof(ident), 0) != sizeof(ident) ||
	    memcmp(ident, ELFMAG, SELFMAG) || ident[EI_DATA] != host)
		return -1;
	p->is64 = ident[EI_CLASS] == ELFCLASS64;
	if (p->is64) {
		if (pread(fd, &e64, sizeof(e64), 0) != sizeof(e64) ||
		    e64.e_phentsize != sizeof(Elf64_Phdr))
			return -1;
		p->off = e64.e_phoff;
		p->nr = e64.e_phnum;
	} else if (ident[EI_CLASS] == ELFCLASS32) {
		if (pread(fd, &e32, sizeof(e32), 0) != sizeof(e32) ||
		    e32.e_phentsize != sizeof(Elf32_Phdr))
			return -1;
		p->off = e32.e_phoff;
		p->nr = e32.e_phnum;
	} else {
		return -1;
	}
	return p->nr > 4096 ? -1 : 0;
}

/* Program header i: its type and extent. */
static int phdr_get(struct phdrs const *p, unsigned i, uint32_t *type,
		    struct op_segment *seg)
{
	Elf64_Phdr h64;
	Elf32_Phdr h32;

	if (p->is64) {
		if (pread(p->fd, &h64, sizeof(h64), (off_t)(p->off +
			  (uint64_t)i * sizeof(h64))) != sizeof(h64))
			return -1;
		*type = h64.p_type;
		*seg = (struct op_segment){ h64.p_offset, h64.p_vaddr,
					    h64.p_filesz };
		return 0;
	}
	if (pread(p->fd, &h32, sizeof(h32), (off_t)(p->off +
		  (uint64_t)i * sizeof(h32))) != sizeof(h32))
		return -1;
	*type = h32.p_type;
	*seg = (struct op_segment){ h32.p_offset, h32.p_vaddr, h32.p_filesz };
	return 0;
}

int op_build_id_of(char const *path, char hex[OP_BUILD_ID_HEX_MAX])
{
	/* headers and notes only are read: no bound on the size */
	int fd = op_open_regular(path, O_RDONLY), rc = -1;
	struct op_segment seg;
	struct phdrs p;
	uint32_t type;

	hex[0] = '\0';
	if (fd < 0)
		return -1;
	if (!phdrs_open(fd, &p)) {
		for (unsigned i = 0; i < p.nr && rc; i++) {
			if (phdr_get(&p, i, &type, &seg))
				break;
			if (type == PT_NOTE)
				rc = note_segment(fd, seg.offset, seg.filesz,
						  hex);
		}
	}
	close(fd);
	if (rc)
		hex[0] = '\0';
	return rc;
}

int op_elf_segments(char const *path, struct op_segment *v, size_t max)
{
	int fd = op_open_regular(path, O_RDONLY);
	struct op_segment seg;
	struct phdrs p;
	uint32_t type;
	size_t n = 0;

	if (fd < 0)
		return -1;
	if (phdrs_open(fd, &p)) {
		close(fd);
		return -1;
	}
	for (unsigned i = 0; i < p.nr && n < max; i++) {
		if (phdr_get(&p, i, &type, &seg))
			break;
		if (type == PT_LOAD && seg.filesz)
			v[n++] = seg;
	}
	close(fd);
	return (int)n;
}

char *op_build_id_line(char const *hex, uint64_t mtime, char const *path)
{
	return op_xasprintf("%s %" PRIu64 " %s", hex, mtime, path);
}

int op_build_id_parse_line(char *line, char hex[OP_BUILD_ID_HEX_MAX],
			   uint64_t *mtime, char const **path)
{
	char *sp = strchr(line, ' '), *end;
	size_t n = sp ? (size_t)(sp - line) : 0;

	if (!n || n >= OP_BUILD_ID_HEX_MAX || n % 2 ||
	    strspn(line, "0123456789abcdef") != n)
		return -1;
	*mtime = strtoull(sp + 1, &end, 10);
	if (end == sp + 1 || *end != ' ' || end[1] != '/')
		return -1;
	memcpy(hex, line, n);
	hex[n] = '\0';
	*path = end + 1;
	return 0;
}

char *op_segment_line(char const *hex, struct op_segment const *seg)
{
	return op_xasprintf("%s 0x%" PRIx64 " 0x%" PRIx64 " 0x%" PRIx64, hex,
			    seg->offset, seg->vaddr, seg->filesz);
}

int op_segment_parse_line(char const *line, char hex[OP_BUILD_ID_HEX_MAX],
			  struct op_segment *seg)
{
	size_t n = strspn(line, "0123456789abcdef");
	uint64_t f[3];
	char const *p = line + n;
	char *end;

	if (!n || n >= OP_BUILD_ID_HEX_MAX || n % 2)
		return -1;
	for (int i = 0; i < 3; i++) {
		if (p[0] != ' ' || p[1] != '0' || p[2] != 'x')
			return -1;
		f[i] = strtoull(p + 3, &end, 16);
		if (end == p + 3)
			return -1;
		p = end;
	}
	if (*p)
		return -1;
	memcpy(hex, line, n);
	hex[n] = '\0';
	*seg = (struct op_segment){ f[0], f[1], f[2] };
	return 0;
}

#define MAX_RECORD_FILE (64u << 20)
#define MAX_LINE_WARNINGS 5

/* One line of a build-ids (segments) file, its newline cut: it parses. */
static bool good_line(char *line, bool segments)
{
	char hex[OP_BUILD_ID_HEX_MAX];
	struct op_segment seg;
	char const *path;
	uint64_t mtime;

	if (segments)
		return !op_segment_parse_line(line, hex, &seg);
	return !op_build_id_parse_line(line, hex, &mtime, &path);
}

char *op_build_id_file_read(char const *path, bool segments)
{
	size_t len, out = 0, lineno = 0, bad = 0;
	char *text = op_read_file(path, MAX_RECORD_FILE, &len, NULL, 0);

	if (!text)
		return errno == ENOENT ? op_xstrdup("") : NULL;
	for (size_t pos = 0; pos < len; lineno++) {
		char *nl = memchr(text + pos, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - text) - pos : len - pos;
		char const *why = NULL;

		text[pos + n] = '\0';
		if (!nl)
			why = "cut short (no newline: a torn write)";
		else if (strlen(text + pos) != n || !good_line(text + pos, segments))
			why = "malformed";
		if (why && bad++ < MAX_LINE_WARNINGS)
			op_warn("'%s' line %zu: %s, left out", path, lineno + 1, why);
		if (!why) {
			memmove(text + out, text + pos, n);
			text[out + n] = '\n';
			out += n + 1;
		}
		pos += n + 1;
	}
	if (bad > MAX_LINE_WARNINGS)
		op_warn("'%s': %zu bad lines in all, left out", path, bad);
	text[out] = '\0';
	return text;
}

char *op_debug_file_by_build_id(char const *hex)
{
	char const *env = getenv("OPROFILE_DEBUG_DIRS");
	char *dirs = op_xstrdup(env && env[0] ? env : "/usr/lib/debug");
	char *save = NULL, *found = NULL;

	if (strlen(hex) < 4) {
		free(dirs);
		return NULL;
	}
	for (char *d = strtok_r(dirs, ":", &save); d && !found;
	     d = strtok_r(NULL, ":", &save)) {
		char *p = op_xasprintf("%s/.build-id/%.2s/%s.debug", d, hex,
				       hex + 2);
		char got[OP_BUILD_ID_HEX_MAX];

		if (!op_build_id_of(p, got) && !strcmp(got, hex))
			found = p;
		else
			free(p);
	}
	free(dirs);
	return found;
}

/*
 * The CRC-32 (zlib's, as .gnu_debuglink uses) of the file at path, read
 * whole: a candidate debug file larger than MAX_DEBUG_FILE is not one.
 */
#define MAX_DEBUG_FILE ((off_t)8 << 30)
static bool file_crc(char const *path, uint32_t *crc)
{
	int fd = op_open_regular_max(path, O_RDONLY, MAX_DEBUG_FILE);
	unsigned char buf[65536];
	uLong c = crc32(0, Z_NULL, 0);
	ssize_t n;

	if (fd < 0)
		return false;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		c = crc32(c, buf, (uInt)n);
	close(fd);
	*crc = (uint32_t)c;
	return n == 0;
}

bool op_debuglink_name_ok(char const *name)
{
	return name[0] && !strchr(name, '/') && strcmp(name, ".") &&
	       strcmp(name, "..");
}

char *op_debug_file_by_debuglink(char const *path, char const *name,
				 uint32_t crc)
{
	char const *env = getenv("OPROFILE_DEBUG_DIRS");
	char *dir = op_xstrdup(path), *slash = strrchr(dir, '/');
	char *dirs = op_xstrdup(env && env[0] ? env : "/usr/lib/debug");
	char *save = NULL, *found = NULL, *cand[3 + 16] = { NULL };
	size_t n = 0;
	uint32_t got;

	if (slash)
		*slash = '\0';
	if (!op_debuglink_name_ok(name))
		goto out;
	cand[n++] = op_xasprintf("%s/%s", dir, name);
	cand[n++] = op_xasprintf("%s/.debug/%s", dir, name);
	for (char *d = strtok_r(dirs, ":", &save); d && n < OP_ARRAY_SIZE(cand);
	     d = strtok_r(NULL, ":", &save))
		cand[n++] = op_xasprintf("%s%s/%s", d, dir, name);
	for (size_t i = 0; i < n && !found; i++)
		if (strcmp(cand[i], path) && file_crc(cand[i], &got) &&
		    got == crc)
			found = op_xstrdup(cand[i]);
out:
	for (size_t i = 0; i < n; i++)
		free(cand[i]);
	free(dirs);
	free(dir);
	return found;
}
