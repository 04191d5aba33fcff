/*
 * study.c - the seed studies as tables (see study.h).
 */
#include "study.h"

#include <string.h>
#include <time.h>

#include "files.h"
#include "runner.h"
#include "scenario.h"
#include "wallclock.h"

#define MAX_SETS 12

struct variant {
    const char *label;
    const char *sets[MAX_SETS];
};

static const struct variant qd1_variants[] = {
    {"tuned (C1, performance, logging off)", {NULL}},
    {"deep C-states allowed", {"cluster.max_cstate=deepest"}},
    {"default governor (schedutil)", {"cluster.governor=default"}},
    {"ondemand governor", {"cluster.governor=ondemand"}},
    {"Ceph logging at defaults", {"ceph.debug_osd=5", "ceph.debug_bluestore=5", "ceph.debug_rocksdb=5",
                                  "ceph.debug_bdev=3"}},
    {"untuned (all three)", {"cluster.max_cstate=deepest", "cluster.governor=default", "ceph.debug_osd=5",
                             "ceph.debug_bluestore=5", "ceph.debug_rocksdb=5", "ceph.debug_bdev=3"}},
    {"25GbE", {"cluster.nic=25gbe"}},
    {"100GbE", {"cluster.nic=100gbe"}},
    {"Epyc 75F3 (4.0 GHz, Zen 3)", {"cluster.cpu=epyc-75f3"}},
    {"100GbE + Epyc 75F3", {"cluster.nic=100gbe", "cluster.cpu=epyc-75f3"}},
    {"deferred 4k writes (WAL, 64K)", {"ceph.bluestore_prefer_deferred_size_ssd=65536"}},
    {"deferred + 100GbE + Epyc 75F3", {"ceph.bluestore_prefer_deferred_size_ssd=65536", "cluster.nic=100gbe",
                                       "cluster.cpu=epyc-75f3"}},
    {"Crimson-like OSD (run to completion)", {"ceph.release=crimson"}},
    {"Crimson + 100GbE + Epyc 75F3", {"ceph.release=crimson", "cluster.nic=100gbe", "cluster.cpu=epyc-75f3"}},
};

static const struct variant clone_variants[] = {
    {"plain", {"image.kind=plain"}},
    {"flattened", {"image.kind=flattened"}},
    {"clone assert_exists 16.2.14", {NULL}},
    {"clone assert_exists 16.2.15", {"ceph.release=16.2.15"}},
    {"clone assert_exists 18.2.2", {"ceph.release=18.2.2"}},
    {"clone assert_exists 18.2.4", {"ceph.release=18.2.4"}},
    {"clone assert_exists crimson", {"ceph.release=crimson"}},
    {"clone write_flag 16.2.14", {"image.guard=write_flag"}},
    {"clone object_map_skip 16.2.14", {"image.guard=object_map_skip"}},
    {"clone stat_roundtrip 16.2.14", {"image.guard=stat_roundtrip"}},
    {"clone, simple scheduler 16.2.14", {"ceph.rbd_io_scheduler=simple"}},
    {"plain, simple scheduler", {"image.kind=plain", "ceph.rbd_io_scheduler=simple"}},
};

/* columns of the clone table: workload overrides */
struct column {
    const char *label;
    const char *sets[3];
};
static const struct column clone_columns[] = {
    {"seq qd1", {"fio.rw=write", "fio.iodepth=1"}},
    {"seq qd16", {"fio.rw=write", "fio.iodepth=16"}},
    {"seq qd128", {"fio.rw=write", "fio.iodepth=128"}},
    {"rand qd1", {"fio.rw=randwrite", "fio.iodepth=1"}},
    {"rand qd16", {"fio.rw=randwrite", "fio.iodepth=16"}},
    {"rand qd128", {"fio.rw=randwrite", "fio.iodepth=128"}},
};
#define N_CLONE_COLUMNS (int)(sizeof clone_columns / sizeof clone_columns[0])

static const struct variant copyup_variants[] = {
    {"plain (no parent)", {"image.kind=plain"}},
    {"assert_exists + object map", {NULL}},
    {"assert_exists, no object map", {"image.object_map=false"}},
    {"write_flag, no object map", {"image.guard=write_flag", "image.object_map=false"}},
    {"stat_roundtrip, no object map", {"image.guard=stat_roundtrip", "image.object_map=false"}},
    {"object_map_skip", {"image.guard=object_map_skip"}},
};

static int count_sets(const char *const *s)
{
    int n = 0;
    while (n < MAX_SETS && s[n])
        n++;
    return n;
}

struct study_progress {
    int done, total;
    double t0;
    bool on;
};

/* One step of a study done: "[k/N] ETA" on stderr once it takes over a second. */
static void progress_step(struct study_progress *p)
{
    p->done++;
    double el = wallclock_s() - p->t0;
    if (!p->on || el < 1.0)
        return;
    double eta = el / p->done * (p->total - p->done);
    fprintf(stderr, "\rcephsim: %d/%d runs [%3.0f%%] [eta %02dm:%02ds]  ", p->done, p->total,
            100.0 * p->done / p->total, (int)eta / 60, (int)eta % 60);
    if (p->done == p->total)
        fprintf(stderr, "\r%50s\r", "");
    fflush(stderr);
}

