/*
 * backend_crimson.c - Crimson (crimson-osd): one Seastar reactor per core
 * (crimson_seastar_smp) runs messenger and PG work to completion,
 * busy-polling: no wake-ups and no thread hand-offs inside the OSD.  Object
 * contexts are locked by a FIFO tri_mutex (crimson/osd/object_context.h:
 * waiters are granted in arrival order, no requeue storm), and
 * get_lock_type takes the exclusive lock for any op that may read
 * (config.c's release traits).
 */
#include <stdlib.h>

#include "osd.h"

static void crimson_init_threads(struct osd *o, struct cpu_host *h, const struct ceph_options *opt)
{
    o->n_shards = o->n_msgr = 1;
    o->shards = sim_xcalloc(1, sizeof *o->shards);
    cpu_pool_init(&o->shards[0], h, "reactor", (uint32_t)opt->crimson_seastar_smp);
    o->shards[0].polling = true;
    o->msgr = o->shards; /* the reactor is the messenger too */
}

static void crimson_fini_threads(struct osd *o)
{
    cpu_pool_fini(&o->shards[0]);
    free(o->shards);
}

const struct osd_backend_ops osd_backend_crimson = {
    .name = "crimson",
    .obj_lock_policy = &obj_crimson_policy,
    .init_threads = crimson_init_threads,
    .fini_threads = crimson_fini_threads,
};
