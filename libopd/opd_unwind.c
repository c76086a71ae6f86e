/*
 * CFI unwinding of user stacks (opd_unwind.h). One entry per binary: its ELF
 * handle, loadable segments (file offset -> link-time address) and CFI,
 * opened at the binary's first frame and kept. No descriptor is kept: the
 * ELF handles are mmap'ed (or read whole) at their open, and the file is
 * closed at once: a descriptor per binary would run a daemon under a
 * low RLIMIT_NOFILE out of them.
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "op_build_id.h"
#include "op_file.h"
#include "op_hashmap.h"
#include "op_message.h"
#include "op_stacks.h"
#include "op_util.h"
#include "opd_unwind.h"

#define MAX_SEGS 16
/*
 * Bounds: binaries kept open (each holds its ELF and CFI handles and their
 * mappings, no fd; the least recently used one is closed for a new one), and
 * compiled rows per binary (a full table is emptied and refilled from
 * the rows in use). Counted in stats/: unwind_binaries_evicted,
 * unwind_rules_flushed. Qsort_cb's stacks use ~40 rows, a system-wide
 * minute of this machine ~200 binaries.
 */
#define MAX_BINARIES 256
#define RETRY_MAX 1024	/* lookups between two opens of an unreadable binary */
#define MAX_RULES 8192
#define REG_BP 6	/* DWARF register numbers, x86-64 */
#define REG_SP 7
#define REG_RA 16

struct seg {
	uint64_t offset, vaddr, size;
};

/*
 * A CFI row compiled once, kept per binary for the row's whole address
 * range [lo, hi) (dwarf_frame_info), so that any pc in it, not only the
 * same pc, is a binary search away and libdw is asked once per row. The
 * common shape is applied by us (RULE_SIMPLE); other rows keep libdw's
 * frame for evaluation (RULE_SLOW), without looking it up again.
 */
enum rule_kind { RULE_SIMPLE, RULE_ROOT, RULE_NO_CFI, RULE_SLOW };
enum bp_how { BP_SAME, BP_UNDEFINED, BP_SAVED };

struct rule {
	uint64_t lo, hi;
	Dwarf_Frame *frame;	/* RULE_SLOW: libdw's row, evaluated each time */
	int32_t cfa_off, ra_off, bp_off;
	uint8_t kind;		/* enum rule_kind */
	uint8_t cfa_slot;	/* 0: rbp, 1: rsp */
	uint8_t bp_how;		/* enum bp_how */
	bool signal;
};

struct binary {
	struct op_hashmap_entry ent;
	struct rule *rules;	/* sorted by lo, not overlapping */
	size_t nrules, rules_cap;
	uint64_t used;		/* the cache's clock at its last step */
	unsigned long key;
	Elf *elf, *dbg_elf;
	Dwarf *dbg;		/* .debug_frame: the binary's or its debug file's */
	Dwarf_CFI *eh;		/* .eh_frame */
	Dwarf_CFI *df;		/* .debug_frame */
	struct seg segs[MAX_SEGS];
	int nsegs;
	/* the file could not be opened or read (EMFILE, ENOMEM...): tried
	 * again at its retry_at-th lookup, the wait doubling up to
	 * RETRY_MAX, not taken for a binary without CFI for good */
	bool unreadable;
	uint32_t lookups, retry_at;
};

struct unwind_cache {
	struct op_hashmap bins;
	struct binary *last;	/* the binary of the last step */
	uint64_t clock;		/* steps, for the least recently used binary */
	struct unwind_stats stats;
	struct unwind_taken taken;	/* stats already taken */
	size_t max_binaries, max_rules;
};

static int bin_cmp(void const *data, struct op_hashmap_entry const *a,
		   struct op_hashmap_entry const *b, void const *key)
{
	(void)data;
	(void)key;
	return OP_HASHMAP_ENTRY(a, struct binary, ent)->key !=
	       OP_HASHMAP_ENTRY(b, struct binary, ent)->key;
}

struct unwind_cache *opd_unwind_cache_new(void)
{
	return opd_unwind_cache_new_bounded(MAX_BINARIES, MAX_RULES);
}

struct unwind_cache *opd_unwind_cache_new_bounded(size_t binaries, size_t rules)
{
	struct unwind_cache *uc = op_xcalloc(1, sizeof(*uc));

