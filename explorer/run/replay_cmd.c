/*
 * replay.c (explorer) - `cephsim replay`: load a trace and a scenario, replay the
 * trace open or closed loop through models/ceph/replay.c, write the run's outputs.
 */
#include "replay_cmd.h"

#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <getopt.h>
#include <inttypes.h>
#include <libgen.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "replay.h" /* models/ceph/replay.h */
#include "tracereplay.h"
#include "cluster.h"
#include "fioout.h"
#include "files.h"
#include "jsonu.h"
#include "optracker.h"
#include "perfcounters.h"
#include "runner.h"
#include "scenario.h"

/* fio write_lat_log lines "time_ms, lat_ns, ddir, bs, offset, prio" (completion order
   is not needed by readers: fio sorts by nothing either) and a v3 iolog of the issues. */
static int write_logs(const char *dir, const struct replay_trace *tr, const struct replay_result *res,
                      struct sim_err *err)
{
    char path[1400];
    snprintf(path, sizeof path, "%s/replay_lat.1.log", dir);
    FILE *f = fopen(path, "w");
    if (!f)
        return sim_errf(err, -errno, "%s: cannot create: %s", path, strerror(errno));
    for (size_t i = 0; i < res->n; i++)
        if (res->t_done[i])
            fprintf(f, "%" PRId64 ", %" PRId64 ", %d, %" PRIu64 ", %" PRIu64 ", 0\n",
                    (int64_t)(res->t_done[i] / 1000000), (int64_t)(res->t_done[i] - res->t_issue[i]),
                    tr->ios[i].ddir, tr->ios[i].len, tr->ios[i].offset);
    if (fclose(f) != 0)
        return sim_errf(err, -EIO, "%s: write error", path);
    snprintf(path, sizeof path, "%s/replay.iolog", dir);
    if (!(f = fopen(path, "w")))
        return sim_errf(err, -errno, "%s: cannot create: %s", path, strerror(errno));
    fprintf(f, "fio version 3 iolog\n0 rbd add\n0 rbd open\n");
    for (size_t i = 0; i < res->n; i++)
        fprintf(f, "%" PRId64 " rbd %s %" PRIu64 " %" PRIu64 "\n", (int64_t)(res->t_issue[i] / 1000),
                tr->ios[i].ddir == FIO_DDIR_WRITE ? "write" : "read", tr->ios[i].offset, tr->ios[i].len);
    fprintf(f, "%" PRId64 " rbd close\n", (int64_t)(res->makespan / 1000));
    if (fclose(f) != 0)
        return sim_errf(err, -EIO, "%s: write error", path);
    return 0;
}

/* What a replay writes beyond the cluster outputs (write_outputs); replay.json
   is its marker, as sim.json is a run's. */
static const char *const replay_dir_entries[] = {"replay.json", "replay.iolog", "replay_lat.[0-9]*.log"};

static bool replay_dir_entry(const char *name, void *ctx)
{
    (void)ctx;
    for (size_t k = 0; k < sizeof replay_dir_entries / sizeof replay_dir_entries[0]; k++)
        if (fnmatch(replay_dir_entries[k], name, FNM_PERIOD) == 0)
            return true;
    return false;
}

/* As runner_check_output for a run: dir may be replaced only if it does not
   exist or holds nothing but a replay's own files (with its replay.json). */
static int replay_check_output(const char *dir, struct sim_err *err)
{
    struct runner_own_dir own = {.marker = "replay.json", .tool = "cephsim replay",
                                 .kind = "cephsim replay", .ours = replay_dir_entry};
    return runner_check_own_dir(dir, &own, err);
}

/*
 * The default output directory, out/replay/NAME: the trace's file name without
 * its .gz/.json/.log/.iolog/.txt endings; an OSD's dump (osd.N.*), which names
 * nothing of the run, is prefixed with its directory's name, so the window
 * dumps of different captures do not all land in out/replay/osd.
 */
static void default_output(const char *trace, char *out, size_t n)
{
    char tmp[1100], dtmp[1100];
    snprintf(tmp, sizeof tmp, "%s", trace);
    snprintf(dtmp, sizeof dtmp, "%s", trace);
    char name[1100];
    snprintf(name, sizeof name, "%s", basename(tmp));
    static const char *const endings[] = {".gz", ".json", ".log", ".iolog", ".txt"};
    for (size_t k = 0; k < sizeof endings / sizeof endings[0]; k++) {
        size_t l = strlen(name), el = strlen(endings[k]);
        if (l > el && !strcmp(name + l - el, endings[k]))
            name[l - el] = '\0';
    }
    const char *dir = basename(dirname(dtmp));
    if (!strncmp(name, "osd.", 4) && strcmp(dir, ".") && strcmp(dir, "/"))
        snprintf(out, n, "out/replay/%s.%s", dir, name);
    else
        snprintf(out, n, "out/replay/%s", name);
}

