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
	free(l->lines);
}

/* A kept load let go of: its counts go with it. */
static void drop(struct op_jitdump *d, struct op_jitdump_load *l)
{
	d->code_bytes -= l->size;
	d->nr_lines -= l->nr_lines;
	load_free(l);
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
					drop(d, prev);
					*prev = *l;
				} else {
					drop(d, l);
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
	/* the last DEBUG_INFO's entries, for the load that follows */
	bool has_pend;
	uint64_t pend_addr;
	struct op_jitdump_line *pend;
	size_t pend_n, pend_alloc;
};

static uint64_t hash_bytes(unsigned char const *s, size_t len)
{
	uint64_t h = 1469598103934665603ull;

	for (size_t i = 0; i < len; i++)
		h = (h ^ s[i]) * 1099511628211ull;
	return h;
}

static void hash_put(size_t *tab, size_t size, uint64_t h, size_t idx)
{
	size_t i = (size_t)h & (size - 1);

	while (tab[i])
		i = (i + 1) & (size - 1);
	tab[i] = idx + 1;
}

/* The index of file name s in d->files (added once), UINT32_MAX when
 * empty or past OP_JITDUMP_MAX_FILES bytes. */
static uint32_t intern(struct op_jitdump *d, unsigned char const *s,
		       size_t len)
{
	uint64_t h = hash_bytes(s, len);
	size_t i;
	char *f;

	if (!len)
		return UINT32_MAX;
	if ((d->nr_files + 1) * 2 > d->hash_size) {
		size_t size = d->hash_size ? d->hash_size * 2 : 64;
		size_t *tab = op_xcalloc(size, sizeof(*tab));

		for (size_t k = 0; k < d->nr_files; k++)
			hash_put(tab, size, hash_bytes((unsigned char *)
				 d->files[k], strlen(d->files[k])), k);
		free(d->file_hash);
		d->file_hash = tab;
		d->hash_size = size;
	}
	for (i = (size_t)h & (d->hash_size - 1); d->file_hash[i];
	     i = (i + 1) & (d->hash_size - 1)) {
		char const *g = d->files[d->file_hash[i] - 1];

		if (strlen(g) == len && !memcmp(g, s, len))
			return (uint32_t)(d->file_hash[i] - 1);
	}
	if (d->file_bytes + len + 1 > OP_JITDUMP_MAX_FILES)
		return UINT32_MAX;
	f = op_xmalloc(len + 1);
	memcpy(f, s, len);
	f[len] = '\0';
	OP_ALLOC_GROW(d->files, d->nr_files + 1, d->alloc_files);
	d->files[d->nr_files] = f;
	d->file_hash[i] = ++d->nr_files;
	d->file_bytes += len + 1;
	return (uint32_t)(d->nr_files - 1);
}

/*
 * A DEBUG_INFO at off, tsz bytes long: its entries wait for the load of
 * their code_addr, which follows. An entry that does not fit ends the
 * record's entries (said); the next record is read.
 */
