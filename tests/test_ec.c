/*
 * test_ec.c - the erasure-coded pool's data path (models/ceph/ec.c) end to
 * end, on a small cluster from an inline scenario (4 hosts x 1 OSD, EC 2+1
 * or 2+2, stripe_unit 4 KiB, a prefilled 64 MiB image), checked against
 * counts worked out by hand from ECBackend's rules:
 *
 *  - a 4 KiB write inside a 8 KiB stripe (k = 2) reads the stripe first: one
 *    BlueStore read on each of the k data shards (device reads per client
 *    write = k, nothing cached), then every shard writes its chunk: k + m
 *    BlueStore transactions per client write, none of them subops, and at
 *    QD=1 k + m more: the log-only roll-forward (try_finish_rmw's dummy op);
 *  - a write of whole stripes (bs 8 KiB aligned) reads nothing and still
 *    writes k + m chunks of 4 KiB;
 *  - a 4 KiB read reads its whole stripe: k device reads per client read;
 *  - a fresh image (image.written 0): a write to an object that did not
 *    exist reads nothing (ECTransaction reads only below the object's size);
 *  - the rollback extent's keys: kv_sync's CPU per transaction grows by
 *    4 keys' memtable inserts, by hand from the insert cost and levels;
 *  - latency: an EC 2+1 QD=1 write waits for a read round trip and a write
 *    round trip, so it is slower than the replicated size-3 write on the
 *    same cluster by at least a device read;
 *  - bad input: k / m on a replicated pool, pool.size against k + m;
 *  - the default profile per release (m=1 before 15.2).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bluestore.h"
#include "cluster.h"
#include "scenario.h"
#include "stats.h"

#define BASE_JSON(POOL)                                                                                        \
    "{\"description\": \"test_ec\"," \
    " \"cluster\": {\"hosts\": 4, \"osds_per_host\": 1, \"client_hosts\": 1, \"cpu\": \"epyc-7302p\"," \
    "   \"nvme\": \"pm983\", \"nic\": \"10gbase-t\", \"switch\": \"tor-cut-through\", \"max_cstate\": \"C1\"," \
    "   \"governor\": \"performance\"}," \
    " \"pool\": " POOL "," \
    " \"image\": {\"kind\": \"plain\", \"size_gib\": 0.0625}," \
    " \"ceph\": {\"release\": \"17.2.7\", \"rbd_io_scheduler\": \"none\"}," \
    " \"clients\": {\"jobs\": \"[w]\\nioengine=rbd\\nrw=randwrite\\nbs=4k\\niodepth=1\\ntime_based\\n\"}," \
    " \"sim\": {\"duration_s\": 0.2, \"warmup_s\": 0.02, \"seed\": 1, \"replications\": 1}}"
static const char ec_json[] = BASE_JSON("{\"type\": \"erasure\", \"k\": 2, \"m\": 1, \"pg_num\": 32}");
static const char rep_json[] = BASE_JSON("{\"size\": 3, \"pg_num\": 32}");
static const char default_json[] = BASE_JSON("{\"type\": \"erasure\", \"pg_num\": 32}");

struct counts {
    uint64_t client_w, client_r, subop_w, device_reads, txcs, hit_bytes;
    double lat_us;
    double kv_sync_ns; /* bstore_kv_sync CPU of every OSD */
};

static int load(struct scenario *sc, const char *const *sets, int n, struct sim_err *err)
{
    return scenario_load(sc, NULL, ec_json, "test_ec.json", sets, n, err);
}

static struct counts run_json(const char *json, const char *const *sets, int n)
{
    struct scenario sc;
    struct sim_err err = {0};
    if (scenario_load(&sc, NULL, json, "test_ec.json", sets, n, &err) < 0)
        fail_msg("scenario: %s", err.msg);
    struct cluster_spec spec;
    if (scenario_to_spec(&sc, 0, &spec, &err) < 0)
        fail_msg("spec: %s", err.msg);
    struct cluster *c = cluster_create(&spec, &err);
    if (!c)
        fail_msg("cluster: %s", err.msg);
    cluster_run(c, NULL, NULL);
    struct counts k = {0};
    for (uint32_t o = 0; o < cluster_n_osds(c); o++) {
        const struct osd_perf *p = cluster_osd_perf(c, o);
        k.client_w += p->op_w.count;
        k.client_r += p->op_r.count;
        k.subop_w += p->subop_w;
        struct cluster_osd_stats st;
        cluster_osd_stats(c, o, &st);
        k.device_reads += st.device_reads;
        k.txcs += st.txcs;
        k.hit_bytes += cluster_bluestore_perf(c, o)->bluestore_buffer_hit_bytes;
    }
    struct cluster_thread_stats th[CLUSTER_THREAD_KINDS_MAX];
    uint32_t n_kinds = cluster_process_thread_stats(c, "ceph-osd", th, CLUSTER_THREAD_KINDS_MAX);
    for (uint32_t i = 0; i < n_kinds; i++)
        if (strcmp(th[i].name, "bstore_kv_sync") == 0)
            k.kv_sync_ns += th[i].cpu_ns;
    const struct job_result *jr = cluster_job_results(c);
    const struct job_ddir_stats *d = &jr->dir[jr->dir[FIO_DDIR_WRITE].total_ios ? FIO_DDIR_WRITE : FIO_DDIR_READ];
    k.lat_us = hist_mean(&d->clat) / 1e3;
    cluster_destroy(c);
    scenario_free(&sc);
    print_message("  client w %llu r %llu, subop_w %llu, device reads %llu, txcs %llu, lat %.1f us\n",
                  (unsigned long long)k.client_w, (unsigned long long)k.client_r, (unsigned long long)k.subop_w,
                  (unsigned long long)k.device_reads, (unsigned long long)k.txcs, k.lat_us);
    return k;
}

