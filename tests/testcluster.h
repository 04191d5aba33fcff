/*
 * testcluster.h - a cluster from a scenario, simulated to its end: the set-up
 * the end-to-end suites share (header-only; include after <cmocka.h>).
 */
#ifndef CEPHSIM_TESTS_TESTCLUSTER_H
#define CEPHSIM_TESTS_TESTCLUSTER_H

#include <stdbool.h>
#include <string.h>

#include "cluster.h"
#include "scenario.h"

/* The scenario (a file, or inline json named name) with sets, simulated to
   its end; the caller destroys the cluster and frees *sc. */
static inline struct cluster *simulated_cluster(const char *path, const char *json, const char *name,
                                                const char *const *sets, int n_sets, struct scenario *sc)
{
    struct sim_err err = {0};
    if (scenario_load(sc, path, json, name, sets, n_sets, &err) < 0)
        fail_msg("scenario: %s", err.msg);
    struct cluster_spec spec;
    if (scenario_to_spec(sc, 0, &spec, &err) < 0)
        fail_msg("spec: %s", err.msg);
    struct cluster *c = cluster_create(&spec, &err);
    if (!c)
        fail_msg("cluster: %s", err.msg);
    cluster_run(c, NULL, NULL);
    return c;
}

/* One thread kind's totals over the cluster (cluster_process_thread_stats):
   false, and *out zeroed, when process has no thread of that name. */
static inline bool thread_kind_stats(const struct cluster *c, const char *process, const char *name,
                                     struct cluster_thread_stats *out)
{
    struct cluster_thread_stats ts[CLUSTER_THREAD_KINDS_MAX];
    uint32_t nk = cluster_process_thread_stats(c, process, ts, CLUSTER_THREAD_KINDS_MAX);
    for (uint32_t k = 0; k < nk; k++)
        if (!strcmp(ts[k].name, name)) {
            *out = ts[k];
            return true;
        }
    *out = (struct cluster_thread_stats){0};
    return false;
}

#endif
