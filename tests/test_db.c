/*
 * test_db.c - the sweep database: schema and pragmas, axis columns, the
 * results and point_results views (CIs equal stats_ci95), the uniqueness of
 * runs and the done-beats-failed rule, merges, and the query questions
 * (best, Pareto front, main effects, read-only SQL) on known data.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "db.h"
#include "query.h"
#include "runner.h"
#include "stats.h"

struct fixture {
    char dir[64];
    char path[128];
};

static int setup(void **state)
{
    struct fixture *f = calloc(1, sizeof *f);
    snprintf(f->dir, sizeof f->dir, "/tmp/cephsim-test-db-XXXXXX");
    if (!mkdtemp(f->dir))
        return -1;
    snprintf(f->path, sizeof f->path, "%s/a.db", f->dir);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *f = *state;
    char cmd[200];
    snprintf(cmd, sizeof cmd, "rm -rf %s", f->dir);
    if (system(cmd) != 0)
        return -1;
    free(f);
    return 0;
}

static struct db *open_ok(const char *path)
{
    struct db *db;
    struct sim_err err = {0};
    if (db_open(path, &db, &err) < 0)
        fail_msg("db_open: %s", err.msg);
    return db;
}

static int64_t count(struct db *db, const char *sql)
{
    sqlite3_stmt *st;
    assert_int_equal(sqlite3_prepare_v2(db_sqlite(db), sql, -1, &st, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    int64_t n = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return n;
}

static double number(struct db *db, const char *sql)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db_sqlite(db), sql, -1, &st, NULL) != SQLITE_OK)
        fail_msg("%s: %s", sql, sqlite3_errmsg(db_sqlite(db)));
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    double x = sqlite3_column_double(st, 0);
    sqlite3_finalize(st);
    return x;
}

/* A summary as runner_summary_json writes it, with chosen headline numbers. */
static cJSON *summary(double iops, double p99)
{
    struct run_summary s;
    memset(&s, 0, sizeof s);
    s.replications = 1;
    s.ddir = FIO_DDIR_WRITE;
    s.iops = (struct ci){.n = 1, .mean = iops};
    s.bw_mib = (struct ci){.n = 1, .mean = iops * 4096 / 1048576.0};
    s.lat_mean_us = (struct ci){.n = 1, .mean = p99 / 2};
    s.lat_p50_us = (struct ci){.n = 1, .mean = p99 / 2};
    s.lat_p99_us = (struct ci){.n = 1, .mean = p99};
    s.lat_p999_us = (struct ci){.n = 1, .mean = p99 * 1.5};
    s.op_w = 7;
    for (int i = 0; i < STAGE_COUNT; i++)
        s.stage_us[i] = i + 1;
    s.device_util = 0.25;
    s.dir[FIO_DDIR_WRITE] = (struct run_dir_summary){.present = true, .iops = s.iops, .bw_mib = s.bw_mib,
                                                     .lat_mean_us = s.lat_mean_us, .lat_p50_us = s.lat_p50_us,
                                                     .lat_p99_us = s.lat_p99_us, .lat_p999_us = s.lat_p999_us};
    return runner_summary_json(&s);
}

/* A 70/30 mixed run's summary: both directions' own numbers and every I/O together. */
static cJSON *mixed_summary(void)
{
    struct run_summary s;
    memset(&s, 0, sizeof s);
    s.replications = 1;
    s.ddir = RUN_DDIR_MIXED;
    s.iops = (struct ci){.n = 1, .mean = 1000};
    s.dir[FIO_DDIR_READ] = (struct run_dir_summary){.present = true, .iops = {.n = 1, .mean = 700},
                                                    .lat_p99_us = {.n = 1, .mean = 400}};
    s.dir[FIO_DDIR_WRITE] = (struct run_dir_summary){.present = true, .iops = {.n = 1, .mean = 300},
                                                     .lat_p99_us = {.n = 1, .mean = 900}};
    return runner_summary_json(&s);
}

