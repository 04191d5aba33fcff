/*
 * test_grid.c - grid files: expansion (cartesian, zip, ranges, alternatives,
 * Sobol and random sampling), validation naming the axis, stable point ids,
 * canonical JSON, SHA-256, replication seeds, and the shipped grids.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "grid.h"
#include "runner.h"

#define SMALL "\"set\": {\"sim.duration_s\": 0.05, \"cluster.hosts\": 2, \"cluster.osds_per_host\": 1, \"pool.size\": 2}"

static void load_ok(struct grid *g, const char *json)
{
    struct sim_err err = {0};
    int rc = grid_load(g, NULL, json, &err);
    if (rc < 0)
        fail_msg("grid_load: %s", err.msg);
}

static void load_fails(const char *json, const char *expect)
{
    struct grid g;
    struct sim_err err = {0};
    assert_true(grid_load(&g, NULL, json, &err) < 0);
    if (!strstr(err.msg, expect))
        fail_msg("expected '%s' in: %s", expect, err.msg);
}

static double axis_num(const struct grid *g, int p, int a)
{
    return g->axes[a].entries[g->points[p].entry[a]].value->valuedouble;
}

static const char *axis_str(const struct grid *g, int p, int a)
{
    return g->axes[a].entries[g->points[p].entry[a]].value->valuestring;
}

static void sha256_vectors(void **state)
{
    static const struct {
        const char *in, *hex;
    } v[] = {
        {"", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
        {"abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
        {"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
         "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"},
    };
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        uint8_t h[32];
        char hex[65];
        grid_sha256(v[i].in, strlen(v[i].in), h);
        for (int k = 0; k < 32; k++)
            snprintf(hex + 2 * k, 3, "%02x", h[k]);
        assert_string_equal(hex, v[i].hex);
    }
    /* a million 'a': many blocks */
    char *m = malloc(1000000);
    memset(m, 'a', 1000000);
    uint8_t h[32];
    grid_sha256(m, 1000000, h);
    free(m);
    assert_int_equal(h[0], 0xcd);
    assert_int_equal(h[31], 0xd0);
}

static void cartesian_first_axis_slowest(void **state)
{
    struct grid g;
    load_ok(&g, "{\"base\": \"scenarios/qd1-latency.json\", " SMALL ", \"axes\": {\"fio.iodepth\": [1, 16, 128], "
                "\"cluster.nic\": [\"10gbase-t\", \"100gbe\"]}, \"replications\": 2}");
    assert_int_equal(g.n_points, 6);
    assert_int_equal(g.replications, 2);
    assert_string_equal(g.name, "inline");
    assert_true(axis_num(&g, 0, 0) == 1 && axis_num(&g, 1, 0) == 1 && axis_num(&g, 2, 0) == 16);
    assert_string_equal(axis_str(&g, 0, 1), "10gbase-t");
    assert_string_equal(axis_str(&g, 1, 1), "100gbe");
    assert_string_equal(axis_str(&g, 5, 1), "100gbe");
    assert_true(axis_num(&g, 5, 0) == 128);
    int n;
    const char **sets = grid_point_sets(&g, &g.points[3], &n);
    assert_int_equal(n, 4 + 2);
    assert_string_equal(sets[0], "sim.duration_s=0.05"); /* "set" comes first, axes after */
    assert_string_equal(sets[4], "fio.iodepth=16");
    assert_string_equal(sets[5], "cluster.nic=100gbe");
    free(sets);
    char label[256];
    assert_string_equal(grid_point_label(&g, &g.points[3], label, sizeof label), "fio.iodepth=16 cluster.nic=100gbe");
    grid_free(&g);
}

