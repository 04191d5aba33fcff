/*
 * test_import.c - `cephsim import`: a scenario from a real cluster's outputs.
 * The lab capture (tests/data/lab2/cluster, Ceph 16.2.15, 3 OSDs on one
 * loopback host) is imported and every fact checked against the raw files
 * (pool ls detail: pool 2, 32 PGs, size 3; versions: 16.2.15; ceph.conf:
 * osd_op_num_shards 8, rbd_cache false; config diff: osd_op_history_size 500;
 * metadata: loopback addresses, CPU "AMD EPYC", device vda without a model id);
 * synthetic directories check profile matching by model, refusals and notes.
 * Scratch files go under out/.
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
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "import.h"
#include "jsonu.h"
#include "scenario.h"

#define LAB "tests/data/lab2/cluster"

static char scratch[] = "out/test_import.XXXXXX";

static int setup(void **state)
{
    (void)state;
    return mkdtemp(scratch) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", scratch);
    return system(cmd) == 0 ? 0 : -1;
}

static const cJSON *at(const cJSON *j, const char *sec, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(j, sec), key);
    if (!v)
        fail_msg("%s.%s missing", sec, key);
    return v;
}

static bool has_note(const struct import_result *r, const char *part)
{
    for (int i = 0; i < r->n_notes; i++)
        if (strstr(r->notes[i], part))
            return true;
    return false;
}

static void write_file(const char *dir, const char *name, const char *text)
{
    char p[400];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void copy_file(const char *from, const char *dir, const char *name)
{
    char *text;
    size_t len;
    struct sim_err err = {0};
    if (jsonu_slurp(from, &text, &len, &err) < 0)
        fail_msg("%s", err.msg);
    write_file(dir, name, text);
    free(text);
}

static void lab_capture(void **state)
{
    (void)state;
    char out[200];
    snprintf(out, sizeof out, "%s/lab2.json", scratch);
    struct import_opts o = {.dir = LAB, .out_path = out};
    struct import_result r;
    struct sim_err err = {0};
    if (import_cluster(&o, &r, &err) < 0)
        fail_msg("%s", err.msg);
    const cJSON *s = r.scenario;
    assert_int_equal(at(s, "pool", "id")->valueint, 2);
    assert_int_equal(at(s, "pool", "pg_num")->valueint, 32);
    assert_int_equal(at(s, "pool", "size")->valueint, 3);
    assert_int_equal(at(s, "pool", "min_size")->valueint, 2);
    assert_int_equal(at(s, "pool", "crush_rule")->valueint, 0);
    assert_string_equal(at(s, "ceph", "release")->valuestring, "16.2.15");
    assert_int_equal(at(s, "ceph", "osd_op_num_shards_ssd")->valueint, 8);
    assert_int_equal(at(s, "ceph", "osd_op_num_threads_per_shard_ssd")->valueint, 2);
    assert_int_equal(at(s, "ceph", "osd_op_history_size")->valueint, 500);
    assert_int_equal(at(s, "ceph", "osd_op_history_duration")->valueint, 900);
    assert_int_equal(at(s, "ceph", "debug_osd")->valueint, 0);
    assert_int_equal(at(s, "ceph", "bluestore_min_alloc_size_ssd")->valueint, 4096);
    assert_true(cJSON_IsFalse(at(s, "ceph", "rbd_cache")));
    assert_string_equal(at(s, "cluster", "nic")->valuestring, "loopback");
    assert_string_equal(at(s, "cluster", "switch")->valuestring, "none");
    assert_int_equal(at(s, "cluster", "client_hosts")->valueint, 0);
    assert_string_equal(at(s, "cluster", "crush_map")->valuestring,
                        "../../tests/data/lab2/cluster/osd_crush_dump.json");
    assert_null(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(s, "cluster"), "cpu"));
    assert_true(at(s, "image", "size_gib")->valuedouble == 2);
    assert_true(has_note(&r, "no profile: CPU 'AMD EPYC'"));
    assert_true(has_note(&r, "epyc-7302p, epyc-75f3, epyc-7742"));
    assert_true(has_note(&r, "no profile: data device vda"));
    assert_true(has_note(&r, "not modelled: 2 options set on the cluster have no counterpart in the model: "
                             "bluestore_block_size, rbd_clone_copy_on_read"));
    /* the lab's 2 GiB memory target sizes its OSDs' data caches */
    assert_true(at(s, "ceph", "osd_memory_target")->valuedouble == 2147483648.0);
    assert_true(has_note(&r, "assumed: the workload"));
    assert_true(has_note(&r, "taken: bluestore_debug_enforce_settings=ssd"));
    /* its OSDs ran kernel 6.18.44: EEVDF */
    assert_string_equal(at(s, "cluster", "cpu_scheduler")->valuestring, "eevdf");
    assert_true(has_note(&r, "taken: kernel 6.18.44-fc-v1045 (osd metadata kernel_version): cluster.cpu_scheduler "
                             "eevdf"));
    /* the scenario loads where it is written, its CRUSH map found relative to it */
    if (jsonu_write_file(out, s, &err) < 0)
        fail_msg("%s", err.msg);
    struct scenario sc;
    if (scenario_load(&sc, out, NULL, NULL, NULL, 0, &err) < 0)
        fail_msg("%s", err.msg);
    scenario_free(&sc);
    import_result_free(&r);
}

