/*
 * db.h - the sweep result database (SQLite): schema, batched writes, resume
 * look-ups, views and the merge of shard databases.
 *
 * Tables (explorer/README.md documents every column):
 *   sweeps        one row per grid name: the grid JSON and its axis names
 *   points        one row per point id: seed, overrides, resolved parameters
 *                 (params_json) and one column per swept axis, named by its
 *                 path ("fio.iodepth"), added with ALTER TABLE as sweeps need
 *   sweep_points  which points belong to which sweep (and their order)
 *   runs          one row per (point_id, replication): seed, status, wall time, events
 *   metrics       one row per done run: IOPS, latencies, stages, counters
 *   t95           Student t quantiles for the confidence intervals
 * Views: results (one row per done run, axes as columns) and point_results
 * (per point: means and 95 % CI half-widths across replications).
 * The database runs in WAL mode with synchronous=NORMAL: readers (queries,
 * plots) work while a sweep writes; each batch is one transaction.
 */
#ifndef CEPHSIM_EXPLORER_DB_H
#define CEPHSIM_EXPLORER_DB_H

#include <stdbool.h>
#include <stdint.h>
#include <sqlite3.h>
#include <cjson/cJSON.h>

#include "err.h"

#define DB_SCHEMA_VERSION 1

struct db;

/* One metric column: its name, the key in runner_summary_json, whether it has a CI. */
struct db_metric {
    const char *name;
    const char *summary_key; /* key in runner_summary_json; NULL for a stage */
    int stage;               /* index in stage_names (stages_us object), -1 otherwise */
    bool ci;
    /* For a figure per completed I/O (a latency, a stage's time, a cost per op):
       the metric counting those I/Os ("iops", "read_iops").  A run that
       completed none has no such figure, not a figure of 0.  NULL otherwise. */
    const char *per_io_of;
    const char *help;
};
/* Every metric column of the metrics table, in order (NULL name ends). */
const struct db_metric *db_metrics(void);
/* The metric named name, or NULL. */
const struct db_metric *db_metric_find(const char *name);
/* A metric's value in a runner_summary_json object (mean for the CI ones); false if
   absent, and false for a per-I/O figure of a run that completed no I/O (per_io_of is 0). */
bool db_metric_from_summary(const struct db_metric *m, const cJSON *summary, double *out);

/* Open (creating if needed) the database at path; schema, WAL, pragmas. */
int db_open(const char *path, struct db **out, struct sim_err *err);
void db_close(struct db *db);
/* The connection, for queries (borrowed; valid until db_close). */
sqlite3 *db_sqlite(struct db *db);

/* BEGIN IMMEDIATE / COMMIT / ROLLBACK. */
int db_begin(struct db *db, struct sim_err *err);
int db_commit(struct db *db, struct sim_err *err);
void db_rollback(struct db *db);

/* A column name an axis may not take (fixed columns of points and of the views). */
bool db_reserved_name(const char *name);

/*
 * Register a sweep (or find it by name); add a points column per axis.  A
 * changed grid for an existing name replaces its point list (runs stay).
 */
int db_add_sweep(struct db *db, const char *name, const char *grid_json, const char *const *axes, int n_axes,
                 int replications, int64_t *sweep_id, struct sim_err *err);

struct db_point {
    const char *point_id;
    int64_t seed;
    int replications;
    const char *base;        /* base scenario path */
    const char *sets_json;   /* JSON array of "path=value" overrides */
    const char *params_json; /* canonical resolved parameters */
    const cJSON *axes;       /* {"axis": value} */
};

/* Insert points (existing ids keep their row; axis columns are filled) and their sweep membership. */
int db_add_points(struct db *db, int64_t sweep_id, const char *const *axes, int n_axes, const struct db_point *pts,
                  const int *indices, int n, struct sim_err *err);

struct db_run {
    const char *point_id;
    int replication;
    int64_t seed;
    bool ok;
    const char *error;       /* failed runs */
    double wall_s, events;
    const char *worker;      /* host:pid or mpi rank */
    const cJSON *summary;    /* runner_summary_json of the run (done runs) */
};

/* Record a run: a done run is never replaced; a failed one is retried and replaced. */
int db_add_run(struct db *db, const struct db_run *r, struct sim_err *err);

/* 1 if (point_id, replication) is done, 0 if not, negative errno on error. */
int db_run_done(struct db *db, const char *point_id, int replication);
/* The runner_summary_json of a done run (the caller deletes it); NULL when not done. */
cJSON *db_run_summary(struct db *db, const char *point_id, int replication);

/* The axis columns of schema's points table ("main", or an attached one such as
   merge's "src"): a calloc'd array of malloc'd names; free with db_free_names. */
int db_axis_columns(sqlite3 *h, const char *schema, char ***names, int *n, struct sim_err *err);
void db_free_names(char **names, int n);

/* Recreate the results and point_results views over the current axis columns. */
int db_update_views(struct db *db, struct sim_err *err);

/*
 * Merge the database at in_path into db: sweeps by name, points by id, runs
 * by (point_id, replication), done beating failed.  One transaction.  A sweep
 * whose name db has with another grid is refused (-EEXIST): not a shard.
 */
int db_merge(struct db *db, const char *in_path, int *n_new_runs, struct sim_err *err);

/*
 * Before a merge writes anything: the sweeps that the databases at paths
 * (in merge order, the output first if it exists) share by name must be
 * one sweep, the same grid (base scenario, axes, points).  0, or -EEXIST
 * and a one-line error naming both files; db_merge refuses the same clash.
 */
int db_merge_check(const char *const *paths, int n, struct sim_err *err);

/* Double-quote an identifier for SQL into buf ("fio.iodepth" -> "\"fio.iodepth\""). */
const char *db_quote_ident(const char *name, char *buf, size_t n);

#endif
