/*
 * Symbol ranges (ends at the next symbol or the section's end, best name
 * at a shared address, lookup at the edges, dynamic ranges) and kernel
 * symbols from a saved kallsyms and kernel_images.
 */
#include "config.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pp_kernel.h"
#include "pp_symtab.h"
#include "check.h"

static void test_symtab__ranges(void)
{
	struct pp_symtab t = { 0 };
	struct pp_symbol const *s;

	pp_symtab_add(&t, "c", 0x300, 0x400, 0, false);
	pp_symtab_add(&t, "a_local", 0x100, 0x400, 0, false);
	pp_symtab_add(&t, "a", 0x100, 0x400, 6, false);
	pp_symtab_add(&t, "b", 0x200, 0x400, 0, false);
	pp_symtab_add(&t, "other", 0x1000, 0x1010, 0, false);
	pp_symtab_finish(&t);
	check(t.n == 4, "the duplicate at 0x100 is dropped");
	s = pp_symtab_find(&t, 0x100);
	check(s && !strcmp(s->name, "a"), "0x100: the higher ranked name wins");
	s = pp_symtab_find(&t, 0x1ff);
	check(s && !strcmp(s->name, "a") && s->end == 0x200, "a ends where b starts");
	s = pp_symtab_find(&t, 0x3ff);
	check(s && !strcmp(s->name, "c"), "c reaches its section's end");
	check(!pp_symtab_find(&t, 0x400), "0x400: past c's section, no symbol");
	check(!pp_symtab_find(&t, 0xff), "0xff: before every symbol");
	s = pp_symtab_find(&t, 0x100f);
	check(s && !strcmp(s->name, "other"), "a symbol of another section");
	pp_symtab_free(&t);

	pp_symtab_add(&t, "x", 0x10, 0x100, 0, true);
	pp_symtab_add(&t, "y", 0x40, 0x100, 0, true);
	pp_symtab_finish(&t);
	check(t.v[0].is_range && t.v[0].next == 1, "x is a range up to y");
	check(t.v[1].next == -1, "y is a range up to the end");
	pp_symtab_free(&t);
}

/* Names kept in a shared pool outlive the table that made them. */
static void test_symtab__pool(void)
{
	struct pp_strpool *pool = pp_strpool_new();
	struct pp_symtab t = { 0 }, c;
	struct pp_symbol const *s;

	pp_symtab_use_pool(&t, pool);
	pp_strpool_unref(pool);
	for (int i = 0; i < 5000; i++) {
		char name[32];

		snprintf(name, sizeof(name), "fn_%d", i);
		pp_symtab_add(&t, name, 0x1000 + 16 * (uint64_t)(i / 2), 0x100000,
			      i % 2, false);
	}
	pp_symtab_finish(&t);
	check(t.n == 2500, "5000 symbols at 2500 addresses: %zu kept", t.n);
	pp_symtab_copy(&c, &t);
	pp_symtab_free(&t);
	s = pp_symtab_find(&c, 0x1000 + 16 * 1249 + 3);
	check(s && !strcmp(s->name, "fn_2499") && s->end == 0x1000 + 16 * 1250,
	      "the copy: the higher rank wins, its end is the next start");
	check(c.n == 2500 && c.pool, "the copy shares the pool");
	pp_symtab_free(&c);
}

static void write_file(char const *path, char const *text)
{
	FILE *f = fopen(path, "w");

	fputs(text, f);
	fclose(f);
}