/* One sweep with axes x (numbers) and nic (strings); point i has id "p<i>". */
static void add_points(struct db *db, const char *sweep, int n, const double *x, const char *const *nic)
{
    struct sim_err err = {0};
    const char *axes[] = {"fio.iodepth", "cluster.nic"};
    int64_t id;
    assert_int_equal(db_begin(db, &err), 0);
    if (db_add_sweep(db, sweep, "{}", axes, 2, 2, &id, &err) < 0)
        fail_msg("%s", err.msg);
    struct db_point *p = calloc((size_t)n, sizeof *p);
    char (*ids)[16] = calloc((size_t)n, sizeof *ids);
    cJSON **aj = calloc((size_t)n, sizeof *aj);
    for (int i = 0; i < n; i++) {
        snprintf(ids[i], sizeof ids[i], "p%d", i);
        aj[i] = cJSON_CreateObject();
        cJSON_AddNumberToObject(aj[i], "fio.iodepth", x[i]);
        cJSON_AddStringToObject(aj[i], "cluster.nic", nic[i]);
        p[i] = (struct db_point){.point_id = ids[i], .seed = 1, .replications = 2, .base = "b.json",
                                 .sets_json = "[]", .params_json = "{}", .axes = aj[i]};
    }
    if (db_add_points(db, id, axes, 2, p, NULL, n, &err) < 0)
        fail_msg("%s", err.msg);
    assert_int_equal(db_commit(db, &err), 0);
    assert_int_equal(db_update_views(db, &err), 0);
    for (int i = 0; i < n; i++)
        cJSON_Delete(aj[i]);
    free(aj);
    free(ids);
    free(p);
}

static void add_run(struct db *db, const char *id, int rep, bool ok, double iops, double p99)
{
    struct sim_err err = {0};
    cJSON *s = ok ? summary(iops, p99) : NULL;
    struct db_run r = {.point_id = id, .replication = rep, .seed = 100 + rep, .ok = ok, .error = ok ? NULL : "boom",
                       .wall_s = 0.5, .events = 1000, .worker = "test", .summary = s};
    assert_int_equal(db_begin(db, &err), 0);
    if (db_add_run(db, &r, &err) < 0)
        fail_msg("%s", err.msg);
    assert_int_equal(db_commit(db, &err), 0);
    cJSON_Delete(s);
}

static void schema_and_pragmas(void **state)
{
    struct fixture *f = *state;
    struct db *db = open_ok(f->path);
    assert_int_equal(count(db, "SELECT count(*) FROM sqlite_schema WHERE name IN ('sweeps', 'points', "
                               "'sweep_points', 'runs', 'metrics', 't95', 'results', 'point_results')"), 8);
    sqlite3_stmt *st;
    sqlite3_prepare_v2(db_sqlite(db), "PRAGMA journal_mode", -1, &st, NULL);
    sqlite3_step(st);
    assert_string_equal((const char *)sqlite3_column_text(st, 0), "wal");
    sqlite3_finalize(st);
    assert_true(fabs(number(db, "SELECT t FROM t95 WHERE df = 2") - 4.302652729911275) < 1e-9);
    db_close(db);
    /* reopening keeps everything; a future schema version is refused */
    db = open_ok(f->path);
    assert_int_equal(sqlite3_exec(db_sqlite(db), "UPDATE meta SET value = '99' WHERE key = 'schema_version'", NULL,
                                  NULL, NULL), SQLITE_OK);
    db_close(db);
    struct sim_err err = {0};
    assert_true(db_open(f->path, &db, &err) < 0);
    assert_non_null(strstr(err.msg, "schema version 99"));
}

/* A database damaged inside a table page is refused when opened, with one
   line naming the file; so is a file that is no database. */
