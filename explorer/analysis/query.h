/*
 * query.h - ready-made questions to a sweep database, and plots.
 *
 *   cephsim query DB [--sweep NAME] [--where SQL] [--csv]
 *       (no question)            the sweeps, their axes and progress
 *       --best METRIC [--max|--min] [-n K]   the K best points by their mean
 *       --pareto                 points no other beats on both IOPS and p99 latency
 *       --effects METRIC         main effect of each axis: mean per value (quartiles
 *                                for axes with many numeric values), sorted by range
 *       --plot METRIC --x AXIS [--by AXIS | --y AXIS] -o FILE.png|.svg
 *                                METRIC vs AXIS, one line per value of --by, or a heat
 *                                map over --x and --y (gnuplot; skipped if absent)
 *       --sql "SELECT ..."       any read-only query
 * All questions work on the point_results view (means over replications).
 */
#ifndef CEPHSIM_EXPLORER_QUERY_H
#define CEPHSIM_EXPLORER_QUERY_H

#include <stdbool.h>
#include <stdio.h>

#include "err.h"

enum query_action { QUERY_SUMMARY, QUERY_BEST, QUERY_PARETO, QUERY_EFFECTS, QUERY_PLOT, QUERY_SQL };

struct query_opts {
    const char *db_path;
    const char *sweep;  /* only the points of this sweep */
    const char *where;  /* extra SQL condition on point_results */
    enum query_action action;
    const char *metric;
    int direction;      /* best: 1 max, -1 min, 0 by metric (iops/bw: max, others: min) */
    int limit;
    bool csv;
    const char *x, *by, *y, *out;
    bool logx;
    const char *sql;
};

/* Answer the question o asks, printing to out (tables, or CSV with o->csv). */
int query_run(const struct query_opts *o, FILE *out, struct sim_err *err);

/* `cephsim query` (argv[0] = "query"). */
int cmd_query(int argc, char **argv);

#endif
