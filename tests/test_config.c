/*
 * test_config.c - ceph.release as Ceph ships it (models/ceph/config.c,
 * release_table.c):
 *  - per-release defaults against values read by hand in each release's
 *    options source (the lines are cited next to each row);
 *  - every table row names a ceph option, holds a value the option accepts,
 *    and every series is contiguous (a lookup finds the row it should);
 *  - unknown releases are refused with the list of the known ones;
 *  - a ceph.<option> the user gives wins over the release's default, from
 *    the scenario file and from --set;
 *  - the direction of the 16 KiB min_alloc_size of 12.2 and 14.2.0-14.2.7: 4 KiB
 *    writes become deferred (WAL) writes, so QD=1 write latency on NVMe drops
 *    (no data aio before the kv commit), against 14.2.8 on the same hardware.
 *    (Device write counts are not compared: the model writes a deferred
 *    batch as one device write where Ceph's _deferred_submit_unlock issues
 *    one aio per non-contiguous extent; test_bluestore holds that.)
 * Run from the repository root (hardware profiles in ./hw-profiles).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cluster.h"
#include "config.h"
#include "release_table.h"
#include "scenario.h"

static void options_of(const char *release, struct ceph_options *o)
{
    struct release_traits t;
    struct sim_err err = {0};
    if (release_parse(release, &t, &err) < 0)
        fail_msg("%s: %s", release, err.msg);
    ceph_options_defaults(o);
    if (ceph_options_apply_release(o, &t, NULL, &err) < 0)
        fail_msg("%s: %s", release, err.msg);
}

/* Hand-read defaults: the file and line of each release's own source. */
static void test_defaults_per_release(void **state)
{
    struct ceph_options o;
    /* v12.2.8 (ae699615ba) src/common/options.cc:3405-3406 Option("bluestore_min_alloc_size_ssd")
       .set_default(16_K); :1996-1997 Option("osd_op_queue") .set_default("wpq"); :1716-1717
       Option("osd_client_message_cap") .set_default(100); :1984-1985 osd_op_num_shards_ssd 8;
       :5750-5751 rbd_cache_max_dirty 24<<20; no rbd_io_scheduler option (modelled as 14.2: none);
       src/common/subsys.h:48 SUBSYS(ms, 0, 5) (the model takes the gather level, 5) */
    options_of("12.2.8", &o);
    assert_int_equal(o.bluestore_min_alloc_size_ssd, 16384);
    assert_int_equal(o.osd_op_queue, OSD_OP_QUEUE_WPQ);
    assert_int_equal(o.osd_client_message_cap, 100);
    assert_int_equal(o.osd_op_num_shards_ssd, 8);
    assert_int_equal(o.rbd_cache_max_dirty, 24 << 20);
    assert_int_equal(o.rbd_io_scheduler, RBD_IO_SCHEDULER_NONE);
    assert_int_equal(o.debug_ms, 5);
    /* v12.2.0 src/common/options.cc:3228-3229 .set_default(16*1024), :1614-1615
       osd_client_message_size_cap .set_default(500*1024L*1024L); a bare name is the series' first */
    options_of("luminous", &o);
    assert_int_equal(o.bluestore_min_alloc_size_ssd, 16384);
    assert_int_equal(o.osd_client_message_size_cap, 500LL << 20);
    options_of("12.2.13", &o);
    assert_int_equal(o.bluestore_min_alloc_size_ssd, 16384);
    /* v14.2.4 src/common/options.cc: Option("bluestore_min_alloc_size_ssd") .set_default(16_K);
       Option("osd_client_message_cap") .set_default(100); no rbd_io_scheduler option */
    options_of("14.2.4", &o);
    assert_int_equal(o.bluestore_min_alloc_size_ssd, 16384);
    assert_int_equal(o.osd_client_message_cap, 100);
    assert_int_equal(o.rbd_io_scheduler, RBD_IO_SCHEDULER_NONE);
    assert_int_equal(o.osd_op_queue, OSD_OP_QUEUE_WPQ);
    /* v14.2.8: commit 698ef897bf "common/options: Set bluestore min_alloc size to 4K" */
    options_of("14.2.8", &o);
    assert_int_equal(o.bluestore_min_alloc_size_ssd, 4096);
    /* v14.2.11: .set_default(0) (0d62fe99ca, Revert "ceph_osd: remove client message cap limit") */
    options_of("14.2.22", &o);
    assert_int_equal(o.osd_client_message_cap, 0);
    /* v15.2.0: rbd_io_scheduler .set_default("simple"), osd_client_message_cap 100 until 15.2.4 */
    options_of("15.2.4", &o);
    assert_int_equal(o.rbd_io_scheduler, RBD_IO_SCHEDULER_SIMPLE);
    assert_int_equal(o.osd_client_message_cap, 100);
    assert_int_equal(o.bluestore_min_alloc_size_ssd, 4096);
    /* 16.2.15, `ceph-conf -D` of Debian's packages: osd_client_message_cap = 256, osd_op_queue = wpq */
    options_of("16.2.15", &o);
    assert_int_equal(o.osd_client_message_cap, 256);
    assert_int_equal(o.osd_op_queue, OSD_OP_QUEUE_WPQ);
    assert_int_equal(o.bluestore_prefer_deferred_size_ssd, 0);
    assert_int_equal(o.bluestore_deferred_batch_ops_ssd, 16);
    assert_int_equal(o.osd_op_num_shards_ssd, 8);
    assert_int_equal(o.osd_op_num_threads_per_shard_ssd, 2);
    assert_int_equal(o.ms_async_op_threads, 3);
    assert_int_equal(o.rbd_cache_max_dirty, 24 << 20);
    /* v17.2.7 src/common/options/osd.yaml.in: osd_op_queue default: mclock_scheduler */
    options_of("17.2.7", &o);
    assert_int_equal(o.osd_op_queue, OSD_OP_QUEUE_MCLOCK);
    options_of("reef", &o);
    assert_int_equal(o.osd_op_queue, OSD_OP_QUEUE_MCLOCK);
    options_of("crimson", &o);
    assert_int_equal(o.osd_op_queue, OSD_OP_QUEUE_MCLOCK);
}

