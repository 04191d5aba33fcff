/*
 * db.c - the sweep result database (see db.h and explorer/README.md).
 *
 * Follows SQLite's own testrunner.db habits: WAL so that readers never block
 * the writer, synchronous=NORMAL (durable at checkpoints, never corrupt),
 * BEGIN IMMEDIATE transactions covering a batch of runs with reused prepared
 * statements, and UPSERT (sqlite.org/lang_upsert.html) so that a rerun or a
 * merge can never duplicate a row: runs are keyed by (point_id, replication).
 */
#include "db.h"

#include "files.h"
#include "strbuf.h"

#include <errno.h>
#include <gsl/gsl_cdf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "cluster.h"
#include "runner.h"

_Static_assert(STAGE_COUNT == 10, "db_metric_table lists one column per stage of cluster.h");

static const struct db_metric db_metric_table[] = {
    {"iops", "iops", -1, true, NULL, "I/O operations per second, reads and writes together (fio)"},
    {"bw_mib", "bw_mib", -1, true, NULL, "bandwidth in MiB/s, reads and writes together"},
    {"lat_mean_us", "lat_mean_us", -1, true, "iops", "mean completion latency (fio clat) of every I/O, us"},
    {"lat_p50_us", "lat_p50_us", -1, true, "iops", "median completion latency, us"},
    {"lat_p99_us", "lat_p99_us", -1, true, "iops", "99th percentile completion latency, us"},
    {"lat_p999_us", "lat_p999_us", -1, true, "iops", "99.9th percentile completion latency, us"},
    /* each direction on its own (NULL when it did no I/O): a mixed run's reads and writes */
    {"read_iops", "read_iops", -1, true, NULL, "read I/O operations per second (fio read.iops, all jobs)"},
    {"read_bw_mib", "read_bw_mib", -1, true, NULL, "read bandwidth in MiB/s"},
    {"read_lat_mean_us", "read_lat_mean_us", -1, true, "read_iops", "mean read completion latency (fio read.clat_ns), us"},
    {"read_lat_p50_us", "read_lat_p50_us", -1, true, "read_iops", "median read completion latency, us"},
    {"read_lat_p99_us", "read_lat_p99_us", -1, true, "read_iops", "99th percentile read completion latency, us"},
    {"read_lat_p999_us", "read_lat_p999_us", -1, true, "read_iops", "99.9th percentile read completion latency, us"},
    {"write_iops", "write_iops", -1, true, NULL, "write I/O operations per second (fio write.iops, all jobs)"},
    {"write_bw_mib", "write_bw_mib", -1, true, NULL, "write bandwidth in MiB/s"},
    {"write_lat_mean_us", "write_lat_mean_us", -1, true, "write_iops", "mean write completion latency (fio write.clat_ns), us"},
    {"write_lat_p50_us", "write_lat_p50_us", -1, true, "write_iops", "median write completion latency, us"},
    {"write_lat_p99_us", "write_lat_p99_us", -1, true, "write_iops", "99th percentile write completion latency, us"},
    {"write_lat_p999_us", "write_lat_p999_us", -1, true, "write_iops", "99.9th percentile write completion latency, us"},
    {"rw_lock_waits", "rw_lock_waits", -1, false, NULL, "ops that waited for an object rw lock, all OSDs"},
    {"op_r", "op_r", -1, false, NULL, "OSD op_r count, all OSDs"},
    {"op_w", "op_w", -1, false, NULL, "OSD op_w count, all OSDs"},
    {"op_rw", "op_rw", -1, false, NULL, "OSD op_rw count (read+write ops, e.g. [stat, write]), all OSDs"},
    {"stage_client_submit_us", NULL, STAGE_CLIENT_SUBMIT, false, "iops", "mean time in the stage (cluster.h STAGE_CLIENT_SUBMIT), us"},
    {"stage_net_to_primary_us", NULL, STAGE_NET_TO_PRIMARY, false, "iops", "mean time in the stage (cluster.h STAGE_NET_TO_PRIMARY), us"},
    {"stage_primary_queue_us", NULL, STAGE_PRIMARY_QUEUE, false, "iops", "mean time in the stage (cluster.h STAGE_PRIMARY_QUEUE), us"},
    {"stage_primary_lock_wait_us", NULL, STAGE_PRIMARY_LOCK_WAIT, false, "iops", "mean time in the stage (cluster.h STAGE_PRIMARY_LOCK_WAIT), us"},
    {"stage_primary_prepare_us", NULL, STAGE_PRIMARY_PREPARE, false, "iops", "mean time in the stage (cluster.h STAGE_PRIMARY_PREPARE), us"},
    {"stage_local_commit_us", NULL, STAGE_LOCAL_COMMIT, false, "iops", "mean time in the stage (cluster.h STAGE_LOCAL_COMMIT), us"},
    {"stage_replica_commit_us", NULL, STAGE_REPLICA_COMMIT, false, "iops", "mean time in the stage (cluster.h STAGE_REPLICA_COMMIT), us"},
    {"stage_primary_reply_us", NULL, STAGE_PRIMARY_REPLY, false, "iops", "mean time in the stage (cluster.h STAGE_PRIMARY_REPLY), us"},
    {"stage_net_to_client_us", NULL, STAGE_NET_TO_CLIENT, false, "iops", "mean time in the stage (cluster.h STAGE_NET_TO_CLIENT), us"},
    {"stage_client_complete_us", NULL, STAGE_CLIENT_COMPLETE, false, "iops", "mean time in the stage (cluster.h STAGE_CLIENT_COMPLETE), us"},
    {"osd_host_busy_cores", "osd_host_busy_cores", -1, false, NULL, "mean busy cores per OSD host"},
    {"device_utilisation", "device_utilisation", -1, false, NULL, "mean NVMe utilisation (0..1)"},
    {"wakeups_per_op", "wakeups_per_op", -1, false, "iops", "thread wake-ups per client op"},
    {"mean_wake_us", "mean_wake_us", -1, false, NULL, "mean wake-up latency (C-state exit + wake), us"},
    {"events_per_op", "events_per_op", -1, false, "iops", "simulation events per client op"},
    {"client_cpu_us_per_op", "client_cpu_us_per_op", -1, false, "iops", "client CPU (fio, librbd, messenger) per op, us"},
    {"osd_cpu_us_per_op", "osd_cpu_us_per_op", -1, false, "iops", "OSD CPU (all threads, all OSDs) per client op, us"},
    {NULL, NULL, -1, false, NULL, NULL},
};

