/*
 * Seeding the process table from /proc, as perf record synthesises its
 * mmap events: processes that existed before the events were enabled
 * produce no MMAP2/COMM records, so their maps come from /proc/PID/maps
 * and their app image from /proc/PID/exe. Only executable mappings are
 * kept: the events report only those (attr.mmap_data is off), and no pc
 * lies anywhere else.
 *
 * Re-seeding (opd_maps_refresh) reads the same files later, for one process
 * whose records were lost, under the limits of struct pm_reread; see
 * opd_maps.h for what it may change. After lost records, /proc/PID/stat
 * tells which processes are gone without an EXIT (opd_maps_exit_gone).
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "opd_cookie.h"
#include "op_file.h"
#include "op_stream.h"
#include "op_util.h"
#include "opd_maps.h"

/* One /proc/PID/maps line: "start-end perms offset maj:min inode   path".
 * gaps: map only where p has no VMA yet (opd_maps_map_gaps). */
static void seed_line(struct proc_table *pt, struct cookie_table *ct,
		      struct proc *p, char *line, bool gaps)
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
	(gaps ? opd_maps_map_gaps : opd_maps_map)(pt, ct, p, start, end - start, pgoff,
				      name, len, (struct ct_file_id){
					      .dev = (uint64_t)maj << 32 | min,
					      .ino = inode });
}

/* path of /proc/PID/NAME under the table's proc root */
static void proc_file(struct proc_table const *pt, unsigned long pid,
		      char const *name, char *buf, size_t len)
{
	snprintf(buf, len, "%s/%lu/%s", pt->proc_root, pid, name);
}

/* /proc/PID/exe into path (NUL-terminated); its length, 0 if none:
 * kernel threads have no exe. */
static size_t read_exe(struct proc_table const *pt, unsigned long pid,
		       char *path, size_t size)
{
	char link[PATH_MAX];
	ssize_t n;

	proc_file(pt, pid, "exe", link, sizeof(link));
	n = readlink(link, path, size);
	if (n <= 0 || (size_t)n >= size)
		return 0;
	path[n] = '\0';
	return (size_t)n;
}

/* Every line of f through seed_line. */
static void seed_lines(struct proc_table *pt, struct cookie_table *ct,
		       struct proc *p, FILE *f, bool gaps)
{
	char *line = NULL;
	size_t cap = 0;

	while (getline(&line, &cap, f) > 0)
		seed_line(pt, ct, p, line, gaps);
	free(line);
}

int opd_maps_start_ticks(struct proc_table const *pt, unsigned long pid,
		   uint64_t *ticks)
{
	char file[PATH_MAX], buf[1024];
	char *s, *end;
	ssize_t n;
	int fd;

	proc_file(pt, pid, "stat", file, sizeof(file));
	fd = op_open_regular(file, O_RDONLY);
	if (fd < 0)
		return -errno;
	n = op_read_full(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n < 0)
		return errno == ESRCH ? -ESRCH : -errno;
	buf[n] = '\0';
	/* "pid (comm) state ppid ...": comm may hold spaces and ')' */
	s = strrchr(buf, ')');
	if (!s || s[1] != ' ' || !s[2])
		return -EINVAL;
	s += 2;
	if (*s == 'Z' || *s == 'X')
		return -ESRCH;	/* exited: only its parent's wait is left */
	for (int field = 3; field < 22; field++) {
		s = strchr(s, ' ');
		if (!s)
			return -EINVAL;
		s++;
	}
	*ticks = strtoull(s, &end, 10);
	return end == s || (*end != ' ' && *end) ? -EINVAL : 0;
}

/* Is the process p, alive and not exited, gone from /proc? Records its
 * start time if the table had none (a pid first seen through MMAP2 or
 * COMM: reuse cannot be told then, but can from now on). */
static bool proc_gone(struct proc_table const *pt, struct proc *p)
{
	uint64_t ticks;
	int rc = opd_maps_start_ticks(pt, p->tgid, &ticks);

	if (rc == -ENOENT || rc == -ESRCH)
		return true;
	if (rc)
		return false;	/* cannot tell: keep it */
	if (!p->start_ticks) {
		p->start_ticks = ticks;
		return false;
	}
	/* an earlier start is clock trouble, not another process */
	return ticks > p->start_ticks + PM_START_SLACK_TICKS;
}

size_t opd_maps_exit_gone(struct proc_table *pt, unsigned long round)
{
	struct op_hashmap_iter it;
	struct op_hashmap_entry *e;
	size_t n = 0;

	if (!pt->records_lost)
		return 0;
	pt->records_lost = false;
	for (e = op_hashmap_iter_first(&pt->procs, &it); e;
	     e = op_hashmap_iter_next(&it)) {
		struct proc *p = OP_HASHMAP_ENTRY(e, struct proc, ent);

		/* pid 0 is no process /proc shows */
		if (p->exit_round || !p->tgid || !proc_gone(pt, p))
			continue;
		opd_maps_mark_exit(pt, p, round);
		n++;
	}
	return n;
}

