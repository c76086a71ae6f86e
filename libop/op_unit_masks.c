/*
 * The unit_masks file of an events/ directory: named sets of values that an
 * event's unit mask may take.
 *
 *   name:NAME type:mandatory|bitmask|exclusive default:0xVAL|VALUE-NAME
 *   <TAB>0xVAL description
 *   <TAB>0xVAL extra: VALUE-NAME description
 *   include:OTHER/CPU
 *
 * A block is checked when it ends (next header, include: or end of file):
 * it needs a value, its default must be valid for its type, and values and
 * value names must be distinct. "extra:" only introduces a value name here:
 * OProfile's extra bits (cmask, inv, edge, any) are refused, because our
 * event specs have nowhere to carry them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "op_events_priv.h"
#include "op_message.h"

static struct op_unit_mask *um_at(struct op_loader *l, long i)
{
	return &l->set->unit_masks[i];
}

static long um_find(struct op_loader *l, char const *name)
{
	size_t i;

	for (i = 0; i < l->set->nr_unit_masks; i++)
		if (!strcmp(l->set->unit_masks[i].name, name))
			return (long)i;
	return -1;
}

void op_unit_mask_free(struct op_unit_mask *um)
{
	size_t i;

	for (i = 0; i < um->nr_values; i++) {
		free(um->values[i].name);
		free(um->values[i].desc);
	}
	free(um->values);
	free(um->name);
	memset(um, 0, sizeof(*um));
}

/* Appends an empty unit mask; returns its index. */
static long um_push(struct op_loader *l, char const *name, int depth, int file)
{
	struct op_event_set *set = l->set;
	size_t n = set->nr_unit_masks;

	if (n == l->um_cap) {
		/* three parallel arrays: one capacity, grown together */
		l->um_cap = OP_ALLOC_NR(l->um_cap);
		set->unit_masks = op_xrealloc(set->unit_masks,
					      l->um_cap * sizeof(*set->unit_masks));
		l->um_depth = op_xrealloc(l->um_depth, l->um_cap * sizeof(int));
		l->um_file = op_xrealloc(l->um_file, l->um_cap * sizeof(int));
	}
	memset(&set->unit_masks[n], 0, sizeof(set->unit_masks[n]));
	set->unit_masks[n].name = op_xstrdup(name);
	l->um_depth[n] = depth;
	l->um_file[n] = file;
	set->nr_unit_masks = n + 1;
	return (long)n;
}

static void value_push(struct op_unit_mask *um, uint32_t v, char const *name,
		       char const *desc)
{
	struct op_unit_mask_value *val;

	OP_ALLOC_GROW(um->values, um->nr_values + 1, um->alloc_values);
	val = &um->values[um->nr_values++];
	val->value = v;
	val->name = name ? op_xstrdup(name) : NULL;
	val->desc = op_xstrdup(desc);
}

int op_unit_mask_valid(struct op_unit_mask const *um, uint32_t v)
{
	uint32_t covered = 0;
	size_t i;

	for (i = 0; i < um->nr_values; i++) {
		if (um->values[i].value == v)
			return 1;
		if ((um->values[i].value & v) == um->values[i].value)
			covered |= um->values[i].value;
	}
	return um->type == OP_UM_BITMASK && v && covered == v;
}

void op_unit_mask_list(struct op_unit_mask const *um, char *buf, size_t len)
{
	size_t i, used = 0;

	buf[0] = '\0';
	for (i = 0; i < um->nr_values && used < len; i++) {
		char const *sep = !i ? "" :
			i + 1 == um->nr_values ? (um->type == OP_UM_BITMASK ?
						   " and " : " or ") : ", ";
		int n = snprintf(buf + used, len - used, "%s0x%x", sep,
				 um->values[i].value);

		if (n < 0)
			break;
		used += (size_t)n;
	}
}

static int resolve_default(struct op_loader *l, struct op_src const *src,
			   struct op_unit_mask *um)
{
	char const *text = l->um_default;
	size_t i;

	if (op_parse_hex(text, &um->default_value)) {
		for (i = 0; i < um->nr_values; i++)
			if (um->values[i].name && !strcmp(um->values[i].name, text))
				break;
		if (i == um->nr_values)
			return op_src_error(l, src, "default '%s' of unit mask '%s' names no value of it",
					    text, um->name);
		um->default_value = um->values[i].value;
	}
	if (!op_unit_mask_valid(um, um->default_value))
		return op_src_error(l, src, "default 0x%x of unit mask '%s' is not one of its values",
				    um->default_value, um->name);
	return 0;
}

