/*
 * sweep.c - sweeps: planning, workers, the single database writer, resume
 * (see sweep.h).
 *
 * Shape of the parallelism: SQLite's testrunner (one coordinator handing
 * jobs to forked workers and recording their results in testrunner.db) and
 * cimba's trial arrays (independent replications seeded by fmix64).  The
 * coordinator is the only process that opens the database; a worker is a
 * forked child reading task lines from a pipe and answering result lines.
 * Durability: runs are committed in batches (at most --batch runs or
 * --commit-interval seconds apart); a crash loses only uncommitted runs, which
 * the next invocation redoes because they have no row.
 */
#include "sweep.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "db.h"
#include "files.h"
#include "grid.h"
#include "runner.h"
#include "scenario.h"
#include "sim.h"
#include "wallclock.h"

struct sweep_point {
    const struct grid_point *gp;
    struct grid_resolved res;
    char *sets_json;
    cJSON *axes;
    int remaining;  /* runs not done yet */
    bool duplicate; /* same id as an earlier point of the grid: shares its runs */
};

struct sweep_task {
    int point; /* index in pts */
    int replication;
};

struct sweep {
    struct sweep_opts o;
    struct grid g;
    struct db *db;
    int64_t sweep_id;
    int n_pts;
    struct sweep_point *pts;
    int n_tasks;
    struct sweep_task *tasks;
    int total_runs, already_done, points_unique, points_done;
    int done_now, failed_now;
    double t0, t_end;
    char what[64];
    bool interrupted;
};

/* ---- arguments ------------------------------------------------------------ */

static void sweep_usage(FILE *f)
{
    fprintf(f,
            "usage: cephsim sweep GRID --db FILE [options]\n"
            "       cephsim sweep SCENARIO --cbt CBT.yaml --db FILE [options]\n"
            "  run every point x replication of the grid GRID (JSON, see explorer/README.md),\n"
            "  recording results in the SQLite database FILE; rerun the same command to resume\n"
            "\n"
            "      --cbt CBT.yaml       cbt's benchmark file (its benchmarks: librbdfio: runs) as the grid,\n"
            "                           on SCENARIO; says what it ignores and why\n"
            "  -d, --db FILE            result database (created if missing)\n"
            "  -j, --jobs N             worker processes (default: the number of cores)\n"
            "  -s, --shard K/N          run only the K-th of N deterministic slices (K = 1..N);\n"
            "                           merge the shard databases with `cephsim merge`\n"
            "      --mpi                under mpirun: rank 0 writes, the other ranks run (cephsim-mpi)\n"
            "  -n, --dry-run            list the points and what is done; run nothing\n"
            "  -q, --no-progress        no progress line on stderr (it is shown on terminals)\n"
            "      --quiet              no progress and no summary line\n"
            "  -b, --batch N            runs per transaction at most (default 64)\n"
            "      --commit-interval S  commit finished runs at least every S seconds (default 0.25)\n"
            "  -h, --help               this text\n");
}

int sweep_parse_args(int argc, char **argv, struct sweep_opts *o)
{
    static const struct option opts[] = {
        {"db", required_argument, NULL, 'd'},      {"jobs", required_argument, NULL, 'j'},
        {"shard", required_argument, NULL, 's'},   {"mpi", no_argument, NULL, 'M'},
        {"dry-run", no_argument, NULL, 'n'},       {"no-progress", no_argument, NULL, 'q'},
        {"quiet", no_argument, NULL, 'Q'},         {"batch", required_argument, NULL, 'b'},
        {"commit-interval", required_argument, NULL, 'C'}, {"help", no_argument, NULL, 'h'},
        {"cbt", required_argument, NULL, 'Y'},
        {0}};
    memset(o, 0, sizeof *o);
    o->progress = isatty(STDERR_FILENO);
    o->batch = 64;
    o->commit_s = 0.25;
    int c;
    char *end;
    optind = 0;
    while ((c = getopt_long(argc, argv, "d:j:s:nqb:h", opts, NULL)) != -1) {
        switch (c) {
        case 'd': o->db_path = optarg; break;
        case 'j':
            o->jobs = (int)strtol(optarg, &end, 10);
            if (*end || o->jobs < 1 || o->jobs > 4096) {
                fprintf(stderr, "cephsim sweep: --jobs %s: expected 1..4096\n", optarg);
                return 2;
            }
            break;
        case 's': {
            /* %n: nothing may follow N ("1/2x", "1/2/3" are not K/N) */
            int used = -1;
            if (sscanf(optarg, "%d/%d%n", &o->shard_k, &o->shard_n, &used) != 2 || optarg[used] != '\0' ||
                o->shard_n < 1 || o->shard_k < 1 || o->shard_k > o->shard_n) {
                fprintf(stderr, "cephsim sweep: --shard %s: expected K/N with 1 <= K <= N (shards are numbered 1..N)\n",
                        optarg);
                return 2;
            }
            break;
        }
        case 'M': o->mpi = true; break;
        case 'Y': o->cbt_path = optarg; break;
        case 'n': o->dry_run = true; break;
        case 'q': o->progress = false; break;
        case 'Q': o->progress = false; o->quiet = true; break;
        case 'b':
            o->batch = (int)strtol(optarg, &end, 10);
            if (*end || o->batch < 1) {
                fprintf(stderr, "cephsim sweep: --batch %s: expected a positive number\n", optarg);
                return 2;
            }
            break;
        case 'C':
            o->commit_s = strtod(optarg, &end);
            if (*end || !(o->commit_s >= 0)) {
                fprintf(stderr, "cephsim sweep: --commit-interval %s: expected seconds >= 0\n", optarg);
                return 2;
            }
            break;
        case 'h': sweep_usage(stdout); return 1;
        default: fprintf(stderr, "try 'cephsim sweep --help'\n"); return 2;
        }
    }
    if (optind + 1 != argc || !o->db_path) {
        fprintf(stderr, "cephsim sweep: %s (try 'cephsim sweep --help')\n",
                optind + 1 > argc ? (o->cbt_path ? "give the scenario the cbt file runs on" : "give a grid file") : optind + 1 < argc ? "one grid at a time" : "--db FILE is required");
        return 2;
    }
    o->grid_path = argv[optind];
    if (o->jobs == 0) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        o->jobs = n > 0 ? (int)n : 1;
    }
    return 0;
}

