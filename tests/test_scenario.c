/*
 * test_scenario.c - scenario files and --set: every path lands in the
 * scenario or the resolved cluster_spec (scenario_to_spec), bad input gives
 * one-line errors naming the file (or --set) and the JSON path and leaves
 * nothing allocated (run the ASan build), the `cephsim` command line
 * contract (exit codes, stderr, no output directory on failure), and the fio
 * JSON of a run against a real fio 3.33 capture (same keys and JSON types,
 * integer vs float text included).
 *
 * The CLI tests run the binary named by $CEPHSIM_BIN (a private build's
 * bin/cephsim), else out/bin/cephsim; they skip if it is absent.  Tests run
 * from the repository root.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <ctype.h>
#include <dirent.h>
#include <ftw.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cluster.h"
#include "hwprofile.h"
#include "jsonu.h"
#include "runner.h"
#include "scenario.h"
#include "testutil.h"

#define REAL_FIO "../shared/data/lab/noparent_randw-qd1_sched-simple_rt_r1/fio.json"
#define JOBS "\"clients\": {\"jobs\": \"[j]\\nioengine=rbd\\nrw=randwrite\\nbs=4k\\n\"}"

/* ---- helpers ---- */

static int load(struct scenario *sc, const char *json, const char *const *sets, int n_sets, struct sim_err *err)
{
    return scenario_load(sc, NULL, json, "inline.json", sets, n_sets, err);
}

static void load_ok(struct scenario *sc, struct cluster_spec *spec, const char *json, const char *const *sets,
                    int n_sets)
{
    struct sim_err err = {0};
    if (load(sc, json, sets, n_sets, &err) < 0)
        fail_msg("scenario_load: %s", err.msg);
    if (scenario_to_spec(sc, 0, spec, &err) < 0)
        fail_msg("scenario_to_spec: %s", err.msg);
}

/* A failed load: nothing left allocated in sc. */
static void assert_released(const struct scenario *sc)
{
    assert_null(sc->json);
    assert_null(sc->jobs.jobs);
    assert_int_equal(sc->jobs.n_jobs, 0);
    assert_null(sc->jobs.ignored);
    assert_null(sc->jobs.global_options);
}

static void assert_one_line(const char *msg)
{
    assert_true(msg[0] != '\0');
    if (strchr(msg, '\n'))
        fail_msg("error message spans lines: %s", msg);
}

/* Load must fail; its message must contain every needle (NULL-terminated). */
static void expect_error_path(const char *path, const char *json, const char *const *sets, int n_sets, ...)
{
    struct scenario sc;
    struct sim_err err = {0};
    int rc = path ? scenario_load(&sc, path, NULL, NULL, sets, n_sets, &err) : load(&sc, json, sets, n_sets, &err);
    if (rc >= 0) {
        scenario_free(&sc);
        fail_msg("accepted: %s", path ? path : json);
    }
    assert_int_equal(rc, err.code);
    assert_released(&sc);
    assert_one_line(err.msg);
    va_list ap;
    va_start(ap, n_sets);
    for (const char *needle = va_arg(ap, const char *); needle; needle = va_arg(ap, const char *))
        if (!strstr(err.msg, needle))
            fail_msg("'%s' lacks '%s'", err.msg, needle);
    va_end(ap);
}

#define expect_error(json, sets, n_sets, ...) expect_error_path(NULL, json, sets, n_sets, __VA_ARGS__, NULL)

static int rm_entry(const char *p, const struct stat *st, int flag, struct FTW *ftw) { return remove(p); }

static void rm_tree(const char *dir) { nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS); }

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void profiles_dir(char *dir, size_t n)
{
    struct sim_err err;
    if (hwprofile_find_dir(dir, n, &err) < 0)
        fail_msg("%s", err.msg);
}

/* ---- every path lands ---- */

static const char all_json[] =
    "{\"cluster\": {\"cpu\": \"epyc-7742\", \"nvme\": \"pm9a3\", \"nic\": \"25gbe\", \"hosts\": 5,"
    "  \"osds_per_host\": 4, \"max_cstate\": \"C1\", \"governor\": \"ondemand\"},"
    " \"pool\": {\"size\": 2, \"min_size\": 1, \"pg_num\": 64},"
    " \"image\": {\"kind\": \"clone\", \"copied_up\": 0.25},"
    " \"ceph\": {\"release\": \"16.2.15\", \"rbd_io_scheduler\": \"none\", \"osd_op_num_shards_ssd\": 4,"
    "  \"debug_osd\": 0},"
    " \"fio\": {\"rw\": \"randread\", \"bs\": \"16k\", \"iodepth\": 8, \"numjobs\": 3},"
    " \"sim\": {\"duration_s\": 2, \"warmup_s\": 0.25, \"seed\": 42, \"replications\": 4},"
    " \"hw\": {\"nvme\": {\"write_latency_us\": 30}}, " JOBS "}";

static const char *const all_sets[] = {
    "cluster.cpu=epyc-7742", "cluster.nvme=pm9a3", "cluster.nic=25gbe", "cluster.hosts=5",
    "cluster.osds_per_host=4", "cluster.max_cstate=C1", "cluster.governor=ondemand", "pool.size=2",
    "pool.min_size=1", "pool.pg_num=64", "image.kind=clone", "image.copied_up=0.25", "ceph.release=16.2.15",
    "ceph.rbd_io_scheduler=none", "ceph.osd_op_num_shards_ssd=4", "ceph.debug_osd=0", "fio.rw=randread",
    "fio.bs=16k", "fio.iodepth=8", "fio.numjobs=3", "sim.duration_s=2", "sim.warmup_s=0.25", "sim.seed=42",
    "sim.replications=4", "hw.nvme.write_latency_us=30"};
#define N_ALL_SETS (int)(sizeof all_sets / sizeof all_sets[0])

static void check_all_landed(const struct scenario *sc, const struct cluster_spec *sp)
{
    char dir[1024];
    struct sim_err err;
    profiles_dir(dir, sizeof dir);
    struct hw_cpu c7742, c7302;
    struct hw_nvme pm9a3, pm983;
    assert_int_equal(hwprofile_load_cpu("epyc-7742", dir, &c7742, &err), 0);
    assert_int_equal(hwprofile_load_cpu("epyc-7302p", dir, &c7302, &err), 0);
    assert_int_equal(hwprofile_load_nvme("pm9a3", dir, &pm9a3, &err), 0);
    assert_int_equal(hwprofile_load_nvme("pm983", dir, &pm983, &err), 0);
    /* cluster.* */
    assert_string_equal(sc->cluster.cpu, "epyc-7742");
    assert_int_equal(sp->cpu.cores, c7742.cores);
    assert_int_not_equal(c7742.cores, c7302.cores);
    assert_true(fabs(sp->nvme.read_latency_us - pm9a3.read_latency_us) < 1e-9);
    assert_true(pm9a3.read_latency_us != pm983.read_latency_us);
    assert_true(fabs(sp->net.line_rate_gbps - 25) < 1e-9);
    assert_int_equal(sp->hosts, 5);
    assert_int_equal(sp->osds_per_host, 4);
    assert_string_equal(sc->cluster.max_cstate, "C1");
    assert_int_equal(sp->cpu.n_cstates, 1);
    assert_int_equal(sp->cpu.governor, CPU_GOV_ONDEMAND);
    /* pool.*, image.* */
    assert_int_equal(sp->pool_size, 2);
    assert_int_equal(sp->pool_min_size, 1);
    assert_int_equal(sp->pg_num, 64);
    assert_int_equal(sp->image.kind, IMAGE_CLONE);
    assert_int_equal(sp->image.guard, GUARD_ASSERT_EXISTS);
    assert_true(fabs(sp->image.copied_up - 0.25) < 1e-12);
    /* ceph.* */
    assert_string_equal(sp->ceph.release, "16.2.15");
    assert_true(sp->rel.fix_53593);
    assert_int_equal(sp->ceph.rbd_io_scheduler, RBD_IO_SCHEDULER_NONE);
    assert_int_equal(sp->ceph.osd_op_num_shards_ssd, 4);
    assert_int_equal(sp->ceph.debug_osd, 0);
    /* fio.* on every job */
    assert_int_equal(sc->jobs.n_jobs, 1);
    const struct workload_job *j = &sc->jobs.jobs[0];
    assert_ptr_equal(sp->jobs.jobs, sc->jobs.jobs);
    assert_int_equal(sp->jobs.n_jobs, sc->jobs.n_jobs);
    assert_int_equal(j->rw, FIO_RW_RANDREAD);
    assert_int_equal(j->bs[FIO_DDIR_READ], 16384);
    assert_int_equal(j->bs[FIO_DDIR_WRITE], 16384);
    assert_int_equal(j->iodepth, 8);
    assert_int_equal(j->numjobs, 3);
    /* sim.* */
    assert_int_equal(sp->duration_ns, 2000000000);
    assert_int_equal(sp->warmup_ns, 250000000);
    assert_int_equal(sp->seed, 42);
    assert_int_equal(sc->sim.replications, 4);
    struct cluster_spec r1, r1b;
    assert_int_equal(scenario_to_spec(sc, 1, &r1, &err), 0);
    assert_int_equal(scenario_to_spec(sc, 1, &r1b, &err), 0);
    assert_true(r1.seed != 42 && r1.seed == r1b.seed);
    /* hw.* overrides the profile's field only */
    assert_true(fabs(sp->nvme.write_latency_us - 30) < 1e-9);
    assert_true(pm9a3.write_latency_us != 30);
}

