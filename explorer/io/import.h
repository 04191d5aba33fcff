/*
 * import.h - "bring your cluster": a scenario built from a real cluster's own
 * outputs (`cephsim import DIR`).
 *
 * DIR holds what the cluster prints, all `--format json` (the capture kit in
 * tests/lab/ collects them under these names):
 *   osd_crush_dump.json       ceph osd crush dump       -> cluster.crush_map (hosts, OSDs, rules)
 *   osd_pool_ls_detail.json   ceph osd pool ls detail   -> pool.id, size, min_size, pg_num, crush_rule
 *   osd_metadata.json         ceph osd metadata         -> CPU, data device, network (loopback or not),
 *                                                          objectstore, bluestore_min_alloc_size
 *   config_dump.json          ceph config dump          -> ceph.* options the model has
 *   versions.json             ceph versions             -> ceph.release
 * and, when present, ceph.conf (the cluster's file: [global], [osd], [client]),
 * osd.N.asok_config_diff.json or osd.N_config_diff.json (`ceph daemon osd.N
 * config diff`: the running daemon's non-default values, which win) and
 * rbd_images.json (`rbd info --format json`, one image per line or an array).
 *
 * Hardware is matched to hw-profiles/ by the CPU model string and the data
 * device's model; where no profile matches, the profile used instead and why
 * is a note.  Every fact the outputs do not give (core count, link speed,
 * where fio runs, the image, the workload) is a note saying what was assumed.
 */
#ifndef CEPHSIM_EXPLORER_IO_IMPORT_H
#define CEPHSIM_EXPLORER_IO_IMPORT_H

#include <cjson/cJSON.h>

#include "err.h"

struct import_opts {
    const char *dir;        /* the cluster's outputs */
    const char *out_path;   /* where the scenario will be written (its crush_map path is relative to it) */
    const char *pool;       /* the pool to simulate (NULL: the rbd application's pool) */
    const char *image;      /* the image from rbd_images.json (NULL: the first) */
    const char *profiles;   /* hw-profiles directory (NULL: hwprofile_find_dir) */
};

struct import_result {
    cJSON *scenario;        /* the scenario JSON (owned) */
    int n_notes;
    char **notes;           /* "assumed: ...", "no profile: ...", "not modelled: ...", "taken: ..." */
};

/* Build the scenario; errors name the file and the JSON path. */
int import_cluster(const struct import_opts *o, struct import_result *r, struct sim_err *err);
void import_result_free(struct import_result *r);

/* `cephsim import DIR [-o FILE] [--pool NAME] [--image NAME] [-q]` (argv[0] = "import"). */
int cmd_import(int argc, char **argv);

#endif
