/*
 * The vDSO is the same code in every process of a boot, so its samples
 * go to one image, OPD_VDSO_PATH, instead of an anonymous region per
 * process (a short program calling clock_gettime in a loop made a sample
 * file per process). Its bytes are saved in the session, by build-id,
 * as a kept binary (session/binaries/BUILD-ID, perf's build-id cache),
 * and the build-ids file names it OPD_VDSO_PATH, so the reports
 * symbolise it (__vdso_clock_gettime, ...) from the copy.
 *
 * Only a region of the size of the daemon's own vDSO is that code: a
 * 32-bit process maps another vDSO, which stays an anonymous region.
 */
#ifndef OPD_VDSO_H
#define OPD_VDSO_H

#include <stdbool.h>
#include <stddef.h>

/* The image's name: a path no file has, which OProfile 1.x tools read
 * as a binary they cannot find (samples shown without symbols). */
#define OPD_VDSO_PATH "/[vdso]"
/* The region name /proc/PID/maps and the producers give it. */
#define OPD_VDSO_REGION "[vdso]"

/* This process's vDSO: its bytes and size (0 if there is none). */
void const *opd_vdso_self(size_t *size);

/* A region named name of [start, end) is this boot's (64-bit) vDSO. */
bool opd_vdso_is(char const *name, unsigned long start, unsigned long end);

/*
 * Save the vDSO's bytes as dir/BUILD-ID (dir is created) unless there;
 * hex gets the build-id and *path the file (malloc'd). 0, or -1 with err.
 */
int opd_vdso_save(char const *dir, char hex[], char **path, char *err,
		  size_t errlen);

#endif /* OPD_VDSO_H */
