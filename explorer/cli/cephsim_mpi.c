/*
 * cephsim_mpi.c - `cephsim sweep --mpi`: the sweep over MPI ranks.
 *
 *   mpirun -n R cephsim sweep GRID --db FILE --mpi     (cephsim execs this binary)
 *   mpirun -n R cephsim-mpi sweep GRID --db FILE
 *
 * Rank 0 does what `cephsim sweep` does (plan, resume, the one database
 * writer) but hands tasks to ranks 1..R-1 instead of forked workers; the
 * other ranks loop: receive a task line, run it (sweep_task_run), send the
 * result line back.  Same task and result lines as the fork transport, so a
 * point's rows are the same whichever way it ran.
 *
 * A separate binary because MPI is optional: cephsim itself must build and
 * run where no MPI is installed.  Built with mpicc by the cephsim-mpi edge of
 * build.ninja when tools/configure finds mpicc (see explorer/README.md).
 */
#include <errno.h>
#include <mpi.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "err.h"
#include "sweep.h"
#include "wallclock.h"

enum { TAG_TASK = 1, TAG_RESULT = 2, TAG_STOP = 3 };

struct mpi_transport {
    struct sweep_transport t;
    char what[64];
};

static int mpi_send(void *ctx, int w, const char *line)
{
    if (MPI_Send(line, (int)strlen(line) + 1, MPI_CHAR, w + 1, TAG_TASK, MPI_COMM_WORLD) != MPI_SUCCESS)
        return -EIO;
    return 0;
}

/* Receive the message st announced (MPI_Probe/MPI_Iprobe) as a NUL-terminated line (malloc'd). */
static char *recv_probed(const MPI_Status *st)
{
    int n;
    MPI_Get_count(st, MPI_CHAR, &n);
    char *buf = sim_xcalloc((size_t)n + 1, 1);
    MPI_Recv(buf, n, MPI_CHAR, st->MPI_SOURCE, st->MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    return buf;
}

/* Probe for a result until the timeout, watching stop_fd (SIGINT/SIGTERM on rank 0). */
static int mpi_recv(void *ctx, int stop_fd, int *w, char **line, double timeout_s)
{
    double end = wallclock_s() + timeout_s;
    for (;;) {
        int flag = 0;
        MPI_Status st;
        MPI_Iprobe(MPI_ANY_SOURCE, TAG_RESULT, MPI_COMM_WORLD, &flag, &st);
        if (flag) {
            *w = st.MPI_SOURCE - 1;
            *line = recv_probed(&st);
            return 1;
        }
        struct pollfd pf = {.fd = stop_fd, .events = POLLIN};
        if (stop_fd >= 0 && poll(&pf, 1, 0) > 0)
            return -EINTR;
        if (wallclock_s() >= end)
            return 0;
        struct timespec nap = {0, 500000}; /* 0.5 ms: cheap next to a run */
        nanosleep(&nap, NULL);
    }
}

static void stop_workers(int size)
{
    for (int r = 1; r < size; r++)
        MPI_Send("", 1, MPI_CHAR, r, TAG_STOP, MPI_COMM_WORLD);
}

static void worker_loop(void)
{
    for (;;) {
        MPI_Status st;
        MPI_Probe(0, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
        char *buf = recv_probed(&st);
        if (st.MPI_TAG == TAG_STOP) {
            free(buf);
            return;
        }
        char *res = sweep_task_run(buf);
        free(buf);
        MPI_Send(res, (int)strlen(res) + 1, MPI_CHAR, 0, TAG_RESULT, MPI_COMM_WORLD);
        free(res);
    }
}

static int rank0(int argc, char **argv, int size)
{
    struct sweep_opts o;
    int rc = sweep_parse_args(argc, argv, &o);
    if (rc)
        return rc == 1 ? 0 : 2;
    struct sweep *sw = sweep_open_cli(&o, &rc);
    if (!sw)
        return rc;
    struct sim_err err = {0};
    rc = 0;
    if (sweep_todo(sw) > 0) {
        if (size > 1) {
            struct mpi_transport mt = {.t = {.n_workers = size - 1, .send = mpi_send, .recv = mpi_recv}};
            mt.t.ctx = &mt;
            snprintf(mt.what, sizeof mt.what, "%d MPI rank%s", size - 1, size == 2 ? "" : "s");
            mt.t.what = mt.what;
            rc = sweep_execute(sw, &mt.t, &err);
        } else {
            /* a singleton (no mpirun, or -n 1): local workers instead */
            fprintf(stderr, "cephsim sweep --mpi: one MPI rank only; running %d local workers\n", o.jobs);
            rc = sweep_run_local(sw, o.jobs, &err);
        }
    }
    return sweep_finish(sw, rc, &err);
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    /* cephsim-mpi [sweep] GRID --db FILE ...: argv[0] for getopt is the command name */
    char **av = argv;
    int ac = argc;
    if (argc > 1 && !strcmp(argv[1], "sweep"))
        av++, ac--;
    int code = 0;
    if (rank == 0) {
        code = rank0(ac, av, size);
        stop_workers(size);
    } else {
        worker_loop();
    }
    MPI_Finalize();
    return code;
}