static void test_kernel__kallsyms(void)
{
	char const *dir;
	char p[256], err[512] = "";
	struct pp_kernel k;
	struct pp_binary b;
	struct pp_symbol const *s;
	uint64_t vma;

	dir = check_tmpdir();
	snprintf(p, sizeof(p), "%s/session", dir);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/session/kernel_images", dir);
	write_file(p, "vmlinux 0xffffffff81000000 0xffffffff81100000\n"
		      "\n"
		      "mod 0xffffffffc0000000 0xffffffffc0001000\n");
	snprintf(p, sizeof(p), "%s/session/kallsyms", dir);
	write_file(p, "ffffffff81000000 T _text\n"
		      "ffffffff81000010 t local_fn\n"
		      "ffffffff81000020 D data\n"
		      "ffffffff81000040 W weak_fn\n"
		      "ffffffff81200000 T beyond_end\n"
		      "ffffffffc0000100 t mod_fn\t[mod]\n"
		      "ffffffffc0000200 T other_fn\t[other]\n"
		      "garbage line\n");
	check(!pp_kernel_load(&k, dir, err, sizeof(err)) && k.n == 2,
	      "kernel_images: two images (%s)", err);
	check(!pp_kernel_binary(&k, "vmlinux", &b, err, sizeof(err)),
	      "vmlinux symbols (%s)", err);
	check(pp_binary_vma(&b, 0x30, &vma) && vma == 0xffffffff81000030,
	      "key 0x30 is vmlinux start + 0x30");
	s = pp_symtab_find(&b.symtab, 0xffffffff81000030);
	check(s && !strcmp(s->name, "local_fn"), "0x30 is in local_fn (data is no symbol)");
	s = pp_symtab_find(&b.symtab, 0xffffffff810fffff);
	check(s && !strcmp(s->name, "weak_fn"), "weak_fn reaches the image end");
	check(b.symtab.n == 3, "_text, local_fn, weak_fn; nothing past the end");
	pp_binary_free(&b);
	check(!pp_kernel_binary(&k, "mod", &b, err, sizeof(err)) &&
	      b.symtab.n == 1 && !strcmp(b.symtab.v[0].name, "mod_fn") &&
	      b.base == 0xffffffffc0000000, "module symbols only from [mod]");
	pp_binary_free(&b);
	check(pp_kernel_binary(&k, "nomod", &b, err, sizeof(err)) == -1 &&
	      strstr(err, "no kernel image 'nomod'"), "unknown image: %s", err);
	check(!pp_kernel_binary(&k, "vmlinux", &b, err, sizeof(err)),
	      "vmlinux symbols again (%s)", err);
	pp_kernel_free(&k);
	s = pp_symtab_find(&b.symtab, 0xffffffff81000010);
	check(s && !strcmp(s->name, "local_fn"),
	      "the binary's names outlive the session's kernel symbols");
	pp_binary_free(&b);

	/* addresses read as strtoull reads them, past the plain hex too */
	write_file(p, "0xffffffff81000000 T hex_prefixed\n"
		      " ffffffff81000010 t spaced\n"
		      "1ffffffff81000020 T seventeen_digits\n"
		      "ffffffff81000030 T  two_spaces \t\n");
	pp_kernel_load(&k, dir, err, sizeof(err));
	check(!pp_kernel_binary(&k, "vmlinux", &b, err, sizeof(err)) &&
	      b.symtab.n == 3 && !strcmp(b.symtab.v[0].name, "hex_prefixed") &&
	      !strcmp(b.symtab.v[1].name, "spaced") &&
	      !strcmp(b.symtab.v[2].name, "two_spaces"),
	      "0x, leading blank, extra blanks read; 17 digits overflow: "
	      "past the end (%s)", err);
	pp_binary_free(&b);
	pp_kernel_free(&k);

	write_file(p, "0000000000000000 T _text\n0000000000000000 t x\n");
	pp_kernel_load(&k, dir, err, sizeof(err));
	check(pp_kernel_binary(&k, "vmlinux", &b, err, sizeof(err)) == -1 &&
	      strstr(err, "hidden addresses"), "zeroed kallsyms: %s", err);
	pp_kernel_free(&k);
	pp_binary_free(&b);
	unlink(p);
	snprintf(p, sizeof(p), "%s/session/kernel_images", dir);
	unlink(p);
	snprintf(p, sizeof(p), "%s/session", dir);
	rmdir(p);
	rmdir(dir);
}

int main(void)
{
	test_symtab__ranges();
	test_symtab__pool();
	test_kernel__kallsyms();
	return check_done();
}
