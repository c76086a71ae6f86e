/*
 * opcontrol: the user's control of a profiling session. It keeps the
 * settings in SESSION_DIR/daemonrc (the session directory is the one
 * place both users and tests point at, so everything about a session
 * lives there), starts oprofiled with them, and talks to the running
 * daemon through signals and the control FIFO (daemon/opd_control.h).
 * When no daemon runs, --reset and --save act on the files directly.
 *
 * Actions run in this order, whatever the order on the command line:
 * settings, --dump, --stop, --save, --reset, --shutdown, --start, --status
 * (so "--stop --reset" resets a paused session, "--shutdown --start"
 * restarts).
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <popt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "op_config.h"
#include "op_message.h"
#include "opd_control.h"
#include "opd_session.h"
#include "opd_settings.h"

#define WAIT_MS 60000

enum { OPT_EVENT = 1 };

static struct {
	char *session_dir;
	char *events;          /* comma list of every --event */
	char *separate;
	char *vmlinux;
	char *save;
	int no_vmlinux;
	int start, stop, dump, reset, shutdown, status;
	int list_events, init, deinit, verbose;
} opt;

static struct poptOption const options[] = {
	{ "start", 's', POPT_ARG_NONE, &opt.start, 0,
	  "start the daemon if needed, and sampling", NULL },
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
	{ "session-dir", 0, POPT_ARG_STRING, &opt.session_dir, 0,
	  "session directory (default " OP_SESSION_DIR_DEFAULT ")", "DIR" },
	{ "vmlinux", 0, POPT_ARG_STRING, &opt.vmlinux, 0,
	  "the running kernel's vmlinux", "FILE" },
	{ "no-vmlinux", 0, POPT_ARG_NONE, &opt.no_vmlinux, 0,
	  "no vmlinux: kernel symbols from kallsyms", NULL },
	{ "list-events", 'l', POPT_ARG_NONE, &opt.list_events, 0,
	  "list the events of this cpu (runs ophelp)", NULL },
	{ "init", 0, POPT_ARG_NONE, &opt.init, 0,
	  "load the oprofile driver (nothing to do for the perf source)", NULL },
	{ "deinit", 0, POPT_ARG_NONE, &opt.deinit, 0,
	  "unload the oprofile driver (nothing to do for the perf source)", NULL },
	{ "verbose", 'V', POPT_ARG_NONE, &opt.verbose, 0,
	  "say more, and run the daemon verbose", NULL },
	POPT_AUTOHELP
	POPT_TABLEEND
};

static void add_event(char const *spec)
{
	size_t old = opt.events ? strlen(opt.events) : 0;

	opt.events = op_xrealloc(opt.events, old + strlen(spec) + 2);
	sprintf(opt.events + old, "%s%s", old ? "," : "", spec);
}

static void parse_options(int argc, char const **argv)
{
	poptContext ctx = poptGetContext("opcontrol", argc, argv, options, 0);
	int rc;

	while ((rc = poptGetNextOpt(ctx)) == OPT_EVENT)
		add_event(poptGetOptArg(ctx));
	if (rc < -1 || poptPeekArg(ctx)) {
		fprintf(stderr, "opcontrol: error: %s '%s'\n",
			rc < -1 ? poptStrerror(rc) : "unexpected argument",
			rc < -1 ? poptBadOption(ctx, 0) : poptPeekArg(ctx));
		poptPrintUsage(ctx, stderr, 0);
		exit(2);
	}
	if (opt.vmlinux && opt.no_vmlinux) {
		fprintf(stderr, "opcontrol: error: --vmlinux and --no-vmlinux exclude each other\n");
		exit(2);
	}
	if (argc < 2) {
		poptPrintHelp(ctx, stdout, 0);
		exit(2);
	}
	poptFreeContext(ctx);
	if (!opt.session_dir)
		opt.session_dir = OP_SESSION_DIR_DEFAULT;
}

/* Path of PROG next to this executable, or PROG itself (found in PATH). */
static char *find_program(char const *prog)
{
	char self[PATH_MAX], *slash, *path;
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (n > 0) {
		self[n] = '\0';
		slash = strrchr(self, '/');
		if (slash) {
			slash[1] = '\0';
			path = opd_path(self, prog);
			if (access(path, X_OK) == 0)
				return path;
			free(path);
		}
	}
	return op_xstrdup(prog);
}

