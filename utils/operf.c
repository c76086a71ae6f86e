/*
 * operf: OProfile 1.x's profiler of one command, a process or the whole
 * system (see operf.h and doc/operf.1). This file: the options, the
 * session directory, what a user may not see, the exit status.
 */
#include "config.h"

#include <errno.h>
#include <popt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "op_child.h"
#include "op_cpu_type.h"
#include "op_file.h"
#include "op_message.h"
#include "op_session.h"
#include "op_session_settings.h"
#include "op_util.h"
#include "op_version.h"
#include "opd_config.h"
#include "operf.h"

#define OPERF_SESSION_DIR "oprofile_data"
#define OPERF_CALLGRAPH_DEPTH 32

static char *events_arg;
static char *vmlinux_arg;
static char *session_dir_arg;
static int callgraph_arg;
static int sep_thread_arg;
static int sep_cpu_arg;
static int pid_arg;
static int system_wide_arg;
static int verbose_arg;
static int version_arg;
static int summary_arg;
static int keep_binaries_arg;
static char *record_arg;
static double threshold_arg = 1.0;
static char *stack_size_arg;	/* NULL: the perf source's default */

static struct poptOption const options[] = {
	{ "events", 'e', POPT_ARG_STRING, &events_arg, 0,
	  "events to sample, comma separated (default: the cpu type's default)",
	  "NAME:count[:um[:kernel[:user]]],..." },
	{ "event", 0, POPT_ARG_STRING, &events_arg, 0,
	  "the same as --events (as opcontrol spells it); OFF_CPU:N samples "
	  "time off the cpu (doc/offcpu.md)", "NAME:count,..." },
	{ "callgraph", 'g', POPT_ARG_NONE, &callgraph_arg, 0,
	  "record the callers of each sample (up to 32)", NULL },
	{ "stack-size", 0, POPT_ARG_STRING, &stack_size_arg, 0,
	  "with -g: bytes of user stack copied per sample and unwound with "
	  "the binaries' CFI (default 16384; 0: frame pointers only)", "BYTES" },
	{ "separate-thread", 't', POPT_ARG_NONE, &sep_thread_arg, 0,
	  "samples of each process and thread apart", NULL },
	{ "separate-cpu", 'c', POPT_ARG_NONE, &sep_cpu_arg, 0,
	  "samples of each cpu apart", NULL },
	{ "vmlinux", 'k', POPT_ARG_STRING, &vmlinux_arg, 0,
	  "the running kernel's vmlinux (for symbols)", "FILE" },
	{ "session-dir", 'd', POPT_ARG_STRING, &session_dir_arg, 0,
	  "session directory (default ./" OPERF_SESSION_DIR ")", "DIR" },
	{ "pid", 'p', POPT_ARG_INT, &pid_arg, 0,
	  "profile running process PID (and its threads) until it exits or Ctrl-C",
	  "PID" },
	{ "system-wide", 's', POPT_ARG_NONE, &system_wide_arg, 0,
	  "profile every process until Ctrl-C (root)", NULL },
	{ "summary", 0, POPT_ARG_NONE, &summary_arg, 0,
	  "then Prospect's process summary: times as /bin/time, samples and "
	  "time per process, each one's user and kernel profile (opreport --processes)",
	  NULL },
	{ "threshold", 0, POPT_ARG_DOUBLE, &threshold_arg, 0,
	  "--summary: leave out processes and symbols below PERCENT (default 1)",
	  "PERCENT" },
	{ "record-stream", 0, POPT_ARG_STRING, &record_arg, 0,
	  "also keep the time-ordered event stream in FILE (oprofiled --replay "
	  "rebuilds the session from it)", "FILE" },
	{ "keep-binaries", 0, POPT_ARG_NONE, &keep_binaries_arg, 0,
	  "copy each sampled binary into the session (session/binaries), so "
	  "that reports name its symbols after it is rebuilt or removed", NULL },
	{ "verbose", 'V', POPT_ARG_NONE, &verbose_arg, 0,
	  "say more", NULL },
	{ "version", 'v', POPT_ARG_NONE, &version_arg, 0,
	  "print the version and exit", NULL },
	POPT_AUTOHELP
	POPT_TABLEEND
};

#define usage_error(...) \
	op_usage_error("operf --help lists the options", __VA_ARGS__)

