/*
 * test_lab.c - the real Ceph 16.2.15 lab captures as the judge
 * (explorer/analysis/calibrate.c calibrate_compare_dir, `cephsim calibrate --compare`):
 *  - scenarios/lab.json against every capture group of ../shared/data/lab
 *    (the Xeon VM it was fitted to), and
 *  - scenarios/lab2.json against every capture group of tests/data/lab2/captures
 *    (another 2-vCPU VM, under heavy foreign load: NOTES.md there), and
 *  - scenarios/lab2.json against every capture group of tests/data/lab4/captures
 *    (lab2's groups again on the same VM, kept quiet: fitted on none of them),
 *  - scenarios/lab5.json against every capture group of tests/data/lab5/captures
 *    (this project's 2026-12-02 VM, with the CPU of each sleep/wake cycle:
 *    fitted on each group's r1), and its OSD CPU per write falling with the
 *    queue depth as the real OSDs' does,
 *  - BlueStore's deferred-write batching against tests/data/lab6 (every 4 KiB
 *    write deferred: bluestore_prefer_deferred_size 64 KiB),
 *  - erasure-coded pools: the roll-forward against tests/data/lab7 (k=2 m=1),
 *    and what scales with k (2, 4, 6) against tests/data/lab8 (8 OSDs),
 *  - the OSDs' op-history thread against tests/data/lab9 (its wake-ups per I/O
 *    follow its 1 ms poll, not the ops; none with the op tracker off), and a
 *    read's hand-offs through bstore_aio (wake-ups per read of it and tp_osd_tp),
 *  - scenarios/lab5.json against tests/data/lab10's runs without foreign load
 *    (the same runs beside busy loops are printed: the model has none),
 *  - scenarios/lab5.json against tests/data/lab12's runs without a tracer,
 *    held out of every fit,
 * each group simulated once with its first repetition's workload and compared
 * with the mean of its repetitions.  The test fails when the mean |error| of
 * IOPS or of clat mean over a capture set leaves its band, or one group leaves
 * the per-group band; the bands are the errors the model reaches today plus a
 * small margin (README "Lab validation"), to shrink as the model improves.
 * The groups and errors are printed (the README table comes from them).
 * Run from the repository root.
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
#include <unistd.h>

#include <cjson/cJSON.h>

#include "bluestore.h"
#include "calibrate.h"
#include "validate.h"
#include "cluster.h"
#include "perfcounters.h"
#include "scenario.h"
#include "testcluster.h"

struct lab_band {
    const char *scenario, *dir;
    double mean_iops, mean_lat; /* mean |error| over the groups */
    double group;               /* |error| of any one group, IOPS and clat mean */
    int min_groups;             /* the set must hold at least this many groups */
};

/* The groups of a capture set against a scenario (calibrate_compare_dir);
   the caller frees them. */
static int lab_compare(const char *scenario, const char *dir, struct calibrate_group **g)
{
    struct calibrate_opts o;
    calibrate_opts_defaults(&o);
    o.scenario = scenario;
    o.log = NULL;
    int n;
    struct sim_err err = {0};
    if (calibrate_compare_dir(&o, dir, g, &n, &err) < 0)
        fail_msg("%s", err.msg);
    return n;
}

static void check_lab(const struct lab_band *b)
{
    if (access(b->dir, R_OK) != 0)
        fail_msg("%s: not readable (run from the repository root; ../shared beside it)", b->dir);
    struct calibrate_group *g;
    int n = lab_compare(b->scenario, b->dir, &g);
    calibrate_compare_print(stdout, b->scenario, b->dir, g, n);
    double ei, el;
    calibrate_compare_summary(g, n, &ei, &el);
    assert_true(n >= b->min_groups);
    bool ok = ei <= b->mean_iops && el <= b->mean_lat;
    for (int i = 0; i < n; i++) {
        assert_true(g[i].reps >= 1);
        assert_true(g[i].sim_iops > 0 && g[i].sim_lat > 0);
        /* a read capture that found its data in the cache (flagged under the
           table) is not the cold run simulated: in the means, not held to the band */
        if (calibrate_group_cache_warm(&g[i]))
            continue;
        if (fabs(g[i].err_iops) > b->group || fabs(g[i].err_lat) > b->group) {
            print_message("%s: %s outside the per-group band %.0f%%: IOPS %+.1f%%, clat %+.1f%%\n", b->dir,
                          g[i].name, 100 * b->group, 100 * g[i].err_iops, 100 * g[i].err_lat);
            ok = false;
        }
    }
    free(g);
    if (!ok || ei > b->mean_iops || el > b->mean_lat)
        fail_msg("%s: mean |error| IOPS %.1f%% (band %.0f%%), clat mean %.1f%% (band %.0f%%)", b->dir, 100 * ei,
                 100 * b->mean_iops, 100 * el, 100 * b->mean_lat);
}

/*
 * Of a set's groups, those keep() names (their count must be want): each
 * within the per-group bands, and their mean |error| within the mean bands
 * (calibrate_compare_summary over them).  Moves the kept groups to the front.
 */
static void check_kept_groups(struct calibrate_group *g, int n, bool (*keep)(const struct calibrate_group *), int want,
                              double group_iops, double group_lat, double mean_iops, double mean_lat,
                              const char *what)
{
    int k = 0;
    for (int i = 0; i < n; i++) {
        if (!keep(&g[i]))
            continue;
        if (fabs(g[i].err_iops) > group_iops || fabs(g[i].err_lat) > group_lat)
            fail_msg("%s: IOPS %+.1f%%, clat %+.1f%% (bands %.0f%% / %.0f%%)", g[i].name, 100 * g[i].err_iops,
                     100 * g[i].err_lat, 100 * group_iops, 100 * group_lat);
        struct calibrate_group t = g[k];
        g[k++] = g[i];
        g[i] = t;
    }
    assert_int_equal(k, want);
    double ei, el;
    calibrate_compare_summary(g, k, &ei, &el);
    if (ei > mean_iops || el > mean_lat)
        fail_msg("%s: mean |error| IOPS %.1f%% (band %.0f%%), clat %.1f%% (band %.0f%%)", what, 100 * ei,
                 100 * mean_iops, 100 * el, 100 * mean_lat);
}

