/*
 * End to end: sample system-wide at 1 kHz while a hot loop runs in a main
 * binary and another in a shared library (concurrently, with whatever
 * else the machine runs), then check the decoded stream against the ELF
 * symbol tables: >= 90% of each binary's samples in its hot function.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#include "check.h"
#include "perf_run.h"
#include "sample_count.h"

#define PERIOD_NS 1000000UL

int main(void)
{
	char main_bin[PATH_MAX], lib_bin[PATH_MAX], lib_so[PATH_MAX];
	unsigned long ms, me, ls, le;
	struct perf_run r;
	pid_t pids[2];
	size_t n, in, napp, nall, inapp;
	int rc;

	perf_run_realpath(workload_path("hot_lib"), lib_bin);
	if (perf_run_workload_func("hot_main", "hot_main_loop", main_bin,
				   &ms, &me) ||
	    perf_run_workload_func("libhot.so", "hot_lib_loop", lib_so,
				   &ls, &le))
		return 1;
	rc = perf_run_start(&r, PERIOD_NS, 0);
	if (rc)
		return rc;
	pids[0] = perf_run_spawn((char *[]){ main_bin, "1.5", NULL });
	pids[1] = perf_run_spawn((char *[]){ lib_bin, "1.5", NULL });
	check(perf_run_wait(&r, pids, 2) == 0, "the workloads ran");
	check(perf_run_stop(&r) == 0, "stream decodes with no errors "
	      "(live and replayed in 7-word chunks)");
	tally_report(&r.tally, "hot");

	n = count_samples(&r.tally, &(struct sample_filter){
			  .tgid = (unsigned long)pids[0], .path = main_bin },
			  ms, me, &in);
	check(n >= 300 && in >= n * 0.9, "%zu/%zu samples of %s in "
	      "hot_main_loop [%#lx, %#lx)", in, n, main_bin, ms, me);
	n = count_samples(&r.tally, &(struct sample_filter){
			  .tgid = (unsigned long)pids[1], .path = lib_so },
			  ls, le, &in);
	check(n >= 300 && in >= n * 0.9, "%zu/%zu samples of %s in "
	      "hot_lib_loop [%#lx, %#lx)", in, n, lib_so, ls, le);
	nall = count_samples(&r.tally, &(struct sample_filter){
			     .tgid = (unsigned long)pids[1] }, 0, 0, &in);
	napp = count_samples(&r.tally, &(struct sample_filter){
			     .tgid = (unsigned long)pids[1], .path = lib_bin,
			     .by_app = true }, 0, 0, &inapp);
	check(napp >= nall * 0.9, "%zu/%zu samples of hot_lib's tgid "
	      "have app %s", napp, nall, lib_bin);
	nall += count_samples(&r.tally, &(struct sample_filter){
			      .tgid = (unsigned long)pids[0] }, 0, 0, &in);
	check(nall > r.cpu_seconds * 1e9 / PERIOD_NS * 0.3 &&
	      nall < r.cpu_seconds * 1e9 / PERIOD_NS * 3,
	      "%zu samples for %.2f s of workload CPU time at 1 kHz",
	      nall, r.cpu_seconds);
	perf_run_free(&r);
	return check_done();
}
