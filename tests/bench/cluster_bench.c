/*
 * cluster_bench.c - how fast the cluster model runs: simulated client ops per
 * wall-clock second on one core, and what memory a run needs.
 *
 * By default the seed cluster of scenarios/qd1-latency.json (3 hosts x 10
 * OSDs, size 3, 1024 PGs) driven by several fio clients (one [job] section
 * each, so each is its own librbd client with its own io_context thread and,
 * as cbt's volumes_per_client gives each fio process its volume, its own
 * image: clients sharing one image would ping-pong its exclusive lock),
 * 4 KiB randwrite at iodepth 128, librbd's scheduler off, no warm-up (every
 * simulated op is counted).  Clients are spread over at most 64 client hosts.
 * For each simulated duration a forked child builds the cluster (timed: the
 * set-up), times cluster_run alone and prints:
 *   client ops simulated (fio total_ios), simulated IOPS, wall and CPU
 *   seconds of the run, client ops per wall second and per CPU second of
 *   this process (what one core delivers when the machine is shared),
 *   events, events per op, events per wall and per CPU second, peak OSD ops
 *   in flight (the op pool's peak), events pending at the end, set-up wall
 *   and CPU seconds (cluster_create), and the child's VmHWM / VmRSS from
 *   /proc/self/status.
 * Two durations (default 1 and 4 simulated seconds) show that memory follows
 * the ops in flight, not the ops simulated.  With -k the scenario's own
 * clients run instead (a published case's fio jobs).
 *
 *   cluster_bench [-d D1,D2,...] [-c CLIENTS] [-q IODEPTH] [-s SCENARIO] [-k]
 *                 [-g IMAGE_GIB] [--set path=value]...   (run from the repo root)
 * Profile a short run with
 *   valgrind --tool=callgrind --callgrind-out-file=cg.%p out/bin/cluster_bench -d 0.2
 * (the forked child writes the larger file); events by kind are the calls
 * sim_run makes to each callback:
 *   callgrind_annotate --tree=calling cg.PID | grep -A30 '\* .*sim_run'
 * (the README's "Speed" section lists them per op).
 */
#include <errno.h>
#include <stdbool.h>
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
#include "strbuf.h"
#include "wallclock.h"

#define MAX_SETS 64
#define MAX_DURATIONS 8
#define MAX_CLIENTS 4096
#define MAX_CLIENT_HOSTS 64 /* cluster.client_hosts' range */

