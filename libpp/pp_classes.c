/*
 * Classification of sample files into report columns (see pp_classes.h).
 * OProfile's arrange_profiles()/identify_classes(): the class key is the
 * file's event triple, thread and cpu with merged fields blanked; the
 * fields that differ between classes are the axis.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "op_util.h"
#include "pp_classes.h"

int pp_merge_parse(char const *text, struct pp_merge *m,
		   char *err, size_t errlen)
{
	struct pp_strlist l = { 0 };
	int rc = 0;

	if (pp_strlist_split(&l, text, err, errlen))
		return -1;
	for (size_t i = 0; i < l.n && !rc; i++) {
		char const *w = l.v[i];
		bool all = !strcmp(w, "all");

		if (all || !strcmp(w, "cpu"))
			m->cpu = true;
		if (all || !strcmp(w, "lib"))
			m->lib = true;
		if (all || !strcmp(w, "tid"))
			m->tid = true;
		if (all || !strcmp(w, "tgid"))
			m->tgid = m->tid = true;
		if (all || !strcmp(w, "unitmask"))
			m->unitmask = true;
		if (!all && strcmp(w, "cpu") && strcmp(w, "lib") &&
		    strcmp(w, "tid") && strcmp(w, "tgid") &&
		    strcmp(w, "unitmask")) {
			snprintf(err, errlen, "unknown --merge value '%s' "
				 "(cpu, lib, tid, tgid, unitmask, all)", w);
			rc = -1;
		}
	}
	pp_strlist_free(&l);
	return rc;
}

/* The class key of a file: its fields with the merged ones blanked. */
static struct pp_class key_of(struct op_parsed_name const *n,
			      struct pp_merge const *m)
{
	struct pp_class k = {
		.event = n->event_name,
		.count = n->count,
		.unit_mask = m->unitmask ? -1 : n->unit_mask,
		.tgid = m->tgid ? -1 : n->tgid,
		.tid = m->tid ? -1 : n->tid,
		.cpu = m->cpu ? -1 : n->cpu,
	};
	return k;
}

static int cmp_int(int a, int b)
{
	return a < b ? -1 : a > b;
}

static int cmp_key(struct pp_class const *a, struct pp_class const *b)
{
	int c = strcmp(a->event, b->event);

	if (!c)
		c = cmp_int(a->count, b->count);
	if (!c)
		c = cmp_int(a->unit_mask, b->unit_mask);
	if (!c)
		c = cmp_int(a->tgid, b->tgid);
	if (!c)
		c = cmp_int(a->tid, b->tid);
	if (!c)
		c = cmp_int(a->cpu, b->cpu);
	return c;
}

static int cmp_class(void const *a, void const *b)
{
	return cmp_key(a, b);
}

static size_t find_class(struct pp_classes const *c, struct pp_class const *k)
{
	for (size_t i = 0; i < c->n; i++)
		if (!cmp_key(&c->v[i], k))
			return i;
	return c->n;
}

/* Bit set of the axes that vary between classes. */
enum { V_EVENT = 1, V_UM = 2, V_TGID = 4, V_TID = 8, V_CPU = 16 };

static unsigned varying(struct pp_classes const *c)
{
	unsigned v = 0;

	for (size_t i = 1; i < c->n; i++) {
		struct pp_class const *a = &c->v[0], *b = &c->v[i];

		if (strcmp(a->event, b->event) || a->count != b->count)
			v |= V_EVENT;
		if (a->unit_mask != b->unit_mask)
			v |= V_UM;
		if (a->tgid != b->tgid)
			v |= V_TGID;
		if (a->tid != b->tid)
			v |= V_TID;
		if (a->cpu != b->cpu)
			v |= V_CPU;
	}
	if (v & V_EVENT)
		v &= ~V_UM;      /* the unit mask is part of the event */
	if (v & V_TID)
		v &= ~V_TGID;    /* threads of several processes: one axis */
	return v;
}

static enum pp_axis axis_of(unsigned v)
{
	switch (v) {
	case 0: return PP_AXIS_NONE;
	case V_EVENT: return PP_AXIS_EVENT;
	case V_UM: return PP_AXIS_UNIT_MASK;
	case V_TGID: return PP_AXIS_TGID;
	case V_TID: return PP_AXIS_TID;
	default: return PP_AXIS_CPU;
	}
}