static int write_outputs(const char *dir, struct cluster *c, const struct scenario *sc,
                         const struct replay_trace *tr, const struct replay_result *res,
                         const char *mode, uint32_t iodepth, struct sim_err *err)
{
    int rc = files_mkdir_p(dir);
    if (rc < 0)
        return sim_errf(err, rc, "%s: cannot create: %s", dir, strerror(-rc));
    if ((rc = runner_write_cluster_outputs(c, sc, dir, err)) < 0)
        return rc;
    cJSON *j = cJSON_CreateObject();
    cJSON_AddStringToObject(j, "cephsim_version", CEPHSIM_VERSION);
    cJSON_AddStringToObject(j, "scenario", sc->path);
    cJSON_AddStringToObject(j, "mode", mode);
    cJSON_AddNumberToObject(j, "iodepth", iodepth);
    cJSON_AddNumberToObject(j, "ios", (double)res->n);
    cJSON_AddNumberToObject(j, "ios_done", (double)res->n_done);
    cJSON_AddNumberToObject(j, "skipped_records", (double)tr->skipped);
    cJSON_AddNumberToObject(j, "trace_span_s", (double)(tr->ios[tr->n - 1].t_ns - tr->ios[0].t_ns) / 1e9);
    cJSON_AddNumberToObject(j, "makespan_s", (double)res->makespan / 1e9);
    cJSON_AddNumberToObject(j, "iops", res->iops);
    cJSON_AddNumberToObject(j, "lat_mean_us", res->lat_mean_us);
    cJSON_AddNumberToObject(j, "lat_p50_us", res->lat_p50_us);
    cJSON_AddNumberToObject(j, "lat_p99_us", res->lat_p99_us);
    cJSON_AddItemToObject(j, "parameters", scenario_resolved_json(sc));
    if ((rc = runner_write_json(dir, "replay.json", j, err)) < 0)
        return rc;
    return write_logs(dir, tr, res, err);
}

static void usage(FILE *f)
{
    fprintf(f,
            "usage: cephsim replay TRACE... --scenario S [--mode open|closed] [--iodepth N]\n"
            "                      [--speed X] [--max-s S] [--set PATH=VALUE]... [-o DIR] [-q]\n"
            "\n"
            "Replay a fio iolog (v2/v3; write_iolog) or op-tracker dumps (dump_historic_ops, one per\n"
            "OSD, gzip ok) through the scenario's cluster; its fio jobs stay idle, the trace's I/Os\n"
            "come from one fio thread on client 0's host.\n"
            "  -s, --scenario S       scenario file (cluster, image, Ceph options, costs)\n"
            "  -m, --mode open|closed open: each I/O at its recorded arrival time (default);\n"
            "                         closed: recorded order, --iodepth I/Os in flight\n"
            "  -d, --iodepth N        closed loop depth (default: the scenario job's iodepth)\n"
            "      --speed X          open loop: arrivals X times faster (default 1)\n"
            "      --max-s S          give up S simulated seconds after the last arrival (default 60)\n"
            "  -S, --set PATH=VALUE   scenario override (repeatable)\n"
            "  -o, --output DIR       outputs (default out/replay/<trace name>, an OSD dump's prefixed with\n"
            "                         its directory); replaces only a directory of cephsim replay's own files\n"
            "  -q, --quiet            no summary\n");
}

