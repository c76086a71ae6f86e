/*
 * Disassembly in the process, with libopcodes (no objdump): one
 * instruction at a time, from the code of an image's bfd, addresses
 * named by its symbol table ("call 1139 <alpha>").
 */
#ifndef PP_DISASM_H
#define PP_DISASM_H

#include <stddef.h>
#include <stdint.h>

struct bfd;
struct pp_symtab;
struct pp_disasm;

/*
 * A disassembler for abfd's code, or NULL with err (an unknown arch, or
 * no section with code contents: a separate debug file).
 */
struct pp_disasm *pp_disasm_new(struct bfd *abfd,
				struct pp_symtab const *syms,
				char *err, size_t errlen);

/*
 * The instruction at vma as text into buf; its length in bytes, or 0
 * when vma is in no code section of the image.
 */
unsigned pp_disasm_insn(struct pp_disasm *d, uint64_t vma, char *buf,
			size_t len);

/* The same length without the text (cheaper: nothing is printed). */
unsigned pp_disasm_length(struct pp_disasm *d, uint64_t vma);

void pp_disasm_free(struct pp_disasm *d);

#endif /* PP_DISASM_H */