static _Noreturn void exec_ophelp(void)
{
	char *prog = find_program("ophelp");

	execvp(prog, (char *[]){ prog, NULL });
	op_die("cannot run '%s': %s", prog, strerror(errno));
}

/*
 * The settings in SESSION/daemonrc with those given on the command line
 * merged in, each validated (events against this cpu's events/ files).
 * 0, or -1 after a message.
 */
static int merge_settings(struct opd_kv *kv)
{
	char *rc_path = opd_path(opt.session_dir, OPD_DAEMONRC_FILE);
	char err[1024], text[1024];
	int ret = opd_kv_read(kv, rc_path);

	free(rc_path);
	if (ret < 0)
		return -1;
	if (opt.events) {
		enum op_cpu cpu = opd_settings_cpu(NULL, err, sizeof(err));

		if (cpu == CPU_NO_GOOD ||
		    opd_settings_events(opt.events, cpu, NULL, text, sizeof(text),
					err, sizeof(err)) < 0)
			return op_error("%s", err);
		opd_kv_set(kv, "events", text);
	}
	if (opt.separate) {
		unsigned bits;

		if (opd_parse_separate(opt.separate, &bits, err, sizeof(err)) < 0)
			return op_error("%s", err);
		opd_separate_text(bits, text, sizeof(text));
		opd_kv_set(kv, "separate", text);
	}
	if (opt.vmlinux) {
		char *abs = realpath(opt.vmlinux, NULL);

		if (!abs)
			return op_error("cannot use vmlinux '%s': %s", opt.vmlinux,
					strerror(errno));
		opd_kv_set(kv, "vmlinux", abs);
		free(abs);
	}
	if (opt.no_vmlinux)
		opd_kv_set(kv, "vmlinux", "none");
	return 0;
}

static int save_settings(struct opd_kv const *kv)
{
	char *rc_path = opd_path(opt.session_dir, OPD_DAEMONRC_FILE);
	int ret = opd_kv_write(kv, rc_path);

	free(rc_path);
	return ret;
}

/* Fill in the defaults of the settings not given. */
static void default_settings(struct opd_kv *kv)
{
	if (!opd_kv_get(kv, "events"))
		opd_kv_set(kv, "events", "default");
	if (!opd_kv_get(kv, "separate"))
		opd_kv_set(kv, "separate", "none");
	if (!opd_kv_get(kv, "vmlinux"))
		opd_kv_set(kv, "vmlinux", "none");
}

/* The running session's settings (samples/current/session.conf). */
static void load_running(struct opd_kv *kv)
{
	char *current = opd_samples_path(opt.session_dir, OP_CURRENT_SESSION);
	char *path = opd_path(current, OPD_SESSION_CONF);

	if (opd_kv_read(kv, path) < 0)
		memset(kv, 0, sizeof(*kv));
	free(path);
	free(current);
}

/* Send a command that carries an id and wait for the daemon's answer. */
static int command(pid_t pid, char const *what, char const *name)
{
	char id[OPD_CONTROL_ID_MAX], line[OPD_CONTROL_LINE_MAX];

	opd_control_make_id(id, sizeof(id));
	snprintf(line, sizeof(line), "%s%s%s %s", what, name ? " " : "",
		 name ? name : "", id);
	if (opd_control_send(opt.session_dir, line) < 0)
		return -1;
	if (!strcmp(what, "dump"))
		return opd_control_wait_dump(opt.session_dir, id, pid, WAIT_MS);
	return opd_control_wait_reply(opt.session_dir, id, pid, WAIT_MS, NULL, 0);
}

static int do_dump(pid_t pid)
{
	if (!pid) {
		op_warn("daemon not running: nothing to dump");
		return 0;
	}
	return command(pid, "dump", NULL);
}

static int do_save(pid_t pid)
{
	char err[512];

	if (!opd_session_name_ok(opt.save, err, sizeof(err)))
		return op_error("%s", err);
	if (pid)
		return command(pid, "save", opt.save);
	return opd_session_save(opt.session_dir, opt.save, NULL, 0);
}

