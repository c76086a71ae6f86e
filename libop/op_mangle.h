/*
 * Sample file names, built and parsed exactly as OProfile 1.x does:
 *
 *   A/{dep}/B[/{cg}/C]/EVENT.COUNT.UM.TGID.TID.CPU
 *
 * relative to a session directory (samples/current/). A is the application,
 * B the image the samples fell in (A == B when not separated), C the callee
 * image of a callgraph file. Each image is one of
 *   {root}/PATH            PATH absolute, written without its leading '/'
 *   {kern}/NAME            kernel image or module; only when NAME has no '/'
 *   {anon:NAME}/TGID.0xSTART.0xEND   anonymous region (B or C only)
 * COUNT and UM are decimal; TGID, TID and CPU are decimal or "all".
 *
 * Builds of one path: the first build of a binary that a session sees is
 * named by its path; a later, different build by PATH/{build:ID} (ID its
 * GNU build-id in lower-case hex, or for a binary without one 'm' and its
 * decimal mtime), so each build has a sample file of its own. The tag is
 * a component below a regular file, so no file has that path, and any
 * other component starting "{build:" is refused, as "{dep}" is. To
 * OProfile 1.x that is just a longer path (a binary it cannot find).
 */
#ifndef OP_MANGLE_H
#define OP_MANGLE_H

#include <stdint.h>
#include <stddef.h>

enum op_mangle_flags {
	OP_MANGLE_NONE = 0,
	OP_MANGLE_CPU = 1 << 0,       /* CPU field is a number */
	OP_MANGLE_TGID = 1 << 1,      /* TGID field is a number */
	OP_MANGLE_TID = 1 << 2,       /* TID field is a number */
	OP_MANGLE_KERNEL = 1 << 3,    /* names without '/' are {kern} */
	OP_MANGLE_CALLGRAPH = 1 << 4, /* has a {cg} part */
	OP_MANGLE_ANON = 1 << 5,      /* B is an anonymous region */
	OP_MANGLE_CG_ANON = 1 << 6,   /* C is an anonymous region */
};

/* One image of a name: a path (or kernel name), or an anon region. */
/*
 * The merged anonymous region: past the daemon's bound on regions, an app's
 * further regions share one, named {anon:NAME}/0.0x0.0x0 (no range: offsets
 * are from each region's own start). Its files carry the TGID field of the
 * samples they hold, which is not the region's 0.
 */
#define OP_MANGLE_ANON_MERGED(start, end) ((start) == 0 && (end) == 0)

/*
 * The longest anonymous region name: "{anon:NAME}" is one file name
 * component, which may not be longer than NAME_MAX (255) bytes. The
 * daemon cuts longer names (a memfd's may be 265 bytes) to this.
 */
#define OP_MANGLE_ANON_NAME_MAX (255 - 7)

struct op_mangle_values {
	unsigned flags;
	char const *app_name;     /* A */
	char const *image_name;   /* B: path, kernel name; unused when anon */
	char const *cg_image_name;/* C (callgraph only); unused when cg anon */
	char const *anon_name;    /* B's region name when OP_MANGLE_ANON */
	uint64_t anon_start, anon_end;        /* B's region */
	char const *cg_anon_name; /* C's region name when OP_MANGLE_CG_ANON */
	uint64_t cg_anon_start, cg_anon_end;  /* C's region */
	char const *event_name;
	int count;
	int unit_mask;
	int tgid;                 /* also the anon regions' TGID (not the merged one's) */
	int tid;
	int cpu;
};

/*
 * Build the relative name into buf. Returns the length, or -1 (with err set)
 * if a field cannot be represented (empty name, event name with '.' or '/',
 * anon name with '}' or '/', ...) or buf is too small.
 */
int op_mangle_filename(struct op_mangle_values const *v, char *buf,
		       size_t buflen, char *err, size_t errlen);

/*
 * The image part B alone, as op_mangle_filename writes it, from
 * v->flags (OP_MANGLE_KERNEL, OP_MANGLE_ANON), image_name or anon_name,
 * anon_start/end and tgid (unchecked). The length, or -1 if buf is too
 * small.
 */
int op_mangle_image_name(struct op_mangle_values const *v, char *buf,
			 size_t buflen);

#define OP_BUILD_TAG_OPEN "{build:"

/*
 * The build tag of an image name: when name (a {root} image as parsed,
 * "/usr/bin/foo/{build:ID}") ends in one, the length of its path
 * ("/usr/bin/foo") and the ID in *id, *idlen (not NUL-terminated); 0 when
 * it has none (the name is the path).
 */
size_t op_build_tag_split(char const *name, char const **id, size_t *idlen);

/* PATH/{build:ID} into buf: its length, or -1 (bad ID, buf too small). */
int op_build_tag_name(char const *path, char const *id, char *buf,
		      size_t buflen);

/* The parsed form of a name. Strings point into `storage`. */
struct op_parsed_name {
	char *app_name;           /* "/bin/ls" or kernel name */
	int app_is_kernel;
	char *image_name;         /* B as a path/kernel name, or the anon region
				   * name; a later build keeps its tag (above) */
	int image_is_kernel;
	int image_is_anon;
	uint64_t anon_start, anon_end; int anon_tgid;
	int is_callgraph;
	char *cg_image_name;
	int cg_is_kernel;
	int cg_is_anon;
	uint64_t cg_anon_start, cg_anon_end; int cg_anon_tgid;
	char *event_name;
	int count;
	int unit_mask;
	int tgid, tid, cpu;       /* -1 for "all" */
	char *storage;            /* owned; free with op_parsed_name_free */
};

/*
 * Parse a name: either relative (starting with "{root}", "{kern}") or a full
 * path, in which case everything before the first "{root}/" or "{kern}/" is
 * ignored. Names that do not parse exactly are refused: -1 with err saying
 * what is wrong; never a guess.
 */
int op_parse_filename(char const *name, struct op_parsed_name *out,
		      char *err, size_t errlen);
void op_parsed_name_free(struct op_parsed_name *p);

/*
 * Parse an image name alone, as a stack table keeps it ("{root}/bin/ls",
 * "{kern}/ext4", "{anon:...}/7.0x1000.0x2000"): its image fields in out,
 * by the sample file name rules, so both spellings mean one thing.
 */
int op_parse_image_name(char const *image, struct op_parsed_name *out,
			char *err, size_t errlen);

#endif /* OP_MANGLE_H */
