/*
 * test_sweep.c - sweeps end to end on a tiny grid: a clean run, resume (a
 * rerun does nothing), crashes (the writer and its workers killed with
 * SIGKILL at random moments, several times, then a rerun: rows exactly those
 * of the clean run, none missing, none twice, no half-written run), shards
 * merged = one run, validation before anything runs, the worker's checks,
 * reproducing a row with `cephsim run`-style loading, and the goal search.
 * The MPI transport is checked against the local one by tests/mpi_check.sh.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "db.h"
#include "goal.h"
#include "grid.h"
#include "runner.h"
#include "scenario.h"
#include "sweep.h"
#include "wallclock.h"

#define TINY_SETS "\"sim.duration_s\": 0.05, \"sim.warmup_s\": 0.01, \"cluster.hosts\": 2, " \
                  "\"cluster.osds_per_host\": 1, \"pool.size\": 2, \"pool.pg_num\": 16"

struct fixture {
    char dir[64];
    char grid[128];
    char clean[128];
    double clean_s; /* wall time of the clean sweep */
    int total;      /* runs of the grid */
};

/* Run `cephsim sweep GRID --db DB -j J [extra]` in a child of its own process group. */
static pid_t spawn_sweep(const char *grid, const char *db, const char *jobs, const char *shard)
{
    pid_t pid = fork();
    if (pid == 0) {
        setpgid(0, 0);
        if (!freopen("/dev/null", "w", stderr))
            _exit(3);
        char *argv[16] = {"sweep", (char *)grid, "--db", (char *)db, "-j", (char *)jobs, "--batch", "2",
                          "--commit-interval", "0.005", "-q"};
        int argc = 11;
        if (shard) {
            argv[argc++] = "--shard";
            argv[argc++] = (char *)shard;
        }
        _exit(cmd_sweep(argc, argv));
    }
    setpgid(pid, pid);
    return pid;
}

