/*
 * backend_classic.c - the classic OSD (ceph-osd): AsyncMessenger workers and
 * the sharded op queue's thread pools (an empty shard's work wakes all its threads);
 * object contexts locked by RWState (ObjectContext::RWState, with its
 * requeue-all on the last release).
 *
 * Threads: ms_async_op_threads messenger workers of one thread each,
 * osd_op_num_shards_ssd shards of osd_op_num_threads_per_shard_ssd threads
 * (OSD::ShardedOpWQ; defaults 3, 8 and 2 for SSDs); and the cluster
 * messenger's ms_local thread (DispatchQueue::local_delivery_thread), which
 * delivers the messages an OSD sends itself (osd_init creates it where the
 * pool's backend sends any); and the OpTracker's history thread
 * (OpHistoryServiceThread, "OpHistorySvc", osd.c) while osd_enable_op_tracker
 * is on.
 */
#include <stdlib.h>

#include "osd.h"

static void classic_init_threads(struct osd *o, struct cpu_host *h, const struct ceph_options *opt)
{
    o->n_msgr = (uint32_t)opt->ms_async_op_threads;
    o->msgr = sim_xcalloc(o->n_msgr, sizeof *o->msgr);
    o->msgr_perf = sim_xcalloc(o->n_msgr, sizeof *o->msgr_perf);
    for (uint32_t i = 0; i < o->n_msgr; i++) {
        cpu_pool_init(&o->msgr[i], h, "msgr-worker", 1);
        o->msgr[i].owner = &o->msgr_perf[i];
    }
    o->n_shards = (uint32_t)opt->osd_op_num_shards_ssd;
    o->shards = sim_xcalloc(o->n_shards, sizeof *o->shards);
    for (uint32_t i = 0; i < o->n_shards; i++) {
        cpu_pool_init(&o->shards[i], h, "tp_osd_tp", (uint32_t)opt->osd_op_num_threads_per_shard_ssd);
        /* OSD::ShardedOpWQ::_enqueue: an item reaching an empty scheduler is
           sdata_cond.notify_all() (notify_one only when it was not empty), and
           ContextQueue::queue (the oncommits for thread 0) notifies all when it
           was empty: every sleeping thread of the shard wakes, the others find
           nothing and wait again (the same from 14.2 to 18.2) */
        o->shards[i].wake_all = true;
    }
}

static void classic_fini_threads(struct osd *o)
{
    for (uint32_t i = 0; i < o->n_msgr; i++)
        cpu_pool_fini(&o->msgr[i]);
    free(o->msgr);
    free(o->msgr_perf);
    for (uint32_t i = 0; i < o->n_shards; i++)
        cpu_pool_fini(&o->shards[i]);
    free(o->shards);
}

const struct osd_backend_ops osd_backend_classic = {
    .name = "classic",
    .obj_lock_policy = &obj_rwstate_policy,
    .init_threads = classic_init_threads,
    .fini_threads = classic_fini_threads,
    .local_delivery_thread = true,
    .op_history_thread = true,
};

const struct osd_backend_ops *osd_backend_for(const struct release_traits *rel)
{
    return rel->crimson ? &osd_backend_crimson : &osd_backend_classic;
}
