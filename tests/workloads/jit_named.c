/* Workload: code in anonymous executable memory, as a JIT writes it, in
 * four regions that a profiler must name apart:
 *   named   mapped first, named NAME with prctl(PR_SET_VMA_ANON_NAME)
 *           where the kernel has CONFIG_ANON_VMA_NAME;
 *   unnamed mapped first, no name;
 *   late    mapped after GOFILE appears (so a profiler started before
 *           that sees its mmap record), no name;
 *   memfd   a memfd named MEMFD (any bytes) mapped PROT_EXEC after GOFILE.
 * It prints its pid and where each region is, then waits for GOFILE (at
 * most 60 s), then spins SECONDS of CPU in each region in turn.
 * Usage: jit_named SECONDS NAME MEMFD GOFILE; x86-64 only (elsewhere it
 * exits 77, "skipped"). */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "spin.h"

#ifndef PR_SET_VMA
#define PR_SET_VMA 0x53564d41
#endif
#ifndef PR_SET_VMA_ANON_NAME
#define PR_SET_VMA_ANON_NAME 0
#endif

#if defined(__x86_64__)
/* unsigned long f(unsigned long n): mov %rdi,%rax; 1: dec %rax; jnz 1b;
 * ret -- counts n down, returns 0 */
static unsigned char const code[] = {
	0x48, 0x89, 0xf8, 0x48, 0xff, 0xc8, 0x75, 0xfb, 0xc3,
};

static void *anon_code(void)
{
	/* a second page left writable: regions mapped next to each other
	 * stay apart, not merged into one VMA */
	void *mem = mmap(NULL, 8192, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (mem == MAP_FAILED)
		return NULL;
	memcpy(mem, code, sizeof(code));
	if (mprotect(mem, 4096, PROT_READ | PROT_EXEC))
		return NULL;
	return mem;
}

static void *memfd_code(char const *name)
{
	int fd = memfd_create(name, 0);
	void *mem;

	if (fd < 0 || ftruncate(fd, 4096) ||
	    pwrite(fd, code, sizeof(code), 0) != (ssize_t)sizeof(code))
		return NULL;
	mem = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_SHARED, fd, 0);
	close(fd);
	return mem == MAP_FAILED ? NULL : mem;
}

static void run(char const *what, void *mem, double seconds)
{
	printf("jit_named: %s at %p\n", what, mem);
	fflush(stdout);
	spin_for(seconds, (unsigned long (*)(unsigned long))mem, 1UL << 21);
}
#endif

int main(int argc, char **argv)
{
#if defined(__x86_64__)
	void *named, *unnamed, *late, *memfd;
	double seconds;
	int i;

	if (argc != 5) {
		fprintf(stderr, "usage: jit_named SECONDS NAME MEMFD GOFILE\n");
		return 2;
	}
	seconds = atof(argv[1]);
	named = anon_code();
	unnamed = anon_code();
	if (!named || !unnamed) {
		perror("jit_named: anonymous executable memory");
		return 1;
	}
	/* after mprotect: the name is the VMA's, which the kernel merges
	 * with no neighbour of another name */
	if (prctl(PR_SET_VMA, PR_SET_VMA_ANON_NAME, (unsigned long)named,
		  4096UL, (unsigned long)argv[2]))
		printf("jit_named: no region name: %s\n", strerror(errno));
	else
		printf("jit_named: region named\n");
	printf("jit_named: pid %ld\n", (long)getpid());
	fflush(stdout);
	for (i = 0; i < 6000 && access(argv[4], F_OK); i++)
		usleep(10000);
	late = anon_code();
	memfd = memfd_code(argv[3]);
	if (!late || !memfd) {
		perror("jit_named: late regions");
		return 1;
	}
	run("named", named, seconds);
	run("unnamed", unnamed, seconds);
	run("late", late, seconds);
	run("memfd", memfd, seconds);
	return 0;
#else
	(void)argc;
	(void)argv;
	return 77;
#endif
}