/*
 * An image on an erasure-coded data pool (tests/data/lab8/cluster: the
 * kit's cluster_facts.sh on a real 8-OSD 16.2.15 cluster with pools rbd,
 * ec21data, ec42data, ec62data): rbd info's data_pool makes the scenario's
 * pool the EC one, its k and m from the profile
 * (osd_erasure_code_profiles.json); naming the EC pool with --pool does the
 * same; without the profiles, k comes from stripe_width / 4096 and m from
 * size - k, said as assumed.  Each scenario loads.
 */
static void ec_data_pool(void **state)
{
    const char *dir = "tests/data/lab8/cluster";
    const struct {
        const char *image, *pool;
        int k, m, size, min_size, rule, id;
    } cases[] = {
        {"ec62img", NULL, 6, 2, 8, 7, 3, 5},
        {NULL, "ec42data", 4, 2, 6, 5, 2, 4},
        {"noparent", NULL, 0, 0, 3, 2, 0, 2},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char out[200];
        snprintf(out, sizeof out, "%s/lab8-%zu.json", scratch, i);
        struct import_opts o = {.dir = dir, .out_path = out, .image = cases[i].image, .pool = cases[i].pool};
        struct import_result r;
        struct sim_err err = {0};
        if (import_cluster(&o, &r, &err) < 0)
            fail_msg("%s", err.msg);
        const cJSON *s = r.scenario;
        assert_int_equal(at(s, "pool", "size")->valueint, cases[i].size);
        assert_int_equal(at(s, "pool", "min_size")->valueint, cases[i].min_size);
        assert_int_equal(at(s, "pool", "pg_num")->valueint, 64);
        assert_int_equal(at(s, "pool", "crush_rule")->valueint, cases[i].rule);
        assert_int_equal(at(s, "pool", "id")->valueint, cases[i].id);
        if (cases[i].k) {
            assert_string_equal(at(s, "pool", "type")->valuestring, "erasure");
            assert_int_equal(at(s, "pool", "k")->valueint, cases[i].k);
            assert_int_equal(at(s, "pool", "m")->valueint, cases[i].m);
            assert_int_equal(at(s, "pool", "stripe_unit")->valueint, 4096);
            assert_true(has_note(&r, "is erasure-coded with profile"));
            assert_true(cases[i].pool || has_note(&r, "keeps its data in pool 'ec62data'"));
        } else {
            assert_null(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(s, "pool"), "type"));
        }
        if (jsonu_write_file(out, s, &err) < 0)
            fail_msg("%s", err.msg);
        const char *sets[] = {"sim.duration_s=0.05", "sim.warmup_s=0.01", "fio.rw=randread", "fio.iodepth=4"};
        struct scenario sc;
        if (scenario_load(&sc, out, NULL, NULL, sets, 4, &err) < 0)
            fail_msg("%s: %s", out, err.msg);
        assert_int_equal(sc.pool.type == SCENARIO_POOL_ERASURE, cases[i].k > 0);
        scenario_free(&sc);
        import_result_free(&r);
    }
    /* no profiles: k and m from the pool's stripe_width and size */
    char bare[200];
    snprintf(bare, sizeof bare, "%s/lab8-bare", scratch);
    assert_int_equal(mkdir(bare, 0755), 0);
    static const char *const files[] = {"osd_crush_dump.json", "osd_pool_ls_detail.json", "osd_metadata.json",
                                        "versions.json", "rbd_images.json", NULL};
    for (int f = 0; files[f]; f++) {
        char from[300];
        snprintf(from, sizeof from, "%s/%s", dir, files[f]);
        copy_file(from, bare, files[f]);
    }
    struct import_opts o = {.dir = bare, .image = "ec42img"};
    struct import_result r;
    struct sim_err err = {0};
    if (import_cluster(&o, &r, &err) < 0)
        fail_msg("%s", err.msg);
    assert_int_equal(at(r.scenario, "pool", "k")->valueint, 4);
    assert_int_equal(at(r.scenario, "pool", "m")->valueint, 2);
    assert_true(has_note(&r, "assumed: pool 'ec42data' is erasure-coded with k=4 m=2 (stripe_width 16384"));
    import_result_free(&r);
}

