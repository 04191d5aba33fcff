/*
 * cluster_bench.c - how fast the cluster model runs: simulated client ops per
 * wall-clock second on one core, and what memory a run needs.
 *
 * The seed cluster of scenarios/qd1-latency.json (3 hosts x 10 OSDs, size 3,
 * 1024 PGs) driven by several fio clients (one [job] section each, so each is
 * its own librbd client with its own io_context thread), 4 KiB randwrite at
 * iodepth 128, librbd's scheduler off, no warm-up (every simulated op is
 * counted).  For each simulated duration a forked child builds the cluster,
 * times cluster_run alone (CLOCK_MONOTONIC) and prints:
 *   client ops simulated (fio total_ios), simulated IOPS, wall seconds,
 *   client ops per wall second, events, events per op, events per second,
 *   peak OSD ops in flight (the op pool's peak), events pending at the end,
 *   and the child's VmHWM / VmRSS from /proc/self/status.
 * Two durations (default 1 and 4 simulated seconds) show that memory follows
 * the ops in flight, not the ops simulated.
 *
 *   cluster_bench [-d D1,D2,...] [-c CLIENTS] [-q IODEPTH] [-s SCENARIO]
 *                 [--set path=value]...            (run from the repo root)
 * Profile a short run with
 *   valgrind --tool=callgrind out/bin/cluster_bench -d 0.05
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cluster.h"
#include "clusterjson.h"
#include "jsonu.h"
#include "scenario.h"
#include "wallclock.h"

#define MAX_SETS 64
#define MAX_DURATIONS 8

struct bench_opts {
    const char *scenario;
    int clients, iodepth;
    double durations[MAX_DURATIONS];
    int n_durations;
    const char *sets[MAX_SETS];
    int n_sets;
};

/* A "VmHWM:  1234 kB" line of /proc/self/status, in kB (0 if absent). */
static long proc_status_kb(const char *key)
{
    FILE *f = fopen("/proc/self/status", "r");
    if (!f)
        return 0;
    char line[256];
    long kb = 0;
    size_t n = strlen(key);
    while (fgets(line, sizeof line, f))
        if (!strncmp(line, key, n) && line[n] == ':') {
            kb = strtol(line + n + 1, NULL, 10);
            break;
        }
    fclose(f);
    return kb;
}

/* The scenario file's JSON with "clients" replaced by n [job] sections. */
static char *scenario_text(const struct bench_opts *o, struct sim_err *err)
{
    cJSON *j = jsonu_load_file(o->scenario, err);
    if (!j)
        return NULL;
    char jobs[4096];
    int len = snprintf(jobs, sizeof jobs,
                       "[global]\nioengine=rbd\nclientname=admin\npool=rbd\nrbdname=bench\ndirect=1\n"
                       "bs=4k\nrw=randwrite\niodepth=%d\ntime_based\ngroup_reporting\n",
                       o->iodepth);
    for (int i = 0; i < o->clients && len < (int)sizeof jobs - 32; i++)
        len += snprintf(jobs + len, sizeof jobs - (size_t)len, "\n[client%d]\n", i);
    cJSON_DeleteItemFromObjectCaseSensitive(j, "clients");
    cJSON *cl = cJSON_AddObjectToObject(j, "clients");
    cJSON_AddStringToObject(cl, "jobs", jobs);
    char *text = cJSON_Print(j);
    cJSON_Delete(j);
    return text;
}

struct bench_result {
    double sim_s, ops, wall_s, events, peak_in_flight, pending;
    long hwm_kb, rss_kb;
};

static int bench_one(const struct bench_opts *o, double duration, struct bench_result *r, struct sim_err *err)
{
    char *text = scenario_text(o, err);
    if (!text)
        return err->code;
    const char *sets[MAX_SETS + 8];
    int n = 0;
    char dur[64], clients[64];
    snprintf(dur, sizeof dur, "sim.duration_s=%.17g", duration);
    snprintf(clients, sizeof clients, "cluster.client_hosts=%d", o->clients);
    sets[n++] = dur;
    sets[n++] = "sim.warmup_s=0";
    sets[n++] = "sim.replications=1";
    sets[n++] = "ceph.rbd_io_scheduler=none";
    sets[n++] = clients;
    for (int i = 0; i < o->n_sets; i++)
        sets[n++] = o->sets[i];
    struct scenario sc;
    int rc = scenario_load(&sc, NULL, text, o->scenario, sets, n, err);
    free(text);
    if (rc < 0)
        return rc;
    struct cluster_spec spec;
    if ((rc = scenario_to_spec(&sc, 0, &spec, err)) < 0) {
        scenario_free(&sc);
        return rc;
    }
    struct cluster *c = cluster_create(&spec, err);
    if (!c) {
        scenario_free(&sc);
        return err->code ? err->code : -EINVAL;
    }
    uint64_t ev0 = sim_events(cluster_sim(c));
    double t0 = wallclock_s();
    cluster_run(c, NULL, NULL);
    r->wall_s = wallclock_s() - t0;
    r->sim_s = (double)spec.duration_ns / 1e9;
    r->events = (double)(sim_events(cluster_sim(c)) - ev0);
    r->ops = 0;
    for (uint32_t i = 0; i < cluster_n_jobs(c); i++)
        for (int d = 0; d < FIO_DDIR_NR; d++)
            r->ops += (double)cluster_job_results(c)[i].dir[d].total_ios;
    cJSON *st = clusterjson_stats(c);
    r->peak_in_flight = cJSON_GetObjectItemCaseSensitive(st, "peak_ops_in_flight")->valuedouble;
    cJSON_Delete(st);
    r->pending = sim_pending(cluster_sim(c));
    r->hwm_kb = proc_status_kb("VmHWM");
    r->rss_kb = proc_status_kb("VmRSS");
    cluster_destroy(c);
    scenario_free(&sc);
    return 0;
}

