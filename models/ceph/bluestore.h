/*
 * bluestore.h - BlueStore, the object store of a classic OSD (store_ops "bluestore"):
 * the txc pipeline on one device (bluestore.c says which parts of BlueStore.cc
 * it mirrors).  Its state is private to bluestore.c; the OSD uses bluestore_ops.
 */
#ifndef CEPHSIM_MODELS_CEPH_BLUESTORE_H
#define CEPHSIM_MODELS_CEPH_BLUESTORE_H

#include "store.h"

extern const struct store_ops bluestore_ops;

/* The data cache's size (bytes): the autotuner's budget and what it commits. */
struct bluestore_cache_size {
    bool autotune;
    double ratio;       /* the data cache's share: 1 - meta - kv - kv_onode ratios */
    double tuned_mem;   /* autotune: the caches' memory */
    double mem_avail;   /* autotune: what Manager::balance hands out */
    double committed;   /* the data cache's size now (empty: its ratio of mem_avail + 64 MiB) */
};
void bluestore_cache_size_init(struct bluestore_cache_size *z, const struct ceph_options *o);
/* The committed size a balance gives a data cache holding held_bytes. */
double bluestore_cache_committed(const struct bluestore_cache_size *z, double held_bytes);
/* The data cache's shards: osd_num_cache_shards, or the op shards (0, before 15.2). */
uint32_t bluestore_cache_shards(const struct ceph_options *o);
/* Skiplist levels past the cached ones a memtable insert walks, averaged over
   a memtable filling from empty to write_buffer_size (bytes): see bluestore.c. */
double memtable_insert_levels(double write_buffer_size, double cached_bytes);

#endif
