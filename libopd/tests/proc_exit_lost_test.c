/*
 * Unit tests of processes whose EXIT record was lost: after a
 * loss, a sweep finds the processes gone from /proc (a real child that
 * exited and was reaped, or a zombie) and exits them, so their cookies
 * are forgotten after the grace; live ones (this test) stay; a pid taken
 * by a newer process is told apart by its start time. Also the records
 * that feed it (FORK's start time, LOST's signal) through the perf
 * source's record handler.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "opd_cookie.h"
#include "op_message.h"
#include "op_stream.h"
#include "op_util.h"
#include "opd_perf_int.h"
#include "proc_layout.h"
#include "opd_maps.h"
#include "opd_emit.h"
#include "opd_words.h"

/* A child that waits for *fd to be closed, then exits. */
static pid_t blocked_child(int *fd)
{
	int p[2];
	pid_t pid;
	char c;

	if (pipe(p))
		check_bail("pipe: %s", strerror(errno));
	pid = fork();
	if (pid < 0)
		check_bail("fork: %s", strerror(errno));
	if (!pid) {
		close(p[1]);
		while (read(p[0], &c, 1) < 0 && errno == EINTR)
			;
		_exit(0);
	}
	close(p[0]);
	*fd = p[1];
	return pid;
}

/* Let the child exit; wait until it is a zombie, reaped or not. */
static void end_child(pid_t pid, int fd, bool reap)
{
	siginfo_t si;

	close(fd);
	if (reap)
		waitpid(pid, NULL, 0);
	else
		waitid(P_PID, (id_t)pid, &si, WEXITED | WNOWAIT);
}

/* A reaped child without EXIT: exited at the sweep after a loss, its
 * binary and region forgotten after the grace; this process kept. */
static void test_exit_lost__reaped(void)
{
	struct proc_table pt;
	struct cookie_table ct;
	struct word_buffer wb;
	struct stream_emit se;
	struct proc *self, *c;
	unsigned long me = (unsigned long)getpid(), kid, bin, region;
	uint64_t real = 0;
	int fd, rc;

	opd_maps_init(&pt);
	opd_cookie_init(&ct);
	opd_words_init(&wb);
	opd_emit_init(&se, &wb, &ct);
	check(opd_maps_seed(&pt, &ct, me) == 0, "this process seeded from /proc");
	self = opd_maps_find(&pt, me);
	check(self && self->start_ticks, "seeding records the start time");
	kid = (unsigned long)blocked_child(&fd);
	/* what the FORK handler does */
	c = opd_maps_fork(&pt, me, kid);
	c->start_ticks = opd_maps_ticks_at(op_monotonic_ns());
	rc = opd_maps_start_ticks(&pt, kid, &real);
	check(rc == 0 && real <= c->start_ticks &&
	      real + PM_START_SLACK_TICKS >= c->start_ticks,
	      "a FORK's time gives the start time /proc shows (%llu, %llu)",
	      (unsigned long long)real, (unsigned long long)c->start_ticks);
	opd_maps_exec(c);
	map(&pt, &ct, c, 0x1000, 0x2000, 0, "/t/gone-bin");
	map(&pt, &ct, c, 0x8000, 0x9000, 0, "//anon");
	bin = c->app_cookie;
	region = opd_maps_vma_cookie(&ct, c, opd_maps_lookup(c, 0x8000));
	opd_emit_define(&se, bin);
	opd_emit_define(&se, region);
	end_child((pid_t)kid, fd, true);

	check(sweep(&pt, &ct, &se, 1, 100) == 0 && sweep(&pt, &ct, &se, 2, 200) == 0 &&
	      !opd_maps_find(&pt, kid)->exit_round && opd_cookie_get(&ct, bin),
	      "no loss: the gone process is kept and its binary held (the leak)");
	opd_maps_records_lost(&pt);
	check(opd_maps_exit_gone(&pt, 3) == 1 && opd_maps_find(&pt, kid)->exit_round == 3,
	      "after a loss, the sweep exits the gone process in its round");
	check(opd_maps_find(&pt, me) && !opd_maps_find(&pt, me)->exit_round,
	      "this process, alive, is kept");
	check(opd_maps_exit_gone(&pt, 4) == 0, "one check per loss");
	opd_maps_reap(&pt, 4, &se);
	check(opd_maps_find(&pt, kid) && sweep(&pt, &ct, &se, 4, 300) == 0 &&
	      opd_cookie_get(&ct, bin), "within the grace: kept, its binary held");
	opd_maps_reap(&pt, 5, &se);
	check(!opd_maps_find(&pt, kid) && has_forget(&wb, region),
	      "reaped two rounds later, its region forgotten");
	check(sweep(&pt, &ct, &se, 5, 400) == 0 && sweep(&pt, &ct, &se, 6, 411) >= 1 &&
	      !opd_cookie_get(&ct, bin) && has_forget(&wb, bin),
	      "its binary forgotten after the cookie grace (ESC COOKIE_FORGET)");
	check(opd_maps_find(&pt, me) != NULL, "this process is still there");
	opd_words_free(&wb);
	opd_maps_free(&pt);
	opd_cookie_free(&ct);
}

