/*
 * Symbols of a binary through libbfd (see pp_bfd.h). The static symbol
 * table is used when it has code symbols; a stripped binary falls back to
 * its dynamic symbols, shown as ranges "sym->nextsym" as in HP's Prospect:
 * samples between two exported entry points may belong to static
 * functions nobody can name. Synthetic symbols (PLT entries, "puts@plt")
 * are added from bfd_get_synthetic_symtab either way. A separate debug
 * file, when the binary needs one and it is found, gives the symbols and
 * the line info; the binary keeps giving its sections and code.
 */
#include "config.h"

#include <bfd.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "op_file.h"
#include "op_message.h"
#include "op_util.h"
#include "pp_bfd.h"

static bool is_code_symbol(asymbol const *s)
{
	asection *sec = s->section;

	if (!sec || bfd_is_und_section(sec) || bfd_is_com_section(sec) ||
	    bfd_is_abs_section(sec))
		return false;
	if (!(bfd_section_flags(sec) & SEC_CODE))
		return false;
	if (s->flags & (BSF_SECTION_SYM | BSF_FILE | BSF_DEBUGGING |
			BSF_WARNING | BSF_INDIRECT))
		return false;
	if (!s->name || !s->name[0] || s->name[0] == '$')
		return false;
	return !(s->name[0] == '.' && s->name[1] == 'L');
}

#define RANK_ORDER_BITS 22

/*
 * Which of the symbols at one address names it, as OProfile 1.x chooses
 * (its reports and ours then agree row for row): "Letext" last; then a
 * local symbol after a global or weak one; then a name starting with '_'
 * after one that does not (mmap, not __mmap; fflush, not _IO_fflush);
 * then a weak symbol after a strong one; then the first in the symbol
 * table. Encoded as one rank, higher preferred: the criteria above the
 * table position i (earlier is higher).
 */
static int symbol_rank(asymbol const *s, long i)
{
	long const order_max = (1L << RANK_ORDER_BITS) - 1;
	bool local = (s->flags & BSF_LOCAL) && !(s->flags & BSF_GLOBAL);
	int pref = (strcmp(s->name, "Letext") ? 8 : 0) | (local ? 0 : 4) |
		   (s->name[0] == '_' ? 0 : 2) | (s->flags & BSF_WEAK ? 0 : 1);

	return (pref << RANK_ORDER_BITS) + (int)(order_max - (i < order_max ? i : order_max));
}

static size_t add_symbols(struct pp_symtab *t, asymbol **syms, long n,
			  bool is_range)
{
	size_t added = 0;

	for (long i = 0; i < n; i++) {
		asymbol const *s = syms[i];
		asection *sec;

		if (!is_code_symbol(s))
			continue;
		sec = s->section;
		pp_symtab_add(t, s->name, bfd_asymbol_value(s),
			      bfd_section_vma(sec) + bfd_section_size(sec),
			      symbol_rank(s, i), is_range);
		added++;
	}
	return added;
}

static long read_table(bfd *abfd, bool dynamic, asymbol ***out)
{
	long size = dynamic ? bfd_get_dynamic_symtab_upper_bound(abfd) :
			      bfd_get_symtab_upper_bound(abfd);
	long n;

	*out = NULL;
	if (size <= 0)
		return 0;
	*out = op_xmalloc(size);
	n = dynamic ? bfd_canonicalize_dynamic_symtab(abfd, *out) :
		      bfd_canonicalize_symtab(abfd, *out);
	return n < 0 ? 0 : n;
}

static void add_synthetic(struct pp_symtab *t, bfd *abfd, asymbol **syms,
			  long nsyms, asymbol **dyn, long ndyn)
{
	asymbol *synth = NULL;
	long n = bfd_get_synthetic_symtab(abfd, nsyms, syms, ndyn, dyn, &synth);

	for (long i = 0; i < n; i++) {
		asection *sec = synth[i].section;

		if (!sec || !(bfd_section_flags(sec) & SEC_CODE))
			continue;
		pp_symtab_add(t, synth[i].name, bfd_asymbol_value(&synth[i]),
			      bfd_section_vma(sec) + bfd_section_size(sec), 0,
			      false);
	}
	free(synth);
}

