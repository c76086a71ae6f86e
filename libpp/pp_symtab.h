/*
 * A symbol table as the report needs it: non-overlapping address ranges
 * [start, end) with a name, sorted, looked up by address. Sources (libbfd
 * symbols, dynamic symbols, saved kallsyms) add raw symbols; finishing
 * sorts them, keeps the best name where several share an address, and
 * ends each one where the next begins (or at its section's end), as
 * OProfile did: samples in padding belong to the function before it.
 */
#ifndef PP_SYMTAB_H
#define PP_SYMTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct pp_symbol {
	char *name;          /* raw (mangled) name */
	uint64_t start;      /* first vma */
	uint64_t end;        /* one past the last vma */
	uint64_t limit;      /* end of its section: end never passes it */
	int rank;            /* preference among symbols at one address */
	bool is_range;       /* a dynamic-symbol range: shown "name->next" */
	long next;           /* is_range: index of the next symbol, -1: (end) */
};

struct pp_strpool;

struct pp_symtab {
	struct pp_symbol *v;
	size_t n, alloc;
	struct pp_strpool *pool;  /* set: names live here, not one malloc each */
};

/*
 * A shared store of names for big tables (a kernel's 100k+ kallsyms
 * symbols): one allocation per 64 KiB, not per name, and copies of the
 * table share it. Reference-counted: each table using it holds one.
 */
struct pp_strpool *pp_strpool_new(void);
void pp_strpool_unref(struct pp_strpool *p);

/* Let t keep the names of the symbols added next in pool (before adding). */
void pp_symtab_use_pool(struct pp_symtab *t, struct pp_strpool *pool);

/* dst (empty) becomes a copy of the finished table src; a pool is shared. */
void pp_symtab_copy(struct pp_symtab *dst, struct pp_symtab const *src);

/*
 * Add a symbol at start; limit is the end of the region holding it. A
 * range symbol (a dynamic symbol of a stripped binary: what lies between
 * two exported symbols is unknown) is shown "name->next".
 */
void pp_symtab_add(struct pp_symtab *t, char const *name, uint64_t start,
		   uint64_t limit, int rank, bool is_range);

/*
 * Sort, drop duplicates (highest rank, then smallest name wins: a source
 * that wants its table order to decide puts it in the rank), set ends.
 */
void pp_symtab_finish(struct pp_symtab *t);

/* The symbol whose range holds vma, or NULL. */
struct pp_symbol const *pp_symtab_find(struct pp_symtab const *t,
				       uint64_t vma);

void pp_symtab_free(struct pp_symtab *t);

#endif /* PP_SYMTAB_H */