static void test_lab_shared(void **state)
{
    const struct lab_band b = {"scenarios/lab.json", "../shared/data/lab", 0.31, 0.20, 1.40, 7};
    check_lab(&b);
}

static void test_lab2(void **state)
{
    const struct lab_band b = {"scenarios/lab2.json", "tests/data/lab2/captures", 0.28, 0.24, 1.25, 23};
    check_lab(&b);
}

static void test_lab4(void **state)
{
    const struct lab_band b = {"scenarios/lab2.json", "tests/data/lab4/captures", 0.19, 0.24, 1.00, 21};
    check_lab(&b);
}

static void test_lab5(void **state)
{
    const struct lab_band b = {"scenarios/lab5.json", "tests/data/lab5/captures", 0.13, 0.14, 0.30, 6};
    check_lab(&b);
}

/*
 * The OSDs' CPU per write falls with load because each sleep/wake cycle
 * costs CPU and deep queues sleep less (lab5, tests/data/lab5/NOTES.md: 826
 * us + 32.0 us per wake-up; real 3,382 us per write at QD=1 and 1,451 at
 * QD=64 in the r1 runs, a ratio of 2.33).  scenarios/lab5.json charges the
 * cycle (cost.thread_sleep_us 32) and has to give a ratio within 25 % of
 * the real one (it gives 2.20); scenarios/lab2.json, which charges wake-ups
 * as latency only, gives 1.08.
 */
static double osd_cpu_per_write(const char *scenario, int iodepth)
{
    char qd[32];
    snprintf(qd, sizeof qd, "fio.iodepth=%d", iodepth);
    const char *sets[3] = {qd, "sim.duration_s=1", "sim.warmup_s=0.3"};
    struct scenario sc;
    struct cluster *c = simulated_cluster(scenario, NULL, NULL, sets, 3, &sc);
    struct cluster_thread_stats ts[CLUSTER_THREAD_KINDS_MAX];
    uint32_t nk = cluster_process_thread_stats(c, "ceph-osd", ts, CLUSTER_THREAD_KINDS_MAX);
    double ns = 0;
    for (uint32_t k = 0; k < nk; k++)
        ns += ts[k].cpu_ns;
    const struct job_result *jr = cluster_job_results(c);
    double ios = (double)jr[0].dir[FIO_DDIR_WRITE].total_ios;
    cluster_destroy(c);
    scenario_free(&sc);
    return ns / 1e3 / ios;
}

static void test_lab5_cpu_falls_with_depth(void **state)
{
    double real = 3382.0 / 1451.0;
    double fitted = osd_cpu_per_write("scenarios/lab5.json", 1) / osd_cpu_per_write("scenarios/lab5.json", 64);
    double flat = osd_cpu_per_write("scenarios/lab2.json", 1) / osd_cpu_per_write("scenarios/lab2.json", 64);
    print_message("OSD CPU per write, QD=1 over QD=64: real %.2f, lab5.json %.2f, lab2.json %.2f\n", real, fitted, flat);
    if (fabs(fitted / real - 1) > 0.25)
        fail_msg("scenarios/lab5.json: QD=1 / QD=64 CPU per write %.2f, real %.2f", fitted, real);
    assert_true(flat < 1.5);
}

/* The share of the reads' bytes the real OSDs' data cache served, as their perf
   dumps count it (bluestore_buffer_hit_bytes over hit + miss, summed over the
   runs: 54-65 % per run of the nice -20 QD=1 reads, 0-66 % in SCHED_RR, by
   hand from tests/data/lab4), against the cold simulation's. */
static void test_lab4_cache_hits(void **state)
{
    const char *scenario = "scenarios/lab2.json";
    struct calibrate_group *g;
    int n = lab_compare(scenario, "tests/data/lab4/captures", &g);
    int seen = 0;
    for (int i = 0; i < n; i++) {
        if (!strcmp(g[i].name, "noparent_randr-qd1_sched-none")) {
            assert_true(g[i].real_cache_hit > 0.54 && g[i].real_cache_hit < 0.65);
            assert_true(g[i].sim_cache_hit >= 0 && g[i].sim_cache_hit < 0.02);
            seen++;
        } else if (!strcmp(g[i].name, "noparent_randr-qd1_sched-none_rt")) {
            assert_true(g[i].real_cache_hit > 0.10 && g[i].real_cache_hit < 0.40);
            seen++;
        }
    }
    assert_int_equal(seen, 2);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    calibrate_compare_print(f, scenario, "tests/data/lab4/captures", g, n);
    fclose(f);
    assert_non_null(strstr(text, "noparent_randr-qd1_sched-none: the real reads found 60% of their bytes"));
    free(text);
    free(g);
}

/* BlueStore counters of one lab6 run, summed over its OSDs' perf dumps. */
struct deferred_counts {
    double device_writes;    /* deferred_write_ops: the aio_writes of the batches */
    double deferred;         /* bluestore_write_deferred: the writes deferred */
    double done;             /* state_deferred_aio_wait_lat's count: deferred writes on the device and
                                done (those still queued for a batch at the dump left out) */
    double submitted;        /* state_deferred_queued_lat's count: deferred writes whose batch
                                _deferred_submit_unlock issued, counted where it counts its aio_writes */
    double big_deferred;     /* bluestore_write_big_deferred */
    double small;            /* bluestore_write_small */
    double iops;             /* the model's: fio's write IOPS */
};

