/*
 * perfdump.c - `ceph daemon osd.N perf dump` for the simulated OSD.
 *
 * Mirrors PerfCounters::dump_formatted_generic (src/common/perf_counters.cc)
 * for the counters of build_osd_logger (src/osd/osd_perf_counters.cc) and
 * BlueStore::_init_logger (src/os/bluestore/BlueStore.cc), Pacific names:
 * - u64 counters and gauges are plain integers;
 * - time averages (add_time_avg) are {"avgcount": N, "sum": S, "avgtime": A}
 *   with S and A printed "%" PRId64 ".%09" PRId64 (seconds, 9 decimals) and
 *   A = sum_ns / avgcount in integer nanoseconds (0.000000000 when N = 0);
 * - sections come out sorted by name like PerfCountersCollection's set
 *   ("bluestore" < "cephsim" < "finisher-*" < "osd" < "rocksdb" <
 *   "throttle-*"), keys in the logger's order;
 * - throttle-osd_client_messages / _bytes, throttle-bluestore_throttle_bytes
 *   (Throttle.cc's 12 counters), finisher-commit_finisher and
 *   finisher-objecter-finisher-0 (idle, as on the client op path of a real
 *   OSD), rocksdb's submit_latency and submit_sync_latency; sections of a
 *   16.2.15 OSD the model has no counterpart for are absent (bluefs,
 *   mempool, recoverystate_perf, bluestore-pricache*, the heartbeat and
 *   cluster dispatch throttlers, the OSD's own objecter, cct).
 * Per class, op_r has only op_r_out_bytes and op_w only op_w_in_bytes, as in
 * the real dump.  Counters only the model has go to a "cephsim" section.
 */
#include "perfdump.h"

#include <inttypes.h>
#include <stdio.h>

/* A number Ceph prints unquoted with a fixed format: raw text, value kept in valuedouble. */
static void add_raw_number(cJSON *obj, const char *key, const char *text, double v)
{
    cJSON *it = cJSON_CreateRaw(text);
    it->valuedouble = v;
    cJSON_AddItemToObject(obj, key, it);
}

static void add_u64(cJSON *obj, const char *key, uint64_t v)
{
    cJSON_AddNumberToObject(obj, key, (double)v);
}

void perfdump_add_time(cJSON *section, const char *key, const struct lat_sum *l)
{
    char buf[48];
    cJSON *o = cJSON_AddObjectToObject(section, key);
    add_u64(o, "avgcount", l->avgcount);
    snprintf(buf, sizeof buf, "%" PRIu64 ".%09" PRIu64, l->sum_ns / 1000000000u, l->sum_ns % 1000000000u);
    add_raw_number(o, "sum", buf, (double)l->sum_ns / 1e9);
    uint64_t avg = l->avgcount ? l->sum_ns / l->avgcount : 0;
    snprintf(buf, sizeof buf, "%" PRIu64 ".%09" PRIu64, avg / 1000000000u, avg % 1000000000u);
    add_raw_number(o, "avgtime", buf, (double)avg / 1e9);
}

/* One op class in build_osd_logger order; which byte counters it has differs per class. */
static void add_op_class(cJSON *s, const char *prefix, const struct perf_op_class *c, int has_in, int has_out)
{
    char k[64];
    add_u64(s, prefix, c->count);
    if (has_in) {
        snprintf(k, sizeof k, "%s_in_bytes", prefix);
        add_u64(s, k, c->in_bytes);
    }
    if (has_out) {
        snprintf(k, sizeof k, "%s_out_bytes", prefix);
        add_u64(s, k, c->out_bytes);
    }
    snprintf(k, sizeof k, "%s_latency", prefix);
    perfdump_add_time(s, k, &c->latency);
    snprintf(k, sizeof k, "%s_process_latency", prefix);
    perfdump_add_time(s, k, &c->process_latency);
    snprintf(k, sizeof k, "%s_prepare_latency", prefix);
    perfdump_add_time(s, k, &c->prepare_latency);
}

static cJSON *osd_section(const struct osd_perf *p)
{
    cJSON *s = cJSON_CreateObject();
    cJSON_AddNumberToObject(s, "op_wip", (double)p->op_wip);
    add_op_class(s, "op", &p->op, 1, 1);
    add_op_class(s, "op_r", &p->op_r, 0, 1);
    add_op_class(s, "op_w", &p->op_w, 1, 0);
    add_op_class(s, "op_rw", &p->op_rw, 1, 1);
    perfdump_add_time(s, "op_before_queue_op_lat", &p->op_before_queue_op_lat);
    perfdump_add_time(s, "op_before_dequeue_op_lat", &p->op_before_dequeue_op_lat);
    add_u64(s, "subop", p->subop);
    add_u64(s, "subop_in_bytes", p->subop_in_bytes);
    perfdump_add_time(s, "subop_latency", &p->subop_latency);
    add_u64(s, "subop_w", p->subop_w);
    add_u64(s, "subop_w_in_bytes", p->subop_w_in_bytes);
    perfdump_add_time(s, "subop_w_latency", &p->subop_w_latency);
    add_u64(s, "numpg", p->numpg);
    add_u64(s, "numpg_primary", p->numpg_primary);
    add_u64(s, "numpg_replica", p->numpg_replica);
    return s;
}

