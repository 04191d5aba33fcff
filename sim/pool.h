/*
 * pool.h - fixed-size object pools with a free list, for per-op state.
 *
 * Objects are carved from blocks that live until pool_fini, so the memory of
 * a run is bounded by the peak number of objects in use (the ops in flight),
 * not by the number of ops simulated, and the hot path never calls malloc
 * once the pool has warmed up.
 */
#ifndef CEPHSIM_SIM_POOL_H
#define CEPHSIM_SIM_POOL_H

#include <stddef.h>
#include <stdint.h>

struct pool {
    size_t obj_size;
    uint32_t per_block;
    void *free;          /* singly linked through the first word of each free object */
    void **blocks;
    uint32_t n_blocks;
    uint64_t in_use, peak;
};

void pool_init(struct pool *p, size_t obj_size, uint32_t per_block);
void pool_fini(struct pool *p);
/* A zeroed object. */
void *pool_get(struct pool *p);
/* An object with unspecified contents (the caller initialises it). */
void *pool_get_raw(struct pool *p);
void pool_put(struct pool *p, void *obj);
/* Call fn(obj, ctx) on every object in use (taken and not put back), e.g. to
   free what live objects own before pool_fini.  Not for the hot path: it
   walks every block. */
void pool_visit_in_use(struct pool *p, void (*fn)(void *obj, void *ctx), void *ctx);

#endif
