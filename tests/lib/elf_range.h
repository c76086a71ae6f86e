/*
 * An independent oracle for tests: the file-offset range of a function,
 * read from an ELF file's symbol table with plain <elf.h> parsing (no
 * libbfd, nothing shared with the code under test). A sample attributed to
 * (binary, offset) is "in" the function when start <= offset < end.
 */
#ifndef ELF_RANGE_H
#define ELF_RANGE_H

/* The file offsets [*start, *end) of function func in the 64-bit ELF file
 * path: st_value/st_size mapped through the PT_LOAD segment holding it.
 * 0, or -1 with a message. */
int elf_func_range(char const *path, char const *func, unsigned long *start,
		   unsigned long *end);

#endif /* ELF_RANGE_H */
