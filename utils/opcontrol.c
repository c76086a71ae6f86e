/*
 * opcontrol: the user's control of a profiling session. It keeps the
 * settings in SESSION_DIR/daemonrc (the session directory is the one
 * place both users and tests point at, so everything about a session
 * lives there), starts oprofiled with them, and talks to the running
 * daemon through signals and the control FIFO (libop/op_session_control.h).
 * When no daemon runs, --reset and --save act on the files directly.
 *
 * It takes OProfile 0.9's whole interface (doc/compat.md): --setup
 * stores the settings only, --start-daemon starts the daemon without
 * sampling, --start then samples.
 *
 * Actions run in this order, whatever the order on the command line:
 * settings, --dump, --stop, --save, --reset, --shutdown, --start-daemon,
 * --start, --status (so "--stop --reset" resets a paused session,
 * "--shutdown --start" restarts).
 */
#include "config.h"

#include <errno.h>
#include <popt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "op_file.h"
#include "op_message.h"
#include "op_session.h"
#include "op_session_control.h"
#include "op_session_kv.h"
#include "op_session_settings.h"
#include "op_util.h"
#include "op_version.h"
#include "opcontrol.h"


enum { OPT_EVENT = 1, OPT_VERBOSE };

static struct {
	char *session_dir;
	char *events;          /* comma list of every --event */
	char *separate;
	char *callgraph;       /* --callgraph depth, as given */
	char *vmlinux;
	char *save;
	char *image;           /* --image filter, as given */
	char *kernel_range;
	char *buffer_size, *buffer_watershed, *cpu_buffer_size;
	int no_vmlinux;
	int start, stop, dump, reset, shutdown, status, setup, start_daemon;
	int list_events, init, deinit, version, verbose;
	int keep_binaries, no_keep_binaries;
	char *rotate, *keep, *keep_size;
	struct op_kv config;   /* the settings file (op_settings_config_read) */
} opt;

/*
 * --- OProfile 0.9's Xen options (doc/compat.md): refused, exit 1. Xen has
 * no profiling interface here (xenoprof is gone from Linux and Xen), and
 * a session silently without the domains' samples would mislead.
 */
static void refuse_xen(poptContext ctx, enum poptCallbackReason reason,
		       struct poptOption const *o, char const *arg,
		       void const *data)
{
	(void)ctx;
	(void)reason;
	(void)arg;
	(void)data;
	op_error("--%s: not supported: Xen has no profiling interface here "
		 "(Linux and Xen dropped xenoprof); profile inside each "
		 "domain instead", o->longName);
	exit(1);
}

static struct poptOption const xen_options[] = {
	{ NULL, 0, POPT_ARG_CALLBACK, (void *)refuse_xen, 0, NULL, NULL },
	{ "xen", 0, POPT_ARG_STRING, NULL, 0,
	  "not supported: Xen has no profiling interface here", "FILE" },
	{ "active-domains", 0, POPT_ARG_STRING, NULL, 0,
	  "not supported: Xen has no profiling interface here", "LIST" },
	{ "passive-domains", 0, POPT_ARG_STRING, NULL, 0,
	  "not supported: Xen has no profiling interface here", "LIST" },
	POPT_TABLEEND
};
/* --- end of the Xen options --- */

