/*
 * strbuf.h - a printf appender for building text piece by piece (SQL, job
 * files, op descriptions).  Two kinds of buffer:
 *   growable: start from STRBUF_INIT; storage is sim_xrealloc'd as needed and
 *             the caller frees b.s.  After any append b.s is non-NULL.
 *   fixed:    strbuf_fixed() over caller storage; text past the end is cut off
 *             (like snprintf) and the buffer never grows.
 * Either way b.s stays NUL-terminated and b.len is strlen(b.s).
 */
#ifndef CEPHSIM_SIM_STRBUF_H
#define CEPHSIM_SIM_STRBUF_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

struct strbuf {
    char *s;     /* the text; NULL in a growable buffer nothing was appended to */
    size_t len;  /* bytes of text, excluding the NUL */
    size_t cap;  /* bytes of storage at s */
    bool fixed;  /* caller storage: truncate instead of growing */
};

#define STRBUF_INIT {0}

/* A fixed buffer over buf[0..n-1], emptied (buf[0] = '\0' when n > 0). */
void strbuf_fixed(struct strbuf *b, char *buf, size_t n);

/* Append printf-formatted text. */
void strbuf_printf(struct strbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void strbuf_vprintf(struct strbuf *b, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));

#endif
