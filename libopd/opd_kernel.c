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
 * When kallsyms cannot be had (unreadable, or all addresses zero as a
 * non-root reader or kptr_restrict sees them) the daemon still starts:
 * kernel pcs outside the modules go to OProfile's "no-vmlinux" image,
 * keyed by the raw pc (start 0), and no kallsyms is saved (doc/formats.md
 * section 3). $OPROFILE_KALLSYMS names another file to read in place of
 * /proc/kallsyms (the tests' way to make it unreadable); it bypasses the
 * per-boot cache.
 *
 * Reading /proc/kallsyms costs the kernel ~50 ms and compressing it for
 * the session another ~60 ms, most of a quiet daemon's CPU time. Both are
 * done once per boot: the gzipped copy and the text range are kept in a
 * cache directory keyed by the boot id and the module list, and each
 * session links to the cached copy. The cache is the machine's
 * (OP_KERNEL_CACHE_SYSTEM, or $OPROFILE_KERNEL_CACHE; empty: none), shared
 * by every session dir of the boot (operf's fresh ./oprofile_data
 * included); one that cannot be used (not root's nor ours, group or world
 * writable, a link, not writable by us) leaves the session dir's own
 * kernel-cache/. A new boot's or module list's entry replaces the old one.
 * The directory is opened once, without following a link, and used as
 * /proc/self/fd/N: every later write is relative to what was checked.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "op_config.h"
#include "op_file.h"
#include "op_message.h"
#include "op_session.h"
#include "op_session_kernel.h"
#include "op_util.h"
#include "opd_kernel.h"

#define KALLSYMS OP_KALLSYMS_IMAGE
#define KALLSYMS_ENV "OPROFILE_KALLSYMS"
#define MODULES "/proc/modules"
#define KCACHE_ENV "OPROFILE_KERNEL_CACHE"

/*
 * All images ever seen, by id; `sorted` holds the live ones by start.
 * Images are looked up by name only when the module list is read, so a
 * linear search is enough.
 */
struct opd_kernel {
	struct opd_kimage **images;
	size_t nr_images, alloc_images;
	struct opd_kimage **sorted;
	size_t nr_sorted, alloc_sorted;
	char *vmlinux_name;
	char *cache_dir;      /* per-boot cache of kallsyms.gz and the range */
	int cache_fd;         /* cache_dir is /proc/self/fd/cache_fd; or -1 */
	char const *kallsyms; /* the file read as /proc/kallsyms */
	struct opd_kimage const *no_vmlinux;  /* every other kernel pc, or NULL */
	uint64_t text_start, text_end;        /* the range read last (0: none) */
};

/* /proc/kallsyms is a few MB; a cap far above it catches a runaway read. */
#define MAX_PROC_FILE (256u << 20)

static int image_id(struct opd_kernel *kt, char const *name, uint64_t start,
		    uint64_t end)
{
	struct opd_kimage *k;
	size_t i;

	for (i = 0; i < kt->nr_images; i++) {
		k = kt->images[i];
		if (!strcmp(k->name, name) && k->start == start) {
			k->end = end;
			return (int)i;
		}
	}
	k = op_xcalloc(1, sizeof(*k));
	k->name = op_xstrdup(name);
	k->start = start;
	k->end = end;
	k->id = (int)kt->nr_images;
	OP_ALLOC_GROW(kt->images, kt->nr_images + 1, kt->alloc_images);
	kt->images[kt->nr_images++] = k;
	return k->id;
}

/* The whole of a /proc file (they have no size to stat). NULL on error. */
static char *slurp(char const *path, size_t *len)
{
	return op_read_file(path, MAX_PROC_FILE, len, NULL, 0);
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

static void add_sorted(struct opd_kernel *k, int id)
{
	OP_ALLOC_GROW(k->sorted, k->nr_sorted + 1, k->alloc_sorted);
	k->sorted[k->nr_sorted++] = k->images[id];
}

/* Module lines: "name size refs deps state 0xaddr [taint]". */
static void read_modules(struct opd_kernel *k)
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
		add_sorted(k, image_id(k, name, addr, addr + size));
	}
	fclose(f);
}