/* ---- planning ------------------------------------------------------------- */

static int cmp_point_ids(const void *a, const void *b, void *arg)
{
    const struct sweep_point *pts = arg;
    int x = *(const int *)a, y = *(const int *)b;
    int c = strcmp(pts[x].res.id, pts[y].res.id);
    return c ? c : (x > y) - (x < y);
}

static void mark_duplicates(struct sweep *sw)
{
    int *ix = sim_xcalloc((size_t)sw->n_pts + 1, sizeof *ix);
    for (int i = 0; i < sw->n_pts; i++)
        ix[i] = i;
    qsort_r(ix, (size_t)sw->n_pts, sizeof *ix, cmp_point_ids, sw->pts);
    for (int i = 1; i < sw->n_pts; i++)
        if (!strcmp(sw->pts[ix[i]].res.id, sw->pts[ix[i - 1]].res.id))
            sw->pts[ix[i]].duplicate = true;
    free(ix);
}

static int cmp_shard_order(const void *a, const void *b)
{
    uint64_t x = sim_fmix64((uint64_t)*(const int *)a + 1), y = sim_fmix64((uint64_t)*(const int *)b + 1);
    return (x > y) - (x < y);
}

/*
 * Shard K of N: the points at positions K-1, K-1+N, ... of the expansion
 * indices sorted by fmix64(index + 1).  Deterministic, disjoint, covering,
 * sizes within one, and unrelated to the axes (index mod N would give one
 * shard every iodepth-128 point of a grid whose later axes multiply to N).
 */
static bool *shard_members(const struct sweep *sw)
{
    int n = sw->g.n_points;
    bool *in = sim_xcalloc((size_t)n + 1, sizeof *in);
    int *order = sim_xcalloc((size_t)n + 1, sizeof *order);
    for (int i = 0; i < n; i++)
        order[i] = i;
    qsort(order, (size_t)n, sizeof *order, cmp_shard_order);
    for (int pos = sw->o.shard_k - 1; pos < n; pos += sw->o.shard_n)
        in[order[pos]] = true;
    free(order);
    return in;
}

static int resolve_points(struct sweep *sw, struct sim_err *err)
{
    const struct grid *g = &sw->g;
    bool *in = sw->o.shard_n > 0 ? shard_members(sw) : NULL;
    sw->pts = sim_xcalloc((size_t)g->n_points + 1, sizeof *sw->pts);
    for (int i = 0; i < g->n_points; i++) {
        const struct grid_point *gp = &g->points[i];
        if (in && !in[gp->index])
            continue;
        struct sweep_point *p = &sw->pts[sw->n_pts];
        int rc = grid_point_resolve(g, gp, &p->res, err);
        if (rc < 0) {
            free(in);
            return rc;
        }
        sw->n_pts++;
        p->gp = gp;
        p->axes = grid_point_axes_json(g, gp);
        int n;
        const char **sets = grid_point_sets(g, gp, &n);
        cJSON *arr = cJSON_CreateStringArray(sets, n);
        p->sets_json = cJSON_PrintUnformatted(arr);
        cJSON_Delete(arr);
        free(sets);
    }
    free(in);
    mark_duplicates(sw);
    return 0;
}

static int register_sweep(struct sweep *sw, struct sim_err *err)
{
    const struct grid *g = &sw->g;
    const char **axes = sim_xcalloc((size_t)g->n_axes + 1, sizeof *axes);
    for (int i = 0; i < g->n_axes; i++)
        axes[i] = g->axes[i].name;
    struct db_point *dp = sim_xcalloc((size_t)sw->n_pts + 1, sizeof *dp);
    int *idx = sim_xcalloc((size_t)sw->n_pts + 1, sizeof *idx);
    int n = 0;
    for (int i = 0; i < sw->n_pts; i++) {
        const struct sweep_point *p = &sw->pts[i];
        if (p->duplicate)
            continue;
        dp[n] = (struct db_point){.point_id = p->res.id, .seed = p->res.seed, .replications = p->res.replications,
                                  .base = g->base, .sets_json = p->sets_json, .params_json = p->res.params_json,
                                  .axes = p->axes};
        idx[n++] = p->gp->index;
    }
    char *grid_json = cJSON_PrintUnformatted(g->json);
    int rc = db_begin(sw->db, err);
    if (rc == 0) {
        if ((rc = db_add_sweep(sw->db, g->name, grid_json, axes, g->n_axes, g->replications, &sw->sweep_id, err)) < 0 ||
            (rc = db_add_points(sw->db, sw->sweep_id, axes, g->n_axes, dp, idx, n, err)) < 0)
            db_rollback(sw->db);
        else
            rc = db_commit(sw->db, err);
    }
    if (rc == 0)
        rc = db_update_views(sw->db, err);
    for (int i = 0; i < sw->n_pts; i++) { /* in the database now; workers load their own */
        free(sw->pts[i].res.params_json);
        sw->pts[i].res.params_json = NULL;
    }
    free(grid_json);
    free(dp);
    free(idx);
    free(axes);
    return rc;
}

static int plan_tasks(struct sweep *sw, struct sim_err *err)
{
    int cap = 0;
    for (int i = 0; i < sw->n_pts; i++)
        if (!sw->pts[i].duplicate)
            cap += sw->pts[i].res.replications;
    sw->tasks = sim_xcalloc((size_t)cap + 1, sizeof *sw->tasks);
    for (int i = 0; i < sw->n_pts; i++) {
        struct sweep_point *p = &sw->pts[i];
        if (p->duplicate)
            continue;
        sw->points_unique++;
        for (int r = 0; r < p->res.replications; r++) {
            int d = db_run_done(sw->db, p->res.id, r);
            if (d < 0)
                return sim_errf(err, d, "%s: cannot read runs", sw->o.db_path);
            sw->total_runs++;
            if (d) {
                sw->already_done++;
                continue;
            }
            p->remaining++;
            sw->tasks[sw->n_tasks++] = (struct sweep_task){.point = i, .replication = r};
        }
        if (p->remaining == 0)
            sw->points_done++;
    }
    return 0;
}