/* Columns of points and of the views that an axis name must not shadow. */
static const char *const reserved[] = {"point_id", "seed", "replications", "cephsim_version", "base",
                                       "sets_json", "params_json", "replication", "status", "error",
                                       "wall_s", "events", "worker", "finished_at", "direction",
                                       "summary_json", "n", "sweep_id", "idx", NULL};

struct db {
    sqlite3 *h;
    char path[1024];   /* for messages: every SQLite error names its database */
    sqlite3_stmt *run_upsert, *metric_insert, *run_done;
};

const struct db_metric *db_metrics(void)
{
    return db_metric_table;
}

const struct db_metric *db_metric_find(const char *name)
{
    for (const struct db_metric *m = db_metric_table; m->name; m++)
        if (!strcmp(m->name, name))
            return m;
    return NULL;
}

bool db_metric_from_summary(const struct db_metric *m, const cJSON *summary, double *out)
{
    /* The runner reports 0 us for a run that completed nothing (4 MiB reads
       in a short run): that would rank as the best latency of a sweep. */
    double n_io;
    if (m->per_io_of && (!db_metric_from_summary(db_metric_find(m->per_io_of), summary, &n_io) || !(n_io > 0)))
        return false;
    const cJSON *v;
    if (m->stage >= 0)
        v = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(summary, "stages_us"),
                                             stage_names[m->stage]);
    else
        v = cJSON_GetObjectItemCaseSensitive(summary, m->summary_key);
    if (m->ci)
        v = cJSON_GetObjectItemCaseSensitive(v, "mean");
    if (!cJSON_IsNumber(v))
        return false;
    *out = v->valuedouble;
    return true;
}

bool db_reserved_name(const char *name)
{
    for (int i = 0; reserved[i]; i++)
        if (!strcasecmp(name, reserved[i]))
            return true;
    char base[128];
    snprintf(base, sizeof base, "%s", name);
    size_t len = strlen(base);
    if (len > 5 && !strcasecmp(base + len - 5, "_ci95"))
        base[len - 5] = '\0';
    for (const struct db_metric *m = db_metric_table; m->name; m++)
        if (!strcasecmp(base, m->name))
            return true;
    return false;
}

const char *db_quote_ident(const char *name, char *buf, size_t n)
{
    size_t k = 0;
    if (n < 3) {
        buf[0] = '\0';
        return buf;
    }
    buf[k++] = '"';
    for (const char *p = name; *p && k + 3 < n; p++) {
        if (*p == '"')
            buf[k++] = '"';
        buf[k++] = *p;
    }
    buf[k++] = '"';
    buf[k] = '\0';
    return buf;
}

static int sql_err(struct db *db, struct sim_err *err, const char *what)
{
    return sim_errf(err, -EIO, "%s: sqlite: %s: %s", db->path, what, sqlite3_errmsg(db->h));
}

static int exec(struct db *db, const char *sql, struct sim_err *err)
{
    char *msg = NULL;
    if (sqlite3_exec(db->h, sql, NULL, NULL, &msg) != SQLITE_OK) {
        int rc = sim_errf(err, -EIO, "%s: sqlite: %s (in: %.80s)", db->path, msg ? msg : "error", sql);
        sqlite3_free(msg);
        return rc;
    }
    return 0;
}

static const char schema_sql[] =
    "CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL) STRICT;\n"
    "CREATE TABLE IF NOT EXISTS sweeps(\n"
    "  sweep_id INTEGER PRIMARY KEY,\n"
    "  name TEXT NOT NULL UNIQUE,\n"
    "  grid_json TEXT NOT NULL,\n"
    "  axes_json TEXT NOT NULL,\n"
    "  replications INTEGER NOT NULL,\n"
    "  cephsim_version TEXT NOT NULL,\n"
    "  created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')),\n"
    "  updated_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now'))) STRICT;\n"
    "CREATE TABLE IF NOT EXISTS points(\n"
    "  point_id TEXT PRIMARY KEY,\n"
    "  seed INTEGER NOT NULL,\n"
    "  replications INTEGER NOT NULL,\n"
    "  cephsim_version TEXT NOT NULL,\n"
    "  base TEXT NOT NULL,\n"
    "  sets_json TEXT NOT NULL,\n"
    "  params_json TEXT NOT NULL) STRICT;\n"
    "CREATE TABLE IF NOT EXISTS sweep_points(\n"
    "  sweep_id INTEGER NOT NULL REFERENCES sweeps ON DELETE CASCADE,\n"
    "  point_id TEXT NOT NULL REFERENCES points,\n"
    "  idx INTEGER NOT NULL,\n"
    "  PRIMARY KEY (sweep_id, point_id)) STRICT, WITHOUT ROWID;\n"
    "CREATE TABLE IF NOT EXISTS runs(\n"
    "  point_id TEXT NOT NULL REFERENCES points,\n"
    "  replication INTEGER NOT NULL,\n"
    "  seed INTEGER NOT NULL,\n"
    "  status TEXT NOT NULL CHECK (status IN ('done', 'failed')),\n"
    "  error TEXT,\n"
    "  wall_s REAL,\n"
    "  events INTEGER,\n"
    "  worker TEXT,\n"
    "  finished_at TEXT NOT NULL,\n"
    "  PRIMARY KEY (point_id, replication)) STRICT, WITHOUT ROWID;\n"
    "CREATE TABLE IF NOT EXISTS t95(df INTEGER PRIMARY KEY, t REAL NOT NULL) STRICT;\n";

static int create_metrics_table(struct db *db, struct sim_err *err)
{
    struct strbuf b = STRBUF_INIT;
    strbuf_printf(&b, "CREATE TABLE IF NOT EXISTS metrics(\n  point_id TEXT NOT NULL,\n  replication INTEGER NOT NULL,\n"
                      "  direction TEXT NOT NULL,\n");
    for (const struct db_metric *m = db_metric_table; m->name; m++)
        strbuf_printf(&b, "  %s REAL,\n", m->name);
    strbuf_printf(&b, "  summary_json TEXT NOT NULL,\n  PRIMARY KEY (point_id, replication),\n"
                      "  FOREIGN KEY (point_id, replication) REFERENCES runs ON DELETE CASCADE) STRICT, WITHOUT ROWID;");
    int rc = exec(db, b.s, err);
    free(b.s);
    return rc;
}