static void clip_overlaps(struct opd_kernel *k)
{
	struct opd_kimage **sorted = k->sorted;
	size_t i;

	qsort(sorted, k->nr_sorted, sizeof(*sorted), cmp_start);
	for (i = 0; i + 1 < k->nr_sorted; i++)
		if (sorted[i]->end > sorted[i + 1]->start)
			sorted[i]->end = sorted[i + 1]->start;
}

/* The cache's file NAME in buf. */
static char const *cache_path(char const *cache_dir, char *buf, size_t len,
			      char const *name)
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
static int cache_lookup(char const *cache_dir, char const *key, size_t klen,
			uint64_t *start, uint64_t *end)
{
	char path[4200];
	size_t n = 0;
	char *old, *range;
	char const *q;
	int rc = -1;

	if (!cache_dir)
		return -1;
	old = slurp(cache_path(cache_dir, path, sizeof(path), OP_KCACHE_KEY), &n);
	range = slurp(cache_path(cache_dir, path, sizeof(path), OP_KCACHE_RANGE), &n);
	if (old && range && !strcmp(old, key) && strlen(old) == klen &&
	    access(cache_path(cache_dir, path, sizeof(path), OP_KCACHE_KALLSYMS), R_OK) == 0 &&
	    access(cache_path(cache_dir, path, sizeof(path), OP_KCACHE_KALLSYMS_INDEX), R_OK) == 0) {
		*start = hex(range, &q);
		*end = hex(q + (*q == ' '), &q);
		rc = *start && *end > *start ? 0 : -1;
	}
	free(old);
	free(range);
	return rc;
}

/* Compress kallsyms into the cache; the key is written last, as the commit. */
static void cache_store(char const *cache_dir, int cache_fd,
			char const *key, size_t klen,
			char const *text, size_t len, uint64_t start,
			uint64_t end)
{
	char path[4200], idx[4200], range[64];
	uint64_t s, e;

	if (!cache_dir || cache_fd < 0 || flock(cache_fd, LOCK_EX))
		return;
	/* another daemon of this boot may have stored it meanwhile */
	if (!cache_lookup(cache_dir, key, klen, &s, &e))
		goto out;
	unlink(cache_path(cache_dir, path, sizeof(path), OP_KCACHE_KEY));
	cache_path(cache_dir, idx, sizeof(idx), OP_KCACHE_KALLSYMS_INDEX);
	if (op_session_write_kallsyms(cache_path(cache_dir, path, sizeof(path),
						 OP_KCACHE_KALLSYMS),
				      idx, text, len))
		goto out;
	snprintf(range, sizeof(range), "%" PRIx64 " %" PRIx64 "\n", start, end);
	cache_path(cache_dir, path, sizeof(path), OP_KCACHE_RANGE);
	if (op_write_file_atomic_mode(path, range, strlen(range), 0600, NULL, 0))
		goto out;
	/* the module list has addresses: root's, as the rest */
	op_write_file_atomic_mode(cache_path(cache_dir, path, sizeof(path),
					     OP_KCACHE_KEY),
				  key, klen, 0600, NULL, 0);
out:
	flock(cache_fd, LOCK_UN);
}

/* Kernel text range: from the cache, or by reading kallsyms (and caching it). */
static int kernel_range(char const *cache_dir, int cache_fd,
			char const *kallsyms,
			uint64_t *start, uint64_t *end, char *err, size_t errlen)
{
	size_t klen = 0, len = 0;
	char *key = cache_key(&klen), *text;
	int rc;

	if (key && cache_lookup(cache_dir, key, klen, start, end) == 0) {
		free(key);
		return 0;
	}
	text = op_read_file(kallsyms, MAX_PROC_FILE, &len, err, errlen);
	if (!text) {
		free(key);
		return -1;
	}
	rc = parse_kernel_range(text, start, end, err, errlen);
	if (!rc && key)
		cache_store(cache_dir, cache_fd, key, klen, text, len, *start,
			    *end);
	free(text);
	free(key);
	return rc;
}

