/* The credentials file, checked (fleet_cred.h). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fleet_cred.h"
#include "op_escape.h"
#include "op_util.h"

#define CRED_MAX 4096

void fleet_cred_clear(struct fleet_cred *c)
{
	volatile char *p = (volatile char *)c;
	size_t i;

	for (i = 0; i < sizeof(*c); i++)
		p[i] = 0;
}

static int bad(char const *path, char *err, size_t errlen, char const *why)
{
	char *e = op_escape(path);

	snprintf(err, errlen, "credentials file '%s': %s", e, why);
	free(e);
	return -1;
}

/* What is wrong with st as a credentials file, or NULL. */
static char const *check_stat(struct stat const *st)
{
	if (S_ISLNK(st->st_mode))
		return "is a symbolic link";
	if (!S_ISREG(st->st_mode))
		return "not a regular file";
	if (st->st_uid != 0 && st->st_uid != geteuid())
		return "not owned by root";
	if (st->st_mode & 077)
		return "readable or writable by others: chmod 600 it";
	if (st->st_size > CRED_MAX)
		return "larger than 4 KiB";
	return NULL;
}

static int parse(char *text, struct fleet_cred *c, char const *path,
		 char *err, size_t errlen)
{
	char *line, *save = NULL, why[128];
	unsigned nr = 0;

	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *key = line, *val, *eq, *dst;
		size_t size, len, i;

		nr++;
		while (*key == ' ' || *key == '\t')
			key++;
		if (!*key || *key == '#')
			continue;
		eq = strchr(key, '=');
		if (!eq) {
			snprintf(why, sizeof(why), "line %u: not 'key = value'", nr);
			return bad(path, err, errlen, why);
		}
		val = eq + 1;
		while (eq > key && (eq[-1] == ' ' || eq[-1] == '\t'))
			eq--;
		*eq = '\0';
		while (*val == ' ' || *val == '\t')
			val++;
		len = strlen(val);
		if (len && val[len - 1] == '\r')
			val[--len] = '\0';
		if (!strcmp(key, "user")) {
			dst = c->user;
			size = sizeof(c->user);
			for (i = 0; i < len; i++)
				if (!(val[i] == '_' || val[i] == '-' || val[i] == '.' ||
				      (val[i] >= 'a' && val[i] <= 'z') ||
				      (val[i] >= 'A' && val[i] <= 'Z') ||
				      (val[i] >= '0' && val[i] <= '9'))) {
					snprintf(why, sizeof(why), "line %u: the user name may hold only letters, digits, '_', '-' and '.'", nr);
					return bad(path, err, errlen, why);
				}
		} else if (!strcmp(key, "password")) {
			dst = c->password;
			size = sizeof(c->password);
			for (i = 0; i < len; i++)
				if ((unsigned char)val[i] < 0x20 || val[i] == 0x7f) {
					snprintf(why, sizeof(why), "line %u: a control character in the password", nr);
					return bad(path, err, errlen, why);
				}
		} else {
			snprintf(why, sizeof(why), "line %u: unknown key (use user and password)", nr);
			return bad(path, err, errlen, why);
		}
		if (len == 0 || len >= size) {
			snprintf(why, sizeof(why), "line %u: empty or too long (at most %zu bytes)",
				 nr, size - 1);
			return bad(path, err, errlen, why);
		}
		memcpy(dst, val, len + 1);
	}
	if (!c->user[0])
		return bad(path, err, errlen, "no 'user = NAME' line");
	return 0;
}

int fleet_cred_read(char const *path, struct fleet_cred *c, char *err,
		    size_t errlen)
{
	char text[CRED_MAX + 1], why[256];
	char const *wrong;
	struct stat st;
	ssize_t n;
	int fd, ret;

	fleet_cred_clear(c);
	if (!path || !*path)
		return bad("", err, errlen, "no file given");
	/* lstat first: a link is refused by name, not followed */
	if (lstat(path, &st)) {
		snprintf(why, sizeof(why), "%s", strerror(errno));
		return bad(path, err, errlen, why);
	}
	if ((wrong = check_stat(&st)))
		return bad(path, err, errlen, wrong);
	/* O_NONBLOCK: a FIFO swapped in after lstat does not hang the open */
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		snprintf(why, sizeof(why), "%s", strerror(errno));
		return bad(path, err, errlen, why);
	}
	/* and again on what was opened: the file may have been swapped */
	if (fstat(fd, &st) || (wrong = check_stat(&st))) {
		close(fd);
		return bad(path, err, errlen, wrong ? wrong : strerror(errno));
	}
	n = op_read_full(fd, text, CRED_MAX + 1);
	close(fd);
	if (n < 0) {
		snprintf(why, sizeof(why), "%s", strerror(errno));
		return bad(path, err, errlen, why);
	}
	if (n > CRED_MAX)
		return bad(path, err, errlen, "larger than 4 KiB");
	if (memchr(text, '\0', (size_t)n)) {
		memset(text, 0, sizeof(text));
		return bad(path, err, errlen, "holds a NUL byte");
	}
	text[n] = '\0';
	ret = parse(text, c, path, err, errlen);
	memset(text, 0, sizeof(text));
	if (ret)
		fleet_cred_clear(c);
	return ret;
}