static void test_paths_in_json(void **state)
{
    struct scenario sc;
    struct cluster_spec sp;
    load_ok(&sc, &sp, all_json, NULL, 0);
    check_all_landed(&sc, &sp);
    scenario_free(&sc);
}

static void test_paths_via_set(void **state)
{
    struct scenario sc;
    struct cluster_spec sp;
    load_ok(&sc, &sp, "{" JOBS "}", all_sets, N_ALL_SETS);
    check_all_landed(&sc, &sp);
    scenario_free(&sc);
    /* --set wins over the file */
    const char *const sets[] = {"pool.pg_num=128", "fio.iodepth=2", "hw.nvme.write_latency_us=31"};
    load_ok(&sc, &sp, all_json, sets, 3);
    assert_int_equal(sp.pg_num, 128);
    assert_int_equal(sc.jobs.jobs[0].iodepth, 2);
    assert_true(fabs(sp.nvme.write_latency_us - 31) < 1e-9);
    scenario_free(&sc);
}

static void test_max_cstate(void **state)
{
    static const struct { const char *cpu, *cstate; int n; } cases[] = {
        {"epyc-7302p", "C1", 1}, {"epyc-7302p", "C2", 2}, {"epyc-7302p", "C6", 2}, {"epyc-7302p", "POLL", 0},
        {"epyc-7302p", "deepest", 2}, {"xeon-gold-6242", "C1E", 2}, {"xeon-gold-6242", "C6", 3},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char cpu[64], cs[64];
        snprintf(cpu, sizeof cpu, "cluster.cpu=%s", cases[i].cpu);
        snprintf(cs, sizeof cs, "cluster.max_cstate=%s", cases[i].cstate);
        const char *sets[] = {cpu, cs};
        struct scenario sc;
        struct cluster_spec sp;
        load_ok(&sc, &sp, "{" JOBS "}", sets, 2);
        if (sp.cpu.n_cstates != cases[i].n)
            fail_msg("%s %s: %d C-states allowed, expected %d", cases[i].cpu, cases[i].cstate, sp.cpu.n_cstates,
                     cases[i].n);
        scenario_free(&sc);
    }
}

