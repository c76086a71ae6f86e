/*
 * The control FIFO and its answer files (protocol in op_control.h).
 * Signals can only say "start", "stop" and "exit"; the FIFO carries
 * arguments (a dump id, a session name) and the answer files let the
 * sender know when, and how, its command was carried out.
 */
#define _GNU_SOURCE	/* nftw, O_CLOEXEC, ... also without config.h (fuzz builds) */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "op_file.h"
#include "op_message.h"
#include "op_session.h"
#include "op_session_control.h"
#include "op_util.h"

static int id_ok(char const *id)
{
	size_t n = strlen(id);

	if (n == 0 || n >= OP_CONTROL_ID_MAX)
		return 0;
	return strspn(id, "abcdefghijklmnopqrstuvwxyz"
			  "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") == n;
}

static struct {
	char const *word;
	enum op_cmd cmd;
	int needs_name;
	int needs_id;
} const commands[] = {
	{ "start", OP_CMD_START, 0, 0 },
	{ "stop", OP_CMD_STOP, 0, 0 },
	{ "dump", OP_CMD_DUMP, 0, 1 },
	{ "reset", OP_CMD_RESET, 0, 0 },
	{ "save", OP_CMD_SAVE, 1, 0 },
	{ "exit", OP_CMD_EXIT, 0, 0 },
};

int op_command_parse(char const *line, struct op_command *c,
		     char *err, size_t errlen)
{
	char copy[OP_CONTROL_LINE_MAX], *words[4], *save = NULL, *w;
	size_t nr = 0, i;

	memset(c, 0, sizeof(*c));
	if (strlen(line) >= sizeof(copy)) {
		snprintf(err, errlen, "command line too long");
		return -1;
	}
	strcpy(copy, line);
	for (w = strtok_r(copy, " \t\r", &save); w; w = strtok_r(NULL, " \t\r", &save)) {
		if (nr == 4) {
			snprintf(err, errlen, "too many words in command '%s'", line);
			return -1;
		}
		words[nr++] = w;
	}
	if (!nr) {
		snprintf(err, errlen, "empty command");
		return -1;
	}
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(words[0], commands[i].word))
			break;
	if (i == sizeof(commands) / sizeof(commands[0])) {
		snprintf(err, errlen, "unknown command '%s'", words[0]);
		return -1;
	}
	c->cmd = commands[i].cmd;
	if (commands[i].needs_name) {
		if (nr < 2) {
			snprintf(err, errlen, "command '%s' needs a name", words[0]);
			return -1;
		}
		if (!op_session_name_ok(words[1], err, errlen))
			return -1;
		snprintf(c->name, sizeof(c->name), "%s", words[1]);
	}
	if (nr > (size_t)(2 + commands[i].needs_name)) {
		snprintf(err, errlen, "too many arguments to '%s'", words[0]);
		return -1;
	}
	if (nr == (size_t)(2 + commands[i].needs_name)) {
		char const *id = words[1 + commands[i].needs_name];

		if (!id_ok(id)) {
			snprintf(err, errlen, "invalid id '%s' (1-63 of A-Z a-z 0-9 . _ -)", id);
			return -1;
		}
		snprintf(c->id, sizeof(c->id), "%s", id);
	}
	if (commands[i].needs_id && !c->id[0]) {
		snprintf(err, errlen, "command '%s' needs an id", words[0]);
		return -1;
	}
	return 0;
}

