/*
 * A shared library for the stripped-binary test: exported functions with
 * a static one between them. Once stripped only the exported names are
 * left (dynamic symbols), so samples in helper can only be placed in the
 * range "lib_one->lib_two".
 */
volatile unsigned lib_sink;

__attribute__((noinline)) void lib_one(unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		lib_sink += i ^ (lib_sink >> 1);
}

__attribute__((noinline)) static void helper(unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		lib_sink ^= i * 5 + (lib_sink << 2);
}

__attribute__((noinline)) void lib_two(unsigned n)
{
	helper(n);
	for (unsigned i = 0; i < n; i++)
		lib_sink -= i + (lib_sink >> 4);
}

__attribute__((noinline)) void lib_three(unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		lib_sink += i * 9;
}