static void damaged_database_refused(void **state)
{
    struct fixture *f = *state;
    struct db *db = open_ok(f->path);
    sqlite3 *h = db_sqlite(db);
    assert_int_equal(sqlite3_exec(h, "CREATE TABLE filler(x TEXT); WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL "
                                     "SELECT i + 1 FROM n WHERE i < 3000) INSERT INTO filler SELECT "
                                     "printf('%0100d', i) FROM n; PRAGMA wal_checkpoint(TRUNCATE);", NULL, NULL, NULL),
                     SQLITE_OK);
    int64_t pages = count(db, "PRAGMA page_count"), psize = count(db, "PRAGMA page_size");
    db_close(db);
    assert_true(pages > 40);
    /* smash the b-tree header of a page in the middle (one of filler's leaves) */
    FILE *fp = fopen(f->path, "r+b");
    assert_non_null(fp);
    assert_int_equal(fseek(fp, (long)((pages - 5) * psize), SEEK_SET), 0);
    const unsigned char junk[12] = {0x0d, 0xff, 0xff, 0x7f, 0xff, 0x00, 0x01, 0x00, 0xff, 0xff, 0xff, 0xff};
    assert_int_equal(fwrite(junk, 1, sizeof junk, fp), sizeof junk);
    fclose(fp);
    struct sim_err err = {0};
    assert_true(db_open(f->path, &db, &err) < 0);
    assert_non_null(strstr(err.msg, f->path));
    assert_non_null(strstr(err.msg, "damaged"));
    assert_null(strchr(err.msg, '\n'));
    /* not a database at all */
    fp = fopen(f->path, "wb");
    assert_non_null(fp);
    for (int i = 0; i < 4096; i++)
        fputc('x', fp);
    fclose(fp);
    assert_true(db_open(f->path, &db, &err) < 0);
    assert_non_null(strstr(err.msg, f->path));
}

static void metrics_cover_the_summary(void **state)
{
    cJSON *s = summary(1000, 800), *mix = mixed_summary();
    for (const struct db_metric *m = db_metrics(); m->name; m++) {
        double v;
        /* a write-only run has no read_* numbers (NULL in the database); a mixed one has all */
        bool reads = !strncmp(m->name, "read_", 5);
        if (reads ? db_metric_from_summary(m, s, &v) : !db_metric_from_summary(m, s, &v))
            fail_msg("metric %s %s runner_summary_json of a write run", m->name, reads ? "in" : "not in");
        if (!strncmp(m->name, "read_", 5) || !strncmp(m->name, "write_", 6))
            if (!db_metric_from_summary(m, mix, &v))
                fail_msg("metric %s not in runner_summary_json of a mixed run", m->name);
    }
    double v;
    assert_true(db_metric_from_summary(db_metric_find("iops"), mix, &v) && v == 1000);
    assert_true(db_metric_from_summary(db_metric_find("read_iops"), mix, &v) && v == 700);
    assert_true(db_metric_from_summary(db_metric_find("write_iops"), mix, &v) && v == 300);
    assert_true(db_metric_from_summary(db_metric_find("write_lat_p99_us"), mix, &v) && v == 900);
    assert_true(db_metric_from_summary(db_metric_find("write_iops"), s, &v) && v == 1000);
    assert_string_equal(cJSON_GetObjectItem(mix, "direction")->valuestring, "mixed");
    cJSON_Delete(mix);
    assert_true(db_metric_from_summary(db_metric_find("stage_client_submit_us"), s, &v) && v == 1);
    assert_true(db_metric_from_summary(db_metric_find("lat_p99_us"), s, &v) && v == 800);
    assert_null(db_metric_find("nope"));
    cJSON_Delete(s);
    assert_true(db_reserved_name("iops") && db_reserved_name("lat_p99_us_ci95") && db_reserved_name("point_id"));
    assert_false(db_reserved_name("fio.iodepth") || db_reserved_name("design"));
}

static void views_and_confidence_intervals(void **state)
{
    struct fixture *f = *state;
    struct db *db = open_ok(f->path);
    const double x[] = {1, 16};
    const char *nic[] = {"10gbase-t", "100gbe"};
    add_points(db, "s", 2, x, nic);
    add_run(db, "p0", 0, true, 100, 900);
    add_run(db, "p0", 1, true, 110, 950);
    add_run(db, "p0", 2, true, 120, 1000);
    add_run(db, "p1", 0, true, 500, 2000);
    assert_int_equal(count(db, "SELECT count(*) FROM results"), 4);
    /* axes are columns named by their path, with their JSON type */
    assert_int_equal(count(db, "SELECT \"fio.iodepth\" FROM results WHERE point_id = 'p1'"), 16);
    assert_int_equal(count(db, "SELECT count(*) FROM results WHERE \"cluster.nic\" = '100gbe'"), 1);
    assert_int_equal(count(db, "SELECT typeof(\"fio.iodepth\") = 'integer' FROM points WHERE point_id = 'p0'"), 1);
    double xs[] = {100, 110, 120};
    struct ci c = stats_ci95(xs, 3);
    assert_true(fabs(number(db, "SELECT iops FROM point_results WHERE point_id = 'p0'") - c.mean) < 1e-9);
    assert_true(fabs(number(db, "SELECT iops_ci95 FROM point_results WHERE point_id = 'p0'") - c.half) < 1e-9);
    assert_true(number(db, "SELECT iops_ci95 FROM point_results WHERE point_id = 'p1'") == 0); /* n = 1 */
    assert_int_equal(count(db, "SELECT n FROM point_results WHERE point_id = 'p0'"), 3);
    assert_true(number(db, "SELECT stage_local_commit_us FROM results WHERE point_id = 'p1'") == 6);
    db_close(db);
}