static void zip_groups_move_together(void **state)
{
    struct grid g;
    load_ok(&g, "{\"base\": \"scenarios/qd1-latency.json\", \"axes\": {\"fio.iodepth\": [1, 2, 4], "
                "\"cluster.nic\": [\"10gbase-t\", \"100gbe\"], \"fio.numjobs\": [4, 2, 1]}, "
                "\"zip\": [[\"fio.iodepth\", \"fio.numjobs\"]]}");
    assert_int_equal(g.n_points, 6);
    for (int p = 0; p < g.n_points; p++)
        assert_true(axis_num(&g, p, 0) * axis_num(&g, p, 2) == 4);
    grid_free(&g);
    load_fails("{\"base\": \"scenarios/qd1-latency.json\", \"axes\": {\"fio.iodepth\": [1, 2, 4], "
               "\"fio.numjobs\": [1, 2]}, \"zip\": [[\"fio.iodepth\", \"fio.numjobs\"]]}",
               "zip[0]: fio.iodepth has 3 values but fio.numjobs has 2");
    load_fails("{\"base\": \"scenarios/qd1-latency.json\", \"axes\": {\"fio.iodepth\": [1]}, "
               "\"zip\": [[\"fio.iodepth\", \"fio.nope\"]]}", "'fio.nope' is not an axis");
    /* an axis given twice: named, not left to the database's duplicate column */
    load_fails("{\"base\": \"scenarios/qd1-latency.json\", \"axes\": {\"fio.iodepth\": [1, 2], "
               "\"fio.iodepth\": [4, 8]}}", "axes.fio.iodepth: given twice");
}

static void ranges_linear_log_integer(void **state)
{
    struct grid g;
    load_ok(&g, "{\"base\": \"scenarios/qd1-latency.json\", \"axes\": {"
                "\"fio.iodepth\": {\"from\": 1, \"to\": 128, \"steps\": 8, \"scale\": \"log\"}}}");
    assert_int_equal(g.n_points, 8);
    for (int p = 0; p < 8; p++)
        assert_true(axis_num(&g, p, 0) == (double)(1 << p)); /* exact, not 3.9999999999999996 */
    grid_free(&g);
    load_ok(&g, "{\"base\": \"scenarios/qd1-latency.json\", \"axes\": {"
                "\"image.copied_up\": {\"from\": 0, \"to\": 1, \"steps\": 5}}}");
    assert_int_equal(g.n_points, 5);
    assert_true(axis_num(&g, 1, 0) == 0.25 && axis_num(&g, 4, 0) == 1);
    grid_free(&g);
    /* an integer parameter (ceph table type INT) rounds, and duplicates from rounding go */
    load_ok(&g, "{\"base\": \"scenarios/qd1-latency.json\", \"axes\": {"
                "\"ceph.osd_op_num_shards_ssd\": {\"from\": 1, \"to\": 4, \"steps\": 7}}}");
    assert_int_equal(g.n_points, 4);
    assert_true(axis_num(&g, 0, 0) == 1 && axis_num(&g, 3, 0) == 4);
    assert_true(g.axes[0].integer);
    grid_free(&g);
    load_ok(&g, "{\"base\": \"scenarios/qd1-latency.json\", \"axes\": {"
                "\"image.copied_up\": {\"from\": 0, \"to\": 1, \"step\": 0.25}}}");
    assert_int_equal(g.n_points, 5);
    grid_free(&g);
    load_fails("{\"base\": \"scenarios/qd1-latency.json\", \"axes\": {\"fio.iodepth\": {\"from\": 0, \"to\": 8, "
               "\"steps\": 3, \"scale\": \"log\"}}}", "axes.fio.iodepth: a log range needs from and to > 0");
    load_fails("{\"base\": \"scenarios/qd1-latency.json\", \"axes\": {\"ceph.bluestore_min_alloc_size_ssd\": "
               "{\"from\": 5000, \"to\": 6000, \"steps\": 2, \"scale\": \"log2\"}}}",
               "no power of two between from and to");
    load_fails("{\"base\": \"scenarios/qd1-latency.json\", \"axes\": {\"fio.iodepth\": {\"from\": 1, \"to\": 8}}}",
               "give steps");
    load_fails("{\"base\": \"scenarios/qd1-latency.json\", \"axes\": {\"fio.iodepth\": {\"from\": 1, \"to\": 8, "
               "\"stpes\": 3}}}", "did you mean 'steps'");
}