/* Run base + common + variant + user overrides; summary into sum. */
static int run_variant(const char *base, const char *const *common, int n_common, const char *const *vsets,
                       int n_vsets, const char *const *user, int n_user, const char *out_dir, bool progress,
                       struct run_summary *sum, struct sim_err *err)
{
    const char *sets[64];
    int n = 0;
    for (int i = 0; i < n_common && n < 64; i++)
        sets[n++] = common[i];
    for (int i = 0; i < n_vsets && n < 64; i++)
        sets[n++] = vsets[i];
    for (int i = 0; i < n_user && n < 64; i++)
        sets[n++] = user[i];
    struct scenario sc;
    int rc = scenario_load(&sc, base, NULL, NULL, sets, n, err);
    if (rc < 0)
        return rc;
    rc = runner_run(&sc, out_dir, progress, sum, err);
    scenario_free(&sc);
    return rc;
}

static void add_row_json(cJSON *rows, const char *label, const char *column, const struct run_summary *s)
{
    cJSON *r = runner_summary_json(s);
    cJSON_AddStringToObject(r, "variant", label);
    if (column)
        cJSON_AddStringToObject(r, "workload", column);
    cJSON_AddItemToArray(rows, r);
}

static int study_qd1(FILE *f, const char *dir, const char *const *user, int n_user, struct study_progress *progress,
                     struct sim_err *err)
{
    static const char *const common[] = {"sim.duration_s=2", "sim.replications=3"};
    int n = (int)(sizeof qd1_variants / sizeof qd1_variants[0]);
    cJSON *rows = cJSON_CreateArray();
    fprintf(f, "\nQD=1 4k random write, 3 x (Epyc 7302P, 10 x PM983, 10GBase-T), size 3 "
               "(seed: ~700 us tuned; target 500 us)\n");
    fprintf(f, "%-38s %14s %18s %10s %10s %9s %9s\n", "variant", "IOPS", "mean us", "p50 us", "p99 us",
            "vs tuned", "vs 500us");
    double base_mean = 0;
    for (int i = 0; i < n; i++) {
        struct run_summary s;
        char out[1100];
        snprintf(out, sizeof out, "%s/qd1-latency", dir);
        int rc = run_variant("scenarios/qd1-latency.json", common, 2, qd1_variants[i].sets,
                             count_sets(qd1_variants[i].sets), user, n_user, i == 0 ? out : NULL, false, &s, err);
        progress_step(progress);
        if (rc < 0) {
            cJSON_Delete(rows);
            return rc;
        }
        if (i == 0)
            base_mean = s.lat_mean_us.mean;
        fprintf(f, "%-38s %7.0f ± %-4.0f %9.1f ± %-6.1f %10.1f %10.1f %+8.1f%% %+8.1f%%\n", qd1_variants[i].label,
                s.iops.mean, s.iops.half, s.lat_mean_us.mean, s.lat_mean_us.half, s.lat_p50_us.mean,
                s.lat_p99_us.mean, 100 * (s.lat_mean_us.mean / base_mean - 1), 100 * (s.lat_mean_us.mean / 500 - 1));
        fflush(f);
        add_row_json(rows, qd1_variants[i].label, NULL, &s);
        if (i == 0) {
            fprintf(f, "%-38s where the tuned write's time goes (mean us):", "");
            for (int k = 0; k < STAGE_COUNT; k++)
                fprintf(f, "%s %s %.0f", k ? "," : "", stage_names[k], s.stage_us[k]);
            fprintf(f, "\n%-38s the replica commit, split:", "");
            for (int k = 0; k < REPLICA_STAGE_COUNT; k++)
                fprintf(f, "%s %s %.0f", k ? "," : "", replica_stage_names[k], s.replica_stage_us[k]);
            fprintf(f, "\n");
        }
    }
    return runner_write_json(dir, "qd1-latency.json", rows, err);
}

