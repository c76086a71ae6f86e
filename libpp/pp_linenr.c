/*
 * Line numbers: the source file and line of an address through libbfd's
 * DWARF reader (bfd_find_nearest_line), for opreport -g and the details;
 * from the separate debug file when the binary has one.
 */
#include "config.h"

#include <bfd.h>
#include <stdlib.h>

#include "op_message.h"
#include "op_util.h"
#include "pp_linenr.h"

/* The code section of abfd holding vma, or NULL. */
static asection *code_section(bfd *abfd, uint64_t vma)
{
	for (asection *sec = abfd->sections; sec; sec = sec->next) {
		uint64_t start = bfd_section_vma(sec);

		if ((bfd_section_flags(sec) & SEC_CODE) && vma >= start &&
		    vma - start < bfd_section_size(sec))
			return sec;
	}
	return NULL;
}

/*
 * The bfd to ask for lines: the debug file's, or the binary's when it
 * has DWARF itself (.debug_info, or the old compressed .zdebug_info).
 * Without, libbfd's reader would look for a separate debug file on its
 * own (its build-id path, its .gnu_debuglink) and fopen what it found,
 * a FIFO planted there included: it would never return. Ours was looked
 * for already, through op_open_regular (pp_debuginfo.c).
 */
static bfd *lines_bfd(struct pp_binary const *b)
{
	bfd *abfd = pp_binary_debug_bfd(b);

	if (abfd && (bfd_get_section_by_name(abfd, ".debug_info") ||
		     bfd_get_section_by_name(abfd, ".zdebug_info")))
		return abfd;
	return NULL;
}

int pp_binary_linenr(struct pp_binary const *b, uint64_t vma, char **file,
		     unsigned *line)
{
	char const *f = NULL, *func = NULL;
	unsigned l = 0;

	*file = NULL;
	*line = 0;
	bfd *abfd = lines_bfd(b);
	asection *sec = abfd ? code_section(abfd, vma) : NULL;

	if (!sec || !bfd_find_nearest_line(abfd, sec, b->bfd_syms,
					   vma - bfd_section_vma(sec), &f,
					   &func, &l) || !f)
		return -1;
	*file = op_xstrdup(f);
	*line = l;
	return 0;
}

/* The inline chain of vma (pp_binary_lines): libbfd's nearest line, then
 * each function it was inlined into. */
size_t pp_binary_lines(struct pp_binary const *b, uint64_t vma,
		       struct pp_lineinfo **out)
{
	bfd *abfd = lines_bfd(b);
	asection *sec = abfd ? code_section(abfd, vma) : NULL;
	char const *f = NULL, *func = NULL;
	struct pp_lineinfo *v = NULL;
	size_t n = 0, alloc = 0;
	unsigned l = 0;

	*out = NULL;
	if (!sec || !bfd_find_nearest_line(abfd, sec, b->bfd_syms,
					   vma - bfd_section_vma(sec), &f,
					   &func, &l))
		return 0;
	do {
		OP_ALLOC_GROW(v, n + 1, alloc);
		v[n++] = (struct pp_lineinfo){
			func ? op_xstrdup(func) : NULL,
			f ? op_xstrdup(f) : NULL, l,
		};
	} while (n < 64 && bfd_find_inliner_info(abfd, &f, &func, &l));
	*out = v;
	return n;
}
