/*
 * sweep.h - run a grid: points and replications handed to workers (forked
 * processes over pipes, or MPI ranks in cephsim-mpi), results written to the
 * database by one writer in batched transactions, resumable at any time.
 *
 *   cephsim sweep GRID --db FILE [-j N] [--shard K/N] [--mpi] [-q] [--dry-run]
 *   cephsim merge OUT IN...
 *
 * A task is one replication of one point: a JSON line {"task", "point_id",
 * "replication", "seed", "base", "sets"}; its result is a JSON line
 * {"task", "point_id", "replication", "seed", "ok", "error", "wall_s",
 * "events", "worker", "summary"}.  Runs already done in the database are
 * skipped, so rerunning the same command resumes.
 */
#ifndef CEPHSIM_EXPLORER_SWEEP_H
#define CEPHSIM_EXPLORER_SWEEP_H

#include <stdbool.h>
#include <stdint.h>

#include "err.h"

struct sweep_opts {
    const char *grid_path;  /* with cbt_path: the base scenario */
    const char *cbt_path;   /* --cbt FILE.yaml: cbt's benchmark file as the grid */
    const char *db_path;
    int jobs;          /* fork workers; 0: the number of online cores */
    int shard_k;       /* 1..shard_n */
    int shard_n;       /* 0: no sharding */
    bool progress;     /* progress line on stderr (default: when stderr is a terminal) */
    bool quiet;        /* no summary line either */
    bool dry_run;      /* list the points and their state; run nothing */
    bool mpi;
    int batch;         /* runs per transaction at most */
    double commit_s;   /* commit buffered runs at least this often */
};

/* How tasks reach workers: fork + pipes here, MPI in explorer/mpi/cephsim_mpi.c. */
struct sweep_transport {
    void *ctx;
    int n_workers;
    const char *what;  /* "2 local workers", "2 MPI ranks" */
    char death[200];   /* why the worker recv last reported dead died */
    /* Send a task line (no newline) to worker w. */
    int (*send)(void *ctx, int w, const char *line);
    /*
     * Wait up to timeout_s for one result: 1 with *w and *line (malloc'd; NULL
     * when worker w died), 0 on timeout, -EINTR when stop_fd became readable,
     * other negative errno on failure.
     */
    int (*recv)(void *ctx, int stop_fd, int *w, char **line, double timeout_s);
    /* Replace a dead worker; negative if it cannot be. */
    int (*revive)(void *ctx, int w);
};

struct sweep;

/*
 * Parse the arguments of `cephsim sweep` (argv[0] = "sweep").  Returns 0 to
 * go on, 1 after printing --help (exit 0), 2 on a usage error (printed).
 */
int sweep_parse_args(int argc, char **argv, struct sweep_opts *o);

/*
 * Load and validate the grid, resolve every point of the shard (ids), open the
 * database, register the sweep and its points, and list the runs to do.
 * Nothing runs before this succeeds.
 */
int sweep_prepare(const struct sweep_opts *o, struct sweep **out, struct sim_err *err);
/* Runs left to do. */
int sweep_todo(const struct sweep *sw);
/* Print the points of the shard with their state (--dry-run). */
void sweep_print_plan(const struct sweep *sw);

/*
 * The front shared by `cephsim sweep` and cephsim-mpi's rank 0: sweep_prepare,
 * or the plan for --dry-run.  NULL (with *exit_code set, the error printed)
 * when there is nothing more to run.
 */
struct sweep *sweep_open_cli(const struct sweep_opts *o, int *exit_code);
/* Run what is left on min(jobs, runs left) forked local workers. */
int sweep_run_local(struct sweep *sw, int jobs, struct sim_err *err);

/*
 * Hand every run to t's workers and record the results.  Blocks SIGINT,
 * SIGTERM and SIGHUP meanwhile: on one, commits what finished and returns -EINTR.
 */
int sweep_execute(struct sweep *sw, struct sweep_transport *t, struct sim_err *err);

/* Print the summary line (unless quiet) and free everything; returns the exit code. */
int sweep_finish(struct sweep *sw, int rc, const struct sim_err *err);

/* Worker side: run one task line; returns the result line (malloc'd, no newline). */
char *sweep_task_run(const char *task_line);

/* A task line for sweep_task_run (malloc'd). */
char *sweep_task_line(int task, const char *point_id, int replication, int64_t seed, const char *base,
                      const char *const *sets, int n_sets);

/*
 * Run n task lines on t's workers, without a database: results[i] gets the
 * result line of tasks[i] (malloc'd), or NULL if its worker died (why in
 * t->death).  For callers that decide what to run next from results (goal).
 */
int sweep_run_lines(struct sweep_transport *t, char *const *tasks, int n, char **results, struct sim_err *err);

/* The fork transport with n workers (each a child running sweep_task_run). */
int sweep_fork_transport_open(int n, struct sweep_transport **out, struct sim_err *err);
/* Stop the workers (EOF on their task pipes; SIGTERM first if kill_workers), reap them, free t. */
void sweep_fork_transport_close(struct sweep_transport *t, bool kill_workers);

/* `cephsim sweep` (with --mpi: exec cephsim-mpi from the same directory). */
int cmd_sweep(int argc, char **argv);
/* `cephsim merge OUT IN...`: merge shard databases into OUT. */
int cmd_merge(int argc, char **argv);

#endif
