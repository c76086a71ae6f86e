/*
 * A function's file offset in an ELF binary, for a uprobe: its symbol
 * (.symtab, else .dynsym) and the PT_LOAD segment that holds its address.
 * 64-bit little-endian ELF only (the hosts opwatch runs on).
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "op_file.h"
#include "op_util.h"
#include "opwatch.h"

/* A binary larger than this is refused rather than read into memory. */
#define MAX_BINARY_BYTES (1ull << 30)

/* The file's bytes, read into a malloc'ed buffer: no alignment is assumed
 * anywhere (offsets come from the file), so every header, section header,
 * program header and symbol is copied out with memcpy before use. */
struct elf_file {
	unsigned char *data;
	size_t size;
};

static bool in_file(struct elf_file const *f, uint64_t off, uint64_t len)
{
	return off <= f->size && len <= f->size - off;
}

static void get_shdr(struct elf_file const *f, Elf64_Ehdr const *eh,
		     unsigned i, Elf64_Shdr *sh)
{
	memcpy(sh, f->data + eh->e_shoff + (uint64_t)i * sizeof(*sh), sizeof(*sh));
}

/* The symbol's value in symbol table section sh (linked string table). */
static bool find_in(struct elf_file const *f, Elf64_Ehdr const *eh,
		    Elf64_Shdr const *sh, char const *name, uint64_t *value)
{
	Elf64_Shdr str;
	size_t n;

	if (sh->sh_link >= eh->e_shnum || !sh->sh_entsize)
		return false;
	get_shdr(f, eh, sh->sh_link, &str);
	if (!in_file(f, sh->sh_offset, sh->sh_size) ||
	    !in_file(f, str.sh_offset, str.sh_size))
		return false;
	n = sh->sh_size / sizeof(Elf64_Sym);
	for (size_t i = 0; i < n; i++) {
		Elf64_Sym s;

		memcpy(&s, f->data + sh->sh_offset + i * sizeof(s), sizeof(s));
		if (ELF64_ST_TYPE(s.st_info) != STT_FUNC || !s.st_value ||
		    s.st_name >= str.sh_size)
			continue;
		if (!strncmp((char const *)f->data + str.sh_offset + s.st_name,
			     name, str.sh_size - s.st_name) &&
		    strlen(name) < str.sh_size - s.st_name) {
			*value = s.st_value;
			return true;
		}
	}
	return false;
}

/* The file offset of address vaddr: the loadable segment holding it. */
static bool to_offset(struct elf_file const *f, Elf64_Ehdr const *eh,
		      uint64_t vaddr, uint64_t *off)
{
	if (!in_file(f, eh->e_phoff, (uint64_t)eh->e_phnum * sizeof(Elf64_Phdr)))
		return false;
	for (unsigned i = 0; i < eh->e_phnum; i++) {
		Elf64_Phdr ph;

		memcpy(&ph, f->data + eh->e_phoff + (uint64_t)i * sizeof(ph),
		       sizeof(ph));
		if (ph.p_type == PT_LOAD && vaddr >= ph.p_vaddr &&
		    vaddr - ph.p_vaddr < ph.p_filesz) {
			*off = vaddr - ph.p_vaddr + ph.p_offset;
			return true;
		}
	}
	return false;
}

static int check_header(struct elf_file const *f, Elf64_Ehdr *eh,
			char const *path, char *err, size_t errlen)
{
	if (f->size < sizeof(*eh) || memcmp(f->data, ELFMAG, SELFMAG)) {
		snprintf(err, errlen, "'%s' is not an ELF binary", path);
		return -1;
	}
	memcpy(eh, f->data, sizeof(*eh));
	if (eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh->e_ident[EI_DATA] != ELFDATA2LSB) {
		snprintf(err, errlen, "'%s' is not a 64-bit little-endian ELF binary",
			 path);
		return -1;
	}
	if (!in_file(f, eh->e_shoff, (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr))) {
		snprintf(err, errlen, "'%s': section headers outside the file", path);
		return -1;
	}
	return 0;
}

/* The binary's bytes into f: a regular file (op_read_file: never a FIFO
 * or a device) of at most MAX_BINARY_BYTES. */
static int read_binary(char const *path, struct elf_file *f, char *err,
		       size_t errlen)
{
	struct stat st;
	size_t len = 0;

	f->data = (unsigned char *)op_read_file(path, MAX_BINARY_BYTES, &len,
						NULL, 0);
	if (!f->data) {
		int e = errno;

		if (e == EFBIG && !stat(path, &st))
			snprintf(err, errlen, "binary '%s' is too large (%lld "
				 "bytes, at most %llu)", path,
				 (long long)st.st_size, MAX_BINARY_BYTES);
		else
			snprintf(err, errlen, "cannot read binary '%s': %s", path,
				 op_file_strerror(e));
		return -1;
	}
	f->size = len;
	return 0;
}

int opwatch_elf_func(char const *path, char const *func, uint64_t *offset,
		     char *err, size_t errlen)
{
	struct elf_file f = { 0 };
	Elf64_Ehdr eh;
	bool have_symtab = false, found = false;
	uint64_t value = 0;
	int ret = -1;

	if (read_binary(path, &f, err, errlen) < 0)
		return -1;
	if (check_header(&f, &eh, path, err, errlen) < 0)
		goto out;
	for (int pass = 0; pass < 2 && !found; pass++)
		for (unsigned i = 0; i < eh.e_shnum && !found; i++) {
			uint32_t want = pass ? SHT_DYNSYM : SHT_SYMTAB;
			Elf64_Shdr sh;

			get_shdr(&f, &eh, i, &sh);
			if (sh.sh_type != want)
				continue;
			have_symtab |= want == SHT_SYMTAB;
			found = find_in(&f, &eh, &sh, func, &value);
		}
	if (!found) {
		snprintf(err, errlen, "no function '%s' in '%s'%s", func, path,
			 have_symtab ? "" : " (stripped: no .symtab, and "
			 ".dynsym does not export it)");
		goto out;
	}
	if (!to_offset(&f, &eh, value, offset)) {
		snprintf(err, errlen, "function '%s' in '%s' is at %#llx, in no "
			 "loadable segment", func, path, (unsigned long long)value);
		goto out;
	}
	ret = 0;
out:
	free(f.data);
	return ret;
}