/* Metric columns a database from an older cephsim lacks (NULL in its old rows). */
static int add_metric_columns(struct db *db, struct sim_err *err)
{
    int rc = 0;
    for (const struct db_metric *m = db_metric_table; m->name && rc == 0; m++) {
        char sql[200];
        snprintf(sql, sizeof sql, "SELECT 1 FROM pragma_table_info('metrics') WHERE name = '%s'", m->name);
        sqlite3_stmt *st;
        if (sqlite3_prepare_v2(db->h, sql, -1, &st, NULL) != SQLITE_OK)
            return sql_err(db, err, "metrics columns");
        bool have = sqlite3_step(st) == SQLITE_ROW;
        sqlite3_finalize(st);
        if (!have) {
            snprintf(sql, sizeof sql, "ALTER TABLE metrics ADD COLUMN %s REAL", m->name);
            rc = exec(db, sql, err);
        }
    }
    return rc;
}

/* Student t 97.5 % quantiles, as stats_ci95 uses them, for the views' CIs. */
static int fill_t95(struct db *db, struct sim_err *err)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db->h, "SELECT count(*) FROM t95", -1, &st, NULL) != SQLITE_OK)
        return sql_err(db, err, "t95");
    int have = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int(st, 0) : 0;
    sqlite3_finalize(st);
    if (have >= 1000)
        return 0;
    if (sqlite3_prepare_v2(db->h, "INSERT OR REPLACE INTO t95(df, t) VALUES (?, ?)", -1, &st, NULL) != SQLITE_OK)
        return sql_err(db, err, "t95");
    for (int df = 1; df <= 1000; df++) {
        sqlite3_bind_int(st, 1, df);
        sqlite3_bind_double(st, 2, gsl_cdf_tdist_Pinv(0.975, df));
        sqlite3_step(st);
        sqlite3_reset(st);
    }
    sqlite3_finalize(st);
    return 0;
}

static int prepare_statements(struct db *db, struct sim_err *err)
{
    static const char run_upsert[] =
        "INSERT INTO runs(point_id, replication, seed, status, error, wall_s, events, worker, finished_at)\n"
        "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, strftime('%Y-%m-%dT%H:%M:%fZ','now'))\n"
        "ON CONFLICT(point_id, replication) DO UPDATE SET seed = excluded.seed, status = excluded.status,\n"
        "  error = excluded.error, wall_s = excluded.wall_s, events = excluded.events, worker = excluded.worker,\n"
        "  finished_at = excluded.finished_at WHERE runs.status <> 'done'";
    if (sqlite3_prepare_v3(db->h, run_upsert, -1, SQLITE_PREPARE_PERSISTENT, &db->run_upsert, NULL) != SQLITE_OK)
        return sql_err(db, err, "prepare runs upsert");
    struct strbuf b = STRBUF_INIT;
    strbuf_printf(&b, "INSERT INTO metrics(point_id, replication, direction");
    int n = 3;
    for (const struct db_metric *m = db_metric_table; m->name; m++, n++)
        strbuf_printf(&b, ", %s", m->name);
    strbuf_printf(&b, ", summary_json) VALUES (?");
    for (int i = 1; i <= n; i++)
        strbuf_printf(&b, ", ?");
    strbuf_printf(&b, ") ON CONFLICT(point_id, replication) DO NOTHING");
    int rc = sqlite3_prepare_v3(db->h, b.s, -1, SQLITE_PREPARE_PERSISTENT, &db->metric_insert, NULL);
    free(b.s);
    if (rc != SQLITE_OK)
        return sql_err(db, err, "prepare metrics insert");
    if (sqlite3_prepare_v3(db->h, "SELECT 1 FROM runs WHERE point_id = ? AND replication = ? AND status = 'done'",
                           -1, SQLITE_PREPARE_PERSISTENT, &db->run_done, NULL) != SQLITE_OK)
        return sql_err(db, err, "prepare runs lookup");
    return 0;
}

static int check_schema_version(struct db *db, struct sim_err *err)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db->h, "SELECT value FROM meta WHERE key = 'schema_version'", -1, &st, NULL) != SQLITE_OK)
        return sql_err(db, err, "meta");
    int rc = 0;
    if (sqlite3_step(st) == SQLITE_ROW) {
        int v = atoi((const char *)sqlite3_column_text(st, 0));
        if (v != DB_SCHEMA_VERSION)
            rc = sim_errf(err, -EPROTO, "%s: schema version %d, this cephsim writes %d",
                          sqlite3_db_filename(db->h, "main"), v, DB_SCHEMA_VERSION);
    }
    sqlite3_finalize(st);
    if (rc == 0) {
        char sql[128];
        snprintf(sql, sizeof sql, "INSERT OR IGNORE INTO meta(key, value) VALUES ('schema_version', '%d')",
                 DB_SCHEMA_VERSION);
        rc = exec(db, sql, err);
    }
    return rc;
}

/* PRAGMA quick_check: a database damaged inside a table or index page is
   refused when opened, before any sweep reads or adds to it. */
static int check_integrity(struct db *db, struct sim_err *err)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db->h, "PRAGMA quick_check(1)", -1, &st, NULL) != SQLITE_OK)
        return sql_err(db, err, "cannot check the database (not an SQLite database?)");
    int rc = 0, step = sqlite3_step(st);
    if (step == SQLITE_ROW) {
        const char *res = (const char *)sqlite3_column_text(st, 0);
        if (!res || strcmp(res, "ok"))
            rc = sim_errf(err, -EIO, "%s: damaged database (PRAGMA quick_check: %.200s): not using it", db->path,
                          res ? res : "no answer");
    } else if (step != SQLITE_DONE) {
        rc = sql_err(db, err, "cannot check the database (not an SQLite database?)");
    }
    sqlite3_finalize(st);
    return rc;
}