/* A zombie wrote its EXIT already: gone too. */
static void test_exit_lost__zombie(void)
{
	struct proc_table pt;
	uint64_t t;
	int fd;
	pid_t kid = blocked_child(&fd);

	opd_maps_init(&pt);
	opd_maps_get(&pt, (unsigned long)kid);
	end_child(kid, fd, false);
	check(opd_maps_start_ticks(&pt, (unsigned long)kid, &t) == -ESRCH,
	      "a zombie's start time: -ESRCH");
	opd_maps_records_lost(&pt);
	check(opd_maps_exit_gone(&pt, 1) == 1, "a zombie is exited");
	waitpid(kid, NULL, 0);
	opd_maps_free(&pt);
}

/* opd_maps_exit_gone after a loss on a table holding only pid, recorded with
 * start time start: did it exit it? */
static bool exits(unsigned long pid, uint64_t start, uint64_t *recorded)
{
	struct proc_table pt;
	bool gone;

	opd_maps_init(&pt);
	opd_maps_get(&pt, pid)->start_ticks = start;
	opd_maps_records_lost(&pt);
	gone = opd_maps_exit_gone(&pt, 1) == 1;
	if (recorded)
		*recorded = opd_maps_find(&pt, pid)->start_ticks;
	opd_maps_free(&pt);
	return gone;
}

/* The pid of a live process, recorded with another start time. */
static void test_exit_lost__reuse(void)
{
	int fd;
	pid_t kid = blocked_child(&fd);
	uint64_t real = 0, rec = 0;

	opd_maps_start_ticks(&(struct proc_table){ .proc_root = "/proc" },
		       (unsigned long)kid, &real);
	check(real > 10, "the child's start time (%llu)", (unsigned long long)real);
	check(!exits((unsigned long)kid, real, NULL), "same start time: alive");
	check(exits((unsigned long)kid, real - 10, NULL),
	      "recorded 10 ticks earlier: the pid is a newer process, exited");
	check(!exits((unsigned long)kid, real + 10, NULL),
	      "recorded later than /proc says: clock trouble, kept");
	check(!exits((unsigned long)kid, 0, &rec) && rec == real,
	      "no start time recorded: kept, and /proc's recorded");
	end_child(kid, fd, true);
}

static void write_text(char const *path, char const *text)
{
	if (op_write_file_atomic(path, text, strlen(text), NULL, 0))
		check_bail("cannot write %s: %s", path, strerror(errno));
}

/* /proc/PID/stat's field 22 behind a comm of spaces and ')'; bad files
 * keep the process. */
