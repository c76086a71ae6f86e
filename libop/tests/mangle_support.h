/*
 * Helpers shared by the mangle unit tests and tests/fuzz/fuzz_mangled_name.c:
 * turning a parsed name back into mangle values, comparing parsed names,
 * checking that a parse describes given values, OProfile's spelling of a
 * name.
 * Test code only; everything is static so each test is one translation unit.
 */
#ifndef MANGLE_SUPPORT_H
#define MANGLE_SUPPORT_H

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "op_mangle.h"

/* The values that mangle to the canonical form of a parsed name. */
static inline void mangle_values_from_parsed(struct op_parsed_name const *p,
					     struct op_mangle_values *v)
{
	memset(v, 0, sizeof(*v));
	if (p->app_is_kernel || p->image_is_kernel || p->cg_is_kernel)
		v->flags |= OP_MANGLE_KERNEL;
	v->app_name = p->app_name;
	if (p->image_is_anon) {
		v->flags |= OP_MANGLE_ANON;
		v->anon_name = p->image_name;
		v->anon_start = p->anon_start;
		v->anon_end = p->anon_end;
	} else {
		v->image_name = p->image_name;
	}
	if (p->is_callgraph)
		v->flags |= OP_MANGLE_CALLGRAPH;
	if (p->cg_is_anon) {
		v->flags |= OP_MANGLE_CG_ANON;
		v->cg_anon_name = p->cg_image_name;
		v->cg_anon_start = p->cg_anon_start;
		v->cg_anon_end = p->cg_anon_end;
	} else {
		v->cg_image_name = p->cg_image_name;
	}
	v->event_name = p->event_name;
	v->count = p->count;
	v->unit_mask = p->unit_mask;
	v->flags |= p->tgid != -1 ? OP_MANGLE_TGID : 0;
	v->flags |= p->tid != -1 ? OP_MANGLE_TID : 0;
	v->flags |= p->cpu != -1 ? OP_MANGLE_CPU : 0;
	/* one TGID feeds both the TGID field and the anon regions */
	/* (the merged region's 0 is no owner: an owned region names it) */
	v->tgid = p->tgid != -1 ? p->tgid :
		  p->image_is_anon && (p->anon_tgid || !p->cg_is_anon) ?
		  p->anon_tgid :
		  p->cg_is_anon ? p->cg_anon_tgid : -1;
	v->tid = p->tid;
	v->cpu = p->cpu;
}

static inline int mangle_str_eq(char const *a, char const *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}

static inline int mangle_fail(char *why, size_t len, char const *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static inline int mangle_fail(char *why, size_t len, char const *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, len, fmt, ap);
	va_end(ap);
	return 0;
}

static inline int mangle_cmp_str(char const *field, char const *a,
				 char const *b, char *why, size_t len)
{
	if (mangle_str_eq(a, b))
		return 1;
	return mangle_fail(why, len, "%s: '%s' != '%s'", field,
			   a ? a : "(null)", b ? b : "(null)");
}

static inline int mangle_cmp_int(char const *field, long long a, long long b,
				 char *why, size_t len)
{
	if (a == b)
		return 1;
	return mangle_fail(why, len, "%s: %lld != %lld", field, a, b);
}

static inline int mangle_cmp_u64(char const *field, unsigned long long a,
				 unsigned long long b, char *why, size_t len)
{
	if (a == b)
		return 1;
	return mangle_fail(why, len, "%s: 0x%llx != 0x%llx", field, a, b);
}

/* 1 if the two parses are field for field equal, else 0 and why. */
static inline int mangle_parsed_equal(struct op_parsed_name const *a,
				      struct op_parsed_name const *b,
				      char *why, size_t len)
{
/* Compare one field of a and b by its name. */
#define SAME_STR(f) mangle_cmp_str(#f, a->f, b->f, why, len)
#define SAME_INT(f) mangle_cmp_int(#f, a->f, b->f, why, len)
#define SAME_U64(f) mangle_cmp_u64(#f, a->f, b->f, why, len)
	return SAME_STR(app_name) &&
	       SAME_INT(app_is_kernel) &&
	       SAME_STR(image_name) &&
	       SAME_INT(image_is_kernel) &&
	       SAME_INT(image_is_anon) &&
	       SAME_U64(anon_start) &&
	       SAME_U64(anon_end) &&
	       SAME_INT(anon_tgid) &&
	       SAME_INT(is_callgraph) &&
	       SAME_STR(cg_image_name) &&
	       SAME_INT(cg_is_kernel) &&
	       SAME_INT(cg_is_anon) &&
	       SAME_U64(cg_anon_start) &&
	       SAME_U64(cg_anon_end) &&
	       SAME_INT(cg_anon_tgid) &&
	       SAME_STR(event_name) &&
	       SAME_INT(count) &&
	       SAME_INT(unit_mask) &&
	       SAME_INT(tgid) &&
	       SAME_INT(tid) &&
	       SAME_INT(cpu);
#undef SAME_STR
#undef SAME_INT
#undef SAME_U64
}