	uc->max_binaries = binaries ? binaries : 1;
	uc->max_rules = rules ? rules : 1;
	elf_version(EV_CURRENT);
	op_hashmap_init(&uc->bins, bin_cmp, NULL, 0);
	return uc;
}

static void rules_clear(struct binary *b)
{
	for (size_t i = 0; i < b->nrules; i++)
		free(b->rules[i].frame);
	b->nrules = 0;
}

/* Its handles closed, as before the first open. */
static void bin_close(struct binary *b)
{
	rules_clear(b);
	if (b->eh)
		dwarf_cfi_end(b->eh);
	if (b->dbg)
		dwarf_end(b->dbg);
	if (b->dbg_elf)
		elf_end(b->dbg_elf);
	if (b->elf)
		elf_end(b->elf);
	b->eh = b->df = NULL;
	b->dbg = NULL;
	b->elf = b->dbg_elf = NULL;
	b->nsegs = 0;
}

static void bin_free(struct op_hashmap_entry *e)
{
	struct binary *b = OP_HASHMAP_ENTRY(e, struct binary, ent);

	bin_close(b);
	free(b->rules);
	free(b);
}

void opd_unwind_cache_free(struct unwind_cache *uc)
{
	if (!uc)
		return;
	op_hashmap_clear(&uc->bins, bin_free);
	free(uc);
}

/* the perf source forgets unmapped binaries, so that binaries built, run
 * and deleted do not pile up in the cache */
void opd_unwind_cache_forget(struct unwind_cache *uc, unsigned long key)
{
	struct binary probe = { .key = key };
	struct op_hashmap_entry *e;

	if (!uc)
		return;
	op_hashmap_entry_init(&probe.ent, op_hash_u64(key));
	e = op_hashmap_remove(&uc->bins, &probe.ent, NULL);
	if (!e)
		return;
	if (uc->last == OP_HASHMAP_ENTRY(e, struct binary, ent))
		uc->last = NULL;
	bin_free(e);
}

struct unwind_stats const *opd_unwind_cache_stats(struct unwind_cache const *uc)
{
	return &uc->stats;
}

void opd_unwind_cache_take(struct unwind_cache *uc, struct unwind_taken *t)
{
	t->binaries_evicted = uc->stats.binaries_evicted -
			      uc->taken.binaries_evicted;
	t->rules_flushed = uc->stats.rules_flushed - uc->taken.rules_flushed;
	t->no_mapping = uc->stats.no_mapping - uc->taken.no_mapping;
	uc->taken.binaries_evicted = uc->stats.binaries_evicted;
	uc->taken.rules_flushed = uc->stats.rules_flushed;
	uc->taken.no_mapping = uc->stats.no_mapping;
}

static void read_segments(struct binary *b)
{
	size_t n, i;

	if (elf_getphdrnum(b->elf, &n))
		return;
	for (i = 0; i < n && b->nsegs < MAX_SEGS; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(b->elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		b->segs[b->nsegs++] = (struct seg){
			ph.p_offset, ph.p_vaddr, ph.p_filesz
		};
	}
}

/* elf's section named name, with contents; NULL if none. */
static Elf_Scn *section(Elf *elf, char const *name)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		char const *n;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS)
			continue;
		n = elf_strptr(elf, shstrndx, sh.sh_name);
		if (n && !strcmp(n, name))
			return scn;
	}
	return NULL;
}

static bool has_section(Elf *elf, char const *name)
{
	return section(elf, name) != NULL;
}

/* The debug file .gnu_debuglink names (malloc'd), or NULL. */
static char *by_debuglink(Elf *elf, char const *path)
{
	Elf_Scn *scn = section(elf, ".gnu_debuglink");
	Elf_Data *d = scn ? elf_getdata(scn, NULL) : NULL;
	char const *name;
	size_t len;
	uint32_t crc;

	if (!d || !d->d_buf || d->d_size < 8)
		return NULL;
	name = d->d_buf;
	len = strnlen(name, d->d_size);
	if (len == d->d_size || ((len + 4) & ~(size_t)3) + 4 > d->d_size)
		return NULL;
	memcpy(&crc, (char const *)d->d_buf + ((len + 4) & ~(size_t)3), 4);
	return op_debug_file_by_debuglink(path, name, crc);
}

