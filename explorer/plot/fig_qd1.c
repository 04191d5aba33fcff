/*
 * fig_qd1.c - qd1-tunings, from the QD=1 study's qd1-latency.json: mean
 * latency ± 95 % CI and p99 per tuning variant (the seed's tuned cluster
 * first, each tuning undone, faster NIC / CPU, a Crimson-like OSD), against
 * the 500 µs the study aims for and the seed's ~700 µs.
 */
#include <stdio.h>
#include <stdlib.h>

#include "figure.h"
#include "plotutil.h"

/* The seed (../shared/seeds/qd1-latency.txt): "~700us latency for a 4k write with qd=1"
   on the tuned cluster, and the 500 µs the study aims for. */
static const double seed_tuned_us = 700.0;
static const double target_us = 500.0;

static bool applies(const struct run_data *rd)
{
    return run_data_has_summary(rd, "qd1-latency.json");
}

static int draw(const struct figure *fg, const struct run_data *rd, struct sim_err *err)
{
    struct study_table s;
    int rc = run_data_load_study(rd, "qd1-latency.json", false, &s, err);
    if (rc == 0) {
        char target[64], seed[64];
        snprintf(target, sizeof target, "target %.0f µs", target_us);
        snprintf(seed, sizeof seed, "seed, tuned: ~%.0f µs", seed_tuned_us);
        const struct fig_bars_ref refs[] = {{target_us, target, "#009E73", true},
                                            {seed_tuned_us, seed, "#CC79A7", false}};
        char *title = plot_asprintf("QD=1 4k random %s: mean completion latency per tuning, 95 %% CI over %d "
                                    "replication%s\nthe seed's cluster tuned (first row), each tuning undone, "
                                    "faster NIC / CPU, a Crimson-like OSD",
                                    s.direction, s.rows[0].n, s.rows[0].n == 1 ? "" : "s");
        rc = fig_bars(fg, &s, title, refs, 2, err);
        free(title);
    }
    run_data_free_study(&s);
    return rc;
}

const struct plot_figure fig_qd1_tunings = {
    .name = "qd1-tunings",
    .what = "QD=1 latency per tuning variant",
    .applies = applies,
    .draw = draw,
};