/*
 * No kernel text range: kernel pcs the modules do not claim go to the
 * no-vmlinux image, keyed by the pc itself, as OProfile does without
 * kallsyms. Said once.
 */
static void use_no_vmlinux(struct opd_kernel *k, char const *why)
{
	int id;

	if (k->no_vmlinux)
		return;
	op_warn("%s; kernel samples go to the image '%s', without symbols",
		why, OP_NO_VMLINUX_IMAGE);
	id = image_id(k, OP_NO_VMLINUX_IMAGE, 0, UINT64_MAX);
	k->no_vmlinux = k->images[id];
}

static void load(struct opd_kernel *k)
{
	uint64_t start, end;
	char err[512] = "";

	k->nr_sorted = 0;
	if (!k->no_vmlinux && !kernel_range(k->cache_dir, k->cache_fd,
					    k->kallsyms, &start, &end, err,
					    sizeof(err))) {
		k->text_start = start;
		k->text_end = end;
	} else if (!k->no_vmlinux && k->text_end) {
		op_warn("%s; the kernel range read before is kept", err);
	} else {
		use_no_vmlinux(k, err);
	}
	if (k->text_end)
		add_sorted(k, image_id(k, k->vmlinux_name, k->text_start,
				       k->text_end));
	read_modules(k);
	clip_overlaps(k);
}

/*
 * The cache directory dir, made if missing (mode 0700: kernel addresses
 * are root's), opened without following a link and checked: owned by us
 * or root, writable by no one else, writable by us. Its fd, or -1 after
 * saying why when it is refused (quiet: missing and cannot be made).
 */
static int open_cache(char const *dir)
{
	int fd;
	struct stat st;
	char const *why = NULL;

	if (mkdir(dir, 0700) && errno == ENOENT && !op_mkdir_parents(dir))
		mkdir(dir, 0700);
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		if (!lstat(dir, &st) && S_ISLNK(st.st_mode))
			op_warn("kernel cache '%s' is a symbolic link: "
				"refusing to follow it", dir);
		return -1;
	}
	if (fstat(fd, &st))
		why = strerror(errno);
	else if (st.st_uid != geteuid() && st.st_uid != 0)
		why = "owned by another user";
	else if (st.st_mode & 022)
		why = "writable by group or others";
	if (why)
		op_warn("kernel cache '%s' is %s: refusing it", dir, why);
	/* root's cache and a user's daemon: its session dir's, quietly */
	if (why || faccessat(fd, ".", R_OK | W_OK | X_OK, AT_EACCESS)) {
		close(fd);
		return -1;
	}
	return fd;
}

/* The machine's cache if usable, else the session dir's (or none). */
static void choose_cache(struct opd_kernel *k, char const *session_cache)
{
	char const *sys = getenv(KCACHE_ENV);

	if (!sys)
		sys = OP_KERNEL_CACHE_SYSTEM;
	k->cache_fd = *sys ? open_cache(sys) : -1;
	if (k->cache_fd < 0 && session_cache)
		k->cache_fd = open_cache(session_cache);
	if (k->cache_fd >= 0)
		k->cache_dir = op_xasprintf("/proc/self/fd/%d", k->cache_fd);
	else
		op_warn("no usable kernel cache: kallsyms is read and "
			"compressed for each session");
}

