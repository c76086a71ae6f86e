/* libdemo.so: the shared-library phase of the README demo's workload. */
__attribute__((noinline)) unsigned long demo_lib_hot(unsigned long n)
{
	volatile unsigned long acc = 0;

	for (unsigned long i = 0; i < n; i++)
		acc += i ^ (acc >> 5);
	return acc;
}