/* SQLite says "unable to open database file" or "disk I/O error" for a directory. */
static int refuse_directory(const char *path, struct sim_err *err)
{
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
        return sim_errf(err, -EISDIR, "%s: is a directory, not a sweep database", path);
    return 0;
}

int db_open(const char *path, struct db **out, struct sim_err *err)
{
    int rc;
    *out = NULL;
    if ((rc = refuse_directory(path, err)) < 0)
        return rc;
    struct db *db = sim_xcalloc(1, sizeof *db);
    snprintf(db->path, sizeof db->path, "%s", path);
    files_mkdir_parents(path); /* out/sweeps/x.db works on a fresh clone */
    if (sqlite3_open_v2(path, &db->h, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) != SQLITE_OK) {
        rc = sim_errf(err, -EIO, "%s: cannot open: %s", path, db->h ? sqlite3_errmsg(db->h) : "out of memory");
        goto fail;
    }
    sqlite3_busy_timeout(db->h, 5000);
    if ((rc = check_integrity(db, err)) < 0)
        goto fail;
    if ((rc = exec(db, "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON;", err)) < 0)
        goto fail;
    if ((rc = exec(db, "BEGIN IMMEDIATE", err)) < 0)
        goto fail;
    if ((rc = exec(db, schema_sql, err)) < 0 || (rc = create_metrics_table(db, err)) < 0 ||
        (rc = add_metric_columns(db, err)) < 0 ||
        (rc = check_schema_version(db, err)) < 0 || (rc = fill_t95(db, err)) < 0) {
        exec(db, "ROLLBACK", NULL);
        goto fail;
    }
    if ((rc = exec(db, "COMMIT", err)) < 0)
        goto fail;
    if ((rc = prepare_statements(db, err)) < 0)
        goto fail;
    if ((rc = db_update_views(db, err)) < 0)
        goto fail;
    *out = db;
    return 0;
fail:
    db_close(db);
    return rc;
}

void db_close(struct db *db)
{
    if (!db)
        return;
    sqlite3_finalize(db->run_upsert);
    sqlite3_finalize(db->metric_insert);
    sqlite3_finalize(db->run_done);
    sqlite3_close_v2(db->h);
    free(db);
}

sqlite3 *db_sqlite(struct db *db)
{
    return db->h;
}

int db_begin(struct db *db, struct sim_err *err)
{
    return exec(db, "BEGIN IMMEDIATE", err);
}

int db_commit(struct db *db, struct sim_err *err)
{
    return exec(db, "COMMIT", err);
}

void db_rollback(struct db *db)
{
    if (!sqlite3_get_autocommit(db->h))
        exec(db, "ROLLBACK", NULL);
}

int db_axis_columns(sqlite3 *h, const char *schema, char ***names, int *n, struct sim_err *err)
{
    sqlite3_stmt *st;
    *names = NULL;
    *n = 0;
    char *sql = sqlite3_mprintf("SELECT name FROM pragma_table_info('points', %Q) ORDER BY cid", schema);
    int prc = sqlite3_prepare_v2(h, sql, -1, &st, NULL);
    sqlite3_free(sql);
    if (prc != SQLITE_OK)
        return sim_errf(err, -EIO, "%s: sqlite: points columns: %s", sqlite3_db_filename(h, "main"), sqlite3_errmsg(h));
    int cap = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        const char *c = (const char *)sqlite3_column_text(st, 0);
        if (db_reserved_name(c))
            continue;
        if (*n + 1 >= cap) {
            cap = cap ? 2 * cap : 16;
            *names = sim_xrealloc(*names, (size_t)cap, sizeof **names);
        }
        (*names)[(*n)++] = sim_xstrdup(c);
    }
    sqlite3_finalize(st);
    return 0;
}

void db_free_names(char **names, int n)
{
    for (int i = 0; i < n; i++)
        free(names[i]);
    free(names);
}

static int add_axis_columns(struct db *db, const char *const *axes, int n_axes, struct sim_err *err)
{
    char **have;
    int n_have, rc;
    if ((rc = db_axis_columns(db->h, "main", &have, &n_have, err)) < 0)
        return rc;
    for (int i = 0; i < n_axes && rc == 0; i++) {
        bool found = false;
        for (int k = 0; k < n_have; k++)
            found |= !strcmp(have[k], axes[i]);
        if (found)
            continue;
        char q[300], sql[400];
        snprintf(sql, sizeof sql, "ALTER TABLE points ADD COLUMN %s ANY", db_quote_ident(axes[i], q, sizeof q));
        rc = exec(db, sql, err);
    }
    db_free_names(have, n_have);
    return rc;
}

int db_add_sweep(struct db *db, const char *name, const char *grid_json, const char *const *axes, int n_axes,
                 int replications, int64_t *sweep_id, struct sim_err *err)
{
    for (int i = 0; i < n_axes; i++)
        if (db_reserved_name(axes[i]))
            return sim_errf(err, -EINVAL, "axis '%s' has the name of a column of the database: rename it", axes[i]);
    cJSON *aj = cJSON_CreateArray();
    for (int i = 0; i < n_axes; i++)
        cJSON_AddItemToArray(aj, cJSON_CreateString(axes[i]));
    char *axes_json = cJSON_PrintUnformatted(aj);
    cJSON_Delete(aj);
    sqlite3_stmt *st = NULL;
    int rc = 0;
    *sweep_id = -1;
    if (sqlite3_prepare_v2(db->h, "SELECT sweep_id, grid_json FROM sweeps WHERE name = ?", -1, &st, NULL) != SQLITE_OK) {
        rc = sql_err(db, err, "sweeps");
        goto out;
    }
    sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
    bool changed = false;
    if (sqlite3_step(st) == SQLITE_ROW) {
        *sweep_id = sqlite3_column_int64(st, 0);
        changed = strcmp((const char *)sqlite3_column_text(st, 1), grid_json) != 0;
    }
    sqlite3_finalize(st);
    st = NULL;
    const char *sql = *sweep_id < 0
                          ? "INSERT INTO sweeps(name, grid_json, axes_json, replications, cephsim_version) "
                            "VALUES (?1, ?2, ?3, ?4, ?5)"
                      : changed ? "UPDATE sweeps SET grid_json = ?2, axes_json = ?3, replications = ?4, "
                                  "cephsim_version = ?5, updated_at = strftime('%Y-%m-%dT%H:%M:%fZ','now') "
                                  "WHERE name = ?1"
                                : NULL;
    if (sql) {
        if (sqlite3_prepare_v2(db->h, sql, -1, &st, NULL) != SQLITE_OK) {
            rc = sql_err(db, err, "sweeps");
            goto out;
        }
        sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 2, grid_json, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 3, axes_json, -1, SQLITE_STATIC);
        sqlite3_bind_int(st, 4, replications);
        sqlite3_bind_text(st, 5, CEPHSIM_MODEL_VERSION, -1, SQLITE_STATIC);
        if (sqlite3_step(st) != SQLITE_DONE) {
            rc = sql_err(db, err, "sweeps");
            goto out;
        }
        if (*sweep_id < 0)
            *sweep_id = sqlite3_last_insert_rowid(db->h);
    }
    if (changed) {
        char del[96];
        snprintf(del, sizeof del, "DELETE FROM sweep_points WHERE sweep_id = %lld", (long long)*sweep_id);
        if ((rc = exec(db, del, err)) < 0)
            goto out;
    }
    rc = add_axis_columns(db, axes, n_axes, err);