static void alternatives_set_several_paths(void **state)
{
    struct grid g;
    load_ok(&g, "{\"base\": \"scenarios/clone-serialisation.json\", \"axes\": {\"design\": {\"alternatives\": {"
                "\"pre-fix\": {\"ceph.release\": \"16.2.14\"}, "
                "\"post-fix\": {\"ceph.release\": \"16.2.15\", \"image.guard\": \"write_flag\"}}}, "
                "\"fio.iodepth\": [1, 128]}}");
    assert_int_equal(g.n_points, 4);
    assert_int_equal(g.axes[0].kind, GRID_AXIS_ALTERNATIVES);
    assert_string_equal(axis_str(&g, 2, 0), "post-fix");
    int n;
    const char **sets = grid_point_sets(&g, &g.points[2], &n);
    assert_int_equal(n, 3);
    assert_string_equal(sets[0], "ceph.release=16.2.15");
    assert_string_equal(sets[1], "image.guard=write_flag");
    assert_string_equal(sets[2], "fio.iodepth=1");
    free(sets);
    cJSON *axes = grid_point_axes_json(&g, &g.points[2]);
    assert_string_equal(cJSON_GetObjectItem(axes, "design")->valuestring, "post-fix");
    cJSON_Delete(axes);
    grid_free(&g);
    load_fails("{\"base\": \"scenarios/qd1-latency.json\", \"axes\": {\"design\": [1, 2]}}",
               "axes.design: expected a scenario path");
}

static const char *sobol_grid =
    "{\"base\": \"scenarios/qd1-latency.json\", \"sample\": {\"method\": \"%s\", \"n\": 16, \"seed\": %d}, \"axes\": {"
    "\"ceph.bluestore_min_alloc_size_ssd\": {\"from\": 4096, \"to\": 65536, \"scale\": \"log2\"}, "
    "\"image.copied_up\": {\"from\": 0, \"to\": 1}, \"cluster.nic\": [\"10gbase-t\", \"100gbe\"]}}";

static void sampling_is_deterministic(void **state)
{
    char json[1024];
    struct grid a, b, c;
    snprintf(json, sizeof json, sobol_grid, "sobol", 1);
    load_ok(&a, json);
    load_ok(&b, json);
    /* 16 samples of the two range axes, crossed with the list axis */
    assert_int_equal(a.n_points, 32);
    assert_int_equal(a.axes[0].n_entries, 16);
    for (int p = 0; p < a.n_points; p++) {
        for (int ax = 0; ax < 2; ax++)
            assert_true(axis_num(&a, p, ax) == axis_num(&b, p, ax));
        double alloc = axis_num(&a, p, 0), cu = axis_num(&a, p, 1);
        /* scale log2: a power of two, as BlueStore's allocation unit must be */
        assert_true(alloc >= 4096 && alloc <= 65536 && alloc == exp2(round(log2(alloc))));
        assert_true(cu >= 0 && cu <= 1);
    }
    /* Sobol points are distinct and fill the square: both halves of each axis get 8 */
    int low = 0;
    for (int e = 0; e < 16; e++)
        low += a.axes[1].entries[e].value->valuedouble < 0.5;
    assert_int_equal(low, 8);
    grid_free(&a);
    grid_free(&b);
    snprintf(json, sizeof json, sobol_grid, "random", 1);
    load_ok(&a, json);
    load_ok(&b, json);
    snprintf(json, sizeof json, sobol_grid, "random", 2);
    load_ok(&c, json);
    bool differs = false;
    for (int p = 0; p < a.n_points; p++) {
        assert_true(axis_num(&a, p, 1) == axis_num(&b, p, 1));
        differs |= axis_num(&a, p, 1) != axis_num(&c, p, 1);
    }
    assert_true(differs);
    grid_free(&a);
    grid_free(&b);
    grid_free(&c);
    load_fails("{\"base\": \"scenarios/qd1-latency.json\", \"sample\": {\"method\": \"sobol\", \"n\": 4}, "
               "\"axes\": {\"fio.iodepth\": [1, 2]}}", "no range axis to sample");
}