static int study_clone(FILE *f, const char *dir, const char *const *user, int n_user, struct study_progress *progress,
                       struct sim_err *err)
{
    static const char *const common[] = {"sim.duration_s=0.5", "sim.warmup_s=0.2", "sim.replications=2"};
    int n = (int)(sizeof clone_variants / sizeof clone_variants[0]);
    cJSON *rows = cJSON_CreateArray();
    fprintf(f, "\n4k write IOPS to one image, seed cluster, rbd_io_scheduler=none unless noted "
               "(95%% CI half-widths in the JSON summary)\n");
    fprintf(f, "%-32s", "image / guard / release");
    for (int c = 0; c < N_CLONE_COLUMNS; c++)
        fprintf(f, " %10s", clone_columns[c].label);
    fprintf(f, " %12s %9s %9s\n", "rw waits/op", "op_w", "op_rw");
    for (int i = 0; i < n; i++) {
        fprintf(f, "%-32s", clone_variants[i].label);
        struct run_summary qd128 = {0};
        for (int c = 0; c < N_CLONE_COLUMNS; c++) {
            const char *vs[MAX_SETS + 3];
            int nv = 0;
            for (int k = 0; k < count_sets(clone_variants[i].sets); k++)
                vs[nv++] = clone_variants[i].sets[k];
            for (int k = 0; k < 3 && clone_columns[c].sets[k]; k++)
                vs[nv++] = clone_columns[c].sets[k];
            struct run_summary s;
            char out[1100];
            snprintf(out, sizeof out, "%s/clone-serialisation", dir);
            bool keep = i == 2 && c == 2; /* the seed's case: full outputs */
            int rc = run_variant("scenarios/clone-serialisation.json", common, 3, vs, nv, user, n_user,
                                 keep ? out : NULL, false, &s, err);
            progress_step(progress);
            if (rc < 0) {
                cJSON_Delete(rows);
                return rc;
            }
            fprintf(f, " %10.0f", s.iops.mean);
            fflush(f);
            add_row_json(rows, clone_variants[i].label, clone_columns[c].label, &s);
            if (c == 2)
                qd128 = s;
        }
        double ops = qd128.op_w + qd128.op_rw;
        fprintf(f, " %12.2f %9.0f %9.0f\n", ops ? qd128.rw_lock_waits / ops : 0, qd128.op_w, qd128.op_rw);
    }
    fprintf(f, "%-32s (rw waits/op, op_w, op_rw: per primary op at seq qd128)\n", "");
    return runner_write_json(dir, "clone-serialisation.json", rows, err);
}

static int study_copyup(FILE *f, const char *dir, const char *const *user, int n_user, struct study_progress *progress,
                        struct sim_err *err)
{
    static const char *const common[] = {"image.copied_up=0", "fio.rw=randwrite", "fio.iodepth=1",
                                         "sim.duration_s=2", "sim.warmup_s=0", "sim.replications=3"};
    int n = (int)(sizeof copyup_variants / sizeof copyup_variants[0]);
    cJSON *rows = cJSON_CreateArray();
    fprintf(f, "\nFirst writes to a fresh clone (copied_up = 0), 4k random write QD=1, 16.2.14: the copy-up cost\n");
    fprintf(f, "%-34s %14s %18s %10s\n", "guard design", "IOPS", "mean us", "p99 us");
    for (int i = 0; i < n; i++) {
        struct run_summary s;
        int rc = run_variant("scenarios/clone-serialisation.json", common, 6, copyup_variants[i].sets,
                             count_sets(copyup_variants[i].sets), user, n_user, NULL, false, &s, err);
        progress_step(progress);
        if (rc < 0) {
            cJSON_Delete(rows);
            return rc;
        }
        fprintf(f, "%-34s %7.0f ± %-4.0f %9.1f ± %-6.1f %10.1f\n", copyup_variants[i].label, s.iops.mean,
                s.iops.half, s.lat_mean_us.mean, s.lat_mean_us.half, s.lat_p99_us.mean);
        fflush(f);
        add_row_json(rows, copyup_variants[i].label, NULL, &s);
    }
    return runner_write_json(dir, "copyup.json", rows, err);
}

int study_run(FILE *f, const char *which, const char *out_dir, const char *const *sets, int n_sets,
              bool progress, struct sim_err *err)
{
    static const struct {
        const char *name;
        int (*run)(FILE *f, const char *dir, const char *const *user, int n_user,
                   struct study_progress *progress, struct sim_err *err);
        int runs;
    } studies[] = {
        {"qd1", study_qd1, (int)(sizeof qd1_variants / sizeof qd1_variants[0])},
        {"clone", study_clone, (int)(sizeof clone_variants / sizeof clone_variants[0]) * N_CLONE_COLUMNS},
        {"copyup", study_copyup, (int)(sizeof copyup_variants / sizeof copyup_variants[0])},
    };
    enum { N_STUDIES = (int)(sizeof studies / sizeof studies[0]) };
    const char *dir = out_dir ? out_dir : "out/runs/default";
    int rc = files_mkdir_p(dir);
    if (rc < 0)
        return sim_errf(err, rc, "%s: cannot create: %s", dir, strerror(-rc));
    struct study_progress pg = {.t0 = wallclock_s(), .on = progress};
    for (int i = 0; i < N_STUDIES; i++)
        if (!which || !strcmp(which, studies[i].name))
            pg.total += studies[i].runs;
    for (int i = 0; i < N_STUDIES && rc == 0; i++)
        if (!which || !strcmp(which, studies[i].name))
            rc = studies[i].run(f, dir, sets, n_sets, &pg, err);
    if (rc == 0)
        fprintf(f, "\nsummaries: %s/{qd1-latency,clone-serialisation,copyup}.json\n", dir);
    return rc;
}
