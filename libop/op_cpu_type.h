/*
 * CPU types with OProfile 1.x numbering (the number is written into every
 * sample file header, so it must never change). Names are the events/
 * subdirectory, e.g. "timer", "i386/arch_perfmon", "i386/haswell".
 */
#ifndef OP_CPU_TYPE_H
#define OP_CPU_TYPE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

enum op_cpu {
	CPU_NO_GOOD = -1,
	CPU_TIMER_INT = 4,       /* "timer": no PMU, software clock */
	CPU_HAMMER = 6,          /* "x86-64/hammer" */
	CPU_FAMILY10 = 35,       /* "x86-64/family10" */
	CPU_ARCH_PERFMON = 41,   /* "i386/arch_perfmon" */
	CPU_FAMILY15H = 53,      /* "x86-64/family15h" */
	CPU_HASWELL = 67,        /* "i386/haswell" */
	CPU_AMD64_GENERIC = 69,  /* "x86-64/generic" */
	/* every number 0..MAX_CPU_TYPE-1 has a name in op_cpu_type.c */
	MAX_CPU_TYPE = 80
};

/* "timer", "i386/haswell", ... or NULL for an unknown number. */
char const *op_cpu_name(enum op_cpu cpu);
/* Human description ("Intel Haswell microarchitecture"), or NULL. */
char const *op_cpu_pretty_name(enum op_cpu cpu);
/* Name or decimal number to type; CPU_NO_GOOD if unknown. */
enum op_cpu op_cpu_from_name(char const *name);
/* Counters the type has (0 for arch_perfmon means: ask CPUID). */
int op_cpu_nr_counters(enum op_cpu cpu);
/* Whether events/ has files for this type. */
int op_cpu_has_events(enum op_cpu cpu);

/*
 * The type of this machine: /dev/oprofile/cpu_type when the driver is
 * loaded; otherwise CPUID when a hardware PMU is usable through
 * perf_event_open, and CPU_TIMER_INT when there is none (VMs, this host).
 * $OPROFILE_CPU_TYPE (a name or number) overrides all of this; it gives
 * CPU_NO_GOOD when it names no type.
 */
enum op_cpu op_cpu_detect(void);

/*
 * Whether this process may open the perf event type:config (PERF_TYPE_*,
 * PERF_COUNT_*) on pid (-1: every task) and cpu (-1: every cpu); it is
 * closed again at once.
 */
bool op_perf_event_opens(uint32_t type, uint64_t config, pid_t pid, int cpu);

/* MHz of cpu 0 from /proc/cpuinfo, 0.0 if unknown (the header's cpu_speed). */
double op_cpu_speed(void);

#endif /* OP_CPU_TYPE_H */
