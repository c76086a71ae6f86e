/*
 * Parse sample file names (see op_mangle.h) back into their parts:
 *
 *   [PREFIX/]A/{dep}/B[/{cg}/C]/EVENT.COUNT.UM.TGID.TID.CPU
 *
 * The pp tools select profiles by these parts alone, so a name that does
 * not parse exactly is refused with a message saying what is wrong and at
 * which byte offset; nothing is guessed. The parser accepts exactly what
 * op_mangle_filename() can write, plus two spellings that mean the same
 * file: OProfile's "{root}//path" and a leading PREFIX (the session
 * directory), so mangling a parsed name gives back the canonical name.
 *
 * How the format's ambiguities are resolved:
 *  - PREFIX: a name that does not start with '{' is a path; everything
 *    before its first "{root}" or "{kern}" component is ignored. A session
 *    directory with such a component must be stripped by the caller.
 *  - A path component that is exactly "{dep}" or "{cg}" would be read as a
 *    separator: names with two "{dep}" or two "{cg}" are refused (and the
 *    mangler refuses such paths), so the split is never a guess.
 *  - "{build:ID}" is a build tag (op_mangle.h): only as the last
 *    component of a {root} path of two or more; anywhere else, or with
 *    an ID that is not a build-id or 'm' and an mtime, it is refused.
 *  - Empty, "." and ".." components are refused: names are canonical, and
 *    ".." would step out of the session directory.
 *  - Numbers are in the canonical printf form: no '+', no leading zeros,
 *    no "-0"; TGID, TID and CPU are non-negative or "all".
 *  - An anonymous region's TGID is the file's TGID (OProfile prints both
 *    from one value), so they must agree when the TGID field is a number.
 *
 * In struct op_parsed_name, "{root}" names come back absolute ("/bin/ls"),
 * "{kern}" names as written; fields of a part the name does not have (C
 * without "{cg}", the anon fields of a non-anonymous image) are zero or
 * NULL, except that their TGIDs are -1. On error *out is zeroed.
 */
#include <inttypes.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "op_mangle.h"
#include "op_mangle_int.h"

#define QMAX OP_MANGLE_QUOTE_MAX
#define TRAILER_FORM "'EVENT.COUNT.UM.TGID.TID.CPU'"

/* One image (A, B or C) as parsed; copied into struct op_parsed_name. */
struct parsed_image {
	char *name;
	int is_kernel;
	int is_anon;
	uint64_t start, end;
	int tgid;
};

/* Where the parse is: the copy being cut up, for error offsets. */
struct parse_ctx {
	char *base;
	char *err;
	size_t errlen;
};

static size_t off(struct parse_ctx const *c, char const *p)
{
	return (size_t)(p - c->base);
}

static int comp_is(char const *s, size_t len, char const *lit)
{
	return len == strlen(lit) && !memcmp(s, lit, len);
}

static size_t comp_len(char const *s)
{
	char const *slash = strchr(s, '/');

	return slash ? (size_t)(slash - s) : strlen(s);
}

/* Canonical decimal digits ("0", or no leading zero) up to max. */
static int parse_digits(char const *s, size_t len, long long max,
			long long *v)
{
	long long n = 0;
	size_t i;

	if (!len || (s[0] == '0' && len > 1))
		return -1;
	for (i = 0; i < len; i++)
		if (s[i] < '0' || s[i] > '9')
			return -1;
	for (i = 0; i < len; i++) {
		n = n * 10 + (s[i] - '0');
		if (n > max)
			return -2;
	}
	*v = n;
	return 0;
}

/* COUNT and UM, as "%d" prints them. -1: not a number, -2: overflow. */
static int parse_int(char const *s, size_t len, int *v)
{
	long long n;
	int neg = len && s[0] == '-';
	int rc;

	rc = parse_digits(s + neg, len - neg, neg ? -(long long)INT_MIN :
			  INT_MAX, &n);
	if (rc)
		return rc;
	if (neg && !n)
		return -1;
	*v = (int)(neg ? -n : n);
	return 0;
}

/* TGID, TID, CPU: decimal >= 0, or "all" (-1) if allow_all. */
static int parse_id(char const *s, size_t len, int allow_all, int *v)
{
	long long n;
	int rc;

	if (allow_all && comp_is(s, len, "all")) {
		*v = -1;
		return 0;
	}
	rc = parse_digits(s, len, INT_MAX, &n);
	if (!rc)
		*v = (int)n;
	return rc;
}