static void map_sections(struct pp_binary *b, bfd *abfd)
{
	for (asection *sec = abfd->sections; sec; sec = sec->next) {
		flagword f = bfd_section_flags(sec);

		if ((f & (SEC_ALLOC | SEC_LOAD | SEC_HAS_CONTENTS)) !=
		    (SEC_ALLOC | SEC_LOAD | SEC_HAS_CONTENTS))
			continue;
		OP_ALLOC_GROW(b->secs, b->nr_secs + 1, b->alloc_secs);
		b->secs[b->nr_secs++] = (struct pp_section_map){
			.filepos = (uint64_t)sec->filepos,
			.size = bfd_section_size(sec),
			.vma = bfd_section_vma(sec),
		};
	}
}

static int find_text(asymbol **syms, long n, uint64_t *text)
{
	for (long i = 0; i < n; i++) {
		if (!strcmp(syms[i]->name, "_text")) {
			*text = bfd_asymbol_value(syms[i]);
			return 0;
		}
	}
	return -1;
}

static size_t count_code_symbols(asymbol **syms, long n)
{
	size_t c = 0;

	for (long i = 0; i < n; i++)
		c += is_code_symbol(syms[i]);
	return c;
}

/*
 * A binary with no code symbols or no DWARF of its own: use its separate
 * debug file when one is found (symbols and line info from there).
 */
static void attach_debug_file(struct pp_binary *b, char const *path,
			      asymbol **syms, long nsyms)
{
	char const *why = NULL;
	char *dpath;

	if (count_code_symbols(syms, nsyms) && pp_bfd_has_dwarf(b->abfd))
		return;
	dpath = pp_debuginfo_find(b->abfd, path, &b->build_id, &b->debug_how);
	if (!dpath)
		return;
	b->debug_abfd = pp_bfd_open_object(dpath, &why);
	if (!b->debug_abfd) {
		op_warn("debug file '%s' not used: %s", dpath, why);
		free(dpath);
		b->debug_how = PP_DEBUG_NONE;
		return;
	}
	b->debug_path = dpath;
}

static int read_symbols(struct pp_binary *b, bfd *abfd, char const *path,
			bool is_kernel, char *err, size_t errlen)
{
	asymbol **syms, **dyn, **dsyms = NULL, **table;
	long nsyms = read_table(abfd, false, &syms);
	long ndyn = read_table(abfd, true, &dyn);
	long ndsyms = 0, ntable;
	int rc = 0;

	pp_build_id_read(abfd, &b->build_id);
	attach_debug_file(b, path, syms, nsyms);
	if (b->debug_abfd)
		ndsyms = read_table(b->debug_abfd, false, &dsyms);
	table = dsyms && count_code_symbols(dsyms, ndsyms) ? dsyms : syms;
	ntable = table == dsyms ? ndsyms : nsyms;
	if (!add_symbols(&b->symtab, table, ntable, false)) {
		b->dynamic = add_symbols(&b->symtab, dyn, ndyn, true) > 0;
	}
	add_synthetic(&b->symtab, abfd, syms, nsyms, dyn, ndyn);
	pp_symtab_finish(&b->symtab);
	if (is_kernel) {
		b->keymap = PP_KEY_BASE;
		if (find_text(table, ntable, &b->base)) {
			snprintf(err, errlen, "no _text symbol: cannot place "
				 "kernel samples");
			rc = -1;
		}
	} else {
		b->keymap = PP_KEY_FILEPOS;
		map_sections(b, abfd);
	}
	free(dyn);
	/* line lookups pass the symbols of the bfd they read */
	if (b->debug_abfd) {
		free(syms);
		b->bfd_syms = dsyms;
	} else {
		b->bfd_syms = syms;
	}
	return rc;
}

int pp_bfd_open(struct pp_binary *b, char const *path, bool is_kernel,
		char *err, size_t errlen)
{
	char const *why = NULL;
	bfd *abfd;

	memset(b, 0, sizeof(*b));
	bfd_init();
	abfd = pp_bfd_open_object(path, &why);
	if (!abfd) {
		snprintf(err, errlen, "%s", why);
		return -1;
	}
	b->abfd = abfd;
	if (read_symbols(b, abfd, path, is_kernel, err, errlen)) {
		pp_binary_free(b);
		return -1;
	}
	return 0;
}