static struct counts run(const char *const *sets, int n)
{
    return run_json(ec_json, sets, n);
}

/* Ops in flight when the measurement starts and ends blur a count by a few. */
static void assert_per_op(uint64_t count, uint64_t ops, double want, const char *what)
{
    double got = (double)count / (double)ops;
    if (ops < 50 || got < want - 0.05 * want - 0.02 || got > want + 0.05 * want + 0.02)
        fail_msg("%s: %.3f per op over %llu ops, want %.3f", what, got, (unsigned long long)ops, want);
}

static void partial_stripe_write_reads_the_stripe(void **state)
{
    (void)state;
    struct counts k = run(NULL, 0);
    assert_per_op(k.device_reads, k.client_w, 2, "device reads per 4 KiB write (k = 2)");
    /* k + m chunk writes, then (QD=1: the PG's pipeline drains after each)
       try_finish_rmw's log-only roll-forward on every shard: 2 (k + m), as
       the lab's 16.2.15 EC 2+1 pool did (tests/data/lab7: 6.0 per write) */
    assert_per_op(k.txcs, k.client_w, 6, "BlueStore transactions per write (2 (k + m) = 6)");
    /* ECBackend::handle_sub_write counts no subop (lab7: none) */
    assert_int_equal(k.subop_w, 0);
    const char *m2[] = {"pool.m=2"};
    k = run(m2, 1);
    assert_per_op(k.device_reads, k.client_w, 2, "device reads per write, 2+2");
    assert_per_op(k.txcs, k.client_w, 8, "transactions per write, 2+2");
}

static void full_stripe_write_reads_nothing(void **state)
{
    (void)state;
    const char *sets[] = {"clients.jobs=[w]\nioengine=rbd\nrw=randwrite\nbs=8k\niodepth=1\ntime_based\n"};
    struct counts k = run(sets, 1);
    assert_int_equal(k.device_reads, 0);
    assert_per_op(k.txcs, k.client_w, 6, "transactions per 8 KiB (one stripe) write, roll-forward included");
}

static void read_reads_the_whole_stripe(void **state)
{
    (void)state;
    const char *sets[] = {"clients.jobs=[r]\nioengine=rbd\nrw=randread\nbs=4k\niodepth=1\ntime_based\n"};
    struct counts k = run(sets, 1);
    assert_true(k.client_w == 0 && k.txcs == 0);
    /* a first read of a chunk misses; a few stripes are read twice in the run
       and hit the shards' caches (bluestore_default_buffered_read) */
    double reads = (double)k.device_reads + (double)k.hit_bytes / 4096.0;
    assert_per_op((uint64_t)reads, k.client_r, 2, "shard chunk reads per 4 KiB read (k = 2)");
}

static void fresh_objects_are_not_read(void **state)
{
    (void)state;
    /* a fresh 64 MiB image has 16 objects: the first write of each creates
       it without a read, every later one reads its stripe */
    const char *sets[] = {"image.written=0", "image.size_gib=4"};
    struct counts k = run(sets, 2);
    /* 1,024 objects and ~220 writes: most find no object, and each that
       finds one (written earlier in the run) reads k chunks */
    assert_true(k.client_w > 150);
    assert_true(k.device_reads % 2 == 0);
    assert_true(k.device_reads < k.client_w / 2);
    const char *prefilled[] = {"image.size_gib=4"};
    k = run(prefilled, 1);
    assert_per_op(k.device_reads, k.client_w, 2, "device reads per write on the prefilled 4 GiB image");
}

