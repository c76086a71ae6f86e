/*
 * Symbols through libbfd, checked against an independent oracle: this
 * test reads its own executable. The vma of a function comes from the
 * running process (its address minus the load base, dladdr), its file
 * offset from the ELF section headers parsed here by hand; libpp must map
 * that offset back to the function's name, and find its source line.
 */
#include "config.h"

#include <dlfcn.h>
#include <elf.h>
#include <stdint.h>
#include <stdlib.h>

#include "pp_bfd.h"
#include "pp_binary.h"
#include "pp_linenr.h"
#include "check.h"

volatile int marker_sink;
static int const marker_line = __LINE__ + 2;
__attribute__((noinline)) void test_marker_fn(int n)
{
	for (int i = 0; i < n; i++)
		marker_sink += i * 7;
}

/*
 * Aliases: several names at one address, of which OProfile 1.x shows a
 * global or weak one before a local one, one without a leading '_'
 * before one with it, a strong one before a weak one.
 */
__attribute__((noinline)) void __test_alias_impl(int n)
{
	marker_sink += n * 3;
}
void test_alias_pub(int n) __attribute__((weak, alias("__test_alias_impl")));

__attribute__((noinline)) void test_alias_strong(int n)
{
	marker_sink += n * 5;
}
void test_alias_weak(int n) __attribute__((weak, alias("test_alias_strong")));

__attribute__((noinline, used)) static void test_alias_local(int n)
{
	marker_sink += n * 11;
}
void _test_alias_global(int n) __attribute__((alias("test_alias_local")));

/* The name libpp gives fn's address in this executable, or "". */
static char const *name_at(struct pp_binary const *b, void (*fn)(int))
{
	Dl_info info;
	struct pp_symbol const *s;

	if (!dladdr((void *)fn, &info))
		return "";
	s = pp_symtab_find(&b->symtab, (uint64_t)(uintptr_t)fn -
			   (uint64_t)(uintptr_t)info.dli_fbase);
	return s ? s->name : "";
}

/* File offset of vma from the ELF section headers, or -1. */
static long elf_offset(char const *path, uint64_t vma)
{
	FILE *f = fopen(path, "rb");
	Elf64_Ehdr eh;
	long off = -1;

	if (!f || fread(&eh, sizeof(eh), 1, f) != 1)
		goto out;
	for (int i = 0; i < eh.e_shnum; i++) {
		Elf64_Shdr sh;

		fseek(f, (long)(eh.e_shoff + (uint64_t)i * eh.e_shentsize), SEEK_SET);
		if (fread(&sh, sizeof(sh), 1, f) != 1)
			break;
		if (sh.sh_type == SHT_PROGBITS && vma >= sh.sh_addr &&
		    vma < sh.sh_addr + sh.sh_size) {
			off = (long)(vma - sh.sh_addr + sh.sh_offset);
			break;
		}
	}
out:
	if (f)
		fclose(f);
	return off;
}

int main(int argc, char **argv)
{
	struct pp_binary b;
	struct pp_symbol const *s;
	Dl_info info;
	uint64_t vma, mapped;
	long off;
	char err[512], *file;
	unsigned line;

	(void)argc;
	test_marker_fn(3);
	if (!dladdr((void *)test_marker_fn, &info))
		return 99;
	vma = (uint64_t)(uintptr_t)test_marker_fn - (uint64_t)(uintptr_t)info.dli_fbase;
	off = elf_offset(argv[0], vma + 3);
	check(off > 0, "oracle: test_marker_fn+3 at file offset 0x%lx", off);
	if (!check(!pp_bfd_open(&b, argv[0], false, err, sizeof(err)),
		   "libbfd opens this test (%s)", err))
		return check_done();
	check(!b.dynamic && b.symtab.n > 10, "static symbol table used (%zu symbols)", b.symtab.n);
	check(pp_binary_vma(&b, (uint64_t)off, &mapped) && mapped == vma + 3,
	      "file offset maps to the function's vma + 3");
	s = pp_symtab_find(&b.symtab, mapped);
	check(s && !strcmp(s->name, "test_marker_fn") && s->start == vma,
	      "the vma is in test_marker_fn");
	check(!pp_binary_vma(&b, 0, &mapped), "offset 0 (ELF header) is in no section");
	test_alias_pub(1);
	test_alias_weak(1);
	_test_alias_global(1);
	check(!strcmp(name_at(&b, test_alias_pub), "test_alias_pub"),
	      "weak test_alias_pub, not global __test_alias_impl: '%s'",
	      name_at(&b, test_alias_pub));
	check(!strcmp(name_at(&b, test_alias_weak), "test_alias_strong"),
	      "strong test_alias_strong, not weak test_alias_weak: '%s'",
	      name_at(&b, test_alias_weak));
	check(!strcmp(name_at(&b, _test_alias_global), "_test_alias_global"),
	      "global _test_alias_global, not local test_alias_local: '%s'",
	      name_at(&b, _test_alias_global));
	check(!pp_binary_linenr(&b, vma, &file, &line) && strstr(file, "bfd_test.c") &&
	      line >= (unsigned)marker_line && line <= (unsigned)marker_line + 3,
	      "line info: bfd_test.c:%u (function starts at %d)", line, marker_line);
	free(file);
	pp_binary_free(&b);
	check(pp_bfd_open(&b, "/nonexistent/binary", false, err, sizeof(err)) == -1,
	      "a missing file is an error: %s", err);
	return check_done();
}