out:
    sqlite3_finalize(st);
    free(axes_json);
    return rc;
}

static void bind_json_value(sqlite3_stmt *st, int i, const cJSON *v)
{
    if (cJSON_IsNumber(v)) {
        double x = v->valuedouble;
        if (x == (double)(int64_t)x && x > -9.2e18 && x < 9.2e18)
            sqlite3_bind_int64(st, i, (int64_t)x);
        else
            sqlite3_bind_double(st, i, x);
    } else if (cJSON_IsString(v)) {
        sqlite3_bind_text(st, i, v->valuestring, -1, SQLITE_TRANSIENT);
    } else if (cJSON_IsBool(v)) {
        sqlite3_bind_int(st, i, cJSON_IsTrue(v));
    } else {
        sqlite3_bind_null(st, i);
    }
}

int db_add_points(struct db *db, int64_t sweep_id, const char *const *axes, int n_axes, const struct db_point *pts,
                  const int *indices, int n, struct sim_err *err)
{
    struct strbuf b = STRBUF_INIT;
    char q[300];
    strbuf_printf(&b, "INSERT INTO points(point_id, seed, replications, cephsim_version, base, sets_json, params_json");
    for (int i = 0; i < n_axes; i++)
        strbuf_printf(&b, ", %s", db_quote_ident(axes[i], q, sizeof q));
    strbuf_printf(&b, ") VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7");
    for (int i = 0; i < n_axes; i++)
        strbuf_printf(&b, ", ?%d", 8 + i);
    strbuf_printf(&b, ") ON CONFLICT(point_id) DO UPDATE SET replications = max(points.replications, excluded.replications)");
    for (int i = 0; i < n_axes; i++) {
        db_quote_ident(axes[i], q, sizeof q);
        strbuf_printf(&b, ", %s = excluded.%s", q, q);
    }
    sqlite3_stmt *ins = NULL, *mem = NULL;
    int rc = 0;
    if (sqlite3_prepare_v2(db->h, b.s, -1, &ins, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(db->h, "INSERT INTO sweep_points(sweep_id, point_id, idx) VALUES (?, ?, ?) "
                                  "ON CONFLICT DO UPDATE SET idx = excluded.idx", -1, &mem, NULL) != SQLITE_OK) {
        rc = sql_err(db, err, "prepare points insert");
        goto out;
    }
    for (int k = 0; k < n; k++) {
        const struct db_point *p = &pts[k];
        sqlite3_bind_text(ins, 1, p->point_id, -1, SQLITE_STATIC);
        sqlite3_bind_int64(ins, 2, p->seed);
        sqlite3_bind_int(ins, 3, p->replications);
        sqlite3_bind_text(ins, 4, CEPHSIM_MODEL_VERSION, -1, SQLITE_STATIC);
        sqlite3_bind_text(ins, 5, p->base, -1, SQLITE_STATIC);
        sqlite3_bind_text(ins, 6, p->sets_json, -1, SQLITE_STATIC);
        sqlite3_bind_text(ins, 7, p->params_json, -1, SQLITE_STATIC);
        for (int i = 0; i < n_axes; i++)
            bind_json_value(ins, 8 + i, cJSON_GetObjectItemCaseSensitive(p->axes, axes[i]));
        if (sqlite3_step(ins) != SQLITE_DONE) {
            rc = sql_err(db, err, "insert point");
            goto out;
        }
        sqlite3_reset(ins);
        sqlite3_bind_int64(mem, 1, sweep_id);
        sqlite3_bind_text(mem, 2, p->point_id, -1, SQLITE_STATIC);
        sqlite3_bind_int(mem, 3, indices ? indices[k] : k);
        if (sqlite3_step(mem) != SQLITE_DONE) {
            rc = sql_err(db, err, "insert sweep point");
            goto out;
        }
        sqlite3_reset(mem);
    }
out:
    sqlite3_finalize(ins);
    sqlite3_finalize(mem);
    free(b.s);
    return rc;
}

int db_add_run(struct db *db, const struct db_run *r, struct sim_err *err)
{
    sqlite3_stmt *st = db->run_upsert;
    sqlite3_bind_text(st, 1, r->point_id, -1, SQLITE_STATIC);
    sqlite3_bind_int(st, 2, r->replication);
    sqlite3_bind_int64(st, 3, r->seed);
    sqlite3_bind_text(st, 4, r->ok ? "done" : "failed", -1, SQLITE_STATIC);
    if (r->ok || !r->error)
        sqlite3_bind_null(st, 5);
    else
        sqlite3_bind_text(st, 5, r->error, -1, SQLITE_STATIC);
    sqlite3_bind_double(st, 6, r->wall_s);
    sqlite3_bind_int64(st, 7, (int64_t)r->events);
    if (r->worker)
        sqlite3_bind_text(st, 8, r->worker, -1, SQLITE_STATIC);
    else
        sqlite3_bind_null(st, 8);
    int s = sqlite3_step(st);
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    if (s != SQLITE_DONE)
        return sql_err(db, err, "record run");
    if (!r->ok)
        return 0;
    st = db->metric_insert;
    sqlite3_bind_text(st, 1, r->point_id, -1, SQLITE_STATIC);
    sqlite3_bind_int(st, 2, r->replication);
    const cJSON *dir = cJSON_GetObjectItemCaseSensitive(r->summary, "direction");
    sqlite3_bind_text(st, 3, cJSON_IsString(dir) ? dir->valuestring : "?", -1, SQLITE_TRANSIENT);
    int i = 4;
    for (const struct db_metric *m = db_metric_table; m->name; m++, i++) {
        double v;
        if (db_metric_from_summary(m, r->summary, &v))
            sqlite3_bind_double(st, i, v);
        else
            sqlite3_bind_null(st, i);
    }
    char *js = cJSON_PrintUnformatted(r->summary);
    sqlite3_bind_text(st, i, js ? js : "{}", -1, SQLITE_TRANSIENT);
    free(js);
    s = sqlite3_step(st);
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    if (s != SQLITE_DONE)
        return sql_err(db, err, "record metrics");
    return 0;
}

int db_run_done(struct db *db, const char *point_id, int replication)
{
    sqlite3_stmt *st = db->run_done;
    sqlite3_bind_text(st, 1, point_id, -1, SQLITE_STATIC);
    sqlite3_bind_int(st, 2, replication);
    int s = sqlite3_step(st);
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    if (s == SQLITE_ROW)
        return 1;
    return s == SQLITE_DONE ? 0 : -EIO;
}

cJSON *db_run_summary(struct db *db, const char *point_id, int replication)
{
    if (db_run_done(db, point_id, replication) != 1)
        return NULL;
    sqlite3_stmt *st;
    cJSON *j = NULL;
    if (sqlite3_prepare_v2(db->h, "SELECT summary_json FROM metrics WHERE point_id = ? AND replication = ?", -1, &st,
                           NULL) != SQLITE_OK)
        return NULL;
    sqlite3_bind_text(st, 1, point_id, -1, SQLITE_STATIC);
    sqlite3_bind_int(st, 2, replication);
    if (sqlite3_step(st) == SQLITE_ROW)
        j = cJSON_Parse((const char *)sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
    return j;
}

int db_update_views(struct db *db, struct sim_err *err)
{
    char **axes;
    int n_axes, rc;
    if ((rc = db_axis_columns(db->h, "main", &axes, &n_axes, err)) < 0)
        return rc;
    struct strbuf b = STRBUF_INIT;
    char q[300];
    strbuf_printf(&b, "BEGIN IMMEDIATE;\nDROP VIEW IF EXISTS results;\nDROP VIEW IF EXISTS point_results;\n"
                      "CREATE VIEW results AS\nSELECT r.point_id, r.replication, r.seed");
    for (int i = 0; i < n_axes; i++)
        strbuf_printf(&b, ", p.%s", db_quote_ident(axes[i], q, sizeof q));
    strbuf_printf(&b, ", m.direction");
    for (const struct db_metric *m = db_metric_table; m->name; m++)
        strbuf_printf(&b, ", m.%s", m->name);
    strbuf_printf(&b, ", r.wall_s, r.events\nFROM runs r JOIN points p ON p.point_id = r.point_id\n"
                      "JOIN metrics m ON m.point_id = r.point_id AND m.replication = r.replication\n"
                      "WHERE r.status = 'done';\n");
    /* per point: mean over replications and 95 % CI half-width t(k-1) * sd / sqrt(k), k the
       replications that have the metric (a run that completed no I/O has no latency: NULL, so
       k can be below the point's n); two passes, then each metric's t looked up for its k */
    strbuf_printf(&b, "CREATE VIEW point_results AS\nWITH d AS (SELECT m.*");
    for (const struct db_metric *m = db_metric_table; m->name; m++)
        if (m->ci)
            strbuf_printf(&b, ", avg(m.%s) OVER w AS %s__m, count(m.%s) OVER w AS %s__k", m->name, m->name, m->name,
                          m->name);
    strbuf_printf(&b, "\n  FROM metrics m JOIN runs r ON r.point_id = m.point_id AND r.replication = m.replication\n"
                      "  WHERE r.status = 'done' WINDOW w AS (PARTITION BY m.point_id)),\n"
                      "dt AS (SELECT d.*");
    for (const struct db_metric *m = db_metric_table; m->name; m++)
        if (m->ci)
            strbuf_printf(&b, ", (SELECT t FROM t95 WHERE t95.df = d.%s__k - 1) AS %s__t", m->name, m->name);
    strbuf_printf(&b, " FROM d)\nSELECT p.point_id");
    for (int i = 0; i < n_axes; i++)
        strbuf_printf(&b, ", p.%s", db_quote_ident(axes[i], q, sizeof q));
    strbuf_printf(&b, ", count(*) AS n, min(dt.direction) AS direction");
    for (const struct db_metric *m = db_metric_table; m->name; m++) {
        strbuf_printf(&b, ",\n  avg(dt.%s) AS %s", m->name, m->name);
        if (m->ci)
            strbuf_printf(&b, ", coalesce(max(dt.%s__t) * sqrt(sum((dt.%s - dt.%s__m) * (dt.%s - dt.%s__m)) / "
                              "(count(dt.%s) - 1) / count(dt.%s)), 0) AS %s_ci95",
                          m->name, m->name, m->name, m->name, m->name, m->name, m->name, m->name);
    }
    strbuf_printf(&b, "\nFROM dt JOIN points p ON p.point_id = dt.point_id\nGROUP BY dt.point_id;\nCOMMIT;");
    rc = exec(db, b.s, err);
    if (rc < 0)
        db_rollback(db);
    free(b.s);
    db_free_names(axes, n_axes);
    return rc;
}

/* Quoted list of the columns table has in both main and src, each with prefix. */
static char *column_list(struct db *db, const char *table, const char *prefix)
{
    char sql[300];
    snprintf(sql, sizeof sql, "SELECT name FROM pragma_table_info('%s', 'main') WHERE name IN "
             "(SELECT name FROM pragma_table_info('%s', 'src')) ORDER BY cid", table, table);
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db->h, sql, -1, &st, NULL) != SQLITE_OK)
        return NULL;
    struct strbuf b = STRBUF_INIT;
    strbuf_printf(&b, "%s", "");
    char q[300];
    int k = 0;
    while (sqlite3_step(st) == SQLITE_ROW)
        strbuf_printf(&b, "%s%s%s", k++ ? ", " : "", prefix, db_quote_ident((const char *)sqlite3_column_text(st, 0), q, sizeof q));
    sqlite3_finalize(st);
    return b.s;
}

