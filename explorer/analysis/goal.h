/*
 * goal.h - goal search: the cheapest combination of options that reaches a
 * target, evaluating as few combinations as possible.
 *
 *   cephsim goal --base SCENARIO --target 'lat_mean_us<=500'
 *       --cost 'cluster.nic=10gbase-t:0,25gbe:1,100gbe:2' --cost ... [--set p=v]...
 *       [--replications N] [-j N] [--no-prune] [--confident] [--max-evals N] [--db FILE]
 *
 * Costs add up over the dimensions.  Unless --no-prune, a pricier option is
 * assumed never worse (monotonicity): a miss rules out every combination no
 * pricier in any dimension, a hit bounds the search, and the combinations to
 * evaluate are picked by bisection on cost (see goal.c), -j at a time.  With
 * --no-prune the search is an exact scan in cost order: the first hit is the
 * cheapest.
 */
#ifndef CEPHSIM_EXPLORER_GOAL_H
#define CEPHSIM_EXPLORER_GOAL_H

#include <stdbool.h>
#include <stdio.h>

#include "db.h"
#include "err.h"

enum goal_op { GOAL_LE, GOAL_LT, GOAL_GE, GOAL_GT };

struct goal_target {
    const struct db_metric *metric;
    enum goal_op op;
    double value;
};

struct goal_dim {
    char path[128];
    int n;
    char **values; /* sorted by cost, cheapest first */
    double *costs;
};

struct goal_opts {
    const char *base;
    const char *const *sets;
    int n_sets;
    const struct goal_target *targets;
    int n_targets;
    const struct goal_dim *dims;
    int n_dims;
    int replications; /* 0: the scenario's sim.replications */
    int jobs;
    bool prune, confident;
    int max_evals;    /* 0: no limit */
    const char *db_path; /* record evaluations (and reuse recorded ones) */
};

struct goal_result {
    bool found;
    double cost;
    int *choice;      /* option index per dimension (malloc'd) */
    int evaluated, pruned, combinations, runs;
};

/* Parse 'METRIC<=VALUE' (also <, >=, >). */
int goal_parse_target(const char *text, struct goal_target *t, struct sim_err *err);
/* Parse 'path=value:cost,value:cost,...' into d (values sorted by cost); a
   negative cost or a value given twice is refused. */
int goal_parse_cost(const char *text, struct goal_dim *d, struct sim_err *err);
/* Parse one --cost into dims[*n_dims] and count it; a parameter an earlier
   --cost already gave is refused (each parameter is one dimension). */
int goal_add_cost(struct goal_dim *dims, int *n_dims, const char *text, struct sim_err *err);
void goal_dim_free(struct goal_dim *d);

/* Search; prints each evaluation and the answer to out. */
int goal_search(const struct goal_opts *o, FILE *out, struct goal_result *res, struct sim_err *err);

/* `cephsim goal` (argv[0] = "goal"); exit 0 found, 1 not found or failure, 2 usage. */
int cmd_goal(int argc, char **argv);

#endif
