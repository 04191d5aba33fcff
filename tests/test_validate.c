/*
 * test_validate.c - cephsim validate: its error metrics on known inputs (KS distance,
 * relative errors, medians), tolerance parsing, capture loading and workload inference
 * from small directories written here, the foreign load a capture ran beside, exit
 * codes of the command, and the import of the
 * real lab captures (skipped when ../shared/data is absent).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <ftw.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zlib.h>

#include "testfs.h"
#include "validate.h"

#define SHARED "../shared/data/"
#define LAB SHARED "lab/"

static void skip_without_shared(void)
{
    if (access(SHARED, R_OK) != 0)
        skip();
}

/* A fio.json with one write job. */
static void put_fio(const char *dir, double iops, double mean_us, double p50_us, double p99_us, int ios)
{
    char buf[2048];
    snprintf(buf, sizeof buf,
             "{\"fio version\": \"fio-3.33\", \"global options\": {\"bs\": \"4k\", \"ioengine\": \"rbd\"},\n"
             " \"jobs\": [{\"jobname\": \"t\", \"job options\": {\"rw\": \"randwrite\", \"iodepth\": \"8\"},\n"
             "  \"read\": {\"total_ios\": 0, \"iops\": 0, \"runtime\": 0, \"clat_ns\": {\"mean\": 0, \"N\": 0}},\n"
             "  \"write\": {\"total_ios\": %d, \"iops\": %.6f, \"runtime\": 2000, \"clat_ns\": {\"mean\": %.6f,\n"
             "   \"N\": %d, \"percentile\": {\"1.000000\": %.0f, \"50.000000\": %.0f, \"99.000000\": %.0f}}}}]}\n",
             ios, iops, mean_us * 1e3, ios, p50_us * 500, p50_us * 1e3, p99_us * 1e3);
    testfs_put(dir, "fio.json", buf);
}

static void put_perf(const char *dir, int osd, int op_w, int op_rw)
{
    char name[64], buf[256];
    snprintf(name, sizeof name, "osd.%d.perf.json", osd);
    snprintf(buf, sizeof buf, "{\"osd\": {\"op_w\": %d, \"op_rw\": %d, \"op_r\": 0}}\n", op_w, op_rw);
    testfs_put(dir, name, buf);
}

/* An op-tracker dump with two primary writes (one waited for its rw lock) and a repop. */
static const char *const dump_text =
    "{\"size\": 20000, \"duration\": 1, \"ops\": [\n"
    " {\"description\": \"osd_op(client.4100.0:1 2.1f 2:61ccec0d:::rbd_data.104b745b84f5.000000000000001d:head "
    "[write 8192~4096] snapc 0=[] ondisk+write+known_if_redirected e24)\",\n"
    "  \"initiated_at\": \"2026-11-30T14:00:00.000000+0000\", \"age\": 1, \"duration\": 0.001,\n"
    "  \"type_data\": {\"flag_point\": \"commit sent; apply or cleanup\", \"client_info\": {\"client\": "
    "\"client.4100\", \"client_addr\": \"127.0.0.1:0/1\", \"tid\": 1}, \"events\": [\n"
    "   {\"event\": \"initiated\", \"time\": \"2026-11-30T14:00:00.000000+0000\", \"duration\": 0},\n"
    "   {\"event\": \"queued_for_pg\", \"time\": \"2026-11-30T14:00:00.000010+0000\", \"duration\": 0},\n"
    "   {\"event\": \"reached_pg\", \"time\": \"2026-11-30T14:00:00.000030+0000\", \"duration\": 0},\n"
    "   {\"event\": \"started\", \"time\": \"2026-11-30T14:00:00.000060+0000\", \"duration\": 0},\n"
    "   {\"event\": \"waiting for subops from 1,2\", \"time\": \"2026-11-30T14:00:00.000100+0000\", \"duration\": 0},\n"
    "   {\"event\": \"op_commit\", \"time\": \"2026-11-30T14:00:00.000600+0000\", \"duration\": 0},\n"
    "   {\"event\": \"sub_op_commit_rec\", \"time\": \"2026-11-30T14:00:00.000700+0000\", \"duration\": 0},\n"
    "   {\"event\": \"sub_op_commit_rec\", \"time\": \"2026-11-30T14:00:00.000800+0000\", \"duration\": 0},\n"
    "   {\"event\": \"commit_sent\", \"time\": \"2026-11-30T14:00:00.000810+0000\", \"duration\": 0},\n"
    "   {\"event\": \"done\", \"time\": \"2026-11-30T14:00:00.000820+0000\", \"duration\": 0.00082}]}},\n"
    " {\"description\": \"osd_op(client.4100.0:2 2.1f 2:61ccec0d:::rbd_data.104b745b84f5.000000000000001d:head "
    "[stat,write 12288~4096] snapc 0=[] ondisk+write+known_if_redirected e24)\",\n"
    "  \"initiated_at\": \"2026-11-30T14:00:00.000100+0000\", \"age\": 1, \"duration\": 0.001,\n"
    "  \"type_data\": {\"flag_point\": \"commit sent; apply or cleanup\", \"client_info\": {\"client\": "
    "\"client.4100\", \"client_addr\": \"127.0.0.1:0/1\", \"tid\": 2}, \"events\": [\n"
    "   {\"event\": \"initiated\", \"time\": \"2026-11-30T14:00:00.000100+0000\", \"duration\": 0},\n"
    "   {\"event\": \"queued_for_pg\", \"time\": \"2026-11-30T14:00:00.000120+0000\", \"duration\": 0},\n"
    "   {\"event\": \"reached_pg\", \"time\": \"2026-11-30T14:00:00.000140+0000\", \"duration\": 0},\n"
    "   {\"event\": \"waiting for rw locks\", \"time\": \"2026-11-30T14:00:00.000150+0000\", \"duration\": 0},\n"
    "   {\"event\": \"reached_pg\", \"time\": \"2026-11-30T14:00:00.000900+0000\", \"duration\": 0},\n"
    "   {\"event\": \"started\", \"time\": \"2026-11-30T14:00:00.000910+0000\", \"duration\": 0},\n"
    "   {\"event\": \"waiting for subops from 1,2\", \"time\": \"2026-11-30T14:00:00.000950+0000\", \"duration\": 0},\n"
    "   {\"event\": \"sub_op_commit_rec\", \"time\": \"2026-11-30T14:00:00.001300+0000\", \"duration\": 0},\n"
    "   {\"event\": \"op_commit\", \"time\": \"2026-11-30T14:00:00.001400+0000\", \"duration\": 0},\n"
    "   {\"event\": \"sub_op_commit_rec\", \"time\": \"2026-11-30T14:00:00.001500+0000\", \"duration\": 0},\n"
    "   {\"event\": \"commit_sent\", \"time\": \"2026-11-30T14:00:00.001520+0000\", \"duration\": 0},\n"
    "   {\"event\": \"done\", \"time\": \"2026-11-30T14:00:00.001530+0000\", \"duration\": 0.00143}]}},\n"
    " {\"description\": \"osd_repop(client.4100.0:1 2.1f e24/16 2:61ccec0d:::rbd_data.104b745b84f5."
    "000000000000001d:head v 24'5, mlcod=24'3)\",\n"
    "  \"initiated_at\": \"2026-11-30T14:00:00.000200+0000\", \"age\": 1, \"duration\": 0.0005,\n"
    "  \"type_data\": {\"flag_point\": \"commit sent; apply or cleanup\", \"events\": [\n"
    "   {\"event\": \"initiated\", \"time\": \"2026-11-30T14:00:00.000200+0000\", \"duration\": 0},\n"
    "   {\"event\": \"done\", \"time\": \"2026-11-30T14:00:00.000700+0000\", \"duration\": 0.0005}]}}]}\n";

