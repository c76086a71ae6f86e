/*
 * End to end with backtraces (callgraph depth 8): the hot loop's samples
 * must come with an arc from main (both in the workload binary, built
 * with frame pointers), and the stream must decode with no errors.
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "elf_range.h"
#include "perf_run.h"
#include "sample_count.h"

int main(void)
{
	char bin[PATH_MAX];
	unsigned long hs, he, ms, me;
	size_t n, in, arcs = 0, from_main = 0;
	struct perf_run r;
	unsigned long bin_cookie = 0;
	int rc;
	pid_t pid;

	if (perf_run_workload_func("hot_main", "hot_main_loop", bin, &hs, &he) ||
	    elf_func_range(bin, "main", &ms, &me))
		return 1;
	rc = perf_run_start(&r, 1000000UL, 8);
	if (rc)
		return rc;
	pid = perf_run_spawn((char *[]){ bin, "1.0", NULL });
	check(perf_run_wait(&r, &pid, 1) == 0, "the workloads ran");
	check(perf_run_stop(&r) == 0, "stream decodes with no errors "
	      "(live and replayed in 7-word chunks)");
	tally_report(&r.tally, "callgraph");
	n = count_samples(&r.tally, &(struct sample_filter){
			  .tgid = (unsigned long)pid, .path = bin }, hs, he, &in);
	for (size_t i = 0; i < r.tally.nr_arcs; i++) {
		struct tally_arc const *a = &r.tally.a[i];

		if (a->tgid != (unsigned long)pid || a->callee.in_kernel ||
		    strcmp(tally_cookie_name(&r.tally, a->callee.cookie), bin) ||
		    a->callee.pc < hs || a->callee.pc >= he)
			continue;
		arcs++;
		bin_cookie = a->callee.cookie;
		if (!a->caller.in_kernel && a->caller.cookie == bin_cookie &&
		    a->caller.pc >= ms && a->caller.pc < me)
			from_main++;
	}
	check(in >= 300, "%zu/%zu samples in hot_main_loop", in, n);
	check(arcs >= in * 0.9 && from_main >= arcs * 0.9,
	      "%zu arcs into hot_main_loop, %zu from main [%#lx, %#lx)",
	      arcs, from_main, ms, me);
	perf_run_free(&r);
	return check_done();
}