uint64_t opd_maps_ticks_at(uint64_t mono_ns)
{
	static uint64_t ns_per_tick;
	uint64_t mono, boot;

	if (!ns_per_tick) {
		long hz = sysconf(_SC_CLK_TCK);

		ns_per_tick = 1000000000u / (uint64_t)(hz > 0 ? hz : 100);
	}
	/* the kernel's start time is CLOCK_BOOTTIME: monotonic plus the
	 * time suspended, the same offset now as at the record's time
	 * unless the machine slept in between (the check errs on keeping) */
	mono = op_monotonic_ns();
	boot = op_clock_ns(CLOCK_BOOTTIME);
	return (mono_ns + (boot > mono ? boot - mono : 0)) / ns_per_tick;
}

/* p's start time, if the table has none yet (the pid-reuse guard of
 * opd_maps_exit_gone); a process already gone is left without. */
static void note_start(struct proc_table const *pt, struct proc *p)
{
	uint64_t ticks;

	if (!p->start_ticks && !opd_maps_start_ticks(pt, p->tgid, &ticks))
		p->start_ticks = ticks;
}

static FILE *open_maps(struct proc_table const *pt, unsigned long pid)
{
	char file[PATH_MAX];

	proc_file(pt, pid, "maps", file, sizeof(file));
	return op_fopen_regular(file);
}

int opd_maps_seed(struct proc_table *pt, struct cookie_table *ct, unsigned long pid)
{
	char exe[PATH_MAX];
	size_t exe_len;
	struct proc *p;
	FILE *f = open_maps(pt, pid);

	if (!f)
		return -errno;
	p = opd_maps_get(pt, pid);
	p->exec_pending = false;
	exe_len = read_exe(pt, pid, exe, sizeof(exe));
	if (exe_len)
		p->app_cookie = opd_cookie_intern(ct, exe, exe_len);
	seed_lines(pt, ct, p, f, false);
	fclose(f);
	note_start(pt, p);
	return 0;
}

/* Is path (an exe link, perhaps "... (deleted)") the file named app? */
static bool same_image(char const *exe, size_t exe_len, char const *app)
{
	static char const deleted[] = " (deleted)";
	size_t n = sizeof(deleted) - 1;

	if (exe_len > n && !memcmp(exe + exe_len - n, deleted, n))
		exe_len -= n;
	return strlen(app) == exe_len && !memcmp(exe, app, exe_len);
}

int opd_maps_refresh(struct proc_table *pt, struct cookie_table *ct,
	       unsigned long pid)
{
	char exe[PATH_MAX];
	size_t exe_len;
	struct cookie_entry *app;
	struct proc *p;
	int how = PM_REFRESH_FILLED;
	FILE *f = open_maps(pt, pid);

	if (!f)
		return -errno;
	exe_len = read_exe(pt, pid, exe, sizeof(exe));
	p = opd_maps_find(pt, pid);
	/* a user pc of a pid whose process exited: the pid is another
	 * process now (its FORK was lost) */
	if (p && p->exit_round) {
		opd_maps_drop(pt, pid);
		p = NULL;
	}
	if (!p) {
		p = opd_maps_get(pt, pid);
		how = PM_REFRESH_NEW;
	}
	app = p->app_cookie != OP_NO_COOKIE ? opd_cookie_get(ct, p->app_cookie) : NULL;
	if (how == PM_REFRESH_NEW || p->exec_pending || !app) {
		/* the records never named the app: take the present one */
		p->exec_pending = false;
		if (exe_len)
			p->app_cookie = opd_cookie_intern(ct, exe, exe_len);
	} else if (exe_len && !same_image(exe, exe_len, app->name)) {
		/* another image than the records say: its exec was lost */
		opd_maps_exec(p);
		p->exec_pending = false;
		p->app_cookie = opd_cookie_intern(ct, exe, exe_len);
		how = PM_REFRESH_REPLACED;
	}
	seed_lines(pt, ct, p, f, how == PM_REFRESH_FILLED);
	fclose(f);
	note_start(pt, p);
	return how;
}

void opd_maps_reread_init(struct pm_reread *rr, uint64_t interval_ns,
		    unsigned max_per_s)
{
	memset(rr, 0, sizeof(*rr));
	rr->interval_ns = interval_ns;
	rr->max_per_s = max_per_s;
}

static size_t gone_slot(unsigned long pid)
{
	return (pid * 0x9E3779B97F4A7C15ULL >> 32) % PM_REREAD_GONE_SLOTS;
}

bool opd_maps_reread_may(struct pm_reread *rr, struct proc *p, unsigned long pid,
		   uint64_t now)
{
	size_t g = gone_slot(pid);

	if (!rr->interval_ns || !now)
		return false;
	if (p && p->reread_ns && now - p->reread_ns < rr->interval_ns)
		return false;
	if (!p && rr->gone[g].pid == pid && rr->gone[g].ns &&
	    now - rr->gone[g].ns < rr->interval_ns)
		return false;
	if (!rr->window_ns || now - rr->window_ns >= 1000000000ULL) {
		rr->window_ns = now;
		rr->in_window = 0;
	}
	if (rr->in_window >= rr->max_per_s)
		return false;
	rr->in_window++;
	if (p)
		p->reread_ns = now;
	return true;
}

void opd_maps_reread_gone(struct pm_reread *rr, unsigned long pid, uint64_t now)
{
	size_t g = gone_slot(pid);

	rr->gone[g].pid = pid;
	rr->gone[g].ns = now;
}

size_t opd_maps_seed_all(struct proc_table *pt, struct cookie_table *ct)
{
	DIR *d = opendir(pt->proc_root);
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
		if (!opd_maps_seed(pt, ct, pid))
			n++;
	}
	closedir(d);
	return n;
}
