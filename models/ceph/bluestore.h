/*
 * bluestore.h - BlueStore, the object store of a classic OSD (store_ops "bluestore"):
 * the txc pipeline on one device (bluestore.c says which parts of BlueStore.cc
 * it mirrors).  Its state is private to bluestore.c; the OSD uses bluestore_ops.
 */
#ifndef CEPHSIM_MODELS_CEPH_BLUESTORE_H
#define CEPHSIM_MODELS_CEPH_BLUESTORE_H

#include "store.h"

extern const struct store_ops bluestore_ops;

/* The data cache's size for these options: what the autotuner can give the
   caches (bluestore_cache_autotune), else bluestore_cache_size_ssd's data share. */
uint64_t bluestore_data_cache_bytes(const struct ceph_options *o);

#endif