/* ------------------------------------------------------------------ metrics */

static void ks_distance_of_known_samples(void **state)
{
    const double a[] = {1, 2, 3, 4}, b[] = {3, 4, 5, 6}, c[] = {4, 5, 6}, d[] = {1, 1, 2}, e[] = {1, 2, 2};
    assert_true(fabs(validate_ks_distance(a, 4, a, 4)) < 1e-12);
    assert_true(fabs(validate_ks_distance(a, 3, c, 3) - 1.0) < 1e-12);      /* disjoint */
    assert_true(fabs(validate_ks_distance(a, 4, b, 4) - 0.5) < 1e-12);      /* F_a(2) = .5, F_b(2) = 0 */
    assert_true(fabs(validate_ks_distance(b, 4, a, 4) - 0.5) < 1e-12);      /* symmetric */
    assert_true(fabs(validate_ks_distance(d, 3, e, 3) - 1.0 / 3) < 1e-12);  /* ties: at x = 1, 2/3 vs 1/3 */
    assert_true(isnan(validate_ks_distance(a, 0, b, 4)));
    /* Kolmogorov's asymptotic p-value: n = m = 100, D = 0.2 -> 0.0314 */
    assert_true(fabs(validate_ks_pvalue(0.2, 100, 100) - 0.0314) < 1e-3);
    assert_true(fabs(validate_ks_pvalue(0.0, 100, 100) - 1.0) < 1e-12);
    assert_true(validate_ks_pvalue(1.0, 1000, 1000) < 1e-12);
}

static void relative_errors_and_medians(void **state)
{
    assert_true(fabs(validate_rel_error(110, 100) - 0.1) < 1e-12);
    assert_true(fabs(validate_rel_error(90, 100) + 0.1) < 1e-12);
    assert_true(fabs(validate_rel_error(-90, -100) - 0.1) < 1e-12); /* relative to |real| */
    assert_true(validate_rel_error(0, 0) == 0);
    assert_true(isinf(validate_rel_error(5, 0)) && validate_rel_error(5, 0) > 0);
    const double odd[] = {1, 5, 9}, even[] = {1, 3, 5, 100};
    assert_true(validate_median(odd, 3) == 5);
    assert_true(validate_median(even, 4) == 4);
    assert_true(isnan(validate_median(odd, 0)));
}

static void tolerance_parsing(void **state)
{
    struct validate_tolerance t;
    struct sim_err err = {0};
    validate_tolerance_defaults(&t);
    assert_true(fabs(t.metric[VALIDATE_IOPS] - 0.20) < 1e-12);
    assert_true(fabs(t.metric[VALIDATE_LAT_MEAN] - 0.25) < 1e-12);
    assert_true(isnan(t.dist_ks[0]) && fabs(t.dist_median[4] - 0.40) < 1e-12); /* stages checked by default */
    assert_int_equal(validate_tolerance_parse("iops=10%, lat_p99=off,ks=0.3,stage.op_commit=40%,lock_waits=0.02",
                                              &t, &err), 0);
    assert_true(fabs(t.metric[VALIDATE_IOPS] - 0.10) < 1e-12);
    assert_true(isnan(t.metric[VALIDATE_LAT_P99]));
    assert_true(fabs(t.metric[VALIDATE_LOCK_WAITS] - 0.02) < 1e-12);
    for (int d = 0; d < VALIDATE_N_DISTS; d++)
        assert_true(fabs(t.dist_ks[d] - 0.3) < 1e-12);
    assert_int_equal(validate_tolerance_parse("stage.op_commit=30%", &t, &err), 0);
    assert_true(fabs(t.dist_median[4] - 0.30) < 1e-12); /* op_commit is the 5th stage */
    assert_true(fabs(t.dist_median[3] - 0.40) < 1e-12);
    assert_int_equal(validate_tolerance_parse("stage=off", &t, &err), 0);
    assert_true(isnan(t.dist_median[3]) && isnan(t.dist_median[4]));
    assert_int_equal(validate_tolerance_parse("stage=50%,ks.total=0.1", &t, &err), 0);
    assert_true(fabs(t.dist_median[0] - 0.5) < 1e-12 && fabs(t.dist_ks[VALIDATE_N_DISTS - 1] - 0.1) < 1e-12);
    /* errors */
    assert_int_equal(validate_tolerance_parse("iopz=5%", &t, &err), -EINVAL);
    assert_non_null(strstr(err.msg, "did you mean 'iops'"));
    assert_int_equal(validate_tolerance_parse("iops=fast", &t, &err), -EINVAL);
    assert_int_equal(validate_tolerance_parse("iops", &t, &err), -EINVAL);
    assert_int_equal(validate_tolerance_parse("iops=-5%", &t, &err), -EINVAL);
    assert_int_equal(validate_tolerance_parse("stage.op_comit=5%", &t, &err), -EINVAL);
    assert_non_null(strstr(err.msg, "stage.op_commit"));
}