/* The table's rows: options the model knows, values they accept, series in order. */
static void test_table_rows(void **state)
{
    assert_true(release_table_rows >= 6);
    for (int i = 0; i < release_table_rows; i++) {
        const struct release_defaults *r = &release_table[i];
        assert_non_null(r->read_from);
        assert_true(r->n_options > 0);
        struct ceph_options o;
        ceph_options_defaults(&o);
        for (int k = 0; k < r->n_options; k++) {
            const struct param_def *d = param_find(ceph_option_params, r->options[k].name);
            if (!d)
                fail_msg("row %d.%d.%d: %s is no ceph option", r->major, r->minor, r->from_patch, r->options[k].name);
            struct sim_err err = {0};
            if (param_set_text(d, &o, r->options[k].value, "table", d->name, &err) < 0)
                fail_msg("row %d.%d.%d: %s", r->major, r->minor, r->from_patch, err.msg);
        }
        /* the lookup of the row's own first release finds the row */
        struct release_traits t = {.major = r->major, .minor = r->minor, .patch = r->from_patch};
        assert_ptr_equal(release_defaults_for(&t), r);
        if (i > 0 && release_table[i - 1].major == r->major)
            assert_true(release_table[i - 1].from_patch < r->from_patch);
    }
    /* a patch before the first row read stands on the series' first row */
    struct release_traits t = {.major = 16, .minor = 2, .patch = 0};
    const struct release_defaults *r = release_defaults_for(&t);
    assert_non_null(r);
    assert_int_equal(r->major, 16);
}

static void test_unknown_release_refused(void **state)
{
    const char *bad[] = {"13.2.10", "11.2.1", "10.2.11", "12.1.4", "20.2.0", "tentacle", "16.1.0", "16.3.0", "mimic", "kraken"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct release_traits t;
        struct sim_err err = {0};
        assert_int_equal(release_parse(bad[i], &t, &err), -EINVAL);
        assert_non_null(strstr(err.msg, bad[i]));
        assert_non_null(strstr(err.msg, "known: 12.2.x (luminous), 14.2.x (nautilus)"));
        assert_non_null(strstr(err.msg, "19.2.x (squid)"));
        assert_null(strchr(err.msg, '\n'));
    }
    /* a point release after a series' last one (docs.ceph.com's index) is
       refused too, naming that last one; the last ones themselves are known */
    const struct { const char *release, *last; } late[] = {
        {"12.2.14", "12.2.13"}, {"14.2.23", "14.2.22"}, {"15.2.18", "15.2.17"}, {"16.2.16", "16.2.15"},
        {"16.2.99", "16.2.15"}, {"17.2.10", "17.2.9"}, {"18.2.9", "18.2.8"}, {"19.2.5", "19.2.4"}};
    for (size_t i = 0; i < sizeof late / sizeof late[0]; i++) {
        struct release_traits t;
        struct sim_err err = {0};
        assert_int_equal(release_parse(late[i].release, &t, &err), -EINVAL);
        assert_non_null(strstr(err.msg, late[i].release));
        assert_non_null(strstr(err.msg, late[i].last));
        assert_int_equal(release_parse(late[i].last, &t, &err), 0);
    }
}

static const char base_json[] =
    "{\"description\": \"test_config\","
    " \"cluster\": {\"hosts\": 3, \"osds_per_host\": 1, \"client_hosts\": 1, \"cpu\": \"epyc-7302p\","
    "   \"nvme\": \"pm983\", \"nic\": \"10gbase-t\", \"switch\": \"tor-cut-through\", \"max_cstate\": \"C1\","
    "   \"governor\": \"performance\"},"
    " \"pool\": {\"size\": 3, \"min_size\": 1, \"pg_num\": 32},"
    " \"image\": {\"kind\": \"plain\", \"size_gib\": 0.0625},"
    " \"ceph\": {\"release\": \"16.2.15\", \"osd_client_message_cap\": 77,"
    "   \"debug_osd\": 0, \"debug_ms\": 0, \"debug_bluestore\": 0, \"debug_rocksdb\": 0, \"debug_bdev\": 0},"
    " \"clients\": {\"jobs\": \"[w]\\nioengine=rbd\\nrw=randwrite\\nbs=4k\\niodepth=1\\ntime_based\\n\"},"
    " \"sim\": {\"duration_s\": 0.3, \"warmup_s\": 0.05, \"seed\": 1, \"replications\": 1}}";

