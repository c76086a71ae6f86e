/*
 * The sample file header (struct opd_header, op_sample_file.h): building a
 * new one and checking one read from disk.
 *
 * The header is read with plain read() rather than through libdb, as
 * OProfile's tools do, so a tool can say "not a sample file" or "wrong
 * version" before it trusts anything else in the file. Messages name the
 * file and the fault and are left in the caller's buffer; the tool prints
 * them with op_error().
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "op_file.h"
#include "op_sample_file.h"
#include "op_util.h"

_Static_assert(offsetof(struct opd_header, version) == 4, "version at 4");
_Static_assert(offsetof(struct opd_header, ctr_count) == 20, "ctr_count at 20");
_Static_assert(offsetof(struct opd_header, is_kernel) == 24, "is_kernel at 24");
_Static_assert(offsetof(struct opd_header, mtime) == 40, "mtime at 40");
_Static_assert(offsetof(struct opd_header, cg_to_is_kernel) == 48,
	       "cg_to_is_kernel at 48");
_Static_assert(offsetof(struct opd_header, cg_to_anon_start) == 64,
	       "cg_to_anon_start at 64");

static int op_header_fail(char *err, size_t errlen, char const *path,
			  char const *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int op_header_fail(char *err, size_t errlen, char const *path,
			  char const *fmt, ...)
{
	va_list ap;
	int n;

	if (!err || !errlen)
		return -1;
	n = snprintf(err, errlen, "%s: ", path ? path : "(no path)");
	if (n < 0 || (size_t)n >= errlen)
		return -1;
	va_start(ap, fmt);
	vsnprintf(err + n, errlen - n, fmt, ap);
	va_end(ap);
	return -1;
}

void op_header_init(struct opd_header *h)
{
	memset(h, 0, sizeof(*h));
	memcpy(h->magic, OPD_MAGIC, sizeof(h->magic));
	h->version = OPD_VERSION;
}

int op_header_validate(struct opd_header const *h, char const *path,
		       char *err, size_t errlen)
{
	if (memcmp(h->magic, OPD_MAGIC, sizeof(h->magic)))
		return op_header_fail(err, errlen, path,
				      "not a sample file (bad magic)");
	if (h->version != OPD_VERSION)
		return op_header_fail(err, errlen, path,
				      "sample file version 0x%x, this tool reads version 0x%x",
				      h->version, OPD_VERSION);
	return 0;
}

int op_header_read(char const *path, struct opd_header *h,
		   char *err, size_t errlen)
{
	ssize_t n;
	int fd, saved;

	/* a FIFO planted in a sample directory must not hang us */
	fd = op_open_regular(path, O_RDONLY);
	if (fd < 0 && errno == OP_ENOTREG)
		return op_header_fail(err, errlen, path, "not a regular file");
	if (fd < 0)
		return op_header_fail(err, errlen, path, "cannot open: %s",
				      strerror(errno));
	n = op_read_full(fd, h, sizeof(*h));
	saved = errno;
	close(fd);
	if (n < 0)
		return op_header_fail(err, errlen, path, "cannot read: %s",
				      strerror(saved));
	if ((size_t)n < sizeof(*h))
		return op_header_fail(err, errlen, path,
				      "file too short for a sample file header (%zd bytes, need %zu)",
				      n, sizeof(*h));
	return op_header_validate(h, path, err, errlen);
}
