/*
 * Line numbers: the source file and line of an address through libbfd's
 * DWARF reader (bfd_find_nearest_line), for opreport -g and the details;
 * from the separate debug file when the binary has one.
 */
#include "config.h"

#include <bfd.h>
#include <stdlib.h>

#include "op_message.h"
#include "pp_binary.h"

int pp_binary_linenr(struct pp_binary const *b, uint64_t vma, char **file,
		     unsigned *line)
{
	char const *f = NULL, *func = NULL;
	unsigned l = 0;

	*file = NULL;
	*line = 0;
	bfd *abfd = pp_binary_debug_bfd(b);

	if (!abfd)
		return -1;
	for (asection *sec = abfd->sections; sec; sec = sec->next) {
		uint64_t start = bfd_section_vma(sec);

		if (!(bfd_section_flags(sec) & SEC_CODE) || vma < start ||
		    vma - start >= bfd_section_size(sec))
			continue;
		if (!bfd_find_nearest_line(abfd, sec, b->bfd_syms,
					   vma - start, &f, &func, &l) || !f)
			return -1;
		*file = op_xstrdup(f);
		*line = l;
		return 0;
	}
	return -1;
}