/* Keeps the shallower of the new (last) block and an older one named alike. */
static int settle_shadowing(struct op_loader *l, struct op_src const *src,
			    long cur)
{
	long old;

	for (old = 0; old < cur; old++)
		if (!strcmp(um_at(l, old)->name, um_at(l, cur)->name))
			break;
	if (old == cur)
		return 0;
	if (l->um_depth[old] == l->um_depth[cur])
		return op_src_error(l, src, l->um_file[old] == l->um_file[cur] ?
				    "unit mask '%s' defined twice" :
				    "unit mask '%s' also defined by another included file",
				    um_at(l, cur)->name);
	if (l->um_depth[cur] < l->um_depth[old]) {
		op_unit_mask_free(um_at(l, old));
		*um_at(l, old) = *um_at(l, cur);
		l->um_depth[old] = l->um_depth[cur];
		l->um_file[old] = l->um_file[cur];
	} else {
		op_unit_mask_free(um_at(l, cur));
	}
	l->set->nr_unit_masks--;
	return 0;
}

/* Ends the open block, if any: checks it and settles name clashes. */
static int close_block(struct op_loader *l, struct op_src const *where)
{
	struct op_src src = *where;
	long cur = l->um_open;
	int ret;

	if (cur < 0)
		return 0;
	l->um_open = -1;
	src.line = l->um_open_line;
	if (!um_at(l, cur)->nr_values)
		ret = op_src_error(l, &src, "unit mask '%s' has no values",
				   um_at(l, cur)->name);
	else
		ret = resolve_default(l, &src, um_at(l, cur));
	free(l->um_default);
	l->um_default = NULL;
	return ret ? ret : settle_shadowing(l, &src, cur);
}

static int parse_type(char const *text, enum op_um_type *type)
{
	if (!strcmp(text, "mandatory"))
		*type = OP_UM_MANDATORY;
	else if (!strcmp(text, "bitmask"))
		*type = OP_UM_BITMASK;
	else if (!strcmp(text, "exclusive"))
		*type = OP_UM_EXCLUSIVE;
	else
		return -1;
	return 0;
}

/* name:X type:T default:D, each once. */
static int parse_header(struct op_loader *l, struct op_src *src, char *line)
{
	static char const *const tags[] = { "name", "type", "default" };
	char *val[3] = { NULL, NULL, NULL };
	enum op_um_type type;
	char *tok;
	size_t i;

	while ((tok = op_next_token(&line))) {
		char *colon = strchr(tok, ':');

		if (!colon)
			return op_src_error(l, src, "bad token '%s': expected TAG:VALUE", tok);
		*colon = '\0';
		for (i = 0; i < 3 && strcmp(tok, tags[i]); i++)
			;
		if (i == 3)
			return op_src_error(l, src, "unknown tag '%s:'", tok);
		if (val[i])
			return op_src_error(l, src, "duplicate tag '%s:'", tok);
		val[i] = colon + 1;
	}
	for (i = 0; i < 3; i++)
		if (!val[i] || !*val[i])
			return op_src_error(l, src, "missing tag '%s:'", tags[i]);
	if (!op_valid_name(val[0]))
		return op_src_error(l, src, "bad unit mask name '%s': use letters, digits, '_' and '-'",
				    val[0]);
	if (parse_type(val[1], &type))
		return op_src_error(l, src, "bad type '%s': expected mandatory, bitmask or exclusive",
				    val[1]);
	l->um_open = um_push(l, val[0], src->depth, src->id);
	um_at(l, l->um_open)->type = type;
	l->um_default = op_xstrdup(val[2]);
	l->um_open_line = src->line;
	return 0;
}

static int check_new_value(struct op_loader *l, struct op_src *src,
			   struct op_unit_mask const *um, uint32_t v,
			   char const *name)
{
	size_t i;

	for (i = 0; i < um->nr_values; i++) {
		if (um->values[i].value == v)
			return op_src_error(l, src, "value 0x%x listed twice in unit mask '%s'",
					    v, um->name);
		if (name && um->values[i].name && !strcmp(name, um->values[i].name))
			return op_src_error(l, src, "value name '%s' used twice in unit mask '%s'",
					    name, um->name);
	}
	return 0;
}

