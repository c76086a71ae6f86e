/* Shared message output; see op_message.h. */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "op_escape.h"
#include "op_file.h"
#include "op_message.h"

static char const *progname = "oprofile";

static void default_sink(void *ctx, enum op_message_kind kind, char const *text);

static op_message_sink sink = default_sink;
static void *sink_ctx;

void op_set_progname(char const *name)
{
	char const *slash = strrchr(name, '/');
	progname = slash ? slash + 1 : name;
}

char const *op_progname(void)
{
	return progname;
}

char const *op_message_kind_name(enum op_message_kind kind)
{
	static char const *const names[] = {
		[OP_MSG_FATAL] = "fatal", [OP_MSG_ERROR] = "error",
		[OP_MSG_WARN] = "warning", [OP_MSG_INFO] = "",
		[OP_MSG_HINT] = "hint",
	};

	return kind <= OP_MSG_HINT ? names[kind] : "";
}

void op_message_write(FILE *out, char const *stamp, enum op_message_kind kind,
		      char const *text)
{
	/* a hint continues the message above it: no program name */
	if (kind == OP_MSG_HINT)
		fprintf(out, "hint: %s\n", text);
	else if (kind == OP_MSG_INFO)
		fprintf(out, "%s: %s%s%s\n", progname, stamp ? stamp : "",
			stamp ? " " : "", text);
	else
		fprintf(out, "%s: %s%s%s: %s\n", progname, stamp ? stamp : "",
			stamp ? " " : "", op_message_kind_name(kind), text);
}

static void default_sink(void *ctx, enum op_message_kind kind, char const *text)
{
	(void)ctx;
	op_message_write(stderr, NULL, kind, text);
}

void op_set_message_sink(op_message_sink new_sink, void *ctx)
{
	sink = new_sink ? new_sink : default_sink;
	sink_ctx = new_sink ? ctx : NULL;
}

/* Format into a buffer (long messages are cut) and hand it to the sink. */
static void emit(enum op_message_kind kind, char const *suffix,
		 char const *fmt, va_list ap)
{
	char text[4096];
	int n = vsnprintf(text, sizeof(text), fmt, ap);

	if (n < 0)
		text[0] = '\0';
	if (suffix) {
		size_t len = strlen(text);

		snprintf(text + len, sizeof(text) - len, ": %s", suffix);
	}
	/* names in messages come from input: the printing rule of
	 * op_escape.h, newlines included (a message is one line); no
	 * allocation here, op_die reports running out of memory */
	if (op_needs_escape(text, strlen(text))) {
		char esc[4 * sizeof(text)];	/* \xNN for every byte */
		FILE *m = fmemopen(esc, sizeof(esc), "w");

		if (m) {
			op_fput_escaped(m, text, strlen(text), 0);
			fclose(m);
			esc[sizeof(esc) - 1] = '\0';
			sink(sink_ctx, kind, esc);
			return;
		}
		/* no stream to escape into: mask what the rule escapes */
		for (size_t i = 0, k, len = strlen(text); i < len;
		     i += k ? k : 1)
			if (!(k = op_escape_kept(text + i, len - i)))
				text[i] = '?';
	}
	sink(sink_ctx, kind, text);
}

void op_vmessage(enum op_message_kind kind, char const *fmt, va_list ap)
{
	emit(kind, NULL, fmt, ap);
}

void op_die(char const *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	emit(OP_MSG_FATAL, NULL, fmt, ap);
	va_end(ap);
	exit(1);
}

static void message(enum op_message_kind kind, char const *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void message(enum op_message_kind kind, char const *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	emit(kind, NULL, fmt, ap);
	va_end(ap);
}

void op_bug(char const *file, int line, char const *fmt, ...)
{
	char text[4096];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	message(OP_MSG_FATAL, "BUG: %s:%d: %s", file, line, text);
	abort();
}

int op_error(char const *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	emit(OP_MSG_ERROR, NULL, fmt, ap);
	va_end(ap);
	return -1;
}

void op_warn(char const *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	emit(OP_MSG_WARN, NULL, fmt, ap);
	va_end(ap);
}

void op_info(char const *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	emit(OP_MSG_INFO, NULL, fmt, ap);
	va_end(ap);
}

void op_hint(char const *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	emit(OP_MSG_HINT, NULL, fmt, ap);
	va_end(ap);
}

/* strerror, but OP_ENOTREG (EMEDIUMTYPE) is what op_file.h means by it */
static char const *errno_text(int err)
{
	return err == OP_ENOTREG ? op_file_strerror(err) : strerror(err);
}

int op_error_errno(char const *fmt, ...)
{
	char const *why = errno_text(errno);
	va_list ap;

	va_start(ap, fmt);
	emit(OP_MSG_ERROR, why, fmt, ap);
	va_end(ap);
	return -1;
}

void op_die_errno(char const *fmt, ...)
{
	char const *why = errno_text(errno);
	va_list ap;

	va_start(ap, fmt);
	emit(OP_MSG_FATAL, why, fmt, ap);
	va_end(ap);
	exit(1);
}

void op_warn_errno(char const *fmt, ...)
{
	char const *why = errno_text(errno);
	va_list ap;

	va_start(ap, fmt);
	emit(OP_MSG_WARN, why, fmt, ap);
	va_end(ap);
}

void op_usage_error(char const *usage, char const *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	emit(OP_MSG_ERROR, NULL, fmt, ap);
	va_end(ap);
	if (usage)
		op_hint("%s", usage);
	exit(2);
}
