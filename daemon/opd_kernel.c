/*
 * Kernel and module address ranges for the running boot.
 *
 * The kernel text is [_text, _etext) from /proc/kallsyms, so KASLR is
 * handled: sample keys are offsets from the runtime start, which a report
 * maps back through the kallsyms copy saved with the session, or through
 * a vmlinux's own _text. Modules come from /proc/modules (name, size, text
 * base). Since Linux 6.4 a module's size covers text, data and rodata
 * regions that need not be contiguous, so a module's range is clipped at
 * the next image's start to keep ranges disjoint.
 *
 * Reading /proc/kallsyms costs the kernel ~50 ms and compressing it for
 * the session another ~60 ms, most of a quiet daemon's CPU time. Both are
 * done once per boot: the gzipped copy and the text range are kept in a
 * cache directory keyed by the boot id and the module list, and each
 * session links to the cached copy.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "op_message.h"
#include "op_session.h"
#include "op_session_kernel.h"
#include "opd_kernel.h"

#define KALLSYMS "/proc/kallsyms"
#define MODULES "/proc/modules"

/* All images ever seen, by id; `sorted` holds the live ones by start. */
static struct opd_kimage **images;
static int nr_images;
static struct opd_kimage **sorted;
static int nr_sorted;

static int image_id(char const *name, uint64_t start, uint64_t end)
{
	int i;

	for (i = 0; i < nr_images; i++) {
		struct opd_kimage *k = images[i];
		if (!strcmp(k->name, name) && k->start == start) {
			k->end = end;
			return i;
		}
	}
	images = op_xrealloc(images, (nr_images + 1) * sizeof(*images));
	images[nr_images] = op_xcalloc(1, sizeof(struct opd_kimage));
	images[nr_images]->name = op_xstrdup(name);
	images[nr_images]->start = start;
	images[nr_images]->end = end;
	images[nr_images]->id = nr_images;
	return nr_images++;
}

/* The whole of a /proc file (they have no size to stat). NULL on error. */
static char *slurp(char const *path, size_t *len)
{
	size_t cap = 1 << 16, n = 0;
	char *buf = op_xmalloc(cap);
	ssize_t got;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		free(buf);
		return NULL;
	}
	while ((got = read(fd, buf + n, cap - n - 1)) > 0) {
		n += (size_t)got;
		if (cap - n < 4096)
			buf = op_xrealloc(buf, cap *= 2);
	}
	close(fd);
	if (got < 0) {
		free(buf);
		return NULL;
	}
	buf[n] = '\0';
	*len = n;
	return buf;
}

static uint64_t hex(char const *p, char const **end)
{
	uint64_t v = 0;

	for (;; p++) {
		unsigned d = (unsigned)(*p - '0');
		if (d > 9) {
			d = (unsigned)((*p | 0x20) - 'a');
			if (d > 5)
				break;
			d += 10;
		}
		v = v << 4 | d;
	}
	*end = p;
	return v;
}

/* _text (or _stext) and _etext from kallsyms text ("ADDR T NAME\n"). */
static int parse_kernel_range(char const *text, uint64_t *start, uint64_t *end,
			      char *err, size_t errlen)
{
	uint64_t stext = 0, txt = 0, etext = 0;
	char const *p = text;

	while (*p && (!(txt || stext) || !etext)) {
		char const *nl = strchr(p, '\n'), *q;
		uint64_t addr = hex(p, &q);
		size_t len;

		if (!nl)
			nl = p + strlen(p);
		/* " T name": the name starts 3 bytes after the address */
		if (q + 3 < nl && q[0] == ' ' && q[2] == ' ') {
			q += 3;
			len = (size_t)(nl - q);
			if (len == 5 && !memcmp(q, "_text", 5))
				txt = addr;
			else if (len == 6 && !memcmp(q, "_stext", 6))
				stext = addr;
			else if (len == 6 && !memcmp(q, "_etext", 6))
				etext = addr;
		}
		p = *nl ? nl + 1 : nl;
	}
	*start = txt ? txt : stext;
	*end = etext;
	if (!*start || !*end || *end <= *start) {
		snprintf(err, errlen, "'%s' shows no kernel text range "
			 "(zero addresses: run as root, or lower "
			 "/proc/sys/kernel/kptr_restrict)", KALLSYMS);
		return -1;
	}
	return 0;
}