static void test_governor(void **state)
{
    static const struct { const char *set; int gov; } cases[] = {
        {"cluster.governor=performance", CPU_GOV_PERFORMANCE}, {"cluster.governor=ondemand", CPU_GOV_ONDEMAND},
        {"cluster.governor=schedutil", CPU_GOV_SCHEDUTIL}, {"cluster.governor=default", CPU_GOV_SCHEDUTIL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *sets[] = {"cluster.cpu=epyc-7302p", cases[i].set};
        struct scenario sc;
        struct cluster_spec sp;
        load_ok(&sc, &sp, "{" JOBS "}", sets, 2);
        assert_int_equal(sp.cpu.governor, cases[i].gov);
        /* performance keeps idle cores at the loaded clock; the others drop */
        if (cases[i].gov == CPU_GOV_PERFORMANCE)
            assert_true(sp.cpu.idle_clock_ghz == sp.cpu.max_clock_ghz);
        else
            assert_true(sp.cpu.idle_clock_ghz < sp.cpu.max_clock_ghz);
        scenario_free(&sc);
    }
}

/*
 * The CPU profile's topology and clocks reach the model as given, clocks
 * times ipc_rel (work per clock): epyc-7302p (Zen 2, ipc 1): 16 cores, 32
 * threads, 2 cores per CCX, cross-CCX wake 1.5 us, base 3.0 / boost 3.3 /
 * all-core 3.0 GHz; epyc-75f3 (Zen 3, ipc 1.19): 32 / 64 / 8, base
 * 2.95 x 1.19 = 3.5105, boost 4.0 x 1.19 = 4.76, all-core 3.7 x 1.19 = 4.403.
 */
static void test_cpu_topology_and_clocks(void **state)
{
    static const struct {
        const char *cpu;
        uint32_t cores, threads, ccx;
        double base, boost, all_core;
    } cases[] = {
        {"epyc-7302p", 16, 32, 2, 3.0, 3.3, 3.0},
        {"epyc-75f3", 32, 64, 8, 2.95 * 1.19, 4.0 * 1.19, 3.7 * 1.19},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char set[64];
        snprintf(set, sizeof set, "cluster.cpu=%s", cases[i].cpu);
        const char *sets[] = {set};
        struct scenario sc;
        struct cluster_spec sp;
        load_ok(&sc, &sp, "{" JOBS "}", sets, 1);
        assert_int_equal(sp.cpu.cores, cases[i].cores);
        assert_int_equal(sp.cpu.threads, cases[i].threads);
        assert_int_equal(sp.cpu.ccx_cores, cases[i].ccx);
        assert_true(sp.cpu.smt_pair_throughput == 1.25);
        assert_true(fabs(sp.cpu.cross_ccx_wake_us - 1.5) < 1e-12);
        assert_true(fabs(sp.cpu.base_clock_ghz - cases[i].base) < 1e-9);
        assert_true(fabs(sp.cpu.boost_clock_ghz - cases[i].boost) < 1e-9);
        assert_true(fabs(sp.cpu.all_core_clock_ghz - cases[i].all_core) < 1e-9);
        scenario_free(&sc);
    }
}

static void test_image_kind_and_guard(void **state)
{
    static const struct { const char *kind, *guard; int want_kind, want_guard; } cases[] = {
        {"clone", NULL, IMAGE_CLONE, GUARD_ASSERT_EXISTS},
        {"plain", NULL, IMAGE_PLAIN, GUARD_NONE},
        {"flattened", NULL, IMAGE_FLATTENED, GUARD_NONE},
        {"clone", "write_flag", IMAGE_CLONE, GUARD_WRITE_FLAG},
        {"clone", "stat_roundtrip", IMAGE_CLONE, GUARD_STAT_ROUNDTRIP},
        {"clone", "object_map_skip", IMAGE_CLONE, GUARD_OBJECT_MAP_SKIP},
        {"clone", "none", IMAGE_CLONE, GUARD_NONE},
        {"clone", "assert_exists", IMAGE_CLONE, GUARD_ASSERT_EXISTS},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char kind[64], guard[64];
        snprintf(kind, sizeof kind, "image.kind=%s", cases[i].kind);
        snprintf(guard, sizeof guard, "image.guard=%s", cases[i].guard ? cases[i].guard : "default");
        const char *sets[] = {kind, guard, "image.copied_up=0"};
        struct scenario sc;
        struct cluster_spec sp;
        load_ok(&sc, &sp, "{" JOBS "}", sets, 3);
        assert_int_equal(sp.image.kind, cases[i].want_kind);
        assert_int_equal(sp.image.guard, cases[i].want_guard);
        assert_true(sp.image.copied_up == 0);
        scenario_free(&sc);
    }
    /* the default copied_up is 1 (an image in use) */
    struct scenario sc;
    struct cluster_spec sp;
    load_ok(&sc, &sp, "{\"image\": {\"kind\": \"clone\"}, " JOBS "}", NULL, 0);
    assert_true(sp.image.copied_up == 1);
    scenario_free(&sc);
}

/* image.name / count, clients.volumes_per_client, and object-map following exclusive-lock. */
static void test_images_and_features(void **state)
{
    struct scenario sc;
    struct cluster_spec sp;
    load_ok(&sc, &sp, "{" JOBS "}", NULL, 0);
    assert_int_equal(sp.image_count, 1);
    assert_int_equal(sp.volumes_per_client, 0);
    assert_string_equal(sp.image.name, "");
    assert_true(sp.image.exclusive_lock && sp.image.object_map);
    scenario_free(&sc);
    const char *named[] = {"image.name=vol", "image.count=3"};
    load_ok(&sc, &sp, "{" JOBS "}", named, 2);
    assert_string_equal(sp.image.name, "vol");
    assert_int_equal(sp.image_count, 3);
    scenario_free(&sc);
    /* cbt: volumes per client host, in the file beside the jobs or with --set */
    load_ok(&sc, &sp,
            "{\"cluster\": {\"client_hosts\": 2}, \"clients\": {\"volumes_per_client\": 3, "
            "\"jobs\": \"[j]\\nioengine=rbd\\nrw=randwrite\\n\"}}",
            NULL, 0);
    assert_int_equal(sp.volumes_per_client, 3);
    assert_int_equal(sp.image_count, 6);
    scenario_free(&sc);
    const char *vpc[] = {"clients.volumes_per_client=4"};
    load_ok(&sc, &sp, "{" JOBS "}", vpc, 1);
    assert_int_equal(sp.image_count, 4);
    scenario_free(&sc);
    /* the feature off: no object map unless it is asked for (then an error) */
    const char *off[] = {"image.exclusive_lock=false"};
    load_ok(&sc, &sp, "{" JOBS "}", off, 1);
    assert_false(sp.image.exclusive_lock || sp.image.object_map);
    scenario_free(&sc);
    const char *both[] = {"image.exclusive_lock=false", "image.object_map=true"};
    expect_error("{" JOBS "}", both, 2, "--set image.object_map=true", "image.object_map");
    /* a 100 TiB image is a valid size */
    const char *huge[] = {"image.size_gib=102400"};
    load_ok(&sc, &sp, "{" JOBS "}", huge, 1);
    assert_int_equal(sp.image.size_bytes, 102400ull << 30);
    scenario_free(&sc);
    /* image.count and volumes_per_client that disagree */
    const char *clash[] = {"image.count=3", "clients.volumes_per_client=2"};
    struct sim_err err = {0};
    assert_int_equal(load(&sc, "{" JOBS "}", clash, 2, &err), 0);
    assert_true(scenario_to_spec(&sc, 0, &sp, &err) < 0);
    assert_non_null(strstr(err.msg, "image.count"));
    scenario_free(&sc);
}

/* pool.min_size unless given: size - size/2 (md_config_t::get_osd_pool_default_min_size with
   osd_pool_default_min_size 0); a --set of the size resets it as `ceph osd pool set size` does. */
static void test_min_size_follows_size(void **state)
{
    (void)state;
    static const struct {
        const char *json, *set;
        int64_t min_size;
    } cases[] = {
        {"{\"pool\": {\"size\": 1}, " JOBS "}", NULL, 1},
        {"{\"pool\": {\"size\": 2}, " JOBS "}", NULL, 1},
        {"{\"pool\": {\"size\": 4}, " JOBS "}", NULL, 2},
        {"{\"pool\": {\"size\": 3, \"min_size\": 3}, " JOBS "}", NULL, 3},
        {"{\"pool\": {\"size\": 3, \"min_size\": 2}, " JOBS "}", "pool.size=1", 1},
        {"{\"pool\": {\"size\": 3}, " JOBS "}", "pool.min_size=1", 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct scenario sc;
        struct cluster_spec sp;
        const char *sets[] = {cases[i].set, "cluster.failure_domain=osd"};
        if (cases[i].set)
            load_ok(&sc, &sp, cases[i].json, sets, 2);
        else
            load_ok(&sc, &sp, cases[i].json, sets + 1, 1);
        if (sc.pool.min_size != cases[i].min_size)
            fail_msg("case %zu: min_size %lld, want %lld", i, (long long)sc.pool.min_size,
                     (long long)cases[i].min_size);
        scenario_free(&sc);
    }
    /* a min_size given above the size is still refused */
    struct scenario sc;
    struct sim_err err = {0};
    const char *sets[] = {"pool.size=1", "pool.min_size=2"};
    assert_true(load(&sc, "{" JOBS "}", sets, 2, &err) < 0);
    assert_non_null(strstr(err.msg, "pool.min_size: 2 is larger than pool.size 1"));
}

static void test_release(void **state)
{
    static const struct { const char *rel; bool fix, mclock, crimson; } cases[] = {
        {"16.2.14", false, false, false}, {"16.2.15", true, false, false},
        {"18.2.4", true, true, false},    {"crimson", false, true, true},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        for (int via_set = 0; via_set < 2; via_set++) {
            char set[64], json[256];
            snprintf(set, sizeof set, "ceph.release=%s", cases[i].rel);
            snprintf(json, sizeof json, "{\"ceph\": {\"release\": \"%s\"}, " JOBS "}", cases[i].rel);
            const char *sets[] = {set};
            struct scenario sc;
            struct cluster_spec sp;
            load_ok(&sc, &sp, via_set ? "{" JOBS "}" : json, sets, via_set);
            assert_string_equal(sp.ceph.release, cases[i].rel);
            assert_int_equal(sp.rel.fix_53593, cases[i].fix);
            assert_int_equal(sp.rel.crimson, cases[i].crimson);
            assert_int_equal(sp.ceph.osd_op_queue, cases[i].mclock ? OSD_OP_QUEUE_MCLOCK : OSD_OP_QUEUE_WPQ);
            scenario_free(&sc);
        }
    }
    /* an explicit op queue survives the release default */
    const char *sets[] = {"ceph.release=18.2.4", "ceph.osd_op_queue=wpq"};
    struct scenario sc;
    struct cluster_spec sp;
    load_ok(&sc, &sp, "{" JOBS "}", sets, 2);
    assert_int_equal(sp.ceph.osd_op_queue, OSD_OP_QUEUE_WPQ);
    scenario_free(&sc);
}

/* The client's costs follow librbd's I/O path: 14.2 / 15.2 keep the costs
   fitted on 14.2's client, 16.0+ (neorados/asio) take those measured on the
   lab's 16.2.15 client (stage_costs_apply_release); a cost the file or a
   --set gives wins over both. */
static void test_release_client_costs(void **state)
{
    static const struct { const char *rel; double dispatch, write, submit, complete; } cases[] = {
        {"14.2.22", 12, 6, 10, 10}, {"15.2.17", 12, 6, 10, 10}, {"16.2.0", 5.3, 20, 4.4, 4.4},
        {"18.2.4", 5.3, 20, 4.4, 4.4}, {"crimson", 5.3, 20, 4.4, 4.4},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char set[64];
        snprintf(set, sizeof set, "ceph.release=%s", cases[i].rel);
        const char *sets[] = {set};
        struct scenario sc;
        struct cluster_spec sp;
        load_ok(&sc, &sp, "{" JOBS "}", sets, 1);
        if (sp.cost.librbd_dispatch_us != cases[i].dispatch || sp.cost.librbd_write_dispatch_us != cases[i].write ||
            sp.cost.objecter_submit_us != cases[i].submit || sp.cost.librbd_complete_us != cases[i].complete)
            fail_msg("%s: dispatch %g write %g submit %g complete %g", cases[i].rel, sp.cost.librbd_dispatch_us,
                     sp.cost.librbd_write_dispatch_us, sp.cost.objecter_submit_us, sp.cost.librbd_complete_us);
        /* the other client costs are the same in every release */
        assert_true(sp.cost.objecter_complete_us == 6);
        scenario_free(&sc);
    }
    /* given in the file, or by --set: the user's value wins */
    struct scenario sc;
    struct cluster_spec sp;
    load_ok(&sc, &sp, "{\"ceph\": {\"release\": \"16.2.15\"}, \"cost\": {\"librbd_dispatch_us\": 9}, " JOBS "}",
            NULL, 0);
    assert_true(sp.cost.librbd_dispatch_us == 9 && sp.cost.objecter_submit_us == 4.4);
    scenario_free(&sc);
    const char *sets[] = {"ceph.release=17.2.7", "cost.objecter_submit_us=10"};
    load_ok(&sc, &sp, "{" JOBS "}", sets, 2);
    assert_true(sp.cost.objecter_submit_us == 10 && sp.cost.librbd_dispatch_us == 5.3);
    scenario_free(&sc);
}

static void test_sim_times_from_jobs(void **state)
{
    struct scenario sc;
    struct cluster_spec sp;
    /* duration 0: the jobs' runtime; warm-up at least the ramp_time */
    load_ok(&sc, &sp,
            "{\"sim\": {\"duration_s\": 0, \"warmup_s\": 0.1}, \"clients\": {\"jobs\": "
            "\"[j]\\nioengine=rbd\\nrw=write\\nruntime=3\\nramp_time=2\\n\"}}",
            NULL, 0);
    assert_int_equal(sp.duration_ns, 3000000000);
    assert_int_equal(sp.warmup_ns, 2000000000);
    scenario_free(&sc);
    load_ok(&sc, &sp, "{\"sim\": {\"duration_s\": 0}, " JOBS "}", NULL, 0);
    assert_int_equal(sp.duration_ns, 5000000000);
    scenario_free(&sc);
}

/* sim.reduce_to_hosts: k of N hosts with their share of everything per host
   (docs/scaling.md); shares by hand */
static void test_symmetric_reduction(void **state)
{
    struct scenario sc;
    struct cluster_spec sp;
    static const char full[] =
        "{\"cluster\": {\"hosts\": 32, \"client_hosts\": 31}, \"pool\": {\"pg_num\": 32768},"
        " \"clients\": {\"volumes_per_client\": 10, \"jobs\": \"[w]\\nioengine=rbd\\nrw=randwrite\\nnumjobs=310\\n\"},"
        " \"sim\": {\"reduce_to_hosts\": 8}}";
    load_ok(&sc, &sp, full, NULL, 0);
    /* 8/32 of everything: 8192 PGs (a power of two stays one), 31 x 1/4 =
       7.75 -> 8 client hosts, 310 / 4 = 77.5 -> 78 clones (+0.6 %) */
    assert_int_equal(sp.hosts, 8);
    assert_int_equal(sp.pg_num, 8192);
    assert_int_equal(sp.client_hosts, 8);
    assert_int_equal(sp.jobs.jobs[0].numjobs, 78);
    assert_int_equal(sp.image_count, 80); /* 10 volumes per client host */
    assert_true(sc.reduction.on && sc.reduction.scale == 4);
    assert_int_equal(sc.reduction.hosts, 32);
    assert_int_equal(sc.reduction.pg_num, 32768);
    assert_int_equal(sc.reduction.client_hosts, 31);
    assert_int_equal(sc.reduction.clones, 310);
    assert_int_equal(sc.reduction.clones_simulated, 78);
    assert_float_equal(sc.reduction.clones_per_osd_ratio, 78.0 * 4 / 310, 1e-12);
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(sc.jobs.job_options[0], "numjobs")->valuestring, "78");
    /* sim.json's parameters: the simulated share in the sections, the full cluster beside them */
    cJSON *res = scenario_resolved_json(&sc);
    const cJSON *red = cJSON_GetObjectItemCaseSensitive(res, "reduction");
    assert_int_equal(cJSON_GetObjectItemCaseSensitive(red, "pg_num")->valuedouble, 32768);
    assert_int_equal(cJSON_GetObjectItemCaseSensitive(red, "client_hosts")->valuedouble, 31);
    assert_int_equal(cJSON_GetObjectItemCaseSensitive(
                         cJSON_GetObjectItemCaseSensitive(res, "cluster"), "hosts")->valuedouble, 8);
    cJSON_Delete(res);
    scenario_free(&sc);
    /* 32768 x 10/100 = 3276.8: 4096 is nearer in ratio (x1.25) than 2048 (x0.625);
       a pg_num that is not a power of two is shared as it is (3000 / 10 = 300) */
    const char *sets[] = {"cluster.hosts=100", "sim.reduce_to_hosts=10", "pool.pg_num=32768", "fio.numjobs=100"};
    load_ok(&sc, &sp, "{" JOBS "}", sets, 4);
    assert_int_equal(sp.hosts, 10);
    assert_int_equal(sp.pg_num, 4096);
    assert_int_equal(sp.jobs.jobs[0].numjobs, 10);
    assert_int_equal(sp.client_hosts, 1); /* 1 x 1/10 rounds to none: at least one */
    scenario_free(&sc);
    sets[2] = "pool.pg_num=3000";
    load_ok(&sc, &sp, "{" JOBS "}", sets, 4);
    assert_int_equal(sp.pg_num, 300);
    scenario_free(&sc);
    /* off (0) and all hosts: nothing changes */
    const char *off[] = {"cluster.hosts=6", "sim.reduce_to_hosts=6", "fio.numjobs=5"};
    load_ok(&sc, &sp, "{" JOBS "}", off, 3);
    assert_false(sc.reduction.on);
    assert_int_equal(sp.hosts, 6);
    assert_int_equal(sp.jobs.jobs[0].numjobs, 5);
    scenario_free(&sc);
    /* refused, naming the path: more hosts than the cluster, fewer than the
       replicas' failure domain needs, a real CRUSH map, a clone count that
       has no whole share */
    const char *more[] = {"sim.reduce_to_hosts=4"};
    expect_error("{" JOBS "}", more, 1, "--set sim.reduce_to_hosts=4", "more than cluster.hosts 3");
    expect_error("{\"cluster\": {\"hosts\": 6}, \"sim\": {\"reduce_to_hosts\": 2}, " JOBS "}", NULL, 0,
                 "inline.json: sim.reduce_to_hosts", "pool.size 3");
    expect_error("{\"cluster\": {\"crush_map\": \"tests/data/crush/h10x6.crush.json\"},"
                 " \"sim\": {\"reduce_to_hosts\": 5}, " JOBS "}",
                 NULL, 0, "sim.reduce_to_hosts", "CRUSH map");
    const char *odd[] = {"cluster.hosts=32", "sim.reduce_to_hosts=8", "fio.numjobs=10"};
    expect_error("{" JOBS "}", odd, 3, "sim.reduce_to_hosts", "job 'j'", "2.50 clones");
    /* alike sections of one clone each (cbt's one per client): the first k/N
       of them; sections that differ in what they load are not shared */
    static const char sections[] =
        "{\"cluster\": {\"hosts\": 16, \"client_hosts\": 8}, \"sim\": {\"reduce_to_hosts\": 4},"
        " \"clients\": {\"jobs\": \"[global]\\nioengine=rbd\\nrw=randwrite\\niodepth=16\\n"
        "[c0]\\n[c1]\\n[c2]\\n[c3]\\n[c4]\\n[c5]\\n[c6]\\n[c7]\\n\"}}";
    load_ok(&sc, &sp, sections, NULL, 0);
    assert_int_equal(sp.jobs.n_jobs, 2);
    assert_string_equal(sp.jobs.jobs[0].name, "c0");
    assert_string_equal(sp.jobs.jobs[1].name, "c1");
    assert_int_equal(sc.reduction.clones, 8);
    assert_int_equal(sc.reduction.clones_simulated, 2);
    assert_int_equal(sp.client_hosts, 2); /* 8 x 4/16 */
    scenario_free(&sc);
    static const char unlike[] =
        "{\"cluster\": {\"hosts\": 16}, \"sim\": {\"reduce_to_hosts\": 4},"
        " \"clients\": {\"jobs\": \"[global]\\nioengine=rbd\\nrw=randwrite\\n"
        "[a]\\niodepth=16\\n[b]\\niodepth=1\\n[c]\\n[d]\\n\"}}";
    expect_error(unlike, NULL, 0, "sim.reduce_to_hosts", "job 'a'", "0.25 clones");
}

/* ---- bad input ---- */

static void test_unknown_keys(void **state)
{
    expect_error("{\"clusterr\": {}, " JOBS "}", NULL, 0, "inline.json", "clusterr", "did you mean 'cluster'");
    expect_error("{\"cluster\": {\"hots\": 3}, " JOBS "}", NULL, 0, "inline.json", "cluster.hots",
                 "did you mean 'hosts'");
    expect_error("{\"ceph\": {\"rbd_io_schedular\": \"none\"}, " JOBS "}", NULL, 0, "inline.json",
                 "ceph.rbd_io_schedular", "did you mean 'rbd_io_scheduler'");
    expect_error("{\"image\": {\"gaurd\": \"none\"}, " JOBS "}", NULL, 0, "inline.json", "image.gaurd",
                 "did you mean 'guard'");
    expect_error("{\"hw\": {\"nvme\": {\"write_latncy_us\": 3}}, " JOBS "}", NULL, 0, "inline.json",
                 "hw.nvme.write_latncy_us", "did you mean 'write_latency_us'");
    expect_error("{\"fio\": {\"iodepht\": 3}, " JOBS "}", NULL, 0, "inline.json", "fio.iodepht",
                 "did you mean 'iodepth'");
    expect_error("{\"clients\": {\"jobfil\": \"x.fio\"}}", NULL, 0, "inline.json", "clients.jobfil",
                 "did you mean 'jobfile'");
    const char *s1[] = {"cluster.hots=3"};
    expect_error("{" JOBS "}", s1, 1, "--set", "cluster.hots", "did you mean 'hosts'");
    const char *s2[] = {"clustr.hosts=3"};
    expect_error("{" JOBS "}", s2, 1, "--set", "clustr", "did you mean 'cluster'");
    const char *s3[] = {"ceph.debug_os=0"};
    expect_error("{" JOBS "}", s3, 1, "--set", "ceph.debug_os", "did you mean 'debug_osd'");
    const char *s4[] = {"fio.iodepht=3"};
    expect_error("{" JOBS "}", s4, 1, "--set", "fio.iodepht", "did you mean 'iodepth'");
    const char *s5[] = {"hw.nvme.write_latncy_us=3"};
    expect_error("{" JOBS "}", s5, 1, "--set", "hw.nvme.write_latncy_us", "did you mean 'write_latency_us'");
    const char *s6[] = {"clusterhosts=3"};
    expect_error("{" JOBS "}", s6, 1, "--set", "clusterhosts");
}

static void test_wrong_types(void **state)
{
    expect_error("{\"cluster\": {\"hosts\": \"three\"}, " JOBS "}", NULL, 0, "inline.json", "cluster.hosts");
    expect_error("{\"image\": {\"object_map\": \"yes\"}, " JOBS "}", NULL, 0, "inline.json", "image.object_map");
    expect_error("{\"sim\": {\"seed\": 1.5}, " JOBS "}", NULL, 0, "inline.json", "sim.seed");
    expect_error("{\"ceph\": {\"rbd_io_scheduler\": 3}, " JOBS "}", NULL, 0, "inline.json", "ceph.rbd_io_scheduler");
    expect_error("{\"cluster\": 3, " JOBS "}", NULL, 0, "inline.json", "cluster");
    expect_error("{\"clients\": {\"jobs\": 3}}", NULL, 0, "inline.json", "clients.jobs");
    const char *s1[] = {"pool.size=abc"};
    expect_error("{" JOBS "}", s1, 1, "--set", "pool.size");
    const char *s2[] = {"image.object_map=maybe"};
    expect_error("{" JOBS "}", s2, 1, "--set", "image.object_map");
    const char *s3[] = {"fio.iodepth=deep"};
    expect_error("{" JOBS "}", s3, 1, "--set", "fio.iodepth");
}

static void test_out_of_range(void **state)
{
    expect_error("{\"pool\": {\"size\": 11}, " JOBS "}", NULL, 0, "inline.json", "pool.size");
    expect_error("{\"image\": {\"copied_up\": 1.5}, " JOBS "}", NULL, 0, "inline.json", "image.copied_up");
    expect_error("{\"image\": {\"order\": 30}, " JOBS "}", NULL, 0, "inline.json", "image.order");
    expect_error("{\"pool\": {\"size\": 2, \"min_size\": 3}, " JOBS "}", NULL, 0, "inline.json", "pool.min_size");
    expect_error("{\"image\": {\"object_map\": true, \"exclusive_lock\": false}, " JOBS "}", NULL, 0, "inline.json",
                 "image.object_map");
    const char *s1[] = {"pool.pg_num=0"};
    expect_error("{" JOBS "}", s1, 1, "--set", "pool.pg_num");
    const char *s2[] = {"sim.replications=0"};
    expect_error("{" JOBS "}", s2, 1, "--set", "sim.replications");
    const char *s3[] = {"image.guard=sometimes"};
    expect_error("{" JOBS "}", s3, 1, "--set", "image.guard");
    const char *s4[] = {"cluster.governor=turbo"};
    expect_error("{" JOBS "}", s4, 1, "--set", "cluster.governor");
    expect_error("{\"cluster\": {\"max_cstate\": \"X9\"}, " JOBS "}", NULL, 0, "inline.json", "cluster.max_cstate");
    expect_error("{\"ceph\": {\"release\": \"banana\"}, " JOBS "}", NULL, 0, "inline.json", "ceph.release", "banana");
}

static void test_unknown_profiles(void **state)
{
    expect_error("{\"cluster\": {\"nic\": \"400gbe\"}, " JOBS "}", NULL, 0, "inline.json", "400gbe");
    expect_error("{\"cluster\": {\"cpu\": \"epyc-9999\"}, " JOBS "}", NULL, 0, "inline.json", "epyc-9999");
    expect_error("{\"cluster\": {\"nvme\": \"pm1743\"}, " JOBS "}", NULL, 0, "inline.json", "pm1743");
}

/* The message names the JSON path of the profile name, and --set when it came from there. */
static void test_unknown_profile_names_path(void **state)
{
    expect_error("{\"cluster\": {\"nic\": \"400gbe\"}, " JOBS "}", NULL, 0, "inline.json", "cluster.nic", "400gbe");
    const char *s1[] = {"cluster.cpu=epyc-9999"};
    expect_error("{" JOBS "}", s1, 1, "--set", "cluster.cpu", "epyc-9999");
}

/* Errors in the file's fio/hw sections must not be reported as --set errors. */
static void test_file_errors_not_blamed_on_set(void **state)
{
    static const char *const jsons[] = {
        "{\"fio\": {\"iodepht\": 3}, " JOBS "}",
        "{\"hw\": {\"nvme\": {\"write_latncy_us\": 3}}, " JOBS "}",
    };
    for (size_t i = 0; i < 2; i++) {
        struct scenario sc;
        struct sim_err err = {0};
        assert_true(load(&sc, jsons[i], NULL, 0, &err) < 0);
        if (strstr(err.msg, "--set"))
            fail_msg("error in the file blamed on --set: %s", err.msg);
    }
}

static void test_job_file_errors(void **state)
{
    expect_error("{\"clients\": {\"jobfile\": \"tests/data/fio/does_not_exist.fio\"}}", NULL, 0, "inline.json",
                 "does_not_exist.fio");
    expect_error("{\"clients\": {\"jobfile\": \"tests/data/fio/bad_include_cycle.fio\"}}", NULL, 0, "inline.json",
                 "include cycle");
    expect_error("{\"clients\": {\"jobs\": \"[j]\\nioengine=rbd\\nrw=randwrte\\n\"}}", NULL, 0, "inline.json",
                 ":3:", "did you mean 'randwrite'");
    expect_error("{\"cluster\": {\"hosts\": 3}}", NULL, 0, "inline.json", "clients");
    expect_error("{\"clients\": {}}", NULL, 0, "inline.json", "clients");
    expect_error("{\"clients\": {\"jobs\": \"\"}}", NULL, 0, "inline.json", "clients");
}

static void test_malformed_json(void **state)
{
    char dir[] = "/tmp/cephsim_test_scenario.XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[256];
    snprintf(path, sizeof path, "%s/broken.json", dir);
    write_text(path, "{\n  \"cluster\": {\"hosts\": 3},\n  \"pool\": {\"size\": 3,,}\n}\n");
    char where[300];
    snprintf(where, sizeof where, "%s:3:", path);
    expect_error_path(path, NULL, NULL, 0, where, NULL);
    snprintf(path, sizeof path, "%s/absent.json", dir);
    expect_error_path(path, NULL, NULL, 0, path, NULL);
    expect_error("{\"cluster\": {\"hosts\": 3,}", NULL, 0, "inline.json");
    rm_tree(dir);
}

/* A profile named by a relative path in a scenario file is found relative to
   that file, from any working directory; one from --set is relative to the
   working directory.  (A calibrated lab scenario once named a /tmp file.) */
static void test_profile_path_relative_to_scenario(void **state)
{
    char dir[] = "/tmp/cephsim_test_scenario.XXXXXX", pdir[256];
    assert_non_null(mkdtemp(dir));
    char sub[300], path[400], prof[400], cwd[4096], src[2048];
    snprintf(sub, sizeof sub, "%s/scenarios", dir);
    assert_int_equal(mkdir(sub, 0777), 0);
    snprintf(sub, sizeof sub, "%s/elsewhere", dir);
    assert_int_equal(mkdir(sub, 0777), 0);
    snprintf(sub, sizeof sub, "%s/elsewhere/deeper", dir); /* where ../my-drive.json is not */
    assert_int_equal(mkdir(sub, 0777), 0);
    profiles_dir(pdir, sizeof pdir);
    snprintf(src, sizeof src, "%s/nvme/pm983.json", pdir);
    char *text = NULL;
    assert_int_equal(jsonu_slurp(src, &text, NULL, NULL), 0);
    snprintf(prof, sizeof prof, "%s/my-drive.json", dir);
    write_text(prof, text);
    free(text);
    snprintf(path, sizeof path, "%s/scenarios/s.json", dir);
    write_text(path, "{\"cluster\": {\"nvme\": \"../my-drive.json\"}, " JOBS "}");
    assert_non_null(getcwd(cwd, sizeof cwd));
    assert_int_equal(chdir(sub), 0);
    struct scenario sc;
    struct sim_err err = {0};
    int rc = scenario_load(&sc, path, NULL, NULL, NULL, 0, &err);
    if (rc == 0)
        scenario_free(&sc);
    /* the same relative path from --set means the working directory: not found there */
    const char *sets[] = {"cluster.nvme=../my-drive.json"};
    struct sim_err err2 = {0};
    int rc2 = scenario_load(&sc, path, NULL, NULL, sets, 1, &err2);
    if (rc2 == 0)
        scenario_free(&sc);
    assert_int_equal(chdir(cwd), 0);
    rm_tree(dir);
    if (rc)
        fail_msg("%s", err.msg);
    assert_true(rc2 < 0);
    assert_non_null(strstr(err2.msg, "--set cluster.nvme=../my-drive.json"));
}

/* A scenario that loads but cannot be built: the error still names the file and the path. */
static void test_bad_topology_names_file(void **state)
{
    struct scenario sc;
    struct cluster_spec sp;
    struct sim_err err = {0};
    const char *json = "{\"cluster\": {\"hosts\": 1, \"osds_per_host\": 2}, " JOBS "}";
    struct cluster *c = NULL;
    int rc = load(&sc, json, NULL, 0, &err);
    if (rc == 0) {
        rc = scenario_to_spec(&sc, 0, &sp, &err);
        if (rc == 0) {
            c = cluster_create(&sp, &err);
            rc = c ? 0 : err.code;
        }
        scenario_free(&sc);
    }
    cluster_destroy(c);
    assert_true(rc < 0);
    assert_one_line(err.msg);
    if (!strstr(err.msg, "inline.json") || !strstr(err.msg, "pool.size"))
        fail_msg("'%s' does not name the file and pool.size", err.msg);
}

/* ---- the command line ---- */

static const char *cephsim_bin(void)
{
    const char *b = getenv("CEPHSIM_BIN");
    return b && *b ? b : "out/bin/cephsim";
}

/* Run cephsim with args; stdout and stderr captured into out/errbuf; returns the exit code. */
static int run_cli(const char *args, char *out, size_t nout, char *errbuf, size_t nerr)
{
    char ofile[] = "/tmp/cephsim_test_cli_out.XXXXXX", efile[] = "/tmp/cephsim_test_cli_err.XXXXXX";
    int fo = mkstemp(ofile), fe = mkstemp(efile);
    assert_true(fo >= 0 && fe >= 0);
    close(fo);
    close(fe);
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "'%s' %s >%s 2>%s", cephsim_bin(), args, ofile, efile);
    int st = system(cmd);
    char *files[2] = {ofile, efile}, *bufs[2] = {out, errbuf};
    size_t ns[2] = {nout, nerr};
    for (int i = 0; i < 2; i++) {
        FILE *f = fopen(files[i], "r");
        size_t n = f ? fread(bufs[i], 1, ns[i] - 1, f) : 0;
        bufs[i][n] = '\0';
        if (f)
            fclose(f);
        unlink(files[i]);
    }
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int count_lines(const char *s)
{
    int n = 0;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

static bool exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

/* Nothing named prefix* in dir (the output or its temporary). */
static bool none_with_prefix(const char *dir, const char *prefix)
{
    DIR *d = opendir(dir);
    if (!d)
        return true;
    struct dirent *e;
    bool none = true;
    while ((e = readdir(d)))
        none &= strncmp(e->d_name, prefix, strlen(prefix)) != 0;
    closedir(d);
    return none;
}

/*
 * A failing `cephsim run FILE`: exit 1, one stderr line naming the file and
 * needle, no output left.  Returns false with the reason in why.
 */
static bool cli_fails_cleanly(const char *dir, const char *name, const char *json, const char *needle, char *why,
                              size_t nwhy)
{
    char path[512], args[2048], out[4096], err[4096];
    snprintf(path, sizeof path, "%s/%s.json", dir, name);
    write_text(path, json);
    /* with -o */
    snprintf(args, sizeof args, "run %s -o %s/out_%s", path, dir, name);
    int rc = run_cli(args, out, sizeof out, err, sizeof err);
    if (rc != 1 || count_lines(err) != 1 || !strstr(err, path) || !strstr(err, needle)) {
        snprintf(why, nwhy, "cephsim %s: exit %d, stderr '%s' (want exit 1, one line naming the file and %s)", args,
                 rc, err, needle);
        return false;
    }
    char prefix[128];
    snprintf(prefix, sizeof prefix, "out_%s", name);
    if (!none_with_prefix(dir, prefix)) {
        snprintf(why, nwhy, "cephsim %s left an output directory", args);
        return false;
    }
    /* default output directory out/runs/<stem> */
    snprintf(args, sizeof args, "run %s -q", path);
    rc = run_cli(args, out, sizeof out, err, sizeof err);
    char def[512];
    snprintf(def, sizeof def, "out/runs/%s", name);
    if (rc != 1 || exists(def) || !none_with_prefix("out/runs", name)) {
        snprintf(why, nwhy, "cephsim %s: exit %d, %s left behind: %d", args, rc, def, exists(def));
        return false;
    }
    return true;
}

static void check_cli_failure(const char *dir, const char *name, const char *json, const char *needle)
{
    char why[10000];
    if (!cli_fails_cleanly(dir, name, json, needle, why, sizeof why)) {
        rm_tree(dir);
        fail_msg("%s", why);
    }
}

/* `run -o DIR` replaces only a run directory cephsim wrote: a plain file, a
   directory holding anything else, or the scenario's own directory is
   refused with one line naming it, and nothing there is touched. */
static void test_output_dir_never_destroyed(void **state)
{
    if (access(cephsim_bin(), X_OK) != 0)
        skip();
    char dir[] = "/tmp/cephsim_test_outdir.XXXXXX";
    assert_non_null(mkdtemp(dir));
    char sc[400], path[600], args[2400], out[4096], errb[4096];
    snprintf(sc, sizeof sc, "%s/s.json", dir);
    write_text(sc, "{\"cluster\": {\"hosts\": 1, \"osds_per_host\": 3, \"client_hosts\": 0, \"failure_domain\": \"osd\"},"
                   " \"pool\": {\"pg_num\": 8}, \"image\": {\"size_gib\": 0.0625}, " JOBS ","
                   " \"sim\": {\"duration_s\": 0.01, \"warmup_s\": 0, \"replications\": 1}}");
    /* a plain file at the path */
    snprintf(path, sizeof path, "%s/plain", dir);
    write_text(path, "precious\n");
    snprintf(args, sizeof args, "run '%s' -q -o '%s'", sc, path);
    assert_int_not_equal(run_cli(args, out, sizeof out, errb, sizeof errb), 0);
    assert_non_null(strstr(errb, path));
    assert_int_equal(count_lines(errb), 1);
    char *text = NULL;
    assert_int_equal(jsonu_slurp(path, &text, NULL, NULL), 0);
    assert_string_equal(text, "precious\n");
    free(text);
    /* a directory with a file cephsim did not write */
    snprintf(path, sizeof path, "%s/results", dir);
    assert_int_equal(mkdir(path, 0777), 0);
    char notes[700];
    snprintf(notes, sizeof notes, "%s/notes.txt", path);
    write_text(notes, "mine\n");
    snprintf(args, sizeof args, "run '%s' -q -o '%s'", sc, path);
    assert_int_not_equal(run_cli(args, out, sizeof out, errb, sizeof errb), 0);
    assert_non_null(strstr(errb, "notes.txt"));
    assert_int_equal(access(notes, F_OK), 0);
    /* the scenario's own directory */
    snprintf(args, sizeof args, "run '%s' -q -o '%s'", sc, dir);
    assert_int_not_equal(run_cli(args, out, sizeof out, errb, sizeof errb), 0);
    assert_int_equal(access(sc, F_OK), 0);
    /* a run directory of its own is replaced, twice over */
    snprintf(path, sizeof path, "%s/run", dir);
    snprintf(args, sizeof args, "run '%s' -q -o '%s'", sc, path);
    assert_int_equal(run_cli(args, out, sizeof out, errb, sizeof errb), 0);
    assert_int_equal(run_cli(args, out, sizeof out, errb, sizeof errb), 0);
    snprintf(notes, sizeof notes, "%s/sim.json", path);
    assert_int_equal(access(notes, F_OK), 0);
    rm_tree(dir);
}

/* Reading stops: past the cap (an endless file, /dev/zero) and on a directory,
   with one line naming the file. */
static void test_reads_are_bounded(void **state)
{
    char dir[] = "/tmp/cephsim_test_read.XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[300];
    snprintf(path, sizeof path, "%s/big.json", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    for (int i = 0; i < 200000; i++) /* 2 MB */
        fputs("          ", f);
    fclose(f);
    char *text = NULL;
    struct sim_err err = {0};
    assert_int_equal(jsonu_slurp_max(path, 1 << 20, &text, NULL, &err), -EFBIG);
    assert_non_null(strstr(err.msg, path));
    assert_int_equal(jsonu_slurp_max(path, 4 << 20, &text, NULL, &err), 0);
    free(text);
    assert_int_equal(jsonu_slurp_max("/dev/zero", 1 << 20, &text, NULL, &err), -EFBIG);
    assert_non_null(strstr(err.msg, "/dev/zero"));
    assert_int_equal(jsonu_slurp(dir, &text, NULL, &err), -EISDIR);
    assert_non_null(strstr(err.msg, "is a directory"));
    assert_null(strchr(err.msg, '\n'));
    rm_tree(dir);
}

/* A replication's seed, as sim.json prints it, reproduces that replication
   when fed back with --seed (exact integers; run and sweep derive them alike). */
static void test_replication_seeds_feed_back(void **state)
{
    if (access(cephsim_bin(), X_OK) != 0)
        skip();
    char dir[] = "/tmp/cephsim_test_seed.XXXXXX";
    assert_non_null(mkdtemp(dir));
    char sc[300], args[1400], out[4096], errb[4096], path[400];
    snprintf(sc, sizeof sc, "%s/s.json", dir);
    write_text(sc, "{\"cluster\": {\"hosts\": 1, \"osds_per_host\": 3, \"client_hosts\": 0, \"failure_domain\": \"osd\"},"
                   " \"pool\": {\"pg_num\": 8}, \"image\": {\"size_gib\": 0.0625}, " JOBS ","
                   " \"sim\": {\"duration_s\": 0.02, \"warmup_s\": 0, \"replications\": 2, \"seed\": 7}}");
    snprintf(args, sizeof args, "run '%s' -q -o '%s/two'", sc, dir);
    assert_int_equal(run_cli(args, out, sizeof out, errb, sizeof errb), 0);
    snprintf(path, sizeof path, "%s/two/sim.json", dir);
    char *text = NULL;
    assert_int_equal(jsonu_slurp(path, &text, NULL, NULL), 0);
    cJSON *j = cJSON_Parse(text);
    free(text);
    const cJSON *r1 = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "replications"), 1);
    const char *raw = cJSON_PrintUnformatted(cJSON_GetObjectItem(r1, "seed"));
    assert_null(strpbrk(raw, ".eE")); /* an integer, as printed */
    double iops1 = cJSON_GetObjectItem(r1, "iops")->valuedouble;
    snprintf(args, sizeof args, "run '%s' -q -o '%s/one' --seed %s --set sim.replications=1", sc, dir, raw);
    free((void *)raw);
    cJSON_Delete(j);
    assert_int_equal(run_cli(args, out, sizeof out, errb, sizeof errb), 0);
    snprintf(path, sizeof path, "%s/one/sim.json", dir);
    assert_int_equal(jsonu_slurp(path, &text, NULL, NULL), 0);
    j = cJSON_Parse(text);
    free(text);
    const cJSON *r0 = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "replications"), 0);
    assert_true(cJSON_GetObjectItem(r0, "iops")->valuedouble == iops1);
    cJSON_Delete(j);
    rm_tree(dir);
}

