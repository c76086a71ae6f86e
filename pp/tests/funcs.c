/*
 * A test binary with known functions for the opreport tests: the tests
 * place samples at these functions' file offsets and expect them back by
 * name. Each function has a body of some size so that offsets inside it
 * are still inside it.
 */
#include <stdio.h>
#include <stdlib.h>

volatile unsigned sink;

__attribute__((noinline)) void alpha(unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		sink += i * 3 + (sink >> 2);
}

__attribute__((noinline)) void beta(unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		sink ^= i * 7 + (sink << 1);
}

__attribute__((noinline)) void gamma_fn(unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		sink -= i * 11 + (sink >> 3);
}

int main(int argc, char **argv)
{
	unsigned n = argc > 1 ? (unsigned)atoi(argv[1]) : 10;

	alpha(n);
	beta(n);
	gamma_fn(n);
	printf("%u\n", sink);
	return 0;
}
