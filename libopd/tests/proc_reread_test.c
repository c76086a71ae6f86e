/*
 * Unit tests of re-reading a process's maps when records were lost: the
 * rate limits (per process, per gone pid, per second), filling only the
 * gaps, what opd_maps_refresh keeps or replaces (on a fake /proc), and the scan
 * of the pending queue for image changes after a sample.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "opd_cookie.h"
#include "op_stream.h"
#include "opd_perf_int.h"
#include "opd_maps.h"
#include "proc_layout.h"
#include "perf_queue.h"

#define MS 1000000ULL

static char const *app_name(struct cookie_table *ct, struct proc *p)
{
	struct cookie_entry *e = opd_cookie_get(ct, p->app_cookie);

	return e ? e->name : "(none)";
}

static void test_reread__per_process(void)
{
	struct pm_reread rr;
	struct proc p = { .tgid = 5 };
	uint64_t t = 1000 * MS;

	opd_maps_reread_init(&rr, 100 * MS, 1000);
	check(opd_maps_reread_may(&rr, &p, 5, t), "first re-read of a process");
	check(p.reread_ns == t, "a re-read stamps the process");
	check(!opd_maps_reread_may(&rr, &p, 5, t), "not twice in one round");
	check(!opd_maps_reread_may(&rr, &p, 5, t + 99 * MS),
	      "not again within the interval");
	check(opd_maps_reread_may(&rr, &p, 5, t + 100 * MS),
	      "again once the interval has passed");

	opd_maps_reread_init(&rr, 0, 1000);
	p.reread_ns = 0;
	check(!opd_maps_reread_may(&rr, &p, 5, t), "interval 0: never");
	check(!opd_maps_reread_may(&rr, NULL, 6, t), "interval 0: never, unknown pid");
}

static void test_reread__gone(void)
{
	struct pm_reread rr;
	uint64_t t = 1000 * MS;

	opd_maps_reread_init(&rr, 100 * MS, 1000);
	check(opd_maps_reread_may(&rr, NULL, 42, t), "unknown pid: may re-read");
	check(opd_maps_reread_may(&rr, NULL, 42, t),
	      "unknown pid not known to be gone: again");
	opd_maps_reread_gone(&rr, 42, t);
	check(!opd_maps_reread_may(&rr, NULL, 42, t + 50 * MS),
	      "a gone pid is not tried again within the interval");
	check(opd_maps_reread_may(&rr, NULL, 43, t + 50 * MS),
	      "another pid is not held back by a gone one");
	check(opd_maps_reread_may(&rr, NULL, 42, t + 100 * MS),
	      "a gone pid is tried again after the interval");
}

static void test_reread__per_second(void)
{
	struct pm_reread rr;
	struct proc p[5];
	uint64_t t = 5000 * MS;
	int allowed = 0;

	memset(p, 0, sizeof(p));
	opd_maps_reread_init(&rr, 100 * MS, 3);
	for (int i = 0; i < 5; i++)
		allowed += opd_maps_reread_may(&rr, &p[i], (unsigned long)i + 1,
					 t + (uint64_t)i * MS);
	check(allowed == 3, "at most max_per_s re-reads in one second");
	check(p[3].reread_ns == 0 && p[4].reread_ns == 0,
	      "a refused re-read does not stamp the process");
	check(!opd_maps_reread_may(&rr, &p[3], 4, t + 999 * MS),
	      "still refused at the end of the window");
	check(opd_maps_reread_may(&rr, &p[3], 4, t + 1000 * MS) &&
	      opd_maps_reread_may(&rr, &p[4], 5, t + 1000 * MS),
	      "a new window allows re-reads again");
}

static void test_reread__gaps(void)
{
	struct proc_table pt;
	struct cookie_table ct;
	struct proc *p;

	opd_maps_init(&pt);
	opd_cookie_init(&ct);
	p = opd_maps_get(&pt, 1);
	map(&pt, &ct, p, 0x2000, 0x3000, 0, "/a");
	map(&pt, &ct, p, 0x6000, 0x7000, 0, "/c");
	opd_maps_map_gaps(&pt, &ct, p, 0x1000, 0x8000, 0x10000, "/b", 2,
		    (struct ct_file_id){ 0 });
	check_layout(&ct, p, "1000-2000:10000:/b 2000-3000:0:/a "
		     "3000-6000:12000:/b 6000-7000:0:/c 7000-9000:16000:/b",
		     "gaps are filled around known VMAs, offsets kept");
	opd_maps_map_gaps(&pt, &ct, p, 0x2000, 0x1000, 0, "/d", 2,
		    (struct ct_file_id){ 0 });
	check_layout(&ct, p, "1000-2000:10000:/b 2000-3000:0:/a "
		     "3000-6000:12000:/b 6000-7000:0:/c 7000-9000:16000:/b",
		     "a range covered already changes nothing");
	opd_maps_map_gaps(&pt, &ct, p, 0x20000, 0x1000, 0, "[vdso]", 6,
		    (struct ct_file_id){ 0 });
	check(p->nr == 6 && (p->vma[5].flags & VMA_ANON),
	      "an anonymous range in a gap is mapped anonymous");
	opd_maps_free(&pt);
	opd_cookie_free(&ct);
}

/* A fake /proc: ROOT/PID/maps with the given text, ROOT/PID/exe -> exe. */
static void fake_proc(char const *root, unsigned long pid, char const *exe,
		      char const *maps)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%lu", root, pid);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/%lu/exe", root, pid);
	unlink(path);
	if (exe && symlink(exe, path))
		perror(path);
	snprintf(path, sizeof(path), "%s/%lu/maps", root, pid);
	f = fopen(path, "w");
	if (!f) {
		perror(path);
		exit(1);
	}
	fputs(maps, f);
	fclose(f);
}