/* An input that is there but is not a regular file (a directory, a dangling link) used
   to read as "assumed: no osd_metadata.json" and exit 0; it is an error naming it. */
static void input_that_is_not_a_file_is_an_error(void **state)
{
    static const char *const files[] = {"osd_crush_dump.json", "osd_pool_ls_detail.json", "versions.json",
                                        "rbd_images.json", NULL};
    static const char *const culprits[] = {"osd_metadata.json", "config_dump.json", "ceph.conf",
                                           "rbd_images.json", "osd_crush_dump.json"};
    for (size_t k = 0; k < sizeof culprits / sizeof *culprits; k++)
        for (int link = 0; link < 2; link++) {
            char dir[200], bad[300];
            snprintf(dir, sizeof dir, "%s/notafile-%zu-%d", scratch, k, link);
            assert_int_equal(mkdir(dir, 0755), 0);
            for (int f = 0; files[f]; f++) {
                char from[300];
                snprintf(from, sizeof from, LAB "/%s", files[f]);
                copy_file(from, dir, files[f]);
            }
            snprintf(bad, sizeof bad, "%s/%s", dir, culprits[k]);
            unlink(bad);
            if (link)
                assert_int_equal(symlink("nowhere.json", bad), 0);
            else
                assert_int_equal(mkdir(bad, 0755), 0);
            struct import_opts o = {.dir = dir};
            struct import_result r;
            struct sim_err err = {0};
            assert_true(import_cluster(&o, &r, &err) < 0);
            assert_non_null(strstr(err.msg, bad));
            assert_non_null(strstr(err.msg, link ? "symbolic link to nothing" : "not a regular file"));
            import_result_free(&r);
        }
}

/* What the kit's cluster_facts.sh collected from a fresh lab cluster imports the same way. */
static void kit_capture(void **state)
{
    (void)state;
    char out[200];
    snprintf(out, sizeof out, "%s/kit.json", scratch);
    struct import_opts o = {.dir = LAB "/kit", .out_path = out};
    struct import_result r;
    struct sim_err err = {0};
    if (import_cluster(&o, &r, &err) < 0)
        fail_msg("%s", err.msg);
    const cJSON *s = r.scenario;
    assert_int_equal(at(s, "pool", "id")->valueint, 2);
    assert_int_equal(at(s, "pool", "pg_num")->valueint, 32);
    assert_string_equal(at(s, "ceph", "release")->valuestring, "16.2.15");
    assert_true(at(s, "image", "size_gib")->valuedouble == 1);
    assert_true(has_note(&r, "taken: image 'facts-img' (the only image)"));
    assert_true(has_note(&r, "taken: osd.0.asok_config_diff.json"));
    if (jsonu_write_file(out, s, &err) < 0)
        fail_msg("%s", err.msg);
    struct scenario sc;
    if (scenario_load(&sc, out, NULL, NULL, NULL, 0, &err) < 0)
        fail_msg("%s", err.msg);
    scenario_free(&sc);
    import_result_free(&r);
}

/* A cluster of another shape, written by hand from the Ceph commands' formats. */
static void make_cluster_kernel(const char *dir, const char *cpu, const char *ids, const char *addr,
                                const char *store, int pool_type, const char *config, const char *kernel)
{
    assert_int_equal(mkdir(dir, 0777), 0);
    copy_file(LAB "/osd_crush_dump.json", dir, "osd_crush_dump.json");
    char buf[4000];
    snprintf(buf, sizeof buf,
             "[{\"pool_id\": 7, \"pool_name\": \"vols\", \"type\": %d, \"size\": 3, \"min_size\": 2, \"pg_num\": 64, "
             "\"pg_placement_num\": 64, \"crush_rule\": 0, \"application_metadata\": {\"rbd\": {}}}]", pool_type);
    write_file(dir, "osd_pool_ls_detail.json", buf);
    char md[3000] = "[";
    for (int i = 0; i < 3; i++)
        snprintf(md + strlen(md), sizeof md - strlen(md),
                 "%s{\"id\": %d, \"cpu\": \"%s\", \"hostname\": \"vm\", \"osd_objectstore\": \"%s\", "
                 "\"front_addr\": \"[v2:%s:6800/1]\", \"back_addr\": \"[v2:%s:6802/1]\", \"device_ids\": \"%s\", "
                 "\"bluestore_bdev_devices\": \"nvme0n1\", \"bluestore_bdev_rotational\": \"0\", "
                 "\"bluestore_min_alloc_size\": \"16384\"%s%s%s}",
                 i ? ", " : "", i, cpu, store, addr, addr, ids, kernel ? ", \"kernel_version\": \"" : "",
                 kernel ? kernel : "", kernel ? "\"" : "");
    strcat(md, "]");
    write_file(dir, "osd_metadata.json", md);
    write_file(dir, "versions.json", "{\"osd\": {\"ceph version 18.2.4 (e7ad) reef (stable)\": 2, "
                                     "\"ceph version 18.2.2 (531c) reef (stable)\": 1}}");
    write_file(dir, "config_dump.json", config);
}