static void load(struct scenario *sc, const char *const *sets, int n)
{
    struct sim_err err = {0};
    if (scenario_load(sc, NULL, base_json, "test_config.json", sets, n, &err) < 0)
        fail_msg("scenario: %s", err.msg);
}

/* A ceph.<option> given in the file or by --set wins over ceph.release. */
static void test_user_option_wins(void **state)
{
    struct scenario sc;
    const char *s1[] = {"ceph.release=14.2.4"};
    load(&sc, s1, 1);
    assert_int_equal(sc.ceph.osd_client_message_cap, 77); /* the file's, not 14.2.4's 100 */
    assert_int_equal(sc.ceph.bluestore_min_alloc_size_ssd, 16384);
    scenario_free(&sc);
    const char *s2[] = {"ceph.release=14.2.4", "ceph.bluestore_min_alloc_size_ssd=4096", "ceph.osd_op_queue=mclock_scheduler"};
    load(&sc, s2, 3);
    assert_int_equal(sc.ceph.bluestore_min_alloc_size_ssd, 4096);
    assert_int_equal(sc.ceph.osd_op_queue, OSD_OP_QUEUE_MCLOCK);
    scenario_free(&sc);
    /* the release error names where the release came from */
    const char *s3[] = {"ceph.release=13.2.10"};
    struct sim_err err = {0};
    assert_true(scenario_load(&sc, NULL, base_json, "test_config.json", s3, 1, &err) < 0);
    assert_non_null(strstr(err.msg, "--set ceph.release=13.2.10"));
    assert_non_null(strstr(err.msg, "known:"));
}

struct qd1 {
    double mean_us;
    uint64_t device_writes, device_flushes, deferred, ops;
};

static struct qd1 run_qd1(const char *release)
{
    char set[64];
    snprintf(set, sizeof set, "ceph.release=%s", release);
    const char *sets[] = {set};
    struct scenario sc;
    load(&sc, sets, 1);
    struct sim_err err = {0};
    struct cluster_spec spec;
    assert_int_equal(scenario_to_spec(&sc, 0, &spec, &err), 0);
    struct cluster *c = cluster_create(&spec, &err);
    assert_non_null(c);
    cluster_run(c, NULL, NULL);
    struct qd1 q = {0};
    const struct job_result *jr = cluster_job_results(c);
    q.mean_us = hist_mean(&jr[0].dir[FIO_DDIR_WRITE].clat) / 1e3;
    q.ops = jr[0].dir[FIO_DDIR_WRITE].total_ios;
    for (uint32_t i = 0; i < cluster_n_osds(c); i++) {
        struct cluster_osd_stats os;
        cluster_osd_stats(c, i, &os);
        q.device_writes += os.device_writes;
        q.device_flushes += os.device_flushes;
        q.deferred += cluster_bluestore_perf(c, i)->deferred_write_ops;
    }
    cluster_destroy(c);
    scenario_free(&sc);
    return q;
}

/* 16 KiB min_alloc (14.2.4) -> deferred 4 KiB writes -> lower QD=1 latency, more device writes. */
static void test_min_alloc_direction(void **state)
{
    struct qd1 old = run_qd1("14.2.4"), new = run_qd1("14.2.8");
    print_message("14.2.4: %.1f us, %llu ops, %llu device writes, %llu flushes, %llu deferred; 14.2.8: %.1f us, %llu, %llu, %llu, %llu\n",
                  old.mean_us, (unsigned long long)old.ops, (unsigned long long)old.device_writes,
                  (unsigned long long)old.device_flushes, (unsigned long long)old.deferred, new.mean_us,
                  (unsigned long long)new.ops, (unsigned long long)new.device_writes,
                  (unsigned long long)new.device_flushes, (unsigned long long)new.deferred);
    assert_true(old.deferred > 0);
    assert_int_equal(new.deferred, 0);
    /* Luminous' 16 KiB allocation unit defers 4 KiB writes as well */
    struct qd1 lum = run_qd1("12.2.8");
    print_message("12.2.8: %.1f us, %llu ops, %llu deferred\n", lum.mean_us, (unsigned long long)lum.ops,
                  (unsigned long long)lum.deferred);
    assert_true(lum.deferred > 0);
    /* a deferred txc commits after the WAL append alone: no data aio first */
    assert_true(old.mean_us < new.mean_us * 0.97);
    /* throughput follows latency at QD=1 */
    assert_true(old.ops > new.ops);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults_per_release),
        cmocka_unit_test(test_table_rows),
        cmocka_unit_test(test_unknown_release_refused),
        cmocka_unit_test(test_user_option_wins),
        cmocka_unit_test(test_min_alloc_direction),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
