/*
 * A new stream mid-session (the daemon rotating its output): after
 * opd_perf_new_stream(), a fresh decoder must decode what follows with
 * no errors, every cookie defined again and the context re-sent, and
 * still attribute the running workload to its hot function.
 */
#include <limits.h>
#include <stdio.h>

#include "check.h"
#include "perf_run.h"
#include "sample_count.h"

int main(void)
{
	char bin[PATH_MAX];
	unsigned long hs, he;
	size_t n, in;
	struct perf_run r;
	int rc;
	pid_t pid;

	if (perf_run_workload_func("hot_main", "hot_main_loop", bin, &hs, &he))
		return 1;
	rc = perf_run_start(&r, 1000000UL, 0);
	if (rc)
		return rc;
	pid = perf_run_spawn((char *[]){ bin, "1.5", NULL });
	for (int i = 0; i < 8; i++)
		perf_run_pump(&r, 50);
	check(opd_trans_finish(&r.tally.dec) == 0,
	      "first stream decodes with no errors");
	tally_report(&r.tally, "first stream");
	tally_free(&r.tally);
	tally_init(&r.tally, "second stream");
	r.no_replay = true;
	opd_perf_new_stream(r.ps);
	check(perf_run_wait(&r, &pid, 1) == 0, "the workloads ran");
	check(perf_run_stop(&r) == 0,
	      "second stream decodes on its own with no errors");
	tally_report(&r.tally, "second stream");
	n = count_samples(&r.tally, &(struct sample_filter){
			  .tgid = (unsigned long)pid, .path = bin }, hs, he, &in);
	check(n >= 300 && in >= n * 0.9,
	      "second stream: %zu/%zu samples in hot_main_loop", in, n);
	perf_run_free(&r);
	return check_done();
}
