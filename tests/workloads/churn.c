/*
 * Workload: fork/exec churn. "churn N" runs N short-lived processes, two
 * at a time, each an exec of this binary as "churn --child" that spins
 * about 2 ms of CPU in churn_spin() and exits.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "spin.h"

__attribute__((noinline)) unsigned long churn_spin(unsigned long n)
{
	volatile unsigned long acc = 0;

	for (unsigned long i = 0; i < n; i++)
		acc += i * 7 + (acc >> 2);
	return acc;
}

static pid_t start_child(char const *self)
{
	pid_t pid = fork();

	if (pid == 0) {
		execl(self, self, "--child", (char *)NULL);
		_exit(127);
	}
	return pid;
}

int main(int argc, char **argv)
{
	char self[PATH_MAX];
	int n = argc > 1 ? atoi(argv[1]) : 500, started = 0, failed = 0;
	int running = 0, status;
	ssize_t len;

	if (argc > 1 && !strcmp(argv[1], "--child")) {
		spin_for(0.002, churn_spin, 1UL << 12);
		return 0;
	}
	len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (len <= 0)
		return 1;
	self[len] = '\0';
	while (started < n || running) {
		while (running < 2 && started < n) {
			if (start_child(self) < 0)
				return 1;
			started++;
			running++;
		}
		if (wait(&status) < 0)
			return 1;
		running--;
		failed += !WIFEXITED(status) || WEXITSTATUS(status);
	}
	if (failed)
		fprintf(stderr, "churn: %d of %d children failed\n", failed, n);
	return failed != 0;
}
