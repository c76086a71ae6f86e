/*
 * The images samples fall in, interned to small ids: binaries (by path and
 * mtime: each build of a binary is an image of its own),
 * anonymous regions (tgid, range, name) and kernel images. Sample files are
 * keyed by image ids, so the hot path compares integers, not strings.
 */
#ifndef OPD_IMAGE_H
#define OPD_IMAGE_H

#include <stdint.h>

enum opd_image_kind { OPD_IMAGE_FILE, OPD_IMAGE_ANON, OPD_IMAGE_KERNEL };

struct opd_image {
	enum opd_image_kind kind;
	char *name;          /* absolute path; anon region name; kernel image name */
	uint64_t start, end; /* anon region or kernel image range */
	int tgid;            /* anon: the owning process */
	uint64_t mtime;      /* binaries: st_mtime (0: unknown); else 0 */
	int id;
};

/* The image of the binary path as it is now: stats it each call (the
 * core calls it once per cookie, and a rebuilt binary has a new cookie). */
int opd_image_file(char const *path);
int opd_image_anon(int tgid, uint64_t start, uint64_t end, char const *name);
int opd_image_kernel(char const *name, uint64_t start, uint64_t end);

struct opd_image const *opd_image_get(int id);

void opd_image_exit(void);

#endif /* OPD_IMAGE_H */