static char const maps_text[] =
	"00001000-00002000 r-xp 00000000 08:01 11 /lib/new.so\n"
	"00002000-00003000 rw-p 00001000 08:01 11 /lib/new.so\n"
	"00008000-00009000 r-xp 00003000 08:01 12 /lib/c.so\n"
	"7fff0000-7fff1000 r-xp 00000000 00:00 0 [vdso]\n";

static void test_proc_reread__refresh(void)
{
	char const *root = check_tmpdir();
	struct proc_table pt;
	struct cookie_table ct;
	struct proc *p;
	int how;

	opd_maps_init(&pt);
	opd_cookie_init(&ct);
	pt.proc_root = root;
	fake_proc(root, 100, "/bin/app", maps_text);

	how = opd_maps_refresh(&pt, &ct, 100);
	p = opd_maps_find(&pt, 100);
	check(how == PM_REFRESH_NEW && p, "an unknown process is seeded");
	check_layout(&ct, p, "1000-2000:0:/lib/new.so 8000-9000:3000:/lib/c.so "
		     "7fff0000-7fff1000:0:[vdso]",
		     "seeded with the executable mappings");
	check(!strcmp(app_name(&ct, p), "/bin/app"), "app from /proc/PID/exe");

	/* known, same app: known VMAs stay, gaps are filled */
	opd_maps_drop(&pt, 100);
	p = opd_maps_get(&pt, 100);
	p->app_cookie = opd_cookie_intern(&ct, "/bin/app", 8);
	map(&pt, &ct, p, 0x1000, 0x2000, 0, "/lib/old.so");
	how = opd_maps_refresh(&pt, &ct, 100);
	p = opd_maps_find(&pt, 100);
	check(how == PM_REFRESH_FILLED, "same app: gaps filled");
	check_layout(&ct, p, "1000-2000:0:/lib/old.so 8000-9000:3000:/lib/c.so "
		     "7fff0000-7fff1000:0:[vdso]",
		     "a known VMA is not replaced by /proc");
	check(!strcmp(app_name(&ct, p), "/bin/app"), "app kept");

	/* the running binary was replaced on disk: still the same image */
	fake_proc(root, 100, "/bin/app (deleted)", maps_text);
	how = opd_maps_refresh(&pt, &ct, 100);
	check(how == PM_REFRESH_FILLED,
	      "an exe link ending in (deleted) is the same image");
	fake_proc(root, 100, "/bin/app", maps_text);

	/* known with another app: its exec was lost, maps replaced */
	p->app_cookie = opd_cookie_intern(&ct, "/bin/sh", 7);
	how = opd_maps_refresh(&pt, &ct, 100);
	p = opd_maps_find(&pt, 100);
	check(how == PM_REFRESH_REPLACED, "another app: replaced");
	check_layout(&ct, p, "1000-2000:0:/lib/new.so 8000-9000:3000:/lib/c.so "
		     "7fff0000-7fff1000:0:[vdso]",
		     "a lost exec: the stale maps are gone");
	check(!strcmp(app_name(&ct, p), "/bin/app"), "app is the new image");
	check(!p->exec_pending, "no exec pending after a replace");

	/* exec seen, nothing mapped since: the app comes from /proc */
	opd_maps_exec(p);
	check(p->exec_pending, "an exec is pending");
	how = opd_maps_refresh(&pt, &ct, 100);
	p = opd_maps_find(&pt, 100);
	check(how == PM_REFRESH_FILLED && !p->exec_pending &&
	      !strcmp(app_name(&ct, p), "/bin/app"),
	      "exec pending: app from /proc/PID/exe, maps seeded");

	/* exec seen, binary's MMAP2 lost, ld.so's seen: the records took
	 * ld.so for the app, so /proc/PID/exe differs and the maps are
	 * read whole again (the same as the records had, plus the rest) */
	opd_maps_exec(p);
	map(&pt, &ct, p, 0x1000, 0x2000, 0, "/lib/ld.so");
	check(!strcmp(app_name(&ct, p), "/lib/ld.so"),
	      "after a lost binary MMAP2 the first mapping names the app");
	how = opd_maps_refresh(&pt, &ct, 100);
	p = opd_maps_find(&pt, 100);
	check(how == PM_REFRESH_REPLACED &&
	      !strcmp(app_name(&ct, p), "/bin/app"),
	      "a wrong app from a lost binary MMAP2 is put right");

	/* exited (EXIT applied): the pid is a new process now */
	opd_maps_exit(&pt, 100, 7);
	how = opd_maps_refresh(&pt, &ct, 100);
	p = opd_maps_find(&pt, 100);
	check(how == PM_REFRESH_NEW && p && !p->exit_round,
	      "a user pc after EXIT: the pid is seeded as a new process");
	opd_maps_reap(&pt, 100, NULL);
	check(opd_maps_find(&pt, 100) != NULL,
	      "the new process survives the old one's reaping");

	/* gone */
	check(opd_maps_refresh(&pt, &ct, 101) == -ENOENT, "no /proc/PID: -ENOENT");
	check(!opd_maps_find(&pt, 101), "a gone pid leaves no process behind");

	opd_maps_free(&pt);
	opd_cookie_free(&ct);
}

