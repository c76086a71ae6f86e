/*
 * CPU types: the numbering is on-disk format (sample file headers), so the
 * whole OProfile 1.x list is spelled out here, independently of the table
 * in op_cpu_type.c, and every name, number and enum constant is checked
 * against it. Also: counters, detection overrides, cpu speed.
 */
#include "events_scratch.h"	/* first: it sets _GNU_SOURCE */
#include "check.h"

#include "op_cpu_type.h"

static char const *const oprofile_1x_names[MAX_CPU_TYPE] = {
	"i386/ppro", "i386/pii", "i386/piii", "i386/athlon", "timer",
	"i386/p4", "x86-64/hammer", "i386/p4-ht", "alpha/ev67",
	"i386/p6_mobile", "arm/xscale1", "arm/xscale2", "ppc64/power4",
	"ppc64/power5", "ppc64/power5+", "ppc64/970", "mips/20K", "mips/24K",
	"mips/25K", "mips/34K", "mips/5K", "mips/r10000", "mips/r12000",
	"mips/rm7000", "mips/rm9000", "mips/sb1", "mips/vr5432", "mips/vr5500",
	"ppc/e500", "ppc/e500v2", "i386/core", "ppc/7450", "i386/core_2",
	"ppc64/power6", "ppc64/970MP", "x86-64/family10", "arm/mpcore",
	"arm/armv6", "ppc64/power5++", "ppc/e300", "arm/armv7",
	"i386/arch_perfmon", "x86-64/family11h", "ppc64/power7",
	"i386/core_i7", "i386/atom", "mips/loongson2", "i386/nehalem",
	"arm/armv7-ca9", "mips/74K", "mips/1004K", "x86-64/family12h",
	"x86-64/family14h", "x86-64/family15h", "i386/westmere",
	"arm/armv7-scorpion", "arm/armv7-scorpionmp", "i386/sandybridge",
	"tile/tile64", "tile/tilepro", "tile/tilegx", "s390/z10", "s390/z196",
	"i386/ivybridge", "arm/armv7-ca5", "arm/armv7-ca7", "arm/armv7-ca15",
	"i386/haswell", "s390/zEC12", "x86-64/generic",
	"ppc64/architected_events_v1", "ppc64/power8", "ppc/e500mc",
	"ppc/e6500", "i386/silvermont", "arm/armv7-krait", "arm/armv8-xgene",
	"i386/broadwell", "arm/armv8-ca57", "arm/armv8-ca53",
};

static struct { enum op_cpu cpu; char const *name; int counters; } const named[] = {
	{ CPU_TIMER_INT, "timer", 4 },
	{ CPU_HAMMER, "x86-64/hammer", 4 },
	{ CPU_FAMILY10, "x86-64/family10", 4 },
	{ CPU_ARCH_PERFMON, "i386/arch_perfmon", 0 },
	{ CPU_FAMILY15H, "x86-64/family15h", 6 },
	{ CPU_HASWELL, "i386/haswell", 4 },
	{ CPU_AMD64_GENERIC, "x86-64/generic", 4 },
};

static void test_cpu__round_trip(void)
{
	char num[16];
	int i, j;

	for (i = 0; i < MAX_CPU_TYPE; i++) {
		char const *name = op_cpu_name((enum op_cpu)i);

		check_that(name && !strcmp(name, oprofile_1x_names[i]));
		check_that(op_cpu_pretty_name((enum op_cpu)i) &&
		      *op_cpu_pretty_name((enum op_cpu)i));
		check_that(op_cpu_from_name(oprofile_1x_names[i]) == (enum op_cpu)i);
		snprintf(num, sizeof(num), "%d", i);
		check_that(op_cpu_from_name(num) == (enum op_cpu)i);
		check_that(op_cpu_nr_counters((enum op_cpu)i) >= 0);
		for (j = 0; j < i; j++)
			check_that(strcmp(oprofile_1x_names[i], oprofile_1x_names[j]));
	}
}

static void test_cpu__enum_matches_table(void)
{
	size_t i;

	for (i = 0; i < sizeof(named) / sizeof(named[0]); i++) {
		check_that(!strcmp(op_cpu_name(named[i].cpu), named[i].name));
		check_that(!strcmp(oprofile_1x_names[named[i].cpu], named[i].name));
		check_that(op_cpu_nr_counters(named[i].cpu) == named[i].counters);
		check_that(op_cpu_has_events(named[i].cpu) ==
		      (named[i].cpu != CPU_HAMMER && named[i].cpu != CPU_FAMILY10));
	}
	check_that(MAX_CPU_TYPE == 80);
	check_that(op_cpu_nr_counters((enum op_cpu)0) == 2);	/* ppro */
	check_that(!op_cpu_has_events((enum op_cpu)0));
}

static void test_cpu__bad_names(void)
{
	static char const *const bad[] = {
		"", "80", "-1", "i386", "i386/haswell ", "Timer", "4x", "haswell",
	};
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		check_that(op_cpu_from_name(bad[i]) == CPU_NO_GOOD);
	check_that(op_cpu_from_name(NULL) == CPU_NO_GOOD);
	check_that(op_cpu_name(CPU_NO_GOOD) == NULL);
	check_that(op_cpu_name(MAX_CPU_TYPE) == NULL);
	check_that(op_cpu_pretty_name((enum op_cpu)1000) == NULL);
	check_that(op_cpu_nr_counters(CPU_NO_GOOD) == 0);
}

static void test_cpu__detect(void)
{
	enum op_cpu cpu;

	setenv("OPROFILE_CPU_TYPE", "i386/haswell", 1);
	check_that(op_cpu_detect() == CPU_HASWELL);
	setenv("OPROFILE_CPU_TYPE", "53", 1);
	check_that(op_cpu_detect() == CPU_FAMILY15H);
	setenv("OPROFILE_CPU_TYPE", "no/such-cpu", 1);
	check_that(op_cpu_detect() == CPU_NO_GOOD);
	unsetenv("OPROFILE_CPU_TYPE");
	cpu = op_cpu_detect();
	/* whatever the host, detection lands on a known type */
	check_that(op_cpu_name(cpu) != NULL);
	check_that(op_cpu_speed() >= 0.0);
}

int main(void)
{
	test_cpu__round_trip();
	test_cpu__enum_matches_table();
	test_cpu__bad_names();
	test_cpu__detect();
	return check_done();
}