static void slower_than_replicated_by_a_read(void **state)
{
    (void)state;
    /* QD=1: the stripe's read (the slower of two shards' device reads, and a
       message each way) comes before the writes, which are the replicated
       write's plus one shard less: at least a device read (85 us on the
       PM983) more */
    struct counts ec = run(NULL, 0), rep = run_json(rep_json, NULL, 0);
    assert_true(ec.lat_us > rep.lat_us + 85);
    assert_true(ec.lat_us < 2 * rep.lat_us);
    /* a replicated pool refuses the profile's keys */
    const char *sets[] = {"pool.k=4"};
    struct scenario sc;
    struct sim_err err = {0};
    assert_true(scenario_load(&sc, NULL, rep_json, "test_ec.json", sets, 1, &err) < 0);
    assert_non_null(strstr(err.msg, "pool.k"));
    assert_non_null(strstr(err.msg, "only an erasure pool"));
}

static void rollback_keys_cost_kv_sync(void **state)
{
    (void)state;
    /* Each overwrite's rollback extent puts 4 more keys into the memtable on
       kv_sync: 4 x rocksdb_memtable_insert_us x the levels an insert walks
       (Quincy's 4 x 256 MiB memtables) per transaction, at the 7302P's
       single-core boost (3.3 GHz against the costs' 3.0 GHz reference). */
    const char *none[] = {"cost.bluestore_ec_rollback_keys_per_txc=0"};
    struct counts with = run(NULL, 0), without = run(none, 1);
    /* per chunk write (k + m = 3 per client write): the roll-forward's
       transactions carry no rollback extent */
    double per_txc_us = (with.kv_sync_ns / (double)with.client_w - without.kv_sync_ns / (double)without.client_w) /
                        3 / 1e3;
    double want = 4 * 0.1474 * memtable_insert_levels(256.0 * 1048576, 533625) * 3.0 / 3.3;
    print_message("  kv_sync per txc: +%.2f us with the rollback keys (hand: %.2f)\n", per_txc_us, want);
    assert_true(fabs(per_txc_us - want) < 0.1 * want);
}

static void size_must_be_k_plus_m(void **state)
{
    (void)state;
    const char *sets[] = {"pool.size=3", "pool.m=2"};
    struct scenario sc;
    struct sim_err err = {0};
    assert_true(load(&sc, sets, 2, &err) < 0);
    assert_non_null(strstr(err.msg, "pool.size"));
    assert_non_null(strstr(err.msg, "k + m = 4"));
    const char *ok[] = {"pool.size=3"};
    assert_int_equal(load(&sc, ok, 1, &err), 0);
    assert_int_equal(sc.pool.size, 3);
    assert_int_equal(sc.pool.min_size, 2); /* k + min(1, m - 1) */
    scenario_free(&sc);
    const char *big[] = {"pool.k=4", "pool.m=1"}; /* 5 shards on 4 OSDs */
    assert_true(load(&sc, big, 2, &err) < 0);
    assert_non_null(strstr(err.msg, "5 shards need at least 5 OSDs"));
}

/* osd_pool_default_erasure_code_profile: k=2 m=1 before 15.2, k=2 m=2 since (ceph PR 27656, ceph-conf on 16.2.15) */
static void default_profile_per_release(void **state)
{
    (void)state;
    static const struct {
        const char *release;
        int64_t m, size, min_size;
    } rows[] = {{"14.2.22", 1, 3, 2}, {"15.2.17", 2, 4, 3}, {"16.2.15", 2, 4, 3}, {"18.2.4", 2, 4, 3}};
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        char set[64];
        snprintf(set, sizeof set, "ceph.release=%s", rows[i].release);
        const char *sets[] = {set};
        struct scenario sc;
        struct sim_err err = {0};
        if (scenario_load(&sc, NULL, default_json, "test_ec.json", sets, 1, &err) < 0)
            fail_msg("%s: %s", rows[i].release, err.msg);
        assert_int_equal(sc.pool.k, 2);
        assert_int_equal(sc.pool.m, rows[i].m);
        assert_int_equal(sc.pool.size, rows[i].size);
        assert_int_equal(sc.pool.min_size, rows[i].min_size);
        assert_int_equal(sc.pool.stripe_unit, 4096);
        scenario_free(&sc);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(partial_stripe_write_reads_the_stripe),
        cmocka_unit_test(full_stripe_write_reads_nothing),
        cmocka_unit_test(read_reads_the_whole_stripe),
        cmocka_unit_test(fresh_objects_are_not_read),
        cmocka_unit_test(slower_than_replicated_by_a_read),
        cmocka_unit_test(rollback_keys_cost_kv_sync),
        cmocka_unit_test(size_must_be_k_plus_m),
        cmocka_unit_test(default_profile_per_release),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