static bool debug_info(struct reader *r, uint64_t off, uint32_t tsz)
{
	struct op_jitdump *d = r->d;
	unsigned char const *p;
	uint64_t code_addr, nr, pos, end = off + tsz;
	uint32_t prev = UINT32_MAX;

	d->debug_info++;
	r->has_pend = false;
	r->pend_n = 0;
	if (tsz < 32) {
		problem(d, off, "a debug info record of %u bytes, smaller "
			"than its fields", tsz);
		return false;
	}
	p = get(&r->w, off, 32);
	if (!p)
		return false;
	code_addr = rd64(p + 16);
	nr = rd64(p + 24);
	if (r->nr_ranges && !op_perf_map_overlaps(code_addr, 1, r->ranges,
						  r->nr_ranges))
		return true;
	pos = off + 32;
	for (uint64_t i = 0; i < nr && pos < end; i++) {
		uint64_t addr;
		int32_t line;
		size_t want, len;
		unsigned char const *nul;
		uint32_t file;

		if (end - pos < 17) {
			problem(d, off, "a debug entry past its record");
			break;
		}
		p = get(&r->w, pos, 16);
		if (!p)
			return false;
		addr = rd64(p);
		line = (int32_t)rd32(p + 8);
		pos += 16;
		want = end - pos > OP_PERF_MAP_NAME_MAX + 1 ?
		       OP_PERF_MAP_NAME_MAX + 1 : (size_t)(end - pos);
		p = get(&r->w, pos, want);
		if (!p)
			return false;
		nul = memchr(p, '\0', want);
		if (!nul) {
			problem(d, off, "a debug entry's file name without its "
				"NUL in %zu bytes", want);
			break;
		}
		len = (size_t)(nul - p);
		pos += len + 1;
		/* "\xff": the previous entry's file */
		file = len == 1 && p[0] == 0xff ? prev : intern(d, p, len);
		if (file == UINT32_MAX && len && !(len == 1 && p[0] == 0xff))
			d->lines_cut++;
		prev = file;
		if (line <= 0 || file == UINT32_MAX)
			continue;
		if (d->nr_lines + r->pend_n >= OP_JITDUMP_MAX_LINES) {
			d->lines_cut++;
			continue;
		}
		OP_ALLOC_GROW(r->pend, r->pend_n + 1, r->pend_alloc);
		r->pend[r->pend_n++] = (struct op_jitdump_line){
			addr, (uint32_t)line, file };
	}
	r->has_pend = true;
	r->pend_addr = code_addr;
	return true;
}

