/*
 * Seeding the process table from /proc, as perf record synthesises its
 * mmap events: processes that existed before the events were enabled
 * produce no MMAP2/COMM records, so their maps come from /proc/PID/maps
 * and their app image from /proc/PID/exe. Only executable mappings are
 * kept: the events report only those (attr.mmap_data is off), and no pc
 * lies anywhere else.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cookie_table.h"
#include "op_stream.h"
#include "proc_maps.h"

/* One /proc/PID/maps line: "start-end perms offset maj:min inode   path". */
static void seed_line(struct proc_table *pt, struct cookie_table *ct,
		      struct proc *p, char *line)
{
	unsigned long start, end, pgoff, inode;
	unsigned maj, min;
	char perms[8];
	int name_at = 0;
	char *name;
	size_t len;

	if (sscanf(line, "%lx-%lx %7s %lx %x:%x %lu %n", &start, &end, perms,
		   &pgoff, &maj, &min, &inode, &name_at) < 7 || !name_at)
		return;
	if (strlen(perms) < 3 || perms[2] != 'x')
		return;
	name = line + name_at;
	len = strlen(name);
	while (len && (name[len - 1] == '\n'))
		len--;
	pm_map(pt, ct, p, start, end - start, pgoff, name, len,
	       (struct ct_file_id){ (uint64_t)maj << 32 | min, inode });
}

static void seed_exe(struct cookie_table *ct, struct proc *p)
{
	char link[64], path[PATH_MAX];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/%lu/exe", p->tgid);
	n = readlink(link, path, sizeof(path));
	/* kernel threads have no exe: they keep OP_NO_COOKIE */
	if (n <= 0 || (size_t)n >= sizeof(path))
		return;
	p->app_cookie = ct_intern(ct, path, (size_t)n);
}

int pm_seed(struct proc_table *pt, struct cookie_table *ct, unsigned long pid)
{
	char file[64], *line = NULL;
	size_t cap = 0;
	struct proc *p;
	FILE *f;

	snprintf(file, sizeof(file), "/proc/%lu/maps", pid);
	f = fopen(file, "re");
	if (!f)
		return -errno;
	p = pm_get(pt, pid);
	p->exec_pending = false;
	seed_exe(ct, p);
	while (getline(&line, &cap, f) > 0)
		seed_line(pt, ct, p, line);
	free(line);
	fclose(f);
	return 0;
}

size_t pm_seed_all(struct proc_table *pt, struct cookie_table *ct)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	size_t n = 0;

	if (!d)
		return 0;
	while ((de = readdir(d))) {
		char *end;
		unsigned long pid;

		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		pid = strtoul(de->d_name, &end, 10);
		if (*end)
			continue;
		/* a process that exited meanwhile is simply not seeded */
		if (!pm_seed(pt, ct, pid))
			n++;
	}
	closedir(d);
	return n;
}
