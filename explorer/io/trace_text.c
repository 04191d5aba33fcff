/*
 * trace_text.c - the lexical pieces the trace importers share (API in trace_int.h): a line
 * reader that takes "\n" and "\r\n", splitting at blanks, and integers that must fill
 * their whole token (decimal or 0x hex, as fio and Ceph print them).  No format of its own.
 */
#include "trace_int.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Parse all of s[0..n) as a non-negative decimal (or 0x hex) integer. */
bool trace_parse_u64(const char *s, size_t n, uint64_t *out)
{
    if (n == 0 || n > 40)
        return false;
    char buf[48];
    memcpy(buf, s, n);
    buf[n] = '\0';
    int base = 10;
    const char *p = buf;
    if (n > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
        base = 16;
        p += 2;
    }
    if (!isxdigit((unsigned char)*p))
        return false;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(p, &end, base);
    if (errno || *end)
        return false;
    *out = v;
    return true;
}

bool trace_parse_i64(const char *s, size_t n, int64_t *out)
{
    bool neg = n > 0 && s[0] == '-';
    uint64_t u;
    if (!trace_parse_u64(s + neg, n - neg, &u) || u > (uint64_t)INT64_MAX)
        return false;
    *out = neg ? -(int64_t)u : (int64_t)u;
    return true;
}

bool trace_all_digits(const char *s, size_t n)
{
    if (n == 0)
        return false;
    for (size_t i = 0; i < n; i++)
        if (!isdigit((unsigned char)s[i]))
            return false;
    return true;
}

bool trace_all_xdigits(const char *s, size_t n)
{
    if (n == 0)
        return false;
    for (size_t i = 0; i < n; i++)
        if (!isxdigit((unsigned char)s[i]))
            return false;
    return true;
}

bool trace_tok_is(struct trace_tok t, const char *s)
{
    return t.n == strlen(s) && memcmp(t.p, s, t.n) == 0;
}

/* Next line without its "\n" / "\r\n"; false at the end. */
bool trace_next_line(struct trace_lines *L, const char **s, size_t *n)
{
    if (L->p >= L->end)
        return false;
    const char *nl = memchr(L->p, '\n', (size_t)(L->end - L->p));
    const char *e = nl ? nl : L->end;
    *s = L->p;
    *n = (size_t)(e - L->p);
    if (*n && (*s)[*n - 1] == '\r')
        (*n)--;
    L->p = nl ? nl + 1 : L->end;
    L->lineno++;
    return true;
}

/* Split at blanks into at most max fields; returns the count (max+1 if there are more). */
size_t trace_split_ws(const char *s, size_t n, struct trace_tok *out, size_t max)
{
    size_t nt = 0, i = 0;
    while (i < n) {
        while (i < n && isspace((unsigned char)s[i]))
            i++;
        if (i >= n)
            break;
        size_t st = i;
        while (i < n && !isspace((unsigned char)s[i]))
            i++;
        if (nt == max)
            return max + 1;
        out[nt].p = s + st;
        out[nt].n = i - st;
        nt++;
    }
    return nt;
}