static void print_result(const struct bench_result *r)
{
    printf("%6.2f %10.0f %9.0f %8.3f %12.0f %11.0f %7.1f %11.0f %9.0f %8.0f %9ld %9ld\n", r->sim_s, r->ops,
           r->ops / r->sim_s, r->wall_s, r->ops / r->wall_s, r->events, r->ops ? r->events / r->ops : 0,
           r->events / r->wall_s, r->peak_in_flight, r->pending, r->hwm_kb, r->rss_kb);
}

static void usage(FILE *f)
{
    fprintf(f, "usage: cluster_bench [-d D1,D2,...] [-c CLIENTS] [-q IODEPTH] [-s SCENARIO] [--set path=value]...\n"
               "  -d  simulated seconds per point (default 1,4)\n"
               "  -c  fio client sections, each its own librbd client and client host (default 4)\n"
               "  -q  iodepth per client (default 128)\n"
               "  -s  scenario file (default scenarios/qd1-latency.json)\n");
}

int main(int argc, char **argv)
{
    struct bench_opts o = {.scenario = "scenarios/qd1-latency.json", .clients = 4, .iodepth = 128,
                           .durations = {1, 4}, .n_durations = 2};
    static const struct option longopts[] = {{"set", required_argument, NULL, 'S'},
                                             {"help", no_argument, NULL, 'h'},
                                             {NULL, 0, NULL, 0}};
    int ch;
    while ((ch = getopt_long(argc, argv, "d:c:q:s:h", longopts, NULL)) != -1) {
        switch (ch) {
        case 'd': {
            o.n_durations = 0;
            char *save = NULL, *buf = strdup(optarg);
            for (char *t = strtok_r(buf, ",", &save); t && o.n_durations < MAX_DURATIONS;
                 t = strtok_r(NULL, ",", &save)) {
                double d = strtod(t, NULL);
                if (d <= 0) {
                    fprintf(stderr, "cluster_bench: -d %s: durations must be > 0\n", optarg);
                    free(buf);
                    return 2;
                }
                o.durations[o.n_durations++] = d;
            }
            free(buf);
            break;
        }
        case 'c': o.clients = atoi(optarg); break;
        case 'q': o.iodepth = atoi(optarg); break;
        case 's': o.scenario = optarg; break;
        case 'S':
            if (o.n_sets == MAX_SETS) {
                fprintf(stderr, "cluster_bench: too many --set\n");
                return 2;
            }
            o.sets[o.n_sets++] = optarg;
            break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (optind < argc || o.clients < 1 || o.clients > 64 || o.iodepth < 1 || o.n_durations < 1) {
        usage(stderr);
        return 2;
    }
    printf("cluster_bench: %s, %d clients x iodepth %d, 4k randwrite, %d client ops in flight\n", o.scenario,
           o.clients, o.iodepth, o.clients * o.iodepth);
    printf("%6s %10s %9s %8s %12s %11s %7s %11s %9s %8s %9s %9s\n", "sim_s", "ops", "sim_iops", "wall_s",
           "ops/wall_s", "events", "ev/op", "events/s", "peak_ops", "pending", "hwm_kB", "rss_kB");
    fflush(stdout);
    int status = 0;
    for (int i = 0; i < o.n_durations; i++) {
        /* a child per point: its VmHWM is this point's peak alone */
        pid_t pid = fork();
        if (pid < 0) {
            perror("cluster_bench: fork");
            return 1;
        }
        if (pid == 0) {
            struct bench_result r;
            struct sim_err err = {0};
            if (bench_one(&o, o.durations[i], &r, &err) < 0) {
                fprintf(stderr, "cluster_bench: %s\n", err.msg);
                _exit(1);
            }
            print_result(&r);
            fflush(stdout);
            _exit(0);
        }
        int st;
        if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
            status = 1;
    }
    return status;
}