static void sweep_free(struct sweep *sw)
{
    for (int i = 0; i < sw->n_pts; i++) {
        grid_resolved_free(&sw->pts[i].res);
        free(sw->pts[i].sets_json);
        cJSON_Delete(sw->pts[i].axes);
    }
    free(sw->pts);
    free(sw->tasks);
    db_close(sw->db);
    grid_free(&sw->g);
    free(sw);
}

int sweep_prepare(const struct sweep_opts *o, struct sweep **out, struct sim_err *err)
{
    struct sweep *sw = sim_xcalloc(1, sizeof *sw);
    int rc;
    sw->o = *o;
    *out = NULL;
    rc = o->cbt_path ? grid_load_cbt(&sw->g, o->cbt_path, o->grid_path, err) : grid_load(&sw->g, o->grid_path, NULL, err);
    if (rc < 0) {
        free(sw);
        return rc;
    }
    for (int i = 0; i < sw->g.n_notes && !o->quiet; i++)
        fprintf(stderr, "cephsim sweep: %s: %s\n", o->cbt_path, sw->g.notes[i]);
    for (int i = 0; i < sw->g.n_axes; i++)
        if (db_reserved_name(sw->g.axes[i].name)) {
            rc = sim_errf(err, -EINVAL, "%s: axes.%s: the name of a database column; rename the axis", o->grid_path,
                          sw->g.axes[i].name);
            goto fail;
        }
    if ((rc = grid_validate(&sw->g, err)) < 0 || (rc = resolve_points(sw, err)) < 0)
        goto fail;
    if (o->dry_run) {
        /* a dry run writes nothing: the plan is made in memory, from a copy of
           what the database (if there is one) already holds */
        if ((rc = db_open(":memory:", &sw->db, err)) < 0)
            goto fail;
        if (access(o->db_path, F_OK) == 0 && (rc = db_merge(sw->db, o->db_path, NULL, err)) < 0)
            goto fail;
    } else if ((rc = db_open(o->db_path, &sw->db, err)) < 0) {
        goto fail;
    }
    if ((rc = register_sweep(sw, err)) < 0 || (rc = plan_tasks(sw, err)) < 0)
        goto fail;
    *out = sw;
    return 0;
fail:
    sweep_free(sw);
    return rc;
}

int sweep_todo(const struct sweep *sw)
{
    return sw->n_tasks;
}

void sweep_print_plan(const struct sweep *sw)
{
    printf("%s: %d point%s%s, %d runs, %d done, %d to do\n", sw->g.name, sw->points_unique,
           sw->points_unique == 1 ? "" : "s", sw->o.shard_n ? " in this shard" : "", sw->total_runs,
           sw->already_done, sw->n_tasks);
    for (int i = 0; i < sw->n_pts; i++) {
        const struct sweep_point *p = &sw->pts[i];
        char label[1024];
        grid_point_label(&sw->g, p->gp, label, sizeof label);
        printf("%6d %s %d/%d %s%s\n", p->gp->index, p->res.id, p->res.replications - p->remaining,
               p->res.replications, label, p->duplicate ? " (same point as an earlier one)" : "");
    }
}

/* ---- the worker side ------------------------------------------------------ */

char *sweep_task_run(const char *task_line)
{
    cJSON *t = cJSON_Parse(task_line);
    cJSON *r = cJSON_CreateObject();
    char host[128] = "?", worker[200], error[600] = "";
    gethostname(host, sizeof host - 1);
    snprintf(worker, sizeof worker, "%s:%ld", host, (long)getpid());
    const cJSON *task = cJSON_GetObjectItemCaseSensitive(t, "task");
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(t, "point_id");
    const cJSON *rep = cJSON_GetObjectItemCaseSensitive(t, "replication");
    const cJSON *seed = cJSON_GetObjectItemCaseSensitive(t, "seed");
    const cJSON *base = cJSON_GetObjectItemCaseSensitive(t, "base");
    const cJSON *sets = cJSON_GetObjectItemCaseSensitive(t, "sets");
    cJSON_AddNumberToObject(r, "task", cJSON_IsNumber(task) ? task->valuedouble : -1);
    cJSON_AddStringToObject(r, "point_id", cJSON_IsString(id) ? id->valuestring : "");
    cJSON_AddNumberToObject(r, "replication", cJSON_IsNumber(rep) ? rep->valuedouble : -1);
    cJSON_AddNumberToObject(r, "seed", cJSON_IsNumber(seed) ? seed->valuedouble : 0);
    cJSON_AddStringToObject(r, "worker", worker);
    if (!cJSON_IsNumber(task) || !cJSON_IsString(id) || !cJSON_IsNumber(rep) || !cJSON_IsNumber(seed) ||
        !cJSON_IsString(base) || !cJSON_IsArray(sets)) {
        snprintf(error, sizeof error, "malformed task line");
        goto out;
    }
    int n = cJSON_GetArraySize(sets), k = 0;
    const char **sv = sim_xcalloc((size_t)n + 1, sizeof *sv);
    const cJSON *s;
    cJSON_ArrayForEach(s, sets) sv[k++] = cJSON_IsString(s) ? s->valuestring : "";
    struct scenario sc;
    struct sim_err e = {0};
    if (scenario_load(&sc, base->valuestring, NULL, NULL, sv, n, &e) < 0) {
        snprintf(error, sizeof error, "%s", e.msg);
        free(sv);
        goto out;
    }
    free(sv);
    char got[GRID_ID_LEN + 1];
    grid_scenario_id(&sc, got);
    if (strcmp(got, id->valuestring)) {
        snprintf(error, sizeof error, "this worker resolves the point to %s, not %s (different hw-profiles, "
                 "scenario files or cephsim version?)", got, id->valuestring);
        scenario_free(&sc);
        goto out;
    }
    sc.sim.seed = (int64_t)seed->valuedouble;
    sc.sim.replications = 1;
    struct run_summary sum;
    if (runner_run(&sc, NULL, false, &sum, &e) < 0) {
        snprintf(error, sizeof error, "%s", e.msg[0] ? e.msg : "run failed");
    } else {
        cJSON_AddNumberToObject(r, "wall_s", sum.wall_s);
        cJSON_AddNumberToObject(r, "events", sum.events);
        cJSON_AddItemToObject(r, "summary", runner_summary_json(&sum));
    }
    scenario_free(&sc);
out:
    cJSON_AddBoolToObject(r, "ok", error[0] == '\0');
    if (error[0])
        cJSON_AddStringToObject(r, "error", error);
    char *line = cJSON_PrintUnformatted(r);
    cJSON_Delete(r);
    cJSON_Delete(t);
    SIM_ASSERT(line);
    return line;
}

