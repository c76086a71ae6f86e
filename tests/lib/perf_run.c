/* End-to-end harness around the perf source; see perf_run.h. */
#include <errno.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "elf_range.h"
#include "perf_run.h"
#include "sample_count.h"
#include "opd_words.h"

struct perf_source_event perf_run_cpu_clock(unsigned long period_ns)
{
	return (struct perf_source_event){
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_CPU_CLOCK,
		.period = period_ns,
		.kernel = true,
		.user = true,
		.name = "cpu-clock",
	};
}

int perf_run_start(struct perf_run *r, unsigned long period_ns,
		   unsigned depth)
{
	struct perf_source_event ev = perf_run_cpu_clock(period_ns);

	return perf_run_start_events(r, &ev, 1, depth);
}

int perf_run_start_events(struct perf_run *r,
			  struct perf_source_event const *ev, unsigned n,
			  unsigned depth)
{
	struct perf_source_config cfg = {
		.events = ev,
		.nr_events = n,
		.callgraph_depth = depth,
	};

	return perf_run_start_config(r, &cfg);
}

int perf_run_start_config(struct perf_run *r,
			  struct perf_source_config const *cfg)
{
	int err;

	memset(r, 0, sizeof(*r));
	tally_init(&r->tally, "live stream");
	if (geteuid()) {
		fprintf(stderr, "SKIP: system-wide sampling needs root\n");
		return SKIP;
	}
	err = opd_perf_open(&r->ps, cfg);
	if (err == -EACCES || err == -EPERM || err == -ENOSYS) {
		fprintf(stderr, "SKIP: perf_event_open refused: %s\n",
			strerror(-err));
		return SKIP;
	}
	if (err)
		return 1;
	snprintf(r->file, sizeof(r->file), "perf_run.%d.ops", (int)getpid());
	if (opd_stream_writer_open(&r->sw, r->file) || opd_perf_enable(r->ps))
		return 1;
	return 0;
}

static void take_words(struct perf_run *r)
{
	struct word_buffer *wb = opd_perf_words(r->ps);

	opd_trans_feed(&r->tally.dec, wb->w, wb->len);
	opd_stream_writer_write(&r->sw, wb->w, wb->len);
	opd_words_reset(wb);
}

void perf_run_pump(struct perf_run *r, int timeout_ms)
{
	opd_perf_read(r->ps, timeout_ms);
	take_words(r);
}

pid_t perf_run_spawn(char *const argv[])
{
	pid_t pid = fork();

	if (pid == 0) {
		execv(argv[0], argv);
		fprintf(stderr, "cannot run '%s': %s\n", argv[0],
			strerror(errno));
		_exit(127);
	}
	return pid;
}

int perf_run_wait(struct perf_run *r, pid_t const *pids, int n)
{
	int left = n, failed = 0;

	while (left) {
		int status;
		struct rusage ru;
		pid_t pid;

		perf_run_pump(r, 50);
		while ((pid = wait4(-1, &status, WNOHANG, &ru)) > 0) {
			for (int i = 0; i < n; i++) {
				if (pids[i] != pid)
					continue;
				left--;
				r->cpu_seconds += ru.ru_utime.tv_sec +
					ru.ru_utime.tv_usec / 1e6 +
					ru.ru_stime.tv_sec +
					ru.ru_stime.tv_usec / 1e6;
				if (!WIFEXITED(status) || WEXITSTATUS(status)) {
					fprintf(stderr, "child %d failed (status %#x)\n",
						(int)pid, status);
					failed = 1;
				}
			}
		}
	}
	return failed ? -1 : 0;
}

static bool same_samples(struct tally const *a, struct tally const *b)
{
	if (a->nr != b->nr)
		return false;
	for (size_t i = 0; i < a->nr; i++) {
		struct tally_sample const *x = &a->s[i], *y = &b->s[i];

		if (x->cpu != y->cpu || x->tid != y->tid ||
		    x->tgid != y->tgid || x->app != y->app ||
		    x->cookie != y->cookie || x->pc != y->pc ||
		    x->event != y->event || x->in_kernel != y->in_kernel)
			return false;
	}
	return true;
}

/* Replay the stream file in 7-word chunks: same samples, no errors. */
static int check_replay(struct perf_run *r)
{
	struct tally t;
	int err;

	tally_init(&t, r->file);
	err = opd_stream_file_replay(r->file, &t.dec, 7);
	if (!err && !same_samples(&t, &r->tally)) {
		fprintf(stderr, "replaying '%s' gave %zu samples, live %zu\n",
			r->file, t.nr, r->tally.nr);
		err = -1;
	}
	tally_free(&t);
	return err;
}

int perf_run_stop(struct perf_run *r)
{
	int err;

	opd_perf_disable(r->ps);
	opd_perf_flush(r->ps, UINT64_MAX);
	take_words(r);
	err = opd_trans_finish(&r->tally.dec);
	if (opd_stream_writer_close(&r->sw) || (!r->no_replay && check_replay(r)))
		err = -1;
	return err;
}

void perf_run_free(struct perf_run *r)
{
	opd_perf_close(r->ps);
	tally_free(&r->tally);
	if (r->file[0])
		unlink(r->file);
}

char const *perf_run_realpath(char const *path, char *buf)
{
	if (!realpath(path, buf)) {
		fprintf(stderr, "cannot resolve '%s': %s\n", path,
			strerror(errno));
		snprintf(buf, PATH_MAX, "%s", path);
	}
	return buf;
}

int perf_run_workload_func(char const *name, char const *func, char *bin,
			   unsigned long *start, unsigned long *end)
{
	perf_run_realpath(workload_path(name), bin);
	return elf_func_range(bin, func, start, end);
}