static void parse_target(poptContext ctx, struct operf_options *o)
{
	char const **rest = poptGetArgs(ctx);
	int modes = !!rest + !!pid_arg + !!system_wide_arg;

	if (modes != 1)
		usage_error("give exactly one of a command, --pid or --system-wide");
	if (rest) {
		o->target = OPERF_COMMAND;
		o->argv = op_child_argv(rest);
	} else if (pid_arg) {
		if (pid_arg < 0)
			usage_error("--pid %d is not a process id", pid_arg);
		if (kill(pid_arg, 0) < 0 && errno == ESRCH)
			op_die("--pid %d: no such process", pid_arg);
		o->target = OPERF_PID;
		o->pid = pid_arg;
	} else {
		o->target = OPERF_SYSTEM;
	}
}

static void hide_kernel(struct operf_options *o)
{
	for (size_t i = 0; i < o->cfg.nr_events; i++) {
		if (o->cfg.events[i].kernel)
			o->kernel_hidden = true;
		o->cfg.events[i].kernel = 0;
		if (!o->cfg.events[i].user)
			op_die("event %s counts kernel mode only, which "
			       "kernel.perf_event_paranoid does not let a user see",
			       o->cfg.events[i].name);
	}
	o->cfg.no_kernel = 1;
	if (o->kernel_hidden)
		op_info("user mode only: kernel.perf_event_paranoid > 1 hides "
			"the kernel from a user (root, or perf_event_paranoid <= 1, "
			"also samples kernel mode)");
}

static void setup_events(struct operf_options *o)
{
	struct op_settings_events ev;
	char err[1024];
	enum op_cpu cpu = op_settings_cpu(NULL, err, sizeof(err));

	if (cpu == CPU_NO_GOOD)
		op_die("%s", err);
	o->cfg.cpu_type = cpu;
	o->cfg.cpu_speed = op_cpu_speed();
	if (op_settings_events(events_arg, cpu, o->callgraph, &ev, err,
			       sizeof(err)) < 0)
		op_die("%s", err);
	opd_config_events(&o->cfg, &ev);
	if (!op_kernel_visible())
		hide_kernel(o);
}

/*
 * The default ./oprofile_data is named by no one: in a directory others
 * can write (/tmp, a user's project seen by root) it may have been planted
 * there, as a link to a directory of the victim's or as a directory of
 * theirs. It must be a directory of the caller's own, or not exist.
 */
static void check_default_dir(char const *dir)
{
	struct stat st;

	if (lstat(dir, &st) < 0) {
		if (errno != ENOENT)
			op_die_errno("cannot access session directory '%s'", dir);
		return;
	}
	if (S_ISLNK(st.st_mode))
		op_die("session directory '%s' is a symbolic link: refusing to "
		       "follow it (name the directory with --session-dir)", dir);
	if (st.st_uid != geteuid())
		op_die("session directory '%s' belongs to uid %ld, not to you: "
		       "refusing it (name the directory with --session-dir)",
		       dir, (long)st.st_uid);
}

static void setup_session(struct operf_options *o)
{
	char const *dir = session_dir_arg ? session_dir_arg : OPERF_SESSION_DIR;
	pid_t daemon;

	if (!session_dir_arg)
		check_default_dir(dir);
	if (op_session_create(dir) < 0)
		exit(1);
	o->session_dir = realpath(dir, NULL);
	if (!o->session_dir)
		op_die_errno("cannot resolve session directory '%s'", dir);
	/* as oprofiled: below the session directory no link is followed */
	op_file_set_guard(o->session_dir);
	daemon = op_session_daemon_pid(o->session_dir);
	if (daemon)
		op_die("oprofiled (pid %d) is sampling into '%s': use another --session-dir",
		       (int)daemon, o->session_dir);
	/* a new profile replaces the last one, as OProfile 1.x's operf */
	if (op_session_reset(o->session_dir) < 0)
		exit(1);
	o->cfg.session_dir = o->session_dir;
	o->cfg.jit_maps = true;
}