/* "0x" and 1 to 16 lowercase hex digits, as "0x%llx" prints them. */
static int parse_hex(char const *s, size_t len, uint64_t *v)
{
	uint64_t n = 0;
	size_t i;

	if (len < 3 || s[0] != '0' || s[1] != 'x' || len > 18)
		return -1;
	if (s[2] == '0' && len > 3)
		return -1;
	for (i = 2; i < len; i++) {
		char ch = s[i];

		if (ch >= '0' && ch <= '9')
			n = n << 4 | (uint64_t)(ch - '0');
		else if (ch >= 'a' && ch <= 'f')
			n = n << 4 | (uint64_t)(ch - 'a' + 10);
		else
			return -1;
	}
	*v = n;
	return 0;
}

/* Split s[0..len) at '.' into at most max fields; returns the count. */
static int split_dots(char const *s, size_t len, char const **f,
		      size_t *flen, int max)
{
	int n = 0;
	size_t i, start = 0;

	for (i = 0; i <= len; i++) {
		if (i < len && s[i] != '.')
			continue;
		if (n < max) {
			f[n] = s + start;
			flen[n] = i - start;
		}
		n++;
		start = i + 1;
	}
	return n;
}

static char const *const trailer_field[6] = {
	"EVENT", "COUNT", "UM", "TGID", "TID", "CPU"
};

static int trailer_number(struct parse_ctx *c, char const *t, int i,
			  char const *f, size_t flen, int *v)
{
	int rc = i < 3 ? parse_int(f, flen, v) : parse_id(f, flen, 1, v);
	int q = (int)(flen < QMAX ? flen : QMAX);

	if (rc == -2)
		return op_mangle_err(c->err, c->errlen,
				     "'%.*s': %s '%.*s' at offset %zu does not fit in an int",
				     QMAX, t, trailer_field[i], q, f,
				     off(c, f));
	if (rc)
		return op_mangle_err(c->err, c->errlen,
				     "'%.*s': %s '%.*s' at offset %zu is not %s",
				     QMAX, t, trailer_field[i], q, f,
				     off(c, f), i < 3 ? "a decimal integer" :
				     "a decimal number or 'all'");
	return 0;
}

/* "EVENT.COUNT.UM.TGID.TID.CPU"; cuts t after EVENT. */
static int parse_trailer(struct parse_ctx *c, char *t,
			 struct op_parsed_name *out)
{
	int *num[6] = { NULL, &out->count, &out->unit_mask, &out->tgid,
			&out->tid, &out->cpu };
	char const *f[6];
	size_t flen[6];
	int i, n;

	n = split_dots(t, strlen(t), f, flen, 6);
	if (n != 6)
		return op_mangle_err(c->err, c->errlen,
				     "'%.*s': expected 6 dot-separated fields in "
				     TRAILER_FORM ", found %d", QMAX, t, n);
	for (i = 0; i < 6; i++) {
		if (!flen[i])
			return op_mangle_err(c->err, c->errlen,
					     "'%.*s': empty %s field at offset %zu",
					     QMAX, t, trailer_field[i],
					     off(c, f[i]));
		if (i && trailer_number(c, t, i, f[i], flen[i], num[i]))
			return -1;
	}
	t[flen[0]] = '\0';
	out->event_name = t;
	return 0;
}

/* Check each component of the path p (no leading '/'). */
static int check_path(struct parse_ctx *c, char const *role, char *p)
{
	char const *start = p;

	for (;;) {
		size_t len = comp_len(p);
		char const *why = op_mangle_bad_path_component(p, len,
				!p[len] && p != start);

		if (why)
			return op_mangle_err(c->err, c->errlen,
					     "%s in the %s at offset %zu", why,
					     role, off(c, p));
		if (!p[len])
			return 0;
		p += len + 1;
	}
}

/* s is "{root}[/]/PATH"; the name is "/PATH", the '/' is the separator's. */
static int parse_root(struct parse_ctx *c, char const *role, char *s,
		      struct parsed_image *img)
{
	char *path = s + strlen("{root}");

