/*
 * A function's file offset in an ELF binary, for a uprobe: its symbol
 * (.symtab, else .dynsym) and the PT_LOAD segment that holds its address.
 * 64-bit little-endian ELF only (the hosts opwatch runs on).
 */
#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "op_util.h"
#include "opwatch.h"

struct elf_file {
	unsigned char *data;
	size_t size;
};

static bool in_file(struct elf_file const *f, uint64_t off, uint64_t len)
{
	return off <= f->size && len <= f->size - off;
}

/* The symbol's value in symbol table section sh (linked string table). */
static bool find_in(struct elf_file const *f, Elf64_Ehdr const *eh,
		    Elf64_Shdr const *sh, char const *name, uint64_t *value)
{
	Elf64_Shdr const *shs = (void const *)(f->data + eh->e_shoff);
	Elf64_Shdr const *str;
	size_t n;

	if (sh->sh_link >= eh->e_shnum || !sh->sh_entsize)
		return false;
	str = &shs[sh->sh_link];
	if (!in_file(f, sh->sh_offset, sh->sh_size) ||
	    !in_file(f, str->sh_offset, str->sh_size))
		return false;
	n = sh->sh_size / sizeof(Elf64_Sym);
	for (size_t i = 0; i < n; i++) {
		Elf64_Sym const *s = (void const *)(f->data + sh->sh_offset +
						   i * sizeof(Elf64_Sym));

		if (ELF64_ST_TYPE(s->st_info) != STT_FUNC || !s->st_value ||
		    s->st_name >= str->sh_size)
			continue;
		if (!strncmp((char const *)f->data + str->sh_offset + s->st_name,
			     name, str->sh_size - s->st_name) &&
		    strlen(name) < str->sh_size - s->st_name) {
			*value = s->st_value;
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
		Elf64_Phdr const *ph = (void const *)(f->data + eh->e_phoff +
						     i * sizeof(Elf64_Phdr));

		if (ph->p_type == PT_LOAD && vaddr >= ph->p_vaddr &&
		    vaddr < ph->p_vaddr + ph->p_filesz) {
			*off = vaddr - ph->p_vaddr + ph->p_offset;
			return true;
		}
	}
	return false;
}

static int check_header(struct elf_file const *f, char const *path,
			char *err, size_t errlen)
{
	Elf64_Ehdr const *eh = (void const *)f->data;

	if (f->size < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG)) {
		snprintf(err, errlen, "'%s' is not an ELF binary", path);
		return -1;
	}
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

int opwatch_elf_func(char const *path, char const *func, uint64_t *offset,
		     char *err, size_t errlen)
{
	struct elf_file f = { 0 };
	Elf64_Ehdr const *eh;
	Elf64_Shdr const *shs;
	bool have_symtab = false, found = false;
	uint64_t value = 0;
	int ret = -1;

	f.data = (unsigned char *)op_read_file(path, 0, &f.size, NULL, 0);
	if (!f.data) {
		snprintf(err, errlen, "cannot read binary '%s': %s", path,
			 strerror(errno));
		return -1;
	}
	if (check_header(&f, path, err, errlen) < 0)
		goto out;
	eh = (void const *)f.data;
	shs = (void const *)(f.data + eh->e_shoff);
	for (int pass = 0; pass < 2 && !found; pass++)
		for (unsigned i = 0; i < eh->e_shnum && !found; i++) {
			uint32_t want = pass ? SHT_DYNSYM : SHT_SYMTAB;

			if (shs[i].sh_type != want)
				continue;
			have_symtab |= want == SHT_SYMTAB;
			found = find_in(&f, eh, &shs[i], func, &value);
		}
	if (!found) {
		snprintf(err, errlen, "no function '%s' in '%s'%s", func, path,
			 have_symtab ? "" : " (stripped: no .symtab, and "
			 ".dynsym does not export it)");
		goto out;
	}
	if (!to_offset(&f, eh, value, offset)) {
		snprintf(err, errlen, "function '%s' in '%s' is at %#llx, in no "
			 "loadable segment", func, path, (unsigned long long)value);
		goto out;
	}
	ret = 0;
out:
	free(f.data);
	return ret;
}
