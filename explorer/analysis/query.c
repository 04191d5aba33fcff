/*
 * query.c - ready-made questions to a sweep database (see query.h).
 *
 * Everything reads the point_results view (db.c): one row per point with the
 * mean of each metric over its replications and, for the headline metrics,
 * a 95 % CI half-width.  Plots are drawn by gnuplot from the scripts in
 * explorer/plot/ (B.3: plots are never a build or test dependency).
 */
#include "query.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "db.h"
#include "files.h"
#include "gnuplot.h"

/* ---- result tables -------------------------------------------------------- */

struct qtable {
    int nc, nr, cap;
    char **head; /* nc */
    char **cell; /* nr * nc */
};

static void qt_init(struct qtable *t, int nc)
{
    memset(t, 0, sizeof *t);
    t->nc = nc;
    t->head = sim_xcalloc((size_t)nc, sizeof *t->head);
}

static void qt_free(struct qtable *t)
{
    for (int i = 0; i < t->nc; i++)
        free(t->head[i]);
    for (int i = 0; i < t->nr * t->nc; i++)
        free(t->cell[i]);
    free(t->head);
    free(t->cell);
    memset(t, 0, sizeof *t);
}

static char **qt_new_row(struct qtable *t)
{
    if (t->nr == t->cap) {
        t->cap = t->cap ? 2 * t->cap : 64;
        t->cell = sim_xrealloc(t->cell, (size_t)t->cap * (size_t)t->nc, sizeof *t->cell);
    }
    char **row = t->cell + (size_t)t->nr++ * (size_t)t->nc;
    memset(row, 0, (size_t)t->nc * sizeof *row);
    return row;
}

static char *fmt_double(double x, bool csv)
{
    char buf[64];
    if (csv)
        snprintf(buf, sizeof buf, "%.10g", x);
    else if (fabs(x) >= 1000)
        snprintf(buf, sizeof buf, "%.0f", x);
    else if (fabs(x) >= 10)
        snprintf(buf, sizeof buf, "%.1f", x);
    else
        snprintf(buf, sizeof buf, "%.3g", x);
    return sim_xstrdup(buf);
}

static char *fmt_column(sqlite3_stmt *st, int i, bool csv)
{
    char buf[32];
    switch (sqlite3_column_type(st, i)) {
    case SQLITE_NULL: return sim_xstrdup("");
    case SQLITE_INTEGER: snprintf(buf, sizeof buf, "%lld", (long long)sqlite3_column_int64(st, i)); return sim_xstrdup(buf);
    case SQLITE_FLOAT: return fmt_double(sqlite3_column_double(st, i), csv);
    default: return sim_xstrdup((const char *)sqlite3_column_text(st, i));
    }
}

static void qt_heads_from(struct qtable *t, sqlite3_stmt *st)
{
    for (int i = 0; i < t->nc; i++)
        t->head[i] = sim_xstrdup(sqlite3_column_name(st, i));
}

static void qt_row_from(struct qtable *t, sqlite3_stmt *st, bool csv)
{
    char **row = qt_new_row(t);
    for (int i = 0; i < t->nc; i++)
        row[i] = fmt_column(st, i, csv);
}

/*
 * For "no such column: X": the axis column whose last part is X ("fio.iodepth"
 * for iodepth), which SQL must quote because of its dot; "" when there is none.
 */
