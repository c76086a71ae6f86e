/*
 * Ingest rate of the daemon core: replays a recorded event stream (made
 * with `opstream record`) through the decoder and the sample file path
 * several times and prints samples per second of CPU time.
 *
 *   ingest_bench STREAM_FILE [ITERATIONS] [SESSION_DIR]
 *
 * Needs root (the core reads kernel ranges from /proc/kallsyms).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "op_util.h"
#include "opd_core.h"
#include "opd_stream_file.h"

static double cpu_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static unsigned long *load(char const *path, size_t *n)
{
	struct stream_reader sr;
	unsigned long *w = NULL;
	size_t cap = 0, len = 0;
	long got;

	if (opd_stream_reader_open(&sr, path))
		exit(1);
	do {
		OP_ALLOC_GROW(w, len + 65536, cap);
		got = opd_stream_reader_read(&sr, w + len, cap - len);
		if (got < 0)
			exit(1);
		len += (size_t)got;
	} while (got > 0);
	opd_stream_reader_close(&sr);
	*n = len;
	return w;
}

int main(int argc, char **argv)
{
	char tmpl[] = "/tmp/opd-ingest-XXXXXX";
	char const *dir;
	struct opd_config cfg = {
		.cpu_type = CPU_TIMER_INT, .nr_events = 1,
	};
	struct opd_core *core;
	unsigned long *words;
	size_t n;
	int iters, i;
	double t0, t;
	uint64_t samples;
	char cmd[256];

	op_set_progname(argv[0]);
	if (argc < 2)
		op_die("usage: ingest_bench STREAM_FILE [ITERATIONS] [SESSION_DIR]");
	iters = argc > 2 ? atoi(argv[2]) : 20;
	dir = argc > 3 ? argv[3] : mkdtemp(tmpl);
	words = load(argv[1], &n);
	cfg.session_dir = dir;
	strcpy(cfg.events[0].name, "CPU_CLOCK");
	cfg.events[0].count = 100000;
	cfg.events[0].kernel = cfg.events[0].user = 1;
	core = opd_core_new(&cfg);
	if (!core)
		return 1;

	t0 = cpu_seconds();
	for (i = 0; i < iters; i++) {
		opd_core_new_stream(core);
		opd_core_process(core, words, n);
	}
	t = cpu_seconds() - t0;
	samples = opd_core_stats(core)->received;
	printf("ingest: %" PRIu64 " samples (%zu words/pass, %.1f words/sample) in %.3f s CPU\n",
	       samples, n, (double)n * iters / (samples ? samples : 1), t);
	printf("ingest rate: %.2f M samples/s per core (written %" PRIu64 ", dropped %" PRIu64 ")\n",
	       samples / t / 1e6, opd_core_stats(core)->written,
	       samples - opd_core_stats(core)->written);
	opd_core_free(core);
	free(words);
	if (dir == tmpl) {
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpl);
		if (system(cmd))
			return 1;
	}
	return 0;
}
