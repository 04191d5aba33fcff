/*
 * sweep_bench.c - sweep throughput: points per second with -j 1 and -j 2
 * (or -j LIST), and the parallel efficiency rate(j) / (j * rate(1)).
 *
 *   sweep_bench [-n POINTS] [-d SIM_SECONDS] [-j 1,2]   (run from the repo root)
 *
 * The grid is POINTS copies of a small QD=1 scenario that differ only in
 * sim.seed (equal work per point), one replication each, swept into a fresh
 * database for each -j.  Two sizes are measured: the given simulated duration
 * (work-dominated) and 10 ms (overhead-dominated: dispatch, pipes, SQLite).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sweep.h"
#include "wallclock.h"

/* Seconds to sweep the grid with j workers into a fresh database (the sweep runs in a child). */
static double sweep_once(const char *dir, const char *grid, int j)
{
    char db[300], js[16];
    snprintf(db, sizeof db, "%s/j%d.db", dir, j);
    unlink(db);
    snprintf(js, sizeof js, "%d", j);
    fflush(stdout); /* or the child's first flush prints our buffer again */
    double t0 = wallclock_s();
    pid_t pid = fork();
    if (pid == 0) {
        char *argv[] = {"sweep", (char *)grid, "--db", db, "-j", js, "--quiet", NULL};
        _exit(cmd_sweep(7, argv));
    }
    int st;
    waitpid(pid, &st, 0);
    double el = wallclock_s() - t0;
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        fprintf(stderr, "sweep_bench: the sweep with -j %d failed\n", j);
        exit(1);
    }
    return el;
}

static void bench(const char *dir, int points, double duration, const int *jobs, int n_jobs)
{
    char grid[300];
    snprintf(grid, sizeof grid, "%s/grid-%g.json", dir, duration);
    FILE *f = fopen(grid, "w");
    if (!f) {
        perror(grid);
        exit(1);
    }
    fprintf(f, "{\"name\": \"bench\", \"base\": \"scenarios/qd1-latency.json\", \"set\": {\"sim.duration_s\": %g, "
               "\"sim.warmup_s\": 0.01, \"cluster.hosts\": 3, \"cluster.osds_per_host\": 2, \"pool.pg_num\": 64}, "
               "\"axes\": {\"sim.seed\": {\"from\": 1, \"to\": %d, \"steps\": %d}}, \"replications\": 1}\n",
            duration, points, points);
    fclose(f);
    double rate1 = 0;
    for (int i = 0; i < n_jobs; i++) {
        double el = sweep_once(dir, grid, jobs[i]);
        double rate = points / el;
        if (jobs[i] == 1)
            rate1 = rate;
        printf("sweep_bench: %d points of %g s simulated, -j %d: %.2f s, %.1f points/s", points, duration, jobs[i], el,
               rate);
        if (rate1 > 0 && jobs[i] > 1)
            printf(", parallel efficiency %.0f%%", 100 * rate / (jobs[i] * rate1));
        printf("\n");
        fflush(stdout);
    }
}

int main(int argc, char **argv)
{
    int points = 40, jobs[16] = {1, 2}, n_jobs = 2, c;
    double duration = 0.5;
    while ((c = getopt(argc, argv, "n:d:j:h")) != -1) {
        switch (c) {
        case 'n': points = atoi(optarg); break;
        case 'd': duration = atof(optarg); break;
        case 'j':
            n_jobs = 0;
            for (char *s = strtok(optarg, ","); s && n_jobs < 16; s = strtok(NULL, ","))
                jobs[n_jobs++] = atoi(s);
            break;
        default:
            fprintf(stderr, "usage: sweep_bench [-n POINTS] [-d SIM_SECONDS] [-j 1,2,...]\n");
            return c == 'h' ? 0 : 2;
        }
    }
    if (points < 2 || duration <= 0 || n_jobs < 1) {
        fprintf(stderr, "sweep_bench: bad arguments\n");
        return 2;
    }
    char dir[] = "/tmp/cephsim-sweep-bench-XXXXXX";
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    printf("sweep_bench: %ld online cores\n", cores);
    bench(dir, points, duration, jobs, n_jobs);
    bench(dir, points * 5, 0.01, jobs, n_jobs);
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    return system(cmd) == 0 ? 0 : 1;
}
