/*
 * oprofiled's log: every message a whole line of <session>/oprofiled.log
 * (OP_LOG_FILE) with its time, syslog when the log's disk is full.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "op_file.h"
#include "op_message.h"
#include "op_session.h"
#include "oprofiled.h"

/*
 * When the log cannot take a whole line (its disk is full) the line is
 * cut back off and the message goes to syslog; the switch is said once,
 * and undone by the next line that fits.
 */
static void log_to_syslog(struct daemon *d, char const *line, int err)
{
	if (!d->log_broken) {
		openlog("oprofiled", LOG_PID, LOG_DAEMON);
		syslog(LOG_ERR, "cannot write the log '%s/%s': %s; messages go to syslog",
		       d->session_dir, OP_LOG_FILE, strerror(err));
		d->log_broken = 1;
	}
	syslog(LOG_ERR, "%s", line);
}

/* Every message a line of the log, with the time: written whole or not. */
void log_sink(void *ctx, enum op_message_kind kind, char const *text)
{
	struct daemon *d = ctx;
	char stamp[32], line[4400];
	time_t now = time(NULL);
	struct stat st;
	FILE *m = fmemopen(line, sizeof(line), "w");
	ssize_t n;
	size_t len;
	off_t end;
	int is_log;

	strftime(stamp, sizeof(stamp), "%Y-%m-%d %H:%M:%S", localtime(&now));
	if (!m) {
		op_message_write(stderr, stamp, kind, text);
		return;
	}
	op_message_write(m, stamp, kind, text);
	fclose(m);
	line[sizeof(line) - 1] = '\0';
	len = strlen(line);
	is_log = !fstat(STDERR_FILENO, &st) && S_ISREG(st.st_mode);
	n = write(STDERR_FILENO, line, len);
	if (n == (ssize_t)len) {
		d->log_broken = 0;
		return;
	}
	if (!is_log)
		return;		/* a terminal or a pipe: nothing better to do */
	/*
	 * A part of a line (full disk) is cut back off, from where this write
	 * began: O_APPEND left the offset at its end. (The size before the
	 * write could be stale: the retention child logs to the same file.)
	 */
	if (n >= 0) {
		end = lseek(STDERR_FILENO, 0, SEEK_CUR);
		if (n > 0 && end >= n && ftruncate(STDERR_FILENO, end - n) < 0)
			syslog(LOG_ERR, "cannot cut a part line off the log: %s",
			       strerror(errno));
		errno = ENOSPC;
	}
	log_to_syslog(d, line, errno);
}

/* An informational line in the log. */
void log_msg(char const *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	op_vmessage(OP_MSG_INFO, fmt, ap);
	va_end(ap);
}

/* Append to the log; with stdout and stderr pointing at it when daemonised. */
int log_open(struct daemon *d)
{
	char *path = op_session_path(d->session_dir, OP_LOG_FILE);
	int fd = op_open_safe(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);

	if (fd < 0) {
		op_error("cannot open log '%s': %s", path, op_file_strerror(errno));
		free(path);
		return -1;
	}
	free(path);
	if (d->log_fd >= 0)
		close(d->log_fd);
	d->log_fd = fd;
	return 0;
}

void log_redirect(struct daemon *d)
{
	fflush(stdout);
	fflush(stderr);
	dup2(d->log_fd, STDOUT_FILENO);
	dup2(d->log_fd, STDERR_FILENO);
}
