/*
 * Build sample file names exactly as OProfile 1.x does (see op_mangle.h):
 *
 *   A/{dep}/B[/{cg}/C]/EVENT.COUNT.UM.TGID.TID.CPU
 *
 * The names are the on-disk contract between the daemon, which creates the
 * files, and the pp tools, which find a profile's images and event from the
 * name alone. So the mangler refuses any value the parser could not give
 * back unchanged (see op_mangle_int.h) rather than write a name that reads
 * back as something else.
 *
 * One deliberate difference from OProfile: it writes "{root}" followed by
 * the absolute path, i.e. "{root}//bin/ls"; we write "{root}/bin/ls", the
 * same path on disk, and the parser accepts both.
 */
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "op_mangle.h"
#include "op_mangle_int.h"

#define KNOWN_FLAGS (OP_MANGLE_CPU | OP_MANGLE_TGID | OP_MANGLE_TID | \
		     OP_MANGLE_KERNEL | OP_MANGLE_CALLGRAPH | OP_MANGLE_ANON | \
		     OP_MANGLE_CG_ANON)

char const *op_mangle_bad_path_component(char const *s, size_t len,
					 int tag_ok)
{
	if (tag_ok && op_mangle_is_build_tag(s, len))
		return NULL;
	return op_mangle_bad_component(s, len);
}

