/*
 * plot.h - `cephsim plot DIR`: figures from a run output directory (fio.json,
 * sim.json, osd.N.historic_ops.json) or from the seed studies' directory
 * (qd1-latency.json, clone-serialisation.json, copyup.json, and the run
 * sub-directories of their baselines), drawn by gnuplot from generated scripts.
 *
 * Every figure is three files in the output directory: NAME.dat (the numbers,
 * commented columns), NAME.gp (a self-contained gnuplot 5.4 script reading
 * NAME.dat; `gnuplot -e "fmt='svg'" NAME.gp` there re-renders it) and
 * NAME.png and/or NAME.svg.  Files appear only when every figure rendered.
 * The figures themselves are a table (figure.h: one file per family); the
 * gnuplot runner is gnuplot.h, the text waterfall of a run's summary
 * fig_waterfall.h.
 */
#ifndef CEPHSIM_EXPLORER_PLOT_H
#define CEPHSIM_EXPLORER_PLOT_H

#include <stdbool.h>
#include <stdio.h>

#include "err.h"
#include "gnuplot.h" /* PLOT_PNG, PLOT_SVG */

struct plot_opts {
    const char *dir;      /* a run output directory or the studies' directory */
    const char *out_dir;  /* NULL: <dir>/plots */
    unsigned formats;     /* PLOT_PNG | PLOT_SVG */
    bool render;          /* false: write NAME.dat and NAME.gp only (no gnuplot needed) */
    FILE *log;            /* one line per figure written; NULL: quiet */
};

/*
 * `cephsim plot DIR [-o OUTDIR] [--format png|svg|both] [--no-render]`
 * (argv[0] = "plot"); exit code 0 ok, 1 failure (gnuplot missing, bad
 * input), 2 usage.
 */
int cmd_plot(int argc, char **argv);

/*
 * Write every figure DIR's files allow (and those of its immediate
 * sub-directories that are run outputs, named "<subdir>.<figure>"); nothing
 * is left in out_dir on failure.  Returns 0 or a negative errno.
 */
int plot_dir(const struct plot_opts *o, struct sim_err *err);

#endif
