/*
 * Unit tests of the perf source's process maps: overlapping mappings cut
 * older ones (with pgoff kept right), lookups, anonymous regions and
 * their lazily made cookies, fork/exec/exit, and the cookie table.
 */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "opd_cookie.h"
#include "op_message.h"
#include "op_stream.h"
#include "opd_vdso.h"
#include "opd_maps.h"
#include "proc_layout.h"
#include "opd_emit.h"
#include "opd_words.h"


static void test_proc_maps__overlaps(void)
{
	struct proc_table pt;
	struct cookie_table ct;
	struct proc *p;

	opd_maps_init(&pt);
	opd_cookie_init(&ct);
	p = opd_maps_get(&pt, 10);
	map(&pt, &ct, p, 0x3000, 0x4000, 0, "/c");
	map(&pt, &ct, p, 0x1000, 0x2000, 0, "/a");
	map(&pt, &ct, p, 0x2000, 0x3000, 0x5000, "/b");
	check_layout(&ct, p, "1000-2000:0:/a 2000-3000:5000:/b 3000-4000:0:/c",
		     "inserts keep order");
	/* a mapping inside /b splits it; pgoff of the right part moves */
	map(&pt, &ct, p, 0x2400, 0x2800, 0, "/d");
	check_layout(&ct, p, "1000-2000:0:/a 2000-2400:5000:/b "
		     "2400-2800:0:/d 2800-3000:5800:/b 3000-4000:0:/c",
		     "a mapping inside another splits it");
	/* one mapping across several replaces them and trims the ends */
	map(&pt, &ct, p, 0x1800, 0x3800, 0x100000, "/e");
	check_layout(&ct, p, "1000-1800:0:/a 1800-3800:100000:/e 3800-4000:800:/c",
		     "a wide mapping replaces and trims");
	check(opd_maps_lookup(p, 0x1800) == &p->vma[1] && !opd_maps_lookup(p, 0x4000) &&
	      !opd_maps_lookup(p, 0xfff) && opd_maps_lookup(p, 0x3fff) == &p->vma[2],
	      "lookups at the edges");
	map(&pt, &ct, p, 0x1000, 0x4000, 0, "/f");
	check_layout(&ct, p, "1000-4000:0:/f", "an exact cover replaces everything");
	opd_maps_free(&pt);
	opd_cookie_free(&ct);
}

static void test_proc_maps__anon(void)
{
	struct proc_table pt;
	struct cookie_table ct;
	struct word_buffer wb;
	struct cookie_entry *e;
	unsigned long c;
	struct proc *p;
	struct vma *v;

	opd_maps_init(&pt);
	opd_cookie_init(&ct);
	opd_words_init(&wb);
	p = opd_maps_get(&pt, 42);
	map(&pt, &ct, p, 0x7000, 0x9000, 0x1234, "[heap]");
	map(&pt, &ct, p, 0xa000, 0xb000, 0, "//anon");
	check(opd_maps_is_anon_name("", 0) && opd_maps_is_anon_name("[heap]", 6) &&
	      !opd_maps_is_anon_name("/usr/lib/x.so", 13), "anon names");
	v = opd_maps_lookup(p, 0x7800);
	check(v && v->flags & VMA_ANON && v->cookie == OP_NO_COOKIE,
	      "anon VMAs have no cookie until sampled");
	c = opd_maps_vma_cookie(&ct, p, v);
	e = opd_cookie_get(&ct, c);
	check(e && e->kind == CT_ANON && e->tgid == 42 && e->start == 0x7000 &&
	      e->end == 0x9000 && !strcmp(e->name, "[heap]") &&
	      opd_maps_vma_cookie(&ct, p, v) == c, "anon cookie made once");
	check(0x7800 - v->start + v->pgoff == 0x800, "anon offsets from start");
	/* split the sampled region: the right part keeps its offsets */
	map(&pt, &ct, p, 0x7400, 0x7800, 0, "/x");
	v = opd_maps_lookup(p, 0x8000);
	check(v && v->cookie == c && 0x8000 - v->start + v->pgoff == 0x1000,
	      "a split anon region keeps its cookie and offsets");
	opd_cookie_define(&ct, c, &wb);
	check(wb.len == 8 && wb.w[1] == OP_CODE_ANON_DEF && wb.w[3] == 42 &&
	      wb.w[6] == 6 && !memcmp(&wb.w[7], "[heap]\0", 7),
	      "anon definition words");
	opd_cookie_define(&ct, c, &wb);
	check(wb.len == 8, "defined once per stream");
	opd_cookie_new_stream(&ct);
	opd_cookie_define(&ct, c, &wb);
	check(wb.len == 16, "a new stream defines again");
	opd_words_free(&wb);
	opd_maps_free(&pt);
	opd_cookie_free(&ct);
}

