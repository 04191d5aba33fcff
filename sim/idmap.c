/*
 * idmap.c - ids to lazily created entries (API in idmap.h).
 *
 * Linear probing on fmix64(id), grown to twice the size at a load of 1/2, so
 * a probe sequence stays short; entries are never removed (per-object state
 * of a run lives as long as the run).
 */
#include "idmap.h"

#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "sim.h"

void idmap_init(struct idmap *m, size_t entry_size, uint32_t per_block)
{
    memset(m, 0, sizeof *m);
    pool_init(&m->entries, entry_size, per_block);
}

void idmap_fini(struct idmap *m)
{
    free(m->slots);
    pool_fini(&m->entries);
    memset(m, 0, sizeof *m);
}

static uint32_t slot_of(const struct idmap *m, uint64_t id)
{
    uint32_t mask = m->cap - 1, i = (uint32_t)sim_fmix64(id) & mask;
    while (m->slots[i].entry && m->slots[i].id != id)
        i = (i + 1) & mask;
    return i;
}

void *idmap_find(const struct idmap *m, uint64_t id)
{
    if (!m->cap)
        return NULL;
    return m->slots[slot_of(m, id)].entry;
}

static void grow(struct idmap *m)
{
    struct idmap_slot *old = m->slots;
    uint32_t old_cap = m->cap;
    SIM_ASSERT(old_cap < (1u << 31));
    m->cap = old_cap ? 2 * old_cap : 64;
    m->slots = sim_xcalloc(m->cap, sizeof *m->slots);
    for (uint32_t i = 0; i < old_cap; i++)
        if (old[i].entry)
            m->slots[slot_of(m, old[i].id)] = old[i];
    free(old);
}

void *idmap_get(struct idmap *m, uint64_t id, bool *created)
{
    if (created)
        *created = false;
    if (m->cap) {
        struct idmap_slot *s = &m->slots[slot_of(m, id)];
        if (s->entry)
            return s->entry;
    }
    if (2 * (m->n + 1) > m->cap)
        grow(m);
    struct idmap_slot *s = &m->slots[slot_of(m, id)];
    s->id = id;
    s->entry = pool_get(&m->entries);
    m->n++;
    if (created)
        *created = true;
    return s->entry;
}

size_t idmap_bytes(const struct idmap *m)
{
    return (size_t)m->cap * sizeof *m->slots +
           (size_t)m->entries.n_blocks * m->entries.per_block * m->entries.obj_size;
}

void idmap_each(const struct idmap *m, void (*fn)(void *ctx, uint64_t id, void *entry), void *ctx)
{
    for (uint32_t i = 0; i < m->cap; i++)
        if (m->slots[i].entry)
            fn(ctx, m->slots[i].id, m->slots[i].entry);
}