/* Job files from the command line: `run F.fio` on the seed cluster, `run S
   --jobfile F`, `--set clients.jobfile=F` (relative to the working directory). */
static void test_jobfile_from_cli(void **state)
{
    if (access(cephsim_bin(), X_OK) != 0)
        skip();
    char dir[] = "/tmp/cephsim_test_jobfile.XXXXXX";
    assert_non_null(mkdtemp(dir));
    char args[2000], out[8192], errb[4096], path[300];
    const char *shortrun = "--set sim.duration_s=0.01 --set sim.warmup_s=0 --set sim.replications=1";
    snprintf(args, sizeof args, "run scenarios/fio/rbd-4k-write-qd128.fio -q -o '%s/bare' %s", dir, shortrun);
    assert_int_equal(run_cli(args, out, sizeof out, errb, sizeof errb), 0);
    snprintf(path, sizeof path, "%s/bare/fio.json", dir);
    char *text = NULL;
    assert_int_equal(jsonu_slurp(path, &text, NULL, NULL), 0);
    assert_non_null(strstr(text, "\"iodepth\":\t\"128\""));
    free(text);
    snprintf(args, sizeof args, "run scenarios/lab.json --jobfile scenarios/fio/rbd-4k-write-qd128.fio -q -o '%s/opt' %s",
             dir, shortrun);
    assert_int_equal(run_cli(args, out, sizeof out, errb, sizeof errb), 0);
    snprintf(path, sizeof path, "%s/opt/fio.json", dir);
    assert_int_equal(jsonu_slurp(path, &text, NULL, NULL), 0);
    assert_non_null(strstr(text, "\"iodepth\":\t\"128\""));
    free(text);
    snprintf(args, sizeof args, "run scenarios/lab.json --set clients.jobfile=no/such.fio -q -o '%s/bad'", dir);
    assert_int_not_equal(run_cli(args, out, sizeof out, errb, sizeof errb), 0);
    assert_non_null(strstr(errb, "no/such.fio"));
    snprintf(args, sizeof args, "run scenarios/lab.json --set clients.jobfle=x -q -o '%s/bad'", dir);
    assert_int_not_equal(run_cli(args, out, sizeof out, errb, sizeof errb), 0);
    assert_non_null(strstr(errb, "did you mean 'jobfile'"));
    rm_tree(dir);
}