/* ---- the fork transport --------------------------------------------------- */

struct linebuf {
    char *s;
    size_t len, cap;
};

struct fork_transport {
    struct sweep_transport t;
    char what[64];
    pid_t *pid;
    int *to, *from; /* task pipe write end, result pipe read end (-1: dead) */
    int *errfd;     /* the worker's stderr, a memfd the coordinator reads when it dies (-1: none) */
    struct linebuf *buf;
};

static int write_all(int fd, const char *s, size_t n)
{
    while (n > 0) {
        ssize_t k = write(fd, s, n);
        if (k < 0) {
            if (errno == EINTR)
                continue;
            return -errno;
        }
        s += k;
        n -= (size_t)k;
    }
    return 0;
}

static _Noreturn void worker_main(int in_fd, int out_fd)
{
    FILE *in = fdopen(in_fd, "r");
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    while (in && (n = getline(&line, &cap, in)) > 0) {
        if (line[n - 1] == '\n')
            line[n - 1] = '\0';
        char *res = sweep_task_run(line);
        size_t len = strlen(res);
        res[len] = '\n'; /* the terminator's byte is ours: write the line and its newline at once */
        int rc = write_all(out_fd, res, len + 1);
        free(res);
        if (rc < 0)
            _exit(1);
    }
    _exit(0);
}

static int spawn_worker(struct fork_transport *f, int w)
{
    int tp[2], rp[2];
    if (f->errfd[w] >= 0)
        close(f->errfd[w]);
    /* a file, not a pipe: a worker that dies mid-sentence never blocks on a full pipe, and what it
       said last (an assertion, a sanitizer report) is still there to read once it is gone */
    f->errfd[w] = memfd_create("cephsim-worker-stderr", MFD_CLOEXEC);
    if (pipe2(tp, O_CLOEXEC) < 0)
        return -errno;
    if (pipe2(rp, O_CLOEXEC) < 0) {
        int e = -errno;
        close(tp[0]);
        close(tp[1]);
        return e;
    }
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) {
        int e = -errno;
        close(tp[0]), close(tp[1]), close(rp[0]), close(rp[1]);
        return e;
    }
    if (pid == 0) {
        sigset_t s;
        sigemptyset(&s);
        sigaddset(&s, SIGINT), sigaddset(&s, SIGTERM), sigaddset(&s, SIGHUP), sigaddset(&s, SIGPIPE);
        sigprocmask(SIG_UNBLOCK, &s, NULL);
        signal(SIGPIPE, SIG_DFL);
        for (int k = 0; k < f->t.n_workers; k++) {
            if (f->to[k] >= 0)
                close(f->to[k]);
            if (f->from[k] >= 0)
                close(f->from[k]);
        }
        close(tp[1]);
        close(rp[0]);
        if (f->errfd[w] >= 0)
            dup2(f->errfd[w], STDERR_FILENO);
        worker_main(tp[0], rp[1]);
    }
    close(tp[0]);
    close(rp[1]);
    f->pid[w] = pid;
    f->to[w] = tp[1];
    f->from[w] = rp[0];
    f->buf[w].len = 0;
    return 0;
}

static int fork_send(void *ctx, int w, const char *line)
{
    struct fork_transport *f = ctx;
    if (f->to[w] < 0)
        return -EPIPE;
    size_t n = strlen(line);
    char *s = sim_xcalloc(n + 2, 1);
    memcpy(s, line, n);
    s[n] = '\n';
    int rc = write_all(f->to[w], s, n + 1);
    free(s);
    return rc;
}

/* A complete line from worker w's buffer, or NULL. */
static char *take_line(struct linebuf *b)
{
    char *nl = b->len ? memchr(b->s, '\n', b->len) : NULL;
    if (!nl)
        return NULL;
    size_t n = (size_t)(nl - b->s);
    char *line = sim_xcalloc(n + 1, 1);
    memcpy(line, b->s, n);
    memmove(b->s, nl + 1, b->len - n - 1);
    b->len -= n + 1;
    return line;
}

/*
 * The last non-empty line worker w wrote to its stderr (at most n-1 bytes, its
 * end kept), "" if none; a copy of all of it goes to the coordinator's stderr,
 * where it would have gone without the memfd.
 */
static void last_words(struct fork_transport *f, int w, char *out, size_t n)
{
    out[0] = '\0';
    if (f->errfd[w] < 0 || n < 2)
        return;
    off_t len = lseek(f->errfd[w], 0, SEEK_END);
    if (len <= 0)
        return;
    size_t keep = len > 65536 ? 65536 : (size_t)len;
    char *b = sim_xcalloc(keep + 1, 1);
    ssize_t got = pread(f->errfd[w], b, keep, len - (off_t)keep);
    if (got > 0) {
        fwrite(b, 1, (size_t)got, stderr);
        size_t e = (size_t)got;
        while (e > 0 && (b[e - 1] == '\n' || b[e - 1] == '\r' || b[e - 1] == ' '))
            e--;
        size_t st = e;
        while (st > 0 && b[st - 1] != '\n')
            st--;
        if (e - st > n - 1)
            st = e - (n - 1);
        for (size_t i = st; i < e; i++) /* one line for the database and the messages */
            if ((unsigned char)b[i] < 0x20)
                b[i] = ' ';
        memcpy(out, b + st, e - st);
        out[e - st] = '\0';
    }
    free(b);
}

/* Close worker w's pipes and wait for it; returns the signal that killed it, or 0.
   why: how it ended and the last line it wrote to stderr (its assertion or error). */
