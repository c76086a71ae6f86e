/* libe2e.so: the shared-library phase of the end-to-end workload. */
__attribute__((noinline)) unsigned long e2e_lib_hot(unsigned long n)
{
	volatile unsigned long acc = 0;

	for (unsigned long i = 0; i < n; i++)
		acc += i ^ (acc >> 5);
	return acc;
}
