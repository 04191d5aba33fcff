/*
 * test_cbt.c - cbt benchmark YAMLs as runs: the expansion cbt itself makes
 * (benchmarkfactory.all_configs, LibrbdFio.run_workloads) and each run's fio
 * command (LibrbdFio.mkfiocmd) as scenario overrides, on cbt's own example
 * files (tests/data/cbt/, from ceph/cbt); what is refused and what is noted.
 *
 * The expected counts and values are worked out by hand from cbt's code:
 * runtests.bluestore_example.yaml has list keys mode (6), op_size (11),
 * procs_per_volume [1], volumes_per_client [2], iodepth [32], osd_ra [4096]
 * -> 66 runs, mode slowest; 4 clients x 2 volumes x 1 proc x numjobs 1 =
 * 8 fio jobs, all on image img01 (use_existing_volumes + rbdname).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cbt.h"
#include "yaml.h"

static double num(const cJSON *row, const char *path)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(row, path);
    if (!cJSON_IsNumber(v))
        fail_msg("%s: not a number in the row", path);
    return v->valuedouble;
}

static const char *str(const cJSON *row, const char *path)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(row, path);
    if (!cJSON_IsString(v))
        fail_msg("%s: not a string in the row", path);
    return v->valuestring;
}

static bool has_note(const struct cbt_plan *pl, const char *part)
{
    for (int i = 0; i < pl->n_notes; i++)
        if (strstr(pl->notes[i], part))
            return true;
    return false;
}

static void plan_text(const char *text, struct cbt_plan *pl, int expect_rc, const char *expect_msg)
{
    struct sim_err err = {0};
    cJSON *y = yaml_parse(text, strlen(text), "c.yaml", &err);
    if (!y)
        fail_msg("yaml: %s", err.msg);
    int rc = cbt_plan_from_yaml(y, "c.yaml", pl, &err);
    if (expect_rc == 0 && rc < 0)
        fail_msg("cbt: %s", err.msg);
    if (expect_rc != 0) {
        assert_true(rc < 0);
        if (!strstr(err.msg, expect_msg))
            fail_msg("expected '%s' in: %s", expect_msg, err.msg);
        assert_null(strchr(err.msg, '\n'));
    }
}

static void bluestore_example(void **state)
{
    (void)state;
    struct cbt_plan pl;
    struct sim_err err = {0};
    if (cbt_plan_load("tests/data/cbt/runtests.bluestore_example.yaml", &pl, &err) < 0)
        fail_msg("%s", err.msg);
    assert_int_equal(cJSON_GetArraySize(pl.rows), 66);
    assert_null(pl.labels);
    assert_int_equal(pl.iterations, 1);
    static const char *const modes[] = {"read", "write", "randread", "randwrite", "rw", "randrw"};
    static const double sizes[] = {4194304, 2097152, 1048576, 524288, 262144, 131072, 65536, 32768, 16384, 8192, 4096};
    for (int i = 0; i < 66; i++) {
        const cJSON *r = cJSON_GetArrayItem(pl.rows, i);
        assert_string_equal(str(r, "fio.rw"), modes[i / 11]);
        assert_true(num(r, "fio.bs") == sizes[i % 11]);
        assert_true(num(r, "fio.iodepth") == 32);
        assert_true(num(r, "fio.numjobs") == 8);                /* 4 clients x 2 volumes x 1 proc x 1 job */
        assert_true(num(r, "clients.volumes_per_client") == 0); /* one image: rbdname img01 */
        assert_true(num(r, "pool.pg_num") == 8192);
        assert_true(num(r, "pool.size") == 3);
        assert_true(num(r, "cluster.hosts") == 4);
        assert_true(num(r, "cluster.osds_per_host") == 4);
        /* its 4 clients are its 4 OSD hosts: fio runs on them (hyperconverged) */
        assert_true(num(r, "cluster.client_hosts") == 0);
        assert_true(cJSON_IsTrue(cJSON_GetObjectItem(r, "cluster.clients_on_osd_hosts")));
        assert_true(num(r, "fio.runtime") == 300);
        assert_true(num(r, "image.size_gib") == 32);
        assert_true(num(r, "image.order") == 22);
        /* mkfiocmd passes rwmixread for randrw only (not for 'rw'): fio's default 50 otherwise */
        assert_true(num(r, "fio.rwmixread") == 50);
    }
    assert_true(has_note(&pl, "benchmarks.librbdfio.osd_ra: ignored: read-ahead"));
    assert_true(has_note(&pl, "cluster.fs, cluster.mkfs_opts, cluster.mount_opts: ignored"));
    assert_true(has_note(&pl, "volumes per client are one image"));
    assert_false(has_note(&pl, "clients are also OSD hosts"));
    cbt_plan_free(&pl);
}