/* A job for another fio engine is refused, naming the job and the engine:
   it would otherwise run silently as librbd. */
static void test_other_ioengines_refused(void **state)
{
    static const char *const engines[] = {"libaio", "null", "dev-dax"};
    for (int i = 0; i < 3; i++) {
        char json[512];
        snprintf(json, sizeof json, "{\"clients\": {\"jobs\": \"[w]\\nioengine=%s\\nrw=randwrite\\n\"}}",
                 engines[i]);
        struct scenario sc;
        struct sim_err err = {0};
        assert_true(scenario_load(&sc, NULL, json, "engine.json", NULL, 0, &err) < 0);
        assert_non_null(strstr(err.msg, "job 'w'"));
        assert_non_null(strstr(err.msg, engines[i]));
        assert_non_null(strstr(err.msg, "not modelled"));
    }
    /* fio's default engine (psync) is not rbd either */
    struct scenario sc;
    struct sim_err err = {0};
    assert_true(scenario_load(&sc, NULL, "{\"clients\": {\"jobs\": \"[w]\\nrw=randwrite\\n\"}}", "engine.json",
                              NULL, 0, &err) < 0);
    assert_non_null(strstr(err.msg, "ioengine=psync"));
}

/* A reduced run's fio.json and dumps are the simulated hosts' own: validate
   and replay refuse to set them against a whole cluster, in one line, exit 1 / 2. */
