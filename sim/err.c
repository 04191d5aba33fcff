#include "err.h"

#include <stdarg.h>
#include <string.h>

int sim_errf(struct sim_err *err, int code, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
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
