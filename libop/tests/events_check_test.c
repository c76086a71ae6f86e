/*
 * Validation of event specs against real and hand-made event sets: each
 * refusal with its message, callgraph minimums, and counter allocation,
 * including cases where the first choice must be undone (backtracking) and
 * the explanation when no allocation exists.
 */
#include "events_scratch.h"	/* first: it sets _GNU_SOURCE */
#include "check.h"

#include "op_events.h"

#define MAX 8

/* Parses and checks specs; fills counters and err. Returns op_check_events'. */
static int run(struct op_event_set const *set, char const *const *texts,
	       size_t n, int callgraph, int *counter, char *err, size_t errlen)
{
	struct op_event_spec specs[MAX];
	size_t i;

	for (i = 0; i < n; i++)
		if (!check_that(op_parse_event_spec(texts[i], &specs[i], err, errlen) == 0))
			return -2;
	return op_check_events(set, specs, n, callgraph, counter, err, errlen);
}

struct alloc_case {
	char const *specs[MAX];
	int callgraph;
	int counters[MAX];	/* expected, when message is NULL */
	char const *message;	/* expected error text */
};

static void run_cases(enum op_cpu cpu, struct alloc_case const *cases, size_t n)
{
	struct op_event_set set;
	char err[1024];
	size_t i, k, nspecs;
	int counter[MAX];

	if (!check_that(op_events_load(cpu, &set, err, sizeof(err)) == 0)) {
		fprintf(stderr, "  %s\n", err);
		return;
	}
	for (i = 0; i < n; i++) {
		struct alloc_case const *c = &cases[i];
		int ret;

		for (nspecs = 0; nspecs < MAX && c->specs[nspecs]; nspecs++)
			;
		err[0] = '\0';
		ret = run(&set, c->specs, nspecs, c->callgraph, counter, err, sizeof(err));
		if (c->message) {
			check_that(ret == -1);
			check_contains(err, c->message,
				       "line %d: the message", __LINE__);
			continue;
		}
		if (!check_that(ret == 0)) {
			fprintf(stderr, "  %s...: %s\n", c->specs[0], err);
			continue;
		}
		for (k = 0; k < nspecs; k++)
			check_that(counter[k] == c->counters[k]);
	}
	op_events_free(&set);
}

static struct alloc_case const timer_cases[] = {
	{ { "CPU_CLOCK:1000000" }, 0, { 0 }, NULL },
	{ { "CPU_CLOCK:10000" }, 0, { 0 }, NULL },
	{ { "CPU_CLOCK:1000000", "TASK_CLOCK:1000000" }, 0, { 0, 1 }, NULL },
	{ { "CPU_CLOCK:1000000:0x0:0:1", "CPU_CLOCK:1000000:0:1:0" }, 0, { 0, 1 }, NULL },
	{ { "CPU_CLOCK:150000" }, 1, { 0 }, NULL },
	{ { "FOO:3000" }, 0, { 0 },
	  "no event named 'FOO' for cpu type 'timer'; run ophelp to list events" },
	{ { "CPU_CLOCK:9999" }, 0, { 0 },
	  "count 9999 for event CPU_CLOCK is below the minimum 10000" },
	{ { "CPU_CLOCK:100000" }, 1, { 0 },
	  "count 100000 for event CPU_CLOCK is below the minimum 150000 (15 x 10000 with --callgraph)" },
	{ { "CPU_CLOCK:1000000:0x1" }, 0, { 0 },
	  "invalid unit mask 0x1 for event CPU_CLOCK: valid values are 0x0" },
	{ { "CPU_CLOCK:1000000:fast" }, 0, { 0 },
	  "no unit mask named 'fast' for event CPU_CLOCK: its unit mask values have no names" },
	{ { "CPU_CLOCK:1000000", "CPU_CLOCK:2000000" }, 0, { 0 },
	  "event CPU_CLOCK (unit mask 0x0) given twice" },
	{ { "CPU_CLOCK:1000000", "TASK_CLOCK:1000000", "CPU_CLOCK:1000000:0:0:1",
	    "TASK_CLOCK:1000000:0:0:1", "CPU_CLOCK:1000000:0:1:0" }, 0, { 0 },
	  "need 5 counters but cpu type 'timer' has only 4" },
};

static struct alloc_case const haswell_cases[] = {
	{ { "CPU_CLK_UNHALTED:100000", "INST_RETIRED:100000" }, 0, { 0, 1 }, NULL },
	{ { "L2_RQSTS:500:miss", "L2_RQSTS:500:0xff" }, 0, { 0, 1 }, NULL },
	{ { "L1D_PEND_MISS:6000", "INST_RETIRED_PREC_DIST:6000", "UOPS_ISSUED:6000",
	    "UOPS_RETIRED:6000" }, 0, { 2, 1, 0, 3 }, NULL },
	{ { "BR_INST_EXEC:500:0x41" }, 0, { 0 }, NULL },
	{ { "BR_INST_EXEC:500:0x3" }, 0, { 0 }, NULL },
	{ { "L2_LINES_IN:500:0x6" }, 0, { 0 }, NULL },
	{ { "CPU_CLK_UNHALTED:5000" }, 0, { 0 },
	  "count 5000 for event CPU_CLK_UNHALTED is below the minimum 6000" },
	{ { "L2_RQSTS:500:0x3" }, 0, { 0 },
	  "invalid unit mask 0x3 for event L2_RQSTS: valid values are 0x21, 0x41" },
	{ { "L2_LINES_IN:500:0x8" }, 0, { 0 },
	  "invalid unit mask 0x8 for event L2_LINES_IN: valid values are combinations of 0x1, 0x2, 0x4 and 0x7" },
	{ { "L2_RQSTS:500:hit" }, 0, { 0 },
	  "no unit mask named 'hit' for event L2_RQSTS: valid names are demand_data_rd_miss, " },
	{ { "L1D_PEND_MISS:6000:0x1:1:0", "L1D_PEND_MISS:6000:0x1:0:1" }, 0, { 0 },
	  "events L1D_PEND_MISS and L1D_PEND_MISS cannot be scheduled together: both can only use counter 2" },
	{ { "UOPS_ISSUED:6000", "UOPS_RETIRED:6000", "IDQ:6000", "L2_RQSTS:500",
	    "BR_INST_EXEC:500" }, 0, { 0 },
	  "need 5 counters but cpu type 'i386/haswell' has only 4" },
};