static void parse(struct operf_options *o, int argc, char const **argv)
{
	poptContext ctx = op_child_options("operf", argc, argv, options, NULL,
					   NULL);
	char err[512];

	if (version_arg) {
		op_print_version(stdout, "operf");
		exit(0);
	}
	memset(o, 0, sizeof(*o));
	parse_target(ctx, o);
	o->verbose = verbose_arg;
	o->callgraph = callgraph_arg ? OPERF_CALLGRAPH_DEPTH : 0;
	o->stack_size = -1;
	if (stack_size_arg &&
	    op_settings_stack_size("--stack-size", stack_size_arg, &o->stack_size,
				   err, sizeof(err)) < 0)
		usage_error("%s", err);
	o->cfg.separate = (sep_thread_arg ? OPD_SEP_THREAD : 0) |
			  (sep_cpu_arg ? OPD_SEP_CPU : 0);
	/* the summary's rows are processes, each with its kernel samples */
	if (summary_arg)
		o->cfg.separate |= OPD_SEP_THREAD | OPD_SEP_KERNEL | OPD_SEP_LIB;
	if (threshold_arg < 0 || threshold_arg > 100)
		usage_error("--threshold is a percentage from 0 to 100");
	if (vmlinux_arg) {
		o->cfg.vmlinux = realpath(vmlinux_arg, NULL);
		if (!o->cfg.vmlinux)
			op_die_errno("cannot use vmlinux '%s'", vmlinux_arg);
	}
	o->record_stream = record_arg;
	o->cfg.keep_binaries = keep_binaries_arg;
	if (o->target == OPERF_SYSTEM && op_settings_check_privilege() < 0)
		exit(1);
	setup_events(o);
	setup_session(o);
	poptFreeContext(ctx);
}

/* opreport: $OPREPORT, next to operf, else from PATH. */
static char *opreport_path(void)
{
	char self[4096], *slash, *path;
	ssize_t n;

	if (getenv("OPREPORT"))
		return op_xstrdup(getenv("OPREPORT"));
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n > 0) {
		self[n] = '\0';
		slash = strrchr(self, '/');
		if (slash) {
			*slash = '\0';
			path = op_xasprintf("%s/opreport", self);
			if (access(path, X_OK) == 0)
				return path;
			free(path);
		}
	}
	return op_xstrdup("opreport");
}

/* The command's times as /bin/time prints them, then opreport --processes. */
static int summary(struct operf_options const *o, struct operf_result const *res)
{
	double user = (double)res->ru.ru_utime.tv_sec +
		      (double)res->ru.ru_utime.tv_usec / 1e6;
	double sys = (double)res->ru.ru_stime.tv_sec +
		     (double)res->ru.ru_stime.tv_usec / 1e6;
	char *prog = opreport_path(), *dir, *thr;
	int status;
	pid_t pid;

	if (o->target == OPERF_COMMAND)
		printf("%.2fuser %.2fsystem %.2felapsed %.0f%%CPU (wait4 rusage "
		       "of the command and its waited-for children)\n",
		       user, sys, res->elapsed, res->elapsed > 0 ?
		       100 * (user + sys) / res->elapsed : 0);
	fflush(stdout);
	dir = op_xasprintf("--session-dir=%s", o->session_dir);
	thr = op_xasprintf("--threshold=%g", threshold_arg);
	pid = fork();
	if (pid == 0) {
		execlp(prog, "opreport", dir, "--processes", thr, (char *)NULL);
		op_error_errno("cannot run '%s' for the summary", prog);
		_exit(127);
	}
	free(dir);
	free(thr);
	free(prog);
	if (pid < 0 || waitpid(pid, &status, 0) < 0)
		return op_error_errno("cannot run opreport for the summary");
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

/* What parse allocated: the command, the session's resolved path. */
static void free_options(struct operf_options *o)
{
	op_child_argv_free(o->argv);
	free(o->session_dir);
}

static int run(struct operf_options *o)
{
	struct operf_result res;

	if (operf_run(o, &res) < 0)
		return o->target == OPERF_COMMAND ? 127 : 1;
	op_info("profile written to '%s'; see it with: opreport "
		"--session-dir=%s", o->session_dir, o->session_dir);
	if (summary_arg && summary(o, &res) < 0 && o->target != OPERF_COMMAND)
		return 1;
	if (o->target != OPERF_COMMAND)
		return 0;
	if (WIFSIGNALED(res.status))
		op_info("'%s' was killed by signal %d", o->argv[0],
			WTERMSIG(res.status));
	return op_child_exit_status(res.status);
}

int main(int argc, char const **argv)
{
	struct operf_options o;
	int rc;

	op_set_progname("operf");
	parse(&o, argc, argv);
	rc = run(&o);
	free_options(&o);
	return rc;
}
