/* The sample file cache tests' shared set-up (sfile_scratch.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "op_cpu_type.h"
#include "op_message.h"
#include "sfile_scratch.h"

void scratch_make(char *dir, char bin[SCRATCH_BIN_LEN],
		  char sfile_path[SCRATCH_PATH_LEN], struct opd_config *cfg)
{
	FILE *f;

	if (!mkdtemp(dir))
		op_die("mkdtemp %s failed", dir);
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
	char cmd[SCRATCH_PATH_LEN];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	check(!system(cmd), "the scratch directory is removed");
}