/* This boot's vDSO is one cookie in every process (opd_vdso.h); a region
 * of another size named [vdso] (a 32-bit process's) stays anonymous. */
static void test_proc_maps__vdso(void)
{
	struct proc_table pt;
	struct cookie_table ct;
	struct proc *a, *b;
	size_t size;
	struct vma *va, *vb;

	if (!opd_vdso_self(&size)) {
		check(true, "# SKIP no vDSO in this process");
		return;
	}
	opd_maps_init(&pt);
	opd_cookie_init(&ct);
	a = opd_maps_get(&pt, 10);
	b = opd_maps_get(&pt, 11);
	map(&pt, &ct, a, 0x7000, 0x7000 + size, 0, "[vdso]");
	map(&pt, &ct, b, 0x9000, 0x9000 + size, 0, "[vdso]");
	va = opd_maps_lookup(a, 0x7010);
	vb = opd_maps_lookup(b, 0x9010);
	check(va && vb && !(va->flags & VMA_ANON) && va->cookie == vb->cookie &&
	      opd_cookie_get(&ct, va->cookie)->kind == CT_FILE &&
	      !strcmp(opd_cookie_get(&ct, va->cookie)->name, "[vdso]") &&
	      0x9010 - vb->start + vb->pgoff == 0x10,
	      "the vDSO of two processes: one file cookie, offsets from its start");
	map(&pt, &ct, a, 0x20000, 0x20000 + size + 0x1000, 0, "[vdso]");
	va = opd_maps_lookup(a, 0x20010);
	check(va && (va->flags & VMA_ANON), "a [vdso] of another size stays anonymous");
	opd_maps_free(&pt);
	opd_cookie_free(&ct);
}

