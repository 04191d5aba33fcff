/*
 * test_bluestore.c - BlueStore's device traffic (models/ceph/bluestore.c on
 * models/hw/nvme.c), on a small cluster from an inline scenario (3 hosts x 2
 * PM983 OSDs, size 3, QD=1 4k random writes), checked through the perf
 * counters and per-OSD device counts against hand calculations from the
 * profile's numbers:
 *  - the kv_sync thread's RocksDB WAL write is a sequential append (BlueFS):
 *    kv_commit_lat = WAL write + BlueFS fsync = the drive's sequential write
 *    latency + the fdatasync syscall, not its random write latency;
 *  - bluestore_throttle_deferred_bytes (BlueStoreThrottle: max =
 *    throttle_bytes + throttle_deferred_bytes, taken by a deferred txc at
 *    queue time, given back when its deferred write is done, and past its
 *    midpoint the queued deferred writes are submitted) decides how deferred
 *    writes are batched, and blocks new deferred txcs when it is full.
 * Run from the repository root (hardware profiles in ./hw-profiles).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cluster.h"
#include "perfcounters.h"
#include "scenario.h"

static const char base_json[] =
    "{\"description\": \"test_bluestore\","
    " \"cluster\": {\"hosts\": 3, \"osds_per_host\": 2, \"client_hosts\": 1, \"cpu\": \"epyc-7302p\","
    "   \"nvme\": \"pm983\", \"nic\": \"10gbase-t\", \"switch\": \"tor-cut-through\", \"max_cstate\": \"C1\","
    "   \"governor\": \"performance\"},"
    " \"pool\": {\"size\": 3, \"min_size\": 1, \"pg_num\": 32},"
    " \"image\": {\"kind\": \"plain\", \"size_gib\": 0.0625},"
    " \"ceph\": {\"release\": \"16.2.14\", \"rbd_io_scheduler\": \"none\","
    "   \"debug_osd\": 0, \"debug_ms\": 0, \"debug_bluestore\": 0, \"debug_rocksdb\": 0, \"debug_bdev\": 0},"
    " \"clients\": {\"jobs\": \"[w]\\nioengine=rbd\\nrw=randwrite\\nbs=4k\\niodepth=1\\ntime_based\\n\"},"
    " \"sim\": {\"duration_s\": 0.3, \"warmup_s\": 0.02, \"seed\": 1, \"replications\": 1}}";

struct totals {
    double kv_commit_mean_us;       /* over every OSD's txcs */
    uint64_t kv_commits;
    uint64_t txcs, device_writes, kv_batches;
    uint64_t deferred_ops;
    uint64_t throttle_wait_ns;      /* throttle_lat sum */
};

static struct totals run(const char *const *sets, int n_sets)
{
    struct sim_err err = {0};
    struct scenario sc;
    if (scenario_load(&sc, NULL, base_json, "test_bluestore.json", sets, n_sets, &err) < 0)
        fail_msg("scenario: %s", err.msg);
    struct cluster_spec spec;
    if (scenario_to_spec(&sc, 0, &spec, &err) < 0)
        fail_msg("spec: %s", err.msg);
    struct cluster *c = cluster_create(&spec, &err);
    if (!c)
        fail_msg("cluster: %s", err.msg);
    cluster_run(c, NULL, NULL);
    struct totals t = {0};
    uint64_t kv_sum = 0;
    for (uint32_t i = 0; i < cluster_n_osds(c); i++) {
        const struct bluestore_perf *bp = cluster_bluestore_perf(c, i);
        struct cluster_osd_stats os;
        cluster_osd_stats(c, i, &os);
        kv_sum += bp->kv_commit_lat.sum_ns;
        t.kv_commits += bp->kv_commit_lat.avgcount;
        t.txcs += os.txcs;
        t.device_writes += os.device_writes;
        t.kv_batches += os.kv_batches;
        t.deferred_ops += bp->deferred_write_ops;
        t.throttle_wait_ns += bp->throttle_lat.sum_ns;
    }
    t.kv_commit_mean_us = t.kv_commits ? (double)kv_sum / (double)t.kv_commits / 1e3 : 0;
    cluster_destroy(c);
    scenario_free(&sc);
    return t;
}