/* Two synthetic captures compared under chosen tolerances. */
static void compare_flags_what_is_outside(void **state)
{
    struct validate_capture real = {.has_fio = true, .iops = 1000, .lat_mean_us = 1000, .lat_p50_us = 900,
                                    .lat_p99_us = 3000, .total_ios = 2000, .n_perf = 3, .op_w = 2000,
                                    .n_writes = 100, .n_lock_wait_ops = 0};
    struct validate_capture sim = real;
    sim.iops = 1150;           /* +15 % */
    sim.lat_mean_us = 1400;    /* +40 % */
    sim.lat_p99_us = 4000;     /* +33 % */
    sim.n_lock_wait_ops = 10;  /* 10 % of writes vs 0 */
    double a[] = {10, 20, 30, 40}, b[] = {30, 40, 50, 60};
    real.dist_us[4] = a;
    real.n_dist[4] = 4;
    sim.dist_us[4] = b;
    sim.n_dist[4] = 4;
    struct validate_tolerance t;
    validate_tolerance_defaults(&t);
    struct validate_report rep;
    validate_compare(&real, &sim, &t, &rep);
    assert_int_equal(rep.n, VALIDATE_N_METRICS + VALIDATE_N_DISTS);
    assert_true(rep.rows[VALIDATE_IOPS].pass);
    assert_true(fabs(rep.rows[VALIDATE_IOPS].err - 0.15) < 1e-12);
    assert_false(rep.rows[VALIDATE_LAT_MEAN].pass);
    assert_true(rep.rows[VALIDATE_LAT_P99].pass); /* 33 % < 50 % */
    assert_true(rep.rows[VALIDATE_LOCK_WAITS].abs_err);
    assert_true(fabs(rep.rows[VALIDATE_LOCK_WAITS].err - 0.10) < 1e-12);
    assert_false(rep.rows[VALIDATE_LOCK_WAITS].pass);
    assert_true(rep.rows[VALIDATE_OP_RW].abs_err); /* 0 op_rw: compared in absolute terms */
    assert_true(rep.rows[VALIDATE_OP_RW].pass);
    const struct validate_row *st = &rep.rows[VALIDATE_N_METRICS + 4];
    assert_true(st->available);
    assert_true(fabs(st->real - 25) < 1e-12 && fabs(st->sim - 45) < 1e-12);
    assert_true(fabs(st->ks - 0.5) < 1e-12);
    assert_false(st->pass); /* stage medians are checked by default (40 %): +80 % is outside */
    assert_false(rep.rows[VALIDATE_N_METRICS].available); /* no samples for that stage */
    assert_int_equal(rep.n_failed, 3);
    assert_false(rep.pass);
    assert_int_equal(rep.n_mismatch, 0); /* synthetic captures have no directories to compare */
    /* loosen the three failures, check the stage's KS */
    struct sim_err err;
    assert_int_equal(validate_tolerance_parse("lat_mean=50%,lock_waits=0.2,stage.op_commit=100%,ks.op_commit=0.4", &t,
                                              &err), 0);
    validate_compare(&real, &sim, &t, &rep);
    assert_int_equal(rep.n_failed, 1);
    assert_false(rep.rows[VALIDATE_N_METRICS + 4].pass);
    assert_int_equal(validate_tolerance_parse("ks.op_commit=0.5", &t, &err), 0);
    validate_compare(&real, &sim, &t, &rep);
    assert_true(rep.pass);
    cJSON *j = validate_report_json(&real, &sim, &rep);
    assert_true(cJSON_IsTrue(cJSON_GetObjectItem(j, "pass")));
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(j, "rows")), rep.n);
    cJSON_Delete(j);
}

/* ------------------------------------------------------------------ directories */