/* A capture's `perf dump` of one OSD, parsed (the caller deletes it). */
static cJSON *read_perf_dump(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        fail_msg("%s: not readable (run from the repository root)", path);
    static char buf[1 << 20];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    cJSON *root = cJSON_Parse(buf);
    if (!root)
        fail_msg("%s: not JSON", path);
    return root;
}

static double counter(const cJSON *bluestore, const char *key, const char *path)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(bluestore, key);
    if (!cJSON_IsNumber(v))
        fail_msg("%s: bluestore.%s missing", path, key);
    return v->valuedouble;
}

static struct deferred_counts lab6_run(const char *run)
{
    struct deferred_counts d = {0};
    for (int osd = 0; osd < 3; osd++) {
        char path[256];
        snprintf(path, sizeof path, "tests/data/lab6/captures/%s/osd.%d.perf.json", run, osd);
        cJSON *root = read_perf_dump(path);
        const cJSON *b = cJSON_GetObjectItemCaseSensitive(root, "bluestore");
        if (!b)
            fail_msg("%s: no bluestore section", path);
        d.device_writes += counter(b, "deferred_write_ops", path);
        d.deferred += counter(b, "bluestore_write_deferred", path);
        d.big_deferred += counter(b, "bluestore_write_big_deferred", path);
        d.small += counter(b, "bluestore_write_small", path);
        const cJSON *w = cJSON_GetObjectItemCaseSensitive(b, "state_deferred_aio_wait_lat");
        d.done += counter(w, "avgcount", path);
        const cJSON *q = cJSON_GetObjectItemCaseSensitive(b, "state_deferred_queued_lat");
        d.submitted += counter(q, "avgcount", path);
        cJSON_Delete(root);
    }
    return d;
}

static struct deferred_counts model_run(const char *scenario, const char *rw)
{
    const char *sets[5] = {"ceph.bluestore_prefer_deferred_size_ssd=65536", rw, "fio.iodepth=16",
                           "sim.duration_s=1", "sim.warmup_s=0.3"};
    struct scenario sc;
    struct cluster *c = simulated_cluster(scenario, NULL, NULL, sets, 5, &sc);
    struct deferred_counts d = {0};
    for (uint32_t i = 0; i < cluster_n_osds(c); i++) {
        const struct bluestore_perf *bp = cluster_bluestore_perf(c, i);
        d.device_writes += (double)bp->deferred_write_ops;
        d.deferred += (double)bp->bluestore_write_deferred;
        d.big_deferred += (double)bp->bluestore_write_big_deferred;
        d.small += (double)bp->bluestore_write_small;
        d.done += (double)bp->state_deferred_aio_wait_lat.avgcount;
        d.submitted += (double)bp->state_deferred_queued_lat.avgcount;
    }
    const struct job_result *jr = cluster_job_results(c);
    d.iops = (double)jr[0].dir[FIO_DDIR_WRITE].total_ios / ((double)jr[0].runtime_ns / 1e9);
    cluster_destroy(c);
    scenario_free(&sc);
    return d;
}

/* Summed over a capture's OSDs (osd.0 .. osd.(n-1)): one counter of a section of
   their perf dumps (a latency's avgcount). */
static double lab_perf_sum(const char *dir, int n_osds, const char *run, const char *section, const char *key)
{
    double sum = 0;
    for (int osd = 0; osd < n_osds; osd++) {
        char path[256];
        snprintf(path, sizeof path, "%s/%s/osd.%d.perf.json", dir, run, osd);
        cJSON *root = read_perf_dump(path);
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(root, section), key);
        if (cJSON_IsObject(v))
            v = cJSON_GetObjectItemCaseSensitive(v, "avgcount");
        if (!cJSON_IsNumber(v))
            fail_msg("%s: %s.%s missing", path, section, key);
        sum += v->valuedouble;
        cJSON_Delete(root);
    }
    return sum;
}

static double lab7_sum(const char *run, const char *section, const char *key)
{
    return lab_perf_sum("tests/data/lab7/captures", 3, run, section, key);
}

/*
 * An erasure-coded data pool (tests/data/lab7: 16.2.15, k=2 m=1 on the 3
 * OSDs, 4 KiB random writes, 2 runs of 15 s): BlueStore transactions per
 * client write, real against the model on scenarios/lab5.json with the same
 * pool.  k + m = 3 chunk writes, plus try_finish_rmw's roll-forward on all
 * 3 shards whenever the PG's pipeline drains: every write at QD=1 (real
 * 6.0), most at QD=16 over 32 PGs (real 5.0).  Without the roll-forward the
 * model made 3.0 at both depths.  EC shard writes count no subop_w (real:
 * only the header's 14).
 */
