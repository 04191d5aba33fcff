/*
 * crushdump.h - read a real cluster's placement facts from Ceph's JSON dumps:
 *   `ceph osd crush dump --format json` (or `crushtool -i map --dump -f json`)
 *       devices, types, buckets (shadow buckets "x~cls" included), rules with
 *       their steps, tunables  -> struct placement_map
 *   `ceph osd pool ls detail --format json` or `ceph osd dump --format json`
 *       id, name, type, size, min_size, pg_num, pgp_num, crush_rule, flags
 *       -> struct placement_pool
 *   `ceph osd dump --format json`
 *       which OSDs exist and are up, reweight, primary affinity
 *       -> struct placement_osds
 *
 * Every error is one line naming the file and the JSON path, e.g.
 * "crush.json: buckets[3].items[2].weight: expected an integer".  A map
 * placement.c cannot map exactly (a straw or list bucket, weight sets) is
 * refused with a message naming the bucket, never approximated.
 */
#ifndef CEPHSIM_EXPLORER_IO_CRUSHDUMP_H
#define CEPHSIM_EXPLORER_IO_CRUSHDUMP_H

#include <stddef.h>
#include <cjson/cJSON.h>

#include "err.h"
#include "placement.h"

/* Initialize m and fill it from a parsed crush dump; finalized on success, empty on error. */
int crushdump_crush_from_json(const cJSON *root, const char *file, struct placement_map *m,
                              struct sim_err *err);
/* Same, reading and parsing the file at path. */
int crushdump_load_crush(const char *path, struct placement_map *m, struct sim_err *err);

/*
 * Pools of a parsed `ceph osd pool ls detail` (an array) or `ceph osd dump`
 * (an object with "pools"): *pools is malloc'd (caller frees), *n its length.
 */
int crushdump_pools_from_json(const cJSON *root, const char *file, struct placement_pool **pools,
                              size_t *n, struct sim_err *err);
/* Same, reading and parsing the file at path. */
int crushdump_load_pools(const char *path, struct placement_pool **pools, size_t *n,
                         struct sim_err *err);

/*
 * OSD states of a parsed `ceph osd dump`: osds is sized max_osd (from
 * "max_osd", else one past the largest id), listed OSDs exist, "up" and
 * reweight "weight" (0..1, stored as round(w * 0x10000)) and
 * "primary_affinity" are taken as they are; caller frees with
 * placement_osds_fini.
 */
int crushdump_osds_from_json(const cJSON *root, const char *file, struct placement_osds *osds,
                             struct sim_err *err);
/* Same, reading and parsing the file at path. */
int crushdump_load_osds(const char *path, struct placement_osds *osds, struct sim_err *err);

/* Find pool id among pools[0..n-1], or NULL. */
const struct placement_pool *crushdump_pool_find(const struct placement_pool *pools, size_t n,
                                                 int64_t id);

#endif
