/*
 * CPU types: the OProfile 1.x numbering, names and counter counts, and the
 * detection of this machine's type.
 *
 * The number is written into every sample file header (cpu_type), so the
 * table below is part of the on-disk format: entries are only ever added
 * at the end, never renumbered. Each entry is placed by its number, and the
 * types the header names are placed by their enum constant instead, so a
 * mismatch is a duplicate initializer (-Woverride-init, an error with
 * --enable-werror) or a hole (caught by libop/tests/cpu_type_test.c).
 *
 * Detection order: $OPROFILE_CPU_TYPE, then DRIVER_DIR/cpu_type (our
 * driver; op_driver_dir()), then CPUID when perf_event_open shows a usable
 * hardware PMU, and "timer" otherwise: VMs and hosts without a PMU still
 * profile with the software clock.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/perf_event.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include "op_cpu_type.h"
#include "op_session.h"

#define CPU_TYPE_ENV "OPROFILE_CPU_TYPE"

struct cpu_descr {
	char const *name;	/* events/ subdirectory */
	char const *pretty;	/* for listings and reports */
	int nr_counters;	/* 0: ask CPUID leaf 0xA */
};

static struct cpu_descr const cpu_descrs[] = {
	[0] = { "i386/ppro", "Pentium Pro", 2 },
	[1] = { "i386/pii", "Pentium II", 2 },
	[2] = { "i386/piii", "Pentium III", 2 },
	[3] = { "i386/athlon", "AMD Athlon", 4 },
	/* OProfile had one timer counter; our software clock offers four */
	[CPU_TIMER_INT] = { "timer", "Software clock (no hardware PMU)", 4 },
	[5] = { "i386/p4", "Pentium 4 / Xeon", 8 },
	[CPU_HAMMER] = { "x86-64/hammer", "AMD64 (K8)", 4 },
	[7] = { "i386/p4-ht", "Pentium 4 / Xeon with two hyper-threads", 4 },
	[8] = { "alpha/ev67", "Alpha EV67", 20 },
	[9] = { "i386/p6_mobile", "Pentium M (P6 core)", 2 },
	[10] = { "arm/xscale1", "ARM XScale PMU1", 3 },
	[11] = { "arm/xscale2", "ARM XScale PMU2", 5 },
	[12] = { "ppc64/power4", "IBM POWER4", 8 },
	[13] = { "ppc64/power5", "IBM POWER5", 6 },
	[14] = { "ppc64/power5+", "IBM POWER5+", 6 },
	[15] = { "ppc64/970", "IBM PowerPC 970", 8 },
	[16] = { "mips/20K", "MIPS 20K", 1 },
	[17] = { "mips/24K", "MIPS 24K", 2 },
	[18] = { "mips/25K", "MIPS 25K", 2 },
	[19] = { "mips/34K", "MIPS 34K", 2 },
	[20] = { "mips/5K", "MIPS 5K", 2 },
	[21] = { "mips/r10000", "MIPS R10000", 2 },
	[22] = { "mips/r12000", "MIPS R12000", 4 },
	[23] = { "mips/rm7000", "QED RM7000", 1 },
	[24] = { "mips/rm9000", "PMC-Sierra RM9000", 2 },
	[25] = { "mips/sb1", "SiByte SB1", 4 },
	[26] = { "mips/vr5432", "NEC VR5432", 2 },
	[27] = { "mips/vr5500", "NEC VR5500", 2 },
	[28] = { "ppc/e500", "Freescale e500", 4 },
	[29] = { "ppc/e500v2", "Freescale e500v2", 4 },
	[30] = { "i386/core", "Intel Core Solo / Duo", 2 },
	[31] = { "ppc/7450", "PowerPC G4 (7450)", 6 },
	[32] = { "i386/core_2", "Intel Core 2", 2 },
	[33] = { "ppc64/power6", "IBM POWER6", 4 },
	[34] = { "ppc64/970MP", "IBM PowerPC 970MP", 8 },
	[CPU_FAMILY10] = { "x86-64/family10", "AMD family 10h", 4 },
	[36] = { "arm/mpcore", "ARM11 MPCore", 2 },
	[37] = { "arm/armv6", "ARMv6 PMU", 3 },
	[38] = { "ppc64/power5++", "IBM POWER5++", 6 },
	[39] = { "ppc/e300", "Freescale e300", 4 },
	[40] = { "arm/armv7", "ARM Cortex-A8", 5 },
	[CPU_ARCH_PERFMON] = { "i386/arch_perfmon",
			       "Intel architectural performance monitoring", 0 },
	[42] = { "x86-64/family11h", "AMD family 11h", 4 },
	[43] = { "ppc64/power7", "IBM POWER7", 6 },
	[44] = { "i386/core_i7", "Intel Core i7", 4 },
	[45] = { "i386/atom", "Intel Atom", 2 },
	[46] = { "mips/loongson2", "Loongson 2", 2 },
	[47] = { "i386/nehalem", "Intel Nehalem microarchitecture", 4 },
	[48] = { "arm/armv7-ca9", "ARM Cortex-A9", 7 },
	[49] = { "mips/74K", "MIPS 74K", 4 },
	[50] = { "mips/1004K", "MIPS 1004K", 2 },
	[51] = { "x86-64/family12h", "AMD family 12h", 4 },
	[52] = { "x86-64/family14h", "AMD family 14h", 4 },
	[CPU_FAMILY15H] = { "x86-64/family15h", "AMD family 15h", 6 },
	[54] = { "i386/westmere", "Intel Westmere microarchitecture", 4 },
	[55] = { "arm/armv7-scorpion", "Qualcomm Scorpion (ARMv7)", 5 },
	[56] = { "arm/armv7-scorpionmp", "Qualcomm Scorpion MP (ARMv7)", 5 },
	[57] = { "i386/sandybridge", "Intel Sandy Bridge microarchitecture", 8 },
	[58] = { "tile/tile64", "Tilera TILE64", 2 },
	[59] = { "tile/tilepro", "Tilera TILEPro", 4 },
	[60] = { "tile/tilegx", "Tilera TILE-Gx", 4 },
	[61] = { "s390/z10", "IBM System z10", 1 },
	[62] = { "s390/z196", "IBM zEnterprise z196", 1 },
	[63] = { "i386/ivybridge", "Intel Ivy Bridge microarchitecture", 8 },
	[64] = { "arm/armv7-ca5", "ARM Cortex-A5", 3 },
	[65] = { "arm/armv7-ca7", "ARM Cortex-A7", 5 },
	[66] = { "arm/armv7-ca15", "ARM Cortex-A15", 7 },
	[CPU_HASWELL] = { "i386/haswell", "Intel Haswell microarchitecture", 4 },
	[68] = { "s390/zEC12", "IBM zEnterprise EC12", 1 },
	[CPU_AMD64_GENERIC] = { "x86-64/generic", "AMD64 architectural events", 4 },
	[70] = { "ppc64/architected_events_v1",
		 "IBM Power architected events v1", 6 },
	[71] = { "ppc64/power8", "IBM POWER8", 6 },
	[72] = { "ppc/e500mc", "Freescale e500mc", 4 },
	[73] = { "ppc/e6500", "Freescale e6500", 6 },
	[74] = { "i386/silvermont", "Intel Silvermont microarchitecture", 2 },
	[75] = { "arm/armv7-krait", "Qualcomm Krait (ARMv7)", 5 },
	[76] = { "arm/armv8-xgene", "APM X-Gene (ARMv8)", 6 },
	[77] = { "i386/broadwell", "Intel Broadwell microarchitecture", 4 },
	[78] = { "arm/armv8-ca57", "ARM Cortex-A57", 6 },
	[79] = { "arm/armv8-ca53", "ARM Cortex-A53", 6 },
};