static void capture_load_and_workload(void **state)
{
    char dir[512];
    testfs_scratch(dir, sizeof dir, "validate", "cap");
    put_fio(dir, 500, 2000, 1900, 4000, 1000);
    put_perf(dir, 0, 400, 0);
    put_perf(dir, 1, 300, 1);
    testfs_put(dir, "osd.0.historic_window.json", dump_text);
    testfs_put(dir, "osd.1.historic_ops.json", "{\"ops\": []}"); /* a lesser kind: not used when a window exists */
    testfs_put(dir, "meta.json", "{\"image_kind\": \"clone-written\", \"rbd_io_scheduler\": \"none\"}");
    struct validate_capture c;
    struct sim_err err = {0};
    assert_int_equal(validate_capture_load(dir, &c, &err), 0);
    assert_true(c.has_fio && c.ddir == 1);
    assert_true(fabs(c.iops - 500) < 1e-9 && fabs(c.lat_mean_us - 2000) < 1e-6);
    assert_true(fabs(c.lat_p50_us - 1900) < 1e-6 && fabs(c.lat_p99_us - 4000) < 1e-6);
    assert_int_equal(c.total_ios, 1000);
    assert_int_equal(c.n_perf, 2);
    assert_true(c.op_w == 700 && c.op_rw == 1);
    assert_string_equal(c.ops_source, "historic_window");
    assert_int_equal(c.n_writes, 2);
    assert_int_equal(c.n_lock_wait_ops, 1);
    assert_int_equal(c.n_dist[0], 2);
    /* stage gaps of op 1: 10, 20, 30, 40, 500, 200 (last sub_op_commit_rec), 10; total 810 */
    assert_true(fabs(c.dist_us[0][0] - 10) < 1e-6 && fabs(c.dist_us[0][1] - 20) < 1e-6);
    assert_true(fabs(c.dist_us[4][1] - 500) < 1e-6);
    /* op 2 waited for its lock: started comes 770 us after the (first) reached_pg; its replica
       acks straddle op_commit: last sub_op_commit_rec is 100 us after op_commit */
    assert_true(fabs(c.dist_us[2][1] - 770) < 1e-6);
    assert_true(fabs(c.dist_us[5][0] - 100) < 1e-6 && fabs(c.dist_us[5][1] - 200) < 1e-6);
    assert_true(fabs(c.dist_us[VALIDATE_N_DISTS - 1][0] - 810) < 1e-6);
    assert_true(fabs(c.dist_us[VALIDATE_N_DISTS - 1][1] - 1420) < 1e-6);
    validate_capture_free(&c);

    char sets[VALIDATE_MAX_SETS][VALIDATE_SET_LEN];
    int n = validate_capture_sets(dir, NULL, sets, VALIDATE_MAX_SETS, &err);
    assert_int_equal(n, 6);
    assert_string_equal(sets[0], "fio.rw=randwrite");
    assert_string_equal(sets[1], "fio.bs=4k"); /* from the global options */
    assert_string_equal(sets[2], "fio.iodepth=8");
    assert_string_equal(sets[3], "image.kind=clone");
    assert_string_equal(sets[4], "image.copied_up=1");
    assert_string_equal(sets[5], "ceph.rbd_io_scheduler=none");
    /* a meta.json that is there but broken, or names a kind the kit has not, is refused: read as
       absent, the clone's capture would be simulated as a plain image */
    char meta[700];
    snprintf(meta, sizeof meta, "%s/meta.json", dir);
    FILE *mf = fopen(meta, "rb");
    assert_non_null(mf);
    char saved[4096];
    size_t saved_len = fread(saved, 1, sizeof saved, mf);
    fclose(mf);
    testfs_put(dir, "meta.json", "garbage");
    assert_true(validate_capture_sets(dir, NULL, sets, VALIDATE_MAX_SETS, &err) < 0);
    assert_non_null(strstr(err.msg, meta));
    testfs_put(dir, "meta.json", "{\"image_kind\": \"clone-fersh\"}");
    assert_true(validate_capture_sets(dir, NULL, sets, VALIDATE_MAX_SETS, &err) < 0);
    if (!strstr(err.msg, "image_kind: 'clone-fersh'"))
        fail_msg("%s", err.msg);
    saved[saved_len < sizeof saved ? saved_len : sizeof saved - 1] = '\0';
    testfs_put(dir, "meta.json", saved);
    /* a directory without fio.json is not a capture */
    char empty[512];
    testfs_scratch(empty, sizeof empty, "validate", "empty");
    assert_true(validate_capture_load(empty, &c, &err) < 0);
    assert_non_null(strstr(err.msg, "fio.json"));
    testfs_rm_tree(dir);
    testfs_rm_tree(empty);
}

/* A cut-off dump (a truncated .json.gz, a half-written .json) used to be salvaged: a
   few ops, stage distributions of n=1, and no word of it.  It is an error naming the
   file, as replay's reader says. */
/*
 * A capture whose OSDs wrote nothing to SST files (bluefs.bytes_written_sst 0
 * in every perf dump: no memtable flush, no compaction, as in the lab's 20 s
 * runs) is simulated with cluster.rocksdb_flushes on_fill; one OSD that
 * flushed, or a dump without BlueFS's counters, leaves the scenario's own;
 * and a scenario file that says how its RocksDB flushes keeps its word.
 */