static struct poptOption const options[] = {
	{ "start", 's', POPT_ARG_NONE, &opt.start, 0,
	  "start the daemon if needed, and sampling", NULL },
	{ "setup", 0, POPT_ARG_NONE, &opt.setup, 0,
	  "store the settings given, start nothing", NULL },
	{ "start-daemon", 0, POPT_ARG_NONE, &opt.start_daemon, 0,
	  "start the daemon without sampling (--start samples)", NULL },
	{ "stop", 't', POPT_ARG_NONE, &opt.stop, 0, "stop sampling", NULL },
	{ "dump", 'd', POPT_ARG_NONE, &opt.dump, 0,
	  "flush every sample taken so far to the sample files", NULL },
	{ "reset", 0, POPT_ARG_NONE, &opt.reset, 0,
	  "clear the live session's samples", NULL },
	{ "save", 0, POPT_ARG_STRING, &opt.save, 0,
	  "save the live session as samples/NAME", "NAME" },
	{ "status", 0, POPT_ARG_NONE, &opt.status, 0,
	  "show the daemon and the session settings", NULL },
	{ "shutdown", 'h', POPT_ARG_NONE, &opt.shutdown, 0,
	  "stop the daemon and wait until it has exited", NULL },
	{ "event", 'e', POPT_ARG_STRING, NULL, OPT_EVENT,
	  "event to sample (repeatable; 'default' for the cpu's default)",
	  "NAME:count[:um[:kernel[:user]]]" },
	{ "separate", 'p', POPT_ARG_STRING, &opt.separate, 0,
	  "separate samples by (kernel implies lib)", "none,lib,kernel,thread,cpu,all" },
	{ "callgraph", 'c', POPT_ARG_STRING, &opt.callgraph, 0,
	  "record up to DEPTH callers of each sample (0: none); minimum counts are 15 times higher",
	  "DEPTH" },
	{ "session-dir", 0, POPT_ARG_STRING, &opt.session_dir, 0,
	  "session directory (default " OP_SESSION_DIR_DEFAULT ")", "DIR" },
	{ "vmlinux", 0, POPT_ARG_STRING, &opt.vmlinux, 0,
	  "the running kernel's vmlinux", "FILE" },
	{ "no-vmlinux", 0, POPT_ARG_NONE, &opt.no_vmlinux, 0,
	  "no vmlinux: kernel symbols from kallsyms", NULL },
	{ "kernel-range", 0, POPT_ARG_STRING, &opt.kernel_range, 0,
	  "the kernel's text range (recorded; ranges come from kallsyms)", "START,END" },
	{ "image", 'i', POPT_ARG_STRING, &opt.image, 0,
	  "keep only the samples of these binaries and of their processes",
	  "all|PATH,..." },
	{ "buffer-size", 0, POPT_ARG_STRING, &opt.buffer_size, 0,
	  "driver event buffer size, in entries", "N" },
	{ "buffer-watershed", 0, POPT_ARG_STRING, &opt.buffer_watershed, 0,
	  "driver event buffer: entries left when the daemon is woken", "N" },
	{ "cpu-buffer-size", 0, POPT_ARG_STRING, &opt.cpu_buffer_size, 0,
	  "per-cpu buffer size, in entries (driver; perf: ring of N samples)", "N" },
	{ "keep-binaries", 0, POPT_ARG_NONE, &opt.keep_binaries, 0,
	  "keep a copy of each sampled binary in the session, by build-id", NULL },
	{ "no-keep-binaries", 0, POPT_ARG_NONE, &opt.no_keep_binaries, 0,
	  "keep copies only of other mount namespaces' binaries (default)", NULL },
	{ "rotate", 0, POPT_ARG_STRING, &opt.rotate, 0,
	  "save the live session as samples/UTC-TIME every INTERVAL (s, m, h, d; 0: never)",
	  "INTERVAL" },
	{ "keep", 0, POPT_ARG_STRING, &opt.keep, 0,
	  "remove rotated sessions that ended more than AGE ago", "AGE" },
	{ "keep-size", 0, POPT_ARG_STRING, &opt.keep_size, 0,
	  "remove the oldest rotated sessions while they take more than BYTES",
	  "BYTES" },
	{ "list-events", 'l', POPT_ARG_NONE, &opt.list_events, 0,
	  "list the events of this cpu (runs ophelp)", NULL },
	{ "init", 0, POPT_ARG_NONE, &opt.init, 0,
	  "load the oprofile driver ($OPROFILE_MODULE, ../driver/oprofile.ko or modprobe) and mount it on $OPROFILE_DRIVER_DIR (default " OP_DRIVER_DIR_DEFAULT ")", NULL },
	{ "deinit", 0, POPT_ARG_NONE, &opt.deinit, 0,
	  "unmount the driver directory and unload the oprofile driver", NULL },
	{ "verbose", 'V', POPT_ARG_STRING | POPT_ARGFLAG_OPTIONAL, NULL, OPT_VERBOSE,
	  "say more, and run the daemon verbose (any OProfile class: all)",
	  "all,sfile,arcs,samples,module,misc" },
	{ "version", 'v', POPT_ARG_NONE, &opt.version, 0,
	  "print the version and exit", NULL },
	{ NULL, 0, POPT_ARG_INCLUDE_TABLE, (void *)xen_options, 0,
	  "OProfile 0.9's Xen options:", NULL },
	POPT_AUTOHELP
	POPT_TABLEEND
};

