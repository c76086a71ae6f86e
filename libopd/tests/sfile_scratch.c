/* The sample file cache tests' shared set-up (sfile_scratch.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "op_cpu_type.h"
#include "op_message.h"
#include "sfile_scratch.h"

char const *scratch_make(char bin[SCRATCH_BIN_LEN],
			 char sfile_path[SCRATCH_PATH_LEN],
			 struct opd_config *cfg)
{
	char const *dir = check_tmpdir();
	FILE *f;

	snprintf(bin, SCRATCH_BIN_LEN, "%s/prog", dir);
	snprintf(sfile_path, SCRATCH_PATH_LEN,
		 "%s/{root}%s/{dep}/{root}%s/CPU_CLOCK.1000000.0.all.all.all",
		 dir, bin, bin);
	f = fopen(bin, "w");
	if (!f)
		op_die("cannot create %s", bin);
	fclose(f);
	memset(cfg, 0, sizeof(*cfg));
	cfg->cpu_type = CPU_TIMER_INT;
	cfg->nr_events = 1;
	strcpy(cfg->events[0].name, "CPU_CLOCK");
	cfg->events[0].count = 1000000;
	return dir;
}

void scratch_add(struct opd_sfiles *sfs, int image, uint64_t key, int n)
{
	struct opd_sfile_key k = { .app = image, .image = image, .cg = -1,
				   .tgid = -1, .tid = -1, .cpu = -1, .event = 0 };

	while (n--)
		opd_sfile_add(sfs, &k, key);
}

void scratch_remove(char const *dir)
{
	check(!check_rmtree(dir), "the scratch directory is removed");
}
