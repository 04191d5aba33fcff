/*
 * fig_waterfall.h - a write's mean stage times laid out on its critical path,
 * for the waterfall figure of cephsim plot and for the text waterfall of a
 * run's summary.
 */
#ifndef CEPHSIM_EXPLORER_FIG_WATERFALL_H
#define CEPHSIM_EXPLORER_FIG_WATERFALL_H

#include <stdbool.h>
#include <stdio.h>

#include "cluster.h"

/*
 * Lay a write's mean stage times out on its critical path: stages run one
 * after another except the local and replica commits, which both start when
 * the primary has prepared; the longer one is critical, the reply follows it.
 * start_us[i]: when stage i starts; critical[i]: on the critical path; *total_us: its end.
 */
void plot_waterfall_layout(const double stage_us[STAGE_COUNT], double start_us[STAGE_COUNT],
                           bool critical[STAGE_COUNT], double *total_us);

/*
 * Print the waterfall as text: a heading, one row per stage with its mean
 * microseconds and a bar offset to its start (overlapped commit drawn light),
 * and the critical path's total.  For runner_print_summary.
 */
void plot_text_waterfall(FILE *f, const double stage_us[STAGE_COUNT]);

/*
 * Why a write run has no waterfall (its stage times all zero), into out: librbd
 * times the stages of plain writes (RADOS_WRITE) only, and a copy-up carries its
 * write inside the [call rbd.copyup, write] op the OSDs count as op_rw.  For the
 * run's summary and cephsim plot alike.
 */
void plot_waterfall_why_none(double op_w, double op_rw, char *out, size_t n);

#endif