struct opd_kernel *opd_kernel_new(char const *vmlinux, char const *cache,
				  char *err, size_t errlen)
{
	struct opd_kernel *k = op_xcalloc(1, sizeof(*k));

	/* OProfile 1.x's name, so that its tools read the symbols */
	k->vmlinux_name = op_xstrdup(vmlinux ? vmlinux : OP_KALLSYMS_IMAGE);
	k->kallsyms = getenv(KALLSYMS_ENV);
	if (!k->kallsyms || !*k->kallsyms)
		k->kallsyms = KALLSYMS;
	else
		cache = NULL;  /* the cache holds /proc/kallsyms's copy */
	k->cache_fd = -1;
	if (cache)
		choose_cache(k, cache);
	(void)err;
	(void)errlen;
	load(k);
	return k;
}

/*
 * The cache key holds the module list, so a loaded module makes the next
 * lookup miss and kallsyms is read again; an unchanged list costs only
 * reading /proc/modules and the boot id.
 */
int opd_kernel_reload(struct opd_kernel *k, char *err, size_t errlen)
{
	(void)err;
	(void)errlen;
	load(k);
	return 0;
}

struct opd_kimage const *opd_kernel_find(struct opd_kernel const *kt, uint64_t pc)
{
	int lo = 0, hi = (int)kt->nr_sorted - 1;

	while (lo <= hi) {
		int mid = lo + (hi - lo) / 2;
		struct opd_kimage const *k = kt->sorted[mid];

		if (pc < k->start)
			hi = mid - 1;
		else if (pc >= k->end)
			lo = mid + 1;
		else
			return k;
	}
	return kt->no_vmlinux;
}

struct opd_kimage const *opd_kernel_by_id(struct opd_kernel const *k, int id)
{
	return id >= 0 && (size_t)id < k->nr_images ? k->images[id] : NULL;
}

int opd_kernel_nr_ids(struct opd_kernel const *k)
{
	return (int)k->nr_images;
}

/*
 * The session's kallsyms.gz: a hard link to the per-boot cached copy when
 * there is one (no copy at all), else a fresh compressed copy; none for
 * no-vmlinux, which kernel_images then lists as [0, 2^64-1).
 */
int opd_kernel_save(struct opd_kernel const *k, char const *dir, char *err,
		    size_t errlen)
{
	char cached[4200], cached_idx[4200];
	struct opd_kimage const *nv = k->no_vmlinux;
	/* no-vmlinux: no kallsyms worth saving */
	struct op_kernel_sources src = {
		.kallsyms = nv ? NULL : k->kallsyms,
		.kallsyms_gz = k->cache_dir && !nv ? cache_path(k->cache_dir,
			cached, sizeof(cached), OP_KCACHE_KALLSYMS) : NULL,
		.kallsyms_idx = k->cache_dir && !nv ? cache_path(k->cache_dir,
			cached_idx, sizeof(cached_idx), OP_KCACHE_KALLSYMS_INDEX) : NULL,
		.modules = MODULES,
	};
	struct op_kernel_image *v = op_xcalloc(k->nr_sorted + 1, sizeof(*v));
	size_t i, n = k->nr_sorted;
	int ret;

	for (i = 0; i < k->nr_sorted; i++)
		v[i] = (struct op_kernel_image){ .name = k->sorted[i]->name,
			.start = k->sorted[i]->start, .end = k->sorted[i]->end };
	if (nv)
		v[n++] = (struct op_kernel_image){ .name = nv->name,
			.start = nv->start, .end = nv->end };
	ret = op_session_kernel_write(dir, &src, v, n, err, errlen);
	free(v);
	return ret;
}

void opd_kernel_free(struct opd_kernel *k)
{
	size_t i;

	if (!k)
		return;
	for (i = 0; i < k->nr_images; i++) {
		free(k->images[i]->name);
		free(k->images[i]);
	}
	free(k->images);
	free(k->sorted);
	free(k->vmlinux_name);
	free(k->cache_dir);
	if (k->cache_fd >= 0)
		close(k->cache_fd);
	free(k);
}