int cmd_replay(int argc, char **argv)
{
    enum { OPT_SPEED = 256, OPT_MAX_S };
    static const struct option opts[] = {
        {"scenario", required_argument, NULL, 's'}, {"mode", required_argument, NULL, 'm'},
        {"iodepth", required_argument, NULL, 'd'},  {"speed", required_argument, NULL, OPT_SPEED},
        {"max-s", required_argument, NULL, OPT_MAX_S}, {"set", required_argument, NULL, 'S'},
        {"output", required_argument, NULL, 'o'},   {"quiet", no_argument, NULL, 'q'},
        {"help", no_argument, NULL, 'h'},           {0}};
    const char *scen = NULL, *out = NULL;
    const char **sets = sim_xcalloc((size_t)argc + 1, sizeof *sets);
    int n_sets = 0, c, rc = 2;
    bool quiet = false, mode_given = false;
    struct replay_opts ro = {.mode = REPLAY_OPEN, .speed = 1, .max_s = 60};
    long depth = 0;
    char *end;
    optind = 1;
    while ((c = getopt_long(argc, argv, "s:m:d:S:o:qh", opts, NULL)) != -1) {
        switch (c) {
        case 's': scen = optarg; break;
        case 'm':
            mode_given = true;
            if (!strcmp(optarg, "open"))
                ro.mode = REPLAY_OPEN;
            else if (!strcmp(optarg, "closed"))
                ro.mode = REPLAY_CLOSED;
            else {
                fprintf(stderr, "cephsim replay: --mode %s: expected open or closed\n", optarg);
                goto usage_err;
            }
            break;
        case 'd':
            depth = strtol(optarg, &end, 10);
            if (*end || depth < 1 || depth > 65536) {
                fprintf(stderr, "cephsim replay: --iodepth %s: expected 1..65536\n", optarg);
                goto usage_err;
            }
            break;
        case OPT_SPEED:
        case OPT_MAX_S: {
            double v = strtod(optarg, &end);
            if (*end || !(v > 0) || !isfinite(v)) {
                fprintf(stderr, "cephsim replay: %s %s: expected a positive number\n",
                        c == OPT_SPEED ? "--speed" : "--max-s", optarg);
                goto usage_err;
            }
            if (c == OPT_SPEED)
                ro.speed = v;
            else
                ro.max_s = v;
            break;
        }
        case 'S': sets[n_sets++] = optarg; break;
        case 'o': out = optarg; break;
        case 'q': quiet = true; break;
        case 'h': usage(stdout); free(sets); return 0;
        default: goto usage_err;
        }
    }
    if (optind >= argc || !scen) {
        fprintf(stderr, "cephsim replay: %s\n", optind >= argc ? "no TRACE given" : "--scenario S is required");
        goto usage_err;
    }
    if (depth && ro.mode != REPLAY_CLOSED) {
        fprintf(stderr, "cephsim replay: --iodepth is for --mode closed\n");
        goto usage_err;
    }
    struct sim_err err = {0};
    char outbuf[1200];
    if (!out) {
        default_output(argv[optind], outbuf, sizeof outbuf);
        out = outbuf;
    }
    if (replay_check_output(out, &err) < 0) { /* refuse before simulating */
        fprintf(stderr, "cephsim replay: %s\n", err.msg);
        free(sets);
        return 1;
    }
    struct scenario sc;
    if (scenario_load(&sc, scen, NULL, NULL, sets, n_sets, &err) < 0) {
        fprintf(stderr, "cephsim replay: %s\n", err.msg);
        free(sets);
        return 2;
    }
    if (scenario_check_unreduced(&sc, "replay", &err) < 0) {
        fprintf(stderr, "cephsim replay: %s\n", err.msg);
        scenario_free(&sc);
        free(sets);
        return 2;
    }
    ro.iodepth = depth ? (uint32_t)depth : sc.jobs.n_jobs ? sc.jobs.jobs[0].iodepth : 1;
    struct replay_trace tr = {0};
    struct replay_result res = {0};
    struct cluster *cl = NULL;
    struct cluster_spec spec;
    /* open loop simulates the trace's whole span divided by --speed; closed loop ignores the times */
    int64_t max_span_ns = 0;
    if (ro.mode == REPLAY_OPEN) {
        double m = (double)TRACEREPLAY_SPAN_MAX_NS * ro.speed;
        max_span_ns = m >= 9.2e18 ? INT64_MAX : m < 1 ? 1 : (int64_t)m;
    }
    if (tracereplay_load(&tr, (const char *const *)argv + optind, argc - optind, (uint32_t)sc.image.order,
                         max_span_ns, &err) < 0 ||
        scenario_to_spec(&sc, 0, &spec, &err) < 0) {
        fprintf(stderr, "cephsim replay: %s\n", err.msg);
        rc = 2;
        goto done;
    }
    if (!tr.n) {
        int n_traces = argc - optind;
        fprintf(stderr, "cephsim replay: %s%s: no reads or writes in the trace%s (%zu records skipped)\n",
                argv[optind], n_traces > 1 ? " and the others" : "", n_traces > 1 ? "s" : "", tr.skipped);
        rc = 2;
        goto done;
    }
    /* A trace without timing (a version 2 iolog without 'wait' lines) would arrive all at
       t = 0 in open loop; fio's read_iolog issues such a log in order at the job's iodepth. */
    int64_t t_lo = tr.ios[0].t_ns, t_hi = tr.ios[0].t_ns;
    for (size_t i = 1; i < tr.n; i++) {
        t_lo = tr.ios[i].t_ns < t_lo ? tr.ios[i].t_ns : t_lo;
        t_hi = tr.ios[i].t_ns > t_hi ? tr.ios[i].t_ns : t_hi;
    }
    if (tr.n > 1 && t_lo == t_hi && ro.mode == REPLAY_OPEN) {
        if (!mode_given) {
            ro.mode = REPLAY_CLOSED;
            fprintf(stderr, "cephsim replay: %s: the trace has no timing (a version 2 iolog without 'wait' lines): "
                    "replaying it as fio does, in order at iodepth %u (--mode closed; --mode open would issue all "
                    "%zu I/Os at t = 0)\n", argv[optind], ro.iodepth, tr.n);
        } else {
            fprintf(stderr, "cephsim replay: warning: %s has no timing (a version 2 iolog without 'wait' lines): "
                    "--mode open issues all %zu I/Os at t = 0\n", argv[optind], tr.n);
        }
    }
    /* offsets beyond the image wrap around it (a trace from a bigger image) */
    uint64_t img = (uint64_t)llround(sc.image.size_gib * 1073741824.0);
    size_t wrapped = 0;
    for (size_t i = 0; i < tr.n; i++)
        if (tr.ios[i].offset + tr.ios[i].len > img) {
            tr.ios[i].offset = (tr.ios[i].offset % img) / 4096 * 4096;
            if (tr.ios[i].offset + tr.ios[i].len > img)
                tr.ios[i].offset = 0;
            wrapped++;
        }
    int r2 = replay_run(&spec, &tr, &ro, &res, &cl, &err);
    if (r2 < 0 && !cl) {
        fprintf(stderr, "cephsim replay: %s\n", err.msg);
        rc = 1;
        goto done;
    }
    if (r2 < 0)
        fprintf(stderr, "cephsim replay: %s\n", err.msg);
    const char *mode = ro.mode == REPLAY_OPEN ? "open" : "closed";
    /* written beside out, then renamed into place: a failed replay leaves the old outputs */
    char tmpdir[1240];
    snprintf(tmpdir, sizeof tmpdir, "%s.tmp.%ld", out, (long)getpid());
    files_rm_tree(tmpdir);
    int wr = files_mkdir_parents(tmpdir);
    if (wr < 0)
        sim_errf(&err, wr, "%s: cannot create its parent directory: %s", tmpdir, strerror(-wr));
    else
        wr = write_outputs(tmpdir, cl, &sc, &tr, &res, mode, ro.iodepth, &err);
    if (wr == 0 && (wr = replay_check_output(out, &err)) == 0) {
        files_rm_tree(out);
        if (rename(tmpdir, out) != 0)
            wr = sim_errf(&err, -errno, "%s: cannot rename %s into place: %s", out, tmpdir, strerror(errno));
    }
    if (wr < 0) {
        files_rm_tree(tmpdir);
        fprintf(stderr, "cephsim replay: %s\n", err.msg);
        rc = 1;
        goto done;
    }
    if (!quiet) {
        size_t nw = 0;
        for (size_t i = 0; i < tr.n; i++)
            nw += tr.ios[i].ddir == FIO_DDIR_WRITE;
        printf("%s: replayed %zu I/Os (%zu writes, %zu reads; %zu records skipped, %zu wrapped into the image)\n",
               scen, tr.n, nw, tr.n - nw, tr.skipped, wrapped);
        if (ro.mode == REPLAY_OPEN)
            printf("  open loop at the recorded arrival times (speed x%g), trace span %.3f s\n", ro.speed,
                   (double)(tr.ios[tr.n - 1].t_ns - tr.ios[0].t_ns) / 1e9);
        else
            printf("  closed loop, iodepth %u, in recorded order\n", ro.iodepth);
        printf("  completed %zu in %.3f s: IOPS %.0f   lat (issue -> completion) mean %.1f us  p50 %.1f us  p99 %.1f us\n",
               res.n_done, (double)res.makespan / 1e9, res.iops, res.lat_mean_us, res.lat_p50_us, res.lat_p99_us);
        printf("  outputs: %s/\n", out);
    }
    rc = r2 < 0 ? 1 : 0;
done:
    if (cl)
        cluster_destroy(cl);
    replay_result_free(&res);
    replay_trace_free(&tr);
    scenario_free(&sc);
    free(sets);
    return rc;
usage_err:
    usage(stderr);
    free(sets);
    return 2;
}