static cJSON *bluestore_section(const struct bluestore_perf *b)
{
    cJSON *s = cJSON_CreateObject();
    perfdump_add_time(s, "kv_flush_lat", &b->kv_flush_lat);
    perfdump_add_time(s, "kv_commit_lat", &b->kv_commit_lat);
    perfdump_add_time(s, "kv_sync_lat", &b->kv_sync_lat);
    perfdump_add_time(s, "kv_final_lat", &b->kv_final_lat);
    perfdump_add_time(s, "state_prepare_lat", &b->state_prepare_lat);
    perfdump_add_time(s, "state_aio_wait_lat", &b->state_aio_wait_lat);
    perfdump_add_time(s, "state_io_done_lat", &b->state_io_done_lat);
    perfdump_add_time(s, "state_kv_queued_lat", &b->state_kv_queued_lat);
    perfdump_add_time(s, "state_kv_commiting_lat", &b->state_kv_commiting_lat);
    perfdump_add_time(s, "state_kv_done_lat", &b->state_kv_done_lat);
    perfdump_add_time(s, "state_deferred_queued_lat", &b->state_deferred_queued_lat);
    perfdump_add_time(s, "state_deferred_aio_wait_lat", &b->state_deferred_aio_wait_lat);
    perfdump_add_time(s, "state_deferred_cleanup_lat", &b->state_deferred_cleanup_lat);
    perfdump_add_time(s, "state_finishing_lat", &b->state_finishing_lat);
    perfdump_add_time(s, "state_done_lat", &b->state_done_lat);
    perfdump_add_time(s, "throttle_lat", &b->throttle_lat);
    perfdump_add_time(s, "submit_lat", &b->submit_lat);
    perfdump_add_time(s, "commit_lat", &b->commit_lat);
    perfdump_add_time(s, "read_lat", &b->read_lat);
    add_u64(s, "deferred_write_ops", b->deferred_write_ops);
    add_u64(s, "deferred_write_bytes", b->deferred_write_bytes);
    add_u64(s, "bluestore_buffers", b->bluestore_buffers);
    add_u64(s, "bluestore_buffer_bytes", b->bluestore_buffer_bytes);
    add_u64(s, "bluestore_buffer_hit_bytes", b->bluestore_buffer_hit_bytes);
    add_u64(s, "bluestore_buffer_miss_bytes", b->bluestore_buffer_miss_bytes);
    add_u64(s, "bluestore_write_big", b->bluestore_write_big);
    add_u64(s, "bluestore_write_big_bytes", b->bluestore_write_big_bytes);
    add_u64(s, "bluestore_write_big_deferred", b->bluestore_write_big_deferred);
    add_u64(s, "bluestore_write_small", b->bluestore_write_small);
    add_u64(s, "bluestore_write_small_bytes", b->bluestore_write_small_bytes);
    add_u64(s, "bluestore_write_deferred", b->bluestore_write_deferred);
    add_u64(s, "bluestore_write_deferred_bytes", b->bluestore_write_deferred_bytes);
    add_u64(s, "bluestore_txc", b->bluestore_txc);
    return s;
}

/* Throttle's logger (Throttle::Throttle, l_throttle_* in order). */
static void add_throttle(cJSON *root, const char *name, const struct perf_throttle *t)
{
    char key[128];
    snprintf(key, sizeof key, "throttle-%s", name);
    cJSON *s = cJSON_AddObjectToObject(root, key);
    add_u64(s, "val", t->val);
    add_u64(s, "max", t->max);
    add_u64(s, "get_started", t->get_started);
    add_u64(s, "get", t->get);
    add_u64(s, "get_sum", t->get_sum);
    add_u64(s, "get_or_fail_fail", t->get_or_fail_fail);
    add_u64(s, "get_or_fail_success", t->get_or_fail_success);
    add_u64(s, "take", 0);
    add_u64(s, "take_sum", 0);
    add_u64(s, "put", t->put);
    add_u64(s, "put_sum", t->put_sum);
    perfdump_add_time(s, "wait", &t->wait);
}

/* A Finisher's logger (queue_len, complete_latency): the OSD's commit_finisher and its
   objecter's finisher, which the client op path does not use (Pacific completes commits
   on the shard's thread: ContextQueue / handle_oncommits), in the model as in the OSD. */
static void add_idle_finisher(cJSON *root, const char *name)
{
    static const struct lat_sum none;
    cJSON *s = cJSON_AddObjectToObject(root, name);
    add_u64(s, "queue_len", 0);
    perfdump_add_time(s, "complete_latency", &none);
}