int op_control_open(struct op_control *c, char const *session_dir)
{
	struct stat st;

	memset(c, 0, sizeof(*c));
	c->fd = -1;
	c->fifo = op_session_path(session_dir, OP_FIFO_FILE);
	if (lstat(c->fifo, &st) == 0 && !S_ISFIFO(st.st_mode) &&
	    unlink(c->fifo) < 0)
		return op_error_errno("cannot remove '%s'", c->fifo);
	if (mkfifo(c->fifo, 0600) < 0 && errno != EEXIST)
		return op_error_errno("cannot create control FIFO '%s'", c->fifo);
	c->fd = open(c->fifo, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (c->fd < 0)
		return op_error_errno("cannot open control FIFO '%s'", c->fifo);
	return 0;
}

/* Pop one complete line from buf into line; 1 if there was one. */
static int pop_line(struct op_control *c, char *line)
{
	char *nl = memchr(c->buf, '\n', c->len);
	size_t n;

	if (!nl) {
		if (c->len == sizeof(c->buf)) {
			op_warn("control FIFO '%s': ignoring a line longer than %d bytes",
				c->fifo, OP_CONTROL_LINE_MAX - 1);
			c->len = 0;
			c->discarding = 1;
		}
		return 0;
	}
	n = (size_t)(nl - c->buf);
	memcpy(line, c->buf, n);
	line[n] = '\0';
	memmove(c->buf, nl + 1, c->len - n - 1);
	c->len -= n + 1;
	if (c->discarding) {
		c->discarding = 0;
		line[0] = '\0';
	}
	return 1;
}

int op_control_next(struct op_control *c, struct op_command *cmd)
{
	char line[OP_CONTROL_LINE_MAX], err[300];

	for (;;) {
		ssize_t n;

		while (pop_line(c, line)) {
			if (!line[0])
				continue;
			if (op_command_parse(line, cmd, err, sizeof(err)) == 0)
				return 1;
			op_warn("control FIFO '%s': %s", c->fifo, err);
		}
		if (c->fd < 0)
			return 0;
		n = read(c->fd, c->buf + c->len, sizeof(c->buf) - c->len);
		if (n <= 0) {
			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0 && errno != EAGAIN)
				op_warn_errno("cannot read control FIFO '%s'",
					      c->fifo);
			return 0;
		}
		c->len += (size_t)n;
	}
}

void op_control_close(struct op_control *c)
{
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
	free(c->fifo);
	c->fifo = NULL;
}

/* malloc'ed SESSION/reply.ID */
static char *own_reply_path(char const *session_dir, char const *id)
{
	char name[sizeof(OP_REPLY_PREFIX) + OP_CONTROL_ID_MAX];

	snprintf(name, sizeof(name), "%s%s", OP_REPLY_PREFIX, id);
	return op_session_path(session_dir, name);
}

/*
 * The answer in the sender's own file too, when it made one: written in
 * place, never created, so a sender that went away (and removed it)
 * leaves nothing behind, and on a full disk the placeholder's block
 * takes it. The waiter takes only a whole line.
 */
static int answer_own(char const *session_dir, char const *id,
		      char const *text)
{
	size_t len = strlen(text);
	char *path;
	int fd, ret = 0;

	if (!id_ok(id))
		return 0;
	path = own_reply_path(session_dir, id);
	fd = op_open_safe(path, O_WRONLY | O_CLOEXEC, 0);
	if (fd >= 0) {
		if (pwrite(fd, text, len, 0) != (ssize_t)len)
			ret = op_error_errno("cannot write the answer to '%s'", path);
		close(fd);
	}
	free(path);
	return ret;
}

int op_control_reply_open(char const *session_dir, char const *id)
{
	char *path;
	int fd;

	if (!id_ok(id))
		return -1;
	path = own_reply_path(session_dir, id);
	fd = op_open_safe(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0) {
		free(path);
		return -1;
	}
	/* "-" (no answer yet) holds the file's block, so that on a full
	 * disk the answer can still be written in place */
	if (op_write_full(fd, "-\n", 2) != 2) {
		close(fd);
		unlink(path);
		free(path);
		return -1;
	}
	close(fd);
	free(path);
	return 0;
}

void op_control_reply_close(char const *session_dir, char const *id)
{
	char *path;

	if (!id_ok(id))
		return;
	path = own_reply_path(session_dir, id);
	unlink(path);
	free(path);
}

