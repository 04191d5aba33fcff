/*
 * plot.c - figures a person would rather look at than tables (see plot.h).
 *
 * Figures (NAME.dat + NAME.gp + NAME.png/.svg in the output directory):
 *   latency-cdf      a run's completion latency: fio clat percentiles of every job and
 *                    direction (fio.json, plus its min and max as 0 % and 100 %) as a CDF
 *                    and its tail (1 - CDF, log scale), with the durations of the client
 *                    ops (osd_op) kept in osd.N.historic_ops.json: the OSD-side time of a
 *                    sample (Ceph keeps osd_op_history_size = 20 ops per OSD).
 *   waterfall        a run's mean per-stage write times (sim.json summary.stages_us, the
 *                    stages of cluster.h) laid out on the critical path.
 *   qd1-tunings      qd1-latency.json: mean latency ± 95 % CI and p99 per variant, the
 *                    500 µs target and the seed's ~700 µs.
 *   iops-vs-iodepth  clone-serialisation.json: IOPS vs iodepth per image kind / guard /
 *                    release, one panel per access pattern, log-log.
 *   copyup           copyup.json: first-write (copy-up) latency per guard design.
 * The gnuplot scripts are generated here rather than kept as template files in
 * explorer/plot/: their ranges, tics, labels and legends depend on the data, the
 * binary stays self-contained (runs from any directory), and each written NAME.gp
 * is still a standalone script a person can edit and re-run next to its NAME.dat.
 */
#include "plot.h"

#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "files.h"
#include "fioout.h"
#include "jsonu.h"
#include "runner.h"
#include "trace.h"

extern char **environ;

/* The seed (../shared/seeds/qd1-latency.txt): "~700us latency for a 4k write with qd=1"
   on the tuned cluster, and the 500 µs the study aims for. */
static const double seed_tuned_us = 700.0;
static const double target_us = 500.0;

/* ------------------------------------------------------------------ small helpers */

static char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *xasprintf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    SIM_ASSERT(n >= 0);
    char *s = sim_xcalloc((size_t)n + 1, 1);
    va_start(ap, fmt);
    vsnprintf(s, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return s;
}