/* Queue a side-band record: header, u32 body words, a trailer at time. */
static void queue(struct perf_queue *q, uint32_t type, uint16_t misc,
		  uint32_t const *body, size_t nbody, uint64_t time)
{
	size_t size = sizeof(struct perf_event_header) +
		      ((nbody * 4 + 7) & ~(size_t)7) + 32;
	unsigned char *rec = perf_queue_reserve(q, size);
	struct perf_event_header h = { type, misc, (uint16_t)size };

	memset(rec, 0, size);
	memcpy(rec, &h, sizeof(h));
	memcpy(rec + sizeof(h), body, nbody * 4);
	memcpy(rec + size - 24, &time, sizeof(time));
	perf_queue_commit(q, size, time, 0);
}

static void test_proc_reread__image_changes(void)
{
	struct perf_queue q;
	/* COMM: pid, tid, comm[16]; FORK/EXIT: pid, ppid, tid, ptid, time */
	uint32_t comm_exec[] = { 7, 7, 0x6e6f6f6e, 0, 0, 0 };
	uint32_t comm_thread[] = { 14, 15, 0x6e6f6f6e, 0, 0, 0 };
	uint32_t fork_proc[] = { 8, 7, 8, 7, 0, 0 };
	uint32_t exit_proc[] = { 9, 1, 9, 1, 0, 0 };
	uint32_t exit_thread[] = { 10, 10, 11, 10, 0, 0 };
	uint32_t fork_thread[] = { 12, 12, 13, 12, 0, 0 };
	uint32_t mmap2[] = { 16, 16, 0, 0, 0, 0, 0, 0 };

	perf_queue_init(&q);
	queue(&q, PERF_RECORD_COMM, PERF_RECORD_MISC_COMM_EXEC, comm_exec, 6, 50);
	queue(&q, PERF_RECORD_COMM, PERF_RECORD_MISC_COMM_EXEC, comm_thread, 6, 55);
	queue(&q, PERF_RECORD_FORK, 0, fork_proc, 6, 60);
	queue(&q, PERF_RECORD_EXIT, 0, exit_proc, 6, 70);
	queue(&q, PERF_RECORD_EXIT, 0, exit_thread, 6, 80);
	queue(&q, PERF_RECORD_FORK, 0, fork_thread, 6, 90);
	queue(&q, PERF_RECORD_MMAP2, 0, mmap2, 8, 95);
	check(opd_perf_image_changes(&q, 7, 40), "an exec queued after the sample");
	check(!opd_perf_image_changes(&q, 7, 50), "an exec at or before the sample");
	check(!opd_perf_image_changes(&q, 14, 0), "an exec flagged by a non-leader");
	check(opd_perf_image_changes(&q, 8, 10), "a fork creating the pid");
	check(!opd_perf_image_changes(&q, 8, 60), "a fork before the sample");
	check(opd_perf_image_changes(&q, 9, 0), "the process's exit");
	check(!opd_perf_image_changes(&q, 10, 0), "a thread's exit");
	check(!opd_perf_image_changes(&q, 12, 0), "a thread's creation");
	check(!opd_perf_image_changes(&q, 16, 0), "a mapping is no image change");
	check(!opd_perf_image_changes(&q, 99, 0), "another pid");
	perf_queue_free(&q);
}