static int cmp_start(void const *a, void const *b)
{
	struct opd_kimage const *x = *(struct opd_kimage * const *)a;
	struct opd_kimage const *y = *(struct opd_kimage * const *)b;

	return x->start < y->start ? -1 : x->start > y->start;
}

static void add_sorted(int id)
{
	sorted = op_xrealloc(sorted, (nr_sorted + 1) * sizeof(*sorted));
	sorted[nr_sorted++] = images[id];
}

/* Module lines: "name size refs deps state 0xaddr [taint]". */
static void read_modules(void)
{
	FILE *f = fopen(MODULES, "r");
	char line[1024];

	if (!f)
		return;  /* no modules support: the kernel text is all there is */
	while (fgets(line, sizeof(line), f)) {
		char name[256];
		unsigned long size;
		uint64_t addr;

		if (sscanf(line, "%255s %lu %*s %*s %*s %" SCNx64,
			   name, &size, &addr) != 3 || !addr)
			continue;
		add_sorted(image_id(name, addr, addr + size));
	}
	fclose(f);
}

static void clip_overlaps(void)
{
	int i;

	qsort(sorted, nr_sorted, sizeof(*sorted), cmp_start);
	for (i = 0; i + 1 < nr_sorted; i++)
		if (sorted[i]->end > sorted[i + 1]->start)
			sorted[i]->end = sorted[i + 1]->start;
}

static char *vmlinux_name;
static char *cache_dir;      /* per-boot cache of kallsyms.gz and the range */

/* The cache's file NAME in buf. */
static char const *cache_path(char *buf, size_t len, char const *name)
{
	snprintf(buf, len, "%s/%s", cache_dir, name);
	return buf;
}

/* The key a cached copy must match: boot id, then the module list. */
static char *cache_key(size_t *len)
{
	size_t blen = 0, mlen = 0;
	char *boot = slurp("/proc/sys/kernel/random/boot_id", &blen);
	char *mods = slurp(MODULES, &mlen);
	char *key;

	if (!boot) {
		free(mods);
		return NULL;
	}
	key = op_xmalloc(blen + mlen + 1);
	memcpy(key, boot, blen);
	if (mods)
		memcpy(key + blen, mods, mlen);
	key[blen + mlen] = '\0';
	*len = blen + mlen;
	free(boot);
	free(mods);
	return key;
}

/* The range from a valid cache entry; -1 if there is none. */
static int cache_lookup(char const *key, size_t klen, uint64_t *start, uint64_t *end)
{
	char path[4200];
	size_t n = 0;
	char *old, *range;
	char const *q;
	int rc = -1;

	if (!cache_dir)
		return -1;
	old = slurp(cache_path(path, sizeof(path), OP_KCACHE_KEY), &n);
	range = slurp(cache_path(path, sizeof(path), OP_KCACHE_RANGE), &n);
	if (old && range && !strcmp(old, key) && strlen(old) == klen &&
	    access(cache_path(path, sizeof(path), OP_KCACHE_KALLSYMS), R_OK) == 0) {
		*start = hex(range, &q);
		*end = hex(q + (*q == ' '), &q);
		rc = *start && *end > *start ? 0 : -1;
	}
	free(old);
	free(range);
	return rc;
}

/* Compress kallsyms into the cache; the key is written last, as the commit. */
static void cache_store(char const *key, size_t klen, char const *text,
			size_t len, uint64_t start, uint64_t end)
{
	char path[4200], range[64];

	if (!cache_dir || (mkdir(cache_dir, 0755) && errno != EEXIST))
		return;
	unlink(cache_path(path, sizeof(path), OP_KCACHE_KEY));
	if (op_session_write_gz(cache_path(path, sizeof(path), OP_KCACHE_KALLSYMS),
				text, len))
		return;
	snprintf(range, sizeof(range), "%" PRIx64 " %" PRIx64 "\n", start, end);
	if (op_session_write_atomic(cache_path(path, sizeof(path), OP_KCACHE_RANGE),
				    range, strlen(range)))
		return;
	op_session_write_atomic(cache_path(path, sizeof(path), OP_KCACHE_KEY), key, klen);
}