_Static_assert(sizeof(cpu_descrs) / sizeof(cpu_descrs[0]) == MAX_CPU_TYPE,
	       "cpu_descrs must have one entry per cpu type number");

/* Types that have files under events/ (kept in step by
 * libop/tests/events_load_test.c). */
static enum op_cpu const cpus_with_events[] = {
	CPU_TIMER_INT, CPU_ARCH_PERFMON, CPU_HASWELL, CPU_FAMILY15H,
	CPU_AMD64_GENERIC,
};

static int cpu_valid(enum op_cpu cpu)
{
	return cpu >= 0 && cpu < MAX_CPU_TYPE && cpu_descrs[cpu].name;
}

char const *op_cpu_name(enum op_cpu cpu)
{
	return cpu_valid(cpu) ? cpu_descrs[cpu].name : NULL;
}

char const *op_cpu_pretty_name(enum op_cpu cpu)
{
	return cpu_valid(cpu) ? cpu_descrs[cpu].pretty : NULL;
}

int op_cpu_nr_counters(enum op_cpu cpu)
{
	return cpu_valid(cpu) ? cpu_descrs[cpu].nr_counters : 0;
}

int op_cpu_has_events(enum op_cpu cpu)
{
	size_t i;

	for (i = 0; i < sizeof(cpus_with_events) / sizeof(cpus_with_events[0]); i++)
		if (cpus_with_events[i] == cpu)
			return 1;
	return 0;
}

