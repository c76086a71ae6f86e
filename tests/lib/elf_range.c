/* Function file-offset ranges from ELF symbol tables; see elf_range.h. */
#include <elf.h>
#include <stdbool.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elf_range.h"

struct elf_file {
	unsigned char const *p;
	size_t size;
	Elf64_Ehdr const *eh;
};

static bool in_file(struct elf_file const *f, size_t off, size_t len)
{
	return off <= f->size && len <= f->size - off;
}

/* The symbol's address and size from the first table (symtab, then
 * dynsym) that has it. */
static int find_symbol(struct elf_file const *f, char const *func,
		       Elf64_Addr *addr, Elf64_Xword *size)
{
	static unsigned const types[] = { SHT_SYMTAB, SHT_DYNSYM };
	Elf64_Shdr const *sh = (void const *)(f->p + f->eh->e_shoff);

	for (unsigned t = 0; t < 2; t++) {
		for (unsigned i = 0; i < f->eh->e_shnum; i++) {
			Elf64_Shdr const *s = &sh[i], *str;
			Elf64_Sym const *sym;

			if (s->sh_type != types[t] || s->sh_link >= f->eh->e_shnum)
				continue;
			str = &sh[s->sh_link];
			if (!in_file(f, s->sh_offset, s->sh_size) ||
			    !in_file(f, str->sh_offset, str->sh_size))
				continue;
			sym = (void const *)(f->p + s->sh_offset);
			for (size_t k = 0; k < s->sh_size / sizeof(*sym); k++) {
				char const *name = (char const *)f->p +
						   str->sh_offset + sym[k].st_name;

				if (sym[k].st_name >= str->sh_size ||
				    ELF64_ST_TYPE(sym[k].st_info) != STT_FUNC ||
				    strcmp(name, func))
					continue;
				*addr = sym[k].st_value;
				*size = sym[k].st_size;
				return 0;
			}
		}
	}
	return -1;
}

static int addr_to_offset(struct elf_file const *f, Elf64_Addr addr,
			  unsigned long *off)
{
	Elf64_Phdr const *ph = (void const *)(f->p + f->eh->e_phoff);

	if (!in_file(f, f->eh->e_phoff, f->eh->e_phnum * sizeof(*ph)))
		return -1;
	for (unsigned i = 0; i < f->eh->e_phnum; i++) {
		if (ph[i].p_type != PT_LOAD || addr < ph[i].p_vaddr ||
		    addr >= ph[i].p_vaddr + ph[i].p_filesz)
			continue;
		*off = addr - ph[i].p_vaddr + ph[i].p_offset;
		return 0;
	}
	return -1;
}

static int lookup(struct elf_file const *f, char const *path,
		  char const *func, unsigned long *start, unsigned long *end)
{
	Elf64_Addr addr;
	Elf64_Xword size;

	if (f->size < sizeof(Elf64_Ehdr) || memcmp(f->p, ELFMAG, SELFMAG) ||
	    f->p[EI_CLASS] != ELFCLASS64 ||
	    !in_file(f, f->eh->e_shoff, f->eh->e_shnum * sizeof(Elf64_Shdr))) {
		fprintf(stderr, "elf_range: '%s' is not a 64-bit ELF file\n",
			path);
		return -1;
	}
	if (find_symbol(f, func, &addr, &size) || !size) {
		fprintf(stderr, "elf_range: no function '%s' in '%s'\n", func,
			path);
		return -1;
	}
	if (addr_to_offset(f, addr, start)) {
		fprintf(stderr, "elf_range: '%s' in '%s' is in no PT_LOAD\n",
			func, path);
		return -1;
	}
	*end = *start + size;
	return 0;
}

int elf_func_range(char const *path, char const *func, unsigned long *start,
		   unsigned long *end)
{
	struct elf_file f;
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC), err;
	void *p;

	if (fd < 0 || fstat(fd, &st)) {
		fprintf(stderr, "elf_range: cannot open '%s': %s\n", path,
			strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (p == MAP_FAILED) {
		fprintf(stderr, "elf_range: cannot map '%s': %s\n", path,
			strerror(errno));
		return -1;
	}
	f.p = p;
	f.size = (size_t)st.st_size;
	f.eh = p;
	err = lookup(&f, path, func, start, end);
	munmap(p, f.size);
	return err;
}
