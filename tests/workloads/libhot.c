/* libhot.so: a CPU loop in a shared library (see hot_lib.c). */
__attribute__((noinline)) unsigned long hot_lib_loop(unsigned long n)
{
	volatile unsigned long acc = 0;

	for (unsigned long i = 0; i < n; i++)
		acc += i ^ (acc >> 5);
	return acc;
}