static void flushes_inferred_from_perf_dumps(void **state)
{
    char dir[512], scen[700];
    testfs_scratch(dir, sizeof dir, "validate", "flushes");
    put_fio(dir, 1000, 800, 700, 2000, 2000);
    const char *quiet = "{\"osd\": {\"op_w\": 10, \"op_rw\": 0}, \"bluefs\": {\"bytes_written_sst\": 0}}\n";
    testfs_put(dir, "osd.0.perf.json", quiet);
    testfs_put(dir, "osd.1.perf.json", quiet);
    struct sim_err err = {0};
    char sets[VALIDATE_MAX_SETS][VALIDATE_SET_LEN];
    int n = validate_capture_sets(dir, NULL, sets, VALIDATE_MAX_SETS, &err);
    bool on_fill = false;
    for (int i = 0; i < n; i++)
        on_fill |= !strcmp(sets[i], "cluster.rocksdb_flushes=on_fill");
    assert_true(on_fill);
    /* the scenario says: its word holds */
    snprintf(scen, sizeof scen, "%s/scenario.json", dir);
    testfs_put(dir, "scenario.json", "{\"cluster\": {\"rocksdb_flushes\": \"steady\"}}\n");
    n = validate_capture_sets(dir, scen, sets, VALIDATE_MAX_SETS, &err);
    for (int i = 0; i < n; i++)
        assert_string_not_equal(sets[i], "cluster.rocksdb_flushes=on_fill");
    /* one OSD flushed: the capture cannot say the run had none */
    testfs_put(dir, "osd.1.perf.json", "{\"osd\": {\"op_w\": 10, \"op_rw\": 0}, \"bluefs\": {\"bytes_written_sst\": 4096}}\n");
    n = validate_capture_sets(dir, NULL, sets, VALIDATE_MAX_SETS, &err);
    for (int i = 0; i < n; i++)
        assert_string_not_equal(sets[i], "cluster.rocksdb_flushes=on_fill");
    /* no BlueFS counters (another store, an old release): nothing said */
    testfs_put(dir, "osd.1.perf.json", "{\"osd\": {\"op_w\": 10, \"op_rw\": 0}}\n");
    n = validate_capture_sets(dir, NULL, sets, VALIDATE_MAX_SETS, &err);
    for (int i = 0; i < n; i++)
        assert_string_not_equal(sets[i], "cluster.rocksdb_flushes=on_fill");
    /* a dump that is no JSON is an error naming it */
    testfs_put(dir, "osd.1.perf.json", "garbage");
    assert_true(validate_capture_sets(dir, NULL, sets, VALIDATE_MAX_SETS, &err) < 0);
    assert_non_null(strstr(err.msg, "osd.1.perf.json"));
    testfs_rm_tree(dir);
}

static void capture_with_truncated_dump_is_refused(void **state)
{
    char dir[512], path[700];
    testfs_scratch(dir, sizeof dir, "validate", "cut");
    put_fio(dir, 500, 2000, 1900, 4000, 1000);
    put_perf(dir, 0, 400, 0);
    snprintf(path, sizeof path, "%s/osd.0.historic_window.json.gz", dir);
    gzFile gz = gzopen(path, "wb");
    assert_non_null(gz);
    assert_int_equal(gzwrite(gz, dump_text, (unsigned)strlen(dump_text)), (int)strlen(dump_text));
    assert_int_equal(gzclose(gz), Z_OK);
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(truncate(path, st.st_size / 2), 0);
    struct validate_capture c;
    struct sim_err err = {0};
    assert_true(validate_capture_load(dir, &c, &err) < 0);
    assert_non_null(strstr(err.msg, path));
    assert_non_null(strstr(err.msg, "gzip"));
    /* the same dump cut off uncompressed */
    unlink(path);
    char half[4096];
    snprintf(half, sizeof half, "%.*s", (int)strlen(dump_text) / 2, dump_text);
    testfs_put(dir, "osd.0.historic_window.json", half);
    snprintf(path, sizeof path, "%s/osd.0.historic_window.json", dir);
    assert_true(validate_capture_load(dir, &c, &err) < 0);
    assert_non_null(strstr(err.msg, path));
    testfs_rm_tree(dir);
}

static int run_cmd(const char *const *args, int n)
{
    char *argv[32];
    for (int i = 0; i < n; i++)
        argv[i] = (char *)args[i];
    argv[n] = NULL;
    return cmd_validate(n, argv); /* every call passes -q */
}

static void command_exit_codes(void **state)
{
    char real[512], same[512], far[512], out[600];
    testfs_scratch(real, sizeof real, "validate", "real");
    testfs_scratch(same, sizeof same, "validate", "same");
    testfs_scratch(far, sizeof far, "validate", "far");
    put_fio(real, 500, 2000, 1900, 4000, 1000);
    put_fio(same, 520, 1950, 1880, 4100, 1040);  /* within the defaults */
    put_fio(far, 1000, 1000, 950, 2000, 2000);   /* IOPS +100 % */
    snprintf(out, sizeof out, "%s/report", same);
    const char *ok[] = {"validate", "--real", real, "--sim", same, "-o", out, "--no-plot", "-q"};
    assert_int_equal(run_cmd(ok, 9), 0);
    char path[700];
    snprintf(path, sizeof path, "%s/validate.json", out);
    assert_int_equal(access(path, R_OK), 0);
    const char *bad[] = {"validate", "--real", real, "--sim", far, "--no-plot", "-q"};
    assert_int_equal(run_cmd(bad, 7), 1);
    const char *loose[] = {"validate", "--real", real, "--sim", far, "--no-plot", "-q",
                           "--tolerance", "iops=off,lat_mean=off,lat_p50=off,lat_p99=off"};
    assert_int_equal(run_cmd(loose, 9), 0);
    const char *badtol[] = {"validate", "--real", real, "--sim", same, "--tolerance", "iops=x", "-q"};
    assert_int_equal(run_cmd(badtol, 8), 2);
    const char *missing[] = {"validate", "--real", "/nonexistent/capture", "--sim", same, "-q"};
    assert_int_equal(run_cmd(missing, 6), 2);
    const char *usage[] = {"validate", "--sim", same, "-q"};
    assert_int_equal(run_cmd(usage, 4), 2);
    /* --run twice into the same run directory: its report (SIMDIR/validate) does not
       make the second run refuse the directory as one cephsim did not write */
    char simrun[600];
    snprintf(simrun, sizeof simrun, "%.580s/simrun", far);
    const char *rerun[] = {"validate", "--real", real, "--run", "scenarios/qd1-latency.json", "--sim", simrun,
                           "--set", "sim.duration_s=0.02", "--set", "sim.warmup_s=0.01", "--set",
                           "sim.replications=1", "--no-plot", "-q"};
    for (int k = 0; k < 2; k++)
        assert_true(run_cmd(rerun, 15) != 2);
    char report[800];
    snprintf(report, sizeof report, "%s/validate/validate.json", simrun);
    assert_int_equal(access(report, R_OK), 0);
    testfs_rm_tree(real);
    testfs_rm_tree(same);
    testfs_rm_tree(far);
}

