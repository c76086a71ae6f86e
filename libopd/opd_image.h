/*
 * The images samples fall in, interned to small ids: binaries (by path and
 * build-id, else mtime: each build of a binary is an image of its own,
 * and a later build of a path than its first is named PATH/{build:ID} in
 * sample files, op_mangle.h),
 * anonymous regions (tgid, range, name) and kernel images. A binary's
 * build-id is read when it is first interned. Sample files are
 * keyed by image ids, so the hot path compares integers, not strings.
 * Each daemon core owns one table (struct opd_images). Images are
 * reference counted by what holds their ids (the core's cookies, the
 * sample file entries) and freed with the last reference; an id is never
 * given to another image.
 */
#ifndef OPD_IMAGE_H
#define OPD_IMAGE_H

#include <stddef.h>
#include <stdint.h>

#include "op_build_id.h"

enum opd_image_kind { OPD_IMAGE_FILE, OPD_IMAGE_ANON, OPD_IMAGE_KERNEL };

struct opd_image {
	enum opd_image_kind kind;
	char *name;          /* absolute path; anon region name; kernel image name */
	uint64_t start, end; /* anon region or kernel image range */
	int tgid;            /* anon: the owning process */
	uint64_t mtime;      /* binaries: st_mtime (0: unknown); else 0 */
	char build_id[OP_BUILD_ID_HEX_MAX];  /* binaries: hex, "" if none */
	struct op_segment segs[OP_SEGMENTS_MAX]; /* with a build-id: its */
	int nr_segs;                             /* loadable segments */
	char *root;          /* binaries read below another root (a process
			      * in another mount namespace): /proc/PID/root */
	char *tagged;        /* a later build of its path than the first:
			      * "PATH/{build:ID}"; NULL: the first */
	int id;
};

/* The name sample files (and session/build-ids) give an image. */
static inline char const *opd_image_sfname(struct opd_image const *img)
{
	return img->tagged ? img->tagged : img->name;
}

/*
 * Where the daemon reads a binary image: its name below its root (a
 * process's /proc/PID/root in another mount namespace). Free it.
 */
char *opd_image_path(struct opd_image const *img);

struct opd_images;

struct opd_images *opd_images_new(void);
void opd_images_free(struct opd_images *images);

/*
 * The image of the binary a process mapped at path, read below root
 * (/proc/PID/root for a process in another mount namespace; NULL: the
 * daemon's). build_id, n: the build-id the kernel read when the file was
 * mapped (ESC BUILD_ID; n 0: none given), which wins over the file's (it
 * may be gone or another build by now: then its mtime is 0 and it has no
 * segments). Without it, the file as it is now: by the build-id it has,
 * else by mtime, device and inode. The core calls it once per cookie,
 * and a replaced binary has a new cookie.
 */
int opd_image_binary(struct opd_images *images, char const *path,
		     char const *root, unsigned char const *build_id,
		     size_t n);
/* opd_image_binary without a build-id from the kernel. */
int opd_image_file_at(struct opd_images *images, char const *path,
		      char const *root);
int opd_image_file(struct opd_images *images, char const *path);
/*
 * A binary named name (a path no file has, e.g. the vDSO's) whose bytes
 * are in the file copy: its build-id and segments are read from there;
 * its mtime is 0.
 */
int opd_image_copy(struct opd_images *images, char const *name,
		   char const *copy);
int opd_image_anon(struct opd_images *images, int tgid, uint64_t start,
		   uint64_t end, char const *name);
/* The anonymous region's image if there is one already, else -1. */
int opd_image_anon_find(struct opd_images const *images, int tgid,
			uint64_t start, uint64_t end, char const *name);
int opd_image_kernel(struct opd_images *images, char const *name,
		     uint64_t start, uint64_t end);

/* The anonymous regions counted for app image id: the count after
 * adding add (the core's bound on regions per app). */
size_t opd_image_anon_count(struct opd_images *images, int id, size_t add);

/* How many ids were given (a new image has id nr - 1). */
size_t opd_images_nr(struct opd_images const *images);
/* How many images are live (not freed). */
size_t opd_images_live(struct opd_images const *images);

/*
 * Hold and let go of image id. A new image has no reference: whoever
 * keeps its id takes one. The last unref frees it (opd_image_get then
 * returns NULL); the same binary seen again is a new image with a new id,
 * and a path's first build gets its plain sample file name back.
 */
void opd_image_ref(struct opd_images *images, int id);
void opd_image_unref(struct opd_images *images, int id);

/*
 * A new session begins (a rotation, save or reset): its build-ids and
 * segments files list only the images recorded in it (opd_image_record),
 * and the plain names of freed first builds are free again (the session
 * has no file of theirs).
 */
void opd_images_new_session(struct opd_images *images);

/*
 * The session's record of the binaries' build-ids and their segments
 * (op_build_id.h), so a binary rebuilt after sampling is detected and
 * symbolised from the sampled build's debug file. Each line is in a
 * file once. Write both files in the session's metadata directory dir:
 * the lines of the images recorded in this session and, at the table's
 * first write (a daemon started again on a session that has samples),
 * the good lines the files had already (a torn or malformed line is left
 * out with a warning naming the file and line); after
 * opd_images_new_session, none of those. Images with no build-id have no
 * line. 0, or -1 with err.
 */
int opd_images_write_build_ids(struct opd_images *images, char const *dir,
			       char *err, size_t errlen);
/*
 * Image id has samples in this session: append its lines to the files
 * in dir, once a session. An image recorded while its build was unknown
 * has its line appended when it learns its build-id. -1 when a file
 * could not be written (said, naming it).
 */
int opd_image_record(struct opd_images *images, int id, char const *dir);

/* The image of id, or NULL. */
struct opd_image const *opd_image_get(struct opd_images const *images, int id);

#endif /* OPD_IMAGE_H */