static void validation_names_the_axis(void **state)
{
    struct grid g;
    struct sim_err err = {0};
    load_ok(&g, "{\"base\": \"scenarios/qd1-latency.json\", \"axes\": {\"fio.iodepth\": [1, 16], "
                "\"cluster.nic\": [\"10gbase-t\", \"400gbe\"]}}");
    assert_true(grid_validate(&g, &err) < 0);
    assert_non_null(strstr(err.msg, "axes.cluster.nic: value 400gbe"));
    grid_free(&g);
    load_ok(&g, "{\"base\": \"scenarios/qd1-latency.json\", \"axes\": {\"cluster.nics\": [\"100gbe\"]}}");
    assert_true(grid_validate(&g, &err) < 0);
    assert_non_null(strstr(err.msg, "axes.cluster.nics"));
    assert_non_null(strstr(err.msg, "did you mean 'nic'"));
    grid_free(&g);
    load_ok(&g, "{\"base\": \"scenarios/qd1-latency.json\", \"axes\": {\"fio.iodepth\": [1, \"deep\"]}}");
    assert_true(grid_validate(&g, &err) < 0);
    assert_non_null(strstr(err.msg, "axes.fio.iodepth: value deep"));
    grid_free(&g);
    load_ok(&g, "{\"base\": \"scenarios/qd1-latency.json\", " SMALL ", \"axes\": {\"fio.iodepth\": [1, 16]}}");
    assert_int_equal(grid_validate(&g, &err), 0);
    grid_free(&g);
    load_fails("{\"base\": \"scenarios/none.json\", \"axes\": {}}", "base: 'scenarios/none.json' not found");
    load_fails("{\"base\": \"scenarios/qd1-latency.json\", \"axis\": {}}", "did you mean 'axes'");
}

static void resolve_id(const char *json, int point, char id[GRID_ID_LEN + 1])
{
    struct grid g;
    struct grid_resolved r;
    struct sim_err err = {0};
    load_ok(&g, json);
    if (grid_point_resolve(&g, &g.points[point], &r, &err) < 0)
        fail_msg("resolve: %s", err.msg);
    memcpy(id, r.id, GRID_ID_LEN + 1);
    assert_int_equal((int)strlen(id), GRID_ID_LEN);
    grid_resolved_free(&r);
    grid_free(&g);
}

static void ids_are_stable(void **state)
{
    char a[33], b[33], c[33], d[33], e[33], f[33];
    resolve_id("{\"base\": \"scenarios/qd1-latency.json\", \"axes\": {\"fio.iodepth\": [1, 16]}}", 1, a);
    resolve_id("{\"base\": \"scenarios/qd1-latency.json\", \"axes\": {\"fio.iodepth\": [1, 16]}}", 1, b);
    assert_string_equal(a, b);
    /* the same parameters reached another way: a fixed "set" instead of an axis, replications differ */
    resolve_id("{\"base\": \"scenarios/qd1-latency.json\", \"set\": {\"fio.iodepth\": 16, \"sim.replications\": 7}, "
               "\"axes\": {\"cluster.nic\": [\"10gbase-t\"]}}", 0, c);
    assert_string_equal(a, c);
    resolve_id("{\"base\": \"scenarios/qd1-latency.json\", \"axes\": {\"fio.iodepth\": [1, 16]}}", 0, d);
    assert_string_not_equal(a, d); /* a parameter */
    resolve_id("{\"base\": \"scenarios/qd1-latency.json\", \"set\": {\"sim.seed\": 2}, \"axes\": {\"fio.iodepth\": [16]}}",
               0, e);
    assert_string_not_equal(a, e); /* the seed */
    resolve_id("{\"base\": \"scenarios/qd1-latency.json\", \"set\": {\"hw.nvme.write_latency_us\": 31}, "
               "\"axes\": {\"fio.iodepth\": [16]}}", 0, f);
    assert_string_not_equal(a, f); /* a hardware profile field */
    /* the version */
    cJSON *j = cJSON_Parse("{\"sim\": {\"seed\": 1, \"replications\": 3, \"duration_s\": 1}, \"a\": 1}");
    char v1[33], v2[33], v3[33];
    grid_point_id(j, 1, "0.1.0", v1);
    grid_point_id(j, 1, "0.1.1", v2);
    grid_point_id(j, 2, "0.1.0", v3);
    assert_string_not_equal(v1, v2);
    assert_string_not_equal(v1, v3);
    /* key order and sim.seed / sim.replications inside the JSON do not matter */
    cJSON *k = cJSON_Parse("{\"a\": 1, \"sim\": {\"duration_s\": 1, \"replications\": 9, \"seed\": 5}}");
    char v4[33];
    grid_point_id(k, 1, "0.1.0", v4);
    assert_string_equal(v1, v4);
    cJSON_Delete(j);
    cJSON_Delete(k);
}

