/*
 * The writer and the reader of a session's kernel metadata (see
 * op_session_kernel.h): the daemon and the report tools agree on the
 * names and the formats because both go through here.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zlib.h>

#include "op_message.h"
#include "op_session.h"
#include "op_session_kernel.h"
#include "op_util.h"

static int path_error(char *err, size_t errlen, char const *verb,
		      char const *path)
{
	snprintf(err, errlen, "cannot %s '%s': %s", verb, path, strerror(errno));
	return -1;
}

/* Kernel addresses are for root only (doc/formats.md section 1). */
#define KERNEL_DATA_MODE 0600

int op_session_write_gz(char const *path, char const *text, size_t len)
{
	z_stream z;
	size_t cap;
	Bytef *out;
	int rc;

	memset(&z, 0, sizeof(z));
	/* 15 + 16: a gzip wrapper, so gzopen and zcat read it */
	if (deflateInit2(&z, 1, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
		errno = ENOMEM;
		return -1;
	}
	cap = deflateBound(&z, (uLong)len);
	out = op_xmalloc(cap);
	z.next_in = (Bytef *)text;
	z.avail_in = (uInt)len;
	z.next_out = out;
	z.avail_out = (uInt)cap;
	rc = deflate(&z, Z_FINISH);
	deflateEnd(&z);
	if (rc != Z_STREAM_END) {
		free(out);
		errno = EIO;
		return -1;
	}
	rc = op_write_file_atomic_mode(path, out, z.total_out, KERNEL_DATA_MODE,
				       NULL, 0);
	free(out);
	return rc;
}

/*
 * kallsyms.gz: a hard link to the cached copy when there is one (no copy
 * at all), else a copy of it, else the plain text compressed.
 */
static int write_kallsyms(char const *to, struct op_kernel_sources const *src,
			  char *err, size_t errlen)
{
	size_t len = 0;
	char *text;
	int ret = 0;

	unlink(to);
	/* a cache made by an older version may be 0644 */
	if (src->kallsyms_gz && link(src->kallsyms_gz, to) == 0 &&
	    chmod(to, KERNEL_DATA_MODE) == 0)
		return 0;
	unlink(to);
	text = src->kallsyms_gz ? op_read_file(src->kallsyms_gz, 0, &len, NULL, 0) : NULL;
	if (text) {
		ret = op_write_file_atomic_mode(to, text, len, KERNEL_DATA_MODE,
						err, errlen);
		free(text);
		if (!ret)
			return 0;
	}
	text = op_read_file(src->kallsyms, 0, &len, NULL, 0);
	if (!text)
		return path_error(err, errlen, "read", src->kallsyms);
	if (op_session_write_gz(to, text, len))
		ret = path_error(err, errlen, "write", to);
	free(text);
	return ret;
}

/* A kernel built without module support has no /proc/modules. */
static int write_modules(char const *to, char const *modules,
			 char *err, size_t errlen)
{
	size_t len = 0;
	char *text = access(modules, F_OK) ? op_xstrdup("") :
		op_read_file(modules, 0, &len, err, errlen);
	int ret;

	if (!text)
		return -1;
	ret = op_write_file_atomic_mode(to, text, len, KERNEL_DATA_MODE, err,
					errlen);
	free(text);
	return ret;
}

static int write_images(char const *to, struct op_kernel_image const *v,
			size_t n, char *err, size_t errlen)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	int ret = 0;

	if (!f)
		op_die("out of memory");
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%s 0x%" PRIx64 " 0x%" PRIx64 "\n", v[i].name,
			v[i].start, v[i].end);
	fclose(f);
	if (op_write_file_atomic_mode(to, text, len, KERNEL_DATA_MODE, NULL, 0) < 0)
		ret = path_error(err, errlen, "write", to);
	free(text);
	return ret;
}

int op_session_kernel_write(char const *dir, struct op_kernel_sources const *src,
			    struct op_kernel_image const *v, size_t n,
			    char *err, size_t errlen)
{
	char *path = op_session_path(dir, OP_META_KALLSYMS);
	int ret = 0;

	/* no kallsyms (the no-vmlinux kernel): none saved, no stale one */
	if (src->kallsyms)
		ret = write_kallsyms(path, src, err, errlen);
	else
		unlink(path);
	free(path);
	if (ret)
		return -1;
	path = op_session_path(dir, OP_META_MODULES);
	ret = write_modules(path, src->modules, err, errlen);
	free(path);
	if (ret)
		return -1;
	path = op_session_path(dir, OP_META_KERNEL_IMAGES);
	ret = write_images(path, v, n, err, errlen);
	free(path);
	return ret;
}

