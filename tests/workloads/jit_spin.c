/* Workload: a CPU loop in code written at run time into anonymous
 * executable memory, as a JIT does: no file behind it, so a profiler must
 * report it as an anonymous region of this process.
 * Usage: jit_spin [SECONDS]  (CPU seconds, default 1.5); x86-64 only
 * (elsewhere it exits 77, "skipped"). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "spin.h"

int main(int argc, char **argv)
{
#if defined(__x86_64__)
	/* unsigned long f(unsigned long n): mov %rdi,%rax; 1: dec %rax;
	 * jnz 1b; ret -- counts n down, returns 0 */
	static unsigned char const code[] = {
		0x48, 0x89, 0xf8, 0x48, 0xff, 0xc8, 0x75, 0xfb, 0xc3,
	};
	void *mem = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	unsigned long (*fn)(unsigned long);

	if (mem == MAP_FAILED || (memcpy(mem, code, sizeof(code)),
				  mprotect(mem, 4096, PROT_READ | PROT_EXEC))) {
		perror("jit_spin: anonymous executable memory");
		return 1;
	}
	fn = (unsigned long (*)(unsigned long))mem;
	printf("jit_spin: code at %p\n", mem);
	fflush(stdout);
	spin_for(argc > 1 ? atof(argv[1]) : 1.5, fn, 1UL << 21);
	return 0;
#else
	(void)argc;
	(void)argv;
	return 77;
#endif
}