static void make_cluster(const char *dir, const char *cpu, const char *ids, const char *addr, const char *store,
                         int pool_type, const char *config)
{
    make_cluster_kernel(dir, cpu, ids, addr, store, pool_type, config, NULL);
}

static void other_clusters(void **state)
{
    (void)state;
    char dir[300], out[300];
    struct import_result r;
    struct sim_err err = {0};
    /* a bare-metal NVMe cluster: profiles matched by model, the network assumed */
    snprintf(dir, sizeof dir, "%s/metal", scratch);
    make_cluster(dir, "AMD EPYC 7302P 16-Core Processor", "nvme0n1=SAMSUNG_MZQLB3T8HALS-00007_S438NC0R123456",
                 "10.0.0.5", "bluestore", 1,
                 "[{\"section\": \"osd\", \"name\": \"osd_op_queue\", \"value\": \"mclock_scheduler\"},"
                 " {\"section\": \"osd.3\", \"name\": \"debug_osd\", \"value\": \"20/20\"},"
                 " {\"section\": \"global\", \"name\": \"bluestore_prefer_deferred_size_ssd\", \"value\": \"64K\"},"
                 " {\"section\": \"client\", \"name\": \"librados_thread_count\", \"value\": \"4\"},"
                 " {\"section\": \"mon\", \"name\": \"mon_max_pg_per_osd\", \"value\": \"500\"}]");
    snprintf(out, sizeof out, "%s/metal.json", scratch);
    struct import_opts o = {.dir = dir, .out_path = out};
    if (import_cluster(&o, &r, &err) < 0)
        fail_msg("%s", err.msg);
    const cJSON *s = r.scenario;
    assert_string_equal(at(s, "cluster", "cpu")->valuestring, "epyc-7302p");
    assert_string_equal(at(s, "cluster", "nvme")->valuestring, "pm983");
    assert_null(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(s, "cluster"), "nic"));
    assert_string_equal(at(s, "ceph", "release")->valuestring, "18.2.4"); /* most OSDs */
    assert_string_equal(at(s, "ceph", "osd_op_queue")->valuestring, "mclock_scheduler");
    assert_int_equal(at(s, "ceph", "bluestore_prefer_deferred_size_ssd")->valueint, 65536);
    assert_int_equal(at(s, "ceph", "bluestore_min_alloc_size_ssd")->valueint, 16384);
    assert_int_equal(at(s, "ceph", "librados_thread_count")->valueint, 4); /* the clients' io_context_pool */
    assert_int_equal(at(s, "pool", "id")->valueint, 7);
    assert_true(has_note(&r, "taken: CPU 'AMD EPYC 7302P 16-Core Processor'"));
    assert_true(has_note(&r, "assumed: network 10gbase-t"));
    assert_true(has_note(&r, "assumed: fio runs on one client host of its own"));
    assert_true(has_note(&r, "not modelled: the OSDs run 2 Ceph versions"));
    assert_true(has_note(&r, "osd.3/debug_osd = 20/20 applies to osd.3"));
    assert_true(has_note(&r, "assumed: no rbd_images.json"));
    /* no kernel_version: the model's FIFO of cores, said */
    assert_null(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(s, "cluster"), "cpu_scheduler"));
    assert_true(has_note(&r, "assumed: no kernel_version in osd metadata: cluster.cpu_scheduler stays fifo"));
    import_result_free(&r);
    /* RHEL 8's 4.18 and 6.5 are CFS, 6.6 EEVDF */
    const char *kernels[3][2] = {{"4.18.0-348.el8.x86_64", "cfs"}, {"6.5.13-1", "cfs"}, {"6.6.0", "eevdf"}};
    for (int k = 0; k < 3; k++) {
        snprintf(dir, sizeof dir, "%s/kernel%d", scratch, k);
        make_cluster_kernel(dir, "AMD EPYC 7302P 16-Core Processor", "", "10.0.0.5", "bluestore", 1, "[]",
                            kernels[k][0]);
        o.dir = dir;
        if (import_cluster(&o, &r, &err) < 0)
            fail_msg("%s", err.msg);
        assert_string_equal(at(r.scenario, "cluster", "cpu_scheduler")->valuestring, kernels[k][1]);
        import_result_free(&r);
    }
    o.dir = dir;
    /* refusals: an erasure-coded pool whose k and m nothing gives (no profile, no
       stripe_width), FileStore, a directory without a CRUSH dump */
    snprintf(dir, sizeof dir, "%s/ec", scratch);
    make_cluster(dir, "x", "", "10.0.0.5", "bluestore", 3, "[]");
    o.dir = dir;
    assert_true(import_cluster(&o, &r, &err) < 0);
    assert_non_null(strstr(err.msg, "pool 'vols' is erasure-coded, but its stripe_width 0"));
    assert_non_null(strstr(err.msg, "add osd_erasure_code_profiles.json"));
    snprintf(dir, sizeof dir, "%s/fs", scratch);
    make_cluster(dir, "x", "", "10.0.0.5", "filestore", 1, "[]");
    o.dir = dir;
    assert_true(import_cluster(&o, &r, &err) < 0);
    assert_non_null(strstr(err.msg, "osd_metadata.json: [0].osd_objectstore: 'filestore': cephsim models BlueStore only"));
    o.dir = scratch; /* no Ceph outputs at all */
    assert_true(import_cluster(&o, &r, &err) < 0);
    assert_non_null(strstr(err.msg, "no osd_crush_dump.json (`ceph osd crush dump --format json`)"));
}