static void too_many_axes(unsigned v, struct pp_classes const *c,
			  char *err, size_t errlen)
{
	static struct { unsigned bit; char const *name, *merge, *tag; } const
	ax[] = {
		{ V_EVENT, "event", NULL, "event:NAME count:N" },
		{ V_UM, "unit mask", "unitmask", "unit-mask:N" },
		{ V_TGID, "tgid", "tgid", "tgid:N" },
		{ V_TID, "tid", "tid", "tid:N" },
		{ V_CPU, "cpu", "cpu", "cpu:N" },
	};
	size_t len = 0;

	len += snprintf(err + len, errlen - len, "the selected sample files "
			"differ in more than one axis (%zu classes):", c->n);
	for (size_t i = 0; i < sizeof(ax) / sizeof(ax[0]) && len < errlen; i++)
		if (v & ax[i].bit)
			len += snprintf(err + len, errlen - len, " %s", ax[i].name);
	if (len < errlen)
		len += snprintf(err + len, errlen - len, "; a report shows one "
				"axis as columns: merge the others (");
	for (size_t i = 0, nr = 0; i < sizeof(ax) / sizeof(ax[0]) &&
	     len < errlen; i++)
		if ((v & ax[i].bit) && ax[i].merge)
			len += snprintf(err + len, errlen - len, "%s-m %s",
					nr++ ? ", " : "", ax[i].merge);
	if (len < errlen)
		len += snprintf(err + len, errlen - len, ") or narrow the "
				"specification (");
	for (size_t i = 0, nr = 0; i < sizeof(ax) / sizeof(ax[0]) &&
	     len < errlen; i++)
		if (v & ax[i].bit)
			len += snprintf(err + len, errlen - len, "%s%s",
					nr++ ? ", " : "", ax[i].tag);
	if (len < errlen)
		snprintf(err + len, errlen - len, ")");
}

static void set_label(struct pp_class *k, enum pp_axis axis, unsigned v)
{
	char buf[160];

	switch (axis) {
	case PP_AXIS_UNIT_MASK:
		snprintf(buf, sizeof(buf), "um:0x%x", k->unit_mask);
		break;
	case PP_AXIS_TGID:
		snprintf(buf, sizeof(buf), "tgid:%d", k->tgid);
		break;
	case PP_AXIS_TID:
		if (v & V_TGID)
			snprintf(buf, sizeof(buf), "tgid:%d tid:%d", k->tgid,
				 k->tid);
		else
			snprintf(buf, sizeof(buf), "tid:%d", k->tid);
		break;
	case PP_AXIS_CPU:
		snprintf(buf, sizeof(buf), "cpu:%d", k->cpu);
		break;
	default:
		snprintf(buf, sizeof(buf), "%s:%d", k->event, k->count);
		break;
	}
	k->label = op_xstrdup(buf);
}

/* Whether tgids differ between classes (shown next to tids). */
static unsigned tgids_vary(struct pp_classes const *c)
{
	for (size_t i = 1; i < c->n; i++)
		if (c->v[i].tgid != c->v[0].tgid)
			return V_TGID;
	return 0;
}

int pp_classify(struct pp_filelist *files, struct pp_merge const *merge,
		struct pp_classes *out, char *err, size_t errlen)
{
	unsigned v;

	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < files->n; i++) {
		struct pp_class k = key_of(&files->v[i].name, merge);

		if (find_class(out, &k) < out->n)
			continue;
		OP_ALLOC_GROW(out->v, out->n + 1, out->alloc);
		k.event = op_xstrdup(k.event);
		out->v[out->n++] = k;
	}
	if (out->n > 1)
		qsort(out->v, out->n, sizeof(*out->v), cmp_class);
	for (size_t i = 0; i < files->n; i++) {
		struct pp_class k = key_of(&files->v[i].name, merge);
		files->v[i].cls = (int)find_class(out, &k);
	}
	for (size_t i = 0; i < files->nr_cg; i++) {
		struct pp_class k = key_of(&files->cg[i].name, merge);
		size_t c = find_class(out, &k);

		files->cg[i].cls = c < out->n ? (int)c : -1;
	}
	v = varying(out);
	if (v & (v - 1)) {
		too_many_axes(v, out, err, errlen);
		pp_classes_free(out);
		return -1;
	}
	out->axis = axis_of(v);
	for (size_t i = 0; i < out->n; i++)
		set_label(&out->v[i], out->axis, tgids_vary(out));
	return 0;
}

void pp_classes_free(struct pp_classes *c)
{
	for (size_t i = 0; i < c->n; i++) {
		free(c->v[i].event);
		free(c->v[i].label);
	}
	free(c->v);
	memset(c, 0, sizeof(*c));
}

char *pp_class_describe(struct pp_classes const *c, size_t i)
{
	struct pp_class const *k = &c->v[i];

	switch (c->axis) {
	case PP_AXIS_TGID:
		return op_xasprintf("Processes with a thread group ID of %d",
				    k->tgid);
	case PP_AXIS_TID:
		return op_xasprintf("Processes with a thread ID of %d", k->tid);
	case PP_AXIS_CPU:
		return op_xasprintf("Samples on CPU %d", k->cpu);
	default:
		return op_xstrdup("");
	}
}