/*
 * The ELF handle of path, holding no descriptor: ELF_C_FDREAD leaves an
 * mmap'ed file as it is (the mapping outlives the fd) and reads a file
 * that could not be mapped whole, so libelf never reads the fd again and
 * it is closed here. NULL with errno set (0: not readable as ELF).
 */
static Elf *elf_open(char const *path)
{
	/* a sampled binary or its debug file: never a FIFO or a device */
	int fd = op_open_regular(path, O_RDONLY);
	Elf *elf;

	if (fd < 0)
		return NULL;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf && elf_cntl(elf, ELF_C_FDREAD)) {
		elf_end(elf);
		elf = NULL;
	}
	close(fd);
	if (!elf)
		errno = 0;
	return elf;
}

/* .debug_frame of elf, or false. */
static bool open_debug_frame(struct binary *b, Elf *elf)
{
	if (!has_section(elf, ".debug_frame"))
		return false;
	b->dbg = dwarf_begin_elf(elf, DWARF_C_READ, NULL);
	if (b->dbg)
		b->df = dwarf_getcfi(b->dbg);
	return b->df != NULL;
}

/* The separate debug file (by build-id, then .gnu_debuglink), for its
 * .debug_frame. */
static void open_debug_file(struct binary *b, char const *path)
{
	char hex[OP_BUILD_ID_HEX_MAX];
	char *dpath = NULL;

	if (!op_build_id_of(path, hex))
		dpath = op_debug_file_by_build_id(hex);
	if (!dpath)
		dpath = by_debuglink(b->elf, path);
	if (!dpath)
		return;
	b->dbg_elf = elf_open(dpath);
	free(dpath);
	if (b->dbg_elf && !open_debug_frame(b, b->dbg_elf) && b->dbg) {
		dwarf_end(b->dbg);
		b->dbg = NULL;
	}
}

/* Close the least recently used binary: the cache is full. */
static void bin_evict(struct unwind_cache *uc)
{
	struct op_hashmap_iter it;
	struct op_hashmap_entry *e, *old = NULL;
	uint64_t oldest = UINT64_MAX;

	for (e = op_hashmap_iter_first(&uc->bins, &it); e;
	     e = op_hashmap_iter_next(&it)) {
		struct binary *b = OP_HASHMAP_ENTRY(e, struct binary, ent);

		if (b->used < oldest) {
			oldest = b->used;
			old = e;
		}
	}
	if (!old)
		return;
	op_hashmap_remove(&uc->bins, old, NULL);
	if (uc->last == OP_HASHMAP_ENTRY(old, struct binary, ent))
		uc->last = NULL;
	bin_free(old);
	uc->stats.binaries_evicted++;
}

/*
 * The binary's file, segments and CFI. A file that cannot be opened or
 * read now (out of fds or memory under load) is no verdict on its CFI:
 * kept as one, it would end every stack through it at its first frame
 * (no_cfi) for as long as its cookie lives.
 */
static void bin_load(struct unwind_cache *uc, struct binary *b,
		     char const *path)
{
	b->unreadable = false;
	if (!path)
		return;		/* no file (JIT): no CFI, for good */
	b->elf = elf_open(path);
	if (!b->elf) {
		if (!b->retry_at)
			op_warn("cannot read '%s' for its CFI (%s): its stacks "
				"stop there (no_cfi) until it is read again",
				path, errno ? strerror(errno) : elf_errmsg(-1));
		b->unreadable = true;
		if (!b->retry_at)
			b->retry_at = 1;
		uc->stats.unreadable++;
		bin_close(b);
		return;
	}
	if (elf_kind(b->elf) == ELF_K_ELF) {
		read_segments(b);
		b->eh = dwarf_getcfi_elf(b->elf);
		if (!open_debug_frame(b, b->elf))
			open_debug_file(b, path);
	}
}

static struct binary *bin_open(struct unwind_cache *uc,
			       struct unwind_map const *m)
{
	struct binary *b;

	if (op_hashmap_size(&uc->bins) >= uc->max_binaries)
		bin_evict(uc);
	b = op_xcalloc(1, sizeof(*b));

