/*
 * Jitdump files (op_jitdump.h): the one parser, for the daemon reading a
 * JIT's jit-PID.dump, and the ELF file the session keeps of it. Every
 * size in the file is checked against its record and the file before it
 * is used; the file is read through a window of WINDOW bytes, code bytes
 * straight into their buffer; what is kept is bounded by the limits.
 */
#include <elf.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "op_alloc.h"
#include "op_jitdump.h"
#include "op_util.h"

#define WINDOW (1u << 20)
/* comparisons spent looking for moved loads, over a whole read */
#define MOVE_BUDGET (1u << 26)

struct window {
	op_jitdump_pread_fn rd;
	void *ctx;
	uint64_t size;          /* of the file */
	unsigned char *buf;     /* cap bytes: WINDOW, or the whole file */
	size_t cap;
	uint64_t base;
	size_t have;
};

/* len bytes at off (len <= cap), or NULL when the file ends first. */
static unsigned char const *get(struct window *w, uint64_t off, size_t len)
{
	if (off >= w->base && off - w->base + len <= w->have)
		return w->buf + (off - w->base);
	w->base = off;
	w->have = 0;
	while (w->have < w->cap && off + w->have < w->size) {
		uint64_t left = w->size - off - w->have;
		size_t want = w->cap - w->have;
		ssize_t n;

		if (want > left)
			want = (size_t)left;
		n = w->rd(w->ctx, w->buf + w->have, want, off + w->have);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		w->have += (size_t)n;
	}
	return w->have >= len ? w->buf : NULL;
}