static int count_rows(struct db *db, const char *sql)
{
    sqlite3_stmt *st;
    int n = -1;
    if (sqlite3_prepare_v2(db->h, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
        n = sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
    return n;
}

/*
 * Sweeps of one name in two databases must be one sweep (shards of one grid:
 * `sweep --shard K/N` writes the same grid_json, base scenario included, into
 * every shard).  Two sweeps that share a name but not a grid, say one cbt file
 * run on two base scenarios, would merge into one sweep that keeps the first
 * grid and lists both point sets.  clash_sql selects, for the database
 * attached as src, the first such name: (name, the other database's path, its
 * base, src's base).  0, or an error naming src_path and the other database.
 */
static int sweep_clash(sqlite3 *h, const char *clash_sql, const char *other_path, const char *src_path,
                       struct sim_err *err)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(h, clash_sql, -1, &st, NULL) != SQLITE_OK)
        return sim_errf(err, -EIO, "%s: sqlite: sweeps: %s", src_path, sqlite3_errmsg(h));
    sqlite3_bind_text(st, 1, other_path, -1, SQLITE_STATIC);
    int rc = 0, step = sqlite3_step(st);
    if (step == SQLITE_ROW) {
        const char *name = (const char *)sqlite3_column_text(st, 0), *other = (const char *)sqlite3_column_text(st, 1),
                   *base_other = (const char *)sqlite3_column_text(st, 2),
                   *base_src = (const char *)sqlite3_column_text(st, 3);
        char how[600];
        if (base_other && base_src && strcmp(base_other, base_src))
            snprintf(how, sizeof how, "base scenario %.250s, there %.250s", base_src, base_other);
        else
            snprintf(how, sizeof how, "another grid");
        rc = sim_errf(err, -EEXIST, "%s: sweep '%.100s' is not the sweep of that name in %s (%s): not shards of "
                                    "one grid, keep them in separate databases",
                      src_path, name ? name : "", other ? other : "?", how);
    } else if (step != SQLITE_DONE) {
        rc = sim_errf(err, -EIO, "%s: sqlite: sweeps: %s", src_path, sqlite3_errmsg(h));
    }
    sqlite3_finalize(st);
    return rc;
}