static void cdf_plot_files(void **state)
{
    char dir[512], out[600];
    testfs_scratch(dir, sizeof dir, "validate", "plot");
    double a[] = {10, 20, 30}, b[] = {15, 25, 35, 45};
    struct validate_capture r = {.n_pct = 2, .pct = {50, 99}, .pct_us = {100, 300}};
    struct validate_capture s = r;
    snprintf(r.dir, sizeof r.dir, "real");
    snprintf(s.dir, sizeof s.dir, "sim");
    r.dist_us[1] = a;
    r.n_dist[1] = 3;
    s.dist_us[1] = b;
    s.n_dist[1] = 4;
    snprintf(out, sizeof out, "%s/p", dir);
    struct sim_err err = {0};
    int rc = validate_plot(&r, &s, out, &err);
    assert_true(rc == 0 || rc == 1);
    char path[700];
    snprintf(path, sizeof path, "%s/cdf_reached_pg.sim.dat", out);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    double v, p;
    int lines = 0;
    while (fscanf(f, "%lf %lf", &v, &p) == 2)
        lines++;
    fclose(f);
    assert_int_equal(lines, 4);
    assert_true(fabs(v - 45) < 1e-9 && fabs(p - 1) < 1e-9);
    snprintf(path, sizeof path, "%s/cdf.png", out);
    if (rc == 1)
        assert_int_equal(access(path, R_OK), 0);
    testfs_rm_tree(dir);
}

/* ------------------------------------------------------------------ the real captures */

static void real_lab_capture_imports(void **state)
{
    skip_without_shared();
    struct validate_capture c;
    struct sim_err err = {0};
    assert_int_equal(validate_capture_load(LAB "noparent_randw-qd1_sched-simple_rt_r1", &c, &err), 0);
    assert_true(fabs(c.iops - 524.673766) < 1e-6);
    assert_int_equal(c.total_ios, 10494);
    assert_int_equal(c.n_perf, 3);
    assert_string_equal(c.ops_source, "historic_window");
    assert_int_equal(c.n_dumps, 3);
    assert_true(c.n_writes > 500);
    assert_int_equal(c.n_lock_wait_ops, 0); /* [write] takes the shared write lock */
    /* the README's per-stage medians of this run (us): 23, 23, 57, 65, 975, 269, 9; total 1444 */
    static const double readme[] = {23, 23, 57, 65, 975, 269, 9};
    for (int d = 0; d < 7; d++) {
        double m = validate_median(c.dist_us[d], c.n_dist[d]);
        assert_true(fabs(m - readme[d]) <= 1.5 + 0.01 * readme[d]);
    }
    double op_w = c.op_w / (double)c.total_ios;
    assert_true(op_w > 0.99 && op_w < 1.01); /* one OSD write per fio write */
    validate_capture_free(&c);
    char sets[VALIDATE_MAX_SETS][VALIDATE_SET_LEN];
    int n = validate_capture_sets(LAB "noparent_seqw-qd128_sched-none_r1", NULL, sets, VALIDATE_MAX_SETS, &err);
    assert_true(n >= 5);
    bool rw = false, qd = false, kind = false, sched = false;
    for (int i = 0; i < n; i++) {
        rw |= !strcmp(sets[i], "fio.rw=write");
        qd |= !strcmp(sets[i], "fio.iodepth=128");
        kind |= !strcmp(sets[i], "image.kind=plain");
        sched |= !strcmp(sets[i], "ceph.rbd_io_scheduler=none");
    }
    assert_true(rw && qd && kind && sched);
    /* merged writes: ~40 fio writes per OSD op with the simple scheduler */
    assert_int_equal(validate_capture_load(LAB "noparent_seqw-qd128_sched-simple_r1", &c, &err), 0);
    double per = (double)c.total_ios / c.op_w;
    assert_true(per > 30 && per < 60);
    validate_capture_free(&c);
}

/*
 * Other processes' CPU beside the cluster (cpu_snap.py's "others"): a
 * synthetic pair by hand, then lab10's run beside two busy loops, whose
 * figure /proc/stat bounds independently.
 */
