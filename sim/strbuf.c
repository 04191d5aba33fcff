#include "strbuf.h"

#include <stdio.h>

#include "err.h"

void strbuf_fixed(struct strbuf *b, char *buf, size_t n)
{
    *b = (struct strbuf){.s = buf, .len = 0, .cap = n, .fixed = true};
    if (n)
        buf[0] = '\0';
}

void strbuf_vprintf(struct strbuf *b, const char *fmt, va_list ap)
{
    if (b->fixed) {
        if (b->len >= b->cap)
            return;
        int w = vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
        if (w > 0)
            b->len = b->len + (size_t)w < b->cap ? b->len + (size_t)w : b->cap - 1;
        return;
    }
    va_list aq;
    va_copy(aq, ap);
    int k = vsnprintf(b->s ? b->s + b->len : NULL, b->cap - b->len, fmt, aq);
    va_end(aq);
    SIM_ASSERT(k >= 0);
    size_t need = b->len + (size_t)k + 1;
    if (need > b->cap) {
        b->cap = 2 * need;
        b->s = sim_xrealloc(b->s, b->cap, 1);
        vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
    }
    b->len += (size_t)k;
}

void strbuf_printf(struct strbuf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    strbuf_vprintf(b, fmt, ap);
    va_end(ap);
}