#define GRID_BASE(t) "CASE WHEN json_valid(" t ".grid_json) THEN json_extract(" t ".grid_json, '$.base') END"

static int merge_attached(struct db *db, const char *in_path, int *n_new_runs, struct sim_err *err)
{
    int rc;
    char q[300];
    static const char clash_with_main[] =
        "SELECT s.name, ?1, " GRID_BASE("m") ", " GRID_BASE("s") " FROM src.sweeps s JOIN main.sweeps m "
        "ON m.name = s.name WHERE m.grid_json <> s.grid_json ORDER BY s.name LIMIT 1";
    if ((rc = sweep_clash(db->h, clash_with_main, db->path, in_path, err)) < 0)
        return rc;
    /* the source's axis columns first, so that every column exists in main */
    char **src_axes;
    int n_src;
    if ((rc = db_axis_columns(db->h, "src", &src_axes, &n_src, err)) < 0)
        return rc;
    struct strbuf b = STRBUF_INIT;
    if ((rc = add_axis_columns(db, (const char *const *)src_axes, n_src, err)) < 0)
        goto out;
    int before = count_rows(db, "SELECT count(*) FROM main.runs WHERE status = 'done'");
    strbuf_printf(&b, "INSERT INTO main.sweeps(name, grid_json, axes_json, replications, cephsim_version, created_at, updated_at)\n"
                      "  SELECT name, grid_json, axes_json, replications, cephsim_version, created_at, updated_at\n"
                      "  FROM src.sweeps WHERE true ON CONFLICT(name) DO NOTHING;\n"
                      "INSERT INTO main.points(point_id, seed, replications, cephsim_version, base, sets_json, params_json");
    for (int i = 0; i < n_src; i++)
        strbuf_printf(&b, ", %s", db_quote_ident(src_axes[i], q, sizeof q));
    strbuf_printf(&b, ")\n  SELECT point_id, seed, replications, cephsim_version, base, sets_json, params_json");
    for (int i = 0; i < n_src; i++)
        strbuf_printf(&b, ", %s", db_quote_ident(src_axes[i], q, sizeof q));
    strbuf_printf(&b, "\n  FROM src.points WHERE true ON CONFLICT(point_id) DO UPDATE SET "
                      "replications = max(points.replications, excluded.replications)");
    for (int i = 0; i < n_src; i++) {
        db_quote_ident(src_axes[i], q, sizeof q);
        strbuf_printf(&b, ", %s = coalesce(points.%s, excluded.%s)", q, q, q);
    }
    strbuf_printf(&b, ";\nINSERT INTO main.sweep_points(sweep_id, point_id, idx)\n"
                      "  SELECT ms.sweep_id, sp.point_id, sp.idx FROM src.sweep_points sp\n"
                      "  JOIN src.sweeps ss ON ss.sweep_id = sp.sweep_id JOIN main.sweeps ms ON ms.name = ss.name\n"
                      "  WHERE true ON CONFLICT DO NOTHING;\n"
                      "INSERT INTO main.runs(point_id, replication, seed, status, error, wall_s, events, worker, finished_at)\n"
                      "  SELECT point_id, replication, seed, status, error, wall_s, events, worker, finished_at FROM src.runs\n"
                      "  WHERE true ON CONFLICT(point_id, replication) DO UPDATE SET seed = excluded.seed,\n"
                      "  status = excluded.status, error = excluded.error, wall_s = excluded.wall_s, events = excluded.events,\n"
                      "  worker = excluded.worker, finished_at = excluded.finished_at WHERE runs.status <> 'done';\n");
    char *mcols = column_list(db, "metrics", "");
    char *scols = column_list(db, "metrics", "m.");
    if (!mcols || !scols) {
        free(mcols);
        free(scols);
        rc = sql_err(db, err, "metrics columns");
        goto out;
    }
    /* metrics of runs that are done in main now and came from the source */
    strbuf_printf(&b, "INSERT INTO main.metrics(%s)\n  SELECT %s FROM src.metrics m\n"
                      "  JOIN src.runs sr ON sr.point_id = m.point_id AND sr.replication = m.replication AND sr.status = 'done'\n"
                      "  WHERE true ON CONFLICT(point_id, replication) DO NOTHING;\n",
                  mcols, scols);
    free(mcols);
    free(scols);
    rc = exec(db, b.s, err);
    if (rc == 0 && n_new_runs)
        *n_new_runs = count_rows(db, "SELECT count(*) FROM main.runs WHERE status = 'done'") - before;
out:
    free(b.s);
    db_free_names(src_axes, n_src);
    return rc;
}