static int wait_exit(pid_t pid)
{
    int st;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static sqlite3 *open_db(const char *path)
{
    sqlite3 *h;
    assert_int_equal(sqlite3_open_v2(path, &h, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    return h;
}

static int64_t count(const char *path, const char *sql)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return 0;
    sqlite3 *h = open_db(path);
    sqlite3_stmt *s;
    int64_t n = -1;
    if (sqlite3_prepare_v2(h, sql, -1, &s, NULL) == SQLITE_OK && sqlite3_step(s) == SQLITE_ROW)
        n = sqlite3_column_int64(s, 0);
    sqlite3_finalize(s);
    sqlite3_close(h);
    return n;
}

/* Every run with its metrics as text lines, sorted; wall time, worker and dates left out. */
static char *dump_rows(const char *path)
{
    sqlite3 *h = open_db(path);
    sqlite3_stmt *s;
    assert_int_equal(sqlite3_prepare_v2(h, "SELECT r.point_id, r.replication, r.seed, r.status, r.events, m.* "
                                           "FROM runs r JOIN metrics m ON m.point_id = r.point_id AND "
                                           "m.replication = r.replication ORDER BY 1, 2", -1, &s, NULL), SQLITE_OK);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    while (sqlite3_step(s) == SQLITE_ROW) {
        for (int i = 0; i < sqlite3_column_count(s); i++)
            fprintf(f, "%s|", sqlite3_column_text(s, i) ? (const char *)sqlite3_column_text(s, i) : "NULL");
        fputc('\n', f);
    }
    fclose(f);
    sqlite3_finalize(s);
    sqlite3_close(h);
    return buf;
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void assert_same_rows(const char *a, const char *b)
{
    char *x = dump_rows(a), *y = dump_rows(b);
    if (strcmp(x, y))
        fail_msg("rows of %s and %s differ", a, b);
    free(x);
    free(y);
}

/* No done run without its metrics row, no metrics row without its done run. */
static void assert_consistent(const char *db)
{
    assert_int_equal(count(db, "SELECT count(*) FROM runs r LEFT JOIN metrics m ON m.point_id = r.point_id AND "
                               "m.replication = r.replication WHERE r.status = 'done' AND m.point_id IS NULL"), 0);
    assert_int_equal(count(db, "SELECT count(*) FROM metrics m LEFT JOIN runs r ON m.point_id = r.point_id AND "
                               "m.replication = r.replication WHERE r.status IS NOT 'done'"), 0);
    assert_int_equal(count(db, "SELECT count(*) FROM (SELECT 1 FROM runs GROUP BY point_id, replication "
                               "HAVING count(*) > 1)"), 0);
}

static int group_setup(void **state)
{
    struct fixture *f = calloc(1, sizeof *f);
    snprintf(f->dir, sizeof f->dir, "/tmp/cephsim-test-sweep-XXXXXX");
    if (!mkdtemp(f->dir))
        return -1;
    snprintf(f->grid, sizeof f->grid, "%s/tiny.json", f->dir);
    snprintf(f->clean, sizeof f->clean, "%s/clean.db", f->dir);
    write_file(f->grid, "{\"name\": \"tiny\", \"base\": \"scenarios/qd1-latency.json\", \"set\": {" TINY_SETS "},\n"
                        " \"axes\": {\"fio.iodepth\": [1, 2, 4, 8, 16], \"cluster.nic\": [\"10gbase-t\", \"25gbe\", "
                        "\"100gbe\"]}, \"replications\": 2}\n");
    f->total = 5 * 3 * 2;
    double t0 = wallclock_s();
    if (wait_exit(spawn_sweep(f->grid, f->clean, "2", NULL)) != 0)
        return -1;
    f->clean_s = wallclock_s() - t0;
    *state = f;
    return 0;
}

static int group_teardown(void **state)
{
    struct fixture *f = *state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", f->dir);
    int rc = system(cmd);
    free(f);
    return rc == 0 ? 0 : -1;
}

static void clean_run_and_resume(void **state)
{
    struct fixture *f = *state;
    assert_int_equal(count(f->clean, "SELECT count(*) FROM runs WHERE status = 'done'"), f->total);
    assert_int_equal(count(f->clean, "SELECT count(*) FROM results"), f->total);
    assert_int_equal(count(f->clean, "SELECT count(*) FROM point_results WHERE n = 2"), f->total / 2);
    assert_consistent(f->clean);
    char *before = dump_rows(f->clean);
    int64_t stamp = count(f->clean, "SELECT sum(unixepoch(finished_at)) FROM runs");
    assert_int_equal(wait_exit(spawn_sweep(f->grid, f->clean, "2", NULL)), 0); /* rerun: resume with nothing to do */
    char *after = dump_rows(f->clean);
    assert_string_equal(before, after);
    assert_int_equal(count(f->clean, "SELECT sum(unixepoch(finished_at)) FROM runs"), stamp); /* nothing rewritten */
    free(before);
    free(after);
    /* replication seeds: 0 is the point's seed, the others derived */
    assert_int_equal(count(f->clean, "SELECT count(*) FROM runs r JOIN points p USING (point_id) "
                                     "WHERE r.replication = 0 AND r.seed <> p.seed"), 0);
    assert_int_equal(count(f->clean, "SELECT count(DISTINCT seed) FROM runs"), 2);
}

/* A dry run (-n) writes nothing: no database where there was none, and an
   existing one byte for byte as it was (its done runs still counted). */
static void dry_run_writes_nothing(void **state)
{
    struct fixture *f = *state;
    char db[160], cmp[400];
    snprintf(db, sizeof db, "%s/dry.db", f->dir);
    char *argv[] = {"sweep", f->grid, "--db", db, "-n", "--quiet", NULL};
    int saved = dup(1);
    assert_true(freopen("/dev/null", "w", stdout) != NULL);
    int rc = cmd_sweep(6, argv);
    char *argv2[] = {"sweep", f->grid, "--db", f->clean, "-n", "--quiet", NULL};
    char sum_before[128] = "", sum_after[128] = "";
    snprintf(cmp, sizeof cmp, "sha256sum '%s'", f->clean);
    FILE *p = popen(cmp, "r");
    assert_non_null(fgets(sum_before, sizeof sum_before, p));
    pclose(p);
    int rc2 = cmd_sweep(6, argv2);
    p = popen(cmp, "r");
    assert_non_null(fgets(sum_after, sizeof sum_after, p));
    pclose(p);
    fflush(stdout);
    dup2(saved, 1);
    close(saved);
    assert_int_equal(rc, 0);
    assert_int_equal(rc2, 0);
    assert_int_equal(access(db, F_OK), -1);
    assert_string_equal(sum_before, sum_after);
}

static void kill_9_then_resume_is_exact(void **state)
{
    struct fixture *f = *state;
    char db[160];
    snprintf(db, sizeof db, "%s/crash.db", f->dir);
    srand(12345);
    int crashed_midway = 0;
    for (int i = 0; i < 6; i++) {
        int64_t done = count(db, "SELECT count(*) FROM runs WHERE status = 'done'");
        double left = f->clean_s * (double)(f->total - done) / f->total;
        /* the first kill lands in the planning transaction, the odd ones as soon
           as a new run is committed (whatever the machine's load: a kill
           between two commits is certain), the others at a random point of
           the runs left (timed from the clean sweep) */
        double delay = i == 0 ? 0.002 : 0.003 + left * (0.1 + 0.8 * rand() / (double)RAND_MAX);
        pid_t pid = spawn_sweep(f->grid, db, "2", NULL);
        int st;
        if (i % 2 == 1) {
            double give_up = wallclock_s() + 10 * f->clean_s + 5;
            struct timespec poll = {0, 200000};
            while (waitpid(pid, &st, WNOHANG) == 0 && wallclock_s() < give_up &&
                   count(db, "SELECT count(*) FROM runs WHERE status = 'done'") <= done)
                nanosleep(&poll, NULL);
        } else {
            struct timespec ts = {(time_t)delay, (long)((delay - floor(delay)) * 1e9)};
            nanosleep(&ts, NULL);
        }
        kill(-pid, SIGKILL); /* the writer and its workers */
        if (waitpid(pid, &st, WNOHANG) == 0)
            wait_exit(pid);
        int64_t now = count(db, "SELECT count(*) FROM runs WHERE status = 'done'");
        crashed_midway += now > 0 && now < f->total && now > done;
        if (count(db, "SELECT count(*) FROM sqlite_schema") > 0) {
            sqlite3 *h = open_db(db);
            sqlite3_stmt *s;
            sqlite3_prepare_v2(h, "PRAGMA integrity_check", -1, &s, NULL);
            assert_int_equal(sqlite3_step(s), SQLITE_ROW);
            assert_string_equal((const char *)sqlite3_column_text(s, 0), "ok");
            sqlite3_finalize(s);
            sqlite3_close(h);
            assert_consistent(db);
        }
    }
    print_message("%d of 6 kills landed after some runs were committed and before the last\n", crashed_midway);
    if (crashed_midway < 1)
        fail_msg("no kill landed between two commits (machine too fast or too slow for the delays)");
    assert_int_equal(wait_exit(spawn_sweep(f->grid, db, "2", NULL)), 0);
    assert_int_equal(count(db, "SELECT count(*) FROM runs"), f->total);
    assert_consistent(db);
    assert_same_rows(f->clean, db);
}

static void shards_merged_equal_one_run(void **state)
{
    struct fixture *f = *state;
    char shard_db[3][160], spec[3][16], out[160];
    int sum = 0;
    for (int k = 0; k < 3; k++) {
        snprintf(shard_db[k], sizeof shard_db[k], "%s/shard%d.db", f->dir, k + 1);
        snprintf(spec[k], sizeof spec[k], "%d/3", k + 1);
        assert_int_equal(wait_exit(spawn_sweep(f->grid, shard_db[k], "1", spec[k])), 0);
        int n = (int)count(shard_db[k], "SELECT count(*) FROM runs");
        assert_true(n > 0 && n < f->total);
        sum += n;
    }
    assert_int_equal(sum, f->total); /* disjoint slices that cover the grid */
    snprintf(out, sizeof out, "%s/merged.db", f->dir);
    char *argv[] = {"merge", "-q", out, shard_db[0], shard_db[1], shard_db[2]};
    assert_int_equal(cmd_merge(6, argv), 0);
    assert_same_rows(f->clean, out);
    assert_int_equal(count(out, "SELECT count(*) FROM sweep_points"), f->total / 2);
    assert_int_equal(count(out, "SELECT count(*) FROM sweeps"), 1);
    char *bad[] = {"merge", out, out};
    assert_int_equal(cmd_merge(3, bad), 2);
}

/* `cephsim merge` in a child, its stderr into errfile; the exit code. */
static int merge_to(char **argv, int argc, const char *errfile)
{
    pid_t pid = fork();
    if (pid == 0) {
        if (!freopen(errfile, "w", stderr))
            _exit(3);
        int rc = cmd_merge(argc, argv);
        fflush(stderr); /* a file now, buffered, and _exit flushes nothing */
        _exit(rc);
    }
    return wait_exit(pid);
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char *buf = calloc(1, 4096);
    size_t n = fread(buf, 1, 4095, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

/*
 * Two sweeps of one name on different grids (a cbt file run on two base
 * scenarios) are not shards: merge refuses them in one line naming both
 * files, and a merge that fails leaves no OUT it created (an existing OUT
 * stays as it was).
 */
static void merge_refuses_two_grids_of_one_name(void **state)
{
    struct fixture *f = *state;
    char other[160], out[160], errfile[160], missing[160];
    snprintf(other, sizeof other, "%s/other-base.db", f->dir);
    snprintf(out, sizeof out, "%s/refused.db", f->dir);
    snprintf(errfile, sizeof errfile, "%s/merge.err", f->dir);
    snprintf(missing, sizeof missing, "%s/missing.db", f->dir);
    struct db *db;
    struct sim_err err = {0};
    const char *axes[] = {"fio.iodepth"};
    int64_t id;
    assert_int_equal(db_open(other, &db, &err), 0);
    assert_int_equal(db_add_sweep(db, "tiny", "{\"base\": \"scenarios/lab.json\"}", axes, 1, 2, &id, &err), 0);
    db_close(db);
    struct stat st;
    char *argv[] = {"merge", "-q", out, f->clean, other};
    assert_int_equal(merge_to(argv, 5, errfile), 1);
    char *msg = slurp(errfile);
    if (!strstr(msg, f->clean))
        fail_msg("%s", msg);
    assert_non_null(strstr(msg, other));
    assert_non_null(strstr(msg, "sweep 'tiny'"));
    assert_non_null(strstr(msg, "not shards of one grid"));
    assert_ptr_equal(strchr(msg, '\n'), msg + strlen(msg) - 1); /* one line */
    free(msg);
    assert_true(stat(out, &st) != 0);
    char *argv_missing[] = {"merge", "-q", out, f->clean, missing};
    assert_int_equal(merge_to(argv_missing, 5, errfile), 1);
    assert_true(stat(out, &st) != 0);
    /* an OUT that existed keeps its rows */
    char *argv_ok[] = {"merge", "-q", out, f->clean};
    assert_int_equal(merge_to(argv_ok, 4, errfile), 0);
    char *argv_into[] = {"merge", "-q", out, other};
    assert_int_equal(merge_to(argv_into, 4, errfile), 1);
    assert_int_equal(count(out, "SELECT count(*) FROM runs"), f->total);
}

static void bad_grid_fails_before_running(void **state)
{
    struct fixture *f = *state;
    char grid[160], db[160];
    snprintf(grid, sizeof grid, "%s/bad.json", f->dir);
    snprintf(db, sizeof db, "%s/bad.db", f->dir);
    write_file(grid, "{\"base\": \"scenarios/qd1-latency.json\", \"set\": {" TINY_SETS "}, "
                     "\"axes\": {\"fio.iodepth\": [1, 2], \"pool.size\": [2, 12]}}");
    assert_int_equal(wait_exit(spawn_sweep(grid, db, "2", NULL)), 1);
    struct stat st;
    assert_true(stat(db, &st) != 0); /* not even created */
    char *usage[] = {"sweep", grid};
    assert_int_equal(cmd_sweep(2, usage), 2); /* no --db */
    char *shard[] = {"sweep", grid, "--db", db, "--shard", "0/2"};
    assert_int_equal(cmd_sweep(6, shard), 2);
    /* nothing may follow K/N (sscanf alone read "1/2x" and "1/2/3" as 1/2) */
    char *shard2[] = {"sweep", grid, "--db", db, "--shard", "1/2x"};
    assert_int_equal(cmd_sweep(6, shard2), 2);
    char *shard3[] = {"sweep", grid, "--db", db, "--shard", "1/2/3"};
    assert_int_equal(cmd_sweep(6, shard3), 2);
}

static void worker_checks_its_task(void **state)
{
    char *r = sweep_task_run("not json");
    assert_non_null(strstr(r, "\"ok\":false"));
    assert_non_null(strstr(r, "malformed task line"));
    free(r);
    const char *sets[] = {"sim.duration_s=0.05", "cluster.hosts=2", "cluster.osds_per_host=1", "pool.size=2"};
    char *line = sweep_task_line(7, "00000000000000000000000000000000", 0, 1, "scenarios/qd1-latency.json", sets, 4);
    r = sweep_task_run(line);
    assert_non_null(strstr(r, "\"task\":7"));
    assert_non_null(strstr(r, "resolves the point to"));
    free(r);
    free(line);
}

/* A row of the database is reproduced by loading its point with its seed, one replication. */
static void rows_are_reproducible(void **state)
{
    struct fixture *f = *state;
    sqlite3 *h = open_db(f->clean);
    sqlite3_stmt *s;
    assert_int_equal(sqlite3_prepare_v2(h, "SELECT p.base, p.sets_json, r.seed, m.iops, m.lat_p99_us FROM runs r "
                                           "JOIN points p USING (point_id) JOIN metrics m USING (point_id, replication) "
                                           "WHERE r.replication = 1 ORDER BY r.point_id LIMIT 1", -1, &s, NULL),
                     SQLITE_OK);
    assert_int_equal(sqlite3_step(s), SQLITE_ROW);
    cJSON *sets = cJSON_Parse((const char *)sqlite3_column_text(s, 1));
    int n = cJSON_GetArraySize(sets);
    const char **sv = calloc((size_t)n + 2, sizeof *sv);
    for (int i = 0; i < n; i++)
        sv[i] = cJSON_GetArrayItem(sets, i)->valuestring;
    char seed[64];
    snprintf(seed, sizeof seed, "sim.seed=%lld", (long long)sqlite3_column_int64(s, 2));
    sv[n] = seed;
    sv[n + 1] = "sim.replications=1";
    struct scenario sc;
    struct sim_err err = {0};
    if (scenario_load(&sc, (const char *)sqlite3_column_text(s, 0), NULL, NULL, sv, n + 2, &err) < 0)
        fail_msg("%s", err.msg);
    struct run_summary sum;
    assert_int_equal(runner_run(&sc, NULL, false, &sum, &err), 0);
    assert_true(sum.iops.mean == sqlite3_column_double(s, 3));
    assert_true(sum.lat_p99_us.mean == sqlite3_column_double(s, 4));
    scenario_free(&sc);
    free(sv);
    cJSON_Delete(sets);
    sqlite3_finalize(s);
    sqlite3_close(h);
}

static void goal_parsing(void **state)
{
    struct goal_target t;
    struct goal_dim d;
    struct sim_err err = {0};
    assert_int_equal(goal_parse_target("lat_mean_us<=500", &t, &err), 0);
    assert_true(t.op == GOAL_LE && t.value == 500 && !strcmp(t.metric->name, "lat_mean_us"));
    assert_int_equal(goal_parse_target("iops > 1e4", &t, &err), 0);
    assert_true(t.op == GOAL_GT && t.value == 1e4);
    assert_true(goal_parse_target("latency<=5", &t, &err) < 0);
    assert_non_null(strstr(err.msg, "unknown metric"));
    assert_true(goal_parse_target("iops>=x", &t, &err) < 0);
    assert_int_equal(goal_parse_cost("cluster.nic=100gbe:2,10gbase-t:0,25gbe:1", &d, &err), 0);
    assert_int_equal(d.n, 3);
    assert_string_equal(d.path, "cluster.nic");
    assert_string_equal(d.values[0], "10gbase-t"); /* sorted by cost */
    assert_string_equal(d.values[2], "100gbe");
    goal_dim_free(&d);
    assert_true(goal_parse_cost("cluster.nic=100gbe", &d, &err) < 0);
    assert_true(goal_parse_cost("nic=a:1", &d, &err) < 0);
    /* one value twice, or a negative cost: refused, naming the --cost */
    assert_true(goal_parse_cost("cluster.nic=25gbe:0,25gbe:1", &d, &err) < 0);
    assert_string_equal(err.msg, "--cost cluster.nic=25gbe:0,25gbe:1: value '25gbe' given twice");
    assert_true(goal_parse_cost("fio.iodepth=1:0,1.0:1", &d, &err) < 0);
    assert_non_null(strstr(err.msg, "given twice"));
    assert_true(goal_parse_cost("cluster.nic=10gbase-t:-1,25gbe:1", &d, &err) < 0);
    assert_string_equal(err.msg, "--cost cluster.nic=10gbase-t:-1,25gbe:1: '10gbase-t:-1': a cost cannot be negative");
    /* one parameter in two --cost options: refused, naming the second */
    struct goal_dim dims[3];
    int n_dims = 0;
    assert_int_equal(goal_add_cost(dims, &n_dims, "cluster.nic=10gbase-t:0", &err), 0);
    assert_int_equal(goal_add_cost(dims, &n_dims, "cluster.max_cstate=deepest:0,C1:1", &err), 0);
    assert_true(goal_add_cost(dims, &n_dims, "cluster.nic=25gbe:1", &err) < 0);
    assert_int_equal(n_dims, 2);
    assert_non_null(strstr(err.msg, "--cost cluster.nic=25gbe:1: cluster.nic has its options in an earlier --cost"));
    for (int i = 0; i < n_dims; i++)
        goal_dim_free(&dims[i]);
    /* an out-of-range number is named by its option as the help spells it */
    char *argv[] = {"goal", "--base", "scenarios/qd1-latency.json", "--target", "iops>=1", "--cost",
                    "cluster.nic=10gbase-t:0", "--max-evals", "0"};
    char errfile[] = "/tmp/cephsim-test-goal-XXXXXX";
    int fd = mkstemp(errfile);
    assert_true(fd >= 0);
    close(fd);
    pid_t pid = fork();
    if (pid == 0) {
        if (!freopen(errfile, "w", stderr))
            _exit(3);
        int rc = cmd_goal(9, argv);
        fflush(stderr);
        _exit(rc);
    }
    assert_int_equal(wait_exit(pid), 2);
    char *msg = slurp(errfile);
    unlink(errfile);
    assert_string_equal(msg, "cephsim goal: --max-evals 0: expected a positive number\n");
    free(msg);
}

/* A goal search on a 2 x 2 lattice; its printed report into *report unless report is NULL. */
static int goal_run(const char *target, bool prune, int jobs, const char *db, struct goal_result *res, char **report)
{
    static const char *const sets[] = {"sim.duration_s=0.05", "sim.warmup_s=0.01", "cluster.hosts=2",
                                       "cluster.osds_per_host=1", "pool.size=2", "pool.pg_num=16"};
    struct goal_target t;
    struct goal_dim d[2];
    struct sim_err err = {0};
    assert_int_equal(goal_parse_target(target, &t, &err), 0);
    assert_int_equal(goal_parse_cost("cluster.nic=10gbase-t:0,100gbe:2", &d[0], &err), 0);
    assert_int_equal(goal_parse_cost("cluster.max_cstate=deepest:0,C1:0.1", &d[1], &err), 0);
    struct goal_opts o = {.base = "scenarios/qd1-latency.json", .sets = sets, .n_sets = 6, .targets = &t,
                          .n_targets = 1, .dims = d, .n_dims = 2, .replications = 2, .jobs = jobs, .prune = prune,
                          .db_path = db};
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    int rc = goal_search(&o, out, res, &err);
    fclose(out);
    if (report)
        *report = text;
    else
        free(text);
    if (rc < 0)
        fail_msg("%s", err.msg);
    goal_dim_free(&d[0]);
    goal_dim_free(&d[1]);
    return rc;
}

static void goal_search_finds_the_cheapest(void **state)
{
    struct fixture *f = *state;
    struct goal_result r;
    char db[160];
    snprintf(db, sizeof db, "%s/goal.db", f->dir);
    goal_run("iops>=0", true, 2, db, &r, NULL); /* everything meets: the cheapest is all-first */
    assert_true(r.found && r.cost == 0 && r.choice[0] == 0 && r.choice[1] == 0);
    assert_true(r.evaluated <= 4 && r.combinations == 4);
    free(r.choice);
    char *report;
    goal_run("iops>=1e12", true, 1, NULL, &r, &report); /* nothing can: the priciest probe misses and rules out the rest */
    assert_true(!r.found && r.evaluated == 1 && r.pruned == 3);
    /* the verdict rests on the assumption, and says so */
    assert_non_null(strstr(report, "no combination meets the target (assuming a pricier option is never worse: "
                                   "3 combinations ruled out without a run; --no-prune runs them)"));
    free(report);
    free(r.choice);
    goal_run("iops>=1e12", true, 2, NULL, &r, NULL); /* two at a time: the probe and a quantile */
    assert_true(!r.found && r.evaluated == 2 && r.pruned == 2);
    free(r.choice);
    goal_run("iops>=1e12", false, 2, NULL, &r, &report); /* without the assumption every combination is tried */
    assert_true(!r.found && r.evaluated == 4 && r.pruned == 0);
    assert_non_null(strstr(report, "no combination meets the target; closest:")); /* a proof: no caveat */
    free(report);
    free(r.choice);
    goal_run("iops>=0", true, 2, db, &r, NULL); /* again with the same --db: every run is recorded, none redone */
    assert_true(r.found && r.cost == 0 && r.runs == 0);
    free(r.choice);
    assert_true(count(db, "SELECT count(*) FROM results") >= 2);
}

/*
 * A grid axis over fio job files (clients.jobfile, relative to the base
 * scenario as --set clients.jobfile is): one point per file, its name the
 * column value; librbd and the kernel client on the same cluster, QD=1, so
 * krbd's point is the faster (~55 us of removed client stages, ~7 standard
 * errors at 0.3 s).
 */
static void jobfile_axis(void **state)
{
    struct fixture *f = *state;
    char base[160], grid[160], db[160], path[160];
    snprintf(base, sizeof base, "%s/jf-base.json", f->dir);
    snprintf(grid, sizeof grid, "%s/jf-grid.json", f->dir);
    snprintf(db, sizeof db, "%s/jf.db", f->dir);
    write_file(base, "{\"cluster\": {\"hosts\": 3, \"osds_per_host\": 1, \"client_hosts\": 1},"
                     " \"pool\": {\"size\": 3, \"pg_num\": 16}, \"image\": {\"size_gib\": 1},"
                     " \"clients\": {\"jobfile\": \"lib.fio\"}, \"sim\": {\"duration_s\": 0.3, \"warmup_s\": 0.05}}\n");
    snprintf(path, sizeof path, "%s/lib.fio", f->dir);
    write_file(path, "[q]\nioengine=rbd\nrw=randwrite\nbs=4k\niodepth=1\ntime_based\n");
    snprintf(path, sizeof path, "%s/kern.fio", f->dir);
    write_file(path, "[q]\nioengine=libaio\nfilename=/dev/rbd0\ndirect=1\nrw=randwrite\nbs=4k\niodepth=1\ntime_based\n");
    write_file(grid, "{\"name\": \"jf\", \"base\": \"jf-base.json\", \"axes\": {\"clients.jobfile\": "
                     "[\"lib.fio\", \"kern.fio\"]}, \"replications\": 1}\n");
    assert_int_equal(wait_exit(spawn_sweep(grid, db, "2", NULL)), 0);
    assert_int_equal(count(db, "SELECT count(*) FROM runs WHERE status = 'done'"), 2);
    assert_int_equal(count(db, "SELECT count(*) FROM point_results WHERE \"clients.jobfile\" IN ('lib.fio', 'kern.fio')"),
                     2);
    assert_int_equal(count(db, "SELECT (SELECT lat_mean_us FROM point_results WHERE \"clients.jobfile\" = 'kern.fio') "
                               "< (SELECT lat_mean_us FROM point_results WHERE \"clients.jobfile\" = 'lib.fio')"), 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(clean_run_and_resume),
        cmocka_unit_test(dry_run_writes_nothing),
        cmocka_unit_test(kill_9_then_resume_is_exact),
        cmocka_unit_test(shards_merged_equal_one_run),
        cmocka_unit_test(merge_refuses_two_grids_of_one_name),
        cmocka_unit_test(bad_grid_fails_before_running),
        cmocka_unit_test(worker_checks_its_task),
        cmocka_unit_test(rows_are_reproducible),
        cmocka_unit_test(jobfile_axis),
        cmocka_unit_test(goal_parsing),
        cmocka_unit_test(goal_search_finds_the_cheapest),
    };
    return cmocka_run_group_tests_name("sweep", tests, group_setup, group_teardown);
}