/*
 * The parse we expect for v: "{root}" names come back absolute ("bar" and
 * "/bar" both mangle to "{root}/bar" and parse as "/bar"); "all" is -1.
 */
static inline void mangle_expected_parse(struct op_mangle_values const *v,
					 struct op_parsed_name *p,
					 char names[3][4096])
{
	char const *in[3] = { v->app_name, v->image_name, v->cg_image_name };
	int *kern[3] = { &p->app_is_kernel, &p->image_is_kernel,
			 &p->cg_is_kernel };
	char **out[3] = { &p->app_name, &p->image_name, &p->cg_image_name };
	int i;

	memset(p, 0, sizeof(*p));
	for (i = 0; i < 3; i++) {
		if (!in[i])
			continue;
		*kern[i] = (v->flags & OP_MANGLE_KERNEL) && !strchr(in[i], '/');
		snprintf(names[i], 4096, "%s%s",
			 *kern[i] || in[i][0] == '/' ? "" : "/", in[i]);
		*out[i] = names[i];
	}
	p->anon_tgid = p->cg_anon_tgid = -1;
	if (v->flags & OP_MANGLE_ANON) {
		p->image_name = (char *)v->anon_name;
		p->image_is_kernel = 0;
		p->image_is_anon = 1;
		p->anon_start = v->anon_start;
		p->anon_end = v->anon_end;
		p->anon_tgid = OP_MANGLE_ANON_MERGED(v->anon_start,
						     v->anon_end) ? 0 : v->tgid;
	}
	p->is_callgraph = !!(v->flags & OP_MANGLE_CALLGRAPH);
	if (!p->is_callgraph) {
		p->cg_image_name = NULL;
		p->cg_is_kernel = 0;
	} else if (v->flags & OP_MANGLE_CG_ANON) {
		p->cg_image_name = (char *)v->cg_anon_name;
		p->cg_is_kernel = 0;
		p->cg_is_anon = 1;
		p->cg_anon_start = v->cg_anon_start;
		p->cg_anon_end = v->cg_anon_end;
		p->cg_anon_tgid = OP_MANGLE_ANON_MERGED(v->cg_anon_start,
							v->cg_anon_end) ? 0 :
				  v->tgid;
	}
	p->event_name = (char *)v->event_name;
	p->count = v->count;
	p->unit_mask = v->unit_mask;
	p->tgid = v->flags & OP_MANGLE_TGID ? v->tgid : -1;
	p->tid = v->flags & OP_MANGLE_TID ? v->tid : -1;
	p->cpu = v->flags & OP_MANGLE_CPU ? v->cpu : -1;
}

/* 1 if p is what parsing the mangled form of v must give, else 0 and why. */
static inline int mangle_parse_matches(struct op_mangle_values const *v,
				       struct op_parsed_name const *p,
				       char *why, size_t len)
{
	static char names[3][4096];
	struct op_parsed_name want;

	mangle_expected_parse(v, &want, names);
	return mangle_parsed_equal(&want, p, why, len);
}

/*
 * OProfile's own spelling of a name: it writes "{root}/" followed by the
 * absolute path, so each "{root}/" marker (never one inside a path) is
 * followed by a second '/'. The parser must accept both spellings.
 */
static inline void oprofile_spelling(char const *name, char *out, size_t len)
{
	size_t o = 0;
	char const *p;

	for (p = name; *p && o + 2 < len; p++) {
		int at_marker = p == name ||
			(p - name >= 7 && !strncmp(p - 7, "/{dep}/", 7)) ||
			(p - name >= 6 && !strncmp(p - 6, "/{cg}/", 6));

		out[o++] = *p;
		if (at_marker && !strncmp(p, "{root}/", 7)) {
			memcpy(out + o, "root}/", 6);
			o += 6;
			out[o++] = '/';
			p += 6;
		}
	}
	out[o] = '\0';
}

#endif /* MANGLE_SUPPORT_H */