	if (path[0] == '/' && path[1] == '/')
		path++;
	if (path[0] != '/' || !path[1])
		return op_mangle_err(c->err, c->errlen,
				     "empty path after '{root}/' in the %s at offset %zu",
				     role, off(c, s));
	if (check_path(c, role, path + 1))
		return -1;
	img->name = path;
	return 0;
}

/* s is "{kern}/NAME": NAME is a single component. */
static int parse_kern(struct parse_ctx *c, char const *role, char *s,
		      struct parsed_image *img)
{
	char *name = s + strlen("{kern}/");
	size_t len;
	char const *why;

	if (s[strlen("{kern}")] != '/' || !*name)
		return op_mangle_err(c->err, c->errlen,
				     "empty kernel image name after '{kern}/' in the %s at offset %zu",
				     role, off(c, s));
	len = comp_len(name);
	if (name[len])
		return op_mangle_err(c->err, c->errlen,
				     "kernel image name '%.*s' in the %s at offset %zu has a '/'",
				     QMAX, name, role, off(c, name));
	why = op_mangle_bad_component(name, len);
	if (why)
		return op_mangle_err(c->err, c->errlen,
				     "%s in the %s at offset %zu", why, role,
				     off(c, name));
	img->name = name;
	img->is_kernel = 1;
	return 0;
}

/* r is "TGID.0xSTART.0xEND", one component. */
static int parse_region(struct parse_ctx *c, char const *role, char const *r,
			struct parsed_image *img)
{
	char const *f[3];
	size_t flen[3];
	size_t len = strlen(r);

	if (!len || memchr(r, '/', len) ||
	    split_dots(r, len, f, flen, 3) != 3 ||
	    parse_id(f[0], flen[0], 0, &img->tgid) ||
	    parse_hex(f[1], flen[1], &img->start) ||
	    parse_hex(f[2], flen[2], &img->end))
		return op_mangle_err(c->err, c->errlen,
				     "anonymous region '%.*s' in the %s at offset %zu is not 'TGID.0xSTART.0xEND'",
				     QMAX, r, role, off(c, r));
	if (img->start > img->end)
		return op_mangle_err(c->err, c->errlen,
				     "anonymous region start 0x%" PRIx64
				     " is above its end 0x%" PRIx64
				     " in the %s at offset %zu",
				     img->start, img->end, role, off(c, r));
	return 0;
}

/* s is "{anon:NAME}/TGID.0xSTART.0xEND"; mlen is the marker's length. */
static int parse_anon(struct parse_ctx *c, char const *role, char *s,
		      size_t mlen, struct parsed_image *img)
{
	char *name = s + strlen("{anon:");
	size_t nlen = mlen - strlen("{anon:}");
	char const *why = op_mangle_bad_anon_name(name, nlen);

	if (why)
		return op_mangle_err(c->err, c->errlen,
				     "%s '%.*s' in the %s at offset %zu", why,
				     (int)(nlen < QMAX ? nlen : QMAX), name,
				     role, off(c, s));
	if (!s[mlen])
		return op_mangle_err(c->err, c->errlen,
				     "anonymous region in the %s at offset %zu has no 'TGID.0xSTART.0xEND'",
				     role, off(c, s));
	if (parse_region(c, role, s + mlen + 1, img))
		return -1;
	name[nlen] = '\0';
	img->name = name;
	img->is_anon = 1;
	return 0;
}

static int parse_image(struct parse_ctx *c, char const *role, int allow_anon,
		       char *s, struct parsed_image *img)
{
	size_t mlen = comp_len(s);

	if (comp_is(s, mlen, "{root}"))
		return parse_root(c, role, s, img);
	if (comp_is(s, mlen, "{kern}"))
		return parse_kern(c, role, s, img);
	if (mlen >= strlen("{anon:}") && !strncmp(s, "{anon:", 6) &&
	    s[mlen - 1] == '}') {
		if (!allow_anon)
			return op_mangle_err(c->err, c->errlen,
					     "the %s at offset %zu cannot be an anonymous region",
					     role, off(c, s));
		return parse_anon(c, role, s, mlen, img);
	}
	return op_mangle_err(c->err, c->errlen,
			     "the %s at offset %zu starts with '%.*s', not '{root}', '{kern}' or '{anon:NAME}'",
			     role, off(c, s), (int)(mlen < QMAX ? mlen : QMAX),
			     s);
}

