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
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <zlib.h>

#include "op_message.h"
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

/* Find _text (or _stext) and _etext in kallsyms. */
static int read_kernel_range(uint64_t *start, uint64_t *end,
			     char *err, size_t errlen)
{
	FILE *f = fopen(KALLSYMS, "r");
	char line[512];
	uint64_t text = 0, stext = 0, etext = 0;

	if (!f) {
		snprintf(err, errlen, "cannot open '%s': %s", KALLSYMS,
			 strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		uint64_t addr;
		char type, name[256];

		if (sscanf(line, "%" SCNx64 " %c %255s", &addr, &type, name) != 3)
			continue;
		if (!strcmp(name, "_text"))
			text = addr;
		else if (!strcmp(name, "_stext"))
			stext = addr;
		else if (!strcmp(name, "_etext"))
			etext = addr;
		if ((text || stext) && etext)
			break;
	}
	fclose(f);
	*start = text ? text : stext;
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

static int load(char *err, size_t errlen)
{
	uint64_t start, end;

	if (read_kernel_range(&start, &end, err, errlen))
		return -1;
	nr_sorted = 0;
	add_sorted(image_id(vmlinux_name, start, end));
	read_modules();
	clip_overlaps();
	return 0;
}

int opd_kernel_init(char const *vmlinux, char *err, size_t errlen)
{
	free(vmlinux_name);
	vmlinux_name = op_xstrdup(vmlinux ? vmlinux : "vmlinux");
	return load(err, errlen);
}

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

static int copy_file(char const *from, char const *to, char *err, size_t errlen)
{
	FILE *in = fopen(from, "r"), *out;
	char buf[65536];
	size_t n;

	if (!in) {
		snprintf(err, errlen, "cannot open '%s': %s", from, strerror(errno));
		return -1;
	}
	out = fopen(to, "w");
	if (!out) {
		snprintf(err, errlen, "cannot create '%s': %s", to, strerror(errno));
		fclose(in);
		return -1;
	}
	while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
		fwrite(buf, 1, n, out);
	fclose(in);
	if (fclose(out)) {
		snprintf(err, errlen, "cannot write '%s': %s", to, strerror(errno));
		return -1;
	}
	return 0;
}

/* kallsyms is ~5 MB of text that compresses ~6x: keep it gzipped. */
static int gzip_file(char const *from, char const *to, char *err, size_t errlen)
{
	FILE *in = fopen(from, "r");
	char buf[65536];
	gzFile out;
	size_t n;
	int rc = 0;

	if (!in) {
		snprintf(err, errlen, "cannot open '%s': %s", from, strerror(errno));
		return -1;
	}
	out = gzopen(to, "wb6");
	if (!out) {
		snprintf(err, errlen, "cannot create '%s': %s", to, strerror(errno));
		fclose(in);
		return -1;
	}
	while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
		if (gzwrite(out, buf, (unsigned)n) != (int)n)
			rc = -1;
	fclose(in);
	if (gzclose(out) != Z_OK || rc) {
		snprintf(err, errlen, "cannot write '%s'", to);
		return -1;
	}
	return 0;
}

int opd_kernel_save(char const *dir, char *err, size_t errlen)
{
	char path[4096];
	FILE *f;
	int i;

	snprintf(path, sizeof(path), "%s/kallsyms.gz", dir);
	if (gzip_file(KALLSYMS, path, err, errlen))
		return -1;
	snprintf(path, sizeof(path), "%s/modules", dir);
	/* A kernel built without module support has no /proc/modules. */
	if (access(MODULES, F_OK) == 0) {
		if (copy_file(MODULES, path, err, errlen))
			return -1;
	} else if (copy_file("/dev/null", path, err, errlen)) {
		return -1;
	}
	snprintf(path, sizeof(path), "%s/kernel_images", dir);
	f = fopen(path, "w");
	if (!f) {
		snprintf(err, errlen, "cannot create '%s': %s", path, strerror(errno));
		return -1;
	}
	for (i = 0; i < nr_sorted; i++)
		fprintf(f, "%s 0x%" PRIx64 " 0x%" PRIx64 "\n", sorted[i]->name,
			sorted[i]->start, sorted[i]->end);
	if (fclose(f)) {
		snprintf(err, errlen, "cannot write '%s': %s", path, strerror(errno));
		return -1;
	}
	return 0;
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
	images = NULL;
	sorted = NULL;
	vmlinux_name = NULL;
	nr_images = nr_sorted = 0;
}
