/*
 * oprofiled's options (see opd_options.h and doc/oprofiled.1).
 */
#include "config.h"

#include <errno.h>
#include <popt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "op_cpu_type.h"
#include "op_message.h"
#include "op_session.h"
#include "op_session_kv.h"
#include "op_session_settings.h"
#include "op_util.h"
#include "op_version.h"
#include "opd_config.h"
#include "opd_options.h"

static char *session_dir_arg;
static char *events_arg;
static char *separate_arg;
static char *callgraph_arg;
static char *vmlinux_arg;
static char *cpu_type_arg;
static char *source_arg;
static char *record_arg;
static char *replay_arg;
static int no_vmlinux_arg;
static int no_daemon_arg;
static char *buffer_pages_arg;		/* NULL: not given, the source's default */
static unsigned buffer_pages;		/* checked; 0: the source's default */
static int max_open_files_arg;
static int verbose_arg;
static int version_arg;
static int paused_arg;
static char *image_arg;
static int sync_interval_arg = 10;
static int flush_interval_arg = 500;
static int keep_binaries_arg;
static int foreground_arg;
static char *rotate_arg;
static char *keep_arg;
static char *keep_size_arg;
static unsigned events_line;	/* events from the settings file: its line */

/* A bad command line: the error, a hint, exit 2. */
#define usage_error(...) \
	op_usage_error("oprofiled --help lists the options", __VA_ARGS__)

/*
 * --- OProfile 0.9's daemon options (doc/compat.md) ---
 * --separate-lib|kernel|thread|cpu=0|1 set or clear one kind on top of
 * --separate (kernel implies lib, as with --separate). The Xen options
 * are refused: Xen has no profiling interface here (the xenoprof
 * hypercalls and the patched oprofile driver they needed are gone), and
 * a profile that silently lacked every domain's samples would mislead.
 */
enum { SEP09_LIB, SEP09_KERNEL, SEP09_THREAD, SEP09_CPU, NR_SEP09 };
static char *sep09_arg[NR_SEP09];
static char *xen_image_arg, *xen_range_arg;

static struct poptOption const compat09_options[] = {
	{ "separate-lib", 0, POPT_ARG_STRING, &sep09_arg[SEP09_LIB], 0,
	  "OProfile 0.9's form: 1 adds lib to --separate, 0 removes it", "0|1" },
	{ "separate-kernel", 0, POPT_ARG_STRING, &sep09_arg[SEP09_KERNEL], 0,
	  "OProfile 0.9's form: 1 adds kernel (and lib), 0 removes it", "0|1" },
	{ "separate-thread", 0, POPT_ARG_STRING, &sep09_arg[SEP09_THREAD], 0,
	  "OProfile 0.9's form: 1 adds thread, 0 removes it", "0|1" },
	{ "separate-cpu", 0, POPT_ARG_STRING, &sep09_arg[SEP09_CPU], 0,
	  "OProfile 0.9's form: 1 adds cpu, 0 removes it", "0|1" },
	{ "xen-image", 0, POPT_ARG_STRING, &xen_image_arg, 0,
	  "not supported: Xen has no profiling interface here", "FILE" },
	{ "xen-range", 0, POPT_ARG_STRING, &xen_range_arg, 0,
	  "not supported: Xen has no profiling interface here", "START,END" },
	POPT_TABLEEND
};

static void refuse_xen(void)
{
	char const *opt = xen_image_arg ? "--xen-image" : "--xen-range";

	if (!xen_image_arg && !xen_range_arg)
		return;
	op_error("%s: not supported: Xen has no profiling interface here "
		 "(Linux and Xen dropped xenoprof); profile inside each "
		 "domain instead", opt);
	exit(1);
}

/* --separate bits with the 0.9 forms applied. */
static unsigned apply_separate09(unsigned bits)
{
	static unsigned const bit[NR_SEP09] = {
		OP_SEP_LIB, OP_SEP_KERNEL, OP_SEP_THREAD, OP_SEP_CPU,
	};
	static char const *const name[NR_SEP09] = {
		"lib", "kernel", "thread", "cpu",
	};

	for (int i = 0; i < NR_SEP09; i++) {
		char const *v = sep09_arg[i];

		if (!v)
			continue;
		if (strcmp(v, "0") && strcmp(v, "1"))
			usage_error("--separate-%s=%s: must be 0 or 1", name[i], v);
		bits = *v == '1' ? bits | bit[i] : bits & ~bit[i];
	}
	if (bits & OP_SEP_KERNEL)
		bits |= OP_SEP_LIB;
	return bits;
}