static void runs_are_unique_and_done_wins(void **state)
{
    struct fixture *f = *state;
    struct db *db = open_ok(f->path);
    const double x[] = {1};
    const char *nic[] = {"100gbe"};
    add_points(db, "s", 1, x, nic);
    add_run(db, "p0", 0, false, 0, 0);
    assert_int_equal(db_run_done(db, "p0", 0), 0);
    add_run(db, "p0", 0, true, 100, 900); /* a retried failure is replaced */
    assert_int_equal(db_run_done(db, "p0", 0), 1);
    add_run(db, "p0", 0, true, 999, 1);   /* a done run is never replaced */
    add_run(db, "p0", 0, false, 0, 0);
    assert_int_equal(count(db, "SELECT count(*) FROM runs"), 1);
    assert_int_equal(count(db, "SELECT count(*) FROM metrics"), 1);
    assert_true(number(db, "SELECT iops FROM results") == 100);
    /* the constraint itself: a second row for (point_id, replication) is refused */
    assert_int_not_equal(sqlite3_exec(db_sqlite(db), "INSERT INTO runs(point_id, replication, seed, status, finished_at) "
                                                     "VALUES ('p0', 0, 1, 'done', 'now')", NULL, NULL, NULL), SQLITE_OK);
    /* re-registering a point keeps one row */
    add_points(db, "s", 1, x, nic);
    assert_int_equal(count(db, "SELECT count(*) FROM points"), 1);
    /* an axis may not shadow a column */
    struct sim_err err = {0};
    const char *bad[] = {"iops"};
    int64_t id;
    assert_true(db_add_sweep(db, "t", "{}", bad, 1, 1, &id, &err) < 0);
    assert_non_null(strstr(err.msg, "'iops'"));
    db_close(db);
}

static void merge_unions_and_keeps_done(void **state)
{
    struct fixture *f = *state;
    char b_path[160], out_path[160];
    snprintf(b_path, sizeof b_path, "%s/b.db", f->dir);
    snprintf(out_path, sizeof out_path, "%s/out.db", f->dir);
    const double x[] = {1, 16, 128};
    const char *nic[] = {"10gbase-t", "100gbe", "25gbe"};
    struct db *a = open_ok(f->path), *b = open_ok(b_path);
    add_points(a, "s", 2, x, nic);
    add_points(b, "s", 3, x, nic);
    add_run(a, "p0", 0, true, 100, 900);
    add_run(a, "p1", 0, false, 0, 0);
    add_run(b, "p1", 0, true, 200, 800); /* done in b beats failed in a */
    add_run(b, "p2", 0, true, 300, 700);
    add_run(b, "p0", 0, true, 555, 1);   /* the same run: a's row, never a duplicate */
    /* b also has another sweep with an axis a lacks */
    struct sim_err err = {0};
    const char *axes[] = {"design"};
    int64_t id;
    assert_int_equal(db_begin(b, &err), 0);
    assert_int_equal(db_add_sweep(b, "t", "{}", axes, 1, 1, &id, &err), 0);
    assert_int_equal(db_commit(b, &err), 0);
    db_close(a);
    db_close(b);
    struct db *out = open_ok(out_path);
    int n;
    if (db_merge(out, f->path, &n, &err) < 0 || db_merge(out, b_path, &n, &err) < 0)
        fail_msg("%s", err.msg);
    assert_int_equal(n, 2);
    if (db_merge(out, b_path, &n, &err) < 0) /* again: nothing new */
        fail_msg("%s", err.msg);
    assert_int_equal(n, 0);
    assert_int_equal(count(out, "SELECT count(*) FROM runs"), 3);
    assert_int_equal(count(out, "SELECT count(*) FROM runs WHERE status = 'done'"), 3);
    assert_int_equal(count(out, "SELECT count(*) FROM metrics"), 3);
    assert_int_equal(count(out, "SELECT count(*) FROM points"), 3);
    assert_int_equal(count(out, "SELECT count(*) FROM sweeps"), 2);
    assert_int_equal(count(out, "SELECT count(*) FROM sweep_points"), 3);
    assert_true(number(out, "SELECT iops FROM results WHERE point_id = 'p0'") == 100);
    assert_true(number(out, "SELECT iops FROM results WHERE point_id = 'p1'") == 200);
    assert_int_equal(count(out, "SELECT count(*) FROM pragma_table_info('results') WHERE name = 'design'"), 1);
    assert_true(db_merge(out, "/nonexistent.db", &n, &err) < 0);
    db_close(out);
}