static void test_proc_maps__lifecycle(void)
{
	struct proc_table pt;
	struct cookie_table ct;
	struct proc *p, *c;
	unsigned long sh, anon;

	opd_maps_init(&pt);
	opd_cookie_init(&ct);
	p = opd_maps_get(&pt, 100);
	map(&pt, &ct, p, 0x1000, 0x2000, 0, "/bin/sh");
	map(&pt, &ct, p, 0x5000, 0x6000, 0, "[vdso]");
	sh = opd_cookie_intern(&ct, "/bin/sh", 7);
	p->app_cookie = sh;
	anon = opd_maps_vma_cookie(&ct, p, opd_maps_lookup(p, 0x5000));
	c = opd_maps_fork(&pt, 100, 200);
	p = opd_maps_find(&pt, 100);
	check(c->app_cookie == sh && c->nr == 2 && opd_maps_lookup(c, 0x1800) &&
	      opd_maps_lookup(c, 0x5000)->cookie == OP_NO_COOKIE &&
	      opd_maps_lookup(p, 0x5000)->cookie == anon,
	      "fork copies maps and app, not anon cookies");
	opd_maps_exec(c);
	check(c->nr == 0 && c->app_cookie == sh, "exec clears the maps");
	map(&pt, &ct, c, 0x4000, 0x5000, 0, "/usr/bin/ls");
	map(&pt, &ct, c, 0x8000, 0x9000, 0, "/lib/ld.so");
	check(!strcmp(opd_cookie_get(&ct, c->app_cookie)->name, "/usr/bin/ls"),
	      "the first file mapped after exec is the app");
	c = opd_maps_fork(&pt, 999, 300);
	check(c->nr == 0 && c->app_cookie == OP_NO_COOKIE,
	      "fork of an unknown parent gives an empty process");
	opd_maps_exit(&pt, 200, 5);
	opd_maps_reap(&pt, 6, NULL);
	check(opd_maps_find(&pt, 200) != NULL, "an exited process stays a round");
	opd_maps_reap(&pt, 7, NULL);
	check(opd_maps_find(&pt, 200) == NULL, "then it is dropped");
	opd_maps_exit(&pt, 300, 5);
	opd_maps_fork(&pt, 100, 300);		/* pid reused */
	opd_maps_reap(&pt, 9, NULL);
	check(opd_maps_find(&pt, 300) != NULL, "a reused pid is not reaped");
	for (unsigned long i = 1000; i < 3000; i++)
		opd_maps_get(&pt, i);
	check(opd_maps_find(&pt, 2999) && opd_maps_find(&pt, 1000) && pt.nr == 2002,
	      "the table grows");
	check(opd_cookie_intern(&ct, "/bin/sh", 7) == sh &&
	      opd_cookie_intern(&ct, "/bin/shx", 8) != sh, "interning");
	opd_maps_free(&pt);
	opd_cookie_free(&ct);
}

/* A path that names another file (device, inode) gets a new cookie. */
static void test_proc_maps__rebuilt(void)
{
	struct proc_table pt;
	struct cookie_table ct;
	struct proc *p;
	unsigned long a, b, y;

	opd_maps_init(&pt);
	opd_cookie_init(&ct);
	a = opd_cookie_intern_file(&ct, "/bin/x", 6, (struct ct_file_id){ .dev = 1, .ino = 100 });
	check(opd_cookie_intern_file(&ct, "/bin/x", 6, (struct ct_file_id){ .dev = 1, .ino = 100 }) == a,
	      "the same file keeps its cookie");
	check(opd_cookie_intern(&ct, "/bin/x", 6) == a, "an unknown id takes the current cookie");
	b = opd_cookie_intern_file(&ct, "/bin/x", 6, (struct ct_file_id){ .dev = 1, .ino = 101 });
	check(b != a && !strcmp(opd_cookie_get(&ct, b)->name, "/bin/x") &&
	      !strcmp(opd_cookie_get(&ct, a)->name, "/bin/x"),
	      "another inode: a new cookie for the path, the old one stays");
	check(opd_cookie_intern(&ct, "/bin/x", 6) == b, "the path's cookie is the new one");
	check(opd_cookie_intern_file(&ct, "/bin/x", 6, (struct ct_file_id){ .dev = 2, .ino = 101 }) != b,
	      "another device: a new cookie");
	y = opd_cookie_intern(&ct, "/bin/y", 6);
	check(opd_cookie_intern_file(&ct, "/bin/y", 6, (struct ct_file_id){ .dev = 1, .ino = 5 }) == y &&
	      opd_cookie_intern_file(&ct, "/bin/y", 6, (struct ct_file_id){ .dev = 1, .ino = 6 }) != y,
	      "a path interned without an id takes the first one known");

	/* through opd_maps_map: a process exec'ing the rebuilt binary */
	p = opd_maps_get(&pt, 10);
	opd_maps_map(&pt, &ct, p, 0x1000, 0x1000, 0, "/bin/z", 6, (struct ct_file_id){ .dev = 3, .ino = 7 });
	a = opd_maps_lookup(p, 0x1000)->cookie;
	p = opd_maps_get(&pt, 11);
	p->exec_pending = true;
	opd_maps_map(&pt, &ct, p, 0x1000, 0x1000, 0, "/bin/z", 6, (struct ct_file_id){ .dev = 3, .ino = 8 });
	check(p->app_cookie != a && p->app_cookie == opd_maps_lookup(p, 0x1000)->cookie &&
	      opd_maps_lookup(opd_maps_find(&pt, 10), 0x1000)->cookie == a,
	      "the rebuilt binary's process has a new app cookie, the old one keeps its own");
	opd_maps_free(&pt);
	opd_cookie_free(&ct);
}

