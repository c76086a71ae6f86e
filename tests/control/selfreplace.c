/*
 * selfreplace: a workload whose binary is gone from its path before it
 * runs a single loop, so that a profiler reading the file by its path
 * (instead of taking the build-id the kernel saw at exec) gets it wrong.
 *   selfreplace SECONDS            unlink its own binary, then spin
 *   selfreplace SECONDS OTHER      rename OTHER over its own binary
 * It spins in spin_hot() for SECONDS of CPU time (tests/control/t1033).
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "../workloads/spin.h"

static volatile unsigned long sink;

__attribute__((noinline)) static unsigned long spin_hot(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink += i * i;
	return sink;
}

int main(int argc, char **argv)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (argc < 2 || n <= 0) {
		fprintf(stderr, "usage: selfreplace SECONDS [OTHER]\n");
		return 2;
	}
	self[n] = '\0';
	if (argc > 2 ? rename(argv[2], self) : unlink(self)) {
		perror(self);
		return 1;
	}
	spin_for(atof(argv[1]), spin_hot, 100000);
	return 0;
}