/* One sweep name, two grids (a cbt file run on two base scenarios): not shards, refused. */
static void merge_refuses_another_grid_of_one_name(void **state)
{
    struct fixture *f = *state;
    char b_path[160], out_path[160];
    snprintf(b_path, sizeof b_path, "%s/b.db", f->dir);
    snprintf(out_path, sizeof out_path, "%s/out.db", f->dir);
    struct db *a = open_ok(f->path), *b = open_ok(b_path);
    struct sim_err err = {0};
    const char *axes[] = {"fio.bs"};
    int64_t id;
    assert_int_equal(db_add_sweep(a, "cbt", "{\"base\":\"lab.json\"}", axes, 1, 1, &id, &err), 0);
    assert_int_equal(db_add_sweep(b, "cbt", "{\"base\":\"lab2.json\"}", axes, 1, 1, &id, &err), 0);
    db_close(a);
    db_close(b);
    struct db *out = open_ok(out_path);
    int n;
    if (db_merge(out, f->path, &n, &err) < 0)
        fail_msg("%s", err.msg);
    assert_int_equal(db_merge(out, b_path, &n, &err), -EEXIST);
    assert_non_null(strstr(err.msg, b_path));
    assert_non_null(strstr(err.msg, out_path));
    assert_non_null(strstr(err.msg, "sweep 'cbt'"));
    assert_non_null(strstr(err.msg, "base scenario lab2.json, there lab.json"));
    assert_null(strchr(err.msg, '\n'));
    assert_int_equal(count(out, "SELECT count(*) FROM sweeps"), 1);
    db_close(out);
    /* the check before a merge names the two inputs */
    const char *paths[] = {f->path, b_path};
    assert_int_equal(db_merge_check(paths, 2, &err), -EEXIST);
    assert_non_null(strstr(err.msg, b_path));
    assert_non_null(strstr(err.msg, f->path));
    assert_int_equal(db_merge_check(paths, 1, &err), 0);
    const char *same[] = {f->path, f->path};
    assert_int_equal(db_merge_check(same, 2, &err), 0);
}

static char *run_query(const struct query_opts *o)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    struct sim_err err = {0};
    if (query_run(o, f, &err) < 0)
        fail_msg("query: %s", err.msg);
    fclose(f);
    return buf;
}