static void foreign_load_of_a_capture(void **state)
{
    (void)state;
    char dir[] = "out/test_validate_foreign.XXXXXX";
    assert_non_null(mkdtemp(dir));
    put_fio(dir, 500, 2000, 1900, 4000, 1000);
    /* 10 s at 100 ticks/s: "stress" 800 ticks = 0.8 cores, "bash" 50 = 0.05; the
       kworker is the kernel's (left out), pid 40 was another program at the start
       (a reused pid: left out), pid 50 was not there at the start */
    /* /proc/stat: user + system 1,500 ticks busy = 1.5 cores (idle, iowait, steal not),
       the daemons' 300 = 0.3: 1.2 of the 2 cores outside them, over half: a note */
    testfs_put(dir, "cpu_before.json",
               "{\"time\": 100.0, \"clk_tck\": 100, \"ncpu\": 2, \"daemons\": {\"osd.0\": 0},"
               "\"proc_stat_cpu\": {\"user\": 1000, \"system\": 500, \"idle\": 5000, \"iowait\": 100, \"steal\": 10},"
               "\"others\": {"
               "\"10\": [\"stress\", 1000], \"20\": [\"bash\", 5], \"30\": [\"kworker/0:1-events\", 0],"
               "\"40\": [\"make\", 7]}}");
    testfs_put(dir, "cpu_after.json",
               "{\"time\": 110.0, \"clk_tck\": 100, \"ncpu\": 2, \"daemons\": {\"osd.0\": 300},"
               "\"proc_stat_cpu\": {\"user\": 2200, \"system\": 800, \"idle\": 5800, \"iowait\": 150, \"steal\": 20},"
               "\"others\": {"
               "\"10\": [\"stress\", 1800], \"20\": [\"bash\", 55], \"30\": [\"kworker/0:1-events\", 900],"
               "\"40\": [\"cc1\", 400], \"50\": [\"ld\", 300]}}");
    struct sim_err err = {0};
    struct validate_capture c;
    assert_int_equal(validate_capture_load(dir, &c, &err), 0);
    assert_true(fabs(c.foreign_cores - 0.85) < 1e-9);
    assert_string_equal(c.foreign_top, "stress");
    assert_true(fabs(c.outside_daemons_cores - 1.2) < 1e-9);
    assert_int_equal(c.machine_cpus, 2);
    assert_true(validate_foreign_note(c.foreign_cores, c.outside_daemons_cores, c.machine_cpus));
    /* neither measure past its threshold: no note; unknown: none either */
    assert_false(validate_foreign_note(0.05, 0.9, 2));
    assert_true(validate_foreign_note(0.0, 1.0, 2));
    assert_false(validate_foreign_note(NAN, NAN, 0));
    validate_capture_free(&c);
    /* a client host of an existing cluster (capture.sh EXTERNAL=1, no daemon of it
       here): its busy time is fio's, not load beside Ceph's; named processes still count */
    testfs_put(dir, "cpu_before.json",
               "{\"time\": 100.0, \"clk_tck\": 100, \"ncpu\": 2, \"daemons\": {},"
               "\"proc_stat_cpu\": {\"user\": 1000, \"idle\": 5000}, \"others\": {\"10\": [\"stress\", 0]}}");
    testfs_put(dir, "cpu_after.json",
               "{\"time\": 110.0, \"clk_tck\": 100, \"ncpu\": 2, \"daemons\": {},"
               "\"proc_stat_cpu\": {\"user\": 2900, \"idle\": 5100}, \"others\": {\"10\": [\"stress\", 50]}}");
    assert_int_equal(validate_capture_load(dir, &c, &err), 0);
    assert_true(isnan(c.outside_daemons_cores));
    assert_true(fabs(c.foreign_cores - 0.05) < 1e-9);
    assert_false(validate_foreign_note(c.foreign_cores, c.outside_daemons_cores, c.machine_cpus));
    validate_capture_free(&c);
    /* a cephsim output has no snapshot: unknown, not zero */
    char sdir[] = "out/test_validate_foreign_sim.XXXXXX";
    assert_non_null(mkdtemp(sdir));
    put_fio(sdir, 500, 2000, 1900, 4000, 1000);
    assert_int_equal(validate_capture_load(sdir, &c, &err), 0);
    assert_true(isnan(c.foreign_cores));
    validate_capture_free(&c);
    /* two nice-0 busy loops beside the lab: 1.038 cores by the processes' ticks
       (sh 0.528); /proc/stat bounds it: the machine's busy time less the Ceph
       daemons' (1.97 - 0.72 cores) holds fio and the kernel too (0.33 cores in
       the unloaded run of the same workload) */
    const char *loaded = "tests/data/lab10/captures/hog2_randw-qd1_sched-simple_r1";
    assert_int_equal(validate_capture_load(loaded, &c, &err), 0);
    assert_true(fabs(c.foreign_cores - 1.038221) < 1e-6);
    assert_string_equal(c.foreign_top, "sh");
    assert_true(c.foreign_cores < 1.97 - 0.72 && c.foreign_cores > 1.97 - 0.72 - 0.33 - 0.1);
    assert_true(fabs(c.outside_daemons_cores - 1.257) < 0.01); /* 1.97 busy - 0.72 daemons */
    validate_capture_free(&c);
    assert_int_equal(validate_capture_load("tests/data/lab10/captures/hog0_randw-qd1_sched-simple_r1", &c, &err), 0);
    assert_true(c.foreign_cores < 0.02);
    assert_false(validate_foreign_note(c.foreign_cores, c.outside_daemons_cores, c.machine_cpus));
    validate_capture_free(&c);
}

/*
 * The OSDs' CPU and wake-ups per fio I/O.  Expected values computed apart, by
 * tests/lab/threads.py (Python) on the same files: lab5's QD=1 randwrite r1
 * 3,381.857041 us and 80.496757 wake-ups over its 6,013 I/Os, QD=16 randread
 * 187.194723 us and 5.251650 over 133,610; lab2's captures predate the
 * per-thread figures: CPU from the daemons' ticks, 1,412 ticks at 100 Hz over
 * 2,516 I/Os = 5,612.082671 us, no wake-ups.  A cephsim run's sim.json gives
 * its summary; the rows are shown unchecked unless a tolerance is asked for.
 */
