/*
 * Rows for ClickHouse's TabSeparated format (INSERT ... FORMAT
 * TabSeparated), and the byte buffer they are built in. A String field is
 * escaped as ClickHouse reads it back byte for byte: backslash, tab,
 * newline, carriage return, NUL, backspace and form feed as \\ \t \n \r
 * \0 \b \f; every other byte raw (ClickHouse strings are bytes, so a
 * name that is not UTF-8 arrives as it was). An Array(String) field is
 * a quoted literal ['a','b'] whose elements escape backslash, quote and
 * the same controls; it needs no second escaping as a field.
 */
#ifndef FLEET_TSV_H
#define FLEET_TSV_H

#include <stddef.h>
#include <stdint.h>

struct fleet_buf {
	char *p;                 /* NUL-terminated (p[len] == 0) once used */
	size_t len, cap;
};

void fleet_buf_free(struct fleet_buf *b);
void fleet_buf_reset(struct fleet_buf *b);
void fleet_buf_add(struct fleet_buf *b, void const *data, size_t len);
void fleet_buf_puts(struct fleet_buf *b, char const *s);
void fleet_buf_printf(struct fleet_buf *b, char const *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* A String field (s of len bytes) escaped for TabSeparated. */
void fleet_tsv_string(struct fleet_buf *b, char const *s, size_t len);
/* The same for a NUL-terminated string; NULL is ''. */
void fleet_tsv_str(struct fleet_buf *b, char const *s);
void fleet_tsv_u64(struct fleet_buf *b, uint64_t v);
/* A SQL string literal 'text' of len bytes (quote, backslash and the
 * controls escaped): how a value goes into a query. */
void fleet_sql_string(struct fleet_buf *b, char const *s, size_t len);
/* An Array(String) field of n strings. */
void fleet_tsv_array(struct fleet_buf *b, char const *const *v, size_t n);
/* An Array(UInt64) field. */
void fleet_tsv_array_u64(struct fleet_buf *b, uint64_t const *v, size_t n);
/* A DateTime field as seconds since the epoch (never the server's local
 * time), a Date as the UTC day 'YYYY-MM-DD'; before 1970: the epoch. */
void fleet_tsv_datetime(struct fleet_buf *b, int64_t t);
void fleet_tsv_date(struct fleet_buf *b, int64_t t);
/* The field separator and the row end. */
void fleet_tsv_tab(struct fleet_buf *b);
void fleet_tsv_eol(struct fleet_buf *b);

/*
 * One String field of a TabSeparated line at *p (up to end), unescaped
 * into out (reset first); *p is left after the field's tab or newline.
 * 0, or -1 on a bad escape or a missing end.
 */
int fleet_tsv_field(char const **p, char const *end, struct fleet_buf *out);

#endif /* FLEET_TSV_H */
