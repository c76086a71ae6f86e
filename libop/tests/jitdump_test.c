/*
 * The jitdump parser and ELF writer (op_jitdump.h): loads kept by range,
 * a later load over an earlier one winning, a move, records skipped;
 * hostile files (the other byte order, a short header, a record smaller
 * than its header or past the file's end, a code size past its record, a
 * name without its NUL, a half-written last record, a million records);
 * the bounds on loads, code bytes and bytes read; the ELF file's layout.
 */
#include "config.h"

#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "op_jitdump.h"
#include "check.h"

struct buf {
	unsigned char *p;
	size_t len, alloc;
};

static void put(struct buf *b, void const *v, size_t len)
{
	if (b->len + len > b->alloc) {
		b->alloc = (b->len + len) * 2;
		b->p = realloc(b->p, b->alloc);
		if (!b->p)
			abort();
	}
	memcpy(b->p + b->len, v, len);
	b->len += len;
}

static void put32(struct buf *b, uint32_t v) { put(b, &v, 4); }
static void put64(struct buf *b, uint64_t v) { put(b, &v, 8); }

static void header(struct buf *b, uint32_t magic)
{
	put32(b, magic);
	put32(b, 1);
	put32(b, OP_JITDUMP_HEADER_SIZE);
	put32(b, EM_X86_64);
	put32(b, 0);
	put32(b, 4242);
	put64(b, 1);
	put64(b, 0);
}

static void load(struct buf *b, uint64_t addr, uint64_t size, uint64_t index,
		 char const *name)
{
	size_t nl = strlen(name) + 1;

	put32(b, OP_JITDUMP_CODE_LOAD);
	put32(b, (uint32_t)(OP_JITDUMP_LOAD_SIZE + nl + size));
	put64(b, 2);
	put32(b, 4242);
	put32(b, 4243);
	put64(b, addr);
	put64(b, addr);
	put64(b, size);
	put64(b, index);
	put(b, name, nl);
	for (uint64_t i = 0; i < size; i++) {
		unsigned char c = (unsigned char)(0x90 + (i & 7));

		put(b, &c, 1);
	}
}

static void move(struct buf *b, uint64_t old, uint64_t new, uint64_t size,
		 uint64_t index)
{
	put32(b, OP_JITDUMP_CODE_MOVE);
	put32(b, OP_JITDUMP_MOVE_SIZE);
	put64(b, 3);
	put32(b, 4242);
	put32(b, 4243);
	put64(b, new);
	put64(b, old);
	put64(b, new);
	put64(b, size);
	put64(b, index);
}

static void record(struct buf *b, uint32_t id, uint32_t size)
{
	put32(b, id);
	put32(b, size);
	put64(b, 4);
	for (uint32_t i = OP_JITDUMP_RECORD_SIZE; i < size; i++)
		put(b, "", 1);
}

/* A DEBUG_INFO record for code_addr: n entries at code_addr + 4 * i, of
 * line 10 + i, the first of file "/srv/a.js", the rest "\xff" (the same),
 * but entry 2 of line 0 (not kept). */
static void debug(struct buf *b, uint64_t code_addr, uint64_t n)
{
	struct buf e = { 0 };

	for (uint64_t i = 0; i < n; i++) {
		put64(&e, code_addr + 4 * i);
		put32(&e, i == 2 ? 0 : (uint32_t)(10 + i));
		put32(&e, 0);
		if (i)
			put(&e, "\xff", 2);
		else
			put(&e, "/srv/a.js", 10);
	}
	put32(b, OP_JITDUMP_DEBUG_INFO);
	put32(b, (uint32_t)(32 + e.len));
	put64(b, 5);
	put64(b, code_addr);
	put64(b, n);
	put(b, e.p, e.len);
	free(e.p);
}

static int parse(struct op_jitdump *d, struct buf const *b,
		 struct op_perf_map_range const *r, size_t nr,
		 struct op_jitdump_limits const *lim, char *err)
{
	memset(d, 0, sizeof(*d));
	return op_jitdump_read_mem(d, b->p, b->len, r, nr, lim, err, 256);
}

static char const *name_at(struct op_jitdump const *d, uint64_t addr)
{
	struct op_jitdump_load const *l = op_jitdump_find(d, addr);

	return l ? l->name : "(none)";
}