/* Whole len bytes at off into buf, past the window; false if short. */
static bool read_all(struct window *w, void *buf, size_t len, uint64_t off)
{
	size_t got = 0;

	while (got < len) {
		ssize_t n = w->rd(w->ctx, (char *)buf + got, len - got,
				  off + got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return false;
		got += (size_t)n;
	}
	return true;
}

static uint32_t rd32(unsigned char const *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static uint64_t rd64(unsigned char const *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

__attribute__((format(printf, 3, 4)))
static void problem(struct op_jitdump *d, uint64_t at, char const *fmt, ...)
{
	va_list ap;

	if (d->problem[0])
		return;
	va_start(ap, fmt);
	vsnprintf(d->problem, sizeof(d->problem), fmt, ap);
	va_end(ap);
	d->problem_at = at;
}

static void load_free(struct op_jitdump_load *l)
{
	free(l->name);
	free(l->code);
}

static int by_addr(void const *a, void const *b)
{
	struct op_jitdump_load const *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/*
 * Sorted by addr, and of two loads that overlap, the later in the file
 * stays: it was written over the other's memory.
 */
static void resolve(struct op_jitdump *d)
{
	size_t kept = 0;

	if (!d->n)
		return;
	qsort(d->v, d->n, sizeof(*d->v), by_addr);
	for (size_t i = 0; i < d->n; i++) {
		struct op_jitdump_load *l = &d->v[i];

		if (kept) {
			struct op_jitdump_load *prev = &d->v[kept - 1];

			if (l->addr < prev->addr + prev->size) {
				d->replaced++;
				if (l->seq > prev->seq) {
					d->code_bytes -= prev->size;
					load_free(prev);
					*prev = *l;
				} else {
					d->code_bytes -= l->size;
					load_free(l);
				}
				continue;
			}
		}
		d->v[kept++] = *l;
	}
	d->n = kept;
}

struct reader {
	struct op_jitdump *d;
	struct window w;
	struct op_perf_map_range const *ranges;
	size_t nr_ranges;
	struct op_jitdump_limits lim;
	bool compact;           /* a compaction may still free room */
	uint64_t budget;        /* for finding moved loads */
};

/* Room for one more load of size bytes: a compaction drops the loads
 * written over; one that freed little is not tried again (bounded work). */
static bool room(struct reader *r, uint64_t size)
{
	struct op_jitdump *d = r->d;

	if (d->n < r->lim.max_loads && d->code_bytes + size <= r->lim.max_code)
		return true;
	if (r->compact) {
		size_t n = d->n;
		uint64_t bytes = d->code_bytes;

		resolve(d);
		r->compact = n - d->n >= r->lim.max_loads / 4 + 1 ||
			     bytes - d->code_bytes >= r->lim.max_code / 4 + 1;
	}
	return d->n < r->lim.max_loads && d->code_bytes + size <= r->lim.max_code;
}

/* A CODE_LOAD at off, tsz bytes long; false: stop reading. */
static bool code_load(struct reader *r, uint64_t off, uint32_t tsz,
		      uint64_t seq)
{
	struct op_jitdump *d = r->d;
	unsigned char const *p;
	uint64_t addr, size, index, name_len;
	size_t want, len;
	struct op_jitdump_load *l;
	char *name;

	if (tsz < OP_JITDUMP_LOAD_SIZE + 1) {
		problem(d, off, "a code load of %u bytes, smaller than its "
			"fields", tsz);
		return false;
	}
	p = get(&r->w, off, OP_JITDUMP_LOAD_SIZE);
	if (!p)
		return false;
	addr = rd64(p + 32);
	size = rd64(p + 40);
	index = rd64(p + 48);
	if (size > tsz - OP_JITDUMP_LOAD_SIZE - 1) {
		problem(d, off, "code size %llu does not fit its record of "
			"%u bytes", (unsigned long long)size, tsz);
		return false;
	}
	d->loads++;
	name_len = tsz - OP_JITDUMP_LOAD_SIZE - size;
	p = get(&r->w, off + OP_JITDUMP_LOAD_SIZE + name_len - 1, 1);
	if (!p)
		return false;
	if (*p) {
		problem(d, off, "a code load's name without its NUL");
		return true;
	}
	if (!size || addr + size < addr) {
		problem(d, off, "a code load of %llu bytes at %#llx",
			(unsigned long long)size, (unsigned long long)addr);
		return true;
	}
	if (r->nr_ranges && !op_perf_map_overlaps(addr, size, r->ranges,
						  r->nr_ranges))
		return true;
	if (!room(r, size)) {
		d->cut++;
		return true;
	}
	want = name_len > OP_PERF_MAP_NAME_MAX ? OP_PERF_MAP_NAME_MAX :
						  (size_t)name_len;
	p = get(&r->w, off + OP_JITDUMP_LOAD_SIZE, want);
	if (!p)
		return false;
	len = strnlen((char const *)p, want);
	if (!len) {
		problem(d, off, "a code load without a name");
		return true;
	}
	name = op_xmalloc(len + 1);
	memcpy(name, p, len);
	name[len] = '\0';
	l = NULL;
	{
		unsigned char *code = malloc((size_t)size);

		if (!code || !read_all(&r->w, code, (size_t)size,
				       off + OP_JITDUMP_LOAD_SIZE + name_len)) {
			if (code)
				d->truncated = true;
			free(code);
			free(name);
			return false;
		}
		OP_ALLOC_GROW(d->v, d->n + 1, d->alloc);
		l = &d->v[d->n++];
		*l = (struct op_jitdump_load){
			.addr = addr, .size = size, .index = index, .seq = seq,
			.name = name, .code = code,
		};
	}
	d->code_bytes += size;
	return true;
}

/* A CODE_MOVE: its load, found by index and old address, moves. */
static bool code_move(struct reader *r, uint64_t off, uint32_t tsz,
		      uint64_t seq)
{
	struct op_jitdump *d = r->d;
	unsigned char const *p;
	uint64_t old, new, size, index;

	if (tsz < OP_JITDUMP_MOVE_SIZE) {
		problem(d, off, "a code move of %u bytes, smaller than its "
			"fields", tsz);
		return false;
	}
	p = get(&r->w, off, OP_JITDUMP_MOVE_SIZE);
	if (!p)
		return false;
	d->moves++;
	old = rd64(p + 32);
	new = rd64(p + 40);
	size = rd64(p + 48);
	index = rd64(p + 56);
	for (size_t i = d->n; i-- > 0;) {
		struct op_jitdump_load *l = &d->v[i];

		if (!r->budget) {
			d->moves_lost++;
			return true;
		}
		r->budget--;
		if (l->addr != old || l->index != index)
			continue;
		if (l->size != size || new + l->size < new) {
			problem(d, off, "a code move of %llu bytes from %#llx, "
				"whose load has %llu", (unsigned long long)size,
				(unsigned long long)old,
				(unsigned long long)l->size);
			return true;
		}
		l->addr = new;
		l->seq = seq;
		if (r->nr_ranges && !op_perf_map_overlaps(new, l->size,
							  r->ranges,
							  r->nr_ranges)) {
			d->code_bytes -= l->size;
			load_free(l);
			d->v[i] = d->v[--d->n];
		}
		return true;
	}
	d->moves_lost++;
	return true;
}

int op_jitdump_read(struct op_jitdump *d, op_jitdump_pread_fn rd, void *ctx,
		    uint64_t size, struct op_perf_map_range const *ranges,
		    size_t nr_ranges, struct op_jitdump_limits const *lim,
		    char *err, size_t errlen)
{
	struct reader r = {
		.d = d, .ranges = ranges, .nr_ranges = nr_ranges,
		.lim = { OP_JITDUMP_MAX_BYTES, OP_JITDUMP_MAX_LOADS,
			 OP_JITDUMP_MAX_CODE },
		.compact = true, .budget = MOVE_BUDGET,
	};
	unsigned char const *p;
	uint64_t off, limit, seq = 0;
	uint32_t magic, hsize;
	int rc = 0;

	if (lim)
		r.lim = *lim;
	r.w = (struct window){ .rd = rd, .ctx = ctx, .size = size };
	/* a name is read whole within the window: at least that much */
	r.w.cap = size < WINDOW ? (size_t)size + OP_PERF_MAP_NAME_MAX : WINDOW;
	r.w.buf = op_xmalloc(r.w.cap);
	p = get(&r.w, 0, OP_JITDUMP_HEADER_SIZE);
	magic = p ? rd32(p) : 0;
	hsize = p ? rd32(p + 8) : 0;
	if (!p) {
		snprintf(err, errlen, "%llu bytes, shorter than a jitdump "
			 "header", (unsigned long long)size);
		rc = -1;
	} else if (magic == __builtin_bswap32(OP_JITDUMP_MAGIC)) {
		snprintf(err, errlen, "a jitdump of the other byte order "
			 "(written on another machine)");
		rc = -1;
	} else if (magic != OP_JITDUMP_MAGIC) {
		snprintf(err, errlen, "not a jitdump (magic %#x)", magic);
		rc = -1;
	} else if (rd32(p + 4) != 1) {
		snprintf(err, errlen, "jitdump version %u (this reads 1)",
			 rd32(p + 4));
		rc = -1;
	} else if (hsize < OP_JITDUMP_HEADER_SIZE || hsize > size) {
		snprintf(err, errlen, "a header size of %u bytes (the file "
			 "has %llu)", hsize, (unsigned long long)size);
		rc = -1;
	}
	if (rc) {
		free(r.w.buf);
		return rc;
	}
	d->elf_mach = rd32(p + 12);
	d->pid = rd32(p + 20);
	limit = size < r.lim.max_bytes ? size : r.lim.max_bytes;
	for (off = hsize; off < size; seq++) {
		uint32_t id, tsz;
		bool go;

		if (off + OP_JITDUMP_RECORD_SIZE > limit ||
		    !(p = get(&r.w, off, OP_JITDUMP_RECORD_SIZE))) {
			if (off + OP_JITDUMP_RECORD_SIZE > size)
				d->truncated = true;
			else
				d->bytes_cut = true;
			break;
		}
		id = rd32(p);
		tsz = rd32(p + 4);
		if (tsz < OP_JITDUMP_RECORD_SIZE) {
			problem(d, off, "a record of %u bytes, smaller than a "
				"record header", tsz);
			break;
		}
		if (tsz > size - off) {
			d->truncated = true;
			problem(d, off, "a record of %u bytes past the file's "
				"end (%llu bytes)", tsz,
				(unsigned long long)size);
			break;
		}
		if (tsz > limit - off) {
			d->bytes_cut = true;
			break;
		}
		if (id == OP_JITDUMP_CODE_LOAD)
			go = code_load(&r, off, tsz, seq);
		else if (id == OP_JITDUMP_CODE_MOVE)
			go = code_move(&r, off, tsz, seq);
		else {
			go = true;
			d->debug_info += id == OP_JITDUMP_DEBUG_INFO;
		}
		if (!go)
			break;
		d->records++;
		off += tsz;
	}
	resolve(d);
	free(r.w.buf);
	return 0;
}

static ssize_t fd_pread(void *ctx, void *buf, size_t len, uint64_t off)
{
	return pread(*(int *)ctx, buf, len, (off_t)off);
}

int op_jitdump_read_fd(struct op_jitdump *d, int fd,
		       struct op_perf_map_range const *ranges, size_t nr_ranges,
		       struct op_jitdump_limits const *lim, char *err,
		       size_t errlen)
{
	struct stat st;

	if (fstat(fd, &st)) {
		snprintf(err, errlen, "%s", strerror(errno));
		return -1;
	}
	return op_jitdump_read(d, fd_pread, &fd, (uint64_t)st.st_size, ranges,
			       nr_ranges, lim, err, errlen);
}

struct mem {
	unsigned char const *buf;
	size_t len;
};

static ssize_t mem_pread(void *ctx, void *buf, size_t len, uint64_t off)
{
	struct mem const *m = ctx;

	if (off >= m->len)
		return 0;
	if (len > m->len - off)
		len = (size_t)(m->len - off);
	memcpy(buf, m->buf + off, len);
	return (ssize_t)len;
}

int op_jitdump_read_mem(struct op_jitdump *d, void const *buf, size_t len,
			struct op_perf_map_range const *ranges,
			size_t nr_ranges, struct op_jitdump_limits const *lim,
			char *err, size_t errlen)
{
	struct mem m = { buf, len };

	return op_jitdump_read(d, mem_pread, &m, len, ranges, nr_ranges, lim,
			       err, errlen);
}

struct op_jitdump_load const *op_jitdump_find(struct op_jitdump const *d,
					      uint64_t addr)
{
	size_t lo = 0, hi = d->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (d->v[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo && addr - d->v[lo - 1].addr < d->v[lo - 1].size)
		return &d->v[lo - 1];
	return NULL;
}

void op_jitdump_free(struct op_jitdump *d)
{
	for (size_t i = 0; i < d->n; i++)
		load_free(&d->v[i]);
	free(d->v);
	memset(d, 0, sizeof(*d));
}

/* --- the ELF file ---------------------------------------------------- */

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define HOST_ELFDATA ELFDATA2LSB
#else
#define HOST_ELFDATA ELFDATA2MSB
#endif

static size_t align_up(size_t v, size_t a)
{
	return (v + a - 1) / a * a;
}

unsigned char *op_jitdump_elf(struct op_jitdump const *d, size_t *len,
			      size_t *left_out)
{
	static char const shstr[] = "\0.text\0.symtab\0.strtab\0.shstrtab";
	enum { N_TEXT = 1, N_SYMTAB = 7, N_STRTAB = 15, N_SHSTRTAB = 23 };
	size_t nsec = 0, nload = 0, strsz = 1, off, text_off, sym_off, str_off;
	size_t shstr_off, sh_off, total, nsh, si, ci;
	unsigned char *out;
	Elf64_Ehdr eh;
	Elf64_Shdr sh;

	/* the runs of loads: as many as fit the section bound */
	for (size_t i = 0; i < d->n; i++) {
		if (!i || d->v[i].addr - (d->v[i - 1].addr + d->v[i - 1].size) >=
			  OP_JITDUMP_ELF_GAP) {
			if (nsec == OP_JITDUMP_ELF_SECTIONS)
				break;
			nsec++;
		}
		nload++;
		strsz += strlen(d->v[i].name) + 1;
	}
	*left_out = d->n - nload;
	/* the code of the runs, each at a 16-byte aligned file position */
	off = text_off = sizeof(Elf64_Ehdr);
	for (size_t i = 0; i < nload; i++) {
		bool first = !i || d->v[i].addr - (d->v[i - 1].addr +
				   d->v[i - 1].size) >= OP_JITDUMP_ELF_GAP;

		if (first)
			off = align_up(off, 16);
		else
			off += (size_t)(d->v[i].addr - (d->v[i - 1].addr +
							d->v[i - 1].size));
		off += (size_t)d->v[i].size;
	}
	sym_off = align_up(off, 8);
	str_off = sym_off + (nload + 1) * sizeof(Elf64_Sym);
	shstr_off = str_off + strsz;
	sh_off = align_up(shstr_off + sizeof(shstr), 8);
	nsh = 1 + nsec + 3;
	total = sh_off + nsh * sizeof(Elf64_Shdr);
	out = op_xcalloc(1, total);

	memset(&eh, 0, sizeof(eh));
	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = ELFCLASS64;
	eh.e_ident[EI_DATA] = HOST_ELFDATA;
	eh.e_ident[EI_VERSION] = EV_CURRENT;
	eh.e_type = ET_EXEC;
	eh.e_machine = (Elf64_Half)d->elf_mach;
	eh.e_version = EV_CURRENT;
	eh.e_shoff = sh_off;
	eh.e_ehsize = sizeof(Elf64_Ehdr);
	eh.e_shentsize = sizeof(Elf64_Shdr);
	eh.e_shnum = (Elf64_Half)nsh;
	eh.e_shstrndx = (Elf64_Half)(nsh - 1);
	memcpy(out, &eh, sizeof(eh));

	/* the code, its sections, its symbols */
	off = text_off;
	si = 1 + nsec;          /* the section header of .symtab */
	ci = 0;                 /* the section of the current run */
	{
		size_t name_at = 1;
		bool run = false;       /* sh holds the current run's header */
		for (size_t i = 0; i < nload; i++) {
			struct op_jitdump_load const *l = &d->v[i];
			bool first = !i || l->addr - (d->v[i - 1].addr +
				      d->v[i - 1].size) >= OP_JITDUMP_ELF_GAP;
			Elf64_Sym sym;

			if (first) {
				if (run)
					memcpy(out + sh_off + ci *
					       sizeof(Elf64_Shdr), &sh,
					       sizeof(sh));
				off = align_up(off, 16);
				ci++;
				memset(&sh, 0, sizeof(sh));
				sh.sh_name = N_TEXT;
				sh.sh_type = SHT_PROGBITS;
				sh.sh_flags = SHF_ALLOC | SHF_EXECINSTR;
				sh.sh_addr = l->addr;
				sh.sh_offset = off;
				sh.sh_addralign = 1;
				run = true;
			} else {
				off += (size_t)(l->addr - (d->v[i - 1].addr +
							   d->v[i - 1].size));
			}
			memcpy(out + off, l->code, (size_t)l->size);
			off += (size_t)l->size;
			sh.sh_size = l->addr + l->size - sh.sh_addr;
			memset(&sym, 0, sizeof(sym));
			sym.st_name = (Elf64_Word)name_at;
			sym.st_info = ELF64_ST_INFO(STB_GLOBAL, STT_FUNC);
			sym.st_shndx = (Elf64_Half)ci;
			sym.st_value = l->addr;
			sym.st_size = l->size;
			memcpy(out + sym_off + (i + 1) * sizeof(sym), &sym,
			       sizeof(sym));
			strcpy((char *)out + str_off + name_at, l->name);
			name_at += strlen(l->name) + 1;
		}
		if (run)
			memcpy(out + sh_off + ci * sizeof(Elf64_Shdr), &sh,
			       sizeof(sh));
	}
	memset(&sh, 0, sizeof(sh));
	sh.sh_name = N_SYMTAB;
	sh.sh_type = SHT_SYMTAB;
	sh.sh_offset = sym_off;
	sh.sh_size = (nload + 1) * sizeof(Elf64_Sym);
	sh.sh_link = (Elf64_Word)(si + 1);
	sh.sh_info = 1;
	sh.sh_addralign = 8;
	sh.sh_entsize = sizeof(Elf64_Sym);
	memcpy(out + sh_off + si * sizeof(sh), &sh, sizeof(sh));
	memset(&sh, 0, sizeof(sh));
	sh.sh_name = N_STRTAB;
	sh.sh_type = SHT_STRTAB;
	sh.sh_offset = str_off;
	sh.sh_size = strsz;
	sh.sh_addralign = 1;
	memcpy(out + sh_off + (si + 1) * sizeof(sh), &sh, sizeof(sh));
	memset(&sh, 0, sizeof(sh));
	sh.sh_name = N_SHSTRTAB;
	sh.sh_type = SHT_STRTAB;
	sh.sh_offset = shstr_off;
	sh.sh_size = sizeof(shstr);
	sh.sh_addralign = 1;
	memcpy(out + shstr_off, shstr, sizeof(shstr));
	memcpy(out + sh_off + (si + 2) * sizeof(sh), &sh, sizeof(sh));
	*len = total;
	return out;
}