static void workloads_expand_as_run_workloads(void **state)
{
    (void)state;
    struct cbt_plan pl;
    struct sim_err err = {0};
    if (cbt_plan_load("tests/data/cbt/rbd_fio_test.yml", &pl, &err) < 0)
        fail_msg("%s", err.msg);
    /* 9 top-level permutations (iodepth x numjobs) each run the 3 workloads with their own
       numjobs and iodepth: 27 fio commands, 3 distinct */
    assert_int_equal(cJSON_GetArraySize(pl.rows), 3);
    assert_int_equal(cJSON_GetArraySize(pl.labels), 3);
    static const char *const names[] = {"precondition", "test1", "test2"};
    static const char *const modes[] = {"randwrite", "randread", "randwrite"};
    static const double depths[] = {4, 1, 1};
    for (int i = 0; i < 3; i++) {
        const cJSON *r = cJSON_GetArrayItem(pl.rows, i);
        assert_string_equal(cJSON_GetArrayItem(pl.labels, i)->valuestring, names[i]);
        assert_string_equal(str(r, "fio.rw"), modes[i]);
        assert_true(num(r, "fio.iodepth") == depths[i]);
        assert_true(num(r, "fio.numjobs") == 1);
        assert_true(num(r, "fio.bs") == 4096);
        assert_true(num(r, "pool.pg_num") == 256);
        assert_true(num(r, "cluster.osds_per_host") == 1);
        assert_true(num(r, "cluster.client_hosts") == 0); /* the one client is the OSD host */
        assert_true(num(r, "fio.ramp_time") == 30);
        assert_true(num(r, "image.size_gib") == 1);
        assert_true(num(r, "clients.volumes_per_client") == 1);
        /* one OSD, no replication given: a pool it can hold (vstart's size 1), on one host */
        assert_true(num(r, "pool.size") == 1);
        assert_null(cJSON_GetObjectItemCaseSensitive(r, "cluster.failure_domain"));
    }
    assert_true(has_note(&pl, "1 OSD and no pool_profiles replication: pool.size 1"));
    assert_true(has_note(&pl, "workloads.precondition.monitor: ignored"));
    assert_true(has_note(&pl, "benchmarks.librbdfio.procs_per_client, benchmarks.librbdfio.fio_cpu_set: ignored: "
                              "not read by cbt's librbdfio"));
    assert_true(has_note(&pl, "give the same fio command"));
    cbt_plan_free(&pl);
}

/* A cluster cbt ran on held its pools: one host with three OSDs and a size-3
   profile puts the copies on distinct OSDs; two OSDs and no replication given,
   a pool of two copies; three hosts, nothing added. */
static void pools_fit_the_cluster(void **state)
{
    (void)state;
    struct cbt_plan pl;
    plan_text("cluster:\n  osds: [o1]\n  osds_per_node: 3\n  pool_profiles:\n    rbd: {replication: 3}\n"
              "benchmarks:\n  librbdfio: {pool_profile: rbd}\n",
              &pl, 0, NULL);
    assert_true(num(pl.rows->child, "pool.size") == 3);
    assert_string_equal(str(pl.rows->child, "cluster.failure_domain"), "osd");
    assert_true(has_note(&pl, "1 host for 3 copies: cluster.failure_domain osd"));
    cbt_plan_free(&pl);
    plan_text("cluster:\n  osds: [o1, o2]\n  osds_per_node: 1\nbenchmarks:\n  librbdfio: {}\n", &pl, 0, NULL);
    assert_true(num(pl.rows->child, "pool.size") == 2);
    assert_null(cJSON_GetObjectItemCaseSensitive(pl.rows->child, "cluster.failure_domain"));
    cbt_plan_free(&pl);
    plan_text("cluster:\n  osds: [o1, o2, o3]\n  osds_per_node: 2\nbenchmarks:\n  librbdfio: {}\n", &pl, 0, NULL);
    assert_null(cJSON_GetObjectItemCaseSensitive(pl.rows->child, "pool.size"));
    assert_null(cJSON_GetObjectItemCaseSensitive(pl.rows->child, "cluster.failure_domain"));
    cbt_plan_free(&pl);
}