static int do_reset(pid_t pid)
{
	if (pid)
		return command(pid, "reset", NULL);
	return opd_session_reset_files(opt.session_dir);
}

static int do_stop(pid_t pid)
{
	if (!pid) {
		op_warn("daemon not running");
		return 0;
	}
	if (command(pid, "stop", NULL) < 0)
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
		return op_error("cannot signal the daemon (pid %ld): %s",
				(long)pid, strerror(errno));
	while (opd_pid_is_daemon(pid)) {
		if (waited >= WAIT_MS)
			return op_error("daemon (pid %ld) still running %d s after SIGTERM; see '%s/%s'",
					(long)pid, WAIT_MS / 1000, opt.session_dir,
					OPD_LOG_FILE);
		usleep(20000);
		waited += 20;
	}
	printf("Stopped daemon (pid %ld).\n", (long)pid);
	return 0;
}

/* The first setting that differs between what we would start with and
 * what runs, as "KEY 'RUNNING' (wanted 'WANTED')"; 0 when none does. */
static int settings_differ(struct opd_kv const *want, struct opd_kv const *run,
			   char *why, size_t size)
{
	static char const *const keys[] = { "events", "separate", "vmlinux" };
	char err[512], norm[1024];
	size_t i;

	for (i = 0; i < 3; i++) {
		char const *w = opd_kv_get(want, keys[i]);
		char const *r = opd_kv_get(run, keys[i]);

		if (!strcmp(keys[i], "events") && !strcmp(w, "default")) {
			enum op_cpu cpu = opd_settings_cpu(NULL, err, sizeof(err));

			if (cpu != CPU_NO_GOOD &&
			    opd_settings_events(NULL, cpu, NULL, norm, sizeof(norm),
						err, sizeof(err)) == 0)
				w = norm;
		}
		if (r && strcmp(w, r)) {
			snprintf(why, size, "%s '%s' (wanted '%s')", keys[i], r, w);
			return 1;
		}
	}
	return 0;
}

static int run_daemon(struct opd_kv const *kv, char const *source)
{
	char *prog = find_program("oprofiled");
	char *args[12], buf[5][1200];
	char const *vmlinux = opd_kv_get(kv, "vmlinux");
	int n = 0, status;
	pid_t child;

	args[n++] = prog;
	snprintf(buf[0], sizeof(buf[0]), "--session-dir=%s", opt.session_dir);
	args[n++] = buf[0];
	if (strcmp(opd_kv_get(kv, "events"), "default")) {
		snprintf(buf[1], sizeof(buf[1]), "--events=%s", opd_kv_get(kv, "events"));
		args[n++] = buf[1];
	}
	snprintf(buf[2], sizeof(buf[2]), "--separate=%s", opd_kv_get(kv, "separate"));
	args[n++] = buf[2];
	if (strcmp(vmlinux, "none")) {
		snprintf(buf[3], sizeof(buf[3]), "--vmlinux=%s", vmlinux);
		args[n++] = buf[3];
	} else {
		args[n++] = "--no-vmlinux";
	}
	snprintf(buf[4], sizeof(buf[4]), "--source=%s", source);
	args[n++] = buf[4];
	if (opt.verbose)
		args[n++] = "--verbose";
	args[n] = NULL;
	fflush(stdout);
	child = fork();
	if (child < 0)
		return op_error("cannot fork: %s", strerror(errno));
	if (child == 0) {
		execvp(prog, args);
		op_error("cannot run '%s': %s", prog, strerror(errno));
		_exit(127);
	}
	free(prog);
	if (waitpid(child, &status, 0) < 0)
		return op_error("cannot wait for oprofiled: %s", strerror(errno));
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return op_error("oprofiled failed to start; see the message above and '%s/%s'",
				opt.session_dir, OPD_LOG_FILE);
	return 0;
}

/* Refuse to "start" a daemon that runs with other settings than want. */
static int check_running(pid_t pid, struct opd_kv const *want)
{
	struct opd_kv running;
	char why[1200];
	int ret = 0;

	load_running(&running);
	if (settings_differ(want, &running, why, sizeof(why)))
		ret = op_error("daemon already running (pid %ld) with different settings: %s; run 'opcontrol --shutdown' first",
			       (long)pid, why);
	opd_kv_free(&running);
	return ret;
}