/* Accepts a name, or a decimal number as found in sample file headers. */
enum op_cpu op_cpu_from_name(char const *name)
{
	char *end;
	long n;
	int i;

	if (!name || !*name)
		return CPU_NO_GOOD;
	for (i = 0; i < MAX_CPU_TYPE; i++)
		if (cpu_descrs[i].name && !strcmp(cpu_descrs[i].name, name))
			return (enum op_cpu)i;
	n = strtol(name, &end, 10);
	if (*end || n < 0 || n >= MAX_CPU_TYPE)
		return CPU_NO_GOOD;
	return cpu_valid((enum op_cpu)n) ? (enum op_cpu)n : CPU_NO_GOOD;
}

/* The driver's cpu_type file has no trailing newline; tolerate one anyway. */
static enum op_cpu cpu_from_driver(void)
{
	char buf[128], path[4096];
	char const *file = op_driver_path(path, sizeof(path), "cpu_type");
	ssize_t n = op_session_read_small(file, buf, sizeof(buf));
	size_t len;

	if (n < 0)
		return CPU_NO_GOOD;
	len = (size_t)n;
	while (len && (buf[len - 1] == '\n' || buf[len - 1] == ' '))
		buf[--len] = '\0';
	return op_cpu_from_name(buf);
}

bool op_perf_event_opens(uint32_t type, uint64_t config, pid_t pid, int cpu)
{
	struct perf_event_attr attr;
	long fd;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = type;
	attr.config = config;
	attr.disabled = 1;
	fd = syscall(SYS_perf_event_open, &attr, pid, cpu, -1, 0);
	if (fd < 0)
		return false;
	close((int)fd);
	return true;
}

/* A hardware PMU is usable system-wide on cpu 0, or at least for ourself. */
static int hw_pmu_usable(void)
{
	return op_perf_event_opens(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES,
				   -1, 0) ||
	       op_perf_event_opens(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES,
				   0, -1);
}

#if defined(__x86_64__) || defined(__i386__)
static int is_haswell_model(unsigned model)
{
	return model == 0x3c || model == 0x3f || model == 0x45 || model == 0x46;
}

static enum op_cpu cpu_from_cpuid(void)
{
	unsigned a, b, c, d, family, model;
	char vendor[13];

	if (!__get_cpuid(0, &a, &b, &c, &d))
		return CPU_NO_GOOD;
	memcpy(vendor, &b, 4);
	memcpy(vendor + 4, &d, 4);
	memcpy(vendor + 8, &c, 4);
	vendor[12] = '\0';
	if (!__get_cpuid(1, &a, &b, &c, &d))
		return CPU_NO_GOOD;
	family = (a >> 8) & 0xf;
	model = (a >> 4) & 0xf;
	if (family == 0xf)
		family += (a >> 20) & 0xff;
	if (family == 0x6 || family >= 0xf)
		model |= ((a >> 16) & 0xf) << 4;

	if (!strcmp(vendor, "GenuineIntel")) {
		if (family == 6 && is_haswell_model(model))
			return CPU_HASWELL;
		if (__get_cpuid(0xa, &a, &b, &c, &d) && (a & 0xff) >= 1)
			return CPU_ARCH_PERFMON;
	} else if (!strcmp(vendor, "AuthenticAMD")) {
		if (family == 0x15)
			return CPU_FAMILY15H;
		if (family >= 0x10)
			return CPU_AMD64_GENERIC;
	}
	return CPU_NO_GOOD;
}
#else
static enum op_cpu cpu_from_cpuid(void)
{
	return CPU_NO_GOOD;
}
#endif

enum op_cpu op_cpu_detect(void)
{
	char const *env = getenv(CPU_TYPE_ENV);
	enum op_cpu cpu;

	if (env && *env)
		return op_cpu_from_name(env);
	cpu = cpu_from_driver();
	if (cpu != CPU_NO_GOOD)
		return cpu;
	if (hw_pmu_usable()) {
		cpu = cpu_from_cpuid();
		if (cpu != CPU_NO_GOOD)
			return cpu;
	}
	/* no PMU, or one we have no events for: the software clock works */
	return CPU_TIMER_INT;
}

double op_cpu_speed(void)
{
	char line[256];
	double mhz = 0.0;
	FILE *f = fopen("/proc/cpuinfo", "r");

	if (!f)
		return 0.0;
	while (fgets(line, sizeof(line), f)) {
		char *colon;

		if (strncmp(line, "cpu MHz", 7))
			continue;
		colon = strchr(line, ':');
		if (colon && sscanf(colon + 1, "%lf", &mhz) != 1)
			mhz = 0.0;
		break;
	}
	fclose(f);
	return mhz;
}