static int reap(struct fork_transport *f, int w, char *why, size_t n)
{
    int st = 0, sig = 0;
    close(f->from[w]);
    close(f->to[w]);
    f->from[w] = f->to[w] = -1;
    if (f->pid[w] > 0 && waitpid(f->pid[w], &st, 0) == f->pid[w]) {
        if (WIFSIGNALED(st)) {
            sig = WTERMSIG(st);
            snprintf(why, n, "worker %ld killed by signal %d (%s)", (long)f->pid[w], sig, strsignal(sig));
        } else {
            snprintf(why, n, "worker %ld exited with status %d", (long)f->pid[w], WEXITSTATUS(st));
        }
    } else {
        snprintf(why, n, "worker %ld vanished", (long)f->pid[w]);
    }
    char said[300];
    last_words(f, w, said, sizeof said);
    if (f->errfd[w] >= 0)
        close(f->errfd[w]);
    f->errfd[w] = -1;
    size_t k = strlen(why);
    if (said[0] && k + 3 < n)
        snprintf(why + k, n - k, ": %s", said);
    f->pid[w] = -1;
    return sig;
}

static int fork_recv(void *ctx, int stop_fd, int *w, char **line, double timeout_s)
{
    struct fork_transport *f = ctx;
    int n = f->t.n_workers;
    for (int k = 0; k < n; k++)
        if ((*line = take_line(&f->buf[k]))) {
            *w = k;
            return 1;
        }
    struct pollfd *pf = sim_xcalloc((size_t)n + 1, sizeof *pf);
    for (int k = 0; k < n; k++)
        pf[k] = (struct pollfd){.fd = f->from[k], .events = POLLIN};
    pf[n] = (struct pollfd){.fd = stop_fd, .events = POLLIN};
    int rc = poll(pf, (nfds_t)n + 1, (int)ceil(timeout_s * 1000));
    if (rc < 0) {
        rc = errno == EINTR ? 0 : -errno;
        goto out;
    }
    if (rc == 0)
        goto out;
    if (pf[n].revents) {
        rc = -EINTR;
        goto out;
    }
    rc = 0;
    for (int k = 0; k < n && rc == 0; k++) {
        if (!pf[k].revents)
            continue;
        struct linebuf *b = &f->buf[k];
        if (b->cap - b->len < 65536) {
            b->cap = b->cap * 2 + 65536;
            b->s = sim_xrealloc(b->s, b->cap, 1);
        }
        ssize_t got = read(f->from[k], b->s + b->len, b->cap - b->len);
        if (got > 0) {
            b->len += (size_t)got;
            if ((*line = take_line(b))) {
                *w = k;
                rc = 1;
            }
        } else if (got == 0 || (errno != EINTR && errno != EAGAIN)) {
            int sig = reap(f, k, f->t.death, sizeof f->t.death);
            *w = k;
            *line = NULL;
            /* killed like its parent would be by ^C or kill: an interruption, not a failed run */
            rc = sig == SIGINT || sig == SIGTERM || sig == SIGHUP ? -EINTR : 1;
        }
    }
out:
    free(pf);
    return rc;
}

static int fork_revive(void *ctx, int w)
{
    return spawn_worker(ctx, w);
}

int sweep_fork_transport_open(int n, struct sweep_transport **out, struct sim_err *err)
{
    struct fork_transport *f = sim_xcalloc(1, sizeof *f);
    f->t.ctx = f;
    f->t.n_workers = n;
    f->t.send = fork_send;
    f->t.recv = fork_recv;
    f->t.revive = fork_revive;
    snprintf(f->what, sizeof f->what, "%d local worker%s", n, n == 1 ? "" : "s");
    f->t.what = f->what;
    f->pid = sim_xcalloc((size_t)n, sizeof *f->pid);
    f->to = sim_xcalloc((size_t)n, sizeof *f->to);
    f->from = sim_xcalloc((size_t)n, sizeof *f->from);
    f->errfd = sim_xcalloc((size_t)n, sizeof *f->errfd);
    f->buf = sim_xcalloc((size_t)n, sizeof *f->buf);
    for (int k = 0; k < n; k++)
        f->to[k] = f->from[k] = f->pid[k] = f->errfd[k] = -1;
    for (int k = 0; k < n; k++) {
        int rc = spawn_worker(f, k);
        if (rc < 0) {
            sweep_fork_transport_close(&f->t, true);
            return sim_errf(err, rc, "cannot start worker %d: %s", k, strerror(-rc));
        }
    }
    *out = &f->t;
    return 0;
}

void sweep_fork_transport_close(struct sweep_transport *t, bool kill_workers)
{
    struct fork_transport *f = t->ctx;
    for (int k = 0; k < t->n_workers; k++) {
        if (f->to[k] >= 0)
            close(f->to[k]); /* EOF: an idle worker exits */
        f->to[k] = -1;
        if (kill_workers && f->pid[k] > 0)
            kill(f->pid[k], SIGTERM);
    }
    for (int k = 0; k < t->n_workers; k++) {
        if (f->from[k] >= 0)
            close(f->from[k]);
        if (f->pid[k] > 0)
            waitpid(f->pid[k], NULL, 0);
        if (f->errfd[k] >= 0) {
            char said[300];
            last_words(f, k, said, sizeof said); /* what it said stays visible */
            close(f->errfd[k]);
        }
        free(f->buf[k].s);
    }
    free(f->pid);
    free(f->to);
    free(f->from);
    free(f->errfd);
    free(f->buf);
    free(f);
}

/* ---- the coordinator: dispatch and the single writer ---------------------- */

struct pending {
    int task;
    cJSON *res;        /* the worker's result line, parsed (NULL: failed without one) */
    bool ok;           /* the run is done: res says ok and has a summary */
    char error[700];   /* when res is NULL or does not match the task */
};

char *sweep_task_line(int task, const char *point_id, int replication, int64_t seed, const char *base,
                      const char *const *sets, int n_sets)
{
    cJSON *j = cJSON_CreateObject();
    cJSON_AddNumberToObject(j, "task", task);
    cJSON_AddStringToObject(j, "point_id", point_id);
    cJSON_AddNumberToObject(j, "replication", replication);
    cJSON_AddNumberToObject(j, "seed", (double)seed);
    cJSON_AddStringToObject(j, "base", base);
    cJSON *arr = cJSON_AddArrayToObject(j, "sets");
    for (int i = 0; i < n_sets; i++)
        cJSON_AddItemToArray(arr, cJSON_CreateString(sets[i]));
    char *s = cJSON_PrintUnformatted(j);
    cJSON_Delete(j);
    SIM_ASSERT(s);
    return s;
}