/* Find the "{dep}" and "{cg}" components of body; *cg may stay NULL. */
static int find_separators(struct parse_ctx *c, char *body, char **dep,
			   char **cg)
{
	char *p = body;

	*dep = *cg = NULL;
	for (;;) {
		size_t len = comp_len(p);

		if (comp_is(p, len, "{dep}")) {
			if (*dep)
				return op_mangle_err(c->err, c->errlen,
						     "second '{dep}' component at offset %zu",
						     off(c, p));
			*dep = p;
		} else if (comp_is(p, len, "{cg}")) {
			if (!*dep)
				return op_mangle_err(c->err, c->errlen,
						     "'{cg}' at offset %zu comes before '{dep}'",
						     off(c, p));
			if (*cg)
				return op_mangle_err(c->err, c->errlen,
						     "second '{cg}' component at offset %zu",
						     off(c, p));
			*cg = p;
		}
		if (!p[len])
			break;
		p += len + 1;
	}
	if (!*dep)
		return op_mangle_err(c->err, c->errlen,
				     "missing '{dep}' component");
	return 0;
}

/*
 * Cut body (A/{dep}/B[/{cg}/C]) into its images: *b and *c_img point to B
 * and C (NULL without a callgraph part), each a NUL-terminated string.
 */
static int split_images(struct parse_ctx *c, char *body, char **b,
			char **c_img)
{
	char *dep, *cg;

	if (find_separators(c, body, &dep, &cg))
		return -1;
	if (dep == body)
		return op_mangle_err(c->err, c->errlen,
				     "missing application image before '{dep}'");
	if (!dep[5] || dep + 6 == cg)
		return op_mangle_err(c->err, c->errlen,
				     "missing image after '{dep}' at offset %zu",
				     off(c, dep));
	if (cg && !cg[4])
		return op_mangle_err(c->err, c->errlen,
				     "missing callgraph image after '{cg}' at offset %zu",
				     off(c, cg));
	dep[-1] = '\0';
	*b = dep + 6;
	*c_img = NULL;
	if (cg) {
		cg[-1] = '\0';
		*c_img = cg + 5;
	}
	return 0;
}

/*
 * Where the name proper starts: 0 for a relative name (starting with '{'),
 * else after the prefix ending just before the first "{root}/" or "{kern}/"
 * component. A "{dep}" in the prefix means A has no marker at all.
 */
static int find_start(struct parse_ctx *c, char const *name, size_t *start)
{
	char const *p = name;

	if (name[0] == '{') {
		*start = 0;
		return 0;
	}
	while ((p = strchr(p, '/'))) {
		p++;
		if (!strncmp(p, "{root}/", 7) || !strncmp(p, "{kern}/", 7)) {
			*start = (size_t)(p - name);
			return 0;
		}
		if (!strncmp(p, "{dep}/", 6))
			return op_mangle_err(c->err, c->errlen,
					     "no '{root}/' or '{kern}/' application marker before '{dep}' at offset %zu",
					     (size_t)(p - name));
	}
	return op_mangle_err(c->err, c->errlen,
			     "no '{root}/' or '{kern}/' image marker found");
}

static void copy_image(struct parsed_image const *img, char **name,
		       int *is_kernel, int *is_anon, uint64_t *start,
		       uint64_t *end, int *tgid)
{
	*name = img->name;
	*is_kernel = img->is_kernel;
	if (is_anon) {
		*is_anon = img->is_anon;
		*start = img->start;
		*end = img->end;
		*tgid = img->is_anon ? img->tgid : -1;
	}
}

