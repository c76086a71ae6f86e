/* opreport --stream: the replay (opreport_stream.h) and the report mode
 * that reads it (opreport.h). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "op_cpu_type.h"
#include "op_message.h"
#include "op_session.h"
#include "op_session_settings.h"
#include "op_util.h"
#include "opd_config.h"
#include "opd_trans.h"
#include "opreport.h"
#include "opreport_stream.h"
#include "pp_memtree.h"
#include "pp_spec.h"
#include "pp_timeline.h"
#include "opd_stream_file.h"

/* The stream from its start through dec: 0, or -1 (said why), as
 * opd_stream_file_replay. */
static int replay(struct opreport_stream *s, struct opd_trans *dec)
{
	static unsigned long words[16384];
	struct stream_reader sr;
	long n;
	int err;

	if (opd_stream_reader_open_fd(&sr, s->fd, s->file) < 0)
		return -1;
	while ((n = opd_stream_reader_read(&sr, words, OP_ARRAY_SIZE(words))) > 0)
		opd_trans_feed(dec, words, (size_t)n);
	opd_stream_reader_close(&sr);
	err = opd_trans_finish(dec);
	return n < 0 ? -1 : err;
}

/* The first pass: the stream's time range and sample count. */
static void scan_escape(void *ctx, struct opd_transient const *t,
			unsigned long code, uint64_t pos)
{
	struct opreport_stream *s = ctx;

	(void)pos;
	if (code != OP_CODE_TIME)
		return;
	if (!s->has_time)
		s->first = t->time;
	s->has_time = true;
	s->last = t->time;
}

static int scan(struct opreport_stream *s)
{
	struct opd_sink sink = { .ctx = s, .escape = scan_escape };
	struct opd_trans dec;
	int rc;

	opd_trans_init(&dec, &sink, s->file);
	rc = replay(s, &dec);
	s->samples = dec.stats.samples;
	if (rc < 0 && dec.stats.errors)
		op_warn("stream '%s': %" PRIu64 " malformed records skipped "
			"(their samples are not in the report)", s->file,
			dec.stats.errors);
	if (rc < 0 && !dec.stats.errors)
		rc = -1;	/* could not read it: already said why */
	else
		rc = 0;
	opd_trans_free(&dec);
	return rc;
}

static int set_events(struct opd_config *cfg, char const *events,
		      char const *file)
{
	struct op_settings_events ev;
	char err[1024];
	enum op_cpu cpu = op_settings_cpu(NULL, err, sizeof(err));

	if (cpu == CPU_NO_GOOD)
		return op_error("--stream '%s': %s", file, err);
	if (op_settings_events(events, cpu, 0, &ev, err, sizeof(err)) < 0)
		return op_error("--events: %s", err);
	cfg->cpu_type = cpu;
	cfg->cpu_speed = op_cpu_speed();
	opd_config_events(cfg, &ev);
	return 0;
}

static int make_tmp(struct opreport_stream *s);
static int copy_stdin(struct opreport_stream *s);