static void osd_cpu_and_wakeups_per_io(void **state)
{
    (void)state;
    static const struct {
        const char *dir;
        double cpu_us, wakeups;
    } caps[] = {
        {"tests/data/lab5/captures/noparent_randw-qd1_sched-none_r1", 3381.857041, 80.496757},
        {"tests/data/lab5/captures/noparent_randr-qd16_sched-none_r1", 187.194723, 5.251650},
        {"tests/data/lab2/captures/noparent_randw-qd1_sched-none_r1", 5612.082671, NAN},
    };
    struct sim_err err = {0};
    struct validate_capture c;
    for (size_t i = 0; i < sizeof caps / sizeof caps[0]; i++) {
        if (validate_capture_load(caps[i].dir, &c, &err) < 0)
            fail_msg("%s: %s", caps[i].dir, err.msg);
        assert_true(fabs(validate_metric_value(&c, VALIDATE_OSD_CPU) - caps[i].cpu_us) < 1e-5);
        double w = validate_metric_value(&c, VALIDATE_OSD_WAKEUPS);
        if (isnan(caps[i].wakeups))
            assert_true(isnan(w));
        else
            assert_true(fabs(w - caps[i].wakeups) < 1e-5);
        if (i == 0) { /* per thread kind: threads.py's tp_osd_tp 1,125.389128 us, 22.881923 */
            const struct validate_thread_kind *tp = NULL;
            for (int k = 0; k < c.n_threads; k++)
                if (!strcmp(c.threads[k].name, "tp_osd_tp"))
                    tp = &c.threads[k];
            assert_non_null(tp);
            assert_true(fabs(tp->cpu_us - 1125.389128) < 1e-5 && fabs(tp->wakeups - 22.881923) < 1e-5);
        }
        validate_capture_free(&c);
    }
    /* a cephsim output directory: sim.json's summary */
    char dir[] = "out/test_validate_cpu.XXXXXX";
    assert_non_null(mkdtemp(dir));
    put_fio(dir, 500, 2000, 1900, 4000, 1000);
    testfs_put(dir, "sim.json", "{\"summary\": {\"osd_cpu_us_per_op\": 250.5, \"osd_threads_per_op\": ["
               "{\"name\": \"tp_osd_tp\", \"cpu_us\": 200, \"wakeups\": 4.5},"
               "{\"name\": \"msgr-worker\", \"cpu_us\": 50.5, \"wakeups\": 2.25}]}}");
    struct validate_capture sim;
    assert_int_equal(validate_capture_load(dir, &sim, &err), 0);
    assert_true(fabs(sim.osd_cpu_us_per_io - 250.5) < 1e-9);
    assert_true(fabs(sim.osd_wakeups_per_io - 6.75) < 1e-9);
    assert_int_equal(sim.n_threads, 2);
    assert_string_equal(sim.threads[1].name, "msgr-worker");
    assert_true(fabs(sim.threads[1].wakeups - 2.25) < 1e-9);
    assert_int_equal(validate_capture_load(caps[0].dir, &c, &err), 0);
    struct validate_tolerance tol;
    validate_tolerance_defaults(&tol);
    struct validate_report rep;
    validate_compare(&c, &sim, &tol, &rep);
    const struct validate_row *cpu = &rep.rows[VALIDATE_OSD_CPU];
    assert_string_equal(cpu->name, "OSD CPU per fio I/O");
    assert_true(cpu->available && isnan(cpu->tol) && cpu->pass);
    assert_true(fabs(cpu->err - (250.5 - 3381.857041) / 3381.857041) < 1e-6);
    assert_int_equal(validate_tolerance_parse("osd_cpu=20%,osd_wakeups=off", &tol, &err), 0);
    validate_compare(&c, &sim, &tol, &rep);
    assert_false(rep.rows[VALIDATE_OSD_CPU].pass);
    assert_true(rep.rows[VALIDATE_OSD_WAKEUPS].pass);
    validate_capture_free(&sim);
    /* a malformed snapshot is an error naming its file */
    testfs_put(dir, "cpu_before.json", "{\"clk_tck\": 100, \"daemons\": {\"osd.0\": 5}, "
               "\"threads\": {\"osd.0\": {\"17\": [\"tp_osd_tp\", \"x\", 1, 0]}}}");
    testfs_put(dir, "cpu_after.json", "{\"clk_tck\": 100, \"daemons\": {\"osd.0\": 9}, "
               "\"threads\": {\"osd.0\": {\"17\": [\"tp_osd_tp\", 5000, 2, 0]}}}");
    assert_true(validate_capture_load(dir, &sim, &err) < 0);
    assert_non_null(strstr(err.msg, "cpu_before.json: threads.osd.0.17: expected [comm, cpu_ns, voluntary"));
    validate_capture_free(&c);
    testfs_rm_tree(dir);
}

/* A capture and a simulation of another workload: named, sizes compared as bytes. */
static void mismatched_workloads_are_named(void **state)
{
    (void)state;
    const char *real = "tests/data/lab2/captures/noparent_randw-qd1_sched-none_r1"; /* randwrite 4k qd1 */
    char dir[] = "out/test_validate_mm.XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[200];
    snprintf(path, sizeof path, "%s/fio.json", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("{\"jobs\": [{\"job options\": {\"rw\": \"randwrite\", \"bs\": \"4096\", \"iodepth\": \"16\"}}]}", f);
    fclose(f);
    struct validate_report rep;
    memset(&rep, 0, sizeof rep);
    validate_workload_mismatch(real, dir, &rep);
    assert_int_equal(rep.n_mismatch, 1); /* 4k = 4096, numjobs 1 = fio's default */
    assert_string_equal(rep.mismatch[0], "fio.iodepth: real 1, sim 16");
    validate_workload_mismatch(real, real, &rep);
    assert_int_equal(rep.n_mismatch, 0);
    unlink(path);
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(ks_distance_of_known_samples),
        cmocka_unit_test(relative_errors_and_medians),
        cmocka_unit_test(tolerance_parsing),
        cmocka_unit_test(compare_flags_what_is_outside),
        cmocka_unit_test(mismatched_workloads_are_named),
        cmocka_unit_test(osd_cpu_and_wakeups_per_io),
        cmocka_unit_test(foreign_load_of_a_capture),
        cmocka_unit_test(capture_load_and_workload),
        cmocka_unit_test(flushes_inferred_from_perf_dumps),
        cmocka_unit_test(capture_with_truncated_dump_is_refused),
        cmocka_unit_test(command_exit_codes),
        cmocka_unit_test(cdf_plot_files),
        cmocka_unit_test(real_lab_capture_imports),
    };
    return cmocka_run_group_tests_name("validate", tests, NULL, NULL);
}