	b->key = m->key;
	op_hashmap_entry_init(&b->ent, op_hash_u64(m->key));
	op_hashmap_add(&uc->bins, &b->ent);
	uc->stats.binaries++;
	bin_load(uc, b, m->path);
	if (!b->eh && !b->df && !b->unreadable)
		uc->stats.no_cfi++;
	return b;
}

/* An unreadable binary read again after 1, 2, 4, ... RETRY_MAX more
 * lookups: a moment of fd or memory shortage passes, a missing file
 * costs one open per RETRY_MAX frames through it. */
static void bin_retry(struct unwind_cache *uc, struct binary *b,
		      char const *path)
{
	if (b->lookups++ < b->retry_at)
		return;
	b->lookups = 0;
	if (b->retry_at < RETRY_MAX)
		b->retry_at *= 2;
	bin_load(uc, b, path);
	if (!b->unreadable && !b->eh && !b->df)
		uc->stats.no_cfi++;
}

static struct binary *bin_get(struct unwind_cache *uc,
			      struct unwind_map const *m)
{
	struct binary key = { .key = m->key };
	struct op_hashmap_entry *e;
	struct binary *b = uc->last;

	if (!b || b->key != m->key) {
		op_hashmap_entry_init(&key.ent, op_hash_u64(m->key));
		e = op_hashmap_get(&uc->bins, &key.ent, NULL);
		b = e ? OP_HASHMAP_ENTRY(e, struct binary, ent) : bin_open(uc, m);
		uc->last = b;
	}
	if (b->unreadable)
		bin_retry(uc, b, m->path);
	b->used = ++uc->clock;
	return b;
}

/* The link-time address of file offset off; false if in no segment. */
static bool to_vaddr(struct binary const *b, uint64_t off, uint64_t *va)
{
	for (int i = 0; i < b->nsegs; i++) {
		struct seg const *s = &b->segs[i];

		if (off >= s->offset && off - s->offset < s->size) {
			*va = off - s->offset + s->vaddr;
			return true;
		}
	}
	return false;
}

/* --- evaluating the rules on the three registers we have --- */

struct state {
	uint64_t reg[3];	/* bp, sp, ip (REG_BP, REG_SP, REG_RA order) */
	bool known[3];
	struct unwind_stack const *stack;
};

static int reg_slot(uint64_t dwreg)
{
	switch (dwreg) {
	case REG_BP: return 0;
	case REG_SP: return 1;
	case REG_RA: return 2;
	default: return -1;
	}
}

static bool read_stack(struct unwind_stack const *s, uint64_t addr,
		       uint64_t *v)
{
	if (addr < s->sp || addr - s->sp > s->size || s->size - (addr - s->sp) < 8)
		return false;
	memcpy(v, s->data + (addr - s->sp), 8);
	return true;
}

#define EVAL_DEPTH 16

/*
 * Evaluate a DWARF expression (the subset CFI uses on x86-64). cfa: the
 * value of DW_OP_call_frame_cfa. *is_value: DW_OP_stack_value ended it
 * (else the result is an address). 0, or the stop reason.
 */