static void test_reduced_runs_not_compared(void **state)
{
    if (access(cephsim_bin(), X_OK) != 0)
        skip();
    char out[8192], err[8192];
    static const char *const cmds[] = {
        "validate --real ../shared/data/lab/noparent_randw-qd1_sched-simple_rt_r1 --run scenarios/qd1-latency.json "
        "--set cluster.hosts=6 --set fio.numjobs=2 --set sim.reduce_to_hosts=3 -q",
        "replay tests/data/trace/iolog_v2.log --scenario scenarios/qd1-latency.json --set cluster.hosts=6 "
        "--set fio.numjobs=2 --set sim.reduce_to_hosts=3 -q -o out/test_reduced_replay"};
    for (int i = 0; i < 2; i++) {
        int rc = run_cli(cmds[i], out, sizeof out, err, sizeof err);
        if (rc == 0 || count_lines(err) != 1 || !strstr(err, "sim.reduce_to_hosts: ") ||
            !strstr(err, "simulated hosts only") || !strstr(err, "qd1-latency.json"))
            fail_msg("cephsim %s: exit %d, stderr '%s'", cmds[i], rc, err);
    }
}

static void test_cli_contract(void **state)
{
    if (access(cephsim_bin(), X_OK) != 0)
        skip();
    char out[8192], err[8192];
    assert_int_equal(run_cli("--version", out, sizeof out, err, sizeof err), 0);
    assert_true(!strncmp(out, "cephsim ", 8));
    assert_int_equal(run_cli("run --bogus", out, sizeof out, err, sizeof err), 2);
    assert_true(err[0] != '\0');
    assert_int_equal(run_cli("frobnicate", out, sizeof out, err, sizeof err), 2);
    char dir[] = "/tmp/cephsim_test_cli.XXXXXX";
    assert_non_null(mkdtemp(dir));
    char name[64];
    snprintf(name, sizeof name, "cstest_badkey_%ld", (long)getpid());
    check_cli_failure(dir, name, "{\"cluster\": {\"hots\": 3}, " JOBS "}", "cluster.hots");
    snprintf(name, sizeof name, "cstest_badjson_%ld", (long)getpid());
    check_cli_failure(dir, name, "{\"cluster\": {\"hosts\": 3,}}", ":1:");
    snprintf(name, sizeof name, "cstest_badset_%ld", (long)getpid());
    char path[512], args[1024];
    snprintf(path, sizeof path, "%s/%s.json", dir, name);
    write_text(path, "{" JOBS "}");
    snprintf(args, sizeof args, "run %s -o %s/out_set --set pool.size=0", path, dir);
    int rc = run_cli(args, out, sizeof out, err, sizeof err);
    bool left = !none_with_prefix(dir, "out_set");
    rm_tree(dir);
    if (rc != 1 || count_lines(err) != 1 || !strstr(err, "--set") || !strstr(err, "pool.size") || left)
        fail_msg("cephsim %s: exit %d, stderr '%s', output left: %d", args, rc, err, left);
}