static void query_questions(void **state)
{
    struct fixture *f = *state;
    struct db *db = open_ok(f->path);
    /* iops, p99: p1 and p3 are on the front (p0 beaten by p3, p2 by p1) */
    const double x[] = {1, 1, 16, 16};
    const char *nic[] = {"10gbase-t", "100gbe", "10gbase-t", "100gbe"};
    add_points(db, "s", 4, x, nic);
    add_run(db, "p0", 0, true, 100, 900);
    add_run(db, "p1", 0, true, 300, 500);
    add_run(db, "p2", 0, true, 200, 950);
    add_run(db, "p3", 0, true, 120, 400);
    db_close(db);
    struct query_opts o = {.db_path = f->path, .action = QUERY_PARETO, .csv = true};
    char *out = run_query(&o);
    assert_string_equal(out, "fio.iodepth,cluster.nic,n,iops,iops_ci95,lat_p99_us,lat_p99_us_ci95,point_id\n"
                             "1,100gbe,1,300,0,500,0,p1\n16,100gbe,1,120,0,400,0,p3\n");
    free(out);
    o = (struct query_opts){.db_path = f->path, .action = QUERY_BEST, .metric = "lat_p99_us", .csv = true, .limit = 1};
    out = run_query(&o);
    assert_non_null(strstr(out, "\n16,100gbe,1,400,0,p3\n"));
    free(out);
    o.metric = "iops";
    o.where = "\"cluster.nic\" = '10gbase-t'";
    out = run_query(&o);
    assert_non_null(strstr(out, "\n16,10gbase-t,1,200,0,p2\n"));
    free(out);
    o = (struct query_opts){.db_path = f->path, .action = QUERY_EFFECTS, .metric = "iops", .csv = true};
    out = run_query(&o);
    /* cluster.nic: 100gbe mean 210, 10gbase-t 150 -> effect 60; fio.iodepth: 200 vs 160 -> 40; larger first */
    assert_string_equal(out, "axis,value,iops,points,effect\ncluster.nic,100gbe,210,2,60\n"
                             "cluster.nic,10gbase-t,150,2,60\nfio.iodepth,1,200,2,40\nfio.iodepth,16,160,2,40\n");
    free(out);
    o = (struct query_opts){.db_path = f->path, .action = QUERY_SQL, .sql = "SELECT count(*) AS n FROM results",
                            .csv = true};
    out = run_query(&o);
    assert_string_equal(out, "n\n4\n");
    free(out);
    /* trailing semicolons and comments are not a second statement */
    o.sql = "SELECT count(*) AS n FROM results; -- all of them\n ; /* done */ ";
    out = run_query(&o);
    assert_string_equal(out, "n\n4\n");
    free(out);
    struct sim_err err = {0};
    o.sql = "DELETE FROM runs";
    assert_true(query_run(&o, stdout, &err) < 0);
    /* a second statement would be dropped without a word: refused, named */
    o.sql = "SELECT count(*) FROM results; DELETE FROM runs";
    assert_int_equal(query_run(&o, stdout, &err), -EINVAL);
    assert_string_equal(err.msg, "--sql SELECT count(*) FROM results; DELETE FROM runs: more than one statement "
                                 "(only the first would run): give one");
    o.sql = "SELECT 1; SELECT 2";
    assert_true(query_run(&o, stdout, &err) < 0);
    assert_non_null(strstr(err.msg, "more than one statement"));
    /* a directory is said to be one (SQLite: "disk I/O error") */
    o = (struct query_opts){.db_path = f->dir, .action = QUERY_SUMMARY};
    assert_int_equal(query_run(&o, stdout, &err), -EISDIR);
    assert_non_null(strstr(err.msg, "is a directory"));
    assert_non_null(strstr(err.msg, f->dir));
    struct db *none;
    assert_int_equal(db_open(f->dir, &none, &err), -EISDIR);
    assert_non_null(strstr(err.msg, "is a directory"));
    o = (struct query_opts){.db_path = f->path, .action = QUERY_BEST, .metric = "latency"};
    assert_true(query_run(&o, stdout, &err) < 0);
    assert_non_null(strstr(err.msg, "unknown metric 'latency'"));
    /* an axis named without its section and quotes: the column to write */
    o = (struct query_opts){.db_path = f->path, .action = QUERY_BEST, .metric = "iops", .where = "iodepth=1"};
    assert_true(query_run(&o, stdout, &err) < 0);
    assert_non_null(strstr(err.msg, "no such column: iodepth (the axis is the column \"fio.iodepth\": quote it, "
                                    "e.g. --where '\"fio.iodepth\"=1')"));
    o.where = "frobs=1";
    assert_true(query_run(&o, stdout, &err) < 0);
    assert_null(strstr(err.msg, "the axis is"));
    o = (struct query_opts){.db_path = f->path, .action = QUERY_SUMMARY, .sweep = "nope"};
    assert_true(query_run(&o, stdout, &err) < 0);
    assert_non_null(strstr(err.msg, "no sweep named 'nope'"));
}

/* A point that completed no I/O (4 MiB reads in a short run) has no latency:
   NULL in the database, so it is neither the best latency nor on the front. */