static char *task_line(const struct sweep *sw, int k)
{
    const struct sweep_task *t = &sw->tasks[k];
    const struct sweep_point *p = &sw->pts[t->point];
    int n;
    const char **sets = grid_point_sets(&sw->g, p->gp, &n);
    char *s = sweep_task_line(k, p->res.id, t->replication, grid_replication_seed(p->res.seed, t->replication),
                              sw->g.base, sets, n);
    free(sets);
    return s;
}

/* Send a task line to worker w, restarting the worker once if it has died. */
static int send_revive(struct sweep_transport *t, int w, const char *line)
{
    int s = t->send(t->ctx, w, line);
    if (s < 0 && t->revive && t->revive(t->ctx, w) == 0)
        s = t->send(t->ctx, w, line);
    return s;
}

int sweep_run_lines(struct sweep_transport *t, char *const *tasks, int n, char **results, struct sim_err *err)
{
    int nw = t->n_workers, next = 0, finished = 0, rc = 0;
    int *inflight = sim_xcalloc((size_t)nw, sizeof *inflight);
    bool *alive = sim_xcalloc((size_t)nw, sizeof *alive);
    for (int w = 0; w < nw; w++)
        inflight[w] = -1, alive[w] = true;
    for (int i = 0; i < n; i++)
        results[i] = NULL;
    while (finished < n && rc == 0) {
        int busy = 0;
        for (int w = 0; w < nw; w++) {
            if (alive[w] && inflight[w] < 0 && next < n) {
                if (send_revive(t, w, tasks[next]) < 0)
                    alive[w] = false;
                else
                    inflight[w] = next++;
            }
            busy += inflight[w] >= 0;
        }
        if (busy == 0) {
            rc = sim_errf(err, -ECHILD, "no worker left%s%s", t->death[0] ? ": " : "", t->death);
            break;
        }
        int w = -1;
        char *line = NULL;
        int r = t->recv(t->ctx, -1, &w, &line, 1.0);
        if (r < 0) {
            rc = sim_errf(err, r, "waiting for workers: %s", strerror(-r));
        } else if (r == 1) {
            if (inflight[w] >= 0) {
                results[inflight[w]] = line;
                finished++;
            } else {
                free(line);
            }
            inflight[w] = -1;
            if (!line && (!t->revive || t->revive(t->ctx, w) < 0))
                alive[w] = false;
        }
    }
    free(inflight);
    free(alive);
    return rc;
}

/* Check a result line against the task it answers. */
static void take_result(const struct sweep *sw, int k, char *line, struct pending *pd)
{
    const struct sweep_task *t = &sw->tasks[k];
    pd->task = k;
    pd->error[0] = '\0';
    pd->res = cJSON_Parse(line);
    const cJSON *task = cJSON_GetObjectItemCaseSensitive(pd->res, "task");
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(pd->res, "point_id");
    const cJSON *rep = cJSON_GetObjectItemCaseSensitive(pd->res, "replication");
    if (!cJSON_IsNumber(task) || task->valueint != k || !cJSON_IsString(id) ||
        strcmp(id->valuestring, sw->pts[t->point].res.id) || !cJSON_IsNumber(rep) || rep->valueint != t->replication) {
        snprintf(pd->error, sizeof pd->error, "a worker answered task %d with: %.200s", k, line);
        cJSON_Delete(pd->res);
        pd->res = NULL;
    }
    pd->ok = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(pd->res, "ok")) &&
             cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(pd->res, "summary"));
}

static int flush(struct sweep *sw, struct pending *pend, int *n_pend, struct sim_err *err)
{
    if (*n_pend == 0)
        return 0;
    int rc = db_begin(sw->db, err);
    for (int i = 0; i < *n_pend && rc == 0; i++) {
        const struct pending *pd = &pend[i];
        const struct sweep_task *t = &sw->tasks[pd->task];
        const struct sweep_point *p = &sw->pts[t->point];
        const cJSON *r = pd->res;
        const cJSON *e = cJSON_GetObjectItemCaseSensitive(r, "error");
        const cJSON *wall = cJSON_GetObjectItemCaseSensitive(r, "wall_s");
        const cJSON *ev = cJSON_GetObjectItemCaseSensitive(r, "events");
        const cJSON *wk = cJSON_GetObjectItemCaseSensitive(r, "worker");
        const cJSON *sum = cJSON_GetObjectItemCaseSensitive(r, "summary");
        struct db_run run = {.point_id = p->res.id, .replication = t->replication,
                             .seed = grid_replication_seed(p->res.seed, t->replication),
                             .ok = pd->ok,
                             .error = r ? (cJSON_IsString(e) ? e->valuestring : "no result") : pd->error,
                             .wall_s = cJSON_IsNumber(wall) ? wall->valuedouble : 0,
                             .events = cJSON_IsNumber(ev) ? ev->valuedouble : 0,
                             .worker = cJSON_IsString(wk) ? wk->valuestring : NULL, .summary = sum};
        rc = db_add_run(sw->db, &run, err);
    }
    if (rc == 0)
        rc = db_commit(sw->db, err);
    if (rc < 0) {
        db_rollback(sw->db);
        return rc;
    }
    for (int i = 0; i < *n_pend; i++) {
        struct pending *pd = &pend[i];
        struct sweep_point *p = &sw->pts[sw->tasks[pd->task].point];
        if (pd->ok) {
            sw->done_now++;
            if (--p->remaining == 0)
                sw->points_done++;
        } else {
            sw->failed_now++;
        }
        cJSON_Delete(pd->res);
        pd->res = NULL;
    }
    *n_pend = 0;
    return 0;
}

