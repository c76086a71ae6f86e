/*
 * libdb: the mmap'ed, hashed sample file ("odb"), byte-compatible with
 * OProfile 1.x. A file is
 *
 *   [ caller's header: header_size bytes ]   (struct opd_header, 72 bytes)
 *   [ struct odb_descr: 32 bytes          ]
 *   [ node array: size x 16 bytes          ]   node 0 is never used
 *   [ hash table: size x 4 bytes           ]   u32 node indexes, 0 = empty
 *
 * size is a power of two (128 in a new file, doubled on growth);
 * current_size is the number of used nodes + 1. The bucket of a key is
 *   t = (u32)((key >> 32) ^ key); bucket = (t ^ (t >> 8)) & (size - 1)
 * and chains are linked through node.next (0 ends a chain). New nodes are
 * linked at the head of their bucket. A new file with a 72-byte header is
 * 72 + 32 + 128 * 20 = 2664 bytes.
 *
 * Concurrency: one writer process, any number of readers, no locks. The
 * writer fills a node, links it, and only then publishes it by storing
 * current_size + 1 with release ordering; readers load current_size with
 * acquire ordering and visit nodes 1 .. current_size - 1 linearly, never
 * through the hash. Values are aligned u32 stores, so never torn. A reader
 * that finds the file grown under it remaps (odb_refresh) or gets a clean
 * error; it never reads past what it mapped.
 *
 * Every byte of a file is untrusted input: opening validates sizes, and
 * odb_check() walks every chain. Errors name the file and the fault.
 */
#ifndef ODB_H
#define ODB_H

#include <stddef.h>
#include <stdint.h>

typedef uint64_t odb_key_t;
typedef uint32_t odb_value_t;
typedef uint32_t odb_index_t;

struct odb_node {
	odb_key_t key;      /* offset in the image (or from<<32|to for {cg}) */
	odb_value_t value;  /* sample count; saturates at UINT32_MAX */
	odb_index_t next;   /* next node in this bucket, 0 ends the chain */
};

struct odb_descr {
	uint32_t size;          /* allocated nodes, a power of two */
	uint32_t current_size;  /* used nodes + 1 (node 0 unused) */
	int32_t padding[6];     /* zero in OProfile; see ODB_PAD_GROWING */
};

_Static_assert(sizeof(struct odb_node) == 16, "odb node is 16 bytes");
_Static_assert(sizeof(struct odb_descr) == 32, "odb descriptor is 32 bytes");

#define ODB_DEFAULT_NODES 128

/*
 * descr->padding[0] while the writer rebuilds the hash table after doubling
 * (OProfile ignores padding). Readers that see it treat chains as unusable;
 * a read-write open rebuilds the hash and clears it. "GROW" in ASCII.
 */
#define ODB_PAD_GROWING 0x47524f57

enum odb_mode { ODB_RDONLY, ODB_RDWR };

struct odb {
	char *path;
	int fd;
	enum odb_mode mode;
	size_t header_size;
	void *base;           /* the whole mapping */
	size_t map_size;      /* bytes mapped */
	struct odb_descr *descr;
	struct odb_node *nodes;
	odb_index_t *hash;
	uint64_t saturated;   /* adds that hit UINT32_MAX (counts not stored) */
	char err[512];        /* last error: "PATH: what is wrong" */
};

/* Results besides 0 and -errno. */
#define ODB_SATURATED 1   /* odb_add: the value saturated at UINT32_MAX */

/*
 * Open (ODB_RDWR creates the file, mode 0644, if needed and sizes a new one
 * to 128 nodes) or open read-only. header_size is the caller's header size
 * (sizeof(struct opd_header)). Returns 0 or -errno with db->err set; on
 * failure nothing needs closing.
 */
int odb_open(struct odb *db, char const *path, enum odb_mode mode,
	     size_t header_size);

/*
 * Open path read-write, creating it with the given header if it does not
 * exist. A new file appears complete or not at all: it is built unnamed
 * (O_TMPFILE) with its header and an empty table, then linked into place,
 * so a writer killed at any moment never leaves a half-made file. Where
 * O_TMPFILE is unsupported it falls back to odb_open's plain creation.
 */
int odb_create(struct odb *db, char const *path, void const *header,
	       size_t header_size);

/*
 * Complete a growth that a crash cut short in the file at path (section
 * 2.5 of doc/formats.md: doubled length with the old size field, or the
 * growth marker set), so that a strict reader (OProfile's odb_open wants
 * the length to match the size field) accepts it. Any other file is left
 * alone. 1 repaired, 0 nothing to do, or -errno with err set.
 */
int odb_settle(char const *path, size_t header_size, char *err,
	       size_t errlen);

/* The caller's header area at the start of the mapping. */
void *odb_get_header(struct odb *db);

/*
 * Add n to key's count, inserting the key if new (growing the file by
 * doubling when full). Returns 0, ODB_SATURATED when the count stopped at
 * UINT32_MAX (db->saturated counts such adds), or -errno with db->err set.
 */
int odb_add(struct odb *db, odb_key_t key, odb_value_t n);

/* Number of committed nodes (keys) a reader can see now. */
uint32_t odb_count(struct odb *db);

/*
 * Visit every committed node in file order. Stops and returns the first
 * non-zero value fn returns; otherwise returns 0.
 */
typedef int (*odb_visit_fn)(odb_key_t key, odb_value_t value, void *arg);
int odb_for_each(struct odb *db, odb_visit_fn fn, void *arg);

/*
 * If the file grew since it was mapped (by the writer, or for a writer by
 * another handle on the same file), remap it. Returns 0 (up to date),
 * -EAGAIN (growth in progress: try again shortly) or another -errno with
 * db->err set. odb_add refreshes by itself.
 */
int odb_refresh(struct odb *db);

/*
 * Structural check of the whole file: sizes, every chain index within
 * 1 .. current_size - 1, every node reachable from exactly its own bucket,
 * no cycles, no duplicate keys. 0 if sound, else -EINVAL with db->err
 * naming the fault.
 */
int odb_check(struct odb *db);

/* msync(MS_ASYNC) the mapping. 0 or -errno. */
int odb_sync(struct odb *db);

/* Unmap and close; safe on a db whose open failed or that is closed. */
void odb_close(struct odb *db);

/* The bucket function; part of the file format. */
static inline odb_index_t odb_hash(odb_key_t key, odb_index_t mask)
{
	uint32_t t = (uint32_t)((key >> 32) ^ key);
	return (t ^ (t >> 8)) & mask;
}

#endif /* ODB_H */
