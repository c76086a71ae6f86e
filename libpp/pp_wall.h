/*
 * The wall-clock view (opreport --wall, doc/offcpu.md): per thread (per
 * process, or per application, when the session does not separate them)
 * its time on the cpu and its time blocked off it, side by side, in
 * microseconds. On-CPU time comes from a clock event's samples (CPU_CLOCK
 * or TASK_CLOCK: samples x period ns / 1000); off-CPU time is OFF_CPU's
 * counts, which are microseconds already. Their sum is the thread's wall
 * time but for the time it was runnable and waited for a cpu, which
 * neither event sees.
 */
#ifndef PP_WALL_H
#define PP_WALL_H

#include <stdint.h>
#include <stdio.h>

#include "pp_files.h"
#include "pp_notes.h"

struct pp_wall_row {
	int tgid, tid;		/* -1: not separated */
	char *app;		/* the application's path (or kernel name) */
	int app_rank;		/* how program-like app is (pp_sfile_app_rank) */
	double on_us, off_us;
};

struct pp_wall {
	struct pp_wall_row *v;	/* sorted: most wall time first */
	size_t n, alloc;
	char *clock;		/* the clock event used ("CPU_CLOCK"), or NULL */
	uint64_t period_ns;	/* its period */
	size_t nr_bad_files;	/* unreadable: left out (noted) */
};

/* From the selected sample files. 0, or -1 with err (no clock and no
 * OFF_CPU samples, or two clock periods mixed). */
int pp_wall_build(struct pp_wall *w, struct pp_filelist const *files,
		  struct pp_strlist *notes, char *err, size_t errlen);
void pp_wall_print(FILE *out, struct pp_wall const *w, double threshold);
void pp_wall_free(struct pp_wall *w);

#endif /* PP_WALL_H */
