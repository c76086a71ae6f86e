/*
 * End to end: a syscall-heavy dd (reading /dev/zero in 1 MiB blocks)
 * must produce kernel-mode samples for dd's tgid whose raw pcs lie in the
 * kernel text (_stext.._etext from /proc/kallsyms) or a module.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "perf_run.h"
#include "sample_count.h"

struct range {
	unsigned long start, end;
};

/* The kernel text and module ranges; their count (0: unreadable). */
static int kernel_ranges(struct range *r, int max)
{
	FILE *f = fopen("/proc/kallsyms", "re");
	char line[512], name[256], type;
	unsigned long addr, size;
	int n = 1;

	r[0].start = r[0].end = 0;
	while (f && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx %c %255s", &addr, &type, name) != 3)
			continue;
		if (!strcmp(name, "_stext"))
			r[0].start = addr;
		else if (!strcmp(name, "_etext"))
			r[0].end = addr;
	}
	if (f)
		fclose(f);
	f = fopen("/proc/modules", "re");
	while (f && n < max && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%255s %lu %*s %*s %*s %lx", name, &size,
			   &addr) == 3 && addr) {
			r[n].start = addr;
			r[n++].end = addr + size;
		}
	}
	if (f)
		fclose(f);
	return r[0].start && r[0].end > r[0].start ? n : 0;
}

int main(void)
{
	struct range ranges[512];
	char dd[PATH_MAX];
	struct perf_run r;
	size_t n = 0, in = 0;
	int nr, rc;
	pid_t pid;

	nr = kernel_ranges(ranges, 512);
	if (!nr) {
		fprintf(stderr, "cannot read _stext/_etext from /proc/kallsyms\n");
		return 1;
	}
	perf_run_realpath("/bin/dd", dd);
	rc = perf_run_start(&r, 1000000UL, 0);
	if (rc)
		return rc;
	pid = perf_run_spawn((char *[]){ dd, "if=/dev/zero", "of=/dev/null",
				 "bs=1M", "count=20000", "status=none", NULL });
	check(perf_run_wait(&r, &pid, 1) == 0, "dd ran");
	check(perf_run_stop(&r) == 0, "stream decodes with no errors");
	tally_report(&r.tally, "kernel");
	for (size_t i = 0; i < r.tally.nr; i++) {
		struct tally_sample const *s = &r.tally.s[i];

		if (s->tgid != (unsigned long)pid || !s->in_kernel)
			continue;
		n++;
		for (int k = 0; k < nr; k++) {
			if (s->pc >= ranges[k].start && s->pc < ranges[k].end) {
				in++;
				break;
			}
		}
	}
	check(n >= 100 && in >= n * 0.9, "%zu/%zu kernel samples of "
	      "dd (tgid %d) in kernel text [%#lx, %#lx) or modules",
	      in, n, (int)pid, ranges[0].start, ranges[0].end);
	n = count_samples(&r.tally, &(struct sample_filter){
			  .tgid = (unsigned long)pid, .path = dd,
			  .by_app = true }, 0, 0, &in);
	check(n >= 100, "%zu samples of dd's tgid have app %s", n, dd);
	perf_run_free(&r);
	return check_done();
}