/* Both anonymous regions and the TGID field come from one TGID. */
static int check_tgids(struct parse_ctx *c, struct op_parsed_name const *p)
{
	int tgid = p->tgid;

	if (p->image_is_anon &&
	    OP_MANGLE_ANON_MERGED(p->anon_start, p->anon_end)) {
		if (p->anon_tgid)
			return op_mangle_err(c->err, c->errlen,
					     "merged anonymous region with TGID %d, not 0",
					     p->anon_tgid);
	} else if (p->image_is_anon) {
		if (tgid != -1 && p->anon_tgid != tgid)
			return op_mangle_err(c->err, c->errlen,
					     "anonymous region TGID %d differs from the TGID field %d",
					     p->anon_tgid, tgid);
		tgid = p->anon_tgid;
	}
	if (p->cg_is_anon &&
	    OP_MANGLE_ANON_MERGED(p->cg_anon_start, p->cg_anon_end)) {
		if (p->cg_anon_tgid)
			return op_mangle_err(c->err, c->errlen,
					     "merged callgraph anonymous region with TGID %d, not 0",
					     p->cg_anon_tgid);
	} else if (p->cg_is_anon && tgid != -1 && p->cg_anon_tgid != tgid)
		return op_mangle_err(c->err, c->errlen,
				     "callgraph anonymous region TGID %d differs from TGID %d",
				     p->cg_anon_tgid, tgid);
	return 0;
}

static int parse_images(struct parse_ctx *c, char *body,
			struct op_parsed_name *out)
{
	struct parsed_image a = { 0 }, b = { 0 }, cgi = { 0 };
	char *bs = NULL, *cs = NULL;

	if (split_images(c, body, &bs, &cs))
		return -1;
	if (parse_image(c, "application", 0, body, &a) ||
	    parse_image(c, "image", 1, bs, &b) ||
	    (cs && parse_image(c, "callgraph image", 1, cs, &cgi)))
		return -1;
	copy_image(&a, &out->app_name, &out->app_is_kernel, NULL, NULL, NULL,
		   NULL);
	copy_image(&b, &out->image_name, &out->image_is_kernel,
		   &out->image_is_anon, &out->anon_start, &out->anon_end,
		   &out->anon_tgid);
	out->is_callgraph = cs != NULL;
	copy_image(&cgi, &out->cg_image_name, &out->cg_is_kernel,
		   &out->cg_is_anon, &out->cg_anon_start, &out->cg_anon_end,
		   &out->cg_anon_tgid);
	return check_tgids(c, out);
}

static int parse_copy(struct parse_ctx *c, size_t start,
		      struct op_parsed_name *out)
{
	char *body = c->base + start;
	char *slash = strrchr(body, '/');

	if (!slash)
		return op_mangle_err(c->err, c->errlen,
				     "missing '/' before the " TRAILER_FORM " trailer");
	if (!slash[1])
		return op_mangle_err(c->err, c->errlen,
				     "name ends with '/': missing the " TRAILER_FORM " trailer");
	*slash = '\0';
	if (parse_trailer(c, slash + 1, out))
		return -1;
	return parse_images(c, body, out);
}

int op_parse_filename(char const *name, struct op_parsed_name *out,
		      char *err, size_t errlen)
{
	struct parse_ctx c = { .err = err, .errlen = errlen };
	size_t start = 0;

	memset(out, 0, sizeof(*out));
	if (!name || !*name)
		return op_mangle_err(err, errlen, "empty name");
	if (find_start(&c, name, &start))
		return -1;
	c.base = strdup(name);
	if (!c.base)
		return op_mangle_err(err, errlen, "out of memory");
	if (parse_copy(&c, start, out)) {
		free(c.base);
		memset(out, 0, sizeof(*out));
		return -1;
	}
	out->storage = c.base;
	return 0;
}

int op_parse_image_name(char const *image, struct op_parsed_name *out,
			char *err, size_t errlen)
{
	/* the image as the B part of a sample file name of any event */
	static char const pre[] = "{kern}/x/{dep}/", post[] = "/E.1.0.all.all.all";
	size_t n = image ? strlen(image) : 0;
	char *full;
	int rc;

	memset(out, 0, sizeof(*out));
	if (!n)
		return op_mangle_err(err, errlen, "empty name");
	full = malloc(sizeof(pre) - 1 + n + sizeof(post));
	if (!full)
		return op_mangle_err(err, errlen, "out of memory");
	memcpy(full, pre, sizeof(pre) - 1);
	memcpy(full + sizeof(pre) - 1, image, n);
	memcpy(full + sizeof(pre) - 1 + n, post, sizeof(post));
	rc = op_parse_filename(full, out, err, errlen);
	free(full);
	return rc;
}

void op_parsed_name_free(struct op_parsed_name *p)
{
	free(p->storage);
	memset(p, 0, sizeof(*p));
}