static void add_event(char const *spec)
{
	char *joined = opt.events ? op_xasprintf("%s,%s", opt.events, spec) :
				    op_xstrdup(spec);

	free(opt.events);
	opt.events = joined;
}

/* A bad command line: the error, a hint, exit 2. */
#define usage_error(...) \
	op_usage_error("opcontrol --help lists the options", __VA_ARGS__)

/* OProfile's --verbose=CLASS,...: any class makes us (and the daemon)
 * say more; we have no finer classes. */
static int verbose_classes(char const *arg)
{
	static char const *const classes[] = {
		"all", "sfile", "arcs", "samples", "module", "misc",
	};
	char *copy = op_xstrdup(arg ? arg : "all"), *w, *save = NULL;

	for (w = strtok_r(copy, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		size_t i = 0;

		while (i < sizeof(classes) / sizeof(classes[0]) && strcmp(w, classes[i]))
			i++;
		if (i == sizeof(classes) / sizeof(classes[0]))
			usage_error("--verbose: '%s' is not one of all,sfile,arcs,samples,module,misc", w);
	}
	free(copy);
	return 1;
}

static void parse_options(int argc, char const **argv)
{
	poptContext ctx = poptGetContext("opcontrol", argc, argv, options, 0);
	int rc;

	while ((rc = poptGetNextOpt(ctx)) > 0) {
		char *arg = poptGetOptArg(ctx);

		if (rc == OPT_EVENT) {
			if (!arg || !*arg)	/* not silently the default event */
				usage_error("--event= is empty: give NAME:count[:um[:kernel[:user]]] or 'default'");
			add_event(arg);
		} else {
			opt.verbose = verbose_classes(arg);
		}
		free(arg);
	}
	if (rc < -1 || poptPeekArg(ctx)) {
		usage_error("%s '%s'",
			    rc < -1 ? poptStrerror(rc) : "unexpected argument",
			    rc < -1 ? poptBadOption(ctx, 0) : poptPeekArg(ctx));
	}
	if (opt.vmlinux && opt.no_vmlinux)
		usage_error("--vmlinux and --no-vmlinux exclude each other");
	if (opt.start_daemon && opt.shutdown)
		usage_error("--start-daemon and --shutdown exclude each other");
	if (opt.keep_binaries && opt.no_keep_binaries)
		usage_error("--keep-binaries and --no-keep-binaries exclude each other");
	if (argc < 2) {
		poptPrintHelp(ctx, stdout, 0);
		exit(2);
	}
	poptFreeContext(ctx);
}

/* The settings file: its session_dir unless --session-dir was given.
 * Read after the options, so that --version and --help never need it. */
static void read_settings_file(void)
{
	if (op_settings_config_read(&opt.config) < 0)
		exit(1);
	if (!opt.session_dir)
		opt.session_dir = (char *)op_kv_get(&opt.config, "session_dir");
	if (!opt.session_dir)
		opt.session_dir = OP_SESSION_DIR_DEFAULT;
}

static _Noreturn void exec_ophelp(void)
{
	char *prog = opc_find_program("ophelp", NULL);

	execvp(prog, (char *[]){ prog, NULL });
	op_die_errno("cannot run '%s'", prog);
}

/* A setting given on the command line as option: checked as the files'
 * lines are (op_settings_check), then set. 0, or -1 after a message. */
static int set_checked(struct op_kv *kv, char const *key, char const *option,
		       char const *text)
{
	char err[1024];

	if (!text)
		return 0;
	if (op_settings_check(key, option, text, err, sizeof(err)) < 0)
		return op_error("%s", err);
	op_kv_set(kv, key, text);
	return 0;
}

/* The settings file's values for what daemonrc and the command line
 * leave unset (daemonrc wins: it is this session's). */
static void merge_config(struct op_kv *kv)
{
	for (size_t i = 0; i < opt.config.nr; i++)
		if (strcmp(opt.config.keys[i], "session_dir") &&
		    !op_kv_get(kv, opt.config.keys[i]))
			op_kv_set(kv, opt.config.keys[i], opt.config.values[i]);
}

/* The settings given as they are, checked: those of sessions by time,
 * and those OProfile 0.9 has that we only pass on or record. */
static int merge_given(struct op_kv *kv)
{
	if (set_checked(kv, "rotate", "--rotate", opt.rotate) < 0 ||
	    set_checked(kv, "keep", "--keep", opt.keep) < 0 ||
	    set_checked(kv, "keep_size", "--keep-size", opt.keep_size) < 0 ||
	    set_checked(kv, "buffer_size", "--buffer-size", opt.buffer_size) < 0 ||
	    set_checked(kv, "buffer_watershed", "--buffer-watershed", opt.buffer_watershed) < 0 ||
	    set_checked(kv, "cpu_buffer_size", "--cpu-buffer-size", opt.cpu_buffer_size) < 0 ||
	    set_checked(kv, "image", "--image", opt.image) < 0 ||
	    set_checked(kv, "kernel_range", "--kernel-range", opt.kernel_range) < 0)
		return -1;
	return 0;
}

/* "FILE:LINE: " of the file the events of kv came from (daemonrc, else
 * the settings file), "" when given on the command line or by default. */
static void events_origin(struct op_kv const *kv, char *buf, size_t size)
{
	unsigned line = op_kv_line(kv, "events");

	buf[0] = '\0';
	if (opt.events)
		return;
	if (line) {
		snprintf(buf, size, "%s/%s:%u: ", opt.session_dir, OP_DAEMONRC_FILE, line);
		return;
	}
	line = op_kv_line(&opt.config, "events");
	if (line && op_kv_get(kv, "events") == NULL)
		snprintf(buf, size, "%s:%u: ", op_settings_config_path(), line);
}

/*
 * The settings in SESSION/daemonrc with those given on the command line
 * merged in, then the settings file's for the rest, each checked as it
 * comes in (op_settings_check). With check_events (a command that saves
 * or starts), the events are checked against this cpu's events/ files
 * too, wherever they come from: an error names the file and line. 0, or
 * -1 after a message.
 */
static int merge_settings(struct op_kv *kv, int check_events)
{
	char err[1024], text[1024], origin[1200];

	if (op_settings_daemonrc_read(kv, opt.session_dir) < 0 || merge_given(kv) < 0)
		return -1;
	events_origin(kv, origin, sizeof(origin));
	merge_config(kv);
	if (opt.callgraph) {
		unsigned depth;

		if (op_settings_callgraph(opt.callgraph, &depth, err, sizeof(err)) < 0)
			return op_error("%s", err);
		snprintf(text, sizeof(text), "%u", depth);
		op_kv_set(kv, "callgraph", text);
	}
	/* the events given, or the saved ones (also under a new depth: a
	 * callgraph needs 15 times the minimum count) */
	if (opt.events || opt.callgraph || check_events) {
		enum op_cpu cpu = op_settings_cpu(NULL, err, sizeof(err));
		struct op_settings_events ev;
		unsigned depth;

		if (cpu == CPU_NO_GOOD || opc_callgraph(kv, &depth, err, sizeof(err)) < 0)
			return op_error("%s", err);
		if (op_settings_events(opt.events ? opt.events : op_kv_get(kv, "events"),
				       cpu, depth, &ev, err, sizeof(err)) < 0)
			return op_error("%s%s", origin, err);
		if (opt.events)
			op_kv_set(kv, "events", ev.text);
	}
	if (opt.separate) {
		unsigned bits;

		if (op_settings_separate(opt.separate, &bits, err, sizeof(err)) < 0)
			return op_error("%s", err);
		op_settings_separate_text(bits, text, sizeof(text));
		op_kv_set(kv, "separate", text);
	}
	if (opt.vmlinux) {
		char *abs = realpath(opt.vmlinux, NULL);

		if (!abs)
			return op_error_errno("cannot use vmlinux '%s'", opt.vmlinux);
		op_kv_set(kv, "vmlinux", abs);
		free(abs);
	}
	if (opt.no_vmlinux)
		op_kv_set(kv, "vmlinux", "none");
	if (opt.keep_binaries || opt.no_keep_binaries)
		op_kv_set(kv, "keep_binaries", opt.keep_binaries ? "yes" : "no");
	return 0;
}

static int save_settings(struct op_kv const *kv)
{
	char *rc_path = op_session_path(opt.session_dir, OP_DAEMONRC_FILE);
	int ret = op_kv_write(kv, rc_path);

	free(rc_path);
	return ret;
}

/* Fill in the defaults of the settings not given. */
static void default_settings(struct op_kv *kv)
{
	if (!op_kv_get(kv, "events"))
		op_kv_set(kv, "events", "default");
	if (!op_kv_get(kv, "separate"))
		op_kv_set(kv, "separate", "none");
	if (!op_kv_get(kv, "callgraph"))
		op_kv_set(kv, "callgraph", "0");
	if (!op_kv_get(kv, "vmlinux"))
		op_kv_set(kv, "vmlinux", "none");
	if (!op_kv_get(kv, "image"))
		op_kv_set(kv, "image", "all");
	if (!op_kv_get(kv, "keep_binaries"))
		op_kv_set(kv, "keep_binaries", "no");
}

static int do_dump(pid_t pid)
{
	if (!pid) {
		op_warn("daemon not running: nothing to dump");
		return 0;
	}
	return opc_command(opt.session_dir, pid, "dump", NULL);
}

static int do_save(pid_t pid)
{
	char err[512];

	if (!op_session_name_ok(opt.save, err, sizeof(err)))
		return op_error("%s", err);
	if (pid)
		return opc_command(opt.session_dir, pid, "save", opt.save);
	return op_session_save(opt.session_dir, opt.save, NULL, 0);
}

static int do_reset(pid_t pid)
{
	if (pid)
		return opc_command(opt.session_dir, pid, "reset", NULL);
	return op_session_reset(opt.session_dir);
}

static int do_stop(pid_t pid)
{
	if (!pid) {
		op_warn("daemon not running");
		return 0;
	}
	if (opc_command(opt.session_dir, pid, "stop", NULL) < 0)
		return -1;
	printf("Stopped profiling.\n");
	return 0;
}

static int do_shutdown(pid_t pid)
{
	int waited = 0;

	if (!pid) {
		printf("Daemon not running.\n");
		return 0;
	}
	if (kill(pid, SIGTERM) < 0)
		return op_error_errno("cannot signal the daemon (pid %ld)",
				      (long)pid);
	while (op_pid_is_daemon(pid)) {
		if (waited >= OPC_WAIT_MS)
			return op_error("daemon (pid %ld) still running %d s after SIGTERM; see '%s/%s'",
					(long)pid, OPC_WAIT_MS / 1000, opt.session_dir,
					OP_LOG_FILE);
		usleep(20000);
		waited += 20;
	}
	printf("Stopped daemon (pid %ld).\n", (long)pid);
	return 0;
}

/*
 * The service's state: "systemctl is-active oprofiled" when systemd runs
 * this machine (sd_booted(3)'s test), else "not under systemd".
 */
static void print_service(void)
{
	char line[64] = "";
	FILE *p;

	if (access("/run/systemd/system", F_OK)) {
		printf("Service: not under systemd\n");
		return;
	}
	fflush(stdout);
	p = popen("systemctl is-active oprofiled 2>/dev/null", "r");
	if (!p || !fgets(line, sizeof(line), p))
		snprintf(line, sizeof(line), "unknown (systemctl failed)");
	if (p)
		pclose(p);
	line[strcspn(line, "\n")] = '\0';
	printf("Service: oprofiled.service %s\n", line);
}

static int do_status(pid_t pid)
{
	char *state_path = op_session_path(opt.session_dir, OP_STATE_FILE);
	char state[32] = "";
	struct op_kv kv;

	if (pid) {
		op_session_read_small(state_path, state, sizeof(state));
		printf("Daemon %s: pid %ld\n",
		       strncmp(state, "paused", 6) ? "running" : "paused", (long)pid);
		opc_load_running(opt.session_dir, &kv);
	} else {
		if (op_settings_daemonrc_read(&kv, opt.session_dir) < 0)
			return -1;
		printf("Daemon not running\n");
		default_settings(&kv);
	}
	printf("Session dir: %s\n", opt.session_dir);
	printf("Events: %s\n", op_kv_get(&kv, "events") ? op_kv_get(&kv, "events") : "default");
	printf("Separate: %s\n", op_kv_get(&kv, "separate") ? op_kv_get(&kv, "separate") : "none");
	printf("Callgraph: %s\n", op_kv_get(&kv, "callgraph") ? op_kv_get(&kv, "callgraph") : "0");
	printf("vmlinux: %s\n", op_kv_get(&kv, "vmlinux") ? op_kv_get(&kv, "vmlinux") : "none");
	printf("Image filter: %s\n", op_kv_get(&kv, "image") ? op_kv_get(&kv, "image") : "all");
	printf("Source: %s\n", op_kv_get(&kv, "source") ? op_kv_get(&kv, "source") :
	       opc_driver_loaded() ? "driver" : "perf");
	printf("Rotate: %s\n", op_kv_get(&kv, "rotate") ? op_kv_get(&kv, "rotate") : "0");
	printf("Settings file: %s\n", op_settings_config_path());
	print_service();
	op_kv_free(&kv);
	free(state_path);
	return 0;
}

/*
 * The settings to use: daemonrc with this command line merged in. They
 * are saved when given, but not when --start is refused because a daemon
 * runs with other settings. 0 or -1.
 */
static int settings(struct op_kv *kv, pid_t pid)
{
	int given = opt.events || opt.separate || opt.callgraph || opt.vmlinux ||
		opt.no_vmlinux || opt.image || opt.kernel_range || opt.buffer_size ||
		opt.buffer_watershed || opt.cpu_buffer_size || opt.keep_binaries ||
		opt.no_keep_binaries || opt.rotate || opt.keep || opt.keep_size;
	int starting = opt.start || opt.start_daemon;

	memset(kv, 0, sizeof(*kv));
	if ((given || starting || opt.setup) && op_session_create(opt.session_dir) < 0)
		return -1;
	if (merge_settings(kv, given || starting || opt.setup) < 0)
		return -1;
	default_settings(kv);
	if (given && starting && pid && !opt.shutdown && opc_check_running(opt.session_dir, pid, kv) < 0)
		return -1;
	if (!given && !opt.setup)
		return 0;
	if (save_settings(kv) < 0)
		return -1;
	if (opt.setup)
		printf("Settings saved in %s/%s.\n", opt.session_dir, OP_DAEMONRC_FILE);
	return 0;
}

/* No write of ours in the session follows a symbolic link (op_file.h). */
static void guard_session(char const *dir)
{
	char *abs = realpath(dir, NULL);

	if (abs)
		op_file_set_guard(abs);
	free(abs);
}

int main(int argc, char const **argv)
{
	struct op_kv kv;
	int fail = 0;
	pid_t pid;

	op_set_progname("opcontrol");
	umask(022);	/* our files are 0644 and 0755, whatever the caller's umask */
	parse_options(argc, argv);
	if (opt.version) {
		op_print_version(stdout, "opcontrol");
		return 0;
	}
	read_settings_file();
	guard_session(opt.session_dir);
	if (opt.list_events)
		exec_ophelp();
	if (opt.deinit && opc_driver_deinit() < 0)
		return 1;
	if (opt.init && opc_driver_init() < 0)
		return 1;
	if ((opt.init || opt.deinit) && argc == 2)
		return 0;
	pid = op_session_daemon_pid(opt.session_dir);
	if (settings(&kv, pid) < 0)
		return 1;
	if (opt.dump && do_dump(pid) < 0)
		fail = 1;
	if (!fail && opt.stop && do_stop(pid) < 0)
		fail = 1;
	if (!fail && opt.save && do_save(pid) < 0)
		fail = 1;
	if (!fail && opt.reset && do_reset(pid) < 0)
		fail = 1;
	if (!fail && opt.shutdown) {
		if (do_shutdown(pid) < 0)
			fail = 1;
		pid = 0;
	}
	if (!fail && opt.start_daemon) {
		if (opc_start(opt.session_dir, opt.verbose, 1, pid, &kv) < 0)
			fail = 1;
		pid = op_session_daemon_pid(opt.session_dir);
	}
	if (!fail && opt.start && opc_start(opt.session_dir, opt.verbose, 0, pid, &kv) < 0)
		fail = 1;
	if (!fail && opt.status && do_status(op_session_daemon_pid(opt.session_dir)) < 0)
		fail = 1;
	op_kv_free(&kv);
	return fail;
}
