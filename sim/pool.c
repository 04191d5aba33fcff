#include "pool.h"

#include <stdlib.h>
#include <string.h>

#include "err.h"

void pool_init(struct pool *p, size_t obj_size, uint32_t per_block)
{
    memset(p, 0, sizeof *p);
    p->obj_size = (obj_size < sizeof(void *) ? sizeof(void *) : obj_size + 15) & ~(size_t)15;
    p->per_block = per_block ? per_block : 64;
}

void pool_fini(struct pool *p)
{
    for (uint32_t i = 0; i < p->n_blocks; i++)
        free(p->blocks[i]);
    free(p->blocks);
    memset(p, 0, sizeof *p);
}

void *pool_get(struct pool *p)
{
    void *o = pool_get_raw(p);
    memset(o, 0, p->obj_size);
    return o;
}

void *pool_get_raw(struct pool *p)
{
    if (!p->free) {
        char *b = sim_xcalloc(p->per_block, p->obj_size);
        p->blocks = sim_xrealloc(p->blocks, p->n_blocks + 1, sizeof *p->blocks);
        p->blocks[p->n_blocks++] = b;
        for (uint32_t i = 0; i < p->per_block; i++) {
            void **o = (void **)(b + (size_t)i * p->obj_size);
            *o = p->free;
            p->free = o;
        }
    }
    void **o = p->free;
    p->free = *o;
    if (++p->in_use > p->peak)
        p->peak = p->in_use;
    return o;
}

void pool_put(struct pool *p, void *obj)
{
    SIM_ASSERT(p->in_use > 0);
    *(void **)obj = p->free;
    p->free = obj;
    p->in_use--;
}

static int cmp_block(const void *a, const void *b, void *pool)
{
    const struct pool *p = pool;
    uintptr_t x = (uintptr_t)p->blocks[*(const uint32_t *)a];
    uintptr_t y = (uintptr_t)p->blocks[*(const uint32_t *)b];
    return (x > y) - (x < y);
}

void pool_visit_in_use(struct pool *p, void (*fn)(void *obj, void *ctx), void *ctx)
{
    size_t n = (size_t)p->n_blocks * p->per_block;
    if (!n || !p->in_use)
        return;
    /* the free list marks the free slots; blocks sorted by address find a slot's block */
    uint32_t *order = sim_xcalloc(p->n_blocks, sizeof *order);
    for (uint32_t i = 0; i < p->n_blocks; i++)
        order[i] = i;
    qsort_r(order, p->n_blocks, sizeof *order, cmp_block, p);
    uint8_t *is_free = sim_xcalloc(n, 1);
    size_t block_bytes = (size_t)p->per_block * p->obj_size;
    for (void **o = p->free; o; o = *o) {
        uint32_t lo = 0, hi = p->n_blocks;
        while (hi - lo > 1) { /* the last block starting at or below o */
            uint32_t mid = (lo + hi) / 2;
            if ((uintptr_t)p->blocks[order[mid]] <= (uintptr_t)o)
                lo = mid;
            else
                hi = mid;
        }
        uintptr_t off = (uintptr_t)o - (uintptr_t)p->blocks[order[lo]];
        SIM_ASSERT(off < block_bytes && off % p->obj_size == 0);
        is_free[(size_t)order[lo] * p->per_block + off / p->obj_size] = 1;
    }
    for (uint32_t b = 0; b < p->n_blocks; b++)
        for (uint32_t i = 0; i < p->per_block; i++)
            if (!is_free[(size_t)b * p->per_block + i])
                fn((char *)p->blocks[b] + (size_t)i * p->obj_size, ctx);
    free(is_free);
    free(order);
}
