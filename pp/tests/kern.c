/*
 * A fake vmlinux for the kernel test: a static executable whose first
 * function is _text, as in a kernel image, so that kernel sample keys
 * (pc - _text) can be placed on kfunc_one and kfunc_two.
 */
void _text(void)
{
}

volatile int ksink;

__attribute__((noinline)) void kfunc_one(int n)
{
	for (int i = 0; i < n; i++)
		ksink += i * 13;
}

__attribute__((noinline)) void kfunc_two(int n)
{
	for (int i = 0; i < n; i++)
		ksink ^= i << 2;
}
