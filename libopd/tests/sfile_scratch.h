/*
 * The set-up the sample file cache tests share: a scratch directory
 * holding an empty binary DIR/prog, the path of its --separate=none
 * sample file there, and a config of one event (CPU_CLOCK:1000000).
 */
#ifndef SFILE_SCRATCH_H
#define SFILE_SCRATCH_H

#include <stdint.h>

#include "opd_core.h"
#include "opd_sfile.h"

#define SCRATCH_BIN_LEN 256
#define SCRATCH_PATH_LEN 1024

/*
 * The test's scratch directory (check_tmpdir: removed at exit), returned;
 * bin: DIR/prog, created empty; sfile_path: its sample file; cfg: zeroed,
 * one event. Dies (op_die) when the binary cannot be made.
 */
char const *scratch_make(char bin[SCRATCH_BIN_LEN],
			 char sfile_path[SCRATCH_PATH_LEN],
			 struct opd_config *cfg);

/* n samples at key in image's own --separate=none file. */
void scratch_add(struct opd_sfiles *sfs, int image, uint64_t key, int n);

/* dir and all it holds removed, checked. */
void scratch_remove(char const *dir);

#endif /* SFILE_SCRATCH_H */