static void mkfiocmd_details(void **state)
{
    (void)state;
    struct cbt_plan pl;
    /* cbt's defaults (LibrbdFio.__init__): write, 4 MiB, iodepth 16, 64 GiB volumes */
    plan_text("benchmarks:\n  librbdfio: {}\n", &pl, 0, NULL);
    const cJSON *r = pl.rows->child;
    assert_string_equal(str(r, "fio.rw"), "write");
    assert_true(num(r, "fio.bs") == 4194304 && num(r, "fio.iodepth") == 16 && num(r, "image.size_gib") == 64);
    assert_true(num(r, "clients.volumes_per_client") == 1);
    assert_null(cJSON_GetObjectItemCaseSensitive(r, "fio.runtime"));
    cbt_plan_free(&pl);
    /* rwmixread reaches fio for randrw; total_iodepth is split over the volumes; procs multiply jobs */
    plan_text("cluster:\n  clients: [c1, c2]\n  osds: [o1, o2, o3]\n"
              "benchmarks:\n  librbdfio:\n    mode: [randrw, randwrite]\n    rwmixread: 70\n"
              "    total_iodepth: [8, 32]\n    volumes_per_client: 4\n    procs_per_volume: 2\n    numjobs: 3\n",
              &pl, 0, NULL);
    assert_int_equal(cJSON_GetArraySize(pl.rows), 4);
    r = cJSON_GetArrayItem(pl.rows, 0);
    assert_true(num(r, "fio.rwmixread") == 70 && num(r, "fio.iodepth") == 2);
    assert_true(num(r, "fio.numjobs") == 3 * 2 * 4 * 2 && num(r, "cluster.client_hosts") == 2);
    assert_true(num(r, "cluster.hosts") == 3);
    r = cJSON_GetArrayItem(pl.rows, 1);
    assert_true(num(r, "fio.iodepth") == 8);
    r = cJSON_GetArrayItem(pl.rows, 2);
    assert_string_equal(str(r, "fio.rw"), "randwrite");
    assert_true(num(r, "fio.rwmixread") == 50);
    cbt_plan_free(&pl);
    /* fewer total_iodepth than volumes: cbt reduces the volumes */
    plan_text("benchmarks:\n  librbdfio:\n    total_iodepth: 2\n    volumes_per_client: 4\n", &pl, 0, NULL);
    assert_true(num(pl.rows->child, "clients.volumes_per_client") == 2 && num(pl.rows->child, "fio.iodepth") == 1);
    assert_true(has_note(&pl, "cbt reduces volumes_per_client from 4 to 2"));
    cbt_plan_free(&pl);
    /* some clients are OSD hosts, not all: each client gets a host of its own, with a note */
    plan_text("cluster:\n  clients: [o1, c2]\n  osds: [o1, o2, o3]\nbenchmarks:\n  librbdfio: {}\n", &pl, 0, NULL);
    r = pl.rows->child;
    assert_true(num(r, "cluster.client_hosts") == 2);
    assert_null(cJSON_GetObjectItem(r, "cluster.clients_on_osd_hosts"));
    assert_true(has_note(&pl, "1 of 2 clients are also OSD hosts"));
    cbt_plan_free(&pl);
}

