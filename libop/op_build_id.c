/* ELF build-id notes without libbfd; see op_build_id.h. */
#include <elf.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "op_build_id.h"
#include "op_util.h"

#define MAX_NOTES (64 * 1024)

static int hex_of_notes(unsigned char const *p, size_t size,
			char hex[OP_BUILD_ID_HEX_MAX])
{
	size_t off = 0;

	while (size - off >= 12) {
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

static int phdrs64(int fd, char hex[OP_BUILD_ID_HEX_MAX])
{
	Elf64_Ehdr eh;
	Elf64_Phdr ph;

	if (pread(fd, &eh, sizeof(eh), 0) != sizeof(eh) ||
	    eh.e_phentsize != sizeof(ph) || eh.e_phnum > 4096)
		return -1;
	for (unsigned i = 0; i < eh.e_phnum; i++) {
		if (pread(fd, &ph, sizeof(ph), (off_t)(eh.e_phoff +
			  (uint64_t)i * sizeof(ph))) != sizeof(ph))
			return -1;
		if (ph.p_type == PT_NOTE &&
		    !note_segment(fd, ph.p_offset, ph.p_filesz, hex))
			return 0;
	}
	return -1;
}

static int phdrs32(int fd, char hex[OP_BUILD_ID_HEX_MAX])
{
	Elf32_Ehdr eh;
	Elf32_Phdr ph;

	if (pread(fd, &eh, sizeof(eh), 0) != sizeof(eh) ||
	    eh.e_phentsize != sizeof(ph) || eh.e_phnum > 4096)
		return -1;
	for (unsigned i = 0; i < eh.e_phnum; i++) {
		if (pread(fd, &ph, sizeof(ph), (off_t)(eh.e_phoff +
			  (uint64_t)i * sizeof(ph))) != sizeof(ph))
			return -1;
		if (ph.p_type == PT_NOTE &&
		    !note_segment(fd, ph.p_offset, ph.p_filesz, hex))
			return 0;
	}
	return -1;
}

int op_build_id_of(char const *path, char hex[OP_BUILD_ID_HEX_MAX])
{
	unsigned char ident[EI_NIDENT];
	unsigned char host = *(uint16_t const *)"\1\0" == 1 ? ELFDATA2LSB :
							       ELFDATA2MSB;
	int fd = open(path, O_RDONLY | O_CLOEXEC), rc = -1;

	hex[0] = '\0';
	if (fd < 0)
		return -1;
	if (pread(fd, ident, sizeof(ident), 0) == sizeof(ident) &&
	    !memcmp(ident, ELFMAG, SELFMAG) && ident[EI_DATA] == host)
		rc = ident[EI_CLASS] == ELFCLASS64 ? phdrs64(fd, hex) :
		     ident[EI_CLASS] == ELFCLASS32 ? phdrs32(fd, hex) : -1;
	close(fd);
	if (rc)
		hex[0] = '\0';
	return rc;
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