static bool is_file(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

static bool is_dir(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

static bool file_in(const char *dir, const char *name)
{
    char *p = xasprintf("%s/%s", dir, name);
    bool r = is_file(p);
    free(p);
    return r;
}

static double clean_us(double v)
{
    return isfinite(v) && v > 0 ? v : 0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

bool plot_have_gnuplot(void)
{
    const char *path = getenv("PATH");
    if (!path)
        path = "/usr/bin:/bin"; /* execvp's default */
    char *copy = sim_xstrdup(path);
    bool found = false;
    /* strtok_r would skip empty entries, which mean the current directory */
    for (char *p = copy, *end; !found && p; p = end ? end + 1 : NULL) {
        end = strchr(p, ':');
        if (end)
            *end = '\0';
        char *cand = xasprintf("%s/gnuplot", *p ? p : ".");
        found = is_file(cand) && access(cand, X_OK) == 0;
        free(cand);
    }
    free(copy);
    return found;
}

void plot_gp_str(FILE *f, char q, const char *s)
{
    SIM_ASSERT(q == '"' || q == '\'');
    fputc(q, f);
    for (; *s; s++) {
        if (*s == q)
            fputs(q == '"' ? "\\\"" : "''", f);
        else if (*s == '\\' && q == '"')
            fputs("\\\\", f);
        else if (*s == '\n' && q == '"')
            fputs("\\n", f);
        else if ((unsigned char)*s < 0x20)
            fputc(' ', f);
        else
            fputc(*s, f);
    }
    fputc(q, f);
}

int plot_gnuplot(const char *dir, const char *pre, const char *script, const char *expect, struct sim_err *err)
{
    char *cmds = NULL;
    size_t len = 0;
    if (dir || pre) {
        FILE *m = open_memstream(&cmds, &len);
        if (!m)
            return sim_errf(err, -errno, "cannot run gnuplot: %s", strerror(errno));
        if (dir) {
            fputs("cd ", m);
            plot_gp_str(m, '"', dir);
            fputs(pre ? "; " : "", m);
        }
        fputs(pre ? pre : "", m);
        fclose(m);
    }
    char *argv[5] = {"gnuplot"};
    int n = 1;
    if (cmds) {
        argv[n++] = "-e";
        argv[n++] = cmds;
    }
    argv[n] = (char *)script;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    fflush(stdout); /* our output so far comes before gnuplot's */
    fflush(stderr);
    pid_t pid;
    int sp = posix_spawnp(&pid, "gnuplot", &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    free(cmds);
    if (sp == ENOENT)
        return sim_errf(err, -ENOENT, "gnuplot not found; install gnuplot-nox (tools/setup.sh does)");
    if (sp != 0)
        return sim_errf(err, -sp, "cannot run gnuplot: %s", strerror(sp));
    int st;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR)
            return sim_errf(err, -errno, "gnuplot: wait: %s", strerror(errno));
    if (WIFEXITED(st) && WEXITSTATUS(st) == 127) /* a C library whose posix_spawnp exits so when exec fails */
        return sim_errf(err, -ENOENT, "gnuplot not found; install gnuplot-nox (tools/setup.sh does)");
    if (WIFSIGNALED(st))
        return sim_errf(err, -EIO, "%s: gnuplot killed by signal %d", script, WTERMSIG(st));
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
        return sim_errf(err, -EIO, "%s: gnuplot failed (status %d; its messages are above)", script,
                        WIFEXITED(st) ? WEXITSTATUS(st) : st);
    if (expect) {
        char *out = dir && expect[0] != '/' ? xasprintf("%s/%s", dir, expect) : sim_xstrdup(expect);
        struct stat sb;
        bool ok = stat(out, &sb) == 0 && sb.st_size > 0;
        free(out);
        if (!ok)
            return sim_errf(err, -EIO, "%s: gnuplot wrote no %s", script, expect);
    }
    return 0;
}

/* A string column of a data file: double-quoted, without quotes or control characters inside. */
static void dat_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++)
        fputc(*s == '"' ? '\'' : (unsigned char)*s < 0x20 ? ' ' : *s, f);
    fputc('"', f);
}

/* ------------------------------------------------------------------ the waterfall */

void plot_waterfall_layout(const double stage_us[STAGE_COUNT], double start_us[STAGE_COUNT],
                           bool critical[STAGE_COUNT], double *total_us)
{
    double t = 0;
    for (int i = 0; i < STAGE_COUNT; i++) {
        if (i == STAGE_REPLICA_COMMIT)
            continue; /* laid out with the local commit */
        if (i == STAGE_LOCAL_COMMIT) {
            double l = clean_us(stage_us[STAGE_LOCAL_COMMIT]), r = clean_us(stage_us[STAGE_REPLICA_COMMIT]);
            start_us[STAGE_LOCAL_COMMIT] = start_us[STAGE_REPLICA_COMMIT] = t;
            critical[STAGE_LOCAL_COMMIT] = l >= r;
            critical[STAGE_REPLICA_COMMIT] = r >= l;
            t += l > r ? l : r;
            continue;
        }
        start_us[i] = t;
        critical[i] = true;
        t += clean_us(stage_us[i]);
    }
    *total_us = t;
}

void plot_text_waterfall(FILE *f, const double stage_us[STAGE_COUNT])
{
    enum { width = 50 };
    double start[STAGE_COUNT], total;
    bool crit[STAGE_COUNT];
    plot_waterfall_layout(stage_us, start, crit, &total);
    fprintf(f, "  where a write's time goes (mean us; local and replica commits overlap, "
               "\u2591 = off the critical path):\n");
    if (!(total > 0)) {
        fprintf(f, "    (no write stages measured)\n");
        return;
    }
    int w = (int)strlen("total");
    for (int i = 0; i < STAGE_COUNT; i++)
        w = fmax(w, (int)strlen(stage_names[i]));
    for (int i = 0; i < STAGE_COUNT; i++) {
        double d = clean_us(stage_us[i]);
        int c0 = (int)lround(start[i] / total * width), c1 = (int)lround((start[i] + d) / total * width);
        if (d > 0 && c1 <= c0)
            c1 = c0 + 1;
        fprintf(f, "    %-*s %8.1f  ", w, stage_names[i], d);
        for (int c = 0; c < c0; c++)
            fputc(' ', f);
        for (int c = c0; c < c1; c++)
            fputs(crit[i] ? "\u2588" : "\u2591", f);
        fputc('\n', f);
    }
    fprintf(f, "    %-*s %8.1f  (critical path)\n", w, "total", total);
}

/* ------------------------------------------------------------------ inputs */

struct cdf_series {
    char title[200];
    int n;
    double *us, *pct; /* n points, ascending */
};

struct run_data {
    char scenario[256];  /* sim.json "scenario", "" if unknown */
    char job_desc[256];  /* "qd1-randwrite: randwrite, bs 4k, iodepth 1" */
    struct cdf_series *series;
    int n_series;
    bool have_stages;    /* sim.json has write stages */
    double stage_us[STAGE_COUNT];
    char stage_label[STAGE_COUNT][48]; /* the names sim.json gives the stages */
    double lat_mean_us;  /* sim.json summary.lat_mean_us.mean, NAN if absent */
};

static void run_data_free(struct run_data *rd)
{
    for (int i = 0; i < rd->n_series; i++) {
        free(rd->series[i].us);
        free(rd->series[i].pct);
    }
    free(rd->series);
    memset(rd, 0, sizeof *rd);
}

static struct cdf_series *add_series(struct run_data *rd, int cap)
{
    rd->series = sim_xrealloc(rd->series, (size_t)rd->n_series + 1, sizeof *rd->series);
    struct cdf_series *s = &rd->series[rd->n_series++];
    memset(s, 0, sizeof *s);
    s->us = sim_xcalloc((size_t)cap, sizeof *s->us);
    s->pct = sim_xcalloc((size_t)cap, sizeof *s->pct);
    return s;
}

static const char *job_option(const cJSON *job, const cJSON *global, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(job, "job options"), key);
    if (!cJSON_IsString(v))
        v = cJSON_GetObjectItemCaseSensitive(global, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* fio.json: one CDF series per job and direction with completions. */
static int load_fio(const char *path, struct run_data *rd, struct sim_err *err)
{
    cJSON *j = jsonu_load_file(path, err);
    if (!j)
        return err && err->code ? err->code : -EINVAL;
    int rc = 0;
    const cJSON *jobs = cJSON_GetObjectItemCaseSensitive(j, "jobs");
    const cJSON *global = cJSON_GetObjectItemCaseSensitive(j, "global options");
    if (!cJSON_IsArray(jobs)) {
        rc = sim_errf(err, -EINVAL, "%s: jobs: expected an array (not fio --output-format=json?)", path);
        goto out;
    }
    static const char *const ddirs[] = {"read", "write"};
    int k = 0;
    const cJSON *job;
    cJSON_ArrayForEach(job, jobs) {
        const cJSON *name = cJSON_GetObjectItemCaseSensitive(job, "jobname");
        char jobname[64];
        snprintf(jobname, sizeof jobname, "%s", cJSON_IsString(name) ? name->valuestring : "job");
        for (int d = 0; d < 2; d++) {
            const cJSON *clat = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(job, ddirs[d]),
                                                                 "clat_ns");
            double n = fioout_num(cJSON_GetObjectItemCaseSensitive(clat, "N"));
            const cJSON *pcts = cJSON_GetObjectItemCaseSensitive(clat, "percentile");
            if (!(n > 0) || !cJSON_IsObject(pcts))
                continue;
            struct cdf_series *s = add_series(rd, cJSON_GetArraySize(pcts) + 2);
            snprintf(s->title, sizeof s->title, "%s %s: fio clat percentiles (%.0f I/Os)", jobname, ddirs[d], n);
            double mn = fioout_num(cJSON_GetObjectItemCaseSensitive(clat, "min"));
            double mx = fioout_num(cJSON_GetObjectItemCaseSensitive(clat, "max"));
            if (isfinite(mn)) {
                s->us[s->n] = mn / 1e3;
                s->pct[s->n++] = 0;
            }
            const cJSON *p;
            cJSON_ArrayForEach(p, pcts) {
                char *end;
                double pc = strtod(p->string, &end);
                double v = fioout_num(p);
                if (end == p->string || *end || !(pc >= 0 && pc <= 100) || !isfinite(v)) {
                    rc = sim_errf(err, -EINVAL, "%s: jobs[%d].%s.clat_ns.percentile.%s: expected a percentile "
                                  "key and a number of ns", path, k, ddirs[d], p->string);
                    goto out;
                }
                s->us[s->n] = v / 1e3;
                s->pct[s->n++] = pc;
            }
            if (isfinite(mx)) {
                s->us[s->n] = mx / 1e3;
                s->pct[s->n++] = 100;
            }
            if (!rd->job_desc[0]) {
                const char *rw = job_option(job, global, "rw"), *bs = job_option(job, global, "bs");
                const char *qd = job_option(job, global, "iodepth");
                snprintf(rd->job_desc, sizeof rd->job_desc, "%s: %s%s%s%s%s", jobname, rw ? rw : ddirs[d],
                         bs ? ", bs " : "", bs ? bs : "", qd ? ", iodepth " : "", qd ? qd : "");
            }
        }
        k++;
    }
out:
    cJSON_Delete(j);
    return rc;
}

static bool historic_name(const char *name)
{
    static const char suffix[] = ".historic_ops.json";
    size_t n = strlen(name), ls = sizeof suffix - 1;
    if (strncmp(name, "osd.", 4) || n <= 4 + ls || strcmp(name + n - ls, suffix))
        return false;
    for (size_t i = 4; i < n - ls; i++)
        if (name[i] < '0' || name[i] > '9')
            return false;
    return true;
}

/* osd.N.historic_ops.json: the durations of the client ops the OSDs kept, as one series. */
static int load_historic(const char *dir, struct run_data *rd, struct sim_err *err)
{
    DIR *d = opendir(dir);
    if (!d)
        return sim_errf(err, -errno, "%s: cannot read: %s", dir, strerror(errno));
    double *v = NULL;
    size_t n = 0, cap = 0;
    int rc = 0;
    struct dirent *e;
    while ((e = readdir(d)) && rc == 0) {
        if (!historic_name(e->d_name))
            continue;
        char *path = xasprintf("%s/%s", dir, e->d_name);
        struct trace_ops t;
        rc = trace_ops_load(path, 0, &t, err);
        free(path);
        if (rc < 0)
            break;
        for (size_t i = 0; i < t.n; i++) {
            if (t.ops[i].desc.kind != TRACE_DESC_OSD_OP || t.ops[i].duration_ns == TRACE_NS_NONE)
                continue;
            if (n == cap) {
                cap = cap ? cap * 2 : 256;
                v = sim_xrealloc(v, cap, sizeof *v);
            }
            v[n++] = (double)t.ops[i].duration_ns / 1e3;
        }
        trace_ops_free(&t);
    }
    closedir(d);
    if (rc == 0 && n >= 2) {
        qsort(v, n, sizeof *v, cmp_double);
        struct cdf_series *s = add_series(rd, (int)n);
        snprintf(s->title, sizeof s->title,
                 "OSD-side: client op durations in osd.N.historic_ops.json (a sample of %zu)", n);
        for (size_t i = 0; i < n; i++) {
            s->us[i] = v[i];
            s->pct[i] = 100.0 * (double)(i + 1) / (double)n;
        }
        s->n = (int)n;
    }
    free(v);
    return rc;
}

/* sim.json: the scenario's name, the mean latency and the write stages. */
static int load_sim(const char *path, struct run_data *rd, struct sim_err *err)
{
    cJSON *j = jsonu_load_file(path, err);
    if (!j)
        return err && err->code ? err->code : -EINVAL;
    int rc = jsonu_get_string(j, "scenario", rd->scenario, sizeof rd->scenario, false, path, "", err);
    const cJSON *sum = cJSON_GetObjectItemCaseSensitive(j, "summary");
    rd->lat_mean_us = NAN;
    if (rc == 0 && !cJSON_IsObject(sum))
        rc = sim_errf(err, -EINVAL, "%s: summary: missing (the run did not finish?)", path);
    char dir[16] = "write";
    if (rc == 0)
        rc = jsonu_get_string(sum, "direction", dir, sizeof dir, false, path, "summary", err);
    const cJSON *lm = cJSON_GetObjectItemCaseSensitive(sum, "lat_mean_us");
    if (rc == 0 && cJSON_IsObject(lm))
        rc = jsonu_get_double(lm, "mean", &rd->lat_mean_us, 0, 1e15, false, path, "summary.lat_mean_us", err);
    const cJSON *st = cJSON_GetObjectItemCaseSensitive(sum, "stages_us");
    if (rc == 0 && cJSON_IsObject(st) && !strcmp(dir, "write")) {
        /* by name; a file from a build that named the stages differently: by position */
        bool by_name = true;
        for (int i = 0; i < STAGE_COUNT; i++)
            by_name = by_name && cJSON_GetObjectItemCaseSensitive(st, stage_names[i]);
        if (!by_name && cJSON_GetArraySize(st) != STAGE_COUNT)
            rc = sim_errf(err, -EINVAL, "%s: summary.stages_us: expected the %d stages of a write "
                          "(\"%s\" ... \"%s\")", path, STAGE_COUNT, stage_names[0], stage_names[STAGE_COUNT - 1]);
        double total = 0;
        const cJSON *it = st->child;
        for (int i = 0; i < STAGE_COUNT && rc == 0; i++, it = it ? it->next : NULL) {
            const char *key = by_name ? stage_names[i] : it->string;
            snprintf(rd->stage_label[i], sizeof rd->stage_label[i], "%s", key);
            rc = jsonu_get_double(st, key, &rd->stage_us[i], 0, 1e15, true, path, "summary.stages_us", err);
            total += rd->stage_us[i];
        }
        rd->have_stages = rc == 0 && total > 0;
    }
    cJSON_Delete(j);
    return rc;
}

struct study_row {
    char variant[160];
    char workload[64];
    double lat_mean, lat_ci, lat_p99, iops, iops_ci;
    int n;  /* replications */
};

struct study {
    char file[32];
    char direction[16];
    struct study_row *rows;
    int n;
};

static int get_ci(const cJSON *el, const char *key, double *mean, double *ci, int *n, const char *file,
                  const char *path, struct sim_err *err)
{
    char p[128];
    const cJSON *o = cJSON_GetObjectItemCaseSensitive(el, key);
    jsonu_path(p, sizeof p, path, key);
    if (!cJSON_IsObject(o))
        return sim_errf(err, -EINVAL, "%s: %s: expected an object {mean, ci95, n}", file, p);
    int rc = jsonu_get_double(o, "mean", mean, -1e15, 1e15, true, file, p, err);
    if (rc == 0 && ci)
        rc = jsonu_get_double(o, "ci95", ci, 0, 1e15, true, file, p, err);
    int64_t nn = 0;
    if (rc == 0 && n && (rc = jsonu_get_int(o, "n", &nn, 0, 1000000, false, file, p, err)) == 0)
        *n = (int)nn;
    return rc;
}

/* A study summary (an array of runner summaries with "variant" and maybe "workload"). */
static int load_study(const char *dir, const char *name, bool want_workload, struct study *s, struct sim_err *err)
{
    char *path = xasprintf("%s/%s", dir, name);
    memset(s, 0, sizeof *s);
    snprintf(s->file, sizeof s->file, "%s", name);
    snprintf(s->direction, sizeof s->direction, "write");
    cJSON *j = jsonu_load_file(path, err);
    int rc = 0;
    if (!j) {
        rc = err && err->code ? err->code : -EINVAL;
        goto out;
    }
    if (!cJSON_IsArray(j) || cJSON_GetArraySize(j) == 0) {
        rc = sim_errf(err, -EINVAL, "%s: expected a non-empty array of variants (a study summary)", path);
        goto out;
    }
    s->rows = sim_xcalloc((size_t)cJSON_GetArraySize(j), sizeof *s->rows);
    const cJSON *el;
    cJSON_ArrayForEach(el, j) {
        struct study_row *r = &s->rows[s->n];
        char p[32];
        snprintf(p, sizeof p, "[%d]", s->n);
        if (!cJSON_IsObject(el)) {
            rc = sim_errf(err, -EINVAL, "%s: %s: expected an object", path, p);
            goto out;
        }
        if ((rc = jsonu_get_string(el, "variant", r->variant, sizeof r->variant, true, path, p, err)) < 0 ||
            (want_workload &&
             (rc = jsonu_get_string(el, "workload", r->workload, sizeof r->workload, true, path, p, err)) < 0) ||
            (s->n == 0 &&
             (rc = jsonu_get_string(el, "direction", s->direction, sizeof s->direction, false, path, p, err)) < 0) ||
            (rc = get_ci(el, "lat_mean_us", &r->lat_mean, &r->lat_ci, &r->n, path, p, err)) < 0 ||
            (rc = get_ci(el, "lat_p99_us", &r->lat_p99, NULL, NULL, path, p, err)) < 0 ||
            (rc = get_ci(el, "iops", &r->iops, &r->iops_ci, NULL, path, p, err)) < 0)
            goto out;
        s->n++;
    }
out:
    cJSON_Delete(j);
    free(path);
    return rc;
}

/* ------------------------------------------------------------------ figure files */

struct figure {
    char name[160];
    char what[200];
};

struct plot_ctx {
    const char *tmp;        /* where the files are written before they are moved into place */
    struct figure *figs;
    int n_figs;
};

static struct figure *add_figure(struct plot_ctx *c, const char *prefix, const char *base, const char *what)
{
    c->figs = sim_xrealloc(c->figs, (size_t)c->n_figs + 1, sizeof *c->figs);
    struct figure *fg = &c->figs[c->n_figs++];
    snprintf(fg->name, sizeof fg->name, "%s%s%s", prefix ? prefix : "", prefix ? "." : "", base);
    snprintf(fg->what, sizeof fg->what, "%s", what);
    return fg;
}

static FILE *open_out(const struct plot_ctx *c, const char *name, const char *ext, struct sim_err *err)
{
    char *path = xasprintf("%s/%s.%s", c->tmp, name, ext);
    FILE *f = fopen(path, "w");
    if (!f)
        sim_errf(err, -errno, "%s: cannot write: %s", path, strerror(errno));
    free(path);
    return f;
}

static int close_out(FILE *f, const char *name, const char *ext, struct sim_err *err)
{
    bool bad = ferror(f) != 0;
    if (fclose(f) != 0 || bad)
        return sim_errf(err, -EIO, "%s.%s: write error", name, ext);
    return 0;
}

/* Opens NAME.dat and NAME.gp; on failure neither stays open. */
static int open_pair(const struct plot_ctx *c, const char *name, FILE **dat, FILE **gp, struct sim_err *err)
{
    *dat = open_out(c, name, "dat", err);
    if (!*dat)
        return err && err->code ? err->code : -EIO;
    *gp = open_out(c, name, "gp", err);
    if (!*gp) {
        fclose(*dat);
        return err && err->code ? err->code : -EIO;
    }
    return 0;
}

/* Ends the script (closes its output, so the image is complete) and closes both files. */
static int close_pair(FILE *dat, FILE *gp, const char *name, struct sim_err *err)
{
    fputs("unset output\n", gp);
    int a = close_out(dat, name, "dat", err);
    int b = close_out(gp, name, "gp", err);
    return a < 0 ? a : b;
}

static const char *const palette[] = {"#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9",
                                      "#000000", "#882255", "#44AA99", "#999933", "#332288", "#AA4499"};
#define N_PALETTE (int)(sizeof palette / sizeof palette[0])

/* Terminal (png via pngcairo, else libgd png; or svg), output name, series styles. */
static void gp_header(FILE *f, const char *name, const char *what, int w, int h)
{
    fprintf(f, "# %s.gp - %s\n", name, what);
    fprintf(f, "# Generated by cephsim plot %s; reads %s.dat.  Render in this directory:\n"
               "#   gnuplot %s.gp                  (%s.png)\n"
               "#   gnuplot -e \"fmt='svg'\" %s.gp   (%s.svg)\n",
            CEPHSIM_VERSION, name, name, name, name, name);
    fprintf(f, "reset\nset encoding utf8\nif (!exists(\"fmt\")) fmt = \"png\"\n"
               "if (fmt eq \"svg\") {\n"
               "    set terminal svg size %d,%d dynamic noenhanced font \"Sans,12\" background rgb \"white\"\n"
               "} else {\n"
               "    if (strstrt(GPVAL_TERMINALS, \"pngcairo\") > 0) {\n"
               "        set terminal pngcairo size %d,%d noenhanced font \"Sans,10\" background rgb \"white\"\n"
               "    } else {\n"
               "        set terminal png size %d,%d noenhanced background rgb \"white\"\n"
               "    }\n"
               "}\n"
               "set output \"%s.\".fmt\n",
            w, h, w, h, w, h, name);
    for (int i = 0; i < N_PALETTE; i++)
        fprintf(f, "set linetype %d lc rgb \"%s\" lw 2 pt %d ps 1.2 dt %d\n", i + 1, palette[i], (i % 6) * 2 + 5,
                i < 6 ? 1 : 2);
    fprintf(f, "set linetype cycle %d\n", N_PALETTE);
    fprintf(f, "set grid lc rgb \"#dddddd\" lw 1\n");
}

/* Scenario name for titles: the file's base name without the extension. */
static void scenario_label(const struct run_data *rd, const char *dir, char *out, size_t n)
{
    const char *s = rd->scenario[0] ? rd->scenario : dir;
    size_t len = strlen(s);
    while (len > 1 && s[len - 1] == '/')
        len--;
    const char *b = s;
    for (size_t i = 0; i + 1 < len; i++)
        if (s[i] == '/')
            b = s + i + 1;
    size_t bl = (size_t)(s + len - b);
    const char *dot = memchr(b, '.', bl);
    if (rd->scenario[0] && dot)
        bl = (size_t)(dot - b);
    snprintf(out, n, "%.*s", (int)bl, b);
}

/* latency-cdf: the CDF and the tail of every series. */
static int fig_cdf(struct plot_ctx *c, const char *prefix, const char *dir, const struct run_data *rd,
                   struct sim_err *err)
{
    struct figure *fg = add_figure(c, prefix, "latency-cdf", "completion latency CDF and tail");
    FILE *dat, *gp;
    int rc = open_pair(c, fg->name, &dat, &gp, err);
    if (rc < 0)
        return rc;
    double xmin = INFINITY, xmax = 0, tmin = 100;
    fprintf(dat, "# %s.dat - completion latency distribution of %s\n", fg->name, dir);
    fprintf(dat, "# one block per series (gnuplot index); columns: latency_us pct_within pct_slower\n");
    for (int i = 0; i < rd->n_series; i++) {
        const struct cdf_series *s = &rd->series[i];
        fprintf(dat, "%s# series %d: %s\n", i ? "\n\n" : "", i, s->title);
        for (int k = 0; k < s->n; k++) {
            fprintf(dat, "%.3f %.4f %.4f\n", s->us[k], s->pct[k], 100 - s->pct[k]);
            if (s->us[k] > 0 && s->us[k] < xmin)
                xmin = s->us[k];
            if (s->us[k] > xmax)
                xmax = s->us[k];
            if (100 - s->pct[k] > 1e-9 && 100 - s->pct[k] < tmin)
                tmin = 100 - s->pct[k];
        }
    }
    if (!isfinite(xmin))
        xmin = 1, xmax = 10;
    bool logx = xmax / xmin > 8;
    char scen[128];
    scenario_label(rd, dir, scen, sizeof scen);
    char *title = xasprintf("Completion latency: %s%s%s", scen, rd->job_desc[0] ? ", " : "", rd->job_desc);
    /* two panels side by side, one legend below both */
    int h = 520 + 20 * rd->n_series;
    double key_top = (20.0 * rd->n_series + 14) / h, bm = key_top + 62.0 / h, tm = 1 - 62.0 / h;
    gp_header(gp, fg->name, "completion latency CDF (left) and its tail, 1 - CDF on a log scale (right)", 1300, h);
    fputs("set multiplot title ", gp);
    plot_gp_str(gp, '"', title);
    fprintf(gp, " font \",13\"\nset tmargin at screen %.4f\nset bmargin at screen %.4f\n", tm, bm);
    if (logx)
        fprintf(gp, "set logscale x\nset xrange [%g:%g]\nset xlabel \"completion latency (µs, log scale)\"\n",
                xmin / 1.1, xmax * 1.1);
    else
        fprintf(gp, "set xrange [%g:%g]\nset xlabel \"completion latency (µs)\"\n",
                fmax(0, xmin - 0.05 * (xmax - xmin)), xmax + 0.05 * (xmax - xmin));
    fprintf(gp, "set lmargin at screen 0.07\nset rmargin at screen 0.48\n"
                "set title \"CDF\"\nset ylabel \"I/Os completed within x (%%)\"\nset yrange [0:100]\nset ytics 10\n"
                "set key at screen 0.07, screen %.4f left top Left reverse samplen 3 spacing 1.1\nplot ",
            key_top);
    for (int i = 0; i < rd->n_series; i++) {
        fprintf(gp, "%s\"%s.dat\" index %d using 1:2 with %s lt %d title ", i ? ", \\\n     " : "", fg->name, i,
                rd->series[i].n > 40 ? "steps" : "linespoints", i + 1);
        plot_gp_str(gp, '"', rd->series[i].title);
    }
    fprintf(gp, "\nset lmargin at screen 0.57\nset rmargin at screen 0.97\n"
                "set title \"tail: I/Os slower than x (1 - CDF)\"\nset logscale y\nset yrange [%g:100]\n"
                "set ytics auto\nset format y \"%%g %%%%\"\nset ylabel \"I/Os slower than x (log scale)\"\n"
                "unset key\nplot ",
            tmin / 2);
    for (int i = 0; i < rd->n_series; i++)
        fprintf(gp, "%s\"%s.dat\" index %d using 1:($3 > 0 ? $3 : NaN) with %s lt %d notitle",
                i ? ", \\\n     " : "", fg->name, i, rd->series[i].n > 40 ? "steps" : "linespoints", i + 1);
    fputs("\nunset multiplot\n", gp);
    free(title);
    return close_pair(dat, gp, fg->name, err);
}

/* waterfall: horizontal bars on the critical path; the commits side by side. */
static int fig_waterfall(struct plot_ctx *c, const char *prefix, const char *dir, const struct run_data *rd,
                         struct sim_err *err)
{
    struct figure *fg = add_figure(c, prefix, "waterfall", "per-stage write latency on the critical path");
    FILE *dat, *gp;
    int rc = open_pair(c, fg->name, &dat, &gp, err);
    if (rc < 0)
        return rc;
    double start[STAGE_COUNT], total;
    bool crit[STAGE_COUNT];
    plot_waterfall_layout(rd->stage_us, start, crit, &total);
    fprintf(dat, "# %s.dat - mean time per stage of a write (sim.json summary.stages_us) of %s\n", fg->name, dir);
    fprintf(dat, "# local and replica commits both start when the primary has prepared (critical: the longer)\n");
    fprintf(dat, "# row stage start_us duration_us end_us critical\n");
    for (int i = 0; i < STAGE_COUNT; i++) {
        double d = clean_us(rd->stage_us[i]);
        fprintf(dat, "%d ", i);
        dat_str(dat, rd->stage_label[i]);
        fprintf(dat, " %.3f %.3f %.3f %d\n", start[i], d, start[i] + d, crit[i] ? 1 : 0);
    }
    char scen[128];
    scenario_label(rd, dir, scen, sizeof scen);
    char *title = xasprintf("Where a write's time goes: %s%s%s\nmean per stage; local and replica commits run "
                            "in parallel, the longer one is on the critical path",
                            scen, rd->job_desc[0] ? ", " : "", rd->job_desc);
    gp_header(gp, fg->name, "per-stage write latency waterfall", 1100, 150 + STAGE_COUNT * 38);
    fputs("set title ", gp);
    plot_gp_str(gp, '"', title);
    double ref = isfinite(rd->lat_mean_us) ? rd->lat_mean_us : 0;
    double right = fmax(total, ref);
    fprintf(gp, "\nset xlabel \"time since fio submitted the write (µs)\"\n"
                "set xrange [0:%g]\nset yrange [%d.6:-0.6]\nset ytics scale 0\nset grid xtics noytics\n"
                "set style fill solid 0.9 border rgb \"#333333\"\n"
                "set linetype 1 lc rgb \"#0072B2\"\nset linetype 2 lc rgb \"#A6CEE3\"\n"
                "set key bottom left box opaque samplen 2\n",
            right * 1.22, STAGE_COUNT - 1);
    fprintf(gp, "set arrow 1 from %g, graph 0 to %g, graph 1 nohead dt 2 lw 1.5 lc rgb \"#333333\"\n", total, total);
    fprintf(gp, "set label 1 \"critical path %.1f µs\" at %g, graph 0.97 offset 0.6,0 left\n", total, total);
    if (ref > 0) {
        fprintf(gp, "set arrow 2 from %g, graph 0 to %g, graph 1 nohead dt 3 lw 1.5 lc rgb \"#D55E00\"\n", ref, ref);
        fprintf(gp, "set label 2 \"fio clat mean %.1f µs\" at %g, graph 0.91 offset 0.6,0 left tc rgb \"#D55E00\"\n",
                ref, ref);
    }
    fprintf(gp, "plot \"%s.dat\" using (($3+$5)/2):1:3:5:($1-0.36):($1+0.36):($6 > 0 ? 1 : 2):ytic(2) "
                "with boxxyerror lc variable notitle, \\\n"
                "     \"\" using 5:1:(sprintf(\"%%.1f µs\", $4)) with labels left offset 0.6,0 notitle, \\\n"
                "     keyentry with boxes lt 1 title \"on the critical path\", \\\n"
                "     keyentry with boxes lt 2 title \"overlapped by the longer commit\"\n",
            fg->name);
    free(title);
    return close_pair(dat, gp, fg->name, err);
}

/* qd1-tunings and copyup: one horizontal bar (mean ± 95 % CI, p99 marker) per variant. */
static int fig_bars(struct plot_ctx *c, const struct study *s, const char *base, const char *what,
                    const char *title, bool refs, struct sim_err *err)
{
    static const char *const class_title[] = {NULL, "reference (first row)", "faster (95 % CIs apart)",
                                              "slower (95 % CIs apart)", "no clear difference"};
    struct figure *fg = add_figure(c, NULL, base, what);
    FILE *dat, *gp;
    int rc = open_pair(c, fg->name, &dat, &gp, err);
    if (rc < 0)
        return rc;
    double lo_mean = INFINITY, right = refs ? seed_tuned_us : 0;
    for (int i = 0; i < s->n; i++) {
        const struct study_row *r = &s->rows[i];
        if (r->lat_mean > 0 && r->lat_mean < lo_mean)
            lo_mean = r->lat_mean;
        right = fmax(right, fmax(r->lat_mean + r->lat_ci, r->lat_p99));
    }
    if (!isfinite(lo_mean))
        lo_mean = 1;
    bool logx = right / lo_mean > 10;
    double xmin = logx ? lo_mean / 1.6 : 0;
    /* leave the right 36 % of the width for the value labels */
    double xmax = logx ? xmin * pow(right / xmin, 1 / 0.64) : right / 0.64;
    const struct study_row *b = &s->rows[0];
    bool present[5] = {false};
    fprintf(dat, "# %s.dat - %s (from %s)\n", fg->name, what, s->file);
    fprintf(dat, "# class: 1 first row (reference), 2 faster, 3 slower (95 %% CIs apart), 4 no clear difference\n");
    fprintf(dat, "# row mean_us ci95_us ci_lo_us ci_hi_us p99_us bar_from_us class label_x_us variant value\n");
    for (int i = 0; i < s->n; i++) {
        const struct study_row *r = &s->rows[i];
        double lo = fmax(r->lat_mean - r->lat_ci, xmin), hi = r->lat_mean + r->lat_ci;
        int cls = i == 0                                              ? 1
                  : r->lat_mean + r->lat_ci < b->lat_mean - b->lat_ci ? 2
                  : r->lat_mean - r->lat_ci > b->lat_mean + b->lat_ci ? 3
                                                                      : 4;
        present[cls] = true;
        char val[96], rel[32] = "";
        double ratio = b->lat_mean > 0 ? r->lat_mean / b->lat_mean : NAN;
        if (i > 0 && isfinite(ratio))
            snprintf(rel, sizeof rel, ratio >= 2 ? "  (×%.1f)" : "  (%+.1f %%)",
                     ratio >= 2 ? ratio : 100 * (ratio - 1));
        snprintf(val, sizeof val, "%.1f ± %.1f µs%s", r->lat_mean, r->lat_ci, rel);
        fprintf(dat, "%d %.3f %.3f %.3f %.3f %.3f %.3f %d %.3f ", i, r->lat_mean, r->lat_ci, lo, hi, r->lat_p99, xmin,
                cls, fmax(hi, r->lat_p99));
        dat_str(dat, r->variant);
        fputc(' ', dat);
        dat_str(dat, val);
        fputc('\n', dat);
    }
    gp_header(gp, fg->name, what, 1350, 170 + s->n * 36);
    fputs("set title ", gp);
    plot_gp_str(gp, '"', title);
    fprintf(gp, "\nset tmargin 6\nset xlabel \"completion latency (µs%s): bar = mean, whiskers = 95 %% CI, "
                "diamond = p99\"\n",
            logx ? ", log scale" : "");
    if (logx)
        fputs("set logscale x\n", gp);
    fprintf(gp, "set xrange [%g:%g]\nset yrange [%d.6:-0.6]\nset ytics scale 0\nset grid xtics noytics\n"
                "set style fill solid 0.85 border rgb \"#333333\"\n"
                "set linetype 1 lc rgb \"#0072B2\"\nset linetype 2 lc rgb \"#009E73\"\n"
                "set linetype 3 lc rgb \"#D55E00\"\nset linetype 4 lc rgb \"#AAAAAA\"\n"
                "set key outside right top vertical Left reverse samplen 2 spacing 1.2\n",
            xmin, xmax, s->n - 1);
    if (refs) {
        fprintf(gp, "set arrow 1 from %g, graph 0 to %g, graph 1 nohead dt 2 lw 2 lc rgb \"#009E73\"\n", target_us,
                target_us);
        fprintf(gp, "set label 1 \"target %.0f µs\" at %g, graph 1 offset -0.5,0.8 right tc rgb \"#009E73\"\n",
                target_us, target_us);
        fprintf(gp, "set arrow 2 from %g, graph 0 to %g, graph 1 nohead dt 2 lw 2 lc rgb \"#CC79A7\"\n",
                seed_tuned_us, seed_tuned_us);
        fprintf(gp, "set label 2 \"seed, tuned: ~%.0f µs\" at %g, graph 1 offset 0.5,0.8 left tc rgb \"#CC79A7\"\n",
                seed_tuned_us, seed_tuned_us);
    }
    fprintf(gp, "plot \"%s.dat\" using (($7+$2)/2):1:7:2:($1-0.36):($1+0.36):8:ytic(10) "
                "with boxxyerror lc variable notitle, \\\n"
                "     \"\" using 2:1:4:5 with xerrorbars lc rgb \"#222222\" lw 1.5 pt 7 ps 0.4 notitle, \\\n"
                "     \"\" using 6:1 with points pt 12 ps 1.8 lw 1.5 lc rgb \"#222222\" title \"p99\", \\\n"
                "     \"\" using 9:1:11 with labels left offset 1.2,0 notitle",
            fg->name);
    for (int k = 1; k <= 4; k++)
        if (present[k])
            fprintf(gp, ", \\\n     keyentry with boxes lt %d title \"%s\"", k, class_title[k]);
    fputc('\n', gp);
    return close_pair(dat, gp, fg->name, err);
}

/* "seq qd16" -> pattern "seq" (pat_len 3), depth 16. */
static bool parse_workload(const char *w, size_t *pat_len, long *depth)
{
    const char *q = NULL;
    for (const char *p = strstr(w, " qd"); p; p = strstr(p + 1, " qd"))
        q = p;
    if (!q || q == w)
        return false;
    char *end;
    long d = strtol(q + 3, &end, 10);
    if (end == q + 3 || *end || d <= 0)
        return false;
    *pat_len = (size_t)(q - w);
    *depth = d;
    return true;
}

static const char *pattern_title(const char *p, size_t n)
{
    if (n == 3 && !strncmp(p, "seq", 3))
        return "sequential";
    if (n == 4 && !strncmp(p, "rand", 4))
        return "random";
    return NULL;
}

/* iops-vs-iodepth: one panel per access pattern, one line per variant, log-log. */
static int fig_iops(struct plot_ctx *c, const struct study *s, struct sim_err *err)
{
    int np = 0, nv = 0, nd = 0, n = s->n, rc = 0;
    const char **pats = sim_xcalloc((size_t)n, sizeof *pats);
    size_t *plen = sim_xcalloc((size_t)n, sizeof *plen);
    const char **vars = sim_xcalloc((size_t)n, sizeof *vars);
    long *depths = sim_xcalloc((size_t)n, sizeof *depths);
    int *rp = sim_xcalloc((size_t)n, sizeof *rp), *rv = sim_xcalloc((size_t)n, sizeof *rv);
    long *rdp = sim_xcalloc((size_t)n, sizeof *rdp);
    FILE *dat = NULL, *gp = NULL;
    for (int i = 0; i < n; i++) {
        const struct study_row *r = &s->rows[i];
        size_t pl;
        if (!parse_workload(r->workload, &pl, &rdp[i])) {
            rc = sim_errf(err, -EINVAL, "%s: [%d].workload: '%s' is not '<pattern> qd<iodepth>'", s->file, i,
                          r->workload);
            goto out;
        }
        int p = 0, v = 0, d = 0;
        while (p < np && !(plen[p] == pl && !strncmp(pats[p], r->workload, pl)))
            p++;
        if (p == np) {
            pats[np] = r->workload;
            plen[np++] = pl;
        }
        while (v < nv && strcmp(vars[v], r->variant))
            v++;
        if (v == nv)
            vars[nv++] = r->variant;
        while (d < nd && depths[d] != rdp[i])
            d++;
        if (d == nd)
            depths[nd++] = rdp[i];
        rp[i] = p;
        rv[i] = v;
    }
    for (int a = 1; a < nd; a++) /* depths ascending */
        for (int b2 = a; b2 > 0 && depths[b2 - 1] > depths[b2]; b2--) {
            long t = depths[b2];
            depths[b2] = depths[b2 - 1];
            depths[b2 - 1] = t;
        }
    struct figure *fg = add_figure(c, NULL, "iops-vs-iodepth", "IOPS vs iodepth per image kind / guard / release");
    if ((rc = open_pair(c, fg->name, &dat, &gp, err)) < 0) {
        dat = gp = NULL;
        goto out;
    }
    double ymin = INFINITY, ymax = 0;
    fprintf(dat, "# %s.dat - IOPS vs iodepth (from %s)\n", fg->name, s->file);
    fprintf(dat, "# block (gnuplot index) = pattern * %d + variant; columns: iodepth iodepth_dodged iops ci95\n", nv);
    fprintf(dat, "# (iodepth_dodged spreads the variants a little sideways so equal results stay visible)\n");
    for (int p = 0; p < np; p++)
        for (int v = 0; v < nv; v++) {
            fprintf(dat, "%s# block %d: %.*s, %s\n", p || v ? "\n\n" : "", p * nv + v, (int)plen[p], pats[p], vars[v]);
            double dodge = pow(2, ((double)v - (nv - 1) / 2.0) * 0.03);
            int rows = 0;
            for (int d = 0; d < nd; d++)
                for (int i = 0; i < n; i++)
                    if (rp[i] == p && rv[i] == v && rdp[i] == depths[d]) {
                        const struct study_row *r = &s->rows[i];
                        fprintf(dat, "%ld %.4f %.3f %.3f\n", depths[d], (double)depths[d] * dodge, r->iops, r->iops_ci);
                        if (r->iops > 0)
                            ymin = fmin(ymin, r->iops - r->iops_ci > 0 ? r->iops - r->iops_ci : r->iops);
                        ymax = fmax(ymax, r->iops + r->iops_ci);
                        rows++;
                        break;
                    }
            if (!rows) /* keep the block so the index numbers stay put */
                fprintf(dat, "%ld NaN NaN NaN\n", depths[0]);
        }
    if (!isfinite(ymin))
        ymin = 1, ymax = 10;
    gp_header(gp, fg->name, "IOPS vs iodepth per variant, one panel per access pattern", 1400, 680);
    fprintf(gp, "set multiplot title \"4k %s IOPS vs iodepth to one image (mean ± 95 %% CI), per image kind / "
                "guard design / release\" font \",13\"\n",
            s->direction);
    fprintf(gp, "set logscale xy\nset xrange [%g:%g]\nset yrange [%g:%g]\nset xtics (", (double)depths[0] / 1.5,
            (double)depths[nd - 1] * 1.5, ymin / 1.6, ymax * 1.6);
    for (int d = 0; d < nd; d++)
        fprintf(gp, "%s\"%ld\" %ld", d ? ", " : "", depths[d], depths[d]);
    fputs(")\nset ytics (", gp);
    int nt = 0;
    for (double dec = pow(10, floor(log10(ymin / 1.6))); dec <= ymax * 1.6; dec *= 10)
        for (int m = 0; m < 3; m++) {
            double t = dec * (m == 0 ? 1 : m == 1 ? 2 : 5);
            if (t >= ymin / 1.6 && t <= ymax * 1.6)
                fprintf(gp, "%s\"%g\" %g", nt++ ? ", " : "", t, t);
        }
    fputs(")\nset mytics 10\nset xlabel \"iodepth (log scale)\"\n"
          "set tmargin at screen 0.88\nset bmargin at screen 0.11\n",
          gp);
    double left = 0.07, right = 0.70, gap = 0.06, pw = (right - left - gap * (np - 1)) / np;
    for (int p = 0; p < np; p++) {
        const char *pt = pattern_title(pats[p], plen[p]);
        fprintf(gp, "set lmargin at screen %.4f\nset rmargin at screen %.4f\n", left + p * (pw + gap),
                left + p * (pw + gap) + pw);
        fprintf(gp, "set title \"%s%.*s %s\"\n", pt ? pt : "", pt ? 0 : (int)plen[p], pats[p], s->direction);
        fputs(p == 0 ? "set ylabel \"IOPS (log scale)\"\n" : "unset ylabel\n", gp);
        if (p == np - 1)
            fputs("set key at screen 0.72, screen 0.88 left top Left reverse samplen 3 spacing 1.15 "
                  "title \"image / guard / release\"\n",
                  gp);
        else
            fputs("unset key\n", gp);
        fputs("plot ", gp);
        for (int v = 0; v < nv; v++) {
            fprintf(gp, "%s\"%s.dat\" index %d using 2:3:4 with yerrorlines lt %d ", v ? ", \\\n     " : "", fg->name,
                    p * nv + v, v % N_PALETTE + 1);
            if (p == np - 1) {
                fputs("title ", gp);
                plot_gp_str(gp, '"', vars[v]);
            } else {
                fputs("notitle", gp);
            }
        }
        fputc('\n', gp);
    }
    fputs("unset multiplot\n", gp);
    rc = close_pair(dat, gp, fg->name, err);
    dat = gp = NULL;
out:
    if (dat)
        fclose(dat);
    if (gp)
        fclose(gp);
    free(pats);
    free(plen);
    free(vars);
    free(depths);
    free(rp);
    free(rv);
    free(rdp);
    return rc;
}

/* ------------------------------------------------------------------ sources */

static bool is_run_dir(const char *dir)
{
    return file_in(dir, "fio.json") || file_in(dir, "sim.json");
}

/* A run output directory: latency-cdf from fio.json (+ historic ops), waterfall from sim.json. */
static int plot_run(struct plot_ctx *c, const char *dir, const char *prefix, struct sim_err *err)
{
    struct run_data rd = {.lat_mean_us = NAN};
    int rc = 0;
    char *fio = xasprintf("%s/fio.json", dir), *sim = xasprintf("%s/sim.json", dir);
    if (is_file(sim))
        rc = load_sim(sim, &rd, err);
    if (rc == 0 && is_file(fio) && (rc = load_fio(fio, &rd, err)) == 0)
        rc = load_historic(dir, &rd, err);
    if (rc == 0 && rd.n_series)
        rc = fig_cdf(c, prefix, dir, &rd, err);
    if (rc == 0 && rd.have_stages)
        rc = fig_waterfall(c, prefix, dir, &rd, err);
    free(fio);
    free(sim);
    run_data_free(&rd);
    return rc;
}

static int plot_studies(struct plot_ctx *c, const char *dir, struct sim_err *err)
{
    struct study s;
    int rc = 0;
    if (file_in(dir, "qd1-latency.json")) {
        if ((rc = load_study(dir, "qd1-latency.json", false, &s, err)) == 0) {
            char *title = xasprintf("QD=1 4k random %s: mean completion latency per tuning, 95 %% CI over %d "
                                    "replication%s\nthe seed's cluster tuned (first row), each tuning undone, "
                                    "faster NIC / CPU, a Crimson-like OSD",
                                    s.direction, s.rows[0].n, s.rows[0].n == 1 ? "" : "s");
            rc = fig_bars(c, &s, "qd1-tunings", "QD=1 latency per tuning variant", title, true, err);
            free(title);
        }
        free(s.rows);
    }
    if (rc == 0 && file_in(dir, "clone-serialisation.json")) {
        if ((rc = load_study(dir, "clone-serialisation.json", true, &s, err)) == 0)
            rc = fig_iops(c, &s, err);
        free(s.rows);
    }
    if (rc == 0 && file_in(dir, "copyup.json")) {
        if ((rc = load_study(dir, "copyup.json", false, &s, err)) == 0) {
            char *title = xasprintf("First writes to a fresh clone (copy-up), 4k random %s QD=1: mean latency per "
                                    "guard design\n95 %% CI over %d replication%s; first row: an image without parent",
                                    s.direction, s.rows[0].n, s.rows[0].n == 1 ? "" : "s");
            rc = fig_bars(c, &s, "copyup", "first-write (copy-up) latency per guard design", title, false, err);
            free(title);
        }
        free(s.rows);
    }
    return rc;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Immediate sub-directories that are run outputs, sorted (not out_dir itself). */
static int plot_subdirs(struct plot_ctx *c, const char *dir, const char *out_dir, struct sim_err *err)
{
    DIR *d = opendir(dir);
    if (!d)
        return sim_errf(err, -errno, "%s: cannot read: %s", dir, strerror(errno));
    char **names = NULL;
    int n = 0, rc = 0;
    struct dirent *e;
    struct stat out_st;
    bool have_out = stat(out_dir, &out_st) == 0;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char *p = xasprintf("%s/%s", dir, e->d_name);
        struct stat st;
        bool is_out = have_out && stat(p, &st) == 0 && st.st_dev == out_st.st_dev && st.st_ino == out_st.st_ino;
        if (!is_out && is_dir(p) && is_run_dir(p)) {
            names = sim_xrealloc(names, (size_t)n + 1, sizeof *names);
            names[n++] = sim_xstrdup(e->d_name);
        }
        free(p);
    }
    closedir(d);
    if (n > 1)
        qsort(names, (size_t)n, sizeof *names, cmp_str);
    for (int i = 0; i < n; i++) {
        if (rc == 0) {
            char *p = xasprintf("%s/%s", dir, names[i]);
            rc = plot_run(c, p, names[i], err);
            free(p);
        }
        free(names[i]);
    }
    free(names);
    return rc;
}

/* ------------------------------------------------------------------ rendering */

/* One figure: its script run once per format, each checked for its output. */
static int render_one(const struct plot_ctx *c, const char *name, unsigned formats, struct sim_err *err)
{
    static const char *const fmts[] = {"png", "svg"};
    char *script = xasprintf("%s.gp", name);
    int rc = 0;
    for (int k = 0; k < 2 && rc == 0; k++) {
        if (!(formats & (1u << k)))
            continue;
        char *pre = xasprintf("fmt = \"%s\"", fmts[k]);
        char *out = xasprintf("%s.%s", name, fmts[k]);
        rc = plot_gnuplot(c->tmp, pre, script, out, err);
        free(pre);
        free(out);
    }
    free(script);
    return rc;
}

/* Run gnuplot on every figure's script. */
static int render(const struct plot_ctx *c, unsigned formats, struct sim_err *err)
{
    int rc = 0;
    for (int i = 0; i < c->n_figs && rc == 0; i++)
        rc = render_one(c, c->figs[i].name, formats, err);
    return rc;
}

/* Move the finished files from the temporary directory into out_dir. */
static int move_into_place(const struct plot_ctx *c, const char *out_dir, unsigned formats, bool rendered,
                           struct sim_err *err)
{
    static const char *const exts[] = {"dat", "gp", "png", "svg"};
    for (int i = 0; i < c->n_figs; i++)
        for (int k = 0; k < 4; k++) {
            if (k >= 2 && (!rendered || !(formats & (1u << (k - 2)))))
                continue;
            char *from = xasprintf("%s/%s.%s", c->tmp, c->figs[i].name, exts[k]);
            char *to = xasprintf("%s/%s.%s", out_dir, c->figs[i].name, exts[k]);
            int rc = rename(from, to) ? sim_errf(err, -errno, "%s: cannot create: %s", to, strerror(errno)) : 0;
            free(from);
            free(to);
            if (rc < 0)
                return rc;
        }
    return 0;
}

int plot_dir(const struct plot_opts *o, struct sim_err *err)
{
    if (!is_dir(o->dir))
        return sim_errf(err, -ENOENT, "%s: not a directory", o->dir);
    unsigned formats = o->formats & (PLOT_PNG | PLOT_SVG);
    if (o->render && !formats)
        return sim_errf(err, -EINVAL, "no output format");
    if (o->render && !plot_have_gnuplot())
        return sim_errf(err, -ENOENT, "gnuplot not found; install gnuplot-nox (tools/setup.sh does)");
    char *out_dir = o->out_dir ? sim_xstrdup(o->out_dir) : xasprintf("%s/plots", o->dir);
    bool existed = is_dir(out_dir);
    int rc = files_mkdir_p(out_dir);
    if (rc < 0) {
        sim_errf(err, rc, "%s: cannot create: %s", out_dir, strerror(-rc));
        free(out_dir);
        return rc;
    }
    char *tmp = xasprintf("%s/.cephsim-plot.%ld", out_dir, (long)getpid());
    files_rm_tree(tmp);
    struct plot_ctx c = {.tmp = tmp};
    if (mkdir(tmp, 0777) != 0) {
        rc = sim_errf(err, -errno, "%s: cannot create: %s", tmp, strerror(errno));
        goto out;
    }
    if (is_run_dir(o->dir))
        rc = plot_run(&c, o->dir, NULL, err);
    if (rc == 0)
        rc = plot_studies(&c, o->dir, err);
    if (rc == 0)
        rc = plot_subdirs(&c, o->dir, out_dir, err);
    if (rc == 0 && c.n_figs == 0)
        rc = sim_errf(err, -ENOENT, "%s: nothing to plot: no fio.json or sim.json (a run's output), nor "
                      "qd1-latency.json, clone-serialisation.json or copyup.json (the studies')", o->dir);
    if (rc == 0 && o->render)
        rc = render(&c, formats, err);
    if (rc == 0)
        rc = move_into_place(&c, out_dir, formats, o->render, err);
    if (rc == 0 && o->log) {
        const char *files = !o->render                              ? "{dat,gp}"
                            : formats == (PLOT_PNG | PLOT_SVG)       ? "{png,svg}"
                            : formats & PLOT_PNG                     ? "png"
                                                                     : "svg";
        int w = 0;
        for (int i = 0; i < c.n_figs; i++)
            w = fmax(w, (int)(strlen(c.figs[i].name) + strlen(files) + 1));
        fprintf(o->log, "cephsim plot: %d figure%s in %s/ (with NAME.dat and NAME.gp)\n", c.n_figs,
                c.n_figs == 1 ? "" : "s", out_dir);
        for (int i = 0; i < c.n_figs; i++)
            fprintf(o->log, "  %s.%-*s  %s\n", c.figs[i].name, w - (int)strlen(c.figs[i].name) - 1, files,
                    c.figs[i].what);
    }
out:
    files_rm_tree(tmp);
    if (rc < 0 && !existed)
        rmdir(out_dir);
    free(c.figs);
    free(tmp);
    free(out_dir);
    return rc;
}

/* ------------------------------------------------------------------ the command */

static void plot_usage(FILE *f)
{
    fprintf(f, "usage: cephsim plot DIR [-o OUTDIR] [--format png|svg|both] [--no-render]\n"
               "  DIR                  a run's outputs (cephsim run SCENARIO -o DIR) or the studies'\n"
               "                       (out/runs/default: qd1-latency.json, clone-serialisation.json, copyup.json)\n"
               "  -o, --output OUTDIR  where the figures go (default DIR/plots): NAME.png/.svg, NAME.dat, NAME.gp\n"
               "  -f, --format FMT     png (default), svg or both\n"
               "  -n, --no-render      write the data files and gnuplot scripts only (no gnuplot needed)\n"
               "  -h, --help           this text\n");
}

int cmd_plot(int argc, char **argv)
{
    static const struct option opts[] = {{"output", required_argument, NULL, 'o'},
                                         {"format", required_argument, NULL, 'f'},
                                         {"no-render", no_argument, NULL, 'n'},
                                         {"help", no_argument, NULL, 'h'},
                                         {0}};
    struct plot_opts o = {.formats = PLOT_PNG, .render = true, .log = stdout};
    int ch;
    optind = 0; /* glibc: a full rescan, also when called more than once */
    while ((ch = getopt_long(argc, argv, "o:f:nh", opts, NULL)) != -1) {
        switch (ch) {
        case 'o': o.out_dir = optarg; break;
        case 'f':
            if (!strcmp(optarg, "png"))
                o.formats = PLOT_PNG;
            else if (!strcmp(optarg, "svg"))
                o.formats = PLOT_SVG;
            else if (!strcmp(optarg, "both"))
                o.formats = PLOT_PNG | PLOT_SVG;
            else {
                fprintf(stderr, "cephsim plot: --format '%s': expected png, svg or both\n", optarg);
                return 2;
            }
            break;
        case 'n': o.render = false; break;
        case 'h': plot_usage(stdout); return 0;
        default: plot_usage(stderr); return 2;
        }
    }
    if (argc - optind != 1) {
        fprintf(stderr, "cephsim plot: expected one directory (got %d); try cephsim plot --help\n", argc - optind);
        return 2;
    }
    o.dir = argv[optind];
    if (o.render && !plot_have_gnuplot()) {
        fprintf(stderr, "cephsim plot: gnuplot not found; install gnuplot-nox (tools/setup.sh does)\n");
        return 1;
    }
    struct sim_err err = {0};
    int rc = plot_dir(&o, &err);
    if (rc < 0) {
        fprintf(stderr, "cephsim plot: %s\n", err.msg[0] ? err.msg : strerror(-rc));
        return 1;
    }
    return 0;
}