void op_control_clean_replies(char const *session_dir)
{
	DIR *d = opendir(session_dir);
	struct dirent *de;

	if (!d)
		return;
	while ((de = readdir(d)))
		if (!strncmp(de->d_name, OP_REPLY_PREFIX, strlen(OP_REPLY_PREFIX)))
			unlinkat(dirfd(d), de->d_name, 0);
	closedir(d);
}

/*
 * What a waiter reads: its own file when it made one, else (or when the
 * daemon could not write that one) the shared file. 1 when buf holds
 * something to look at.
 */
static int read_answer(char const *own, char const *shared, char *buf,
		       size_t size, int *from_own)
{
	ssize_t n = own ? op_session_read_small(own, buf, size) : -1;

	*from_own = n > 2 && buf[n - 1] == '\n';	/* not "-": a whole answer */
	if (*from_own)
		return 1;
	return op_session_read_small(shared, buf, size) > 0;
}

static char *own_path_if_made(char const *session_dir, char const *id)
{
	char *own = id_ok(id) ? own_reply_path(session_dir, id) : NULL;

	if (own && access(own, F_OK) == 0)
		return own;
	free(own);
	return NULL;
}

/* "ID error TEXT" or "ID" OK, to the waiter's own file and the shared one. */
static int answer(char const *session_dir, char const *file, char const *id,
		  char const *error, char const *ok)
{
	char *path = op_session_path(session_dir, file);
	char text[1024];
	int ret;

	if (error)
		snprintf(text, sizeof(text), "%s error %s\n", id, error);
	else
		snprintf(text, sizeof(text), "%s%s\n", id, ok);
	ret = answer_own(session_dir, id, text);	/* first: see answer_own */
	if (op_session_write_text(path, text) < 0)
		ret = -1;
	free(path);
	return ret;
}

int op_control_reply(char const *session_dir, char const *id,
		     char const *error)
{
	return answer(session_dir, OP_REPLY_FILE, id, error, " ok");
}

int op_control_dump_done(char const *session_dir, char const *id,
			 char const *error)
{
	return answer(session_dir, OP_DUMP_FILE, id, error, "");
}

void op_control_make_id(char *id, size_t size)
{
	snprintf(id, size, "%" PRIu64 ".%ld", op_monotonic_ns(), (long)getpid());
}

int op_control_send(char const *session_dir, char const *line)
{
	char *fifo = op_session_path(session_dir, OP_FIFO_FILE);
	char buf[OP_CONTROL_LINE_MAX];
	size_t n = (size_t)snprintf(buf, sizeof(buf), "%s\n", line);
	int fd, tries, ret = -1;

	if (n >= sizeof(buf)) {
		free(fifo);
		return op_error("control command too long: '%s'", line);
	}
	fd = open(fifo, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENXIO)
			op_error("cannot send '%s': no daemon reads the control FIFO '%s'",
				 line, fifo);
		else
			op_error_errno("cannot open control FIFO '%s'", fifo);
		free(fifo);
		return -1;
	}
	/* A write of less than PIPE_BUF bytes is atomic: all or EAGAIN. */
	for (tries = 0; tries < 500; tries++) {
		ssize_t w = write(fd, buf, n);

		if (w == (ssize_t)n) {
			ret = 0;
			break;
		}
		if (w < 0 && errno != EAGAIN && errno != EINTR) {
			op_error_errno("cannot write to control FIFO '%s'", fifo);
			break;
		}
		usleep(10000);
	}
	if (tries == 500)
		op_error("cannot write to control FIFO '%s': it stays full", fifo);
	close(fd);
	free(fifo);
	return ret;
}

/* "NANOSECONDS.PID" → nanoseconds; 0 if id is not of that form. */
static uint64_t id_time(char const *id)
{
	char *end;
	uint64_t t;

	errno = 0;
	t = strtoull(id, &end, 10);
	if (errno || end == id || *end != '.')
		return 0;
	return t;
}