static struct ct_file_id build_id(unsigned char first)
{
	struct ct_file_id id = { .build_id_len = 20 };

	memset(id.build_id, 0xab, sizeof(id.build_id));
	id.build_id[0] = first;
	return id;
}

/* MMAP2 with build-ids: a path's file is told apart by its build-id. */
static void test_proc_maps__build_id(void)
{
	struct cookie_table ct;
	unsigned long a, b, c, d;

	opd_cookie_init(&ct);
	a = opd_cookie_intern_file(&ct, "/c/app", 6, build_id(1));
	check(opd_cookie_intern_file(&ct, "/c/app", 6, build_id(1)) == a &&
	      opd_cookie_get(&ct, a)->build_id_len == 20 && opd_cookie_get(&ct, a)->build_id[0] == 1,
	      "the same build-id keeps its cookie, which holds it");
	b = opd_cookie_intern_file(&ct, "/c/app", 6, build_id(2));
	check(b != a, "another build-id at the path (another container's file): a new cookie");
	check(opd_cookie_intern_file(&ct, "/c/app", 6, build_id(1)) == a,
	      "the first build-id again: its own cookie, not a third");
	check(opd_cookie_intern(&ct, "/c/app", 6) == a, "... which is now the path's current one");
	c = opd_cookie_intern(&ct, "/c/lib", 6);
	check(opd_cookie_intern_file(&ct, "/c/lib", 6, build_id(3)) == c,
	      "a cookie that knows nothing of its file takes the build-id");
	d = opd_cookie_intern_file(&ct, "/c/seeded", 9, (struct ct_file_id){ .dev = 1, .ino = 9 });
	check(opd_cookie_intern_file(&ct, "/c/seeded", 9, build_id(4)) != d,
	      "a cookie known by inode only is not guessed to be that build: a new cookie");
	opd_cookie_free(&ct);
}

static void test_proc_maps__many_paths(void)
{
	struct cookie_table ct;
	char path[32];
	int ok = 1;

	opd_cookie_init(&ct);
	for (int i = 0; i < 5000; i++) {
		snprintf(path, sizeof(path), "/lib/%d.so", i);
		ok &= opd_cookie_intern(&ct, path, strlen(path)) == (unsigned long)i + 1;
	}
	for (int i = 0; i < 5000; i += 7) {
		snprintf(path, sizeof(path), "/lib/%d.so", i);
		ok &= opd_cookie_intern(&ct, path, strlen(path)) == (unsigned long)i + 1;
	}
	check(ok, "cookies are small, stable integers from 1");
	opd_cookie_free(&ct);
}

/* A binary no process maps any more is forgotten after the
 * grace period, and mapped again it gets a fresh cookie and definition. */