static struct alloc_case const family15h_cases[] = {
	{ { "CPU_CLK_UNHALTED:100000", "RETIRED_INSTRUCTIONS:100000" }, 0, { 0, 1 }, NULL },
	/* counter 3 holds DISPATCHED_FPU_OPS, so the FP-only event goes on 4 */
	{ { "DISPATCHED_FPU_OPS:500", "CYCLES_FPU_EMPTY:500", "DATA_CACHE_ACCESSES:500" },
	  0, { 3, 4, 0 }, NULL },
	{ { "DATA_CACHE_REFILLS_FROM_L2_OR_NORTHBRIDGE:500:0x9" }, 0, { 0 }, NULL },
	{ { "DATA_CACHE_REFILLS_FROM_L2_OR_NORTHBRIDGE:500:0x4" }, 0, { 0 },
	  "valid values are combinations of 0x1, 0x2 and 0x8" },
	{ { "DISPATCHED_FPU_OPS:500", "RETIRED_SSE_OPS:500" }, 0, { 0 },
	  "events DISPATCHED_FPU_OPS and RETIRED_SSE_OPS cannot be scheduled together: both can only use counter 3" },
	{ { "CPU_CLK_UNHALTED:100000", "REQUESTS_TO_L2:500", "L2_CACHE_MISS:500",
	    "INSTRUCTION_CACHE_FETCHES:500", "RETIRED_UOPS:6000" }, 0, { 0 },
	  "events CPU_CLK_UNHALTED, REQUESTS_TO_L2, L2_CACHE_MISS and INSTRUCTION_CACHE_FETCHES cannot be scheduled together: between them they can only use counters 0, 1 and 2" },
};

/* Hand-made: the first event's first counter must be given back. */
static void test_alloc__backtracking(void)
{
	static char const *const specs_ab[] = { "A:100", "B:100" };
	static char const *const specs_abcd[] = { "D:100", "A:100", "C:100", "B:100" };
	static char const *const specs_3on2[] = { "D:100", "A:100", "B:100", "E:100" };
	char const *root = check_tmpdir();
	char dir[1024], err[1024];
	struct op_event_set set;
	int counter[MAX];

	snprintf(dir, sizeof(dir), "%s/synthetic", root);
	test_write(dir, "unit_masks", "name:zero type:mandatory default:0x0\n\t0x0 none\n");
	test_write(dir, "events",
		   "event:0x1 counters:0,1 um:zero minimum:1 name:A : on 0 or 1\n"
		   "event:0x2 counters:0 um:zero minimum:1 name:B : on 0\n"
		   "event:0x3 counters:0,1,2 um:zero minimum:1 name:C : on 0, 1 or 2\n"
		   "event:0x4 counters:0,1,2,3 um:zero minimum:1 name:D : anywhere\n"
		   "event:0x5 counters:1 um:zero minimum:1 name:E : on 1\n");
	if (!check_that(op_events_load_dir(dir, &set, err, sizeof(err)) == 0)) {
		fprintf(stderr, "  %s\n", err);
		return;
	}
	check_that(set.nr_counters == 4);
	check_that(run(&set, specs_ab, 2, 0, counter, err, sizeof(err)) == 0);
	check_that(counter[0] == 1 && counter[1] == 0);
	check_that(run(&set, specs_abcd, 4, 0, counter, err, sizeof(err)) == 0);
	check_that(counter[0] == 3 && counter[1] == 1 && counter[2] == 2 && counter[3] == 0);
	check_that(run(&set, specs_3on2, 4, 0, counter, err, sizeof(err)) == -1);
	check_contains(err, "events A, B and E cannot be scheduled together: between them they can only use counters 0 and 1",
		       "line %d: the message", __LINE__);
	op_events_free(&set);
	check_rmtree(root);
}

static void test_check__no_events(void)
{
	struct op_event_set set;
	char err[256];
	int counter[1];

	check_that(op_events_load(CPU_TIMER_INT, &set, err, sizeof(err)) == 0);
	check_that(op_check_events(&set, NULL, 0, 0, counter, err, sizeof(err)) == -1);
	check_contains(err, "no events given",
		       "line %d: the message", __LINE__);
	op_events_free(&set);
}

int main(void)
{
	run_cases(CPU_TIMER_INT, timer_cases, sizeof(timer_cases) / sizeof(timer_cases[0]));
	run_cases(CPU_HASWELL, haswell_cases, sizeof(haswell_cases) / sizeof(haswell_cases[0]));
	run_cases(CPU_FAMILY15H, family15h_cases,
		  sizeof(family15h_cases) / sizeof(family15h_cases[0]));
	test_alloc__backtracking();
	test_check__no_events();
	return check_done();
}
