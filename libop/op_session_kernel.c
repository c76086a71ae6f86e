/*
 * The writer and the reader of a session's kernel metadata (see
 * op_session_kernel.h): the daemon and the report tools agree on the
 * names and the formats because both go through here.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zlib.h>

#include "op_file.h"
#include "op_message.h"
#include "op_session.h"
#include "op_session_kernel.h"
#include "op_util.h"

static int path_error(char *err, size_t errlen, char const *verb,
		      char const *path)
{
	snprintf(err, errlen, "cannot %s '%s': %s", verb, path,
		 op_file_strerror(errno));
	return -1;
}

/* Kernel addresses are for root only (doc/formats.md section 1). */
#define KERNEL_DATA_MODE 0600

/*
 * Bounds of what is read (checked before reading where the file has a
 * size): /proc/kallsyms is 5 to 20 MB of text, 1 to 3 MB gzipped, and
 * /proc/modules a few kB; a file far beyond is not one of them.
 */
#define KALLSYMS_TEXT_MAX (256 << 20)
#define KALLSYMS_GZ_MAX (64 << 20)
#define MODULES_MAX (16 << 20)

/* text gzipped (level 1: fast) into a malloc'ed buffer; NULL, errno set. */
static Bytef *gzip_text(char const *text, size_t len, size_t *outlen)
{
	z_stream z;
	size_t cap;
	Bytef *out;
	int rc;

	memset(&z, 0, sizeof(z));
	/* 15 + 16: a gzip wrapper, so gzopen and zcat read it */
	if (deflateInit2(&z, 1, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
		errno = ENOMEM;
		return NULL;
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
		return NULL;
	}
	*outlen = z.total_out;
	return out;
}

int op_session_write_gz(char const *path, char const *text, size_t len)
{
	size_t n;
	Bytef *out = gzip_text(text, len, &n);
	int rc;

	if (!out)
		return -1;
	rc = op_write_file_atomic_mode(path, out, n, KERNEL_DATA_MODE, NULL, 0);
	free(out);
	return rc;
}

static int write_index(char const *path, char const *text, size_t len,
		       uint64_t gz_size, uint32_t gz_crc);

int op_session_write_kallsyms(char const *gz_path, char const *idx_path,
			      char const *text, size_t len)
{
	size_t n;
	Bytef *out = gzip_text(text, len, &n);
	int rc;

	if (!out)
		return -1;
	unlink(idx_path);  /* never an index of another kallsyms.gz */
	rc = op_write_file_atomic_mode(gz_path, out, n, KERNEL_DATA_MODE, NULL, 0);
	if (!rc && write_index(idx_path, text, len, n,
			       (uint32_t)crc32(0, out, (uInt)n)))
		unlink(idx_path);
	free(out);
	return rc;
}

/* The index goes with its kallsyms.gz: linked, else copied; else none. */
static void write_index_copy(char const *to, char const *from)
{
	if (!from)
		return;
	if (link(from, to) == 0 && chmod(to, KERNEL_DATA_MODE) == 0)
		return;
	unlink(to);
	if (op_copy_file(from, to, NULL, 0))
		unlink(to);
}

/*
 * kallsyms.gz: a hard link to the cached copy when there is one (no copy
 * at all), else a copy of it, else the plain text compressed.
 */
static int write_kallsyms(char const *to, char const *idx,
			  struct op_kernel_sources const *src,
			  char *err, size_t errlen)
{
	size_t len = 0;
	char *text;
	int ret = 0;

	unlink(idx);
	unlink(to);
	/* a cache made by an older version may be 0644 */
	if (src->kallsyms_gz && link(src->kallsyms_gz, to) == 0 &&
	    chmod(to, KERNEL_DATA_MODE) == 0) {
		write_index_copy(idx, src->kallsyms_idx);
		return 0;
	}
	unlink(to);
	text = src->kallsyms_gz ?
		op_read_file(src->kallsyms_gz, KALLSYMS_GZ_MAX, &len, NULL, 0) :
		NULL;
	if (text) {
		ret = op_write_file_atomic_mode(to, text, len, KERNEL_DATA_MODE,
						err, errlen);
		free(text);
		if (!ret) {
			write_index_copy(idx, src->kallsyms_idx);
			return 0;
		}
	}
	text = op_read_file(src->kallsyms, KALLSYMS_TEXT_MAX, &len, NULL, 0);
	if (!text)
		return path_error(err, errlen, "read", src->kallsyms);
	if (op_session_write_kallsyms(to, idx, text, len))
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
		op_read_file(modules, MODULES_MAX, &len, err, errlen);
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
	char *idx = op_session_path(dir, OP_META_KALLSYMS_INDEX);
	int ret = 0;

	/* no kallsyms (the no-vmlinux kernel): none saved, no stale one */
	if (src->kallsyms) {
		ret = write_kallsyms(path, idx, src, err, errlen);
	} else {
		unlink(path);
		unlink(idx);
	}
	free(path);
	free(idx);
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
	/* a line per module: a few kB; 4 MB is not such a file */
	FILE *f = op_fopen_regular_max(path, 4 << 20);
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
	/* a letter in kallsyms; the index takes the same (printable) */
	if (sym->type <= ' ' || sym->type > '~' || end[2] != ' ')
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
	if (len < 3 || mod[0] != '[' || mod[len - 1] != ']')
		return false;   /* "[]": no module, not the kernel either */
	mod[len - 1] = '\0';
	sym->module = mod + 1;
	return true;
}

/*
 * kallsyms.idx (doc/formats.md, "kallsyms.idx"): a header, the symbols
 * in kallsyms's order, the module names, then a pool of NUL-terminated
 * names; native byte order (the magic read backwards: ignored).
 */
#define KIDX_MAGIC "OPKSYMIX"
#define KIDX_VERSION 1u
#define KIDX_MAX (512u << 20)

struct kidx_header {
	char magic[8];
	uint32_t version;
	uint32_t reserved;     /* 0 */
	uint64_t gz_size;      /* the kallsyms.gz it was made from */
	uint32_t gz_crc;       /* and its CRC-32 (zlib's crc32) */
	uint32_t nr_syms;
	uint32_t nr_mods;
	uint32_t pool_size;
};

struct kidx_sym {
	uint64_t addr;
	uint32_t name;         /* offset in the pool */
	uint16_t module;       /* 0: the kernel proper, else module - 1 */
	char type;
	uint8_t pad;           /* 0 */
};

_Static_assert(sizeof(struct kidx_header) == 40, "kallsyms.idx header");
_Static_assert(sizeof(struct kidx_sym) == 16, "kallsyms.idx entry");

/* The index being built: the entries, module names and pool, growing. */
struct kidx_build {
	struct kidx_sym *syms;
	size_t nr_syms, alloc_syms;
	uint32_t *mods;
	size_t nr_mods, alloc_mods;
	char *pool;
	size_t pool_size, alloc_pool;
};

static uint32_t pool_add(struct kidx_build *b, char const *s)
{
	size_t len = strlen(s) + 1;
	uint32_t off = (uint32_t)b->pool_size;

	OP_ALLOC_GROW(b->pool, b->pool_size + len, b->alloc_pool);
	memcpy(b->pool + b->pool_size, s, len);
	b->pool_size += len;
	return off;
}

/* 1 + the module's index; a module's symbols come in one run. */
static int module_id(struct kidx_build *b, char const *mod)
{
	size_t i;

	if (!mod)
		return 0;
	for (i = b->nr_mods; i-- > 0;)
		if (!strcmp(b->pool + b->mods[i], mod))
			return (int)i + 1;
	if (b->nr_mods >= UINT16_MAX)
		return -1;
	OP_ALLOC_GROW(b->mods, b->nr_mods + 1, b->alloc_mods);
	b->mods[b->nr_mods++] = pool_add(b, mod);
	return (int)b->nr_mods;
}

/* Every line parse_ksym accepts, as the text reader would pass it on. */
static int build_index(struct kidx_build *b, char const *text, size_t len)
{
	char *copy = op_xmalloc(len + 1), *line, *next;
	struct op_ksym sym;
	bool any = false;
	int rc = 0;

	if (len)
		memcpy(copy, text, len);
	copy[len] = '\0';
	for (line = copy; *line && !rc; line = next) {
		int mod;

		next = line + strcspn(line, "\n");
		if (*next)
			*next++ = '\0';
		if (!parse_ksym(line, &sym, &any))
			continue;
		mod = module_id(b, sym.module);
		if (mod < 0 || b->pool_size > UINT32_MAX / 2 ||
		    b->nr_syms >= UINT32_MAX / 2) {
			rc = -1;
			break;
		}
		OP_ALLOC_GROW(b->syms, b->nr_syms + 1, b->alloc_syms);
		b->syms[b->nr_syms++] = (struct kidx_sym){
			.addr = sym.addr, .name = pool_add(b, sym.name),
			.module = (uint16_t)mod, .type = sym.type,
		};
	}
	free(copy);
	return rc;
}

static int write_index(char const *path, char const *text, size_t len,
		       uint64_t gz_size, uint32_t gz_crc)
{
	struct kidx_build b = { 0 };
	struct kidx_header h = {
		.magic = KIDX_MAGIC, .version = KIDX_VERSION,
		.gz_size = gz_size, .gz_crc = gz_crc,
	};
	size_t syms, mods, size;
	char *buf;
	int rc = build_index(&b, text, len);

	if (!rc) {
		h.nr_syms = (uint32_t)b.nr_syms;
		h.nr_mods = (uint32_t)b.nr_mods;
		h.pool_size = (uint32_t)b.pool_size;
		syms = b.nr_syms * sizeof(*b.syms);
		mods = b.nr_mods * sizeof(*b.mods);
		size = sizeof(h) + syms + mods + b.pool_size;
		buf = op_xmalloc(size);
		/* an empty kallsyms has no arrays: memcpy from NULL is UB */
		memcpy(buf, &h, sizeof(h));
		if (syms)
			memcpy(buf + sizeof(h), b.syms, syms);
		if (mods)
			memcpy(buf + sizeof(h) + syms, b.mods, mods);
		if (b.pool_size)
			memcpy(buf + sizeof(h) + syms + mods, b.pool,
			       b.pool_size);
		rc = op_write_file_atomic_mode(path, buf, size, KERNEL_DATA_MODE,
					       NULL, 0);
		free(buf);
	}
	free(b.syms);
	free(b.mods);
	free(b.pool);
	return rc;
}

static int index_bad(char *err, size_t errlen, char const *what)
{
	snprintf(err, errlen, "%s", what);
	return -1;
}

/* Every entry and module name checked before any is passed on. */
static int check_entries(struct kidx_header const *h, uint8_t const *syms,
			 uint8_t const *mods, char const *pool, char *err,
			 size_t errlen)
{
	struct kidx_sym e;
	uint32_t off;

	for (uint32_t i = 0; i < h->nr_mods; i++) {
		memcpy(&off, mods + 4 * (size_t)i, sizeof(off));
		if (off >= h->pool_size || !pool[off])
			return index_bad(err, errlen, "a module name outside the pool");
	}
	for (uint32_t i = 0; i < h->nr_syms; i++) {
		memcpy(&e, syms + sizeof(e) * (size_t)i, sizeof(e));
		if (e.name >= h->pool_size || !pool[e.name])
			return index_bad(err, errlen, "a symbol name outside the pool");
		if (e.module > h->nr_mods)
			return index_bad(err, errlen, "a symbol of an unknown module");
		if (e.type <= ' ' || e.type > '~' || e.pad)
			return index_bad(err, errlen, "a symbol of a bad type");
	}
	return 0;
}

int op_kallsyms_index_parse(void const *buf, size_t len, uint64_t gz_size,
			    uint32_t gz_crc, op_ksym_fn fn, void *arg,
			    bool *any_address, char *err, size_t errlen)
{
	uint8_t const *p = buf;
	struct kidx_header h;
	uint8_t const *syms, *mods;
	char const *pool;
	struct kidx_sym e;
	uint32_t off;
	uint64_t need;

	if (len < sizeof(h) || memcmp(p, KIDX_MAGIC, 8))
		return index_bad(err, errlen, "not a kallsyms index (bad magic)");
	memcpy(&h, p, sizeof(h));
	if (h.version != KIDX_VERSION || h.gz_size != gz_size ||
	    h.gz_crc != gz_crc)
		return 1;
	need = sizeof(h) + (uint64_t)h.nr_syms * sizeof(e) +
	       (uint64_t)h.nr_mods * 4 + h.pool_size;
	if (h.reserved || need != len)
		return index_bad(err, errlen, "its size is not the one its header gives");
	syms = p + sizeof(h);
	mods = syms + (size_t)h.nr_syms * sizeof(e);
	pool = (char const *)(mods + (size_t)h.nr_mods * 4);
	if (h.pool_size && pool[h.pool_size - 1])
		return index_bad(err, errlen, "its name pool does not end a name");
	if (check_entries(&h, syms, mods, pool, err, errlen))
		return -1;
	for (uint32_t i = 0; i < h.nr_syms; i++) {
		struct op_ksym sym;

		memcpy(&e, syms + sizeof(e) * (size_t)i, sizeof(e));
		sym.addr = e.addr;
		sym.type = e.type;
		sym.name = pool + e.name;
		sym.module = NULL;
		if (e.module) {
			memcpy(&off, mods + 4 * (size_t)(e.module - 1), sizeof(off));
			sym.module = pool + off;
		}
		if (e.addr)
			*any_address = true;
		fn(&sym, arg);
	}
	return 0;
}

/* Size and CRC-32 of the kallsyms.gz at path; -1 if it cannot be read. */
static int file_crc(char const *path, uint64_t *size, uint32_t *crc)
{
	int fd = op_open_regular_max(path, O_RDONLY, KALLSYMS_GZ_MAX);
	unsigned char buf[1 << 16];
	uLong c = crc32(0, NULL, 0);
	ssize_t n;

	if (fd < 0)
		return -1;
	*size = 0;
	while ((n = op_read_full(fd, buf, sizeof(buf))) > 0) {
		c = crc32(c, buf, (uInt)n);
		*size += (uint64_t)n;
	}
	close(fd);
	*crc = (uint32_t)c;
	return n < 0 ? -1 : 0;
}

/*
 * The symbols from dir's kallsyms.idx when it was made from dir's
 * kallsyms.gz: 0. Else nothing is called (a damaged index is said once).
 */
static int read_index(char const *dir, op_ksym_fn fn, void *arg,
		      bool *any_address)
{
	char *idx = op_session_path(dir, OP_META_KALLSYMS_INDEX);
	char *gz = op_session_path(dir, OP_META_KALLSYMS);
	char err[256];
	uint64_t size;
	uint32_t crc;
	size_t len = 0;
	char *buf = NULL;
	int rc = 1;

	if (access(idx, F_OK) == 0 && file_crc(gz, &size, &crc) == 0)
		buf = op_read_file(idx, KIDX_MAX, &len, NULL, 0);
	if (buf)
		rc = op_kallsyms_index_parse(buf, len, size, crc, fn, arg,
					     any_address, err, sizeof(err));
	if (rc < 0)
		op_warn("%s: %s; reading %s instead", idx, err, gz);
	free(buf);
	free(idx);
	free(gz);
	return rc;
}

/* A regular file of at most max bytes, for zlib; NULL, errno set. */
static gzFile gz_open_regular(char const *path, off_t max)
{
	int fd = op_open_regular_max(path, O_RDONLY, max), err;
	gzFile f;

	if (fd < 0)
		return NULL;
	f = gzdopen(fd, "rb");
	if (!f) {
		err = errno ? errno : ENOMEM;
		close(fd);
		errno = err;
	}
	return f;
}

/*
 * The daemon saves it gzipped; gzdopen reads a plain copy as well. A
 * FIFO, a device or a file over the bound is said (naming it) and not
 * read; a missing kallsyms.gz quietly falls back to the plain copy.
 */
static gzFile open_kallsyms(char const *dir)
{
	char *path = op_session_path(dir, OP_META_KALLSYMS);
	gzFile f = gz_open_regular(path, KALLSYMS_GZ_MAX);

	if (!f && errno != ENOENT)
		op_warn("cannot read '%s': %s", path, op_file_strerror(errno));
	free(path);
	if (f)
		return f;
	path = op_session_path(dir, OP_META_KALLSYMS_PLAIN);
	f = gz_open_regular(path, KALLSYMS_TEXT_MAX);
	if (!f && errno != ENOENT)
		op_warn("cannot read '%s': %s", path, op_file_strerror(errno));
	free(path);
	return f;
}

int op_session_kallsyms(char const *dir, op_ksym_fn fn, void *arg,
			bool *any_address)
{
	gzFile f;
	char line[8192];
	struct op_ksym sym;
	size_t good = 0;
	int zerr = Z_OK;

	*any_address = false;
	if (read_index(dir, fn, arg, any_address) == 0)
		return 0;
	f = open_kallsyms(dir);
	if (!f)
		return -1;
	gzbuffer(f, 1 << 17);   /* 5 MB of text: fewer, bigger reads */
	/* a gzip bomb stops at the bound of the text it may hold */
	while (gzgets(f, line, sizeof(line)) && gztell(f) <= KALLSYMS_TEXT_MAX)
		if (parse_ksym(line, &sym, any_address)) {
			fn(&sym, arg);
			good++;
		}
	gzerror(f, &zerr);
	if (gztell(f) > KALLSYMS_TEXT_MAX)
		zerr = Z_DATA_ERROR;
	gzclose(f);
	/* damaged gzip, or no kallsyms line at all: not a kallsyms file */
	return zerr != Z_OK || !good ? -2 : 0;
}
