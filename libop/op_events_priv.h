/*
 * Private to the events/ loader (op_events.c, op_unit_masks.c): the state of
 * one load and the line-level helpers both file parsers share
 * (op_events_lex.c).
 */
#ifndef OP_EVENTS_PRIV_H
#define OP_EVENTS_PRIV_H

#include <stddef.h>
#include <stdint.h>

#include "op_events.h"

/* "counters:cpuid": every counter the cpu has (trimmed when allocating). */
#define OP_COUNTERS_CPUID 0xffffffffu
/* How deep include: may nest before we call it a cycle. */
#define OP_MAX_INCLUDE_DEPTH 8

/* The file being parsed, for "FILE:LINE: ..." messages. */
struct op_src {
	char const *path;
	unsigned line;
	int id;		/* distinct per file read during this load */
	int depth;	/* 0 for the cpu's own files, +1 per include: */
};

/*
 * One load of a cpu's files. Definitions from a shallower file win over
 * included ones of the same name; two at the same depth are an error.
 */
struct op_loader {
	struct op_event_set *set;
	char const *root;	/* events/ root, for include: */
	int max_counter;	/* counter indexes must be below this */
	int nr_files;		/* ids handed out to struct op_src */
	size_t ev_cap, um_cap;
	size_t *ev_um;		/* per event: index into set->unit_masks */
	int *ev_depth;		/* per event: op_src.depth that defined it */
	int *ev_file;		/* per event: op_src.id that defined it */
	int *um_depth;		/* per unit mask: depth, as above */
	int *um_file;		/* per unit mask: file id, as above */
	long um_open;		/* unit mask whose values are being read, or -1 */
	char *um_default;	/* its default: text, resolved at block end */
	unsigned um_open_line;	/* line of its name: header */
	char *err;
	size_t errlen;
};

/* Formats "PATH:LINE: ..." into the loader's err buffer; returns -1. */
int op_src_error(struct op_loader *l, struct op_src const *src,
		 char const *fmt, ...) __attribute__((format(printf, 3, 4)));

/* op_src_read's return when the file cannot be opened (err is filled). */
#define OP_SRC_NO_FILE (-2)

/*
 * Calls fn on each non-blank, non-comment line of src->path (newline
 * removed); src->path and src->depth are the caller's, id and line ours.
 */
int op_src_read(struct op_loader *l, struct op_src *src,
		int (*fn)(struct op_loader *, struct op_src *, char *));

/* "0x1f" (the 0x is required) to 32 bits; 0 or -1. */
int op_parse_hex(char const *text, uint32_t *out);
/* Letters, digits, '_' and '-' only (no '/', '.', ':' or ','). */
int op_valid_name(char const *name);
/* Splits off the next whitespace-separated token; NULL at end of line. */
char *op_next_token(char **line);

/* The directory of an "include:DIR" line, or NULL with err filled. */
char *op_include_dir(struct op_loader *l, struct op_src *src, char *line);

/* unit_masks: load the file (and its includes) into l->set; as op_src_read. */
int op_unit_masks_read(struct op_loader *l, char const *path, int depth);
/* Index of the unit mask named name ("a,b" merges a and b), or -1. */
long op_unit_mask_lookup(struct op_loader *l, struct op_src const *src,
			 char const *name);
void op_unit_mask_free(struct op_unit_mask *um);
/* Whether v is allowed: one listed value, or for a bitmask an OR of them. */
int op_unit_mask_valid(struct op_unit_mask const *um, uint32_t v);
/* "0x1, 0x2 or 0x4" style list of the values into buf, for messages. */
void op_unit_mask_list(struct op_unit_mask const *um, char *buf, size_t len);

#endif /* OP_EVENTS_PRIV_H */