static void no_io_has_no_latency(void **state)
{
    struct fixture *f = *state;
    struct db *db = open_ok(f->path);
    const double x[] = {1, 16, 128};
    const char *nic[] = {"10gbase-t", "100gbe", "25gbe"};
    add_points(db, "s", 3, x, nic);
    add_run(db, "p0", 0, true, 0, 0);
    add_run(db, "p1", 0, true, 300, 500);
    add_run(db, "p2", 0, true, 100, 900);
    assert_true(number(db, "SELECT iops FROM metrics WHERE point_id = 'p0'") == 0);
    assert_int_equal(count(db, "SELECT lat_p99_us IS NULL AND lat_mean_us IS NULL AND write_lat_p99_us IS NULL "
                               "AND stage_local_commit_us IS NULL AND osd_cpu_us_per_op IS NULL "
                               "FROM metrics WHERE point_id = 'p0'"), 1);
    assert_int_equal(count(db, "SELECT lat_p99_us IS NULL FROM point_results WHERE point_id = 'p0'"), 1);
    assert_true(number(db, "SELECT lat_p99_us FROM metrics WHERE point_id = 'p1'") == 500);
    /* two more replications of p1, one with no I/O: the latency's mean and CI are over the two
       that have one (t(1) = 12.706), while the IOPS' are over all three */
    add_run(db, "p1", 1, true, 0, 0);
    add_run(db, "p1", 2, true, 340, 560);
    double lat[] = {500, 560}, iops[] = {300, 0, 340};
    struct ci cl = stats_ci95(lat, 2), ci = stats_ci95(iops, 3);
    assert_true(fabs(number(db, "SELECT lat_p99_us FROM point_results WHERE point_id = 'p1'") - cl.mean) < 1e-9);
    assert_true(fabs(number(db, "SELECT lat_p99_us_ci95 FROM point_results WHERE point_id = 'p1'") - cl.half) < 1e-6);
    assert_true(fabs(number(db, "SELECT iops_ci95 FROM point_results WHERE point_id = 'p1'") - ci.half) < 1e-6);
    db_close(db);
    struct query_opts o = {.db_path = f->path, .action = QUERY_BEST, .metric = "lat_p99_us", .csv = true};
    char *out = run_query(&o);
    /* p1: (500 + 560) / 2, and 12.706 x 42.43 / sqrt(2) by hand */
    assert_string_equal(out, "fio.iodepth,cluster.nic,n,lat_p99_us,lat_p99_us_ci95,point_id\n"
                             "16,100gbe,3,530,381.1861421,p1\n128,25gbe,1,900,0,p2\n");
    free(out);
    o = (struct query_opts){.db_path = f->path, .action = QUERY_PARETO, .csv = true};
    out = run_query(&o);
    assert_non_null(strstr(out, ",p1\n"));
    assert_null(strstr(out, ",p0\n"));
    free(out);
    o = (struct query_opts){.db_path = f->path, .action = QUERY_EFFECTS, .metric = "lat_p99_us", .csv = true};
    out = run_query(&o);
    assert_null(strstr(out, "10gbase-t"));
    free(out);
    /* the goal search reads the same way: no latency, not a latency of 0 */
    cJSON *s = summary(0, 0);
    double v;
    assert_false(db_metric_from_summary(db_metric_find("lat_p99_us"), s, &v));
    assert_true(db_metric_from_summary(db_metric_find("iops"), s, &v) && v == 0);
    cJSON_Delete(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(schema_and_pragmas, setup, teardown),
        cmocka_unit_test(metrics_cover_the_summary),
        cmocka_unit_test_setup_teardown(views_and_confidence_intervals, setup, teardown),
        cmocka_unit_test_setup_teardown(runs_are_unique_and_done_wins, setup, teardown),
        cmocka_unit_test_setup_teardown(merge_unions_and_keeps_done, setup, teardown),
        cmocka_unit_test_setup_teardown(merge_refuses_another_grid_of_one_name, setup, teardown),
        cmocka_unit_test_setup_teardown(query_questions, setup, teardown),
        cmocka_unit_test_setup_teardown(no_io_has_no_latency, setup, teardown),
        cmocka_unit_test_setup_teardown(damaged_database_refused, setup, teardown),
    };
    return cmocka_run_group_tests_name("db", tests, NULL, NULL);
}
