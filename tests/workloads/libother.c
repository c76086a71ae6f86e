/* libother.so: a CPU loop at another offset than libhot.so's, for
 * dlswap: 2 KiB of padding code comes first, so a libhot.so pc read as a
 * libother.so offset falls in other_pad, never in other_loop. */
__attribute__((noinline, used)) void other_pad(void)
{
	__asm__ volatile(".fill 2048, 1, 0x90");
}

__attribute__((noinline)) unsigned long other_loop(unsigned long n)
{
	volatile unsigned long acc = 0;

	for (unsigned long i = 0; i < n; i++)
		acc += i ^ (acc >> 7);
	return acc;
}