int op_mangle_err(char *err, size_t errlen, char const *fmt, ...)
{
	va_list ap;

	if (!err || !errlen)
		return -1;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

static int is_str(char const *s, size_t len, char const *lit)
{
	return len == strlen(lit) && !memcmp(s, lit, len);
}

char const *op_mangle_bad_component(char const *s, size_t len)
{
	if (!len)
		return "empty path component";
	if (is_str(s, len, "."))
		return "'.' path component";
	if (is_str(s, len, ".."))
		return "'..' path component";
	if (is_str(s, len, "{dep}"))
		return "reserved '{dep}' path component";
	if (is_str(s, len, "{cg}"))
		return "reserved '{cg}' path component";
	if (len >= strlen(OP_BUILD_TAG_OPEN) &&
	    !memcmp(s, OP_BUILD_TAG_OPEN, strlen(OP_BUILD_TAG_OPEN)))
		return "reserved '{build:' path component (a build tag "
		       "comes only last, as '{build:ID}')";
	return NULL;
}

/* ID of a build tag: 2..128 lower-case hex digits, even (a build-id), or
 * 'm' and an mtime in canonical decimal. */
static int is_build_id_text(char const *s, size_t len)
{
	size_t i;

	if (len && s[0] == 'm') {
		if (len < 2 || len > 21 || (s[1] == '0' && len > 2))
			return 0;
		for (i = 1; i < len; i++)
			if (s[i] < '0' || s[i] > '9')
				return 0;
		return len < 21 || memcmp(s + 1, "18446744073709551615", 20) <= 0;
	}
	if (len < 2 || len > 128 || len % 2)
		return 0;
	for (i = 0; i < len; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return 0;
	return 1;
}

int op_mangle_is_build_tag(char const *s, size_t len)
{
	size_t open = strlen(OP_BUILD_TAG_OPEN);

	return len > open + 1 && !memcmp(s, OP_BUILD_TAG_OPEN, open) &&
	       s[len - 1] == '}' && is_build_id_text(s + open, len - open - 1);
}

size_t op_build_tag_split(char const *name, char const **id, size_t *idlen)
{
	char const *last = strrchr(name, '/');
	size_t len;

	if (!last || last == name)
		return 0;
	len = strlen(last + 1);
	if (!op_mangle_is_build_tag(last + 1, len))
		return 0;
	if (id)
		*id = last + 1 + strlen(OP_BUILD_TAG_OPEN);
	if (idlen)
		*idlen = len - strlen(OP_BUILD_TAG_OPEN) - 1;
	return (size_t)(last - name);
}

int op_build_tag_name(char const *path, char const *id, char *buf,
		      size_t buflen)
{
	int n;

	if (!is_build_id_text(id, strlen(id)))
		return -1;
	n = snprintf(buf, buflen, "%s/" OP_BUILD_TAG_OPEN "%s}", path, id);
	return n < 0 || (size_t)n >= buflen ? -1 : n;
}

char const *op_mangle_bad_anon_name(char const *s, size_t len)
{
	if (!len)
		return "empty anonymous region name";
	if (memchr(s, '/', len))
		return "'/' in anonymous region name";
	if (memchr(s, '}', len))
		return "'}' in anonymous region name";
	if (len > OP_MANGLE_ANON_NAME_MAX)
		return "anonymous region name longer than a file name may be";
	return NULL;
}

/* A name is written as "{kern}/NAME" only if this holds. */
static int is_kern_name(unsigned flags, char const *name)
{
	return (flags & OP_MANGLE_KERNEL) && !strchr(name, '/');
}

/* Check every '/'-separated component of path (no leading '/'). */
static char const *bad_path(char const *path)
{
	char const *start = path, *why;

	for (;;) {
		char const *slash = strchr(path, '/');
		size_t len = slash ? (size_t)(slash - path) : strlen(path);

		why = op_mangle_bad_path_component(path, len,
						   !slash && path != start);
		if (why || !slash)
			return why;
		path = slash + 1;
	}
}

static int check_image_name(unsigned flags, char const *role,
			    char const *name, char *err, size_t errlen)
{
	char const *why;

	if (!name || !*name)
		return op_mangle_err(err, errlen, "missing %s name", role);
	if (is_kern_name(flags, name))
		why = op_mangle_bad_component(name, strlen(name));
	else
		why = bad_path(name + (name[0] == '/'));
	if (why)
		return op_mangle_err(err, errlen, "%s in the %s name '%.*s'",
				     why, role, OP_MANGLE_QUOTE_MAX, name);
	return 0;
}

static int check_anon(char const *role, char const *name, uint64_t start,
		      uint64_t end, int tgid, char *err, size_t errlen)
{
	char const *why;

	if (!name)
		return op_mangle_err(err, errlen,
				     "missing anonymous region name for the %s",
				     role);
	why = op_mangle_bad_anon_name(name, strlen(name));
	if (why)
		return op_mangle_err(err, errlen, "%s '%.*s' for the %s", why,
				     OP_MANGLE_QUOTE_MAX, name, role);
	if (start > end)
		return op_mangle_err(err, errlen,
				     "anonymous region start 0x%" PRIx64
				     " is above its end 0x%" PRIx64 " in the %s",
				     start, end, role);
	if (tgid < 0 && !OP_MANGLE_ANON_MERGED(start, end))
		return op_mangle_err(err, errlen,
				     "negative TGID %d for the anonymous region in the %s",
				     tgid, role);
	return 0;
}

static int check_event(struct op_mangle_values const *v, char *err,
		       size_t errlen)
{
	char const *e = v->event_name;

	if (!e || !*e)
		return op_mangle_err(err, errlen, "missing event name");
	if (strchr(e, '.') || strchr(e, '/'))
		return op_mangle_err(err, errlen,
				     "'%c' in the event name '%.*s'",
				     strchr(e, '.') ? '.' : '/',
				     OP_MANGLE_QUOTE_MAX, e);
	return 0;
}

/* TGID, TID and CPU: "all" is the only way to say "none", not -1. */
static int check_ids(struct op_mangle_values const *v, char *err,
		     size_t errlen)
{
	if ((v->flags & OP_MANGLE_TGID) && v->tgid < 0)
		return op_mangle_err(err, errlen, "negative TGID %d", v->tgid);
	if ((v->flags & OP_MANGLE_TID) && v->tid < 0)
		return op_mangle_err(err, errlen, "negative TID %d", v->tid);
	if ((v->flags & OP_MANGLE_CPU) && v->cpu < 0)
		return op_mangle_err(err, errlen, "negative CPU %d", v->cpu);
	return 0;
}

static int check_values(struct op_mangle_values const *v, char *err,
			size_t errlen)
{
	unsigned f = v->flags;

	if (f & ~KNOWN_FLAGS)
		return op_mangle_err(err, errlen, "unknown flag bits 0x%x",
				     f & ~KNOWN_FLAGS);
	if ((f & OP_MANGLE_CG_ANON) && !(f & OP_MANGLE_CALLGRAPH))
		return op_mangle_err(err, errlen,
				     "OP_MANGLE_CG_ANON without OP_MANGLE_CALLGRAPH");
	if (check_image_name(f, "application", v->app_name, err, errlen))
		return -1;
	if (f & OP_MANGLE_ANON) {
		if (check_anon("image", v->anon_name, v->anon_start,
			       v->anon_end, v->tgid, err, errlen))
			return -1;
	} else if (check_image_name(f, "image", v->image_name, err, errlen)) {
		return -1;
	}
	if (f & OP_MANGLE_CG_ANON) {
		if (check_anon("callgraph image", v->cg_anon_name,
			       v->cg_anon_start, v->cg_anon_end, v->tgid,
			       err, errlen))
			return -1;
	} else if ((f & OP_MANGLE_CALLGRAPH) &&
		   check_image_name(f, "callgraph image", v->cg_image_name,
				    err, errlen)) {
		return -1;
	}
	if (check_event(v, err, errlen))
		return -1;
	return check_ids(v, err, errlen);
}

/*
 * Output that never overruns: len counts what the whole name needs even
 * past cap, so the caller can say how much room was missing.
 */
struct name_buf {
	char *buf;
	size_t cap;
	size_t len;
};

static void put(struct name_buf *nb, char const *s)
{
	size_t n = strlen(s);

	if (nb->len < nb->cap) {
		size_t room = nb->cap - nb->len;

		memcpy(nb->buf + nb->len, s, n < room ? n : room);
	}
	nb->len += n;
}

static void put_id(struct name_buf *nb, unsigned flags, unsigned flag, int id)
{
	char num[16];

	if (!(flags & flag)) {
		put(nb, "all");
		return;
	}
	snprintf(num, sizeof(num), "%d", id);
	put(nb, num);
}

static void put_image(struct name_buf *nb, unsigned flags, char const *name)
{
	if (is_kern_name(flags, name)) {
		put(nb, "{kern}/");
	} else {
		put(nb, "{root}/");
		name += name[0] == '/';
	}
	put(nb, name);
}

/* The TGID is OProfile's "%u": check_anon() has made sure it is >= 0.
 * The merged region (0x0-0x0, op_mangle.h) is 0.0x0.0x0 whatever the TGID:
 * it holds regions of many processes, and the TGID field says whose. */
static void put_anon(struct name_buf *nb, char const *name, int tgid,
		     uint64_t start, uint64_t end)
{
	char region[64];

	if (OP_MANGLE_ANON_MERGED(start, end))
		tgid = 0;

	put(nb, "{anon:");
	put(nb, name);
	put(nb, "}/");
	snprintf(region, sizeof(region), "%u.0x%" PRIx64 ".0x%" PRIx64,
		 (unsigned)tgid, start, end);
	put(nb, region);
}

static void put_trailer(struct name_buf *nb, struct op_mangle_values const *v)
{
	char num[32];

	put(nb, v->event_name);
	snprintf(num, sizeof(num), ".%d.%d.", v->count, v->unit_mask);
	put(nb, num);
	put_id(nb, v->flags, OP_MANGLE_TGID, v->tgid);
	put(nb, ".");
	put_id(nb, v->flags, OP_MANGLE_TID, v->tid);
	put(nb, ".");
	put_id(nb, v->flags, OP_MANGLE_CPU, v->cpu);
}

int op_mangle_filename(struct op_mangle_values const *v, char *buf,
		       size_t buflen, char *err, size_t errlen)
{
	struct name_buf nb = { .buf = buf, .cap = buf ? buflen : 0 };
	unsigned f = v->flags;

	if (check_values(v, err, errlen))
		return -1;
	put_image(&nb, f, v->app_name);
	put(&nb, "/{dep}/");
	if (f & OP_MANGLE_ANON)
		put_anon(&nb, v->anon_name, v->tgid, v->anon_start, v->anon_end);
	else
		put_image(&nb, f, v->image_name);
	if (f & OP_MANGLE_CALLGRAPH) {
		put(&nb, "/{cg}/");
		if (f & OP_MANGLE_CG_ANON)
			put_anon(&nb, v->cg_anon_name, v->tgid,
				 v->cg_anon_start, v->cg_anon_end);
		else
			put_image(&nb, f, v->cg_image_name);
	}
	put(&nb, "/");
	put_trailer(&nb, v);
	if (nb.len >= nb.cap || nb.len > INT_MAX) {
		if (nb.cap)
			buf[0] = '\0';
		return op_mangle_err(err, errlen,
				     "buffer too small: the name needs %zu bytes, have %zu",
				     nb.len + 1, nb.cap);
	}
	buf[nb.len] = '\0';
	return (int)nb.len;
}

/* The B part alone (the stack table names images by it: op_stacks.h). */
int op_mangle_image_name(struct op_mangle_values const *v, char *buf,
			 size_t buflen)
{
	struct name_buf nb = { .buf = buf, .cap = buflen };

	if (v->flags & OP_MANGLE_ANON)
		put_anon(&nb, v->anon_name, v->tgid, v->anon_start, v->anon_end);
	else
		put_image(&nb, v->flags, v->image_name);
	if (nb.len >= nb.cap) {
		if (nb.cap)
			buf[0] = '\0';
		return -1;
	}
	buf[nb.len] = '\0';
	return (int)nb.len;
}
