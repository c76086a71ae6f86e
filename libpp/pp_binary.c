/*
 * Sample keys to addresses and releasing a binary (see pp_binary.h).
 */
#include "config.h"

#include <bfd.h>
#include <stdlib.h>
#include <string.h>

#include "pp_binary.h"
bool pp_binary_vma(struct pp_binary const *b, uint64_t key, uint64_t *vma)
{
	switch (b->keymap) {
	case PP_KEY_BASE:
		*vma = key + b->base;
		return true;
	case PP_KEY_FILEPOS:
		for (size_t i = 0; i < b->nr_secs; i++) {
			struct pp_section_map const *s = &b->secs[i];

			if (key >= s->filepos && key - s->filepos < s->size) {
				*vma = s->vma + (key - s->filepos);
				return true;
			}
		}
		return false;
	default:
		return false;
	}
}

void pp_binary_free(struct pp_binary *b)
{
	pp_symtab_free(&b->symtab);
	free(b->secs);
	free(b->bfd_syms);
	if (b->abfd)
		bfd_close(b->abfd);
	if (b->debug_abfd)
		bfd_close(b->debug_abfd);
	free(b->debug_path);
	memset(b, 0, sizeof(*b));
}
