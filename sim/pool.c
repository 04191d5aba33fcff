#include "pool.h"

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