/* --- end of OProfile 0.9's daemon options --- */
static char *stack_size_arg;		/* NULL: not given, the source's default */
static int stack_size = -1;		/* checked; -1: the source's default */

static struct poptOption const options[] = {
	{ "session-dir", 0, POPT_ARG_STRING, &session_dir_arg, 0,
	  "session directory (default " OP_SESSION_DIR_DEFAULT ")", "DIR" },
	{ "events", 'e', POPT_ARG_STRING, &events_arg, 0,
	  "events to sample, comma separated (default: the cpu type's default)",
	  "NAME:count[:um[:kernel[:user]]],..." },
	{ "separate", 0, POPT_ARG_STRING, &separate_arg, 0,
	  "separate samples by (kernel implies lib)",
	  "none,lib,kernel,thread,cpu,all" },
	{ "callgraph", 'c', POPT_ARG_STRING, &callgraph_arg, 0,
	  "record up to DEPTH callers of each sample (0: none, the default)",
	  "DEPTH" },
	{ "vmlinux", 'k', POPT_ARG_STRING, &vmlinux_arg, 0,
	  "the running kernel's vmlinux (for symbols)", "FILE" },
	{ "no-vmlinux", 0, POPT_ARG_NONE, &no_vmlinux_arg, 0,
	  "no vmlinux: kernel samples resolve through kallsyms (default)", NULL },
	{ "cpu-type", 0, POPT_ARG_STRING, &cpu_type_arg, 0,
	  "override the detected cpu type", "NAME" },
	{ "no-daemon", 0, POPT_ARG_NONE, &no_daemon_arg, 0,
	  "stay in the foreground, messages on stderr", NULL },
	{ "foreground", 0, POPT_ARG_NONE, &foreground_arg, 0,
	  "as a service: stay in the foreground, log to stderr (journald)", NULL },
	{ "rotate", 0, POPT_ARG_STRING, &rotate_arg, 0,
	  "save the live session as samples/UTC-TIME at every boundary of "
	  "INTERVAL (s, m, h, d; 0: never)", "INTERVAL" },
	{ "keep", 0, POPT_ARG_STRING, &keep_arg, 0,
	  "remove rotated sessions that ended more than AGE ago", "AGE" },
	{ "keep-size", 0, POPT_ARG_STRING, &keep_size_arg, 0,
	  "remove the oldest rotated sessions while they take more than "
	  "BYTES (K, M, G, T)", "BYTES" },
	{ "source", 0, POPT_ARG_STRING, &source_arg, 0,
	  "where samples come from (default auto)", "perf|driver|auto" },
	{ "record-stream", 0, POPT_ARG_STRING, &record_arg, 0,
	  "also write the raw stream words to FILE", "FILE" },
	{ "replay", 0, POPT_ARG_STRING, &replay_arg, 0,
	  "process a recorded stream file instead of sampling, then exit", "FILE" },
	{ "buffer-pages", 0, POPT_ARG_STRING, &buffer_pages_arg, 0,
	  "ring buffer size per cpu, in pages (a power of two)", "N" },
	{ "max-open-files", 0, POPT_ARG_INT, &max_open_files_arg, 0,
	  "sample files kept open at once", "N" },
	{ "sync-interval", 0, POPT_ARG_INT, &sync_interval_arg, 0,
	  "seconds between syncs of the sample files and stats (default 10)", "SECONDS" },
	{ "flush-interval", 0, POPT_ARG_INT, &flush_interval_arg, 0,
	  "milliseconds samples may wait in memory before they reach the "
	  "sample files: what a kill -9 can lose (default 500)", "MS" },
	{ "stack-size", 0, POPT_ARG_STRING, &stack_size_arg, 0,
	  "with --callgraph: bytes of user stack copied per sample and unwound "
	  "with the binaries' CFI (default 16384; 0: frame pointers only)",
	  "BYTES" },
	{ "keep-binaries", 0, POPT_ARG_NONE, &keep_binaries_arg, 0,
	  "keep a copy of each sampled binary in the session, by build-id", NULL },
	{ "verbose", 'V', POPT_ARG_NONE, &verbose_arg, 0,
	  "log more", NULL },
	{ "paused", 0, POPT_ARG_NONE, &paused_arg, 0,
	  "start without sampling until told to (opcontrol --start-daemon)", NULL },
	{ "image", 0, POPT_ARG_STRING, &image_arg, 0,
	  "keep only the samples of these applications (absolute paths)", "PATH,..." },
	{ "version", 'v', POPT_ARG_NONE, &version_arg, 0,
	  "print the version and exit", NULL },
	{ NULL, 0, POPT_ARG_INCLUDE_TABLE, (void *)compat09_options, 0,
	  "OProfile 0.9's options:", NULL },
	POPT_AUTOHELP
	POPT_TABLEEND
};