int db_merge(struct db *db, const char *in_path, int *n_new_runs, struct sim_err *err)
{
    sqlite3_stmt *st;
    int rc;
    if (n_new_runs)
        *n_new_runs = 0;
    if ((rc = refuse_directory(in_path, err)) < 0)
        return rc;
    FILE *f = fopen(in_path, "rb");
    if (!f)
        return sim_errf(err, -errno, "%s: %s", in_path, strerror(errno));
    fclose(f);
    if (sqlite3_prepare_v2(db->h, "ATTACH DATABASE ? AS src", -1, &st, NULL) != SQLITE_OK)
        return sql_err(db, err, "attach");
    sqlite3_bind_text(st, 1, in_path, -1, SQLITE_STATIC);
    int s = sqlite3_step(st);
    sqlite3_finalize(st);
    if (s != SQLITE_DONE)
        return sim_errf(err, -EIO, "%s: cannot attach: %s", in_path, sqlite3_errmsg(db->h));
    int have = count_rows(db, "SELECT count(*) FROM src.sqlite_schema WHERE name IN "
                              "('sweeps', 'points', 'sweep_points', 'runs', 'metrics', 'meta')");
    int ver = count_rows(db, "SELECT CAST(value AS INTEGER) FROM src.meta WHERE key = 'schema_version'");
    if (have != 6) {
        rc = sim_errf(err, -EINVAL, "%s: not a cephsim sweep database", in_path);
    } else if (ver != DB_SCHEMA_VERSION) {
        rc = sim_errf(err, -EPROTO, "%s: schema version %d, this cephsim writes %d", in_path, ver, DB_SCHEMA_VERSION);
    } else if ((rc = db_begin(db, err)) == 0) {
        if ((rc = merge_attached(db, in_path, n_new_runs, err)) < 0) {
            db_rollback(db);
            if (rc != -EEXIST) { /* a clash names in_path already */
                char why[sizeof err->msg];
                snprintf(why, sizeof why, "%s", err ? err->msg : "merge failed");
                rc = sim_errf(err, rc, "%s: %s", in_path, why);
            }
        } else {
            rc = db_commit(db, err);
        }
    }
    exec(db, "DETACH DATABASE src", NULL);
    if (rc == 0)
        rc = db_update_views(db, err);
    return rc;
}

int db_merge_check(const char *const *paths, int n, struct sim_err *err)
{
    sqlite3 *h = NULL;
    int rc = 0;
    if (sqlite3_open_v2(":memory:", &h, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK ||
        sqlite3_exec(h, "CREATE TABLE seen(name TEXT PRIMARY KEY, grid_json TEXT NOT NULL, path TEXT NOT NULL)", NULL,
                     NULL, NULL) != SQLITE_OK) {
        rc = sim_errf(err, -ENOMEM, "sqlite: %s", h ? sqlite3_errmsg(h) : "out of memory");
        goto out;
    }
    static const char clash_with_seen[] =
        "SELECT s.name, m.path, " GRID_BASE("m") ", " GRID_BASE("s") " FROM src.sweeps s JOIN main.seen m "
        "ON m.name = s.name WHERE m.grid_json <> s.grid_json ORDER BY s.name LIMIT 1";
    for (int i = 0; i < n && rc == 0; i++) {
        if ((rc = refuse_directory(paths[i], err)) < 0)
            break;
        /* ATTACH would create a missing file: say it is missing instead */
        FILE *f = fopen(paths[i], "rb");
        if (!f) {
            rc = sim_errf(err, -errno, "%s: %s", paths[i], strerror(errno));
            break;
        }
        fclose(f);
        sqlite3_stmt *st = NULL;
        if (sqlite3_prepare_v2(h, "ATTACH DATABASE ? AS src", -1, &st, NULL) != SQLITE_OK) {
            rc = sim_errf(err, -EIO, "sqlite: attach: %s", sqlite3_errmsg(h));
            break;
        }
        sqlite3_bind_text(st, 1, paths[i], -1, SQLITE_STATIC);
        int step = sqlite3_step(st);
        sqlite3_finalize(st);
        if (step != SQLITE_DONE) {
            rc = sim_errf(err, -EIO, "%s: cannot attach: %s", paths[i], sqlite3_errmsg(h));
            break;
        }
        /* a file without a sweeps table is left to db_merge, which says what it is */
        if (sqlite3_prepare_v2(h, "SELECT 1 FROM src.sqlite_schema WHERE name = 'sweeps'", -1, &st, NULL) == SQLITE_OK &&
            sqlite3_step(st) == SQLITE_ROW) {
            sqlite3_finalize(st);
            st = NULL;
            rc = sweep_clash(h, clash_with_seen, NULL, paths[i], err);
            if (rc == 0 && (sqlite3_prepare_v2(h, "INSERT OR IGNORE INTO main.seen(name, grid_json, path) "
                                                  "SELECT name, grid_json, ? FROM src.sweeps", -1, &st, NULL) != SQLITE_OK ||
                            sqlite3_bind_text(st, 1, paths[i], -1, SQLITE_STATIC) != SQLITE_OK ||
                            sqlite3_step(st) != SQLITE_DONE))
                rc = sim_errf(err, -EIO, "%s: sqlite: sweeps: %s", paths[i], sqlite3_errmsg(h));
        }
        sqlite3_finalize(st);
        sqlite3_exec(h, "DETACH DATABASE src", NULL, NULL, NULL);
    }
out:
    sqlite3_close(h);
    return rc;
}