/*
 * A region named with PR_SET_VMA_ANON_NAME is "[anon:NAME]" in
 * /proc/PID/maps, the only place the daemon sees that name (perf's MMAP2
 * says "//anon"): seeding keeps it, as the anonymous region's name; a
 * region without a name is "//anon", as perf's records call it.
 */
static void test_proc_reread__anon_names(void)
{
	char const *root = check_tmpdir();
	struct proc_table pt;
	struct cookie_table ct;
	struct cookie_entry *e;
	struct proc *p;

	opd_maps_init(&pt);
	opd_cookie_init(&ct);
	pt.proc_root = root;
	fake_proc(root, 300, "/bin/node",
		  "00010000-00011000 r-xp 00000000 00:00 0 [anon:v8 jit}/..]\n"
		  "00012000-00013000 r-xp 00000000 00:00 0 \n"
		  "00014000-00015000 rw-p 00000000 00:00 0 [anon:data]\n"
		  "00016000-00017000 r-xp 00000000 00:00 0 [anon_shmem:x]\n");
	check(opd_maps_refresh(&pt, &ct, 300) == PM_REFRESH_NEW,
	      "anon names: the process is seeded");
	p = opd_maps_find(&pt, 300);
	check_layout(&ct, p, "10000-11000:0:[anon:v8 jit}/..] "
		     "12000-13000:0://anon 16000-17000:0:[anon_shmem:x]",
		     "anon names: each executable region by its name");
	if (p && p->nr == 3) {
		e = opd_cookie_get(&ct, opd_maps_vma_cookie(&ct, p, &p->vma[0]));
		check(e && e->kind == CT_ANON && !strcmp(e->name, "[anon:v8 jit}/..]"),
		      "anon names: the region's definition carries the name");
	}
	opd_maps_free(&pt);
	opd_cookie_free(&ct);
}

int main(void)
{
	test_reread__per_process();
	test_reread__gone();
	test_reread__per_second();
	test_reread__gaps();
	test_proc_reread__refresh();
	test_proc_reread__image_changes();
	test_proc_reread__anon_names();
	return check_done();
}
