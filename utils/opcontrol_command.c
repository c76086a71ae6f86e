/*
 * opcontrol's commands to a session: --dump, --save, --reset, --stop and
 * --shutdown, sent to the running daemon (its control FIFO, or SIGTERM),
 * or when none runs, done on the session's files directly.
 */
#include "config.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "op_message.h"
#include "op_session.h"
#include "op_session_control.h"
#include "opcontrol.h"

/* Send a command that carries an id and wait for the daemon's answer. */
int opc_command(char const *dir, pid_t pid, char const *what, char const *name)
{
	char id[OP_CONTROL_ID_MAX], line[OP_CONTROL_LINE_MAX];
	int ret;

	op_control_make_id(id, sizeof(id));
	snprintf(line, sizeof(line), "%s%s%s %s", what, name ? " " : "",
		 name ? name : "", id);
	/* our own answer file: another sender's answer is not ours */
	op_control_reply_open(dir, id);
	if (op_control_send(dir, line) < 0)
		ret = -1;
	else if (!strcmp(what, "dump"))
		ret = op_control_wait_dump(dir, id, pid, OPC_WAIT_MS);
	else
		ret = op_control_wait_reply(dir, id, pid, OPC_WAIT_MS, NULL, 0);
	op_control_reply_close(dir, id);
	return ret;
}

int opc_dump(pid_t pid)
{
	if (!pid) {
		op_warn("daemon not running: nothing to dump");
		return 0;
	}
	return opc_command(opt.session_dir, pid, "dump", NULL);
}

int opc_save(pid_t pid)
{
	char err[512];

	if (!op_session_name_ok(opt.save, err, sizeof(err)))
		return op_error("%s", err);
	if (pid)
		return opc_command(opt.session_dir, pid, "save", opt.save);
	return op_session_save(opt.session_dir, opt.save, NULL, 0);
}

int opc_reset(pid_t pid)
{
	if (pid)
		return opc_command(opt.session_dir, pid, "reset", NULL);
	return op_session_reset(opt.session_dir);
}

int opc_stop(pid_t pid)
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

int opc_shutdown(pid_t pid)
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