static unsigned eval(struct state const *st, Dwarf_Op const *ops,
		     size_t nops, uint64_t cfa, uint64_t *out, bool *is_value)
{
	uint64_t stk[EVAL_DEPTH];
	size_t sp = 0, i;

	*is_value = false;
	for (i = 0; i < nops; i++) {
		Dwarf_Op const *op = &ops[i];
		uint8_t a = op->atom;
		int slot;

		if (sp == EVAL_DEPTH)
			return OP_UNWIND_BAD_CFA;
		if (a >= DW_OP_breg0 && a <= DW_OP_breg0 + 31) {
			slot = reg_slot(a - DW_OP_breg0);
			if (slot < 0 || !st->known[slot])
				return OP_UNWIND_BAD_CFA;
			stk[sp++] = st->reg[slot] + op->number;
		} else if (a == DW_OP_bregx) {
			slot = reg_slot(op->number);
			if (slot < 0 || !st->known[slot])
				return OP_UNWIND_BAD_CFA;
			stk[sp++] = st->reg[slot] + op->number2;
		} else if (a >= DW_OP_reg0 && a <= DW_OP_reg0 + 31) {
			slot = reg_slot(a - DW_OP_reg0);
			if (slot < 0 || !st->known[slot])
				return OP_UNWIND_BAD_CFA;
			*out = st->reg[slot];
			*is_value = true;
			return 0;
		} else if (a >= DW_OP_lit0 && a <= DW_OP_lit0 + 31) {
			stk[sp++] = a - DW_OP_lit0;
		} else if (a == DW_OP_call_frame_cfa) {
			stk[sp++] = cfa;
		} else if (a == DW_OP_consts || a == DW_OP_constu ||
			   a == DW_OP_const1u || a == DW_OP_const1s ||
			   a == DW_OP_const2u || a == DW_OP_const2s ||
			   a == DW_OP_const4u || a == DW_OP_const4s ||
			   a == DW_OP_const8u || a == DW_OP_const8s) {
			stk[sp++] = op->number;
		} else if (a == DW_OP_stack_value) {
			*is_value = true;
			break;
		} else if (a == DW_OP_deref) {
			if (!sp)
				return OP_UNWIND_BAD_CFA;
			if (!read_stack(st->stack, stk[sp - 1], &stk[sp - 1]))
				return OP_UNWIND_STACK_END;
		} else if (a == DW_OP_plus_uconst) {
			if (!sp)
				return OP_UNWIND_BAD_CFA;
			stk[sp - 1] += op->number;
		} else if (sp >= 2 && (a == DW_OP_plus || a == DW_OP_minus ||
				       a == DW_OP_and || a == DW_OP_or ||
				       a == DW_OP_shl || a == DW_OP_shr ||
				       a == DW_OP_ge || a == DW_OP_gt ||
				       a == DW_OP_le || a == DW_OP_lt ||
				       a == DW_OP_eq || a == DW_OP_ne ||
				       a == DW_OP_mul)) {
			uint64_t y = stk[--sp], x = stk[sp - 1], r;
			int64_t sx = (int64_t)x, sy = (int64_t)y;

			switch (a) {
			case DW_OP_plus: r = x + y; break;
			case DW_OP_minus: r = x - y; break;
			case DW_OP_and: r = x & y; break;
			case DW_OP_or: r = x | y; break;
			case DW_OP_mul: r = x * y; break;
			case DW_OP_shl: r = y < 64 ? x << y : 0; break;
			case DW_OP_shr: r = y < 64 ? x >> y : 0; break;
			case DW_OP_ge: r = sx >= sy; break;
			case DW_OP_gt: r = sx > sy; break;
			case DW_OP_le: r = sx <= sy; break;
			case DW_OP_lt: r = sx < sy; break;
			case DW_OP_eq: r = x == y; break;
			default: r = x != y; break;
			}
			stk[sp - 1] = r;
		} else {
			return OP_UNWIND_BAD_CFA;
		}
	}
	if (!sp)
		return OP_UNWIND_BAD_CFA;
	*out = stk[sp - 1];
	return 0;
}

/* The caller's value of register dwreg; *known false if undefined. */
static unsigned caller_reg(Dwarf_Frame *frame, struct state const *st,
			   int dwreg, uint64_t cfa, uint64_t *v, bool *known)
{
	Dwarf_Op mem[3], *ops;
	size_t nops;
	bool is_value;
	unsigned r;
	int slot = reg_slot(dwreg);

	if (dwarf_frame_register(frame, dwreg, mem, &ops, &nops))
		return OP_UNWIND_BAD_CFA;
	if (!nops) {
		/* undefined (ops == mem), or the same value (ops NULL) */
		*known = !ops && st->known[slot];
		*v = st->reg[slot];
		return 0;
	}
	r = eval(st, ops, nops, cfa, v, &is_value);
	if (r)
		return r;
	if (!is_value && !read_stack(st->stack, *v, v))
		return OP_UNWIND_STACK_END;
	*known = true;
	return 0;
}

/* The frame (CFI row) of the code at pc; NULL: no CFI there. */
/* The frame (CFI row) of the code at link-time address va; NULL: none. */
static Dwarf_Frame *frame_at(struct binary *b, uint64_t va)
{
	Dwarf_Frame *f = NULL;

	if (b->eh && !dwarf_cfi_addrframe(b->eh, va, &f))
		return f;
	if (b->df && !dwarf_cfi_addrframe(b->df, va, &f))
		return f;
	return NULL;
}