/*
 * At QD=1 each OSD commits one txc at a time, on an idle drive: its kv batch
 * is that txc, whose 2,048-byte WAL record rounds up to one 4 KiB append.
 * kv_commit_lat runs from the WAL submit to the end of the BlueFS fsync, so
 * by hand it is seq_write_latency_us (pm983: 15, datasheet) + the PLP
 * drive's fdatasync syscall (flush_latency_us 2) = 17 us on average
 * (lognormal CV 0.25 over ~1,500 txcs: standard error ~0.1 us).  It was
 * write_latency_us + 2 = 52 us when the WAL counted as a random write.  With
 * seq_write_latency_us 30: 32 us; a slower random write (80 us) leaves it.
 */
static void test_wal_write_is_sequential(void **state)
{
    const struct {
        const char *set;
        double want_us;
    } cases[] = {
        {NULL, 15 + 2},
        {"hw.nvme.seq_write_latency_us=30", 30 + 2},
        {"hw.nvme.write_latency_us=80", 15 + 2},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *sets[1] = {cases[i].set};
        struct totals t = run(sets, cases[i].set ? 1 : 0);
        assert_true(t.kv_commits > 1000);
        /* one txc per batch at QD=1 (one per OSD may straddle the warm-up cut or the end) */
        assert_true(t.kv_batches <= t.txcs + 6 && t.kv_batches + 6 >= t.txcs);
        if (fabs(t.kv_commit_mean_us - cases[i].want_us) > 0.6)
            fail_msg("%s: kv_commit_lat mean %.3f us, expected %.1f", cases[i].set ? cases[i].set : "pm983",
                     t.kv_commit_mean_us, cases[i].want_us);
    }
}

/*
 * Deferred 4k writes (bluestore_prefer_deferred_size_ssd 64 KiB), QD=1: a
 * txc has no data aio, one WAL append, and its deferred write goes out in a
 * batch.  A deferred txc's throttle cost is (1 + 0 aios) x 4,000 + 4,096 =
 * 8,096 bytes.  Device writes per txc, by hand:
 *  - default throttle (64 + 128 MiB, never half full): a batch per
 *    bluestore_deferred_batch_ops_ssd = 16 txcs: 1 + 1/16 = 1.0625;
 *  - throttle_bytes + deferred_bytes = 8 x 8,096 = 64,768: past its midpoint
 *    (32,384 = 4 txcs held: the earlier batches are done long before the
 *    next write arrives) the queue is submitted: 1 + 1/4 = 1.25;
 *  - max = 8,096 (one txc): every deferred write alone: 1 + 1 = 2.
 * (+-0.012: batches cut by the start and end of the measured interval, 6
 * OSDs over ~1,500 txcs.)  At QD=1 nobody waits for the throttle; at QD=16
 * with room for one deferred txc per OSD the next one waits for the
 * previous deferred write (throttle_lat > 0), and with the default never.
 */
static void test_deferred_throttle(void **state)
{
    const struct {
        const char *bytes, *deferred;
        double want;
    } cases[] = {
        {NULL, NULL, 1 + 1.0 / 16},
        {"ceph.bluestore_throttle_bytes=32384", "ceph.bluestore_throttle_deferred_bytes=32384", 1.25},
        {"ceph.bluestore_throttle_bytes=8096", "ceph.bluestore_throttle_deferred_bytes=0", 2},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *sets[3] = {"ceph.bluestore_prefer_deferred_size_ssd=65536", cases[i].bytes, cases[i].deferred};
        struct totals t = run(sets, cases[i].bytes ? 3 : 1);
        assert_true(t.txcs > 1000);
        assert_int_equal(t.deferred_ops, t.txcs);
        double per = (double)t.device_writes / (double)t.txcs;
        if (fabs(per - cases[i].want) > 0.012)
            fail_msg("case %zu: %.4f device writes per txc, expected %.4f", i, per, cases[i].want);
        assert_int_equal(t.throttle_wait_ns, 0);
    }
    const char *deep[4] = {"ceph.bluestore_prefer_deferred_size_ssd=65536", "fio.iodepth=16",
                           "ceph.bluestore_throttle_bytes=8096", "ceph.bluestore_throttle_deferred_bytes=0"};
    struct totals small = run(deep, 4);
    struct totals dflt = run(deep, 2);
    assert_true(small.throttle_wait_ns > 0);
    assert_int_equal(dflt.throttle_wait_ns, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_wal_write_is_sequential),
        cmocka_unit_test(test_deferred_throttle),
    };
    return cmocka_run_group_tests_name("bluestore", tests, NULL, NULL);
}
