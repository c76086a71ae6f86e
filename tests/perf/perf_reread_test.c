/*
 * End to end: side-band records lost to a ring overflow, and the re-read
 * of /proc/PID/maps that recovers the samples they would have resolved
 * (doc/perf_source.md).
 *
 * The source runs with 2-page rings. The reader stops reading for 300 ms
 * while the mapstorm workload, pinned to one cpu, maps its own binary
 * 3000 times (MMAP2 records that fill that cpu's ring), then dlopens
 * libhot.so (its MMAP2 is lost) and forks (the FORK is lost), and both
 * processes spin in hot_lib_loop. Run twice:
 *  - without re-reads: the parent's samples in the library are lost as
 *    sample_lost_no_mapping, the unknown child's as sample_lost_no_mm
 *    (this proves the run really lost those records);
 *  - with re-reads: at least 90% of the workload's user samples (plus
 *    every sample lost for want of a mapping) are in hot_lib_loop, in
 *    both processes, and records were lost all the same.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "perf_run.h"
#include "sample_count.h"

#define PERIOD_NS 1000000UL
#define MAPPINGS "3000"
#define SPIN_SECONDS "0.6"
#define PAUSE_US 300000

struct outcome {
	size_t user;		/* user samples of the workload's processes */
	size_t hot;		/* ... in hot_lib_loop of libhot.so */
	size_t lib_procs;	/* processes with samples in libhot.so */
	uint64_t overflow, no_mapping, no_mm;
	uint64_t reread, hit, gone;
};

/* The parent's user samples and those of any other process sampled in
 * the library (the child) go into o. */
static void tally_workload(struct tally const *t, pid_t parent,
			   char const *lib, unsigned long s, unsigned long e,
			   struct outcome *o)
{
	unsigned long procs[8];
	size_t nprocs = 0;

	procs[nprocs++] = (unsigned long)parent;
	for (size_t i = 0; i < t->nr; i++) {
		struct tally_sample const *x = &t->s[i];
		size_t k;

		if (x->in_kernel || strcmp(tally_cookie_name(t, x->cookie), lib))
			continue;
		for (k = 0; k < nprocs && procs[k] != x->tgid; k++)
			;
		if (k == nprocs && nprocs < 8)
			procs[nprocs++] = x->tgid;
	}
	for (size_t i = 0; i < t->nr; i++) {
		struct tally_sample const *x = &t->s[i];
		bool ours = false;

		for (size_t k = 0; k < nprocs; k++)
			ours |= procs[k] == x->tgid;
		if (!ours || x->in_kernel)
			continue;
		o->user++;
		if (!strcmp(tally_cookie_name(t, x->cookie), lib)) {
			if (x->pc >= s && x->pc < e)
				o->hot++;
		}
	}
	for (size_t k = 0; k < nprocs; k++) {
		size_t in, n = count_samples(t, &(struct sample_filter){
			.tgid = procs[k], .path = lib }, s, e, &in);

		o->lib_procs += n > 0;
	}
}

static int run(bool reread, char const *storm, char const *lib,
	       unsigned long s, unsigned long e, struct outcome *o)
{
	struct perf_source_event ev = perf_run_cpu_clock(PERIOD_NS);
	struct perf_source_config cfg = {
		.events = &ev,
		.nr_events = 1,
		.ring_pages = 2,
		.no_reread = !reread,
	};
	struct opd_perf_stats const *st;
	struct perf_run r;
	pid_t pid;
	int rc;

	memset(o, 0, sizeof(*o));
	rc = perf_run_start_config(&r, &cfg);
	if (rc)
		return rc;
	perf_run_pump(&r, 0);
	pid = perf_run_spawn((char *[]){ (char *)storm, MAPPINGS, (char *)lib,
					 SPIN_SECONDS, NULL });
	/* the reader stops: the workload's ring overflows meanwhile */
	usleep(PAUSE_US);
	check(perf_run_wait(&r, &pid, 1) == 0, "mapstorm ran");
	check(perf_run_stop(&r) == 0, "stream decodes with no errors "
	      "and replays the same");
	st = opd_perf_stats(r.ps);
	tally_report(&r.tally, reread ? "with re-reads" : "without re-reads");
	tally_workload(&r.tally, pid, lib, s, e, o);
	o->overflow = st->lost[OP_LOST_OVERFLOW];
	o->no_mapping = st->lost[OP_LOST_NO_MAPPING];
	o->no_mm = st->lost[OP_LOST_NO_MM];
	o->reread = st->count[OP_COUNT_MAPS_REREAD];
	o->hit = st->count[OP_COUNT_MAPS_REREAD_HIT];
	o->gone = st->count[OP_COUNT_MAPS_REREAD_GONE];
	fprintf(stderr, "%s re-reads: %zu user samples of the workload, %zu in "
		"hot_lib_loop, %zu processes in the library; lost: overflow "
		"%llu, no_mapping %llu, no_mm %llu; maps re-read %llu (hit "
		"%llu, gone %llu); mmaps %llu, forks %llu\n",
		reread ? "with" : "without", o->user, o->hot, o->lib_procs,
		(unsigned long long)o->overflow,
		(unsigned long long)o->no_mapping,
		(unsigned long long)o->no_mm, (unsigned long long)o->reread,
		(unsigned long long)o->hit, (unsigned long long)o->gone,
		(unsigned long long)st->mmaps, (unsigned long long)st->forks);
	check(o->overflow > 0, "records were lost to the overflow "
	      "(%llu)", (unsigned long long)o->overflow);
	perf_run_free(&r);
	return 0;
}

int main(void)
{
	char storm[PATH_MAX], lib[PATH_MAX];
	struct outcome without, with;
	unsigned long s, e;
	double share;
	int rc;

	perf_run_realpath(workload_path("mapstorm"), storm);
	if (perf_run_workload_func("libhot.so", "hot_lib_loop", lib, &s, &e))
		return 1;

	rc = run(false, storm, lib, s, e, &without);
	if (rc == SKIP)
		return SKIP;
	check(rc == 0, "the perf source starts (re-reads off)");
	check(without.no_mapping >= 100, "without re-reads the "
	      "library's MMAP2 was lost: %llu samples in no mapping",
	      (unsigned long long)without.no_mapping);
	check(without.no_mm >= 100, "without re-reads the child's "
	      "FORK was lost: %llu samples of no known process",
	      (unsigned long long)without.no_mm);
	check(without.reread == 0, "no re-reads when they are off");

	check(run(true, storm, lib, s, e, &with) == 0,
	      "the perf source starts (re-reads on)");
	share = (double)with.hot /
		(double)(with.user + with.no_mapping + with.no_mm + 1);
	check(with.user >= 300 && share >= 0.9, "with re-reads "
	      "%zu/%zu user samples of the workload (+%llu lost for "
	      "want of a mapping) are in hot_lib_loop: %.1f%%",
	      with.hot, with.user,
	      (unsigned long long)(with.no_mapping + with.no_mm),
	      share * 100);
	check(with.lib_procs >= 2, "%zu processes (the parent, and "
	      "the child whose FORK was lost) have samples in %s",
	      with.lib_procs, lib);
	check(with.reread >= 2 && with.hit >= 2, "maps re-read %llu "
	      "times, %llu resolved the pc that asked",
	      (unsigned long long)with.reread,
	      (unsigned long long)with.hit);
	check(with.reread <= 50, "re-reads stay bounded (%llu)",
	      (unsigned long long)with.reread);
	return check_done();
}