static void test_lab7_ec_rollforward(void **state)
{
    const struct {
        const char *run_prefix, *iodepth;
        double tol;
    } cases[] = {
        {"ec21_randw-qd1_sched-none", "fio.iodepth=1", 0.05},
        {"ec21_randw-qd16_sched-none", "fio.iodepth=16", 0.15},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        double real = 0;
        for (int r = 1; r <= 2; r++) {
            char run[128];
            snprintf(run, sizeof run, "%s_r%d", cases[k].run_prefix, r);
            double op_w = lab7_sum(run, "osd", "op_w");
            assert_true(op_w > 3000);
            assert_true(lab7_sum(run, "osd", "subop_w") < 20);
            real += lab7_sum(run, "bluestore", "bluestore_txc") / op_w / 2;
        }
        const char *sets[] = {"pool.type=erasure", "pool.k=2", "pool.m=1", "fio.rw=randwrite", cases[k].iodepth,
                              "sim.duration_s=1", "sim.warmup_s=0.3"};
        struct scenario sc;
        struct cluster *c = simulated_cluster("scenarios/lab5.json", NULL, NULL, sets, 7, &sc);
        double txcs = 0, op_w = 0, subop_w = 0;
        for (uint32_t i = 0; i < cluster_n_osds(c); i++) {
            txcs += (double)cluster_bluestore_perf(c, i)->bluestore_txc;
            op_w += (double)cluster_osd_perf(c, i)->op_w.count;
            subop_w += (double)cluster_osd_perf(c, i)->subop_w;
        }
        cluster_destroy(c);
        scenario_free(&sc);
        double sim = txcs / op_w;
        print_message("lab7 %s: BlueStore txcs per write real %.3f, simulated %.3f\n", cases[k].run_prefix, real, sim);
        assert_true(op_w > 100);
        assert_true(subop_w == 0);
        if (fabs(sim - real) > cases[k].tol)
            fail_msg("%s: %.3f txcs per write, real %.3f", cases[k].run_prefix, sim, real);
    }
}

/*
 * Device writes per deferred write submitted, real (tests/data/lab6: 16.2.15, 3
 * OSDs, every write deferred, QD=16, 3 runs of 20 s each) against the model
 * on scenarios/lab2.json with the same settings; "submitted" is
 * state_deferred_queued_lat's count, which _deferred_submit_unlock takes
 * where it counts the aio_writes (deferred_write_ops), so that a batch cut
 * by the measured window counts in both or in neither (the real counters
 * start with the run, the model's after its warm-up, while the bstore_aio
 * thread may still owe a batch its reap).  BlueStore writes a batch's
 * physically contiguous runs as one aio_write each (_deferred_submit_unlock):
 * random 4 KiB writes stay one device write each (real 0.9999: at most
 * one adjacent pair per OSD and run), a sequential stream merges a
 * batch of bluestore_deferred_batch_ops_ssd = 16 into one (real
 * 0.0590-0.0616, 66-69 KB per device write; 1/16 = 0.0625 by hand).  The
 * 4 KiB writes are aligned to min_alloc_size 4 KiB: 16.2.15 counts them as
 * big writes deferred (write_big_deferred = write_deferred, write_small 0),
 * in both.  When the model wrote a batch as one device write, random writes
 * gave 1/16 here: 16x too few.
 */
static void test_lab6_deferred_batching(void **state)
{
    const struct {
        const char *run_prefix, *rw;
        double tol;  /* on the ratio: the runs' range plus the batches cut by the interval */
    } cases[] = {
        {"noparent_randw-qd16_sched-none", "fio.rw=randwrite", 0.01},
        {"noparent_seqw-qd16_sched-none", "fio.rw=write", 0.008},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        double real = 0;
        for (int r = 1; r <= 3; r++) {
            char run[128];
            snprintf(run, sizeof run, "%s_r%d", cases[k].run_prefix, r);
            struct deferred_counts d = lab6_run(run);
            assert_true(d.deferred > 10000);
            assert_true(d.big_deferred == d.deferred && d.small == 0);
            assert_true(d.done <= d.deferred && d.done > d.deferred - 3 * 16);
            assert_true(d.submitted >= d.done && d.submitted <= d.deferred);
            real += d.device_writes / d.submitted / 3;
        }
        struct deferred_counts m = model_run("scenarios/lab2.json", cases[k].rw);
        assert_true(m.deferred > 1000);
        assert_true(m.big_deferred == m.deferred && m.small == 0);
        /* cut by the measured interval at both ends: batches queued in the warm-up
           done after it, and the last ones still queued */
        assert_true(fabs(m.done - m.deferred) < 3 * 2 * 16);
        double sim = m.device_writes / m.submitted;
        print_message("lab6 %s: device writes per deferred write submitted real %.4f, simulated %.4f\n",
                      cases[k].run_prefix,
                      real, sim);
        if (fabs(sim - real) > cases[k].tol)
            fail_msg("%s: %.4f device writes per deferred write, real %.4f", cases[k].run_prefix, sim, real);
    }
    /* The stream keeps one PG's shard busy and saves the threads' sleep/wake
       cycles (tp_osd_tp 8.9 against 20.4 per write): 717 against 473 IOPS
       real (1.52).  Only a model that charges the cycles CPU can run it
       faster, and random deferred writes pay kv_final one aio_write each
       where the stream pays one per 16 (tests/data/lab6: 243 against 128.5 us
       of kv_final CPU per write): scenarios/lab5.json 1.11 with its measured
       cost.bluestore_deferred_aio_us (37 us; 1.07 at the reference 4 us,
       1.08 before the cost; lab2.json, charging no sleeps, 0.95). */
    double rnd = model_run("scenarios/lab5.json", "fio.rw=randwrite").iops;
    double seq = model_run("scenarios/lab5.json", "fio.rw=write").iops;
    print_message("lab6 on scenarios/lab5.json: sequential over random IOPS %.2f (real 1.52)\n", seq / rnd);
    assert_true(seq > 1.09 * rnd);
}

/* A directory without captures is an error naming it, not an empty pass. */
static void test_compare_no_captures(void **state)
{
    struct calibrate_opts o;
    calibrate_opts_defaults(&o);
    o.scenario = "scenarios/lab.json";
    struct calibrate_group *g;
    int n;
    struct sim_err err = {0};
    assert_true(calibrate_compare_dir(&o, "scenarios", &g, &n, &err) < 0);
    assert_non_null(strstr(err.msg, "scenarios"));
    assert_true(calibrate_compare_dir(&o, "tests/data/no-such-dir", &g, &n, &err) < 0);
    assert_non_null(strstr(err.msg, "no-such-dir"));
}

