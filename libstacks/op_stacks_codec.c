/*
 * The stack table's bytes (doc/formats.md section 6): the record
 * checksum and header, and the file parsed into the table in memory,
 * every record checked. The names of the unwind stop reasons, which the
 * format stores as numbers, are here too.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "op_bytes.h"
#include "op_stacks_int.h"
#include "op_util.h"

char const *op_unwind_stop_name(uint32_t reason)
{
	static char const *const names[] = {
#define OP_UNWIND_NAME(e, v, n) [v] = #n,
		OP_UNWIND_STOPS(OP_UNWIND_NAME)
#undef OP_UNWIND_NAME
	};

	if (reason < OP_ARRAY_SIZE(names) && names[reason])
		return names[reason];
	return "unknown";
}

/*
 * Part of the file format (doc/formats.md section 6), so spelled out here
 * rather than borrowed from the hash map's hash, which may change: 32-bit
 * FNV-1a, then its high bits folded down once.
 */
uint32_t op_stacks_checksum(void const *payload, size_t len)
{
	unsigned char const *p = payload;
	uint32_t h = 2166136261u;

	while (len--)
		h = (h ^ *p++) * 16777619u;
	return h ^ (h >> 15);
}

/* Fill in the header of the record of len payload bytes at rec. */
void op_stacks_seal(unsigned char *rec, size_t len)
{
	op_put32(rec, (uint32_t)len);
	op_put32(rec + 4, op_stacks_checksum(rec + REC_HEADER, len));
}

/* Whether the table already names an image name (len bytes, no NUL). */
static bool image_named(struct table const *t, char const *name,
			size_t len)
{
	char *n = op_xmalloc(len + 1);
	bool found;

	memcpy(n, name, len);
	n[len] = 0;
	found = op_stacks_table_find_image(t, n) != NULL;
	free(n);
	return found;
}

static int bad_record(struct table const *t, size_t off, char const *what)
{
	op_error("%s: record at byte %zu: %s", t->path, off, what);
	return -EINVAL;
}

static bool lower_hex(unsigned char const *p, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (!((p[i] >= '0' && p[i] <= '9') || (p[i] >= 'a' && p[i] <= 'f')))
			return false;
	return len % 2 == 0;
}

static int parse_image(struct table *t, unsigned char const *p, size_t len,
		       size_t off)
{
	uint32_t index, nlen, blen;

	if (len < IMAGE_FIXED)
		return bad_record(t, off, "image record too short");
	index = op_get32(p + 4);
	nlen = op_get32(p + 8);
	blen = op_get32(p + 12);
	if (index != t->nimages)
		return bad_record(t, off, "image index out of sequence");
	if (!nlen || nlen > NAME_MAX_BYTES || blen > BUILD_ID_MAX_BYTES ||
	    len != IMAGE_FIXED + (size_t)nlen + blen)
		return bad_record(t, off, "bad image name or build-id length");
	if (memchr(p + IMAGE_FIXED, 0, nlen + blen))
		return bad_record(t, off, "NUL byte in an image name");
	/* reports put a build-id in paths (binaries/ID, .build-id/) */
	if (blen && !lower_hex(p + IMAGE_FIXED + nlen, blen))
		return bad_record(t, off, "build-id not in lower-case hex");
	if (image_named(t, (char const *)p + IMAGE_FIXED, nlen))
		return bad_record(t, off, "image named twice");
	op_stacks_table_add_image(t, (char const *)p + IMAGE_FIXED, nlen,
			(char const *)p + IMAGE_FIXED + nlen, blen);
	return 0;
}

static int parse_node(struct table *t, unsigned char const *p, size_t len,
		      size_t off)
{
	uint32_t parent, image;

	if (len != NODE_BYTES)
		return bad_record(t, off, "frame record of the wrong size");
	parent = op_get32(p + 4);
	image = op_get32(p + 8);
	if (parent > t->nnodes)
		return bad_record(t, off, "frame's caller not in the table");
	if (image >= t->nimages)
		return bad_record(t, off, "frame image not in the table");
	op_stacks_table_add_node(t, parent, image, op_get64(p + 12));
	return 0;
}

static int parse_stack(struct table *t, unsigned char const *p, size_t len,
		       size_t off)
{
	struct op_stack s;
	struct op_stack_frame *frames;
	uint32_t i, node;

	if (len != STACK_BYTES)
		return bad_record(t, off, "stack record of the wrong size");
	s.tgid = op_get32(p + 4);
	s.id = op_get64(p + 8);
	s.app = op_get32(p + 16);
	s.stop = op_get32(p + 20);
	s.nframes = op_get32(p + 24);
	node = op_get32(p + 28);
	if (s.id != t->nstacks + 1)
		return bad_record(t, off, "stack id out of sequence");
	if (s.nframes > OP_STACKS_MAX_FRAMES || node > t->nnodes)
		return bad_record(t, off, "bad number of frames or leaf frame");
	if (s.app >= t->nimages)
		return bad_record(t, off, "application image not in the table");
	frames = op_xcalloc(s.nframes ? s.nframes : 1, sizeof(*frames));
	/* leaf first: the leaf's node, then its callers' */
	for (i = 0; i < s.nframes && node; i++) {
		struct node const *n = t->nodes[node - 1];

		frames[i].image = n->image;
		frames[i].offset = n->offset;
		node = n->parent;
	}
	if (i != s.nframes || node) {
		free(frames);
		return bad_record(t, off, "its frames are not nframes long");
	}
	s.frames = frames;
	op_stacks_table_add_stack(t, &s, frames);
	return 0;
}

/*
 * Parse the table file's bytes. A record that is cut short or whose
 * checksum does not match ends the table (a torn append); a whole record
 * that makes no sense is an error naming the file.
 */
static int table_parse(struct table *t, unsigned char const *buf, size_t len)
{
	size_t off = TABLE_HEADER;

	if (len < TABLE_HEADER || memcmp(buf, TABLE_MAGIC, 8)) {
		op_error("%s: not a stack table (bad magic)", t->path);
		return -EINVAL;
	}
	if (op_get32(buf + 8) != TABLE_VERSION) {
		op_error("%s: stack table version %u, this build reads %u",
			 t->path, op_get32(buf + 8), TABLE_VERSION);
		return -EINVAL;
	}
	while (len - off >= REC_HEADER) {
		uint32_t rlen = op_get32(buf + off);
		unsigned char const *p = buf + off + REC_HEADER;
		int ret;

		if (rlen > len - off - REC_HEADER || rlen < 4 ||
		    op_get32(buf + off + 4) != op_stacks_checksum(p, rlen))
			break;
		if (op_get32(p) == REC_IMAGE)
			ret = parse_image(t, p, rlen, off);
		else if (op_get32(p) == REC_STACK)
			ret = parse_stack(t, p, rlen, off);
		else if (op_get32(p) == REC_NODE)
			ret = parse_node(t, p, rlen, off);
		else
			ret = bad_record(t, off, "unknown record type");
		if (ret)
			return ret;
		off += REC_HEADER + rlen;
	}
	t->good_len = off;
	return 0;
}

int op_stacks_table_load(struct table *t)
{
	char err[1024];
	size_t len;
	char *buf = op_read_file(t->path, TABLE_MAX_BYTES, &len, err,
				 sizeof(err));
	int ret;

	if (!buf) {
		ret = -errno;
		if (ret != -ENOENT)
			op_error("%s", err);
		return ret;
	}
	ret = table_parse(t, (unsigned char *)buf, len);
	free(buf);
	return ret;
}