/* <TAB>0xVAL [extra: NAME] description */
static int parse_value(struct op_loader *l, struct op_src *src, char *line)
{
	struct op_unit_mask *um;
	char *tok, *name = NULL;
	uint32_t v;

	if (l->um_open < 0)
		return op_src_error(l, src, "value line outside a 'name:' block");
	um = um_at(l, l->um_open);
	tok = op_next_token(&line);
	if (op_parse_hex(tok, &v))
		return op_src_error(l, src, "bad hex value '%s' in unit mask '%s'", tok, um->name);
	while (*line == ' ' || *line == '\t')
		line++;
	if (!strncmp(line, "extra:", 6)) {
		tok = op_next_token(&line);
		if (strcmp(tok, "extra:"))
			return op_src_error(l, src, "extra bits '%s' are not supported", tok + 6);
		name = op_next_token(&line);
		if (!name || !op_valid_name(name))
			return op_src_error(l, src, "bad value name '%s' after 'extra:'",
					    name ? name : "");
		while (*line == ' ' || *line == '\t')
			line++;
	}
	if (!*line)
		return op_src_error(l, src, "missing description for value 0x%x", v);
	if (check_new_value(l, src, um, v, name))
		return -1;
	value_push(um, v, name, line);
	return 0;
}

static int parse_line(struct op_loader *l, struct op_src *src, char *line)
{
	if (line[0] == '\t')
		return parse_value(l, src, line);
	if (line[0] == ' ')
		return op_src_error(l, src, "value lines must start with a TAB");
	if (close_block(l, src))
		return -1;
	if (!strncmp(line, "include:", 8)) {
		char *dir = op_include_dir(l, src, line);
		char path[4096];

		if (!dir)
			return -1;
		snprintf(path, sizeof(path), "%s/%s/unit_masks", l->root, dir);
		switch (op_unit_masks_read(l, path, src->depth + 1)) {
		case 0:
			return 0;
		case OP_SRC_NO_FILE:
			return op_src_error(l, src, "cannot include '%s': no unit_masks file under '%s'",
					    dir, l->root);
		default:
			return -1;
		}
	}
	return parse_header(l, src, line);
}

int op_unit_masks_read(struct op_loader *l, char const *path, int depth)
{
	struct op_src src = { path, 0, 0, depth };

	int ret;

	l->um_open = -1;
	ret = op_src_read(l, &src, parse_line);
	return ret ? ret : close_block(l, &src);
}

static int has_value(struct op_unit_mask const *um, uint32_t v)
{
	size_t i;

	for (i = 0; i < um->nr_values; i++)
		if (um->values[i].value == v)
			return 1;
	return 0;
}

/* A comma list "a,b" becomes a new unit mask holding both value lists. */
static long um_merge(struct op_loader *l, struct op_src const *src,
		     char const *list)
{
	char *copy = op_xstrdup(list), *part, *save = NULL;
	long merged = -1;

	for (part = strtok_r(copy, ",", &save); part;
	     part = strtok_r(NULL, ",", &save)) {
		long i = um_find(l, part);
		size_t k;

		if (i < 0) {
			op_src_error(l, src, "unknown unit mask '%s'", part);
			merged = -1;
			break;
		}
		if (merged < 0) {
			merged = um_push(l, list, -1, -1);
			um_at(l, merged)->type = um_at(l, i)->type;
			um_at(l, merged)->default_value = um_at(l, i)->default_value;
		}
		for (k = 0; k < um_at(l, i)->nr_values; k++) {
			struct op_unit_mask_value const *v = &um_at(l, i)->values[k];

			if (!has_value(um_at(l, merged), v->value))
				value_push(um_at(l, merged), v->value, v->name, v->desc);
		}
	}
	free(copy);
	return merged;
}

long op_unit_mask_lookup(struct op_loader *l, struct op_src const *src,
			 char const *name)
{
	long i = um_find(l, name);

	if (i >= 0)
		return i;
	if (strchr(name, ','))
		return um_merge(l, src, name);
	op_src_error(l, src, "unknown unit mask '%s' (not in unit_masks)", name);
	return -1;
}