static int line_by_addr(void const *a, void const *b)
{
	struct op_jitdump_line const *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* The waiting entries inside load l become its lines. */
static void take_lines(struct reader *r, struct op_jitdump_load *l)
{
	size_t n = 0;

	if (!r->has_pend || r->pend_addr != l->addr)
		return;
	for (size_t i = 0; i < r->pend_n; i++)
		if (r->pend[i].addr - l->addr < l->size)
			r->pend[n++] = r->pend[i];
	if (!n)
		return;
	l->lines = op_xmalloc(n * sizeof(*l->lines));
	memcpy(l->lines, r->pend, n * sizeof(*l->lines));
	qsort(l->lines, n, sizeof(*l->lines), line_by_addr);
	l->nr_lines = n;
	r->d->nr_lines += n;
}

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
	take_lines(r, l);
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
		for (size_t k = 0; k < l->nr_lines; k++)
			l->lines[k].addr = l->lines[k].addr - old + new;
		l->addr = new;
		l->seq = seq;
		if (r->nr_ranges && !op_perf_map_overlaps(new, l->size,
							  r->ranges,
							  r->nr_ranges)) {
			drop(d, l);
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
		if (id == OP_JITDUMP_CODE_LOAD) {
			go = code_load(&r, off, tsz, seq);
			r.has_pend = false;
		} else if (id == OP_JITDUMP_CODE_MOVE) {
			go = code_move(&r, off, tsz, seq);
		} else if (id == OP_JITDUMP_DEBUG_INFO) {
			go = debug_info(&r, off, tsz);
		} else {
			go = true;
		}
		if (!go)
			break;
		d->records++;
		off += tsz;
	}
	resolve(d);
	free(r.w.buf);
	free(r.pend);
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

static int load_at_or_below(void const *elem, void const *key)
{
	return ((struct op_jitdump_load const *)elem)->addr <=
	       *(uint64_t const *)key;
}

struct op_jitdump_load const *op_jitdump_find(struct op_jitdump const *d,
					      uint64_t addr)
{
	/* the last load starting at or below addr */
	size_t lo = op_partition_point(d->v, d->n, sizeof(d->v[0]),
				       load_at_or_below, &addr);

	if (lo && addr - d->v[lo - 1].addr < d->v[lo - 1].size)
		return &d->v[lo - 1];
	return NULL;
}

void op_jitdump_free(struct op_jitdump *d)
{
	for (size_t i = 0; i < d->n; i++)
		load_free(&d->v[i]);
	free(d->v);
	for (size_t i = 0; i < d->nr_files; i++)
		free(d->files[i]);
	free(d->files);
	free(d->file_hash);
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

struct bytes {
	unsigned char *p;
	size_t n, alloc;
};

static void b_put(struct bytes *b, void const *v, size_t len)
{
	OP_ALLOC_GROW(b->p, b->n + len, b->alloc);
	memcpy(b->p + b->n, v, len);
	b->n += len;
}

static void b_u8(struct bytes *b, unsigned v)
{
	unsigned char c = (unsigned char)v;

	b_put(b, &c, 1);
}

static void b_uleb(struct bytes *b, uint64_t v)
{
	do {
		unsigned char c = v & 0x7f;

		v >>= 7;
		b_u8(b, c | (v ? 0x80 : 0));
	} while (v);
}

static void b_sleb(struct bytes *b, int64_t v)
{
	for (;;) {
		unsigned char c = v & 0x7f;

		v >>= 7;    /* arithmetic: gcc and clang */
		if ((v == 0 && !(c & 0x40)) || (v == -1 && (c & 0x40))) {
			b_u8(b, c);
			return;
		}
		b_u8(b, c | 0x80);
	}
}

/* Whether load i starts a new run of code (a .text section). */
static bool starts_run(struct op_jitdump const *d, size_t i)
{
	return !i || d->v[i].addr - (d->v[i - 1].addr + d->v[i - 1].size) >=
		     OP_JITDUMP_ELF_GAP;
}

/*
 * The DWARF 2 of the first nload loads' lines: one compile unit spanning
 * [lo, hi), its line program a sequence per load with lines.
 */
static void dwarf(struct op_jitdump const *d, size_t nload,
		  struct bytes *abbrev, struct bytes *info, struct bytes *line)
{
	static unsigned char const ab[] = {
		1, 0x11, 0,             /* 1: DW_TAG_compile_unit, no children */
		0x03, 0x08,             /* DW_AT_name, DW_FORM_string */
		0x10, 0x06,             /* DW_AT_stmt_list, DW_FORM_data4 */
		0x11, 0x01,             /* DW_AT_low_pc, DW_FORM_addr */
		0x12, 0x01,             /* DW_AT_high_pc, DW_FORM_addr */
		0, 0, 0,
	};
	static unsigned char const std_lengths[12] = {
		0, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 1 };
	uint64_t lo = d->v[0].addr;
	uint64_t hi = d->v[nload - 1].addr + d->v[nload - 1].size;
	uint32_t u32;
	uint16_t u16;
	size_t hdr_at, len_at;

	b_put(abbrev, ab, sizeof(ab));

	u32 = 2 + 4 + 1 + 1 + 4 + 4 + 8 + 8;
	b_put(info, &u32, 4);
	u16 = 2;
	b_put(info, &u16, 2);
	u32 = 0;
	b_put(info, &u32, 4);   /* its abbreviations at 0 */
	b_u8(info, 8);
	b_u8(info, 1);
	b_put(info, "jit", 4);
	b_put(info, &u32, 4);   /* its line program at 0 */
	b_put(info, &lo, 8);
	b_put(info, &hi, 8);

	b_put(line, &u32, 4);   /* unit_length, set below */
	b_put(line, &u16, 2);
	hdr_at = line->n;
	b_put(line, &u32, 4);   /* header_length, set below */
	b_u8(line, 1);          /* minimum_instruction_length */
	b_u8(line, 1);          /* default_is_stmt */
	b_u8(line, (unsigned char)-5);  /* line_base */
	b_u8(line, 14);         /* line_range */
	b_u8(line, 13);         /* opcode_base */
	b_put(line, std_lengths, sizeof(std_lengths));
	b_u8(line, 0);          /* no include directories */
	for (size_t f = 0; f < d->nr_files; f++) {
		b_put(line, d->files[f], strlen(d->files[f]) + 1);
		b_u8(line, 0);
		b_u8(line, 0);
		b_u8(line, 0);
	}
	b_u8(line, 0);
	u32 = (uint32_t)(line->n - hdr_at - 4);
	memcpy(line->p + hdr_at, &u32, 4);
	for (size_t i = 0; i < nload; i++) {
		struct op_jitdump_load const *l = &d->v[i];
		uint64_t addr;
		int64_t ln = 1;
		uint32_t file = 0;

		if (!l->nr_lines)
			continue;
		addr = l->lines[0].addr;
		b_u8(line, 0);          /* DW_LNE_set_address */
		b_uleb(line, 9);
		b_u8(line, 2);
		b_put(line, &addr, 8);
		for (size_t k = 0; k < l->nr_lines; k++) {
			struct op_jitdump_line const *e = &l->lines[k];

			if (!k || e->file != file) {
				b_u8(line, 4);  /* DW_LNS_set_file */
				b_uleb(line, (uint64_t)e->file + 1);
				file = e->file;
			}
			if ((int64_t)e->line != ln) {
				b_u8(line, 3);  /* DW_LNS_advance_line */
				b_sleb(line, (int64_t)e->line - ln);
				ln = e->line;
			}
			if (e->addr != addr) {
				b_u8(line, 2);  /* DW_LNS_advance_pc */
				b_uleb(line, e->addr - addr);
				addr = e->addr;
			}
			b_u8(line, 1);          /* DW_LNS_copy */
		}
		b_u8(line, 2);
		b_uleb(line, l->addr + l->size - addr);
		b_u8(line, 0);          /* DW_LNE_end_sequence */
		b_uleb(line, 1);
		b_u8(line, 1);
	}
	len_at = 0;
	u32 = (uint32_t)(line->n - 4);
	memcpy(line->p + len_at, &u32, 4);
}

static void shdr(unsigned char *out, size_t at, Elf64_Word name,
		 Elf64_Word type, Elf64_Xword flags, Elf64_Addr addr,
		 Elf64_Off off, Elf64_Xword size, Elf64_Word link,
		 Elf64_Word info, Elf64_Xword align, Elf64_Xword entsize)
{
	Elf64_Shdr sh = {
		.sh_name = name, .sh_type = type, .sh_flags = flags,
		.sh_addr = addr, .sh_offset = off, .sh_size = size,
		.sh_link = link, .sh_info = info, .sh_addralign = align,
		.sh_entsize = entsize,
	};

	memcpy(out + at, &sh, sizeof(sh));
}

unsigned char *op_jitdump_elf(struct op_jitdump const *d, size_t *len,
			      size_t *left_out)
{
	static char const shstr[] = "\0.text\0.symtab\0.strtab\0.shstrtab"
		"\0.debug_abbrev\0.debug_info\0.debug_line";
	enum { N_TEXT = 1, N_SYMTAB = 7, N_STRTAB = 15, N_SHSTRTAB = 23,
	       N_ABBREV = 33, N_INFO = 47, N_LINE = 59 };
	struct bytes abbrev = { 0 }, info = { 0 }, line = { 0 };
	size_t nsec = 0, nload = 0, strsz = 1, off, sym_off, str_off;
	size_t ab_off = 0, info_off = 0, line_off = 0, shstr_off, sh_off;
	size_t total, nsh, si, ci, name_at;
	bool lines = false;
	unsigned char *out;
	Elf64_Ehdr eh;

	/* the runs of loads: as many as fit the section bound */
	for (size_t i = 0; i < d->n; i++) {
		if (starts_run(d, i)) {
			if (nsec == OP_JITDUMP_ELF_SECTIONS)
				break;
			nsec++;
		}
		nload++;
		strsz += strlen(d->v[i].name) + 1;
		lines = lines || d->v[i].nr_lines;
	}
	*left_out = d->n - nload;
	if (lines)
		dwarf(d, nload, &abbrev, &info, &line);
	/* the code of the runs, each at a 16-byte aligned file position */
	off = sizeof(Elf64_Ehdr);
	for (size_t i = 0; i < nload; i++) {
		if (starts_run(d, i))
			off = align_up(off, 16);
		else
			off += (size_t)(d->v[i].addr - (d->v[i - 1].addr +
							d->v[i - 1].size));
		off += (size_t)d->v[i].size;
	}
	sym_off = align_up(off, 8);
	str_off = sym_off + (nload + 1) * sizeof(Elf64_Sym);
	off = str_off + strsz;
	if (lines) {
		ab_off = off;
		info_off = ab_off + abbrev.n;
		line_off = info_off + info.n;
		off = line_off + line.n;
	}
	shstr_off = off;
	sh_off = align_up(shstr_off + sizeof(shstr), 8);
	nsh = 1 + nsec + 2 + (lines ? 3 : 0) + 1;
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

	/* the code, a section per run, a symbol per load */
	off = sizeof(Elf64_Ehdr);
	ci = 0;
	name_at = 1;
	for (size_t i = 0; i < nload; i++) {
		struct op_jitdump_load const *l = &d->v[i];
		Elf64_Sym sym;
		size_t run_off;
		uint64_t run_addr;

		if (starts_run(d, i)) {
			off = align_up(off, 16);
			ci++;
		} else {
			off += (size_t)(l->addr - (d->v[i - 1].addr +
						   d->v[i - 1].size));
		}
		memcpy(out + off, l->code, (size_t)l->size);
		off += (size_t)l->size;
		/* the run's header, rewritten as it grows */
		{
			Elf64_Shdr sh;

			memcpy(&sh, out + sh_off + ci * sizeof(sh), sizeof(sh));
			run_addr = starts_run(d, i) ? l->addr : sh.sh_addr;
			run_off = starts_run(d, i) ? off - (size_t)l->size :
				  (size_t)sh.sh_offset;
		}
		shdr(out, sh_off + ci * sizeof(Elf64_Shdr), N_TEXT,
		     SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR, run_addr,
		     run_off, l->addr + l->size - run_addr, 0, 0, 1, 0);
		memset(&sym, 0, sizeof(sym));
		sym.st_name = (Elf64_Word)name_at;
		sym.st_info = ELF64_ST_INFO(STB_GLOBAL, STT_FUNC);
		sym.st_shndx = (Elf64_Half)ci;
		sym.st_value = l->addr;
		sym.st_size = l->size;
		memcpy(out + sym_off + (i + 1) * sizeof(sym), &sym, sizeof(sym));
		strcpy((char *)out + str_off + name_at, l->name);
		name_at += strlen(l->name) + 1;
	}
	si = 1 + nsec;
	shdr(out, sh_off + si * sizeof(Elf64_Shdr), N_SYMTAB, SHT_SYMTAB, 0,
	     0, sym_off, (nload + 1) * sizeof(Elf64_Sym), (Elf64_Word)(si + 1),
	     1, 8, sizeof(Elf64_Sym));
	shdr(out, sh_off + (si + 1) * sizeof(Elf64_Shdr), N_STRTAB,
	     SHT_STRTAB, 0, 0, str_off, strsz, 0, 0, 1, 0);
	si += 2;
	if (lines) {
		memcpy(out + ab_off, abbrev.p, abbrev.n);
		memcpy(out + info_off, info.p, info.n);
		memcpy(out + line_off, line.p, line.n);
		shdr(out, sh_off + si++ * sizeof(Elf64_Shdr), N_ABBREV,
		     SHT_PROGBITS, 0, 0, ab_off, abbrev.n, 0, 0, 1, 0);
		shdr(out, sh_off + si++ * sizeof(Elf64_Shdr), N_INFO,
		     SHT_PROGBITS, 0, 0, info_off, info.n, 0, 0, 1, 0);
		shdr(out, sh_off + si++ * sizeof(Elf64_Shdr), N_LINE,
		     SHT_PROGBITS, 0, 0, line_off, line.n, 0, 0, 1, 0);
	}
	memcpy(out + shstr_off, shstr, sizeof(shstr));
	shdr(out, sh_off + si * sizeof(Elf64_Shdr), N_SHSTRTAB, SHT_STRTAB, 0,
	     0, shstr_off, sizeof(shstr), 0, 0, 1, 0);
	free(abbrev.p);
	free(info.p);
	free(line.p);
	*len = total;
	return out;
}