int main(void)
{
	struct buf b = { 0 };
	struct op_jitdump d;
	struct op_perf_map_range r = { 0x10000, 0x20000 };
	struct op_jitdump_limits lim = { 1 << 20, 4, 1 << 20 };
	char err[256] = "";
	int rc;

	/* as a JIT writes it: loads, a debug record, an unknown one */
	header(&b, OP_JITDUMP_MAGIC);
	load(&b, 0x10000, 0x40, 1, "JS:*hotA /srv/app.js:7");
	record(&b, OP_JITDUMP_DEBUG_INFO, 48);
	load(&b, 0x10100, 0x20, 2, "JS:*hotB /srv/app.js:9");
	record(&b, 77, 24);
	load(&b, 0x90000, 0x20, 3, "outside the range");
	load(&b, 0x10010, 0x10, 4, "JS:*hotA2 over hotA");
	move(&b, 0x10100, 0x11000, 0x20, 2);
	record(&b, OP_JITDUMP_CLOSE, 16);
	rc = parse(&d, &b, &r, 1, NULL, err);
	check_int(rc, 0, "a dump as a JIT writes it reads (%s)", err);
	check_int((long long)d.pid, 4242, "its pid from the header");
	check_int((long long)d.records, 8, "every record read");
	check_int((long long)d.loads, 4, "four loads");
	check_int((long long)d.n, 2, "two kept: one outside, one written over");
	check_int((long long)d.replaced, 1, "the load written over counted");
	check_str(name_at(&d, 0x10018), "JS:*hotA2 over hotA",
		  "the later load over an earlier one wins");
	check_str(name_at(&d, 0x10000), "(none)",
		  "the earlier load is gone whole");
	check_str(name_at(&d, 0x11010), "JS:*hotB /srv/app.js:9",
		  "a moved load is at its new address");
	check_str(name_at(&d, 0x10100), "(none)", "and not at its old one");
	check(d.n == 2 && d.v[0].code[0] == 0x90 && d.v[1].code[31] == 0x97 &&
	      d.code_bytes == 0x30, "the code bytes kept, and counted");
	check(!d.problem[0] && !d.truncated, "nothing wrong said (%s)",
	      d.problem);

	/* the ELF file of it */
	{
		size_t len, left;
		unsigned char *elf = op_jitdump_elf(&d, &len, &left);
		Elf64_Ehdr eh;
		Elf64_Shdr sh;

		memcpy(&eh, elf, sizeof(eh));
		check(!memcmp(eh.e_ident, ELFMAG, SELFMAG) &&
		      eh.e_ident[EI_CLASS] == ELFCLASS64 &&
		      eh.e_machine == EM_X86_64, "an ELF64 file of its machine");
		check_int(eh.e_shnum, 1 + 2 + 3, "two runs of code (gap of "
			  "%u bytes), the symbols and two string tables",
			  OP_JITDUMP_ELF_GAP);
		memcpy(&sh, elf + eh.e_shoff + sizeof(sh), sizeof(sh));
		check(sh.sh_addr == 0x10010 && sh.sh_size == 0x10 &&
		      elf[sh.sh_offset] == 0x90, "the first run at its address");
		memcpy(&sh, elf + eh.e_shoff + 3 * sizeof(sh), sizeof(sh));
		check(sh.sh_type == SHT_SYMTAB &&
		      sh.sh_size == 3 * sizeof(Elf64_Sym), "a symbol per load");
		check_int((long long)left, 0, "no load left out");
		free(elf);
	}
	op_jitdump_free(&d);

	/* lines: a debug record goes with the load of its address after it */
	b.len = 0;
	header(&b, OP_JITDUMP_MAGIC);
	debug(&b, 0x10000, 4);
	load(&b, 0x10000, 0x40, 1, "withLines");
	debug(&b, 0x20000, 50);         /* entries past its load's end */
	load(&b, 0x20000, 0x10, 2, "partly");
	debug(&b, 0x30000, 3);          /* another load's address: none */
	load(&b, 0x40000, 0x10, 3, "noLines");
	move(&b, 0x10000, 0x50000, 0x40, 1);
	rc = parse(&d, &b, NULL, 0, NULL, err);
	{
		struct op_jitdump_load const *l = op_jitdump_find(&d, 0x50000);

		check(!rc && l && l->nr_lines == 3 && l->lines[0].line == 10 &&
		      l->lines[2].line == 13 && l->lines[2].addr == 0x5000c &&
		      !strcmp(d.files[l->lines[1].file], "/srv/a.js"),
		      "a load's lines: line 0 left out, \"\\xff\" the same file, "
		      "moved with it");
		l = op_jitdump_find(&d, 0x20000);
		check(l && l->nr_lines == 3, "entries outside their load not "
		      "kept (%zu)", l ? l->nr_lines : 0);
		l = op_jitdump_find(&d, 0x40000);
		check(l && !l->nr_lines, "a debug record of another address "
		      "gives no lines");
		check(d.nr_files == 1 && d.nr_lines == 6,
		      "one file name kept once, 6 lines");
	}
	{
		size_t len, left;
		unsigned char *elf = op_jitdump_elf(&d, &len, &left);
		Elf64_Ehdr eh;

		memcpy(&eh, elf, sizeof(eh));
		check_int(eh.e_shnum, 1 + 3 + 2 + 3 + 1, "with lines: three "
			  "runs, symbols, DWARF (abbrev, info, line)");
		check(memmem(elf, len, "/srv/a.js", 10) != NULL,
		      "the file name in the line table");
		free(elf);
	}
	op_jitdump_free(&d);

	/* all ranges; the bounds */
	rc = parse(&d, &b, NULL, 0, NULL, err);
	check(!rc && d.n == 3, "no range: every load kept but the one "
	      "written over");
	op_jitdump_free(&d);

	b.len = 0;
	header(&b, OP_JITDUMP_MAGIC);
	for (int i = 0; i < 10; i++)
		load(&b, 0x10000 + (uint64_t)i * 0x100, 0x80, (uint64_t)i,
		     "f");
	rc = parse(&d, &b, NULL, 0, &lim, err);
	check(!rc && d.n == 4 && d.cut == 6, "past 4 loads: the rest cut "
	      "(%zu kept, %llu cut)", d.n, (unsigned long long)d.cut);
	op_jitdump_free(&d);

	b.len = 0;
	header(&b, OP_JITDUMP_MAGIC);
	for (int i = 0; i < 10; i++)
		load(&b, 0x10000, 0x80, (uint64_t)i, i == 9 ? "last" : "f");
	rc = parse(&d, &b, NULL, 0, &lim, err);
	check(!rc && d.n == 1 && d.replaced == 9 && !d.cut &&
	      !strcmp(d.v[0].name, "last"), "the same address ten times: "
	      "room made by dropping what was written over");
	op_jitdump_free(&d);

	lim = (struct op_jitdump_limits){ 1 << 20, 100, 0x100 };
	b.len = 0;
	header(&b, OP_JITDUMP_MAGIC);
	for (int i = 0; i < 3; i++)
		load(&b, 0x10000 + (uint64_t)i * 0x1000, 0x80, (uint64_t)i,
		     "f");
	rc = parse(&d, &b, NULL, 0, &lim, err);
	check(!rc && d.n == 2 && d.cut == 1 && d.code_bytes == 0x100,
	      "past 256 code bytes: the rest cut");
	op_jitdump_free(&d);

	lim = (struct op_jitdump_limits){ 300, 100, 1 << 20 };
	rc = parse(&d, &b, NULL, 0, &lim, err);
	check(!rc && d.n == 1 && d.bytes_cut, "past 300 bytes read: cut");
	op_jitdump_free(&d);

	/* hostile headers: refused, nothing kept */
	b.len = 0;
	header(&b, __builtin_bswap32(OP_JITDUMP_MAGIC));
	rc = parse(&d, &b, NULL, 0, NULL, err);
	check(rc == -1 && strstr(err, "other byte order") && !d.n,
	      "a byte-swapped dump refused (%s)", err);
	rc = parse(&d, &(struct buf){ b.p, 20, 0 }, NULL, 0, NULL, err);
	check(rc == -1 && strstr(err, "shorter than"), "a short header (%s)",
	      err);
	memcpy(b.p, &(uint32_t){ 0x12345678 }, 4);
	rc = parse(&d, &b, NULL, 0, NULL, err);
	check(rc == -1 && strstr(err, "not a jitdump"), "another magic (%s)",
	      err);
	memcpy(b.p, &(uint32_t){ OP_JITDUMP_MAGIC }, 4);
	memcpy(b.p + 4, &(uint32_t){ 2 }, 4);
	rc = parse(&d, &b, NULL, 0, NULL, err);
	check(rc == -1 && strstr(err, "version 2"), "another version (%s)",
	      err);
	memcpy(b.p + 4, &(uint32_t){ 1 }, 4);
	memcpy(b.p + 8, &(uint32_t){ 4096 }, 4);
	rc = parse(&d, &b, NULL, 0, NULL, err);
	check(rc == -1 && strstr(err, "header size"), "a header past the "
	      "file (%s)", err);

	/* hostile records: said with their offset, what came before kept */
	b.len = 0;
	header(&b, OP_JITDUMP_MAGIC);
	load(&b, 0x10000, 0x10, 1, "kept");
	{
		size_t at = b.len;

		record(&b, 0, 16);
		memcpy(b.p + at + 4, &(uint32_t){ 8 }, 4);
		load(&b, 0x20000, 0x10, 2, "after");
		rc = parse(&d, &b, NULL, 0, NULL, err);
		check(!rc && d.n == 1 && d.problem_at == at &&
		      strstr(d.problem, "smaller than a record header"),
		      "a record smaller than its header stops there (%s at "
		      "%llu)", d.problem, (unsigned long long)d.problem_at);
		op_jitdump_free(&d);
		memcpy(b.p + at + 4, &(uint32_t){ 0x7fffffff }, 4);
		rc = parse(&d, &b, NULL, 0, NULL, err);
		check(!rc && d.n == 1 && d.truncated && d.problem_at == at &&
		      strstr(d.problem, "past the file's end"),
		      "a record past the file's end (%s)", d.problem);
		op_jitdump_free(&d);
		b.len = at;
	}
	{
		size_t at = b.len;

		load(&b, 0x20000, 0x10, 2, "big");
		memcpy(b.p + at + 40, &(uint64_t){ UINT64_MAX }, 8);
		rc = parse(&d, &b, NULL, 0, NULL, err);
		check(!rc && d.n == 1 && d.problem_at == at &&
		      strstr(d.problem, "does not fit its record"),
		      "a huge code size (%s)", d.problem);
		op_jitdump_free(&d);
		b.len = at;
		load(&b, 0x20000, 0x10, 2, "nonul");
		b.p[at + OP_JITDUMP_LOAD_SIZE + 5] = 'x';
		load(&b, 0x30000, 0x10, 3, "after");
		rc = parse(&d, &b, NULL, 0, NULL, err);
		check(!rc && d.n == 2 && d.problem_at == at &&
		      strstr(d.problem, "without its NUL") &&
		      !strcmp(name_at(&d, 0x30000), "after"),
		      "a name without its NUL: skipped, the next read (%s)",
		      d.problem);
		op_jitdump_free(&d);
		b.len -= 20;    /* the last load half written */
		rc = parse(&d, &b, NULL, 0, NULL, err);
		check(!rc && d.n == 1 && d.truncated,
		      "a half-written last record: truncated, not kept");
		op_jitdump_free(&d);
	}
	{
		char longname[OP_PERF_MAP_NAME_MAX + 100];

		memset(longname, 'n', sizeof(longname) - 1);
		longname[sizeof(longname) - 1] = '\0';
		b.len = 0;
		header(&b, OP_JITDUMP_MAGIC);
		load(&b, 0x10000, 0x10, 1, longname);
		rc = parse(&d, &b, NULL, 0, NULL, err);
		check(!rc && d.n == 1 &&
		      strlen(d.v[0].name) == OP_PERF_MAP_NAME_MAX,
		      "a long name cut at %u", OP_PERF_MAP_NAME_MAX);
		op_jitdump_free(&d);
	}

	/* a million small records: read, nothing kept past the bound */
	b.len = 0;
	header(&b, OP_JITDUMP_MAGIC);
	for (int i = 0; i < 1000000; i++)
		load(&b, 0x10000 + (uint64_t)i * 16, 1, (uint64_t)i, "m");
	rc = parse(&d, &b, NULL, 0, NULL, err);
	check(!rc && d.records == 1000000 && d.n == OP_JITDUMP_MAX_LOADS &&
	      d.cut == 1000000 - OP_JITDUMP_MAX_LOADS,
	      "a million loads: %u kept, the rest counted cut",
	      OP_JITDUMP_MAX_LOADS);
	op_jitdump_free(&d);
	free(b.p);
	return check_done();
}