static void test_cli_bad_topology(void **state)
{
    if (access(cephsim_bin(), X_OK) != 0)
        skip();
    char dir[] = "/tmp/cephsim_test_cli.XXXXXX";
    assert_non_null(mkdtemp(dir));
    char name[64];
    snprintf(name, sizeof name, "cstest_topology_%ld", (long)getpid());
    check_cli_failure(dir, name, "{\"cluster\": {\"hosts\": 1, \"osds_per_host\": 2}, " JOBS "}", "pool.size");
    rm_tree(dir);
}

/* ---- fio JSON against a real capture ---- */

static const char *kind(const cJSON *j)
{
    if (cJSON_IsObject(j))
        return "object";
    if (cJSON_IsArray(j))
        return "array";
    if (cJSON_IsBool(j))
        return "bool";
    if (cJSON_IsNull(j))
        return "null";
    if (cJSON_IsString(j))
        return !strcmp(j->valuestring, "#I") ? "int" : !strcmp(j->valuestring, "#F") ? "float" : "string";
    return "?";
}

/* Append to diffs every key missing/extra or of another type, recursively (arrays: first element). */
static void compare(const cJSON *sim, const cJSON *real, const char *path, char *diffs, size_t n)
{
    if (strcmp(kind(sim), kind(real))) {
        snprintf(diffs + strlen(diffs), n - strlen(diffs), " %s: %s vs %s;", path, kind(sim), kind(real));
        return;
    }
    char sub[512];
    if (cJSON_IsObject(real)) {
        const cJSON *e;
        cJSON_ArrayForEach(e, real) {
            snprintf(sub, sizeof sub, "%s.%s", path, e->string);
            const cJSON *s = cJSON_GetObjectItemCaseSensitive(sim, e->string);
            if (!s)
                snprintf(diffs + strlen(diffs), n - strlen(diffs), " %s: missing;", sub);
            else
                compare(s, e, sub, diffs, n);
        }
        cJSON_ArrayForEach(e, sim) {
            if (!cJSON_GetObjectItemCaseSensitive(real, e->string))
                snprintf(diffs + strlen(diffs), n - strlen(diffs), " %s.%s: extra;", path, e->string);
        }
    } else if (cJSON_IsArray(real) && cJSON_GetArraySize(real) > 0 && cJSON_GetArraySize(sim) > 0) {
        snprintf(sub, sizeof sub, "%s[0]", path);
        compare(cJSON_GetArrayItem(sim, 0), cJSON_GetArrayItem(real, 0), sub, diffs, n);
    }
}