static void test_exit_lost__stat_parse(void)
{
	char const *dir;
	char path[256];
	struct proc_table pt;
	uint64_t t = 0;
	int rc;

	dir = check_tmpdir();
	opd_maps_init(&pt);
	pt.proc_root = dir;
	snprintf(path, sizeof(path), "%s/7", dir);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/7/stat", dir);
	write_text(path, "7 (a) b ) S 1 7 7 0 -1 4194560 100 0 0 0 "
		   "1 2 0 0 20 0 1 0 4242 1000 10 1\n");
	rc = opd_maps_start_ticks(&pt, 7, &t);
	check(rc == 0 && t == 4242,
	      "field 22 after a comm holding ') ' (%llu)", (unsigned long long)t);
	write_text(path, "7 (x) S 1 2 3\n");
	check(opd_maps_start_ticks(&pt, 7, &t) == -EINVAL, "a short stat: -EINVAL");
	opd_maps_get(&pt, 7)->start_ticks = 1;
	opd_maps_get(&pt, 8);
	opd_maps_records_lost(&pt);
	check(opd_maps_exit_gone(&pt, 1) == 1 && !opd_maps_find(&pt, 7)->exit_round &&
	      opd_maps_find(&pt, 8)->exit_round == 1,
	      "an unreadable stat keeps its process; no /proc/PID exits it");
	opd_maps_free(&pt);
	remove(path);
	snprintf(path, sizeof(path), "%s/7", dir);
	rmdir(path);
	rmdir(dir);
}

/* A FORK record (pid, ppid, tid, ptid, time, then the sample_id_all
 * trailer: pid/tid, time, cpu/res, id) at time. */
static size_t fork_record(unsigned char *rec, uint32_t pid, uint32_t ppid,
			  uint64_t time)
{
	struct perf_event_header h = { PERF_RECORD_FORK, 0, 8 + 24 + 32 };
	uint32_t ids[4] = { pid, ppid, pid, ppid };

	memset(rec, 0, h.size);
	memcpy(rec, &h, sizeof(h));
	memcpy(rec + 8, ids, sizeof(ids));
	memcpy(rec + 24, &time, 8);
	memcpy(rec + h.size - 24, &time, 8);
	return h.size;
}

/* PERF_RECORD_LOST: id, lost, trailer. */
static void lost_record(unsigned char *rec, uint64_t lost)
{
	struct perf_event_header h = { PERF_RECORD_LOST, 0, 8 + 16 + 32 };

	memset(rec, 0, h.size);
	memcpy(rec, &h, sizeof(h));
	memcpy(rec + 16, &lost, 8);
}

/* The records that feed the check, through the perf source's handler. */
static void test_exit_lost__records(void)
{
	struct perf_source *ps = op_xcalloc(1, sizeof(*ps));
	unsigned char rec[128];
	unsigned long me = (unsigned long)getpid();
	uint64_t real = 0;
	struct proc *c;
	int fd;
	pid_t kid;

	opd_maps_init(&ps->procs);
	kid = blocked_child(&fd);
	fork_record(rec, (uint32_t)kid, (uint32_t)me, op_monotonic_ns());
	opd_perf_handle_record(ps, rec);
	c = opd_maps_find(&ps->procs, (unsigned long)kid);
	opd_maps_start_ticks(&ps->procs, (unsigned long)kid, &real);
	check(c && c->start_ticks && real <= c->start_ticks &&
	      real + PM_START_SLACK_TICKS >= c->start_ticks,
	      "FORK records the child's start time (%llu, /proc: %llu)",
	      c ? (unsigned long long)c->start_ticks : 0ULL,
	      (unsigned long long)real);
	end_child(kid, fd, true);
	check(opd_maps_exit_gone(&ps->procs, 1) == 0, "no LOST: nothing checked");
	lost_record(rec, 3);
	opd_perf_handle_record(ps, rec);
	check(ps->lost[OP_LOST_OVERFLOW] == 3 &&
	      opd_maps_exit_gone(&ps->procs, 1) == 1 &&
	      opd_maps_find(&ps->procs, (unsigned long)kid)->exit_round == 1,
	      "LOST counted, and the next check exits the gone child");
	opd_maps_free(&ps->procs);
	free(ps);
}

int main(void)
{
	op_set_progname("proc_exit_lost_test");
	test_exit_lost__reaped();
	test_exit_lost__zombie();
	test_exit_lost__reuse();
	test_exit_lost__stat_parse();
	test_exit_lost__records();
	return check_done();
}
