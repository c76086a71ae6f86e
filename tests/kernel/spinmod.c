// SPDX-License-Identifier: GPL-2.0
/*
 * A module for the driver's guest test: loaded while profiling, it gives a
 * MODULE_LOADED record, and writing N to /sys/module/spinmod/parameters/
 * spin_ms burns N ms of cpu in spinmod_burn(), in this module's text, so
 * its samples must be attributed to "spinmod" by name.
 */
#include <linux/init.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/moduleparam.h>

static unsigned int spin_ms;
static unsigned long spin_result;	/* keeps the burn from being optimised out */

/* Mostly arithmetic in this function; the clock is read every 64K steps. */
static noinline unsigned long spinmod_burn(unsigned int ms)
{
	ktime_t end = ktime_add_ms(ktime_get(), ms);
	unsigned long x = 1;

	do {
		unsigned int i;

		for (i = 0; i < 65536; i++)
			x = x * 6364136223846793005UL + 1442695040888963407UL;
	} while (ktime_before(ktime_get(), end));
	return x;
}

static int spin_ms_set(const char *val, const struct kernel_param *kp)
{
	int err = param_set_uint(val, kp);

	if (!err && spin_ms)
		WRITE_ONCE(spin_result, spinmod_burn(spin_ms));
	return err;
}

static const struct kernel_param_ops spin_ms_ops = {
	.set = spin_ms_set,
	.get = param_get_uint,
};
module_param_cb(spin_ms, &spin_ms_ops, &spin_ms, 0644);
MODULE_PARM_DESC(spin_ms, "write N: burn N ms of cpu in spinmod_burn()");

static int __init spinmod_init(void)
{
	return 0;
}

static void __exit spinmod_exit(void)
{
}

module_init(spinmod_init);
module_exit(spinmod_exit);
MODULE_LICENSE("GPL");