static void test_proc_maps__forget_files(void)
{
	struct cookie_table ct;
	struct proc_table pt;
	struct word_buffer wb;
	struct stream_emit se;
	struct proc *p;
	unsigned long a, b, lib, a2;

	opd_cookie_init(&ct);
	opd_maps_init(&pt);
	opd_words_init(&wb);
	opd_emit_init(&se, &wb, &ct);
	p = opd_maps_get(&pt, 10);
	opd_maps_exec(p);
	opd_maps_map(&pt, &ct, p, 0x1000, 0x1000, 0, "/t/a", 4, (struct ct_file_id){ 0 });
	opd_maps_map(&pt, &ct, p, 0x8000, 0x1000, 0, "/t/lib.so", 9, (struct ct_file_id){ 0 });
	a = p->app_cookie;
	lib = opd_maps_lookup(p, 0x8000)->cookie;
	opd_emit_define(&se, a);
	opd_maps_exec(p);	/* /t/a execs /t/b: /t/a and the library unmapped */
	opd_maps_map(&pt, &ct, p, 0x1000, 0x1000, 0, "/t/b", 4, (struct ct_file_id){ 0 });
	b = p->app_cookie;
	check(sweep(&pt, &ct, &se, 0, 100) == 0 && sweep(&pt, &ct, &se, 0, 105) == 0,
	      "nothing is forgotten within the grace period");
	check(sweep(&pt, &ct, &se, 0, 111) == 2 && !opd_cookie_get(&ct, a) &&
	      !opd_cookie_get(&ct, lib) && opd_cookie_get(&ct, b) && ct.live == 1,
	      "after it, the unmapped binary and library are forgotten, the mapped one kept");
	check(has_forget(&wb, a) && !has_forget(&wb, lib),
	      "ESC COOKIE_FORGET for the one the stream had defined, none for the other");
	a2 = opd_cookie_intern(&ct, "/t/a", 4);
	check(a2 > b && opd_cookie_get(&ct, a2) && !strcmp(opd_cookie_get(&ct, a2)->name, "/t/a"),
	      "mapped again, the path has a new cookie");
	opd_maps_exit(&pt, 10, 1);
	check(sweep(&pt, &ct, &se, 0, 200) == 0 && sweep(&pt, &ct, &se, 0, 300) == 1 &&
	      opd_cookie_get(&ct, b), "an exited process's binary stays until it is reaped");
	opd_maps_reap(&pt, 3, &se);
	sweep(&pt, &ct, &se, 0, 400);
	check(sweep(&pt, &ct, &se, 0, 500) == 1 && ct.live == 0, "then it goes too");
	opd_words_free(&wb);
	opd_maps_free(&pt);
	opd_cookie_free(&ct);
}

/* Forgetting one build of a path keeps the path's other builds found. */
static void test_proc_maps__forget_builds(void)
{
	struct cookie_table ct;
	unsigned long a, b, c, d;

	opd_cookie_init(&ct);
	a = opd_cookie_intern_file(&ct, "/c/app", 6, build_id(1));
	b = opd_cookie_intern_file(&ct, "/c/app", 6, build_id(2));
	c = opd_cookie_intern_file(&ct, "/c/app", 6, build_id(3));
	opd_cookie_forget(&ct, b);
	check(opd_cookie_intern_file(&ct, "/c/app", 6, build_id(3)) == c &&
	      opd_cookie_intern_file(&ct, "/c/app", 6, build_id(1)) == a,
	      "an older build forgotten: the others are still found");
	d = opd_cookie_intern_file(&ct, "/c/app", 6, build_id(2));
	check(d > c, "the forgotten build mapped again: a new cookie");
	opd_cookie_forget(&ct, d);
	opd_cookie_forget(&ct, c);
	check(opd_cookie_intern(&ct, "/c/app", 6) == a, "the newest ones forgotten: the path's is the oldest");
	opd_cookie_forget(&ct, a);
	check(opd_cookie_intern(&ct, "/c/app", 6) > d && ct.live == 1,
	      "all forgotten: the path is new again");
	opd_cookie_free(&ct);
}

int main(void)
{
	op_set_progname("proc_maps_test");
	test_proc_maps__overlaps();
	test_proc_maps__anon();
	test_proc_maps__vdso();
	test_proc_maps__lifecycle();
	test_proc_maps__rebuilt();
	test_proc_maps__build_id();
	test_proc_maps__many_paths();
	test_proc_maps__forget_files();
	test_proc_maps__forget_builds();
	return check_done();
}