static void parse_argv(poptContext ctx)
{
	int rc = poptGetNextOpt(ctx);
	char err[512];

	if (rc < -1)
		usage_error("%s: %s", poptBadOption(ctx, 0), poptStrerror(rc));
	if (poptPeekArg(ctx))
		usage_error("unexpected argument '%s'", poptPeekArg(ctx));
	refuse_xen();
	if (events_arg && !*events_arg)
		usage_error("--events= is empty: give NAME:count[:um[:kernel[:user]]],... or 'default'");
	if (vmlinux_arg && no_vmlinux_arg)
		usage_error("--vmlinux and --no-vmlinux exclude each other");
	if (replay_arg && record_arg)
		usage_error("--replay and --record-stream exclude each other");
	if (buffer_pages_arg &&
	    op_settings_ring_pages("--buffer-pages", buffer_pages_arg,
				   &buffer_pages, err, sizeof(err)) < 0)
		usage_error("%s", err);
	if (stack_size_arg &&
	    op_settings_stack_size("--stack-size", stack_size_arg, &stack_size,
				   err, sizeof(err)) < 0)
		usage_error("%s", err);
	if (max_open_files_arg < 0)
		usage_error("--max-open-files must not be negative");
	if (sync_interval_arg < 1)
		usage_error("--sync-interval must be at least 1 second");
	if (flush_interval_arg < 1 || flush_interval_arg > 60000)
		usage_error("--flush-interval=%d: must be 1 to 60000 milliseconds",
			    flush_interval_arg);
}

/* --rotate, --keep, --keep-size (from the command line or the settings
 * file) into o. 0, or -1 with err. */
static int parse_rotation(struct opd_options *o, char const *rotate,
			  char const *keep, char const *keep_size,
			  char *err, size_t errlen)
{
	o->rotate = o->keep = o->keep_size = 0;
	if (rotate && strcmp(rotate, "0") &&
	    op_settings_duration("--rotate", rotate, &o->rotate, err, errlen) < 0)
		return -1;
	if (keep && op_settings_duration("--keep", keep, &o->keep, err, errlen) < 0)
		return -1;
	if (keep_size &&
	    op_settings_size("--keep-size", keep_size, &o->keep_size, err, errlen) < 0)
		return -1;
	return 0;
}

/* The value of key: the command line's arg, else the settings file's. */
static char *setting(char *arg, struct op_kv const *conf, char const *key)
{
	char const *v = op_kv_get(conf, key);

	return arg ? arg : v ? op_xstrdup(v) : NULL;
}

/*
 * The settings file fills in what the command line did not give (a
 * replay reads none). Dies on a bad file.
 */
static void apply_config(struct opd_options *o)
{
	struct op_kv *conf = &o->config;
	char const *v;

	if (replay_arg)
		return;
	if (op_settings_config_read(conf) < 0)
		exit(1);
	o->rotation_cmdline = rotate_arg || keep_arg || keep_size_arg;
	if (!events_arg)
		events_line = op_kv_line(conf, "events");
	session_dir_arg = setting(session_dir_arg, conf, "session_dir");
	events_arg = setting(events_arg, conf, "events");
	separate_arg = setting(separate_arg, conf, "separate");
	callgraph_arg = setting(callgraph_arg, conf, "callgraph");
	image_arg = setting(image_arg, conf, "image");
	v = op_kv_get(conf, "vmlinux");
	if (v && !vmlinux_arg && !no_vmlinux_arg) {
		if (!strcmp(v, "none"))
			no_vmlinux_arg = 1;
		else
			vmlinux_arg = op_xstrdup(v);
	}
	v = op_kv_get(conf, "keep_binaries");
	if (v && !strcmp(v, "yes"))
		keep_binaries_arg = 1;
	if (!o->rotation_cmdline) {
		rotate_arg = setting(NULL, conf, "rotate");
		keep_arg = setting(NULL, conf, "keep");
		keep_size_arg = setting(NULL, conf, "keep_size");
	}
}

