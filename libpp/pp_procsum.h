/*
 * Prospect's process summary (opreport --processes, operf --summary): one
 * row per process of a session - pid, command, user and system samples
 * and the CPU time they stand for, share - sorted by samples, then each
 * process's user and kernel portions and one global kernel profile.
 *
 * A row is a tgid when the session separates threads (--separate-thread;
 * kernel samples carry their tgid too), else an application: system
 * samples (those in kernel images) then sit under their application only
 * in a session that separates the kernel (--separate=kernel; operf
 * --summary does), otherwise they form the kernel's own row.
 * Time is samples x period, as Prospect's, and only for the clock events
 * (CPU_CLOCK, TASK_CLOCK: the period is in ns); the summary counts one
 * event, the first the files name, and says which.
 */
#ifndef PP_PROCSUM_H
#define PP_PROCSUM_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "pp_files.h"
#include "pp_profile.h"

struct pp_proc {
	int tgid;                /* -1: the session does not separate threads */
	char *app;               /* the application's path or kernel name */
	bool app_is_kernel;
	int app_rank;            /* how program-like app is (pp_sfile_app_rank) */
	uint64_t user, sys;      /* samples */
};

struct pp_procsum {
	struct pp_proc *v;       /* sorted: most samples first */
	size_t n, alloc;
	uint64_t user, sys;      /* totals */
	char *event;             /* the event counted */
	uint64_t period_ns;      /* ns a sample stands for; 0: not a clock */
	size_t nr_bad_files;     /* unreadable: left out (noted) */
};

/* Count files' samples by process. 0, or -1 with err. */
int pp_procsum_build(struct pp_procsum *ps, struct pp_filelist const *files,
		     struct pp_strlist *notes, char *err, size_t errlen);

/* The summary table: rows with at least threshold % of all samples. */
void pp_procsum_print(FILE *out, struct pp_procsum const *ps,
		      double threshold);

/*
 * One process's profile p (symbols), as its USER and KERNEL portions;
 * kernel images are those files names as kernel. Symbols with at least
 * threshold % of the portion are listed.
 */
void pp_procsum_print_portions(FILE *out, struct pp_proc const *proc,
			       struct pp_profile const *p,
			       struct pp_filelist const *files,
			       double threshold);

/* Every kernel symbol of p, summed over the processes. */
void pp_procsum_print_kernel(FILE *out, struct pp_profile const *p,
			     struct pp_filelist const *files,
			     double threshold);

/* The words "tgid:N" or "image:APP" selecting proc's files (malloc'ed). */
char *pp_procsum_spec(struct pp_proc const *proc);

void pp_procsum_free(struct pp_procsum *ps);

#endif /* PP_PROCSUM_H */
