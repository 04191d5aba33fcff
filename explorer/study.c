/*
 * study.c - the seed studies as tables (placeholder until the studies land:
 * runs the QD=1 scenario).
 */
#include "study.h"

#include <string.h>

#include "runner.h"
#include "scenario.h"

int study_run_default(FILE *f, const char *out_dir, const char *const *sets, int n_sets, bool progress,
                      struct sim_err *err)
{
    struct scenario sc;
    int rc = scenario_load(&sc, "scenarios/qd1-latency.json", NULL, NULL, sets, n_sets, err);
    if (rc < 0)
        return rc;
    struct run_summary sum;
    rc = runner_run(&sc, out_dir ? out_dir : "out/runs/qd1-latency", progress, &sum, err);
    if (rc == 0)
        runner_print_summary(f, &sc, &sum);
    scenario_free(&sc);
    return rc;
}