struct bench_opts {
    const char *scenario;
    int clients, iodepth;
    bool own_clients;      /* -k: the scenario's clients, not the bench's */
    double image_gib;      /* -g: each client's image size (0: the scenario's) */
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

/* The scenario file's JSON with "clients" replaced by n [job] sections
   (unless -k keeps the scenario's own). */
static char *scenario_text(const struct bench_opts *o, struct sim_err *err)
{
    cJSON *j = jsonu_load_file(o->scenario, err);
    if (!j)
        return NULL;
    if (!o->own_clients) {
        struct strbuf jobs = STRBUF_INIT;
        strbuf_printf(&jobs,
                      "[global]\nioengine=rbd\nclientname=admin\npool=rbd\nrbdname=bench\ndirect=1\n"
                      "bs=4k\nrw=randwrite\niodepth=%d\ntime_based\ngroup_reporting\n",
                      o->iodepth);
        for (int i = 0; i < o->clients; i++)
            strbuf_printf(&jobs, "\n[client%d]\n", i);
        cJSON_DeleteItemFromObjectCaseSensitive(j, "clients");
        cJSON *cl = cJSON_AddObjectToObject(j, "clients");
        cJSON_AddStringToObject(cl, "jobs", jobs.s);
        free(jobs.s);
    }
    char *text = cJSON_Print(j);
    cJSON_Delete(j);
    return text;
}

static double cpu_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

struct bench_result {
    double sim_s, ops, wall_s, cpu_s, setup_s, setup_cpu_s, events, peak_in_flight, pending;
    long hwm_kb, rss_kb;
    double scale; /* sim.reduce_to_hosts: whole-cluster ops per simulated one (1: every host) */
};

static int bench_one(const struct bench_opts *o, double duration, struct bench_result *r, struct sim_err *err)
{
    char *text = scenario_text(o, err);
    if (!text)
        return err->code;
    const char *sets[MAX_SETS + 8];
    int n = 0;
    char dur[64], clients[64], volumes[64], gib[64];
    snprintf(dur, sizeof dur, "sim.duration_s=%.17g", duration);
    sets[n++] = dur;
    sets[n++] = "sim.warmup_s=0";
    sets[n++] = "sim.replications=1";
    if (!o->own_clients) {
        /* one image per client: volumes_per_client x client hosts images */
        int hosts = o->clients < MAX_CLIENT_HOSTS ? o->clients : MAX_CLIENT_HOSTS;
        snprintf(clients, sizeof clients, "cluster.client_hosts=%d", hosts);
        snprintf(volumes, sizeof volumes, "clients.volumes_per_client=%d", (o->clients + hosts - 1) / hosts);
        sets[n++] = "ceph.rbd_io_scheduler=none";
        sets[n++] = clients;
        sets[n++] = volumes;
    }
    if (o->image_gib > 0) {
        snprintf(gib, sizeof gib, "image.size_gib=%.17g", o->image_gib);
        sets[n++] = gib;
    }
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
    double setup0 = wallclock_s(), setup_c0 = cpu_s();
    struct cluster *c = cluster_create(&spec, err);
    r->setup_s = wallclock_s() - setup0;
    r->setup_cpu_s = cpu_s() - setup_c0;
    if (!c) {
        scenario_free(&sc);
        return err->code ? err->code : -EINVAL;
    }
    uint64_t ev0 = sim_events(cluster_sim(c));
    double t0 = wallclock_s(), c0 = cpu_s();
    cluster_run(c, NULL, NULL);
    r->wall_s = wallclock_s() - t0;
    r->cpu_s = cpu_s() - c0;
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
    r->scale = sc.reduction.on ? sc.reduction.scale : 1;
    cluster_destroy(c);
    scenario_free(&sc);
    return 0;
}

static void print_result(const struct bench_result *r)
{
    printf("%6.3f %9.0f %9.0f %8.3f %8.3f %10.0f %10.0f %10.0f %6.1f %10.0f %10.0f %8.0f %7.0f %7.3f %7.3f %8ld %8ld %6.2f\n",
           r->sim_s, r->ops, r->ops / r->sim_s, r->wall_s, r->cpu_s, r->ops / r->wall_s, r->ops / r->cpu_s,
           r->events, r->ops ? r->events / r->ops : 0, r->events / r->wall_s, r->events / r->cpu_s,
           r->peak_in_flight, r->pending, r->setup_s, r->setup_cpu_s, r->hwm_kb, r->rss_kb, r->scale);
}

static void usage(FILE *f)
{
    fprintf(f, "usage: cluster_bench [-d D1,D2,...] [-c CLIENTS] [-q IODEPTH] [-s SCENARIO] [-k] [-g GIB]\n"
               "                     [--set path=value]...\n"
               "  -d  simulated seconds per point (default 1,4)\n"
               "  -c  fio client sections, each its own librbd client and image (default 4, at most %d;\n"
               "      spread over at most %d client hosts)\n"
               "  -q  iodepth per client (default 128)\n"
               "  -s  scenario file (default scenarios/qd1-latency.json)\n"
               "  -k  keep the scenario's own clients (-c and -q ignored)\n"
               "  -g  each image's size in GiB (default: the scenario's)\n",
            MAX_CLIENTS, MAX_CLIENT_HOSTS);
}

int main(int argc, char **argv)
{
    struct bench_opts o = {.scenario = "scenarios/qd1-latency.json", .clients = 4, .iodepth = 128,
                           .durations = {1, 4}, .n_durations = 2};
    static const struct option longopts[] = {{"set", required_argument, NULL, 'S'},
                                             {"help", no_argument, NULL, 'h'},
                                             {NULL, 0, NULL, 0}};
    int ch;
    while ((ch = getopt_long(argc, argv, "d:c:q:s:kg:h", longopts, NULL)) != -1) {
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
        case 'k': o.own_clients = true; break;
        case 'g':
            o.image_gib = strtod(optarg, NULL);
            if (o.image_gib <= 0) {
                fprintf(stderr, "cluster_bench: -g %s: the image size must be > 0 GiB\n", optarg);
                return 2;
            }
            break;
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
    if (optind < argc || o.clients < 1 || o.clients > MAX_CLIENTS || o.iodepth < 1 || o.n_durations < 1) {
        usage(stderr);
        return 2;
    }
    if (o.own_clients)
        printf("cluster_bench: %s, its own clients\n", o.scenario);
    else
        printf("cluster_bench: %s, %d clients x iodepth %d, 4k randwrite, %d client ops in flight\n", o.scenario,
               o.clients, o.iodepth, o.clients * o.iodepth);
    printf("%6s %9s %9s %8s %8s %10s %10s %10s %6s %10s %10s %8s %7s %7s %7s %8s %8s %6s\n", "sim_s", "ops", "sim_iops",
           "wall_s", "cpu_s", "ops/wall_s", "ops/cpu_s", "events", "ev/op", "ev/wall_s", "ev/cpu_s", "peak_ops",
           "pending", "setup_s", "set_cpu", "hwm_kB", "rss_kB", "scale");
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
