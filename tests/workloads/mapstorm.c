/*
 * Workload: a storm of mappings, then a hot loop in a library mapped after
 * it, in this process and in a child forked after it. With a small perf
 * ring that nobody reads meanwhile, the storm's MMAP2 records fill the
 * ring of the cpu this process is pinned to, so the library's MMAP2 and
 * the child's FORK are lost (tests/perf/perf_reread_test.c).
 *
 * Usage: mapstorm N LIB SECONDS
 *   N mappings of this binary (kept mapped, so that no later mapping
 *   reuses an address whose record was seen), then dlopen(LIB) and run
 *   its hot_lib_loop for SECONDS of CPU time here and in a child.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "spin.h"

int main(int argc, char **argv)
{
	unsigned long (*loop)(unsigned long);
	cpu_set_t one;
	int n, fd, cpu, status;
	double seconds;
	void *lib;
	pid_t child;

	if (argc != 4) {
		fprintf(stderr, "usage: mapstorm N LIB SECONDS\n");
		return 2;
	}
	n = atoi(argv[1]);
	seconds = atof(argv[3]);
	/* one cpu, so that every record below goes to one ring */
	cpu = sched_getcpu();
	CPU_ZERO(&one);
	CPU_SET(cpu < 0 ? 0 : cpu, &one);
	if (sched_setaffinity(0, sizeof(one), &one))
		perror("mapstorm: sched_setaffinity");
	fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		perror("mapstorm: /proc/self/exe");
		return 1;
	}
	for (int i = 0; i < n; i++)
		if (mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0) ==
		    MAP_FAILED) {
			perror("mapstorm: mmap");
			return 1;
		}
	close(fd);
	lib = dlopen(argv[2], RTLD_NOW);
	loop = lib ? (unsigned long (*)(unsigned long))dlsym(lib, "hot_lib_loop")
		   : NULL;
	if (!loop) {
		fprintf(stderr, "mapstorm: %s\n", dlerror());
		return 1;
	}
	child = fork();
	if (child < 0) {
		perror("mapstorm: fork");
		return 1;
	}
	spin_for(seconds, loop, 1UL << 20);
	if (!child)
		_exit(0);
	if (waitpid(child, &status, 0) != child || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		return 1;
	return 0;
}