static int run_cli(const char *args, char *buf, size_t n)
{
    const char *b = getenv("CEPHSIM_BIN");
    char cmd[2000], log[300];
    snprintf(log, sizeof log, "%s/cli.log", scratch);
    snprintf(cmd, sizeof cmd, "'%s' %s >%s 2>&1", b && *b ? b : "out/bin/cephsim", args, log);
    int st = system(cmd);
    FILE *f = fopen(log, "r");
    size_t k = f ? fread(buf, 1, n - 1, f) : 0;
    buf[k] = '\0';
    if (f)
        fclose(f);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* From the command line: written, replaced only if its own, and simulated next to a capture. */
static void cli_import_and_simulate(void **state)
{
    (void)state;
    const char *b = getenv("CEPHSIM_BIN");
    if (access(b && *b ? b : "out/bin/cephsim", X_OK) != 0)
        skip();
    char args[1000], out[16384];
    snprintf(args, sizeof args, "import " LAB " -o %s/cli.json", scratch);
    assert_int_equal(run_cli(args, out, sizeof out), 0);
    if (!strstr(out, "cephsim import: no profile: CPU 'AMD EPYC'"))
        fail_msg("%s", out);
    assert_int_equal(run_cli(args, out, sizeof out), 0); /* its own file: replaced */
    write_file(scratch, "mine.json", "{\"description\": \"my scenario\"}");
    snprintf(args, sizeof args, "import " LAB " -o %s/mine.json", scratch);
    assert_int_equal(run_cli(args, out, sizeof out), 1);
    assert_non_null(strstr(out, "exists and was not written by cephsim import: not replacing it"));
    /* the imported cluster next to one of its own captures */
    snprintf(args, sizeof args,
             "validate --real tests/data/lab2/captures/noparent_randr-qd1_sched-none_r1 --run %s/cli.json "
             "--sim %s/sim --no-plot --set sim.duration_s=0.5",
             scratch, scratch);
    int rc = run_cli(args, out, sizeof out);
    if (rc != 0 && rc != 1)
        fail_msg("validate: %d: %s", rc, out);
    if (!strstr(out, "--set fio.rw=randread") || !strstr(out, "IOPS") || strstr(out, "WARNING"))
        fail_msg("%s", out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(lab_capture),
        cmocka_unit_test(kit_capture),
        cmocka_unit_test(ec_data_pool),
        cmocka_unit_test(other_clusters),
        cmocka_unit_test(input_that_is_not_a_file_is_an_error),
        cmocka_unit_test(cli_import_and_simulate),
    };
    return cmocka_run_group_tests_name("import", tests, setup, teardown);
}