/* An absolute, existing path for a file given relative to the cwd. */
static char *absolute_file(char const *what, char const *path)
{
	char *abs = realpath(path, NULL);

	if (!abs)
		op_die_errno("cannot use %s '%s'", what, path);
	return abs;
}

/* An absolute path for a file that may not exist yet (its dir must). */
static char *absolute_new_file(char const *path)
{
	char cwd[4096];
	size_t n;
	char *abs;

	if (path[0] == '/')
		return op_xstrdup(path);
	if (!getcwd(cwd, sizeof(cwd)))
		op_die_errno("cannot get the current directory");
	n = strlen(cwd) + strlen(path) + 2;
	abs = op_xmalloc(n);
	snprintf(abs, n, "%s/%s", cwd, path);
	return abs;
}

/* --image=PATH,...: the NULL-ended list of absolute paths (none: NULL). */
static char const *const *image_filter(char const *text)
{
	char *copy, *w, *save = NULL;
	char const **v;
	size_t n = 0;

	if (!text || !*text || !strcmp(text, "all"))
		return NULL;
	copy = op_xstrdup(text);
	v = op_xcalloc(strlen(text) / 2 + 2, sizeof(*v));
	for (w = strtok_r(copy, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		if (w[0] != '/')
			usage_error("--image: '%s' is not an absolute path", w);
		v[n++] = w;
	}
	return v;
}

/* The checked settings as the core's configuration. */
static unsigned core_separate(unsigned bits)
{
	return (bits & OP_SEP_LIB ? OPD_SEP_LIB : 0) |
	       (bits & OP_SEP_KERNEL ? OPD_SEP_KERNEL : 0) |
	       (bits & OP_SEP_THREAD ? OPD_SEP_THREAD : 0) |
	       (bits & OP_SEP_CPU ? OPD_SEP_CPU : 0);
}


static void setup_config(struct opd_options *o, struct opd_config *cfg)
{
	struct op_settings_events ev;
	char err[1024];
	enum op_cpu cpu = op_settings_cpu(cpu_type_arg, err, sizeof(err));
	unsigned separate;

	if (cpu == CPU_NO_GOOD)
		op_die("%s", err);
	cfg->cpu_type = cpu;
	cfg->cpu_speed = op_cpu_speed();
	if (callgraph_arg &&
	    op_settings_callgraph(callgraph_arg, &o->callgraph, err, sizeof(err)) < 0)
		op_die("%s", err);
	if (op_settings_events(events_arg, cpu, o->callgraph, &ev, err,
			       sizeof(err)) < 0) {
		if (events_line)	/* the settings file's */
			op_die("%s:%u: %s", op_settings_config_path(), events_line, err);
		op_die("%s", err);
	}
	o->stack_size = stack_size;
	opd_config_events(cfg, &ev);
	snprintf(o->events_text, sizeof(o->events_text), "%s", ev.text);
	if (op_settings_separate(separate_arg ? separate_arg : "none",
				 &separate, err, sizeof(err)) < 0)
		op_die("%s", err);
	separate = apply_separate09(separate);
	cfg->separate = core_separate(separate);
	op_settings_separate_text(separate, o->separate_text,
				  sizeof(o->separate_text));
	cfg->max_open_files = (size_t)max_open_files_arg;
	cfg->image_filter = image_filter(image_arg);
	snprintf(o->image_text, sizeof(o->image_text), "%s",
		 cfg->image_filter ? image_arg : "all");
}

void opd_options_parse(struct opd_options *o, struct opd_config *cfg,
		       int argc, char const **argv)
{
	poptContext ctx = poptGetContext(op_progname(), argc, argv, options, 0);

	parse_argv(ctx);
	char err[1024];

	if (version_arg) {
		op_print_version(stdout, "oprofiled");
		exit(0);
	}
	memset(cfg, 0, sizeof(*cfg));
	apply_config(o);
	if (parse_rotation(o, rotate_arg, keep_arg, keep_size_arg, err, sizeof(err)) < 0)
		usage_error("%s", err);
	if (replay_arg && o->rotate)
		usage_error("--replay and --rotate exclude each other");
	o->paused = paused_arg;
	o->foreground = foreground_arg;
	o->no_daemon = no_daemon_arg || foreground_arg || replay_arg;
	o->buffer_pages = buffer_pages;
	o->verbose = verbose_arg;
	o->sync_interval = sync_interval_arg;
	o->flush_interval_ms = flush_interval_arg;
	if (replay_arg) {
		o->replay = absolute_file("replay file", replay_arg);
	} else {
		o->source = opd_source_find(source_arg ? source_arg : "auto");
		if (!o->source)
			exit(1);
		if (op_settings_check_privilege() < 0)
			exit(1);
	}
	if (record_arg)
		o->record_stream = absolute_new_file(record_arg);
	if (vmlinux_arg)
		o->vmlinux = absolute_file("vmlinux", vmlinux_arg);
	setup_config(o, cfg);
	cfg->vmlinux = o->vmlinux;
	cfg->keep_binaries = keep_binaries_arg;
	cfg->jit_maps = !o->replay;
	o->session_dir = op_xstrdup(session_dir_arg ? session_dir_arg :
				    OP_SESSION_DIR_DEFAULT);
	poptFreeContext(ctx);
}

int opd_options_save(struct opd_options const *o, struct opd_config const *cfg)
{
	char *current = op_session_samples(o->session_dir, OP_CURRENT_SESSION);
	char *path = op_session_path(current, OP_SESSION_CONF);
	struct op_kv kv = { 0 };
	char buf[64];
	time_t now = time(NULL);
	int ret;

	op_kv_set(&kv, "events", o->events_text);
	op_kv_set(&kv, "separate", o->separate_text);
	snprintf(buf, sizeof(buf), "%u", o->callgraph);
	op_kv_set(&kv, "callgraph", buf);
	if (o->stack_size >= 0) {
		snprintf(buf, sizeof(buf), "%d", o->stack_size);
		op_kv_set(&kv, "stack_size", buf);
	}
	op_kv_set(&kv, "cpu_type", op_cpu_name(cfg->cpu_type));
	snprintf(buf, sizeof(buf), "%.3f", cfg->cpu_speed);
	op_kv_set(&kv, "cpu_speed", buf);
	op_kv_set(&kv, "vmlinux", o->vmlinux ? o->vmlinux : "none");
	op_kv_set(&kv, "image", o->image_text);
	op_kv_set(&kv, "source", o->replay ? "replay" : o->source->name);
	op_kv_set(&kv, "keep_binaries", cfg->keep_binaries ? "yes" : "no");
	if (o->rotate) {
		op_settings_duration_text(o->rotate, buf, sizeof(buf));
		op_kv_set(&kv, "rotate", buf);
	}
	if (o->replay)
		op_kv_set(&kv, "replay", o->replay);
	snprintf(buf, sizeof(buf), "%lld", (long long)now);
	op_kv_set(&kv, "start_time", buf);
	strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S%z", localtime(&now));
	op_kv_set(&kv, "start_time_text", buf);
	ret = op_kv_write(&kv, path);
	op_kv_free(&kv);
	free(path);
	free(current);
	return ret;
}

/* Keys of the settings file that a running daemon cannot change. */
static char const *const restart_keys[] = {
	"session_dir", "events", "separate", "callgraph", "vmlinux", "image",
	"keep_binaries",
};

int opd_options_reload(struct opd_options *o)
{
	char const *path = op_settings_config_path();
	struct op_kv conf;
	char err[1024], text[32];

	if (op_settings_config_read(&conf) < 0)
		return -1;
	for (size_t i = 0; i < sizeof(restart_keys) / sizeof(restart_keys[0]); i++) {
		char const *was = op_kv_get(&o->config, restart_keys[i]);
		char const *now = op_kv_get(&conf, restart_keys[i]);

		if (was == now || (was && now && !strcmp(was, now)))
			continue;
		op_warn("reload: %s changed in '%s' ('%s', running with '%s'): it takes effect when the daemon restarts (systemctl restart oprofiled)",
			restart_keys[i], path, now ? now : "unset", was ? was : "unset");
	}
	if (o->rotation_cmdline) {
		op_info("reload: --rotate, --keep and --keep-size were given on the command line: the settings file's values are not used");
	} else if (parse_rotation(o, op_kv_get(&conf, "rotate"), op_kv_get(&conf, "keep"),
				  op_kv_get(&conf, "keep_size"), err, sizeof(err)) < 0) {
		op_error("reload: settings file '%s': %s", path, err);
	} else {
		op_settings_duration_text(o->rotate, text, sizeof(text));
		op_info("reload: settings file '%s' read: rotate %s, keep %llus, keep_size %llu bytes",
			path, o->rotate ? text : "0 (never)",
			(unsigned long long)o->keep, (unsigned long long)o->keep_size);
	}
	op_kv_free(&o->config);
	o->config = conf;
	return 0;
}
