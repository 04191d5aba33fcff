/*
 * trace_int.h - what the trace importers (explorer/io/trace*.c) share, private to them
 * (SQLite's btreeInt.h next to btree.h): tokens and lines of text, integer parsing, the
 * op-tracker container's string arena and growth, and the reader with an explicit limit.
 * Nothing outside those files includes it, except tests/test_trace.c.
 */
#ifndef CEPHSIM_EXPLORER_IO_TRACE_INT_H
#define CEPHSIM_EXPLORER_IO_TRACE_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"
#include "trace.h"

/* ------------------------------------------------------------------ trace_text.c */

/* A token: p[0..n) of some text, not NUL-terminated. */
struct trace_tok {
    const char *p;
    size_t n;
};

/* A cursor over text, one line at a time (trace_next_line()); lineno counts from 1. */
struct trace_lines {
    const char *p, *end;
    int64_t lineno;
};

/* Parse all of s[0..n) as a non-negative decimal (or 0x hex) integer. */
bool trace_parse_u64(const char *s, size_t n, uint64_t *out);
/* Same with an optional leading '-'. */
bool trace_parse_i64(const char *s, size_t n, int64_t *out);
/* Whether s[0..n) is non-empty and all decimal (hex) digits. */
bool trace_all_digits(const char *s, size_t n);
bool trace_all_xdigits(const char *s, size_t n);
/* Whether token t is exactly the string s. */
bool trace_tok_is(struct trace_tok t, const char *s);
/* Next line without its "\n" / "\r\n"; false at the end. */
bool trace_next_line(struct trace_lines *L, const char **s, size_t *n);
/* Split at blanks into at most max fields; returns the count (max+1 if there are more). */
size_t trace_split_ws(const char *s, size_t n, struct trace_tok *out, size_t max);

/* ------------------------------------------------------------------ trace_ops.c */

/* Copy s[0..n) (or s) into t's string arena, NUL-terminated; "" (not stored) when empty. */
const char *trace_ops_strndup(struct trace_ops *t, const char *s, size_t n);
const char *trace_ops_strdup(struct trace_ops *t, const char *s);
/* Append a zeroed op, event or op-vector element to t; pointers last until the next push. */
struct trace_op *trace_ops_push_op(struct trace_ops *t);
struct trace_event *trace_ops_push_event(struct trace_ops *t);
struct trace_osdop *trace_ops_push_osdop(struct trace_ops *t);

/* ------------------------------------------------------------------ trace_slurp.c */

/*
 * trace_slurp() with the limit max instead of TRACE_READ_MAX.  On a truncated or corrupt
 * gzip, *partial is set and *out keeps (NUL-terminated) what was decoded before the damage
 * while the error is returned; the caller frees it.  On any other error *out is NULL.
 */
int trace_slurp_max(const char *path, size_t max, char **out, size_t *len, bool *partial,
                    struct sim_err *err);

#endif