/* A capture run's fio IOPS in one direction (fio.json, the group's job). */
static double fio_iops(const char *dir, const char *run, const char *ddir)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s/fio.json", dir, run);
    cJSON *root = read_perf_dump(path);
    const cJSON *job = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(root, "jobs"), 0);
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(job, ddir), "iops");
    if (!cJSON_IsNumber(v))
        fail_msg("%s: jobs[0].%s.iops missing", path, ddir);
    double iops = v->valuedouble;
    cJSON_Delete(root);
    return iops;
}

/* The messages a lab8 run's OSDs read per client I/O (msgr_recv_messages of their
   AsyncMessenger workers), less what the idle cluster reads: 343 a second over
   the 8 OSDs (heartbeats and the like: NOTES.md, measured after the captures). */
static double lab8_msgs_per_io(const char *dir, const char *run, const char *ddir)
{
    double msgs = 0;
    for (int w = 0; w < 3; w++) {
        char worker[64];
        snprintf(worker, sizeof worker, "AsyncMessenger::Worker-%d", w);
        msgs += lab_perf_sum(dir, 8, run, worker, "msgr_recv_messages");
    }
    char path[256];
    snprintf(path, sizeof path, "%s/%s/fio.json", dir, run);
    cJSON *root = read_perf_dump(path);
    const cJSON *job = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(root, "jobs"), 0);
    const cJSON *d = cJSON_GetObjectItemCaseSensitive(job, ddir);
    const cJSON *ios = cJSON_GetObjectItemCaseSensitive(d, "total_ios");
    const cJSON *ms = cJSON_GetObjectItemCaseSensitive(d, "runtime");
    if (!cJSON_IsNumber(ios) || !cJSON_IsNumber(ms) || ios->valuedouble <= 0)
        fail_msg("%s: jobs[0].%s.total_ios / runtime missing", path, ddir);
    double per_io = (msgs - 343.0 * ms->valuedouble / 1e3) / ios->valuedouble;
    cJSON_Delete(root);
    return per_io;
}

struct lab8_sim {
    double iops, txcs_per_write, reads_per_read, msgs_per_io;
    double op_r; /* client reads the OSDs completed in the window */
};

/* The model of a lab8 run: scenarios/lab5.json on 8 OSDs and 64 PGs, the pool of `kind`. */
static struct lab8_sim lab8_model(int k, int m, const char *rw, const char *iodepth)
{
    char sk[32], sm[32], ssize[32], smin[32];
    snprintf(sk, sizeof sk, "pool.k=%d", k);
    snprintf(sm, sizeof sm, "pool.m=%d", m);
    snprintf(ssize, sizeof ssize, "pool.size=%d", k ? k + m : 3);
    snprintf(smin, sizeof smin, "pool.min_size=%d", k ? k + (m > 1 ? 1 : 0) : 2);
    const char *sets[11] = {"cluster.osds_per_host=8", "pool.pg_num=64", rw, iodepth, "sim.duration_s=1",
                            "sim.warmup_s=0.3", ssize, smin, "pool.type=erasure", sk, sm};
    struct scenario sc;
    struct cluster *c = simulated_cluster("scenarios/lab5.json", NULL, NULL, sets, k ? 11 : 8, &sc);
    double txcs = 0, op_w = 0, op_r = 0, reads = 0, msgs = 0;
    for (uint32_t i = 0; i < cluster_n_osds(c); i++) {
        const struct msgr_worker_perf *wp;
        uint32_t nw = cluster_osd_msgr_workers(c, i, &wp, NULL, 0);
        for (uint32_t w = 0; w < nw; w++)
            msgs += (double)wp[w].recv_messages;
        txcs += (double)cluster_bluestore_perf(c, i)->bluestore_txc;
        reads += (double)cluster_bluestore_perf(c, i)->read_lat.avgcount;
        op_w += (double)cluster_osd_perf(c, i)->op_w.count;
        op_r += (double)cluster_osd_perf(c, i)->op_r.count;
    }
    const struct job_result *jr = cluster_job_results(c);
    bool write = strstr(rw, "write") != NULL;
    struct lab8_sim r = {
        .iops = (double)jr[0].dir[write ? FIO_DDIR_WRITE : FIO_DDIR_READ].total_ios / ((double)jr[0].runtime_ns / 1e9),
        .txcs_per_write = op_w > 0 ? txcs / op_w : 0,
        .reads_per_read = op_r > 0 ? reads / op_r : 0,
        .op_r = op_r,
    };
    r.msgs_per_io = msgs / (double)jr[0].dir[write ? FIO_DDIR_WRITE : FIO_DDIR_READ].total_ios;
    cluster_destroy(c);
    scenario_free(&sc);
    return r;
}

/*
 * Messages the OSDs read per client I/O, counted by hand.  A read: the
 * client's MOSDOp, then a MOSDECSubOpRead to each of the k - 1 other data
 * shards and its reply (the primary's own shard goes through the loopback
 * Connection, which msgr_recv_messages does not count); size 3: the MOSDOp
 * alone.  A write at QD=1: the MOSDOp, the stripe's k - 1 remote reads and
 * replies, then to each of the k + m - 1 remote shards its sub-write and
 * reply and the roll-forward and its reply; size 3: the MOSDOp and two
 * repops with their replies (5).
 */
static double lab8_read_msgs(int k) { return k ? 1 + 2.0 * (k - 1) : 1; }
static double lab8_write_msgs(int k, int m) { return k ? 1 + 2.0 * (k - 1) + 4.0 * (k + m - 1) : 5; }

