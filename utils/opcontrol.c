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
	if (opc_settings(&kv, pid) < 0)
		return 1;
	if (opt.dump && opc_dump(pid) < 0)
		fail = 1;
	if (!fail && opt.stop && opc_stop(pid) < 0)
		fail = 1;
	if (!fail && opt.save && opc_save(pid) < 0)
		fail = 1;
	if (!fail && opt.reset && opc_reset(pid) < 0)
		fail = 1;
	if (!fail && opt.shutdown) {
		if (opc_shutdown(pid) < 0)
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
	if (!fail && opt.status && opc_status(op_session_daemon_pid(opt.session_dir)) < 0)
		fail = 1;
	op_kv_free(&kv);
	return fail;
}