static void print_progress(const struct sweep *sw, int finished, bool last)
{
    double el = wallclock_s() - sw->t0;
    double rate = el > 0 ? finished / el : 0;
    double eta = rate > 0 ? (sw->n_tasks - finished) / rate : 0;
    int done = sw->already_done + sw->done_now;
    char etas[32];
    if (eta >= 6000)
        snprintf(etas, sizeof etas, "%dh:%02dm", (int)(eta / 3600), (int)fmod(eta / 60, 60));
    else
        snprintf(etas, sizeof etas, "%02dm:%02ds", (int)(eta / 60), (int)fmod(eta, 60));
    fprintf(stderr, "\rRuns: %d/%d (points %d/%d): [%.1f%%][%.1f runs/s][eta %s]%s  ", done, sw->total_runs,
            sw->points_done, sw->points_unique, sw->total_runs ? 100.0 * done / sw->total_runs : 100.0, rate, etas,
            sw->failed_now ? " failures!" : "");
    if (last)
        fputc('\n', stderr);
    fflush(stderr);
}

int sweep_execute(struct sweep *sw, struct sweep_transport *t, struct sim_err *err)
{
    int nw = t->n_workers, rc = 0, next = 0, finished = 0, n_pend = 0;
    int *inflight = sim_xcalloc((size_t)nw, sizeof *inflight);
    bool *alive = sim_xcalloc((size_t)nw, sizeof *alive);
    struct pending *pend = sim_xcalloc((size_t)sw->o.batch + (size_t)nw + 1, sizeof *pend);
    for (int w = 0; w < nw; w++)
        inflight[w] = -1, alive[w] = true;
    snprintf(sw->what, sizeof sw->what, "%s", t->what ? t->what : "workers");
    sigset_t stop, old;
    sigemptyset(&stop);
    sigaddset(&stop, SIGINT), sigaddset(&stop, SIGTERM), sigaddset(&stop, SIGHUP);
    sigprocmask(SIG_BLOCK, &stop, &old);
    int sfd = signalfd(-1, &stop, SFD_CLOEXEC | SFD_NONBLOCK);
    struct sigaction ign = {.sa_handler = SIG_IGN}, old_pipe;
    sigaction(SIGPIPE, &ign, &old_pipe);
    sw->t0 = wallclock_s();
    double last_commit = sw->t0, last_progress = 0;
    while (finished < sw->n_tasks) {
        int busy = 0;
        for (int w = 0; w < nw && rc == 0; w++) {
            if (alive[w] && inflight[w] < 0 && next < sw->n_tasks) {
                char *line = task_line(sw, next);
                int s = send_revive(t, w, line);
                free(line);
                if (s < 0)
                    alive[w] = false;
                else
                    inflight[w] = next++;
            }
            busy += inflight[w] >= 0;
        }
        if (busy == 0) {
            rc = sim_errf(err, -ECHILD, "no worker left to run %d runs%s%s", sw->n_tasks - finished,
                          t->death[0] ? ": " : "", t->death);
            break;
        }
        double wait = 0.25;
        if (n_pend > 0)
            wait = fmax(0, fmin(wait, last_commit + sw->o.commit_s - wallclock_s()));
        int w = -1;
        char *line = NULL;
        int r = t->recv(t->ctx, sfd, &w, &line, wait);
        if (r == -EINTR) {
            sw->interrupted = true;
            break;
        }
        if (r < 0) {
            rc = sim_errf(err, r, "waiting for workers: %s", strerror(-r));
            break;
        }
        if (r == 1) {
            int k = inflight[w];
            inflight[w] = -1;
            if (!line) {
                if (k >= 0) {
                    pend[n_pend] = (struct pending){.task = k};
                    snprintf(pend[n_pend++].error, sizeof pend->error, "%s", t->death[0] ? t->death : "worker died");
                    finished++;
                }
                if (!t->revive || t->revive(t->ctx, w) < 0)
                    alive[w] = false;
            } else if (k >= 0) {
                take_result(sw, k, line, &pend[n_pend++]);
                finished++;
            }
            free(line);
        }
        if (n_pend >= sw->o.batch || (n_pend > 0 && wallclock_s() - last_commit >= sw->o.commit_s)) {
            if ((rc = flush(sw, pend, &n_pend, err)) < 0)
                break;
            last_commit = wallclock_s();
        }
        if (sw->o.progress && wallclock_s() - last_progress >= 0.5) {
            print_progress(sw, finished, false);
            last_progress = wallclock_s();
        }
    }
    /* whatever finished is committed, even when interrupted */
    int frc = flush(sw, pend, &n_pend, rc < 0 ? NULL : err);
    if (rc == 0)
        rc = frc;
    for (int i = 0; i < n_pend; i++)
        cJSON_Delete(pend[i].res);
    if (sw->o.progress)
        print_progress(sw, finished, true);
    sw->t_end = wallclock_s();
    sigaction(SIGPIPE, &old_pipe, NULL);
    if (sfd >= 0)
        close(sfd);
    sigprocmask(SIG_SETMASK, &old, NULL);
    free(inflight);
    free(alive);
    free(pend);
    if (rc == 0 && sw->interrupted)
        rc = -EINTR;
    return rc;
}

int sweep_finish(struct sweep *sw, int rc, const struct sim_err *err)
{
    int code = 0;
    if (!sw->t_end)
        sw->t_end = sw->t0 = wallclock_s();
    double el = sw->t_end - sw->t0;
    int left = sw->total_runs - sw->already_done - sw->done_now;
    char shard[48] = "";
    if (sw->o.shard_n)
        snprintf(shard, sizeof shard, " (shard %d/%d)", sw->o.shard_k, sw->o.shard_n);
    if (!sw->o.quiet && !sw->o.dry_run)
        fprintf(stderr,
                "cephsim sweep: %s%s: %d points, %d runs: %d done now, %d already done, %d failed, %d left; "
                "%.2f s, %.2f runs/s with %s -> %s\n",
                sw->g.name, shard, sw->points_unique, sw->total_runs, sw->done_now, sw->already_done, sw->failed_now,
                left, el, el > 0 ? sw->done_now / el : 0.0, sw->what[0] ? sw->what : "no workers", sw->o.db_path);
    if (rc == -EINTR) {
        fprintf(stderr, "cephsim sweep: interrupted with %d runs left; rerun the same command to resume\n", left);
        code = 1;
    } else if (rc < 0) {
        fprintf(stderr, "cephsim sweep: %s\n", err && err->msg[0] ? err->msg : strerror(-rc));
        code = 1;
    } else if (sw->failed_now > 0) {
        fprintf(stderr,
                "cephsim sweep: %d runs failed (sqlite3 %s \"SELECT point_id, replication, error FROM runs "
                "WHERE status = 'failed'\"); rerun the same command to retry them\n",
                sw->failed_now, sw->o.db_path);
        code = 1;
    }
    sweep_free(sw);
    return code;
}