/*
 * Erasure-coded data pools of k = 2, 4 and 6 against size 3 on one real
 * 8-OSD cluster (tests/data/lab8: 16.2.15, 2 vCPUs, 4 KiB random I/O, 2 runs of
 * 15 s each), against the model on scenarios/lab5.json with 8 OSDs and the
 * same pools.  What scales with k is checked as counted: the messages per
 * I/O (above: real reads 1.0 / 3.0 / 7.0 / 11.0, writes at QD=1 5.0 / 11.1
 * / 27.0 / 39.6 with the idle cluster's share removed), a read reads its
 * whole stripe (BlueStore reads per client read = k, real 2.00 / 4.00 /
 * 6.00) and a write at QD=1 makes 2 (k + m) transactions (k + m chunk
 * writes, then the roll-forward on every shard: real 6.01 / 12.02 / 16.02);
 * and the EC / size-3 IOPS ratio, which at QD=16 (every run CPU-bound on the
 * 2 vCPUs) is the ratio of CPU per I/O: real reads 0.380 / 0.199 / 0.145,
 * writes 0.551 / 0.285 / 0.200.  At QD=1 the model's EC penalty grows too
 * slowly with k (README "Lab validation"): its band is wider.
 */
static void test_lab8_ec_k_scaling(void **state)
{
    const char *dir = "tests/data/lab8/captures";
    const struct {
        const char *kind;
        int k, m;
        double txcs_qd1;   /* real, both runs */
    } pools[] = {{"noparent", 0, 0, 3.0}, {"ec21", 2, 1, 6.0}, {"ec42", 4, 2, 12.0}, {"ec62", 6, 2, 16.0}};
    const struct {
        const char *workload, *rw, *iodepth, *ddir;
        double band;       /* on EC / size-3 IOPS, model over real */
    } loads[] = {
        {"randr-qd16", "fio.rw=randread", "fio.iodepth=16", "read", 0.25},
        {"randw-qd16", "fio.rw=randwrite", "fio.iodepth=16", "write", 0.25},
        {"randr-qd1", "fio.rw=randread", "fio.iodepth=1", "read", 0.70},
        {"randw-qd1", "fio.rw=randwrite", "fio.iodepth=1", "write", 0.50},
    };
    for (size_t w = 0; w < sizeof loads / sizeof loads[0]; w++) {
        double real_base = 0, sim_base = 0;
        for (size_t p = 0; p < sizeof pools / sizeof pools[0]; p++) {
            double real = 0;
            for (int r = 1; r <= 2; r++) {
                char run[128];
                snprintf(run, sizeof run, "%s_%s_sched-none_r%d", pools[p].kind, loads[w].workload, r);
                real += fio_iops(dir, run, loads[w].ddir) / 2;
                if (w == 0 && pools[p].k) { /* whole stripes: k BlueStore reads per client read */
                    double got = lab_perf_sum(dir, 8, run, "bluestore", "read_lat") /
                                 lab_perf_sum(dir, 8, run, "osd", "op_r");
                    assert_true(fabs(got - pools[p].k) < 0.05);
                }
                if (w == 0 || w == 3) { /* messages per I/O: as counted below */
                    double got = lab8_msgs_per_io(dir, run, loads[w].ddir);
                    double want = w == 0 ? lab8_read_msgs(pools[p].k) : lab8_write_msgs(pools[p].k, pools[p].m);
                    if (fabs(got - want) > 0.1 * want + 0.1)
                        fail_msg("%s: %.2f messages per I/O, counted %.1f", run, got, want);
                }
                if (w == 3) { /* 2 (k + m) transactions per write at QD=1 (size 3: 3) */
                    double got = lab_perf_sum(dir, 8, run, "bluestore", "bluestore_txc") /
                                 lab_perf_sum(dir, 8, run, "osd", "op_w");
                    assert_true(fabs(got - pools[p].txcs_qd1) < 0.05);
                }
            }
            struct lab8_sim sim = lab8_model(pools[p].k, pools[p].m, loads[w].rw, loads[w].iodepth);
            /* the window's edges: each of the 16 reads in flight at either end may
               have its k shard reads counted without its op_r, or the other way */
            if (w == 0 && pools[p].k && fabs(sim.reads_per_read - pools[p].k) > 0.05 + 16.0 * pools[p].k / sim.op_r)
                fail_msg("%s: %.3f BlueStore reads per client read, real %d", pools[p].kind, sim.reads_per_read,
                         pools[p].k);
            if (w == 0 || w == 3) {
                double want = w == 0 ? lab8_read_msgs(pools[p].k) : lab8_write_msgs(pools[p].k, pools[p].m);
                print_message("lab8 %s %s: messages read by the OSDs per I/O %.2f (counted %.0f)\n", pools[p].kind,
                              loads[w].workload, sim.msgs_per_io, want);
                if (fabs(sim.msgs_per_io - want) > 0.05 * want)
                    fail_msg("%s %s: %.2f messages per I/O, counted %.0f", pools[p].kind, loads[w].workload,
                             sim.msgs_per_io, want);
            }
            if (w == 3 && fabs(sim.txcs_per_write - pools[p].txcs_qd1) > 0.1)
                fail_msg("%s: %.3f BlueStore txcs per write at QD=1, real %.2f", pools[p].kind, sim.txcs_per_write,
                         pools[p].txcs_qd1);
            if (!pools[p].k) {
                real_base = real;
                sim_base = sim.iops;
                print_message("lab8 %s %s: IOPS real %.0f, simulated %.0f\n", pools[p].kind, loads[w].workload,
                              real, sim.iops);
                continue;
            }
            double real_ratio = real / real_base, sim_ratio = sim.iops / sim_base;
            print_message("lab8 %s %s: IOPS real %.0f, simulated %.0f; over size 3 real %.3f, simulated %.3f "
                          "(%+.1f %%)\n",
                          pools[p].kind, loads[w].workload, real, sim.iops, real_ratio, sim_ratio,
                          100 * (sim_ratio / real_ratio - 1));
            if (fabs(sim_ratio / real_ratio - 1) > loads[w].band)
                fail_msg("%s %s: EC / size 3 %.3f, real %.3f", pools[p].kind, loads[w].workload, sim_ratio,
                         real_ratio);
        }
    }
}

