#include "err.h"

#include <stdarg.h>
#include <string.h>

int sim_errf(struct sim_err *err, int code, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        char *full = NULL;
        int n = vasprintf(&full, fmt, ap);
        va_end(ap);
        size_t cap = sizeof err->msg;
        if (n < 0 || !full) {
            snprintf(err->msg, cap, "(no memory for the message of error %d)", code);
        } else if ((size_t)n < cap) {
            memcpy(err->msg, full, (size_t)n + 1);
        } else {
            /* Too long: an echoed value (a 10,000-character string) must not
               push the reason out.  Messages start with the file and path
               and end with the reason, so the middle goes. */
            char mid[48];
            size_t head = SIM_ERR_HEAD;
            /* the marker's length with the total as the count: an upper bound */
            int m = snprintf(mid, sizeof mid, " [... %zu bytes left out ...] ", (size_t)n);
            size_t tail = cap - 1 - head - (size_t)m;
            while (head > 0 && ((unsigned char)full[head] & 0xc0) == 0x80)
                head--; /* do not cut a UTF-8 character */
            size_t from = (size_t)n - tail;
            while (from < (size_t)n && ((unsigned char)full[from] & 0xc0) == 0x80)
                from++;
            snprintf(mid, sizeof mid, " [... %zu bytes left out ...] ", from - head);
            snprintf(err->msg, cap, "%.*s%s%s", (int)head, full, mid, full + from);
        }
        free(full);
        /* one line, whatever the input echoed into it: tabs become spaces,
           newlines and other control bytes '?' */
        for (char *p = err->msg; *p; p++)
            if (*p == '\t')
                *p = ' ';
            else if ((unsigned char)*p < 0x20 || *p == 0x7f)
                *p = '?';
        err->code = code;
    }
    return code;
}

_Noreturn void sim_panic(const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "cephsim: internal error at %s:%d: ", file, line);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    abort();
}

void *sim_xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p)
        sim_panic(__FILE__, __LINE__, "out of memory (%zu x %zu bytes)", n, size);
    return p;
}

void *sim_xcalloc_aligned(size_t n, size_t size, size_t align)
{
    if (size && n > (size_t)-1 / size - align)
        sim_panic(__FILE__, __LINE__, "allocation overflow");
    size_t bytes = n * size;
    if (bytes == 0)
        bytes = 1;
    bytes = (bytes + align - 1) / align * align; /* aligned_alloc wants a multiple of align */
    void *p = aligned_alloc(align, bytes);
    if (!p)
        sim_panic(__FILE__, __LINE__, "out of memory (%zu x %zu bytes)", n, size);
    memset(p, 0, bytes);
    return p;
}

void *sim_xrealloc(void *p, size_t n, size_t size)
{
    if (size && n > (size_t)-1 / size)
        sim_panic(__FILE__, __LINE__, "allocation overflow");
    size_t bytes = n * size;
    void *q = realloc(p, bytes ? bytes : 1);
    if (!q)
        sim_panic(__FILE__, __LINE__, "out of memory (%zu x %zu bytes)", n, size);
    return q;
}

char *sim_xstrdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = sim_xcalloc(n, 1);
    memcpy(d, s, n);
    return d;
}
