/*
 * main.c - the cephsim command line.
 *
 *   cephsim run [SCENARIO | JOBFILE.fio] [--jobfile F.fio] [-o DIR] [--seed N] [--set path=value]... [-q]
 *   cephsim list-params [--markdown]
 *   cephsim import DIR [-o SCENARIO.json] [--pool NAME] [--image NAME]
 *   cephsim --help | --version
 *
 * Diagnostics go to stderr; exit 0 on success, 1 on failure, 2 on usage errors.
 * This file is the program's entry point only; the engine (the rest of sim/, in
 * libsim.a) knows nothing of Ceph.
 */
#include <errno.h>
#include <limits.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "goal.h"
#include "hwprofile.h"
#include "import.h"
#include "jsonu.h"
#include "plot.h"
#include "calibrate.h"
#include "files.h"
#include "query.h"
#include "replay_cmd.h"
#include "runner.h"
#include "scenario.h"
#include "score.h"
#include "study.h"
#include "sweep.h"
#include "validate.h"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: cephsim <command> [options]\n"
            "\n"
            "commands:\n"
            "  run [SCENARIO]      simulate a scenario (default: the two seed studies);\n"
            "                      a bare JOBFILE.fio runs on the seed cluster (scenarios/qd1-latency.json)\n"
            "        --jobfile F.fio      the scenario runs these fio jobs (= --set clients.jobfile=F.fio)\n"
            "        -o, --output DIR     write fio.json, osd.N.perf.json, osd.N.historic_ops.json, sim.json\n"
            "        --seed N             override sim.seed\n"
            "        --set PATH=VALUE     override any scenario value (cluster.nic=25gbe, fio.iodepth=32,\n"
            "                             ceph.release=16.2.15, image.kind=clone, hw.nvme.write_latency_us=30)\n"
            "        -q, --quiet          no human summary on stdout\n"
            "        --output-format=LIST print what fio would instead of the summary: normal (fio's text\n"
            "                             report, also in fio.txt), json, json+ (fio.json with clat_ns bins)\n"
            "  list-params [--markdown]   every scenario parameter with unit, default and source\n"
            "  plot DIR [-o OUTDIR] [-f png|svg|both]   gnuplot figures of a run or of the studies\n"
            "  sweep GRID --db FILE [-j N] [--shard K/N] [--mpi] [-n] [-q]\n"
            "                      run a parameter grid into SQLite (resumable; see explorer/README.md)\n"
            "  merge OUT IN...     merge shard databases\n"
            "  query DB [--best M|--pareto|--effects M|--plot M --x A [--by A|--y A] -o F|--sql Q]\n"
            "           [--where SQL] [--csv]     ready-made questions about a sweep\n"
            "  goal --base S --target 'M<=V' --cost 'path=v:c,...'...\n"
            "                      cheapest design/tuning reaching a target, by adaptive search\n"
            "  validate --real DIR (--sim DIR | --run SCENARIO [--set ...]) [--tolerance iops=20%%,...]\n"
            "                      compare a simulation with a real capture (exit 0 within tolerance, 1 outside)\n"
            "  calibrate --profile SCENARIO --real DIR... [--check DIR...] -o OUT\n"
            "                      fit stage costs, wake-ups and device latencies to captures (GSL)\n"
            "  score [DIR] [--check] [--only ID,...] [--json F]\n"
            "                      run the scored validation set (validation/published): published vs\n"
            "                      predicted per case, median/max |error| per category; --check: bands\n"
            "  replay TRACE... --scenario S [--mode open|closed] [--iodepth N]\n"
            "                      replay a fio iolog or dump_historic_ops trace through the model\n"
            "  import DIR [-o SCENARIO.json] [--pool NAME] [--image NAME]\n"
            "                      a scenario from a real cluster's outputs (ceph osd crush dump, pool ls detail,\n"
            "                      osd metadata, config dump, versions --format json); says what it assumed\n"
            "  sweep SCENARIO --cbt CBT.yaml --db FILE   run cbt's librbdfio benchmark file as a sweep\n"
            "\n"
            "  -h, --help          this text\n"
            "  -V, --version       print the version\n");
}

static int cmd_list_params(int argc, char **argv)
{
    static const struct option opts[] = {{"markdown", no_argument, NULL, 'm'}, {0}};
    bool md = false;
    int c;
    optind = 1;
    static const struct option all[] = {{"markdown", no_argument, NULL, 'm'}, {"help", no_argument, NULL, 'h'}, {0}};
    (void)opts;
    while ((c = getopt_long(argc, argv, "mh", all, NULL)) != -1) {
        if (c == 'h') {
            printf("usage: cephsim list-params [--markdown]\n"
                   "  every scenario parameter (section.key) with unit, default and source, then the fio\n"
                   "  options cephsim models with fio's own meaning (fio --cmdhelp) and those it accepts\n"
                   "  with no effect; --markdown writes the document scenarios/SCHEMA.md holds\n");
            return 0;
        }
        if (c != 'm') {
            fprintf(stderr, "cephsim list-params: unknown option (usage: cephsim list-params [--markdown])\n");
            return 2;
        }
        md = true;
    }
    scenario_print_params(stdout, md);
    return 0;
}