static void refusals(void **state)
{
    (void)state;
    struct cbt_plan pl;
    plan_text("cluster: {}\n", &pl, -1, "c.yaml: benchmarks: missing");
    /* a mode fio does not have, named at its YAML key (not at the fio.rw it would become) */
    plan_text("benchmarks:\n  librbdfio:\n    mode: [frobnicate]\n", &pl, -1,
              "c.yaml: benchmarks.librbdfio.mode: unknown mode 'frobnicate'");
    plan_text("benchmarks:\n  radosbench: {op_size: 4096}\n", &pl, -1, "benchmarks.librbdfio: missing");
    plan_text("cluster:\n  pool_profiles:\n    rbd: {pg_size: 64, replication: erasure}\n"
              "benchmarks:\n  librbdfio: {pool_profile: rbd}\n", &pl, -1,
              "cluster.pool_profiles.rbd.erasure_profile: an erasure pool needs its profile's name");
    plan_text("cluster:\n  erasure_profiles: {ec: {erasure_k: 4}}\n  pool_profiles:\n"
              "    d: {replication: erasure, erasure_profile: ec}\n"
              "benchmarks:\n  librbdfio: {data_pool_profile: d}\n", &pl, -1,
              "cluster.pool_profiles.d.ec_overwrites: not true");
    plan_text("cluster:\n  pool_profiles:\n    d: {replication: erasure, erasure_profile: ec, ec_overwrites: true}\n"
              "benchmarks:\n  librbdfio: {data_pool_profile: d}\n", &pl, -1,
              "cluster.erasure_profiles.ec: missing (cluster.pool_profiles.d.erasure_profile names it)");
    plan_text("cluster:\n  recovery_test: {osds: [1]}\nbenchmarks:\n  librbdfio: {}\n", &pl, -1,
              "cluster.recovery_test: OSD failures and recovery are not simulated");
    plan_text("benchmarks:\n  librbdfio: {end_fsync: 1}\n", &pl, -1, "end_fsync: fio's end_fsync is not modelled");
    plan_text("benchmarks:\n  librbdfio: {op_size: 4k}\n", &pl, -1, "benchmarks.librbdfio.op_size: expected an integer");
    plan_text("benchmarks:\n  librbdfio: {total_iodepth: 10, volumes_per_client: 4}\n", &pl, -1,
              "total_iodepth: 10 over 4 volumes gives the volumes unequal iodepths");
    plan_text("benchmarks:\n  librbdfio: {iodepth: []}\n", &pl, -1, "benchmarks.librbdfio.iodepth: an empty list");
}

/*
 * An RBD data pool on erasure coding, as cbt makes it (cluster/ceph.py:
 * erasure_profiles' erasure_k / erasure_m, defaults 6 and 2, with
 * crush-failure-domain=osd; mkpool's `osd pool create NAME PG PGP erasure
 * PROFILE` and allow_ec_overwrites; librbdfio's data_pool_profile for
 * `rbd create --data-pool`): the row's pool is the data pool's.
 */
static void erasure_data_pool(void **state)
{
    (void)state;
    struct cbt_plan pl;
    const char *yaml = "cluster:\n  osds: [o1, o2, o3, o4, o5, o6]\n  clients: [c1]\n"
                       "  erasure_profiles:\n    ec42: {erasure_k: 4, erasure_m: 2}\n    ec62: {}\n"
                       "  pool_profiles:\n    rbd: {pg_size: 64, pgp_size: 64, replication: 3}\n"
                       "    ecdata: {pg_size: 256, pgp_size: 256, replication: 'erasure', erasure_profile: 'ec42', "
                       "ec_overwrites: true}\n"
                       "    ecwide: {pg_size: 128, replication: erasure, erasure_profile: ec62, ec_overwrites: true}\n"
                       "benchmarks:\n  librbdfio:\n    pool_profile: rbd\n    data_pool_profile: %s\n"
                       "    mode: [randwrite]\n    op_size: [4096]\n";
    char text[800];
    snprintf(text, sizeof text, yaml, "ecdata");
    plan_text(text, &pl, 0, NULL);
    const cJSON *r = pl.rows->child;
    assert_string_equal(str(r, "pool.type"), "erasure");
    assert_true(num(r, "pool.k") == 4 && num(r, "pool.m") == 2 && num(r, "pool.pg_num") == 256);
    assert_string_equal(str(r, "cluster.failure_domain"), "osd");
    assert_true(num(r, "pool.size") == 6 && num(r, "pool.min_size") == 5);
    cbt_plan_free(&pl);
    snprintf(text, sizeof text, yaml, "ecwide"); /* cbt's defaults: k=6 m=2 */
    plan_text(text, &pl, 0, NULL);
    r = pl.rows->child;
    assert_true(num(r, "pool.k") == 6 && num(r, "pool.m") == 2 && num(r, "pool.pg_num") == 128);
    cbt_plan_free(&pl);
    snprintf(text, sizeof text, yaml, "null"); /* no data pool: the image's replicated pool */
    plan_text(text, &pl, 0, NULL);
    r = pl.rows->child;
    assert_null(cJSON_GetObjectItemCaseSensitive(r, "pool.type"));
    assert_true(num(r, "pool.size") == 3 && num(r, "pool.pg_num") == 64);
    cbt_plan_free(&pl);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(bluestore_example),
        cmocka_unit_test(workloads_expand_as_run_workloads),
        cmocka_unit_test(pools_fit_the_cluster),
        cmocka_unit_test(mkfiocmd_details),
        cmocka_unit_test(refusals),
        cmocka_unit_test(erasure_data_pool),
    };
    return cmocka_run_group_tests_name("cbt", tests, NULL, NULL);
}