static void column_hint(sqlite3 *h, const char *msg, char *hint, size_t n)
{
    static const char prefix[] = "no such column: ";
    static const char *const sections[] = { "fio", "ceph", "cluster", "pool", "image", "clients", "sim", "cost",
                                            "hw.cpu", "hw.nvme", "hw.nic", "hw.switch" };
    hint[0] = '\0';
    if (strncmp(msg, prefix, sizeof prefix - 1))
        return;
    const char *col = msg + sizeof prefix - 1;
    if (strchr(col, '.') || strchr(col, '"') || strlen(col) > 100)
        return;
    for (size_t i = 0; i < sizeof sections / sizeof sections[0]; i++) {
        /* pragma_table_info, not a probe SELECT: SQLite reads an unknown "x" as a string */
        char *probe = sqlite3_mprintf("SELECT 1 FROM pragma_table_info('point_results') WHERE name = '%q.%q'",
                                      sections[i], col);
        sqlite3_stmt *st = NULL;
        bool ok = sqlite3_prepare_v2(h, probe, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW;
        sqlite3_finalize(st);
        sqlite3_free(probe);
        if (ok) {
            snprintf(hint, n, " (the axis is the column \"%s.%.100s\": quote it, e.g. --where '\"%s.%.100s\"=1')",
                     sections[i], col, sections[i], col);
            return;
        }
    }
}

static int prepare(sqlite3 *h, const char *sql, sqlite3_stmt **st, struct sim_err *err)
{
    if (sqlite3_prepare_v2(h, sql, -1, st, NULL) != SQLITE_OK) {
        char msg[256], hint[400];
        snprintf(msg, sizeof msg, "%s", sqlite3_errmsg(h));
        column_hint(h, msg, hint, sizeof hint);
        return sim_errf(err, -EINVAL, "%s: sqlite: %s%s", sqlite3_db_filename(h, "main"), msg, hint);
    }
    return 0;
}

static int qt_fill(sqlite3 *h, const char *sql, bool csv, struct qtable *t, struct sim_err *err)
{
    sqlite3_stmt *st;
    int rc = prepare(h, sql, &st, err);
    if (rc < 0)
        return rc;
    qt_init(t, sqlite3_column_count(st));
    qt_heads_from(t, st);
    int s;
    while ((s = sqlite3_step(st)) == SQLITE_ROW)
        qt_row_from(t, st, csv);
    if (s != SQLITE_DONE)
        rc = sim_errf(err, -EIO, "%s: sqlite: %s", sqlite3_db_filename(h, "main"), sqlite3_errmsg(h));
    sqlite3_finalize(st);
    return rc;
}

static bool is_number(const char *s)
{
    char *end;
    if (!s[0])
        return false;
    strtod(s, &end);
    return *end == '\0';
}

static void csv_cell(FILE *f, const char *s)
{
    if (!strpbrk(s, ",\"\n\r")) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

static void qt_print(FILE *f, const struct qtable *t, bool csv)
{
    if (csv) {
        for (int r = -1; r < t->nr; r++)
            for (int c = 0; c < t->nc; c++) {
                csv_cell(f, r < 0 ? t->head[c] : t->cell[(size_t)r * (size_t)t->nc + (size_t)c]);
                fputc(c + 1 < t->nc ? ',' : '\n', f);
            }
        return;
    }
    int *w = sim_xcalloc((size_t)t->nc, sizeof *w);
    for (int c = 0; c < t->nc; c++) {
        w[c] = (int)strlen(t->head[c]);
        for (int r = 0; r < t->nr; r++) {
            int n = (int)strlen(t->cell[(size_t)r * (size_t)t->nc + (size_t)c]);
            w[c] = n > w[c] ? n : w[c];
        }
    }
    for (int r = -1; r < t->nr; r++) {
        for (int c = 0; c < t->nc; c++) {
            const char *s = r < 0 ? t->head[c] : t->cell[(size_t)r * (size_t)t->nc + (size_t)c];
            bool right = r >= 0 && is_number(s);
            fprintf(f, "%s%*s%s", c ? "  " : "", right ? w[c] : -w[c], s, "");
        }
        fputc('\n', f);
        if (r < 0) {
            for (int c = 0; c < t->nc; c++) {
                fprintf(f, "%s", c ? "  " : "");
                for (int k = 0; k < w[c]; k++)
                    fputc('-', f);
            }
            fputc('\n', f);
        }
    }
    free(w);
}

/* ---- the scope of a question ---------------------------------------------- */

struct qctx {
    sqlite3 *h;
    char **axes;
    int n_axes;
    char *scope; /* SQL condition on point_results */
};

static void qctx_close(struct qctx *q)
{
    db_free_names(q->axes, q->n_axes);
    sqlite3_free(q->scope);
    sqlite3_close_v2(q->h);
    memset(q, 0, sizeof *q);
}

static void axes_from_json(struct qctx *q, const char *json)
{
    cJSON *a = cJSON_Parse(json);
    const cJSON *it;
    q->axes = sim_xcalloc((size_t)cJSON_GetArraySize(a) + 1, sizeof *q->axes);
    cJSON_ArrayForEach(it, a) if (cJSON_IsString(it)) q->axes[q->n_axes++] = sim_xstrdup(it->valuestring);
    cJSON_Delete(a);
}

static int qctx_open(const struct query_opts *o, struct qctx *q, struct sim_err *err)
{
    memset(q, 0, sizeof *q);
    struct stat stt;
    if (stat(o->db_path, &stt) != 0)
        return sim_errf(err, -ENOENT, "%s: %s", o->db_path, strerror(errno));
    /* SQLite would say "disk I/O error" */
    if (S_ISDIR(stt.st_mode))
        return sim_errf(err, -EISDIR, "%s: is a directory, not a sweep database", o->db_path);
    if (sqlite3_open_v2(o->db_path, &q->h, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
        int rc = sim_errf(err, -EIO, "%s: cannot open: %s", o->db_path, sqlite3_errmsg(q->h));
        qctx_close(q);
        return rc;
    }
    sqlite3_busy_timeout(q->h, 5000); /* as db_open: wait out a running sweep's write */
    sqlite3_stmt *st;
    int rc = 0;
    if (sqlite3_prepare_v2(q->h, "SELECT count(*) FROM sqlite_schema WHERE name IN ('point_results', 'sweeps')", -1,
                           &st, NULL) != SQLITE_OK || sqlite3_step(st) != SQLITE_ROW || sqlite3_column_int(st, 0) != 2) {
        sqlite3_finalize(st);
        rc = sim_errf(err, -EINVAL, "%s: not a cephsim sweep database", o->db_path);
        goto fail;
    }
    sqlite3_finalize(st);
    char *sql = o->sweep ? sqlite3_mprintf("SELECT axes_json FROM sweeps WHERE name = %Q", o->sweep)
                         : sqlite3_mprintf("SELECT axes_json FROM sweeps WHERE (SELECT count(*) FROM sweeps) = 1");
    rc = prepare(q->h, sql, &st, err);
    sqlite3_free(sql);
    if (rc < 0)
        goto fail;
    if (sqlite3_step(st) == SQLITE_ROW) {
        axes_from_json(q, (const char *)sqlite3_column_text(st, 0));
    } else if (o->sweep) {
        sqlite3_finalize(st);
        rc = sim_errf(err, -ENOENT, "%s: no sweep named '%s' (cephsim query %s lists them)", o->db_path, o->sweep,
                      o->db_path);
        goto fail;
    } else {
        /* several sweeps: every axis column (none when the query fails: the tables are checked above) */
        struct sim_err e2;
        if (db_axis_columns(q->h, "main", &q->axes, &q->n_axes, &e2) < 0)
            q->n_axes = 0;
    }
    sqlite3_finalize(st);
    q->scope = o->sweep ? sqlite3_mprintf("point_id IN (SELECT sp.point_id FROM sweep_points sp JOIN sweeps s "
                                          "ON s.sweep_id = sp.sweep_id WHERE s.name = %Q)", o->sweep)
                        : sqlite3_mprintf("1");
    if (o->where) {
        char *s = sqlite3_mprintf("%s AND (%s)", q->scope, o->where);
        sqlite3_free(q->scope);
        q->scope = s;
    }
    return 0;
fail:
    qctx_close(q);
    return rc;
}

static bool has_axis(const struct qctx *q, const char *name)
{
    for (int i = 0; i < q->n_axes; i++)
        if (!strcmp(q->axes[i], name))
            return true;
    return false;
}

/* "a", "b", ... quoted, for a SELECT list (sqlite3_malloc'd). */
static char *axes_select(const struct qctx *q)
{
    char *s = sqlite3_mprintf("");
    for (int i = 0; i < q->n_axes; i++) {
        char *t = sqlite3_mprintf("%s\"%w\", ", s, q->axes[i]);
        sqlite3_free(s);
        s = t;
    }
    return s;
}

static int check_metric(const char *metric, struct sim_err *err)
{
    if (db_metric_find(metric))
        return 0;
    char list[1200] = "";
    for (const struct db_metric *m = db_metrics(); m->name; m++) {
        strncat(list, list[0] ? ", " : "", sizeof list - strlen(list) - 1);
        strncat(list, m->name, sizeof list - strlen(list) - 1);
    }
    return sim_errf(err, -EINVAL, "unknown metric '%s' (one of: %s)", metric, list);
}

/* ---- questions ------------------------------------------------------------ */

static int q_summary(const struct query_opts *o, struct qctx *q, FILE *out, struct sim_err *err)
{
    struct qtable t;
    int rc = qt_fill(q->h,
                     "SELECT s.name AS sweep, s.axes_json AS axes,\n"
                     "  (SELECT count(*) FROM sweep_points sp WHERE sp.sweep_id = s.sweep_id) AS points,\n"
                     "  (SELECT sum(p.replications) FROM sweep_points sp JOIN points p ON p.point_id = sp.point_id\n"
                     "     WHERE sp.sweep_id = s.sweep_id) AS runs,\n"
                     "  (SELECT count(*) FROM sweep_points sp JOIN points p ON p.point_id = sp.point_id JOIN runs r\n"
                     "     ON r.point_id = sp.point_id AND r.replication < p.replications\n"
                     "     WHERE sp.sweep_id = s.sweep_id AND r.status = 'done') AS done,\n"
                     "  (SELECT count(*) FROM sweep_points sp JOIN runs r ON r.point_id = sp.point_id\n"
                     "     WHERE sp.sweep_id = s.sweep_id AND r.status = 'failed') AS failed,\n"
                     "  s.cephsim_version AS version, s.updated_at AS updated\n"
                     "FROM sweeps s ORDER BY s.sweep_id",
                     o->csv, &t, err);
    if (rc < 0)
        return rc;
    qt_print(out, &t, o->csv);
    qt_free(&t);
    if (!o->csv) {
        fprintf(out, "\nmetrics (views results and point_results):");
        for (const struct db_metric *m = db_metrics(); m->name; m++)
            fprintf(out, " %s%s", m->name, m->ci ? "[_ci95]" : "");
        fputc('\n', out);
    }
    return 0;
}

static int q_best(const struct query_opts *o, struct qctx *q, FILE *out, struct sim_err *err)
{
    int rc = check_metric(o->metric, err);
    if (rc < 0)
        return rc;
    const struct db_metric *m = db_metric_find(o->metric);
    int dir = o->direction ? o->direction : (strstr(m->name, "iops") || strstr(m->name, "bw_")) ? 1 : -1;
    char *ax = axes_select(q);
    char *sql = sqlite3_mprintf("SELECT %sn, \"%w\"%s%s%s, point_id FROM point_results WHERE %s AND \"%w\" IS NOT NULL "
                                "ORDER BY \"%w\" %s, point_id LIMIT %d",
                                ax, m->name, m->ci ? ", \"" : "", m->ci ? m->name : "", m->ci ? "_ci95\"" : "",
                                q->scope, m->name, m->name, dir > 0 ? "DESC" : "ASC", o->limit > 0 ? o->limit : 10);
    struct qtable t;
    rc = qt_fill(q->h, sql, o->csv, &t, err);
    sqlite3_free(sql);
    sqlite3_free(ax);
    if (rc < 0)
        return rc;
    if (!o->csv)
        fprintf(out, "best points by %s (%s; mean over n replications%s):\n", m->name, dir > 0 ? "highest" : "lowest",
                m->ci ? ", 95 % CI half-width" : "");
    qt_print(out, &t, o->csv);
    qt_free(&t);
    return 0;
}

static int q_pareto(const struct query_opts *o, struct qctx *q, FILE *out, struct sim_err *err)
{
    char *ax = axes_select(q);
    char *sql = sqlite3_mprintf("SELECT %sn, iops, iops_ci95, lat_p99_us, lat_p99_us_ci95, point_id FROM point_results "
                                "WHERE %s AND iops IS NOT NULL AND lat_p99_us IS NOT NULL "
                                "ORDER BY iops DESC, lat_p99_us ASC, point_id",
                                ax, q->scope);
    sqlite3_free(ax);
    sqlite3_stmt *st;
    int rc = prepare(q->h, sql, &st, err);
    sqlite3_free(sql);
    if (rc < 0)
        return rc;
    struct qtable t;
    qt_init(&t, sqlite3_column_count(st));
    qt_heads_from(&t, st);
    int cp = q->n_axes + 3, total = 0;
    double best_p99 = INFINITY;
    while (sqlite3_step(st) == SQLITE_ROW) {
        total++;
        double p99 = sqlite3_column_double(st, cp);
        if (p99 < best_p99) { /* faster than every point with more IOPS: on the frontier */
            best_p99 = p99;
            qt_row_from(&t, st, o->csv);
        }
    }
    sqlite3_finalize(st);
    if (!o->csv)
        fprintf(out, "Pareto front, IOPS (higher) vs p99 latency (lower): %d of %d points\n", t.nr, total);
    qt_print(out, &t, o->csv);
    qt_free(&t);
    return 0;
}

struct effect {
    const char *axis;
    double range;
    struct qtable t;
};

static int cmp_effects(const void *a, const void *b)
{
    const struct effect *x = a, *y = b;
    return (x->range < y->range) - (x->range > y->range);
}

static int q_effects(const struct query_opts *o, struct qctx *q, FILE *out, struct sim_err *err)
{
    int rc = check_metric(o->metric, err);
    if (rc < 0)
        return rc;
    if (q->n_axes == 0)
        return sim_errf(err, -EINVAL, "%s: no axes to compare", o->db_path);
    struct effect *ef = sim_xcalloc((size_t)q->n_axes, sizeof *ef);
    for (int i = 0; i < q->n_axes && rc == 0; i++) {
        const char *a = q->axes[i];
        ef[i].axis = a;
        sqlite3_stmt *st;
        char *sql = sqlite3_mprintf("SELECT count(DISTINCT \"%w\"), sum(typeof(\"%w\") IN ('integer', 'real')) = count(*) "
                                    "FROM point_results WHERE %s AND \"%w\" IS NOT NULL",
                                    a, a, q->scope, o->metric);
        rc = prepare(q->h, sql, &st, err);
        sqlite3_free(sql);
        if (rc < 0)
            break;
        sqlite3_step(st);
        int distinct = sqlite3_column_int(st, 0);
        bool numeric = sqlite3_column_int(st, 1);
        sqlite3_finalize(st);
        /* many numeric values (ranges, samples; over 8: at least two per quartile): quartiles of
           the axis instead of single values */
        if (numeric && distinct > 8)
            sql = sqlite3_mprintf("SELECT printf('%%g..%%g', min(v), max(v)) AS value, avg(m) AS mean, count(*) AS points "
                                  "FROM (SELECT \"%w\" AS v, \"%w\" AS m, ntile(4) OVER (ORDER BY \"%w\") AS q "
                                  "FROM point_results WHERE %s AND \"%w\" IS NOT NULL) GROUP BY q ORDER BY q",
                                  a, o->metric, a, q->scope, o->metric);
        else
            sql = sqlite3_mprintf("SELECT \"%w\" AS value, avg(\"%w\") AS mean, count(*) AS points FROM point_results "
                                  "WHERE %s AND \"%w\" IS NOT NULL GROUP BY \"%w\" ORDER BY \"%w\"",
                                  a, o->metric, q->scope, o->metric, a, a);
        rc = prepare(q->h, sql, &st, err);
        sqlite3_free(sql);
        if (rc < 0)
            break;
        double lo = INFINITY, hi = -INFINITY;
        qt_init(&ef[i].t, 3);
        while (sqlite3_step(st) == SQLITE_ROW) {
            double v = sqlite3_column_double(st, 1);
            lo = fmin(lo, v);
            hi = fmax(hi, v);
            qt_row_from(&ef[i].t, st, o->csv);
        }
        sqlite3_finalize(st);
        ef[i].range = ef[i].t.nr ? hi - lo : 0;
    }
    if (rc == 0) {
        qsort(ef, (size_t)q->n_axes, sizeof *ef, cmp_effects);
        struct qtable all;
        qt_init(&all, 5);
        const char *heads[] = {"axis", "value", o->metric, "points", "effect"};
        for (int c = 0; c < 5; c++)
            all.head[c] = sim_xstrdup(heads[c]);
        for (int i = 0; i < q->n_axes; i++)
            for (int r = 0; r < ef[i].t.nr; r++) {
                char **row = qt_new_row(&all);
                row[0] = sim_xstrdup(ef[i].axis);
                for (int c = 0; c < 3; c++)
                    row[1 + c] = sim_xstrdup(ef[i].t.cell[(size_t)r * 3 + (size_t)c]);
                row[4] = fmt_double(ef[i].range, o->csv);
            }
        if (!o->csv)
            fprintf(out, "main effects on %s: mean over the points with each value; effect = max - min of "
                         "those means (largest first)\n", o->metric);
        qt_print(out, &all, o->csv);
        qt_free(&all);
    }
    for (int i = 0; i < q->n_axes; i++)
        qt_free(&ef[i].t);
    free(ef);
    return rc;
}

/* ---- plots ------------------------------------------------------------------ */

/* explorer/plot/NAME: $CEPHSIM_PLOT_DIR, ./explorer/plot, or the source tree around the binary. */
static int find_script(const char *name, char *out, size_t n, struct sim_err *err)
{
    const char *env = getenv("CEPHSIM_PLOT_DIR");
    char dir[PATH_MAX];
    if (files_exe_dir(dir, sizeof dir) < 0)
        strcpy(dir, "."); /* as dirname("") */
    char cands[3][PATH_MAX + 64];
    snprintf(cands[0], sizeof cands[0], "%s/%s", env && env[0] ? env : "explorer/plot", name);
    snprintf(cands[1], sizeof cands[1], "%s/../../explorer/plot/%s", dir, name);
    snprintf(cands[2], sizeof cands[2], "%s/../share/cephsim/plot/%s", dir, name);
    for (int i = 0; i < 3; i++)
        if (access(cands[i], R_OK) == 0 && strlen(cands[i]) < n) {
            memcpy(out, cands[i], strlen(cands[i]) + 1);
            return 0;
        }
    return sim_errf(err, -ENOENT, "cannot find the gnuplot script %s: set CEPHSIM_PLOT_DIR or run from the source tree",
                    name);
}

/* A gnuplot variable assignment VAR='S'; for gnuplot -e. */
static void gp_var(FILE *f, const char *var, const char *s)
{
    fprintf(f, "%s=", var);
    plot_gp_str(f, '\'', s);
    fprintf(f, "; ");
}

/* Distinct values of an axis in the scope, ordered; all numeric? */
static int axis_values(struct qctx *q, const char *axis, const char *metric, struct qtable *vals, bool *numeric,
                       struct sim_err *err)
{
    char *sql = sqlite3_mprintf("SELECT DISTINCT \"%w\" FROM point_results WHERE %s AND \"%w\" IS NOT NULL ORDER BY 1",
                                axis, q->scope, metric);
    int rc = qt_fill(q->h, sql, true, vals, err);
    sqlite3_free(sql);
    *numeric = true;
    for (int r = 0; r < vals->nr; r++)
        *numeric &= is_number(vals->cell[r]);
    return rc;
}

static int value_index(const struct qtable *vals, const char *v)
{
    for (int r = 0; r < vals->nr; r++)
        if (!strcmp(vals->cell[r], v))
            return r;
    return -1;
}

static const char *plot_term(const char *out, struct sim_err *err)
{
    const char *ext = strrchr(out, '.');
    if (ext && !strcasecmp(ext, ".png"))
        return "pngcairo";
    if (ext && !strcasecmp(ext, ".svg"))
        return "svg";
    sim_errf(err, -EINVAL, "-o %s: give a .png or .svg file", out);
    return NULL;
}

static int plot_lines(const struct query_opts *o, struct qctx *q, const struct db_metric *m, FILE *data,
                      FILE *vars, int *n_series, struct sim_err *err)
{
    struct qtable xs;
    bool xnum;
    int rc = axis_values(q, o->x, m->name, &xs, &xnum, err);
    if (rc < 0)
        return rc;
    char *sql = sqlite3_mprintf("SELECT %s%s%s AS series, \"%w\" AS x, avg(\"%w\") AS mean, %s%s%s AS ci, count(*) AS k "
                                "FROM point_results WHERE %s AND \"%w\" IS NOT NULL GROUP BY 1, 2 ORDER BY 1, 2",
                                o->by ? "\"" : "'", o->by ? o->by : m->name, o->by ? "\"" : "'", o->x, m->name,
                                m->ci ? "avg(\"" : "", m->ci ? m->name : "0", m->ci ? "_ci95\")" : "", q->scope,
                                m->name);
    struct qtable t;
    rc = qt_fill(q->h, sql, true, &t, err);
    sqlite3_free(sql);
    if (rc < 0) {
        qt_free(&xs);
        return rc;
    }
    bool single = true;
    for (int r = 0; r < t.nr; r++)
        single &= atoi(t.cell[(size_t)r * 5 + 4]) == 1;
    const char *prev = NULL;
    *n_series = 0;
    for (int r = 0; r < t.nr; r++) {
        char **row = t.cell + (size_t)r * 5;
        if (!prev || strcmp(prev, row[0])) {
            if (prev)
                fprintf(data, "\n\n");
            fprintf(data, "\"");
            if (o->by)
                fprintf(data, "%s=", o->by);
            for (const char *s = row[0]; *s; s++)
                fputc(*s == '"' ? '\'' : *s, data);
            fprintf(data, "\" x mean ci\n");
            (*n_series)++;
            prev = row[0];
        }
        int xi = value_index(&xs, row[1]);
        if (xnum)
            fprintf(data, "%s \"", row[1]);
        else
            fprintf(data, "%d \"", xi);
        for (const char *s = row[1]; *s; s++)
            fputc(*s == '"' ? '\'' : *s, data);
        fprintf(data, "\" %s %s\n", row[2], row[3]);
    }
    fprintf(vars, "nseries=%d; catx=%d; logx=%d; errbars=%d; ", *n_series, !xnum, o->logx && xnum,
            m->ci && single);
    char title[512];
    snprintf(title, sizeof title, "%s vs %s%s%s%s", m->name, o->x, o->by ? " by " : "", o->by ? o->by : "",
             single ? "" : " (mean over the other axes)");
    gp_var(vars, "title", title);
    qt_free(&t);
    qt_free(&xs);
    return 0;
}

static int plot_heat(const struct query_opts *o, struct qctx *q, const struct db_metric *m, FILE *data, FILE *vars,
                     struct sim_err *err)
{
    struct qtable xs, ys;
    bool xnum, ynum;
    int rc = axis_values(q, o->x, m->name, &xs, &xnum, err);
    if (rc < 0)
        return rc;
    if ((rc = axis_values(q, o->y, m->name, &ys, &ynum, err)) < 0) {
        qt_free(&xs);
        return rc;
    }
    char *sql = sqlite3_mprintf("SELECT \"%w\", \"%w\", avg(\"%w\") FROM point_results WHERE %s AND \"%w\" IS NOT NULL "
                                "GROUP BY 1, 2", o->x, o->y, m->name, q->scope, m->name);
    struct qtable t;
    rc = qt_fill(q->h, sql, true, &t, err);
    sqlite3_free(sql);
    if (rc == 0) {
        double *grid = sim_xcalloc((size_t)xs.nr * (size_t)ys.nr + 1, sizeof *grid);
        for (int i = 0; i < xs.nr * ys.nr; i++)
            grid[i] = NAN;
        for (int r = 0; r < t.nr; r++) {
            int xi = value_index(&xs, t.cell[(size_t)r * 3]), yi = value_index(&ys, t.cell[(size_t)r * 3 + 1]);
            if (xi >= 0 && yi >= 0)
                grid[(size_t)yi * (size_t)xs.nr + (size_t)xi] = strtod(t.cell[(size_t)r * 3 + 2], NULL);
        }
        for (int yi = 0; yi < ys.nr; yi++) {
            for (int xi = 0; xi < xs.nr; xi++) {
                double v = grid[(size_t)yi * (size_t)xs.nr + (size_t)xi];
                if (isnan(v))
                    fprintf(data, "%d %d NaN\n", xi, yi);
                else
                    fprintf(data, "%d %d %.10g\n", xi, yi, v);
            }
            fputc('\n', data);
        }
        free(grid);
        for (int k = 0; k < 2; k++) {
            const struct qtable *v = k ? &ys : &xs;
            char *spec = sqlite3_mprintf("(");
            for (int r = 0; r < v->nr; r++) {
                char *label = sqlite3_mprintf("%s", v->cell[r]);
                for (char *ch = label; *ch; ch++) /* inside gnuplot's double quotes */
                    if (*ch == '"' || *ch == '\\')
                        *ch = '\'';
                char *s = sqlite3_mprintf("%s%s\"%s\" %d", spec, r ? ", " : "", label, r);
                sqlite3_free(label);
                sqlite3_free(spec);
                spec = s;
            }
            char *s = sqlite3_mprintf("%s)", spec);
            sqlite3_free(spec);
            gp_var(vars, k ? "ytics_spec" : "xtics_spec", s);
            sqlite3_free(s);
        }
        char title[512];
        snprintf(title, sizeof title, "%s over %s and %s", m->name, o->x, o->y);
        gp_var(vars, "title", title);
        gp_var(vars, "cblabel", m->name);
    }
    qt_free(&t);
    qt_free(&xs);
    qt_free(&ys);
    return rc;
}

/* No gnuplot to run: the plot is skipped, with a note. */
static int no_gnuplot(const struct query_opts *o)
{
    fprintf(stderr, "cephsim query: gnuplot not found: plot %s skipped (apt-get install gnuplot-nox)\n", o->out);
    return 0;
}

static int q_plot(const struct query_opts *o, struct qctx *q, FILE *out, struct sim_err *err)
{
    int rc = check_metric(o->metric, err);
    if (rc < 0)
        return rc;
    const struct db_metric *m = db_metric_find(o->metric);
    const char *term = plot_term(o->out, err);
    if (!term)
        return -EINVAL;
    const char *axes[] = {o->x, o->by, o->y};
    for (int i = 0; i < 3; i++)
        if (axes[i] && !has_axis(q, axes[i]))
            return sim_errf(err, -EINVAL, "%s: '%s' is not an axis of %s", o->db_path, axes[i],
                            o->sweep ? o->sweep : "the database");
    if (!plot_have_gnuplot())
        return no_gnuplot(o);
    char script[PATH_MAX + 80];
    if ((rc = find_script(o->y ? "heatmap.gp" : "lines.gp", script, sizeof script, err)) < 0)
        return rc;
    char dpath[] = "/tmp/cephsim-plot-XXXXXX";
    int fd = mkstemp(dpath);
    if (fd < 0)
        return sim_errf(err, -errno, "cannot create a temporary file: %s", strerror(errno));
    FILE *data = fdopen(fd, "w+");
    char *assign = NULL;
    size_t alen = 0;
    FILE *vars = open_memstream(&assign, &alen);
    int n_series = 0;
    if (o->y)
        rc = plot_heat(o, q, m, data, vars, err);
    else
        rc = plot_lines(o, q, m, data, vars, &n_series, err);
    fclose(data);
    if (rc == 0) {
        gp_var(vars, "datafile", dpath);
        gp_var(vars, "outfile", o->out);
        gp_var(vars, "term", term);
        gp_var(vars, "xlabel", o->x);
        gp_var(vars, "ylabel", o->y ? o->y : m->name);
    }
    fclose(vars);
    if (rc == 0 && !o->y && n_series == 0)
        rc = sim_errf(err, -ENODATA, "%s: no finished point to plot", o->db_path);
    if (rc == 0) {
        rc = plot_gnuplot(NULL, assign, script, o->out, err);
        if (rc == -ENOENT)
            rc = no_gnuplot(o);
        else if (rc == 0 && !o->csv)
            fprintf(out, "%s: %s\n", o->out, o->y ? "heat map" : "plot");
    }
    free(assign);
    unlink(dpath);
    return rc;
}

/*
 * Is there a statement in sql after its first one?  Whatever follows the
 * first is prepared on its own: only whitespace, comments and semicolons
 * prepare to no statement.  The caller runs just the first statement, so a
 * second one would be dropped without a word.
 */
static bool more_than_one_statement(sqlite3 *h, const char *sql)
{
    const char *tail = NULL;
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(h, sql, -1, &st, &tail) != SQLITE_OK)
        return false; /* the caller reports the first statement's error */
    sqlite3_finalize(st);
    while (tail && *tail) {
        st = NULL;
        const char *next = NULL;
        if (sqlite3_prepare_v2(h, tail, -1, &st, &next) != SQLITE_OK)
            return true; /* something, even if not valid SQL */
        bool stmt = st != NULL;
        sqlite3_finalize(st);
        if (stmt)
            return true;
        if (!next || next == tail)
            break;
        tail = next;
    }
    return false;
}

static int q_sql(const struct query_opts *o, struct qctx *q, FILE *out, struct sim_err *err)
{
    sqlite3_stmt *st;
    int rc = prepare(q->h, o->sql, &st, err);
    if (rc < 0)
        return rc;
    bool ro = sqlite3_stmt_readonly(st);
    sqlite3_finalize(st);
    if (more_than_one_statement(q->h, o->sql))
        return sim_errf(err, -EINVAL, "--sql %.200s: more than one statement (only the first would run): give one", o->sql);
    if (!ro)
        return sim_errf(err, -EPERM, "--sql: only read-only statements (use the sqlite3 shell to change the database)");
    struct qtable t;
    if ((rc = qt_fill(q->h, o->sql, o->csv, &t, err)) < 0)
        return rc;
    qt_print(out, &t, o->csv);
    qt_free(&t);
    return 0;
}

int query_run(const struct query_opts *o, FILE *out, struct sim_err *err)
{
    struct qctx q;
    int rc = qctx_open(o, &q, err);
    if (rc < 0)
        return rc;
    switch (o->action) {
    case QUERY_SUMMARY: rc = q_summary(o, &q, out, err); break;
    case QUERY_BEST: rc = q_best(o, &q, out, err); break;
    case QUERY_PARETO: rc = q_pareto(o, &q, out, err); break;
    case QUERY_EFFECTS: rc = q_effects(o, &q, out, err); break;
    case QUERY_PLOT: rc = q_plot(o, &q, out, err); break;
    case QUERY_SQL: rc = q_sql(o, &q, out, err); break;
    }
    qctx_close(&q);
    return rc;
}

static void query_usage(FILE *f)
{
    fprintf(f,
            "usage: cephsim query DB [question] [options]\n"
            "  questions (default: list the sweeps and the metrics):\n"
            "    -b, --best METRIC        the best points by METRIC (iops, bw_mib: highest; others: lowest)\n"
            "        --max | --min        choose the direction of --best\n"
            "    -n, --limit K            how many points --best prints (default 10)\n"
            "    -p, --pareto             points no other beats on both IOPS and p99 latency\n"
            "    -e, --effects METRIC     main effect of each axis on METRIC\n"
            "        --plot METRIC        plot (gnuplot) METRIC against --x, one line per --by value,\n"
            "                             or a heat map over --x and --y; -o FILE.png|FILE.svg\n"
            "        --x AXIS, --by AXIS, --y AXIS, --logx, -o, --output FILE\n"
            "        --sql QUERY          one read-only SQL statement (tables sweeps, points, runs, metrics;\n"
            "                             views results, point_results)\n"
            "  options:\n"
            "    -s, --sweep NAME         only the points of this sweep\n"
            "    -w, --where SQL          only points matching SQL over point_results columns\n"
            "                             (e.g. '\"fio.iodepth\" = 1 AND lat_p99_us < 900')\n"
            "    -c, --csv                CSV instead of a table\n"
            "    -h, --help               this text\n");
}

int cmd_query(int argc, char **argv)
{
    static const struct option opts[] = {
        {"best", required_argument, NULL, 'b'},  {"max", no_argument, NULL, 'X'},
        {"min", no_argument, NULL, 'N'},         {"limit", required_argument, NULL, 'n'},
        {"pareto", no_argument, NULL, 'p'},      {"effects", required_argument, NULL, 'e'},
        {"plot", required_argument, NULL, 'P'},  {"x", required_argument, NULL, 'x'},
        {"by", required_argument, NULL, 'B'},    {"y", required_argument, NULL, 'y'},
        {"logx", no_argument, NULL, 'L'},        {"output", required_argument, NULL, 'o'},
        {"sql", required_argument, NULL, 'S'},   {"sweep", required_argument, NULL, 's'},
        {"where", required_argument, NULL, 'w'}, {"csv", no_argument, NULL, 'c'},
        {"help", no_argument, NULL, 'h'},        {0}};
    struct query_opts o = {.action = QUERY_SUMMARY, .limit = 10};
    int c, n_actions = 0;
    char *end;
    optind = 0;
    while ((c = getopt_long(argc, argv, "b:n:pe:o:s:w:ch", opts, NULL)) != -1) {
        switch (c) {
        case 'b': o.action = QUERY_BEST, o.metric = optarg, n_actions++; break;
        case 'X': o.direction = 1; break;
        case 'N': o.direction = -1; break;
        case 'n':
            o.limit = (int)strtol(optarg, &end, 10);
            if (*end || o.limit < 1) {
                fprintf(stderr, "cephsim query: --limit %s: expected a positive number\n", optarg);
                return 2;
            }
            break;
        case 'p': o.action = QUERY_PARETO, n_actions++; break;
        case 'e': o.action = QUERY_EFFECTS, o.metric = optarg, n_actions++; break;
        case 'P': o.action = QUERY_PLOT, o.metric = optarg, n_actions++; break;
        case 'x': o.x = optarg; break;
        case 'B': o.by = optarg; break;
        case 'y': o.y = optarg; break;
        case 'L': o.logx = true; break;
        case 'o': o.out = optarg; break;
        case 'S': o.action = QUERY_SQL, o.sql = optarg, n_actions++; break;
        case 's': o.sweep = optarg; break;
        case 'w': o.where = optarg; break;
        case 'c': o.csv = true; break;
        case 'h': query_usage(stdout); return 0;
        default: fprintf(stderr, "try 'cephsim query --help'\n"); return 2;
        }
    }
    const char *bad = NULL;
    if (optind + 1 != argc)
        bad = "give one database";
    else if (n_actions > 1)
        bad = "ask one question at a time";
    else if (o.action == QUERY_PLOT && (!o.x || !o.out))
        bad = "--plot needs --x AXIS and -o FILE";
    else if (o.by && o.y)
        bad = "--by (lines) and --y (heat map) exclude each other";
    else if (o.action != QUERY_PLOT && (o.x || o.by || o.y || o.out))
        bad = "--x, --by, --y and -o go with --plot";
    if (bad) {
        fprintf(stderr, "cephsim query: %s (try 'cephsim query --help')\n", bad);
        return 2;
    }
    o.db_path = argv[optind];
    struct sim_err err = {0};
    if (query_run(&o, stdout, &err) < 0) {
        fprintf(stderr, "cephsim query: %s\n", err.msg);
        return 1;
    }
    return 0;
}