/* Is ops "CFA + off" (off returned)? */
static bool cfa_plus(Dwarf_Op const *ops, size_t nops, int64_t *off)
{
	if (nops == 1 && ops[0].atom == DW_OP_call_frame_cfa) {
		*off = 0;
		return true;
	}
	if (nops == 2 && ops[0].atom == DW_OP_call_frame_cfa &&
	    ops[1].atom == DW_OP_plus_uconst) {
		*off = (int64_t)ops[1].number;
		return *off >= INT32_MIN && *off <= INT32_MAX;
	}
	return false;
}

/*
 * Is the CFA rule "rsp or rbp + offset"? libdw gives a DW_CFA_def_cfa
 * row as DW_OP_bregx (register, offset), an expression as written.
 */
static bool cfa_reg_plus(Dwarf_Op const *ops, size_t nops, struct rule *r)
{
	uint64_t reg;
	int64_t off;

	if (nops != 1)
		return false;
	if (ops[0].atom == DW_OP_bregx) {
		reg = ops[0].number;
		off = (int64_t)ops[0].number2;
	} else if (ops[0].atom >= DW_OP_breg0 && ops[0].atom <= DW_OP_breg0 + 31) {
		reg = ops[0].atom - DW_OP_breg0;
		off = (int64_t)ops[0].number;
	} else {
		return false;
	}
	if ((reg != REG_SP && reg != REG_BP) || off < INT32_MIN ||
	    off > INT32_MAX)
		return false;
	r->cfa_slot = reg == REG_SP ? 1 : 0;
	r->cfa_off = (int32_t)off;
	return true;
}

/*
 * Compile the row of f into a rule when it is the common shape: CFA =
 * rsp or rbp + offset, the return address saved at CFA + offset (or
 * undefined: the root), rbp unchanged, undefined or saved at CFA +
 * offset. Anything else stays RULE_SLOW (evaluated with libdw each time).
 */
static void compile(Dwarf_Frame *f, struct rule *r)
{
	Dwarf_Op mem[3], *ops;
	size_t nops;
	int64_t off;

	r->kind = RULE_SLOW;
	dwarf_frame_info(f, NULL, NULL, &r->signal);
	if (dwarf_frame_cfa(f, &ops, &nops) || !cfa_reg_plus(ops, nops, r))
		return;
	if (dwarf_frame_register(f, REG_RA, mem, &ops, &nops))
		return;
	if (!nops && ops == mem) {
		r->kind = RULE_ROOT;
		return;
	}
	if (!cfa_plus(ops, nops, &off))
		return;
	r->ra_off = (int32_t)off;
	if (dwarf_frame_register(f, REG_BP, mem, &ops, &nops))
		return;
	if (!nops) {
		r->bp_how = ops ? BP_UNDEFINED : BP_SAME;
	} else if (cfa_plus(ops, nops, &off)) {
		r->bp_how = BP_SAVED;
		r->bp_off = (int32_t)off;
	} else {
		return;
	}
	r->kind = RULE_SIMPLE;
}

