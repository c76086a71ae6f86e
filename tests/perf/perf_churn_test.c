/*
 * End to end: 500 short-lived fork/exec processes while sampling at
 * 1 kHz. The source must follow every FORK/COMM(exec)/MMAP2/EXIT without
 * decode errors, and attribute the children's samples to their binary.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "perf_run.h"
#include "sample_count.h"

static int compare_ulong(void const *a, void const *b)
{
	unsigned long x = *(unsigned long const *)a, y = *(unsigned long const *)b;

	return x < y ? -1 : x > y;
}

/* Distinct processes among the samples whose app is path. */
static size_t distinct_apps(struct tally const *t, char const *path)
{
	unsigned long *tgid = calloc(t->nr + 1, sizeof(*tgid));
	size_t n = 0, distinct = 0;

	for (size_t i = 0; i < t->nr; i++)
		if (!strcmp(tally_cookie_name(t, t->s[i].app), path))
			tgid[n++] = t->s[i].tgid;
	qsort(tgid, n, sizeof(*tgid), compare_ulong);
	for (size_t i = 0; i < n; i++)
		distinct += !i || tgid[i] != tgid[i - 1];
	free(tgid);
	return distinct;
}

int main(void)
{
	char churn[PATH_MAX];
	unsigned long s, e;
	struct perf_run r;
	pid_t pid;
	size_t n, in, procs;
	int rc;

	if (perf_run_workload_func("churn", "churn_spin", churn, &s, &e))
		return 1;
	rc = perf_run_start(&r, 1000000UL, 0);
	if (rc)
		return rc;
	pid = perf_run_spawn((char *[]){ churn, "500", NULL });
	check(perf_run_wait(&r, &pid, 1) == 0, "500 fork/exec children ran");
	check(perf_run_stop(&r) == 0, "stream decodes with no errors");
	tally_report(&r.tally, "churn");
	fprintf(stderr, "source: forks %llu, execs %llu, exits %llu, mmaps %llu\n",
		(unsigned long long)opd_perf_stats(r.ps)->forks,
		(unsigned long long)opd_perf_stats(r.ps)->execs,
		(unsigned long long)opd_perf_stats(r.ps)->exits,
		(unsigned long long)opd_perf_stats(r.ps)->mmaps);

	n = count_samples(&r.tally, &(struct sample_filter){ .path = churn },
			  s, e, &in);
	check(n >= 100 && in >= n * 0.8, "%zu/%zu samples of %s in "
	      "churn_spin", in, n, churn);
	procs = distinct_apps(&r.tally, churn);
	check(procs >= 200, "%zu churn processes have samples with "
	      "app %s", procs, churn);
	check(opd_perf_stats(r.ps)->execs >= 500,
	      "%llu exec records seen",
	      (unsigned long long)opd_perf_stats(r.ps)->execs);
	perf_run_free(&r);
	return check_done();
}