static void test_fio_json_conformity(void **state)
{
    char *real_text;
    size_t len;
    struct sim_err err = {0};
    if (access(REAL_FIO, R_OK) != 0)
        skip();
    assert_int_equal(jsonu_slurp(REAL_FIO, &real_text, &len, &err), 0);
    cJSON *real = typed_parse(real_text);
    free(real_text);
    assert_non_null(real);
    /* the capture's own job, option for option (its "job options") */
    const cJSON *real_job = cJSON_GetArrayItem(cJSON_GetObjectItem(real, "jobs"), 0);
    const cJSON *opts = cJSON_GetObjectItem(real_job, "job options");
    char jobs[2048];
    int n = snprintf(jobs, sizeof jobs, "[%s]\n", cJSON_GetStringValue(cJSON_GetObjectItem(real_job, "jobname")));
    const cJSON *o;
    cJSON_ArrayForEach(o, opts)
        n += snprintf(jobs + n, sizeof jobs - (size_t)n, "%s=%s\n", o->string, o->valuestring);
    cJSON *scen = cJSON_Parse("{\"cluster\": {\"hosts\": 3, \"osds_per_host\": 1}, \"pool\": {\"pg_num\": 32},"
                              " \"image\": {\"size_gib\": 1},"
                              " \"sim\": {\"duration_s\": 0.3, \"warmup_s\": 0.05, \"replications\": 1}}");
    cJSON_AddStringToObject(cJSON_AddObjectToObject(scen, "clients"), "jobs", jobs);
    char *text = cJSON_PrintUnformatted(scen);
    cJSON_Delete(scen);
    struct scenario sc;
    int rc = load(&sc, text, NULL, 0, &err);
    free(text);
    if (rc < 0)
        fail_msg("%s", err.msg);
    char dir[] = "/tmp/cephsim_test_fiojson.XXXXXX";
    assert_non_null(mkdtemp(dir));
    char out[256], path[300];
    snprintf(out, sizeof out, "%s/run", dir);
    struct run_summary sum;
    if (runner_run(&sc, out, false, &sum, &err) < 0)
        fail_msg("runner_run: %s", err.msg);
    scenario_free(&sc);
    snprintf(path, sizeof path, "%s/fio.json", out);
    char *sim_text;
    assert_int_equal(jsonu_slurp(path, &sim_text, &len, &err), 0);
    cJSON *sim = typed_parse(sim_text);
    free(sim_text);
    assert_non_null(sim);
    /* whole document; disk_util holds the host's block devices in the capture (none for rbd) */
    cJSON_DeleteItemFromObject(real, "disk_util");
    cJSON_DeleteItemFromObject(sim, "disk_util");
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(sim, "jobs")), 1);
    char diffs[4096] = "";
    compare(sim, real, "", diffs, sizeof diffs);
    if (diffs[0])
        fail_msg("fio.json differs from the capture:%s", diffs);
    /* and the run did something */
    assert_true(sum.iops.mean > 100);
    cJSON_Delete(sim);
    cJSON_Delete(real);
    rm_tree(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_paths_in_json),
        cmocka_unit_test(test_paths_via_set),
        cmocka_unit_test(test_max_cstate),
        cmocka_unit_test(test_governor),
        cmocka_unit_test(test_cpu_topology_and_clocks),
        cmocka_unit_test(test_image_kind_and_guard),
        cmocka_unit_test(test_images_and_features),
        cmocka_unit_test(test_min_size_follows_size),
        cmocka_unit_test(test_release),
        cmocka_unit_test(test_release_client_costs),
        cmocka_unit_test(test_sim_times_from_jobs),
        cmocka_unit_test(test_symmetric_reduction),
        cmocka_unit_test(test_unknown_keys),
        cmocka_unit_test(test_wrong_types),
        cmocka_unit_test(test_out_of_range),
        cmocka_unit_test(test_unknown_profiles),
        cmocka_unit_test(test_unknown_profile_names_path),
        cmocka_unit_test(test_file_errors_not_blamed_on_set),
        cmocka_unit_test(test_job_file_errors),
        cmocka_unit_test(test_malformed_json),
        cmocka_unit_test(test_profile_path_relative_to_scenario),
        cmocka_unit_test(test_bad_topology_names_file),
        cmocka_unit_test(test_output_dir_never_destroyed),
        cmocka_unit_test(test_reads_are_bounded),
        cmocka_unit_test(test_replication_seeds_feed_back),
        cmocka_unit_test(test_jobfile_from_cli),
        cmocka_unit_test(test_other_ioengines_refused),
        cmocka_unit_test(test_cli_contract),
        cmocka_unit_test(test_reduced_runs_not_compared),
        cmocka_unit_test(test_cli_bad_topology),
        cmocka_unit_test(test_fio_json_conformity),
    };
    return cmocka_run_group_tests_name("scenario", tests, NULL, NULL);
}