/* A u64 average (PERFCOUNTER_U64 | PERFCOUNTER_LONGRUNAVG): {"avgcount": n, "sum": s}. */
static void add_u64_avg(cJSON *s, const char *key, const struct lat_sum *l)
{
    cJSON *o = cJSON_AddObjectToObject(s, key);
    add_u64(o, "avgcount", l->avgcount);
    add_u64(o, "sum", l->sum_ns);
}

cJSON *perfdump_client(const struct objecter_perf *p)
{
    cJSON *root = cJSON_CreateObject();
    cJSON *s = cJSON_AddObjectToObject(root, "objecter");
    add_u64(s, "op_active", p->op_active);
    add_u64(s, "op_send", p->op_send);
    add_u64(s, "op_send_bytes", p->op_send_bytes);
    add_u64(s, "op_resend", 0);
    add_u64(s, "op_reply", p->op_reply);
    add_u64_avg(s, "oplen_avg", &p->oplen_avg);
    add_u64(s, "op", p->op);
    add_u64(s, "op_r", p->op_r);
    add_u64(s, "op_w", p->op_w);
    add_u64(s, "op_rmw", p->op_rmw);
    add_u64(s, "osdop_stat", p->osdop_stat);
    add_u64(s, "osdop_read", p->osdop_read);
    add_u64(s, "osdop_write", p->osdop_write);
    add_u64(s, "osdop_writefull", p->osdop_writefull);
    add_u64(s, "osdop_call", p->osdop_call);
    add_u64(s, "osdop_notify", p->osdop_notify);
    add_u64(s, "osdop_other", p->osdop_other);
    add_throttle(root, "objecter_bytes", &p->throttle_bytes);
    add_throttle(root, "objecter_ops", &p->throttle_ops);
    return root;
}

/* A time counter (not an average): seconds "%d.%09d". */
static void add_time_total(cJSON *s, const char *key, uint64_t ns)
{
    char buf[48];
    snprintf(buf, sizeof buf, "%" PRIu64 ".%09" PRIu64, ns / 1000000000u, ns % 1000000000u);
    add_raw_number(s, key, buf, (double)ns / 1e9);
}

cJSON *perfdump_osd(const struct osd_perf *osd, const struct bluestore_perf *bs)
{
    return perfdump_osd_msgr(osd, bs, NULL, NULL, 0);
}

cJSON *perfdump_osd_msgr(const struct osd_perf *osd, const struct bluestore_perf *bs,
                         const struct msgr_worker_perf *w, const uint64_t *running_ns, uint32_t n_workers)
{
    cJSON *root = cJSON_CreateObject();
    /* "AsyncMessenger::Worker-N" sorts first (upper case) */
    for (uint32_t i = 0; w && i < n_workers; i++) {
        char name[64];
        snprintf(name, sizeof name, "AsyncMessenger::Worker-%u", i);
        cJSON *s = cJSON_AddObjectToObject(root, name);
        add_u64(s, "msgr_recv_messages", w[i].recv_messages);
        add_u64(s, "msgr_send_messages", w[i].send_messages);
        add_u64(s, "msgr_recv_bytes", w[i].recv_bytes);
        add_u64(s, "msgr_send_bytes", w[i].send_bytes);
        add_time_total(s, "msgr_running_total_time", running_ns ? running_ns[i] : 0);
        add_time_total(s, "msgr_running_send_time", w[i].send_ns);
        perfdump_add_time(s, "msgr_send_messages_queue_lat", &w[i].send_queue_lat);
    }
    if (bs)
        cJSON_AddItemToObject(root, "bluestore", bluestore_section(bs));
    if (osd || bs) {
        cJSON *c = cJSON_AddObjectToObject(root, "cephsim");
        if (osd) {
            add_u64(c, "rw_lock_waits", osd->rw_lock_waits);
            add_u64(c, "requeues", osd->requeues);
        }
        if (bs) {
            add_u64(c, "kv_batches", bs->kv_batches);
            add_u64(c, "rocksdb_bg_txcs_queued", bs->rocksdb_bg_txcs_queued);
            add_u64(c, "rocksdb_bg_txcs_done", bs->rocksdb_bg_txcs_done);
        }
    }
    if (osd) {
        add_idle_finisher(root, "finisher-commit_finisher");
        add_idle_finisher(root, "finisher-objecter-finisher-0");
        cJSON_AddItemToObject(root, "osd", osd_section(osd));
    }
    if (bs) {
        /* RocksDBStore's logger: only the submits have a counterpart (no gets: onodes stay cached;
           no compactions) */
        cJSON *r = cJSON_AddObjectToObject(root, "rocksdb");
        perfdump_add_time(r, "submit_latency", &bs->rocksdb_submit_latency);
        perfdump_add_time(r, "submit_sync_latency", &bs->rocksdb_submit_sync_latency);
        add_throttle(root, "bluestore_throttle_bytes", &bs->throttle_bytes);
    }
    if (osd) {
        add_throttle(root, "osd_client_bytes", &osd->client_bytes);
        add_throttle(root, "osd_client_messages", &osd->client_messages);
    }
    return root;
}