static int dump_matches(char const *got, char const *want)
{
	uint64_t tg, tw;

	if (!strcmp(got, want))
		return 1;
	tg = id_time(got);
	tw = id_time(want);
	return tg && tw && tg >= tw;
}

/*
 * What a waiter looks for in the answer it read (buf, its newline cut
 * off): 1 when the answer to id is there (*ret: 0 or -1 said), 0 to wait.
 */
typedef int answered_fn(char *buf, char const *id, char *err, size_t errlen,
			int *ret);

/*
 * Poll the waiter's own answer file and the shared one (file) until
 * answered says so, timeout_ms pass or the daemon pid (> 0) exits; "to"
 * and "before" name what is awaited in the two failures.
 */
static int wait_answer(char const *session_dir, char const *file,
		       char const *id, pid_t pid, int timeout_ms,
		       answered_fn *answered, char *err, size_t errlen,
		       char const *to, char const *before)
{
	char *own = own_path_if_made(session_dir, id);
	char *shared = op_session_path(session_dir, file);
	char buf[1200];
	int waited = 0, step, ret = -1, from_own;

	for (;;) {
		if (read_answer(own, shared, buf, sizeof(buf), &from_own)) {
			buf[strcspn(buf, "\n")] = '\0';
			if (answered(buf, id, err, errlen, &ret))
				break;
		}
		if (waited >= timeout_ms) {
			ret = op_error("timed out after %d s waiting for the daemon to %s in '%s'",
				       timeout_ms / 1000, to, own ? own : shared);
			break;
		}
		if (pid > 0 && !op_pid_is_daemon(pid)) {
			ret = op_error("daemon (pid %ld) exited before %s",
				       (long)pid, before);
			break;
		}
		step = waited < 100 ? 2 : 20;
		usleep((useconds_t)step * 1000);
		waited += step;
	}
	free(own);
	free(shared);
	return ret;
}

/* "ID" or "ID error MESSAGE": a dump as new as ours is done. */
static int dump_answered(char *buf, char const *id, char *err, size_t errlen,
			 int *ret)
{
	char *error = strstr(buf, " error ");

	(void)err;
	(void)errlen;
	if (error)
		*error = '\0';
	if (!dump_matches(buf, id))
		return 0;
	*ret = error ? op_error("dump %s: %s", id, error + 7) : 0;
	return 1;
}

int op_control_wait_dump(char const *session_dir, char const *id,
			 pid_t pid, int timeout_ms)
{
	char to[128], before[128];

	snprintf(to, sizeof(to), "complete dump %s", id);
	snprintf(before, sizeof(before), "completing dump %s", id);
	return wait_answer(session_dir, OP_DUMP_FILE, id, pid, timeout_ms,
			   dump_answered, NULL, 0, to, before);
}

/* "ID ok" or "ID error MESSAGE" for this id. */
static int reply_answered(char *buf, char const *id, char *err,
			  size_t errlen, int *ret)
{
	size_t idlen = strlen(id);
	char const *rest = buf + idlen + 1;

	if (strncmp(buf, id, idlen) || buf[idlen] != ' ')
		return 0;
	if (!strcmp(rest, "ok")) {
		*ret = 0;
		return 1;
	}
	if (!strncmp(rest, "error ", 6))
		rest += 6;
	if (err)
		snprintf(err, errlen, "%s", rest);
	*ret = op_error("%s", rest);
	return 1;
}

int op_control_wait_reply(char const *session_dir, char const *id,
			  pid_t pid, int timeout_ms, char *err, size_t errlen)
{
	char to[128], before[128];

	if (err && errlen)
		err[0] = '\0';
	snprintf(to, sizeof(to), "answer '%s'", id);
	snprintf(before, sizeof(before), "answering '%s'", id);
	return wait_answer(session_dir, OP_REPLY_FILE, id, pid, timeout_ms,
			   reply_answered, err, errlen, to, before);
}
