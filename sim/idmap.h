/*
 * idmap.h - a map from 64-bit ids to fixed-size entries created on first use.
 *
 * For state that exists per object of a large, sparsely touched name space
 * (a 100 TiB image has 26 M RADOS objects; a run touches a few thousand):
 * open addressing with linear probing over (id, entry) slots, entries carved
 * from a pool (pool.h), so an entry's address is stable until idmap_fini and
 * the memory is proportional to the ids touched, not to the name space.  Only
 * a first touch allocates (an entry, and now and then a table twice as big);
 * lookups of known ids never do.
 */
#ifndef CEPHSIM_SIM_IDMAP_H
#define CEPHSIM_SIM_IDMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pool.h"

struct idmap_slot {
    uint64_t id;
    void *entry;             /* NULL = free slot */
};

struct idmap {
    /* private to idmap.c */
    struct idmap_slot *slots;
    uint32_t cap;            /* a power of two, 0 before the first insert */
    uint64_t n;
    struct pool entries;
};

/* An empty map of entries of entry_size bytes, carved per_block at a time. */
void idmap_init(struct idmap *m, size_t entry_size, uint32_t per_block);
/* Free the table and every entry. */
void idmap_fini(struct idmap *m);
/* The entry of id, or NULL if it was never created. */
void *idmap_find(const struct idmap *m, uint64_t id);
/* The entry of id; a zeroed one is created (and *created set) on first use.
   created may be NULL.  The address stays valid until idmap_fini. */
void *idmap_get(struct idmap *m, uint64_t id, bool *created);
/* Entries created so far. */
static inline uint64_t idmap_count(const struct idmap *m) { return m->n; }
/* Bytes held by the table and the entry blocks (for memory accounting). */
size_t idmap_bytes(const struct idmap *m);
/* Call fn(ctx, id, entry) for every entry, in table order (not creation order). */
void idmap_each(const struct idmap *m, void (*fn)(void *ctx, uint64_t id, void *entry), void *ctx);

#endif