/* scenarios/qd1-latency.json of the working directory's tree, else of the
   tree the binary was built in (out/bin/cephsim -> ../../scenarios). */
static int find_seed_scenario(char *out, size_t n)
{
    if (access("scenarios/qd1-latency.json", R_OK) == 0)
        return snprintf(out, n, "scenarios/qd1-latency.json") < (int)n ? 0 : -1;
    char dir[PATH_MAX];
    if (files_exe_dir(dir, sizeof dir) < 0)
        return -1;
    if (snprintf(out, n, "%s/../../scenarios/qd1-latency.json", dir) >= (int)n)
        return -1;
    return access(out, R_OK) == 0 ? 0 : -1;
}

static int cmd_run(int argc, char **argv)
{
    static const struct option opts[] = {
        {"output", required_argument, NULL, 'o'}, {"seed", required_argument, NULL, 's'},
        {"set", required_argument, NULL, 'S'},    {"quiet", no_argument, NULL, 'q'},
        {"help", no_argument, NULL, 'h'},         {"jobfile", required_argument, NULL, 'j'},
        {"output-format", required_argument, NULL, 'F'}, {0}};
    const char *out = NULL;
    const char **sets = calloc((size_t)argc + 1, sizeof *sets);
    int n_sets = 0, c, rc = 0;
    bool quiet = false, fmt_normal = false, fmt_json = false, json_plus = false;
    char seedset[64], jobset[PATH_MAX + 32];
    const char *jobfile = NULL; /* --jobfile's */
    optind = 1;
    while ((c = getopt_long(argc, argv, "o:qh", opts, NULL)) != -1) {
        switch (c) {
        case 'o': out = optarg; break;
        case 'j':
            jobfile = optarg;
            snprintf(jobset, sizeof jobset, "clients.jobfile=%s", optarg);
            sets[n_sets++] = jobset;
            break;
        case 's':
            snprintf(seedset, sizeof seedset, "sim.seed=%s", optarg);
            sets[n_sets++] = seedset;
            break;
        case 'S': sets[n_sets++] = optarg; break;
        case 'q': quiet = true; break;
        case 'F': {
            /* fio's --output-format: a comma-separated list */
            char list[256];
            snprintf(list, sizeof list, "%s", optarg);
            for (char *save = NULL, *t = strtok_r(list, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
                if (!strcmp(t, "normal")) {
                    fmt_normal = true;
                } else if (!strcmp(t, "json")) {
                    fmt_json = true;
                } else if (!strcmp(t, "json+")) {
                    fmt_json = json_plus = true;
                } else {
                    fprintf(stderr, "cephsim run: --output-format %s: '%s' is not one of normal, json, json+%s\n",
                            optarg, t, !strcmp(t, "terse") ? " (terse is not written)" : "");
                    free(sets);
                    return 2;
                }
            }
            break;
        }
        case 'h': usage(stdout); free(sets); return 0;
        default: usage(stderr); free(sets); return 2;
        }
    }
    if (optind + 1 < argc) {
        fprintf(stderr, "cephsim run: one scenario at a time (got %d)\n", argc - optind);
        free(sets);
        return 2;
    }
    struct sim_err err = {0};
    bool tty = isatty(STDOUT_FILENO) && isatty(STDERR_FILENO); /* progress only for a person watching */
    if (optind == argc && !jobfile) {
        /* the seed studies; -q: their tables go nowhere (the JSON summaries are still written) */
        FILE *f = quiet ? fopen("/dev/null", "w") : stdout;
        rc = f ? study_run(f, NULL, out, sets, n_sets, tty, &err)
               : sim_errf(&err, -errno, "/dev/null: %s", strerror(errno));
        if (f && f != stdout)
            fclose(f);
    } else {
        struct scenario sc;
        /* --jobfile without a scenario is a bare job file: the same run */
        const char *path = optind < argc ? argv[optind] : jobfile;
        char jobset2[PATH_MAX + 32], seed_cluster[PATH_MAX];
        size_t pl = strlen(path);
        bool bare = path == jobfile || (pl > 4 && !strcmp(path + pl - 4, ".fio"));
        if (bare && path != jobfile && jobfile) {
            fprintf(stderr, "cephsim run: %s and --jobfile %s: one job file at a time\n", path, jobfile);
            free(sets);
            return 2;
        }
        if (bare) {
            /* a bare job file runs on the seed cluster (3 x Epyc 7302P, 10 x PM983, 10GBase-T) */
            snprintf(jobset2, sizeof jobset2, "clients.jobfile=%s", path);
            if (path != jobfile)
                sets[n_sets++] = jobset2;
            if (find_seed_scenario(seed_cluster, sizeof seed_cluster) < 0) {
                fprintf(stderr, "cephsim run: %s: cannot find scenarios/qd1-latency.json (the seed cluster a bare "
                                "job file runs on): run from the source tree\n", path);
                free(sets);
                return 1;
            }
            path = seed_cluster;
        }
        if (scenario_load(&sc, path, NULL, NULL, sets, n_sets, &err) < 0) {
            rc = -1;
        } else {
            char dir[1100];
            if (!out) {
                const char *named = bare ? (optind < argc ? argv[optind] : jobfile) : path;
                const char *base = strrchr(named, '/') ? strrchr(named, '/') + 1 : named;
                snprintf(dir, sizeof dir, "out/runs/%.*s", (int)strcspn(base, "."), base);
                out = dir;
            }
            struct run_summary sum;
            struct runner_opts ro = {.progress = tty, .json_plus = json_plus};
            rc = runner_run_opts(&sc, out, &ro, &sum, &err);
            if (rc == 0 && (fmt_normal || fmt_json)) {
                /* what fio prints for these formats, in fio's order (normal, then json) */
                const char *files[2] = {fmt_normal ? "fio.txt" : NULL, fmt_json ? "fio.json" : NULL};
                for (int k = 0; k < 2 && rc == 0; k++) {
                    if (!files[k])
                        continue;
                    char p[PATH_MAX + 16], *text = NULL;
                    size_t len = 0;
                    snprintf(p, sizeof p, "%s/%s", out, files[k]);
                    if ((rc = jsonu_slurp(p, &text, &len, &err)) == 0)
                        fwrite(text, 1, len, stdout);
                    free(text);
                }
            } else if (rc == 0 && !quiet) {
                runner_print_summary(stdout, &sc, &sum);
                printf("  outputs: %s/\n", out);
            }
            scenario_free(&sc);
        }
    }
    free(sets);
    if (rc < 0) {
        fprintf(stderr, "cephsim: %s\n", err.msg[0] ? err.msg : strerror(-rc));
        return 1;
    }
    return 0;
}

/* A report that did not reach stdout (a full disk, /dev/full, a closed pipe)
   is a failure: the exit status says so, stderr says why. */
static int stdout_checked(int rc)
{
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "cephsim: standard output: write error: %s\n", strerror(errno ? errno : EIO));
        return rc ? rc : 1;
    }
    return rc;
}