static void canonical_json_sorts_keys(void **state)
{
    cJSON *j = cJSON_Parse("{\"b\": 1, \"a\": {\"d\": [3, {\"z\": 1, \"y\": 2}], \"c\": \"x\"}}");
    char *s = grid_canonical_json(j);
    assert_string_equal(s, "{\"a\":{\"c\":\"x\",\"d\":[3,{\"y\":2,\"z\":1}]},\"b\":1}");
    free(s);
    cJSON_Delete(j);
}

static void values_and_seeds(void **state)
{
    char buf[64];
    cJSON *v = cJSON_CreateNumber(0.1);
    grid_value_text(v, buf, sizeof buf);
    assert_string_equal(buf, "0.1");
    cJSON_Delete(v);
    v = cJSON_CreateNumber(65536);
    grid_value_text(v, buf, sizeof buf);
    assert_string_equal(buf, "65536");
    cJSON_Delete(v);
    v = cJSON_CreateTrue();
    grid_value_text(v, buf, sizeof buf);
    assert_string_equal(buf, "true");
    cJSON_Delete(v);
    assert_true(grid_replication_seed(42, 0) == 42);
    int64_t s1 = grid_replication_seed(42, 1), s2 = grid_replication_seed(42, 2);
    assert_true(s1 != s2 && s1 != 42 && s1 == grid_replication_seed(42, 1));
    for (int r = 1; r < 100; r++) {
        int64_t s = grid_replication_seed(r * 7, r);
        assert_true(s >= 0 && s <= 9007199254740991LL); /* --set sim.seed takes it */
    }
}