/* ---- lab9: the op-history thread's wake-ups ---- */

/* A lab9 run's threads.json (tests/lab/client_threads.py): the OSDs' thread kind's
   wake-ups per I/O of the window, 0 when the kind is absent. */
static double lab9_osd_wakeups(const char *run, const char *kind)
{
    char path[256];
    snprintf(path, sizeof path, "tests/data/lab9/captures/%s/threads.json", run);
    cJSON *root = read_perf_dump(path);
    const cJSON *ios = cJSON_GetObjectItemCaseSensitive(root, "ios");
    const cJSON *k = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(root, "osd"), kind);
    if (!cJSON_IsNumber(ios) || ios->valuedouble <= 0)
        fail_msg("%s: no ios", path);
    double w = cJSON_IsArray(k) ? cJSON_GetArrayItem(k, 2)->valuedouble / ios->valuedouble : 0;
    cJSON_Delete(root);
    return w;
}

/*
 * OpHistoryServiceThread polls its queue (usleep 1 ms, x4 after each empty
 * look): its wake-ups per I/O follow time and load, not the op count.  The
 * real 16.2.15 OSDs' (lab9, mean of two runs, the kit's history of 500 ops)
 * against scenarios/lab5.json's, within 35 %: read QD=32 0.26 / 0.24, QD=1
 * 0.73 / 0.72, write QD=32 1.32 / 0.92, QD=1 4.9 / 4.1 measured when built.
 * With osd_enable_op_tracker off the real thread stays asleep (< 0.05 per
 * I/O) and the model has none.
 */
static void test_lab9_op_history(void **state)
{
    const struct {
        const char *run, *rw, *iodepth;
    } w[] = {{"randread_qd32", "fio.rw=randread", "fio.iodepth=32"},
             {"randread_qd1", "fio.rw=randread", "fio.iodepth=1"},
             {"randwrite_qd32", "fio.rw=randwrite", "fio.iodepth=32"},
             {"randwrite_qd1", "fio.rw=randwrite", "fio.iodepth=1"}};
    for (size_t i = 0; i < sizeof w / sizeof w[0]; i++) {
        double real = 0;
        for (int r = 1; r <= 2; r++) {
            char run[64];
            snprintf(run, sizeof run, "%s_r%d", w[i].run, r);
            real += lab9_osd_wakeups(run, "OpHistorySvc") / 2;
        }
        const char *sets[] = {w[i].rw, w[i].iodepth, "sim.duration_s=1", "sim.warmup_s=0.3"};
        struct scenario sc;
        struct cluster *c = simulated_cluster("scenarios/lab5.json", NULL, NULL, sets, 4, &sc);
        struct cluster_thread_stats hist;
        thread_kind_stats(c, "ceph-osd", "OpHistorySvc", &hist);
        double wakeups = (double)hist.wakeups;
        const struct job_result *jr = cluster_job_results(c);
        int ddir = strstr(w[i].rw, "write") ? FIO_DDIR_WRITE : FIO_DDIR_READ;
        double sim = wakeups / (double)jr[0].dir[ddir].total_ios;
        cluster_destroy(c);
        scenario_free(&sc);
        print_message("lab9 %s: OpHistorySvc wake-ups per I/O real %.3f, model %.3f\n", w[i].run, real, sim);
        if (fabs(sim / real - 1) > 0.35)
            fail_msg("lab9 %s: OpHistorySvc wakes %.3f times per I/O, the real OSDs %.3f", w[i].run, sim, real);
    }
    const char *off[] = {"tracker-off_randread_qd32_r1", "tracker-off_randread_qd32_r2",
                         "tracker-off_randwrite_qd32_r1", "tracker-off_randwrite_qd32_r2"};
    for (size_t i = 0; i < sizeof off / sizeof off[0]; i++)
        assert_true(lab9_osd_wakeups(off[i], "OpHistorySvc") < 0.05);
    const char *sets[] = {"fio.iodepth=32", "sim.duration_s=0.5", "ceph.osd_enable_op_tracker=false"};
    struct scenario sc;
    struct cluster *c = simulated_cluster("scenarios/lab5.json", NULL, NULL, sets, 3, &sc);
    struct cluster_thread_stats hist;
    assert_false(thread_kind_stats(c, "ceph-osd", "OpHistorySvc", &hist));
    cluster_destroy(c);
    scenario_free(&sc);
}

/*
 * BlueStore::_do_read reads by aio and sleeps in IOContext::aio_wait until
 * bstore_aio (KernelDevice::_aio_thread) has reaped the completion and woken
 * it (try_aio_wake): per cold 4 KiB read the real OSDs' bstore_aio wakes
 * 1.00 times at QD=1 and 0.66 at QD=32 (it reaps several completions per
 * io_getevents under load), tp_osd_tp 3.57 and 3.25 times (lab9, mean of two
 * runs, caches dropped before each).  scenarios/lab5.json within 35 %: 1.00 /
 * 0.45 and 4.00 / 2.79 when built (0 and 3.00 / 1.89 before, when the shard
 * thread read as if by a synchronous syscall).
 */
