/*
 * figure.h - a figure of cephsim plot: its descriptor, and the tools its file
 * uses to write NAME.dat and NAME.gp.  Internal to explorer/plot.
 *
 * A figure family is one file exporting a const struct plot_figure per figure
 * and one entry per figure in plot.c's table, which fixes the order they are
 * drawn and listed in.  For every directory it plots (DIR, then each run
 * sub-directory), plot.c loads the run data once, asks each descriptor whether
 * it applies and has it write NAME.dat (the numbers, commented columns) and
 * NAME.gp (a self-contained gnuplot 5.4 script reading NAME.dat); it then
 * renders the scripts and moves the files into place.
 *
 *   fig_latency.c    latency-cdf              a run's fio.json and osd.N.historic_ops.json
 *   fig_waterfall.c  waterfall                a run's sim.json (the write stages)
 *   fig_qd1.c        qd1-tunings              qd1-latency.json (the QD=1 study)
 *   fig_clone.c      iops-vs-iodepth, copyup  clone-serialisation.json, copyup.json (the clone study)
 *   fig_bars.c       the per-variant latency bars qd1-tunings and copyup draw
 *
 * The scripts are generated rather than kept as template files in
 * explorer/plot/: their ranges, tics, labels and legends depend on the data,
 * the binary stays self-contained (runs from any directory), and each written
 * NAME.gp is still a standalone script a person can edit and re-run next to
 * its NAME.dat.
 */
#ifndef CEPHSIM_EXPLORER_FIGURE_H
#define CEPHSIM_EXPLORER_FIGURE_H

#include <stdbool.h>
#include <stdio.h>

#include "err.h"
#include "rundata.h"

struct plot_figure;

/* One figure being written. */
struct figure {
    const struct plot_figure *desc; /* what draws it */
    char name[160];                 /* its files' base name: desc->name, after "SUBDIR." for a sub-directory */
    const char *dir;                /* where its files are written */
};

/* A kind of figure: an entry of plot.c's table. */
struct plot_figure {
    const char *name; /* its files' base name, e.g. "latency-cdf" */
    const char *what; /* what it shows, one line (cephsim plot lists it) */
    /* Whether rd holds what it is drawn from. */
    bool (*applies)(const struct run_data *rd);
    /* Write fg's NAME.dat and NAME.gp from rd; 0 or a negative errno. */
    int (*draw)(const struct figure *fg, const struct run_data *rd, struct sim_err *err);
    /* Optional: when it does not apply to rd although a reader would expect it, why
       (cephsim plot prints a note); NULL when its absence needs no word. */
    const char *(*why_not)(const struct run_data *rd);
};

/* The figures (plot.c lists them in its table). */
extern const struct plot_figure fig_latency_cdf;     /* fig_latency.c */
extern const struct plot_figure fig_waterfall;       /* fig_waterfall.c */
extern const struct plot_figure fig_qd1_tunings;     /* fig_qd1.c */
extern const struct plot_figure fig_iops_vs_iodepth; /* fig_clone.c */
extern const struct plot_figure fig_copyup;          /* fig_clone.c */

/* Line types 1..FIGURE_N_LINETYPES: the palette figure_gp_header sets, cycling. */
#define FIGURE_N_LINETYPES 12

/* Open fg's NAME.dat and NAME.gp for writing; 0 or a negative errno, and then
   neither stays open. */
int figure_open(const struct figure *fg, FILE **dat, FILE **gp, struct sim_err *err);

/* End the script (unset output, so the image is complete) and close both
   files; 0 or -EIO. */
int figure_close(const struct figure *fg, FILE *dat, FILE *gp, struct sim_err *err);

/* A script's opening: a comment (NAME.gp - WHAT, how to re-render it), the
   terminal (plot_gp_terminal, W x H pixels), the palette's line types, a grid. */
void figure_gp_header(FILE *gp, const char *name, const char *what, int w, int h);

/* A string column of a data file: double-quoted, without quotes or control
   characters inside. */
void figure_dat_str(FILE *dat, const char *s);

/* A vertical reference line of fig_bars, labelled at the top. */
struct fig_bars_ref {
    double x_us;
    const char *label;
    const char *color;  /* "#009E73" */
    bool label_left;    /* the label ends at the line (else it starts there) */
};

/*
 * Draw fg as one horizontal bar per row of s: mean latency, its 95 % CI as
 * whiskers, p99 as a diamond, coloured by how the row compares with the first
 * (CIs apart or not); a log scale when the means spread over 10x; TITLE on
 * top and the n_refs reference lines.
 */
int fig_bars(const struct figure *fg, const struct study_table *s, const char *title,
             const struct fig_bars_ref *refs, int n_refs, struct sim_err *err);

#endif