/* The index of the first rule of b with lo > va (binary search). */
static size_t rule_after(struct binary const *b, uint64_t va)
{
	size_t lo = 0, hi = b->nrules;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (b->rules[mid].lo <= va)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Room for a new rule at index *at, emptying a full table. */
static void rule_room(struct unwind_cache *uc, struct binary *b, size_t *at)
{
	if (b->nrules >= uc->max_rules) {
		rules_clear(b);
		uc->stats.rules_flushed++;
		*at = 0;
	}
	if (b->nrules == b->rules_cap) {
		b->rules_cap = b->rules_cap ? 2 * b->rules_cap : 64;
		b->rules = op_xrealloc(b->rules,
				       b->rules_cap * sizeof(*b->rules));
	}
}

/*
 * libdw's range of the row holding va: its end is the next advance (right
 * in all of libc's 1.37M text addresses), its start not always (after a
 * DW_CFA_restore_state it is the remembered row's, 42 % of them): kept
 * only when the row at start is that same range, else va.
 */
static void row_range(struct binary *b, Dwarf_Frame *f, uint64_t va,
		      Dwarf_Addr *lo, Dwarf_Addr *hi)
{
	Dwarf_Addr start, end, s2 = 0, e2 = 0;
	Dwarf_Frame *g;

	if (dwarf_frame_info(f, &start, &end, NULL) < 0 || start > va ||
	    end <= va) {
		*lo = va;
		*hi = va + 1;
		return;
	}
	*lo = va;
	*hi = end;
	if (start == va)
		return;
	g = frame_at(b, start);
	if (g && dwarf_frame_info(g, &s2, &e2, NULL) >= 0 && s2 == start &&
	    e2 == end)
		*lo = start;
	free(g);
}

/*
 * Compile the row holding va into r: its range, clipped to the gap
 * [gap_lo, gap_hi) between the rules around it (a .debug_frame row may
 * span code .eh_frame describes), and how to apply it.
 */
static void rule_make(struct binary *b, uint64_t va, uint64_t gap_lo,
		      uint64_t gap_hi, struct rule *r)
{
	Dwarf_Frame *f = frame_at(b, va);
	Dwarf_Addr start = va, end = va + 1;

	memset(r, 0, sizeof(*r));
	if (!f) {
		r->kind = RULE_NO_CFI;
	} else {
		row_range(b, f, va, &start, &end);
		compile(f, r);
		if (r->kind == RULE_SLOW)
			r->frame = f;
		else
			free(f);
	}
	r->lo = start > gap_lo ? start : gap_lo;
	r->hi = end < gap_hi ? end : gap_hi;
}

/* The rule for link-time address va of b, compiled at its first use. */
static struct rule const *rule_at(struct unwind_cache *uc, struct binary *b,
				  uint64_t va)
{
	size_t at = rule_after(b, va);
	uint64_t gap_lo, gap_hi;

	if (at && va < b->rules[at - 1].hi) {
		uc->stats.rule_hits++;
		return &b->rules[at - 1];
	}
	rule_room(uc, b, &at);
	gap_lo = at ? b->rules[at - 1].hi : 0;
	gap_hi = at < b->nrules ? b->rules[at].lo : UINT64_MAX;
	memmove(&b->rules[at + 1], &b->rules[at],
		(b->nrules - at) * sizeof(*b->rules));
	b->nrules++;
	rule_make(b, va, gap_lo, gap_hi, &b->rules[at]);
	uc->stats.rules++;
	return &b->rules[at];
}

/* The caller's registers by a compiled rule. */
static unsigned apply(struct rule const *r, struct state const *st,
		      uint64_t *cfa, uint64_t *ra, uint64_t *bp, bool *bp_known)
{
	if (!st->known[r->cfa_slot])
		return OP_UNWIND_BAD_CFA;
	*cfa = st->reg[r->cfa_slot] + (int64_t)r->cfa_off;
	if (!read_stack(st->stack, *cfa + (int64_t)r->ra_off, ra))
		return OP_UNWIND_STACK_END;
	*bp = st->reg[0];
	*bp_known = st->known[0];
	if (r->bp_how == BP_UNDEFINED) {
		*bp_known = false;
	} else if (r->bp_how == BP_SAVED) {
		if (!read_stack(st->stack, *cfa + (int64_t)r->bp_off, bp))
			return OP_UNWIND_STACK_END;
		*bp_known = true;
	}
	return 0;
}

/* The caller's registers by libdw's evaluation of row f. */
static unsigned apply_slow(Dwarf_Frame *f, struct state const *st,
			   uint64_t *cfa, uint64_t *ra, bool *ra_known,
			   uint64_t *bp, bool *bp_known)
{
	Dwarf_Op *ops;
	size_t nops;
	bool is_value;
	unsigned r;

	r = dwarf_frame_cfa(f, &ops, &nops) || !nops ? OP_UNWIND_BAD_CFA :
		eval(st, ops, nops, 0, cfa, &is_value);
	if (!r)
		r = caller_reg(f, st, REG_RA, *cfa, ra, ra_known);
	if (!r)
		r = caller_reg(f, st, REG_BP, *cfa, bp, bp_known);
	return r;
}

/* step() went on to the caller (the reasons, root included, stop). */
#define STEP_OK OP_UNWIND_NR

/*
 * A step by the frame pointer, for code without CFI: a JIT's, which has
 * no file, or code its binary's CFI does not cover (V8, and HotSpot with
 * -XX:+PreserveFramePointer, keep rbp as the frame pointer: [rbp] the
 * caller's rbp, [rbp + 8] the return address). Taken only if it is plausible: rbp known, above sp, both
 * words in the stack copy, the caller's frame above this one; else the
 * walk stops there (no_cfi), as without it. A sample in a prologue,
 * before its push of rbp, gives its caller's caller: as any frame
 * pointer walk, perf's too.
 */
static unsigned fp_step(struct state *st)
{
	uint64_t bp = st->reg[0], saved_bp, ra;

	if (!st->known[0] || bp < st->reg[1] ||
	    !read_stack(st->stack, bp, &saved_bp) ||
	    !read_stack(st->stack, bp + 8, &ra))
		return OP_UNWIND_NO_CFI;
	if (!ra)
		return OP_UNWIND_ROOT;
	st->reg[0] = saved_bp;
	st->known[0] = true;
	st->reg[1] = bp + 16;
	st->reg[2] = ra;
	return STEP_OK;
}

/* One step: st from the frame at pc to its caller's. STEP_OK or the
 * reason to stop. */
static unsigned step(struct unwind_cache *uc, struct state *st,
		     unwind_find_map_fn find_map, void *arg, bool exact,
		     bool *signal)
{
	uint64_t pc = st->reg[2], lookup = exact ? pc : pc - 1;
	uint64_t cfa = 0, ra = 0, bp = 0, va;
	struct unwind_map m;
	struct binary *b;
	struct rule const *rule;
	bool ra_known = true, bp_known = false;
	unsigned r;

	if (!find_map(arg, lookup, &m))
		return OP_UNWIND_NO_MAPPING;
	if (!m.path) {
		uc->stats.frames++;
		uc->stats.fp_steps++;
		return fp_step(st);
	}
	b = bin_get(uc, &m);
	if (!to_vaddr(b, lookup - m.start + m.pgoff, &va))
		return OP_UNWIND_NO_CFI;
	rule = rule_at(uc, b, va);
	uc->stats.frames++;
	switch (rule->kind) {
	case RULE_NO_CFI:
		/* code of a binary its CFI does not cover: a JIT's builtins
		 * (V8's, in node's .text) keep frame pointers too */
		uc->stats.fp_steps++;
		return fp_step(st);
	case RULE_ROOT:
		return OP_UNWIND_ROOT;
	case RULE_SIMPLE:
		r = apply(rule, st, &cfa, &ra, &bp, &bp_known);
		break;
	default:
		uc->stats.slow_steps++;
		r = apply_slow(rule->frame, st, &cfa, &ra, &ra_known, &bp,
			       &bp_known);
		break;
	}
	if (r)
		return r;
	*signal = rule->signal;
	if (!ra_known || !ra)
		return OP_UNWIND_ROOT;
	if (cfa <= st->reg[1] && !*signal)
		return OP_UNWIND_BAD_CFA;	/* no progress: a loop */
	st->reg[0] = bp;
	st->known[0] = bp_known;
	st->reg[1] = cfa;
	st->reg[2] = ra;
	return STEP_OK;
}

static void count_root(struct unwind_cache *uc, uint64_t bytes)
{
	unsigned i = 0;

	while (i < 6 && bytes > (1024ull << i))
		i++;
	uc->stats.root_bytes[i]++;
}

unsigned opd_unwind_user(struct unwind_cache *uc, struct unwind_regs const *regs,
		     struct unwind_stack const *stack,
		     unwind_find_map_fn find_map, void *arg,
		     uint64_t *pcs, unsigned max, unsigned *n)
{
	struct state st = {
		.reg = { regs->bp, regs->sp, regs->ip },
		.known = { true, true, true },
		.stack = stack,
	};
	bool exact = true, signal = false;

	*n = 0;
	if (!max)
		return OP_UNWIND_DEPTH_LIMIT;
	pcs[(*n)++] = regs->ip;
	while (*n < max) {
		unsigned r = step(uc, &st, find_map, arg, exact, &signal);

		if (r == OP_UNWIND_ROOT)
			count_root(uc, st.reg[1] - regs->sp);
		if (r == OP_UNWIND_NO_MAPPING)
			uc->stats.no_mapping++;
		if (r != STEP_OK)
			return r;
		pcs[(*n)++] = st.reg[2];
		/* after a signal frame the pc is exact, not a return */
		exact = signal;
	}
	return OP_UNWIND_DEPTH_LIMIT;
}