static void test_lab9_read_handoffs(void **state)
{
    const struct {
        const char *run, *iodepth;
    } w[] = {{"randread_qd1", "fio.iodepth=1"}, {"randread_qd32", "fio.iodepth=32"}};
    const char *kinds[] = {"bstore_aio", "tp_osd_tp"};
    for (size_t i = 0; i < sizeof w / sizeof w[0]; i++) {
        const char *sets[] = {"fio.rw=randread", w[i].iodepth, "sim.duration_s=1", "sim.warmup_s=0.3"};
        struct scenario sc;
        struct cluster *c = simulated_cluster("scenarios/lab5.json", NULL, NULL, sets, 4, &sc);
        const struct job_result *jr = cluster_job_results(c);
        double ios = (double)jr[0].dir[FIO_DDIR_READ].total_ios;
        for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
            double real = 0;
            for (int r = 1; r <= 2; r++) {
                char run[64];
                snprintf(run, sizeof run, "%s_r%d", w[i].run, r);
                real += lab9_osd_wakeups(run, kinds[k]) / 2;
            }
            struct cluster_thread_stats ts;
            assert_true(thread_kind_stats(c, "ceph-osd", kinds[k], &ts));
            double sim = (double)ts.wakeups / ios;
            print_message("lab9 %s: %s wake-ups per read real %.3f, model %.3f\n", w[i].run, kinds[k], real, sim);
            if (fabs(sim / real - 1) > 0.35)
                fail_msg("lab9 %s: %s wakes %.3f times per read, the real OSDs' %.3f", w[i].run, kinds[k], sim, real);
        }
        cluster_destroy(c);
        scenario_free(&sc);
    }
}

/* ---- lab10: the same VM with and without someone else's load ---- */

/*
 * tests/data/lab10: the kit's cluster on an idle VM, then beside 1 and 2 busy
 * loops at nice 0 (tests/lab/foreign_load.sh).  The model has no foreign load,
 * so it is held to the unloaded runs (hog0_*: randwrite QD=1 and 16, randread
 * QD=1; IOPS +4.9 / +20.5 / +15.9 %, clat -3.0 / -19.2 / -11.2 % when this
 * test was written), and calibrate's flag (validate_foreign_note) must pick
 * out exactly the runs beside the loops.  Those are printed: the model's IOPS
 * error grows with the load (+57 / +61 / +29 % with two loops), which is what
 * the lab sets' nice -10 groups show (docs/fidelity.md).
 */
static bool lab10_quiet(const struct calibrate_group *g)
{
    return !strncmp(g->name, "hog0_", 5);
}

static void test_lab10_unloaded(void **state)
{
    const char *dir = "tests/data/lab10/captures", *scenario = "scenarios/lab5.json";
    struct calibrate_group *g;
    int n = lab_compare(scenario, dir, &g);
    calibrate_compare_print(stdout, scenario, dir, g, n);
    for (int i = 0; i < n; i++) {
        /* the loops' CPU is measured, the unloaded runs' is the VM's own agent; the
           tool flags exactly the loaded groups (the SCHED_RR one too: it ran beside
           the loops, though they barely slowed it) */
        bool quiet = lab10_quiet(&g[i]);
        if (quiet)
            assert_true(g[i].foreign_cores < 0.05);
        else
            assert_true(g[i].foreign_cores > 0.4);
        assert_int_equal(validate_foreign_note(g[i].foreign_cores, g[i].outside_daemons_cores, g[i].machine_cpus),
                         !quiet);
    }
    check_kept_groups(g, n, lab10_quiet, 3, 0.25, 0.25, 0.16, 0.14, "lab10 without foreign load");
    free(g);
}

/*
 * tests/data/lab12 (NOTES.md there): the kit's 16.2.15 minicluster on this
 * session's VM, 4 KiB randwrite at QD=1 / 16 / 64 and randread at QD=16, the
 * runs without a tracer attached ("_off"), held out of every fit.  Against
 * scenarios/lab5.json: 21.7 % / 17.0 % mean |error| (IOPS / clat) when this
 * test was written, the QD=64 writes +42 % (the model's FIFO cores at
 * saturation: docs/fidelity.md, "What the lab's OSD threads sleep on at
 * depth").  The traced runs (perf, strace, uprobes) are the same workloads
 * with a tracer's CPU beside them: printed, not banded.
 */
static bool lab12_untraced(const struct calibrate_group *g)
{
    size_t len = strlen(g->name);
    return len >= 4 && !strcmp(g->name + len - 4, "_off");
}

static void test_lab12_held_out(void **state)
{
    const char *dir = "tests/data/lab12/runs", *scenario = "scenarios/lab5.json";
    struct calibrate_group *g;
    int n = lab_compare(scenario, dir, &g);
    calibrate_compare_print(stdout, scenario, dir, g, n);
    check_kept_groups(g, n, lab12_untraced, 4, 0.55, 0.40, 0.25, 0.20, "lab12 without a tracer");
    free(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_compare_no_captures),
        cmocka_unit_test(test_lab_shared),
        cmocka_unit_test(test_lab2),
        cmocka_unit_test(test_lab4),
        cmocka_unit_test(test_lab4_cache_hits),
        cmocka_unit_test(test_lab5),
        cmocka_unit_test(test_lab5_cpu_falls_with_depth),
        cmocka_unit_test(test_lab6_deferred_batching),
        cmocka_unit_test(test_lab7_ec_rollforward),
        cmocka_unit_test(test_lab8_ec_k_scaling),
        cmocka_unit_test(test_lab9_op_history),
        cmocka_unit_test(test_lab9_read_handoffs),
        cmocka_unit_test(test_lab10_unloaded),
        cmocka_unit_test(test_lab12_held_out),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