/* Kernel text range: from the cache, or by reading kallsyms (and caching it). */
static int kernel_range(uint64_t *start, uint64_t *end, char *err, size_t errlen)
{
	size_t klen = 0, len = 0;
	char *key = cache_key(&klen), *text;
	int rc;

	if (key && cache_lookup(key, klen, start, end) == 0) {
		free(key);
		return 0;
	}
	text = slurp(KALLSYMS, &len);
	if (!text) {
		snprintf(err, errlen, "cannot read '%s': %s", KALLSYMS, strerror(errno));
		free(key);
		return -1;
	}
	rc = parse_kernel_range(text, start, end, err, errlen);
	if (!rc && key)
		cache_store(key, klen, text, len, *start, *end);
	free(text);
	free(key);
	return rc;
}

static int load(char *err, size_t errlen)
{
	uint64_t start, end;

	if (kernel_range(&start, &end, err, errlen))
		return -1;
	nr_sorted = 0;
	add_sorted(image_id(vmlinux_name, start, end));
	read_modules();
	clip_overlaps();
	return 0;
}

int opd_kernel_init(char const *vmlinux, char const *cache, char *err, size_t errlen)
{
	free(vmlinux_name);
	free(cache_dir);
	vmlinux_name = op_xstrdup(vmlinux ? vmlinux : "vmlinux");
	cache_dir = cache ? op_xstrdup(cache) : NULL;
	return load(err, errlen);
}

/*
 * The cache key holds the module list, so a loaded module makes the next
 * lookup miss and kallsyms is read again; an unchanged list costs only
 * reading /proc/modules and the boot id.
 */
int opd_kernel_reload(char *err, size_t errlen)
{
	return load(err, errlen);
}

struct opd_kimage const *opd_kernel_find(uint64_t pc)
{
	int lo = 0, hi = nr_sorted - 1;

	while (lo <= hi) {
		int mid = lo + (hi - lo) / 2;
		struct opd_kimage const *k = sorted[mid];

		if (pc < k->start)
			hi = mid - 1;
		else if (pc >= k->end)
			lo = mid + 1;
		else
			return k;
	}
	return NULL;
}

struct opd_kimage const *opd_kernel_by_id(int id)
{
	return id >= 0 && id < nr_images ? images[id] : NULL;
}

int opd_kernel_nr_ids(void)
{
	return nr_images;
}

/*
 * The session's kernel metadata, written by libop (op_session_kernel.h):
 * kallsyms.gz is a hard link to the per-boot cached copy when there is
 * one, so saving a session costs no compression.
 */
int opd_kernel_save(char const *dir, char *err, size_t errlen)
{
	char cached[4200];
	struct op_kernel_sources src = {
		.kallsyms = KALLSYMS,
		.kallsyms_gz = cache_dir ? cache_path(cached, sizeof(cached),
						      OP_KCACHE_KALLSYMS) : NULL,
		.modules = MODULES,
	};
	struct op_kernel_image *v = op_xcalloc((size_t)nr_sorted + 1, sizeof(*v));
	int i, ret;

	for (i = 0; i < nr_sorted; i++)
		v[i] = (struct op_kernel_image){ .name = sorted[i]->name,
			.start = sorted[i]->start, .end = sorted[i]->end };
	ret = op_session_kernel_write(dir, &src, v, (size_t)nr_sorted, err, errlen);
	free(v);
	return ret;
}

void opd_kernel_exit(void)
{
	int i;

	for (i = 0; i < nr_images; i++) {
		free(images[i]->name);
		free(images[i]);
	}
	free(images);
	free(sorted);
	free(vmlinux_name);
	free(cache_dir);
	images = NULL;
	sorted = NULL;
	vmlinux_name = NULL;
	cache_dir = NULL;
	nr_images = nr_sorted = 0;
}