/* One "NAME 0xSTART 0xEND" line into *img; blank lines give 0. */
static int parse_image(char const *line, struct op_kernel_image *img)
{
	char name[4096];

	if (line[strspn(line, " \t\n")] == '\0')
		return 0;
	if (sscanf(line, "%4095s %" SCNx64 " %" SCNx64, name, &img->start,
		   &img->end) != 3 || img->end < img->start)
		return -1;
	img->name = op_xstrdup(name);
	return 1;
}

int op_session_kernel_images(char const *dir, struct op_kernel_image **v,
			     size_t *n, char *err, size_t errlen)
{
	char *path = op_session_path(dir, OP_META_KERNEL_IMAGES);
	FILE *f = fopen(path, "r");
	char line[8192];
	unsigned lineno = 0;
	size_t alloc = 0;
	int ret = 0;

	*v = NULL;
	*n = 0;
	if (!f) {
		path_error(err, errlen, "open", path);
		free(path);
		return -1;
	}
	while (fgets(line, sizeof(line), f) && !ret) {
		struct op_kernel_image img;
		int rc = parse_image(line, &img);

		lineno++;
		if (rc < 0) {
			snprintf(err, errlen, "%s:%u: expected 'NAME 0xSTART 0xEND'",
				 path, lineno);
			op_kernel_images_free(*v, *n);
			*v = NULL;
			*n = 0;
			ret = -1;
		} else if (rc > 0) {
			OP_ALLOC_GROW(*v, *n + 1, alloc);
			(*v)[(*n)++] = img;
		}
	}
	fclose(f);
	free(path);
	return ret;
}

void op_kernel_images_free(struct op_kernel_image *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i].name);
	free(v);
}

/* The address at the start of a line: plain hex digits (what the kernel
 * writes) by hand, anything else as strtoull reads it. */
static uint64_t parse_addr(char *line, char **end)
{
	uint64_t v = 0;
	char *p = line;

	for (; p - line <= 16; p++) {
		unsigned d = (unsigned char)*p;

		if (d - '0' < 10)
			d -= '0';
		else if ((d | 0x20) - 'a' < 6)
			d = (d | 0x20) - 'a' + 10;
		else
			break;
		v = v << 4 | d;
	}
	if (p == line || p - line > 16 || *p == 'x' || *p == 'X')
		return strtoull(line, end, 16);
	*end = p;
	return v;
}

/* The next word after *pos: strtok_r's " \t\n" words, without a state. */
static char *next_word(char **pos)
{
	char *p = *pos + strspn(*pos, " \t\n"), *w = p;

	if (!*p) {
		*pos = p;
		return NULL;
	}
	p += strcspn(p, " \t\n");
	if (*p)
		*p++ = '\0';
	*pos = p;
	return w;
}

/* "ADDR TYPE NAME[\t[MOD]]" into sym; false for a malformed line. */
static bool parse_ksym(char *line, struct op_ksym *sym, bool *any_address)
{
	char *end, *name, *mod;
	size_t len;

	sym->addr = parse_addr(line, &end);
	if (end == line || *end != ' ')
		return false;
	sym->type = end[1];
	if (!sym->type || end[2] != ' ')
		return false;
	end += 3;
	name = next_word(&end);
	mod = next_word(&end);
	if (!name)
		return false;
	if (sym->addr)
		*any_address = true;
	sym->name = name;
	sym->module = NULL;
	if (!mod)
		return true;
	len = strlen(mod);
	if (mod[0] != '[' || mod[len - 1] != ']')
		return false;
	mod[len - 1] = '\0';
	sym->module = mod + 1;
	return true;
}

/* The daemon saves it gzipped; gzopen reads a plain copy as well. */
static gzFile open_kallsyms(char const *dir)
{
	char *path = op_session_path(dir, OP_META_KALLSYMS);
	gzFile f = gzopen(path, "rb");

	free(path);
	if (f)
		return f;
	path = op_session_path(dir, OP_META_KALLSYMS_PLAIN);
	f = gzopen(path, "rb");
	free(path);
	return f;
}

int op_session_kallsyms(char const *dir, op_ksym_fn fn, void *arg,
			bool *any_address)
{
	gzFile f = open_kallsyms(dir);
	char line[8192];
	struct op_ksym sym;
	size_t good = 0;
	int zerr = Z_OK;

	*any_address = false;
	if (!f)
		return -1;
	gzbuffer(f, 1 << 17);   /* 5 MB of text: fewer, bigger reads */
	while (gzgets(f, line, sizeof(line)))
		if (parse_ksym(line, &sym, any_address)) {
			fn(&sym, arg);
			good++;
		}
	gzerror(f, &zerr);
	gzclose(f);
	/* damaged gzip, or no kallsyms line at all: not a kallsyms file */
	return zerr != Z_OK || !good ? -2 : 0;
}