int opreport_stream_open(struct opreport_stream *s, char const *file,
			 char const *events, char const *separate)
{
	struct stat st;
	char err[512];

	memset(s, 0, sizeof(*s));
	s->file = file;
	s->guard = -1;
	s->fd = -1;
	if (!strcmp(file, "-")) {
		s->file = "standard input";
		if (copy_stdin(s) < 0)
			goto fail;
	} else {
		/* not blocking on a FIFO's open: it is refused below */
		s->fd = open(file, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		if (s->fd < 0)
			return op_error_errno("cannot open stream file '%s'", file);
		if (fstat(s->fd, &st) || !S_ISREG(st.st_mode)) {
			op_error("stream file '%s' is not a regular file: it is "
				 "read twice, which a pipe or FIFO cannot be (give "
				 "a pipe as --stream=-)", file);
			goto fail;
		}
	}
	/* op_settings' and the core's --separate bits are the same */
	if (op_settings_separate(separate ? separate : "none",
				 &s->cfg.separate, err, sizeof(err)) < 0) {
		op_error("--separate: %s", err);
		goto fail;
	}
	if (set_events(&s->cfg, events, s->file) < 0 || scan(s) < 0)
		goto fail;
	return 0;
fail:
	opreport_stream_free(s);
	return -1;
}

/*
 * A helper process that removes the temporary directory when we end,
 * however we end: it waits for the end of a pipe only this process holds
 * (close-on-exec: no program we run holds it), which the kernel closes
 * at any exit, a fatal error's, SIGTERM's or SIGKILL's alike. It ignores
 * the signals a terminal or a service manager sends the whole group.
 */
static int guard_tmp(struct opreport_stream *s)
{
	int p[2], null;
	pid_t pid;
	char c;

	if (pipe2(p, O_CLOEXEC))
		return op_error_errno("cannot make a pipe for the cleanup of '%s'",
				      s->tmp);
	pid = fork();
	if (pid < 0) {
		close(p[0]);
		close(p[1]);
		return op_error_errno("cannot start the cleanup of '%s'", s->tmp);
	}
	if (pid) {
		close(p[0]);
		s->guard = p[1];
		s->guard_pid = pid;
		return 0;
	}
	close(p[1]);
	signal(SIGINT, SIG_IGN);
	signal(SIGTERM, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	signal(SIGQUIT, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
	/* whoever reads our output waits for no helper */
	null = open("/dev/null", O_RDWR);
	if (null >= 0) {
		dup2(null, STDIN_FILENO);
		dup2(null, STDOUT_FILENO);
		close(null);
	}
	while (read(p[0], &c, 1) < 0 && errno == EINTR)
		;
	op_session_remove_tree(s->tmp);
	_exit(0);
}

/* The temporary directory, made at the first session or for standard
 * input (removed by its helper however we end). */
static int make_tmp(struct opreport_stream *s)
{
	char const *tmpdir = getenv("TMPDIR");

	if (s->tmp)
		return 0;
	s->tmp = op_xasprintf("%s/opreport-stream.XXXXXX",
			      tmpdir && *tmpdir ? tmpdir : "/tmp");
	if (!mkdtemp(s->tmp)) {
		op_error_errno("cannot make a temporary directory '%s'", s->tmp);
	} else if (guard_tmp(s) < 0) {
		op_session_remove_tree(s->tmp);
	} else {
		return 0;
	}
	free(s->tmp);
	s->tmp = NULL;
	return -1;
}

/* --stream=-: standard input copied into the temporary directory, the
 * file read twice then (a pipe can be read once). */
static int copy_stdin(struct opreport_stream *s)
{
	static char buf[1 << 16];
	char *path;
	ssize_t n, done;

	if (isatty(STDIN_FILENO))
		return op_error("--stream=-: standard input is a terminal, not a stream");
	if (make_tmp(s) < 0)
		return -1;
	path = op_xasprintf("%s/stdin.ops", s->tmp);
	s->fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (s->fd < 0) {
		op_error_errno("cannot make '%s'", path);
		free(path);
		return -1;
	}
	while ((n = read(STDIN_FILENO, buf, sizeof(buf))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			op_error_errno("cannot read the stream from standard input");
			break;
		}
		for (done = 0; done < n; ) {
			ssize_t w = write(s->fd, buf + done, (size_t)(n - done));

			if (w < 0 && errno == EINTR)
				continue;
			if (w < 0) {
				op_error_errno("cannot copy standard input into '%s'",
					       path);
				n = -1;
				break;
			}
			done += w;
		}
		if (n < 0)
			break;
	}
	free(path);
	return n < 0 ? -1 : 0;
}

void opreport_stream_free(struct opreport_stream *s)
{
	pp_memtree_free(s->mem);
	s->mem = NULL;
	if (s->tmp)
		op_session_remove_tree(s->tmp);
	free(s->tmp);
	s->tmp = NULL;
	if (s->guard >= 0) {
		close(s->guard);
		s->guard = -1;
		while (waitpid(s->guard_pid, NULL, 0) < 0 && errno == EINTR)
			;
	}
	if (s->fd >= 0)
		close(s->fd);
	s->fd = -1;
}

/* One bound: "" (none), seconds from the first TIME, or "Nns". */
static int parse_bound(struct opreport_stream const *s, char const *text,
		       uint64_t none, uint64_t *out, char *err, size_t errlen)
{
	size_t len = strlen(text);
	char *end;

	errno = 0;
	if (!len) {
		*out = none;
		return 0;
	}
	if (len > 2 && !strcmp(text + len - 2, "ns")) {
		unsigned long long ns = strtoull(text, &end, 10);

		if (errno || end != text + len - 2 || *text == '-')
			goto bad;
		*out = ns;
		return 0;
	} else {
		double sec = strtod(text, &end);

		if (errno || *end || sec < 0 || sec > 1e9)
			goto bad;
		*out = s->first + (uint64_t)(sec * 1e9 + 0.5);
		return 0;
	}
bad:
	snprintf(err, errlen, "'%s' is neither seconds from the stream's start "
		 "(e.g. 1.5) nor CLOCK_MONOTONIC nanoseconds (e.g. 123456789ns)",
		 text);
	return -1;
}

int opreport_stream_window(struct opreport_stream const *s, char const *text,
			   uint64_t *start, uint64_t *end,
			   char *err, size_t errlen)
{
	char const *comma = strchr(text, ',');
	char *first;
	int rc;

	if (!comma) {
		snprintf(err, errlen, "'%s' is not START,END", text);
		return -1;
	}
	first = op_xasprintf("%.*s", (int)(comma - text), text);
	rc = parse_bound(s, first, 0, start, err, errlen);
	free(first);
	if (!rc)
		rc = parse_bound(s, comma + 1, UINT64_MAX, end, err, errlen);
	if (!rc && *start >= *end) {
		snprintf(err, errlen, "'%s' is an empty window (END is not after START)",
			 text);
		rc = -1;
	}
	return rc;
}

/* The core's sample sink: the files into s->mem. */
static void *sink_open(void *ctx, char const *path, struct opd_header const *h)
{
	char err[PATH_MAX + 256];
	struct pp_memfile *f = pp_memtree_open(ctx, path, h, err, sizeof(err));

	if (!f)
		op_warn("%s", err);
	return f;
}

static void sink_add(void *file, uint64_t key, uint32_t n)
{
	pp_memtree_add(file, key, n);
}

static int feed(struct opd_core *core, struct opreport_stream *s)
{
	static unsigned long words[16384];
	struct stream_reader sr;
	long n;

	if (opd_stream_reader_open_fd(&sr, s->fd, s->file) < 0)
		return -1;
	while ((n = opd_stream_reader_read(&sr, words, OP_ARRAY_SIZE(words))) > 0)
		opd_core_process(core, words, (size_t)n);
	opd_stream_reader_close(&sr);
	return n < 0 ? -1 : 0;
}

char *opreport_stream_session(struct opreport_stream *s, bool whole,
			      uint64_t start, uint64_t end, uint64_t *written)
{
	struct opd_config cfg = s->cfg;
	struct opd_sample_sink sink = { .open = sink_open, .add = sink_add };
	struct opd_core *core;
	char *dir, *current;
	int rc;

	if (make_tmp(s) < 0)
		return NULL;
	dir = op_xasprintf("%s/%u", s->tmp, s->nr_dirs++);
	current = op_xasprintf("%s/%s/%s", dir, OP_SAMPLES_DIR,
			       OP_CURRENT_SESSION);
	pp_memtree_free(s->mem);
	s->mem = pp_memtree_new(current);
	free(current);
	sink.ctx = s->mem;
	cfg.sink = &sink;
	cfg.session_dir = dir;
	cfg.time_window = !whole;
	cfg.time_start = start;
	cfg.time_end = end;
	if (op_session_create(dir) < 0 || !(core = opd_core_new(&cfg))) {
		free(dir);
		return NULL;
	}
	rc = feed(core, s);
	opd_core_sync(core);
	*written = opd_core_stats(core)->written;
	opd_core_free(core);
	if (rc < 0) {
		free(dir);
		return NULL;
	}
	pp_memtree_attach(s->mem);
	return dir;
}

/* --- the --stream report mode (opreport.h) --- */

/* What chooses sessions on disk has none to choose with --stream: said,
 * not ignored (archive:DIR would also look for the session in DIR). The
 * reports' own usage errors too: before the replay, not after it. */
static void stream_refusals(bool diff, int argc, char const *const *argv)
{
	struct pp_spec spec;
	char err[1024];
	bool sessions;

	if (diff)
		usage_error("%s", "--stream takes one profile specification, not a differential one");
	if (opts.session_dir_given || opts.since || opts.until)
		usage_error("%s", "--session-dir, --since and --until choose sessions on disk: not with --stream");
	if (opts.timeline < 0 || (opts.timeline && (opts.processes || opts.xml ||
						     opts.callgraph || opts.output ||
						     opreport_stacks_wanted())))
		usage_error("%s", "--timeline takes a positive MS and no --processes, --xml, --callgraph, --output-file, --stacks, --folded, --pprof or --flame");
	if (opreport_stacks_wanted())
		opreport_stacks_usage(0);
	else if (opts.processes)
		opreport_processes_usage();
	if (pp_spec_parse(&spec, argc, argv, err, sizeof(err)))
		usage_error("bad profile specification: %s", err);
	sessions = spec.given[PP_TAG_SESSION] || spec.given[PP_TAG_SESSION_EXCLUDE] ||
		   spec.given[PP_TAG_ARCHIVE];
	pp_spec_free(&spec);
	if (sessions)
		usage_error("%s", "--stream is the session: no session:, session-exclude: or archive: (for binaries elsewhere use --root)");
}

static double rel_s(struct opreport_stream const *st, uint64_t t)
{
	return t <= st->first ? 0.0 : (double)(t - st->first) / 1e9;
}

/* --timeline=MS: one temporary session and one profile per interval. */
static int timeline(struct run *run, struct opreport_stream *st,
		    uint64_t start, uint64_t end, int argc,
		    char const *const *argv)
{
	uint64_t step = (uint64_t)opts.timeline * 1000000u, rows;
	struct pp_timeline tl;
	char *what;
	int rc = 0;

	if (start < st->first)
		start = st->first;
	if (end > st->last)
		end = st->last + 1;	/* the last TIME's samples */
	if (end <= start)
		return op_error("--time: the stream '%s' has no samples in that window",
				st->file);
	rows = (end - start + step - 1) / step;
	if (rows > 100000)
		usage_error("--timeline=%d makes %llu intervals: take a longer one",
			    opts.timeline, (unsigned long long)rows);
	run->populate.symbols = true;
	pp_timeline_init(&tl, rows);
	for (uint64_t r = 0; !rc && r < rows; r++) {
		uint64_t a = start + r * step, b = a + step < end ? a + step : end;
		struct side s = { 0 };
		uint64_t written;
		char *dir = opreport_stream_session(st, false, a, b, &written);

		if (!dir)
			rc = -1;
		else if (written) {
			opreport_replace(&opts.session_dir, op_xstrdup(dir));
			run->output.session = opts.stream;
			rc = opreport_build(run, &s, argc, argv);
			if (!rc)
				pp_timeline_add(&tl, r, &s.profile);
			opreport_side_free(&s);
		}
		if (dir)
			op_session_remove_tree(dir);
		free(dir);
	}
	what = op_xasprintf("samples of every event and class of the stream '%s'",
			    st->file);
	if (!rc)
		pp_timeline_print(stdout, &tl, rel_s(st, start), (double)step / 1e9,
				  what);
	free(what);
	pp_timeline_free(&tl);
	return rc;
}

/*
 * The stream replayed into a temporary session (the window only, with
 * --time), which the report then reads as its --session-dir; or the
 * timeline. -1: not done, else the report's own return via *rc.
 */
int opreport_stream_report(struct run *run, int argc, char const *const *argv,
			   bool diff, int *rc)
{
	struct opreport_stream st;
	uint64_t start = 0, end = UINT64_MAX, written;
	char err[512], *dir;

	if (opts.time && !opts.stream)
		usage_error("%s", "--time needs --stream");
	if ((opts.timeline || opts.events || opts.separate) && !opts.stream)
		usage_error("%s", "--timeline, --events and --separate need --stream");
	if (!opts.stream)
		return -1;
	stream_refusals(diff, argc, argv);
	/* the process summary's rows are processes, with their kernel */
	if (opts.processes && !opts.separate)
		opts.separate = op_xstrdup("thread,kernel");
	if (opreport_stream_open(&st, opts.stream, opts.events, opts.separate) < 0) {
		*rc = 1;
		return 0;
	}
	if ((opts.time || opts.timeline) && !st.has_time) {
		op_error("the stream '%s' has no time codes (a driver stream, or one "
			 "recorded before code 37): --time and --timeline need them",
			 opts.stream);
		*rc = 1;
	} else if (opts.time && opreport_stream_window(&st, opts.time, &start, &end,
						       err, sizeof(err))) {
		usage_error("--time: %s", err);
	} else if (opts.timeline) {
		*rc = timeline(run, &st, start, end, argc, argv);
	} else if (!(dir = opreport_stream_session(&st, !opts.time, start, end,
						   &written))) {
		*rc = 1;
	} else {
		if (opts.time)
			op_info("stream '%s': %llu of its %llu samples are in the "
				"window %.3f s .. %.3f s", opts.stream,
				(unsigned long long)written,
				(unsigned long long)st.samples, rel_s(&st, start),
				end == UINT64_MAX ? rel_s(&st, st.last) : rel_s(&st, end));
		opreport_replace(&opts.session_dir, dir);
		/* the report's "session" (XML): the stream, not a directory
		 * gone when we exit */
		run->output.session = opts.stream;
		*rc = opreport_stacks_wanted() ? opreport_stacks(run, 0, NULL, NULL, argv, argc) :
		      opts.processes ? opreport_processes(run, argc, argv) :
		      opreport_single(run, argc, argv);
	}
	opreport_stream_free(&st);
	return 0;
}