/* ---- commands ------------------------------------------------------------- */

/* --mpi: the MPI part is the separate binary cephsim-mpi (built where mpicc exists). */
static int exec_mpi(int argc, char **argv)
{
    char **av = sim_xcalloc((size_t)argc + 2, sizeof *av);
    av[0] = "cephsim-mpi";
    for (int i = 0; i < argc; i++)
        av[i + 1] = argv[i];
    char dir[PATH_MAX];
    if (files_exe_dir(dir, sizeof dir) == 0) {
        char path[PATH_MAX + 16];
        snprintf(path, sizeof path, "%s/cephsim-mpi", dir);
        if (access(path, X_OK) == 0)
            execv(path, av);
    }
    execvp("cephsim-mpi", av);
    fprintf(stderr, "cephsim sweep --mpi: cannot run cephsim-mpi (%s); it is built next to cephsim on machines "
                    "with mpicc (apt-get install openmpi-bin libopenmpi-dev), see explorer/README.md\n",
            strerror(errno));
    free(av);
    return 1;
}

struct sweep *sweep_open_cli(const struct sweep_opts *o, int *exit_code)
{
    struct sim_err err = {0};
    struct sweep *sw;
    int rc = sweep_prepare(o, &sw, &err);
    if (rc < 0) {
        fprintf(stderr, "cephsim sweep: %s\n", err.msg[0] ? err.msg : strerror(-rc));
        *exit_code = 1;
        return NULL;
    }
    if (o->dry_run) {
        sweep_print_plan(sw);
        *exit_code = sweep_finish(sw, 0, NULL);
        return NULL;
    }
    return sw;
}

int sweep_run_local(struct sweep *sw, int jobs, struct sim_err *err)
{
    int n = sweep_todo(sw) < jobs ? sweep_todo(sw) : jobs;
    if (n <= 0)
        return 0;
    struct sweep_transport *t;
    int rc = sweep_fork_transport_open(n, &t, err);
    if (rc == 0) {
        rc = sweep_execute(sw, t, err);
        sweep_fork_transport_close(t, rc < 0);
    }
    return rc;
}

int cmd_sweep(int argc, char **argv)
{
    struct sweep_opts o;
    int rc = sweep_parse_args(argc, argv, &o);
    if (rc)
        return rc == 1 ? 0 : 2;
    if (o.mpi)
        return exec_mpi(argc, argv);
    struct sweep *sw = sweep_open_cli(&o, &rc);
    if (!sw)
        return rc;
    struct sim_err err = {0};
    rc = sweep_run_local(sw, o.jobs, &err);
    return sweep_finish(sw, rc, &err);
}

/* Delete a database this run created, with the WAL files SQLite may leave beside it. */
static void remove_database(const char *path)
{
    static const char *const suffixes[] = {"", "-wal", "-shm", "-journal"};
    for (size_t i = 0; i < sizeof suffixes / sizeof suffixes[0]; i++) {
        char p[PATH_MAX + 16];
        snprintf(p, sizeof p, "%s%s", path, suffixes[i]);
        unlink(p);
    }
}

int cmd_merge(int argc, char **argv)
{
    static const struct option opts[] = {{"quiet", no_argument, NULL, 'q'}, {"help", no_argument, NULL, 'h'}, {0}};
    bool quiet = false;
    int c;
    optind = 0;
    while ((c = getopt_long(argc, argv, "qh", opts, NULL)) != -1) {
        if (c == 'q') {
            quiet = true;
        } else if (c == 'h') {
            printf("usage: cephsim merge OUT IN...\n"
                   "  merge sweep databases (e.g. the shards of `cephsim sweep --shard K/N`) into OUT:\n"
                   "  sweeps by name, points by id, runs by (point_id, replication); a done run beats a failed one;\n"
                   "  sweeps of one name must have one grid (shards of it), or the merge is refused\n"
                   "  -q, --quiet   no per-input line\n");
            return 0;
        } else {
            fprintf(stderr, "try 'cephsim merge --help'\n");
            return 2;
        }
    }
    if (argc - optind < 2) {
        fprintf(stderr, "cephsim merge: give OUT and at least one IN database (try 'cephsim merge --help')\n");
        return 2;
    }
    const char *out = argv[optind];
    char rout[PATH_MAX];
    bool have_rout = realpath(out, rout) != NULL;
    for (int i = optind + 1; i < argc; i++) {
        char rin[PATH_MAX];
        if (have_rout && realpath(argv[i], rin) && !strcmp(rin, rout)) {
            fprintf(stderr, "cephsim merge: %s is the output database\n", argv[i]);
            return 2;
        }
    }
    struct sim_err err = {0};
    /* every input checked before OUT is written: a refused merge changes nothing */
    bool out_existed = access(out, F_OK) == 0;
    int n_check = 0;
    const char **check = sim_xcalloc((size_t)argc, sizeof *check);
    if (out_existed)
        check[n_check++] = out;
    for (int i = optind + 1; i < argc; i++)
        check[n_check++] = argv[i];
    int rc = db_merge_check(check, n_check, &err);
    free(check);
    if (rc < 0) {
        fprintf(stderr, "cephsim merge: %s\n", err.msg);
        return 1;
    }
    struct db *db;
    if (db_open(out, &db, &err) < 0) {
        fprintf(stderr, "cephsim merge: %s\n", err.msg);
        if (!out_existed)
            remove_database(out);
        return 1;
    }
    int code = 0;
    for (int i = optind + 1; i < argc; i++) {
        int n = 0;
        if (db_merge(db, argv[i], &n, &err) < 0) {
            fprintf(stderr, "cephsim merge: %s\n", err.msg);
            code = 1;
            break;
        }
        if (!quiet)
            fprintf(stderr, "cephsim merge: %s: %d new done runs\n", argv[i], n);
    }
    db_close(db);
    if (code != 0 && !out_existed) /* no half-merged database left to be taken for a result */
        remove_database(out);
    return code;
}