static void shipped_grids_load_and_validate(void **state)
{
    DIR *d = opendir("explorer/grids");
    assert_non_null(d);
    struct dirent *e;
    int n = 0;
    while ((e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (len < 6 || strcmp(e->d_name + len - 5, ".json"))
            continue;
        char path[512];
        snprintf(path, sizeof path, "explorer/grids/%s", e->d_name);
        struct grid g;
        struct sim_err err = {0};
        if (grid_load(&g, path, NULL, &err) < 0 || grid_validate(&g, &err) < 0)
            fail_msg("%s", err.msg);
        assert_true(g.n_points > 1);
        grid_free(&g);
        n++;
    }
    closedir(d);
    assert_true(n >= 3);
}

/* cbt's example file on the lab scenario: what varies becomes zipped axes, the rest "set". */
static void cbt_yaml_as_grid(void **state)
{
    (void)state;
    struct grid g;
    struct sim_err err = {0};
    if (grid_load_cbt(&g, "tests/data/cbt/runtests.xfs.yaml", "scenarios/lab.json", &err) < 0)
        fail_msg("%s", err.msg);
    /* mode (6) x op_size (3); the other list keys have one value each */
    assert_int_equal(g.n_points, 18);
    assert_int_equal(g.n_axes, 2);
    assert_string_equal(g.axes[0].name, "fio.rw");
    assert_string_equal(g.axes[1].name, "fio.bs");
    assert_string_equal(g.name, "runtests.xfs");
    char label[200];
    assert_string_equal(grid_point_label(&g, &g.points[0], label, sizeof label), "fio.rw=read fio.bs=4194304");
    assert_string_equal(grid_point_label(&g, &g.points[17], label, sizeof label), "fio.rw=randrw fio.bs=4096");
    bool depth = false, runtime = false;
    for (int i = 0; i < g.n_sets; i++) {
        depth |= !strcmp(g.sets[i], "fio.iodepth=32");
        runtime |= !strcmp(g.sets[i], "fio.runtime=10");
    }
    assert_true(depth && runtime);
    assert_true(g.n_notes > 0);
    if (grid_validate(&g, &err) < 0)
        fail_msg("%s", err.msg);
    grid_free(&g);
    /* a workloads block: the workload's name is a column of its own */
    if (grid_load_cbt(&g, "tests/data/cbt/rbd_fio_test.yml", "scenarios/qd1-latency.json", &err) < 0)
        fail_msg("%s", err.msg);
    assert_int_equal(g.n_points, 3);
    assert_string_equal(g.axes[g.n_axes - 1].name, "workload");
    assert_string_equal(grid_point_label(&g, &g.points[1], label, sizeof label),
                        "fio.rw=randread fio.iodepth=1 workload=test1");
    grid_free(&g);
    assert_true(grid_load_cbt(&g, "tests/data/cbt/runtests.xfs.yaml", "scenarios/none.json", &err) < 0);
    assert_non_null(strstr(err.msg, "tests/data/cbt/runtests.xfs.yaml: the base scenario 'scenarios/none.json' not found"));
}

/* `cephsim sweep SCENARIO --cbt FILE.yaml`: runs cbt's file as is, says what it ignored. */
static void cbt_sweep_cli(void **state)
{
    (void)state;
    const char *bin = getenv("CEPHSIM_BIN");
    if (!bin || !*bin)
        bin = "out/bin/cephsim";
    if (access(bin, X_OK) != 0)
        skip();
    char dir[] = "out/test_grid_cbt.XXXXXX"; /* inside the tree: out/ is the build's */
    assert_non_null(mkdtemp(dir));
    char cmd[2048], out[8192] = "";
    snprintf(cmd, sizeof cmd,
             "'%s' sweep scenarios/lab.json --cbt tests/data/cbt/runtests.xfs.yaml --db %s/x.db -j 2 -q 2>%s/err && "
             "'%s' query %s/x.db --sql \"select count(*) || ' ' || sum(status = 'done') from runs\" --csv >%s/out",
             bin, dir, dir, bin, dir, dir);
    int st = system(cmd);
    snprintf(cmd, sizeof cmd, "%s/out", dir);
    FILE *f = fopen(cmd, "r");
    if (f) {
        out[fread(out, 1, sizeof out - 1, f)] = '\0';
        fclose(f);
    }
    snprintf(cmd, sizeof cmd, "%s/err", dir);
    char errs[16384] = "";
    f = fopen(cmd, "r");
    if (f) {
        errs[fread(errs, 1, sizeof errs - 1, f)] = '\0';
        fclose(f);
    }
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fail_msg("rm %s", dir);
    if (st != 0)
        fail_msg("sweep --cbt failed: %s", errs);
    assert_non_null(strstr(out, "18 18"));
    assert_non_null(strstr(errs, "benchmarks.radosbench, benchmarks.rbdfio: ignored: cephsim simulates cbt's librbdfio "
                                 "benchmark only"));
    assert_non_null(strstr(errs, "benchmarks.librbdfio.osd_ra: ignored"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sha256_vectors),
        cmocka_unit_test(cartesian_first_axis_slowest),
        cmocka_unit_test(zip_groups_move_together),
        cmocka_unit_test(ranges_linear_log_integer),
        cmocka_unit_test(alternatives_set_several_paths),
        cmocka_unit_test(sampling_is_deterministic),
        cmocka_unit_test(validation_names_the_axis),
        cmocka_unit_test(ids_are_stable),
        cmocka_unit_test(canonical_json_sorts_keys),
        cmocka_unit_test(values_and_seeds),
        cmocka_unit_test(shipped_grids_load_and_validate),
        cmocka_unit_test(cbt_yaml_as_grid),
        cmocka_unit_test(cbt_sweep_cli),
    };
    return cmocka_run_group_tests_name("grid", tests, NULL, NULL);
}