static int dispatch(int argc, char **argv);

int main(int argc, char **argv)
{
    return stdout_checked(dispatch(argc, argv));
}

static int dispatch(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help") || !strcmp(cmd, "help")) {
        usage(stdout);
        return 0;
    }
    if (!strcmp(cmd, "-V") || !strcmp(cmd, "--version") || !strcmp(cmd, "version")) {
        printf("cephsim %s (model %s)\n", CEPHSIM_VERSION, CEPHSIM_MODEL_ID);
        return 0;
    }
    if (!strcmp(cmd, "run"))
        return cmd_run(argc - 1, argv + 1);
    if (!strcmp(cmd, "list-params"))
        return cmd_list_params(argc - 1, argv + 1);
    if (!strcmp(cmd, "plot"))
        return cmd_plot(argc - 1, argv + 1);
    if (!strcmp(cmd, "sweep"))
        return cmd_sweep(argc - 1, argv + 1);
    if (!strcmp(cmd, "merge"))
        return cmd_merge(argc - 1, argv + 1);
    if (!strcmp(cmd, "query"))
        return cmd_query(argc - 1, argv + 1);
    if (!strcmp(cmd, "goal"))
        return cmd_goal(argc - 1, argv + 1);
    if (!strcmp(cmd, "validate"))
        return cmd_validate(argc - 1, argv + 1);
    if (!strcmp(cmd, "calibrate"))
        return cmd_calibrate(argc - 1, argv + 1);
    if (!strcmp(cmd, "score"))
        return cmd_score(argc - 1, argv + 1);
    if (!strcmp(cmd, "replay"))
        return cmd_replay(argc - 1, argv + 1);
    if (!strcmp(cmd, "import"))
        return cmd_import(argc - 1, argv + 1);
    fprintf(stderr, "cephsim: unknown command '%s' (try --help)\n", cmd);
    return 2;
}