static int do_start(pid_t pid, struct opd_kv const *want)
{
	char err[1024], text[1024];
	char const *source = access("/dev/oprofile", F_OK) == 0 ? "driver" : "perf";
	enum op_cpu cpu;

	if (pid) {
		if (check_running(pid, want) < 0)
			return -1;
		printf("Daemon already running (pid %ld); starting sampling.\n",
		       (long)pid);
		return command(pid, "start", NULL);
	}
	if (opd_check_privilege() < 0)
		return -1;
	cpu = opd_settings_cpu(NULL, err, sizeof(err));
	if (cpu == CPU_NO_GOOD ||
	    opd_settings_events(opd_kv_get(want, "events"), cpu, NULL, text,
				sizeof(text), err, sizeof(err)) < 0)
		return op_error("%s", err);
	if (!strcmp(source, "driver"))
		printf("Using the oprofile driver (/dev/oprofile).\n");
	else
		printf("Using the perf_events source (no /dev/oprofile).\n");
	if (run_daemon(want, source) < 0)
		return -1;
	printf("Daemon started: pid %ld\nProfiler running.\n",
	       (long)opd_daemon_pid(opt.session_dir));
	return 0;
}

static int do_status(pid_t pid)
{
	char *state_path = opd_path(opt.session_dir, OPD_STATE_FILE);
	char state[32] = "";
	struct opd_kv kv;

	if (pid) {
		opd_read_file(state_path, state, sizeof(state));
		printf("Daemon %s: pid %ld\n",
		       strncmp(state, "paused", 6) ? "running" : "paused", (long)pid);
		load_running(&kv);
	} else {
		char *rc_path = opd_path(opt.session_dir, OPD_DAEMONRC_FILE);

		printf("Daemon not running\n");
		if (opd_kv_read(&kv, rc_path) < 0)
			memset(&kv, 0, sizeof(kv));
		default_settings(&kv);
		free(rc_path);
	}
	printf("Session dir: %s\n", opt.session_dir);
	printf("Events: %s\n", opd_kv_get(&kv, "events") ? opd_kv_get(&kv, "events") : "default");
	printf("Separate: %s\n", opd_kv_get(&kv, "separate") ? opd_kv_get(&kv, "separate") : "none");
	printf("vmlinux: %s\n", opd_kv_get(&kv, "vmlinux") ? opd_kv_get(&kv, "vmlinux") : "none");
	printf("Source: %s\n", opd_kv_get(&kv, "source") ? opd_kv_get(&kv, "source") :
	       access("/dev/oprofile", F_OK) == 0 ? "driver" : "perf");
	opd_kv_free(&kv);
	free(state_path);
	return 0;
}

/*
 * The settings to use: daemonrc with this command line merged in. They
 * are saved when given, but not when --start is refused because a daemon
 * runs with other settings. 0 or -1.
 */
static int settings(struct opd_kv *kv, pid_t pid)
{
	int given = opt.events || opt.separate || opt.vmlinux || opt.no_vmlinux;

	memset(kv, 0, sizeof(*kv));
	if ((given || opt.start) && opd_session_create(opt.session_dir) < 0)
		return -1;
	if (merge_settings(kv) < 0)
		return -1;
	default_settings(kv);
	if (given && opt.start && pid && !opt.shutdown && check_running(pid, kv) < 0)
		return -1;
	return given ? save_settings(kv) : 0;
}

int main(int argc, char const **argv)
{
	struct opd_kv kv;
	int fail = 0;
	pid_t pid;

	op_set_progname("opcontrol");
	parse_options(argc, argv);
	if (opt.list_events)
		exec_ophelp();
	if (opt.init || opt.deinit)
		printf("The perf_events source needs no kernel module: nothing to %s.\n",
		       opt.init ? "load" : "unload");
	pid = opd_daemon_pid(opt.session_dir);
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
	if (!fail && opt.start && do_start(pid, &kv) < 0)
		fail = 1;
	if (!fail && opt.status)
		do_status(opd_daemon_pid(opt.session_dir));
	opd_kv_free(&kv);
	return fail;
}
