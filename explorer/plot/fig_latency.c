/*
 * fig_latency.c - latency-cdf: a run's completion latency as a CDF and its
 * tail (1 - CDF, log scale), side by side.  Drawn from fio.json (the clat
 * percentiles of every job and direction, with fio's min and max as 0 % and
 * 100 %) and from the client ops (osd_op) kept in osd.N.historic_ops.json:
 * the OSD-side time of a sample (see rundata.c).
 */
#include <math.h>
#include <stdlib.h>

#include "figure.h"
#include "gnuplot.h"
#include "plotutil.h"

static bool applies(const struct run_data *rd)
{
    return rd->n_series > 0;
}

/* The CDF (left) and the tail (right) of every series, one legend below both. */
static int draw(const struct figure *fg, const struct run_data *rd, struct sim_err *err)
{
    FILE *dat, *gp;
    int rc = figure_open(fg, &dat, &gp, err);
    if (rc < 0)
        return rc;
    double xmin = INFINITY, xmax = 0, tmin = 100;
    fprintf(dat, "# %s.dat - completion latency distribution of %s\n", fg->name, rd->dir);
    fprintf(dat, "# one block per series (gnuplot index); columns: latency_us pct_within pct_slower\n");
    for (int i = 0; i < rd->n_series; i++) {
        const struct cdf_series *s = &rd->series[i];
        fprintf(dat, "%s# series %d: %s\n", i ? "\n\n" : "", i, s->title);
        for (int k = 0; k < s->n; k++) {
            fprintf(dat, "%.3f %.4f %.4f\n", s->us[k], s->pct[k], 100 - s->pct[k]);
            if (s->us[k] > 0 && s->us[k] < xmin)
                xmin = s->us[k];
            if (s->us[k] > xmax)
                xmax = s->us[k];
            if (100 - s->pct[k] > 1e-9 && 100 - s->pct[k] < tmin)
                tmin = 100 - s->pct[k];
        }
    }
    if (!isfinite(xmin))
        xmin = 1, xmax = 10;
    bool logx = xmax / xmin > 8;
    char scen[128];
    run_data_label(rd, scen, sizeof scen);
    char *title = plot_asprintf("Completion latency: %s%s%s", scen, rd->job_desc[0] ? ", " : "", rd->job_desc);
    /* two panels side by side, one legend below both */
    int h = 520 + 20 * rd->n_series;
    double key_top = (20.0 * rd->n_series + 14) / h, bm = key_top + 62.0 / h, tm = 1 - 62.0 / h;
    figure_gp_header(gp, fg->name, "completion latency CDF (left) and its tail, 1 - CDF on a log scale (right)",
                     1300, h);
    fputs("set multiplot title ", gp);
    plot_gp_str(gp, '"', title);
    fprintf(gp, " font \",13\"\nset tmargin at screen %.4f\nset bmargin at screen %.4f\n", tm, bm);
    if (logx)
        fprintf(gp, "set logscale x\nset xrange [%g:%g]\nset xlabel \"completion latency (µs, log scale)\"\n",
                xmin / 1.1, xmax * 1.1);
    else
        fprintf(gp, "set xrange [%g:%g]\nset xlabel \"completion latency (µs)\"\n",
                fmax(0, xmin - 0.05 * (xmax - xmin)), xmax + 0.05 * (xmax - xmin));
    fprintf(gp, "set lmargin at screen 0.07\nset rmargin at screen 0.48\n"
                "set title \"CDF\"\nset ylabel \"I/Os completed within x (%%)\"\nset yrange [0:100]\nset ytics 10\n"
                "set key at screen 0.07, screen %.4f left top Left reverse samplen 3 spacing 1.1\nplot ",
            key_top);
    for (int i = 0; i < rd->n_series; i++) {
        fprintf(gp, "%s\"%s.dat\" index %d using 1:2 with %s lt %d title ", i ? ", \\\n     " : "", fg->name, i,
                rd->series[i].n > 40 ? "steps" : "linespoints", i + 1);
        plot_gp_str(gp, '"', rd->series[i].title);
    }
    fprintf(gp, "\nset lmargin at screen 0.57\nset rmargin at screen 0.97\n"
                "set title \"tail: I/Os slower than x (1 - CDF)\"\nset logscale y\nset yrange [%g:100]\n"
                "set ytics auto\nset format y \"%%g %%%%\"\nset ylabel \"I/Os slower than x (log scale)\"\n"
                "unset key\nplot ",
            tmin / 2);
    for (int i = 0; i < rd->n_series; i++)
        fprintf(gp, "%s\"%s.dat\" index %d using 1:($3 > 0 ? $3 : NaN) with %s lt %d notitle",
                i ? ", \\\n     " : "", fg->name, i, rd->series[i].n > 40 ? "steps" : "linespoints", i + 1);
    fputs("\nunset multiplot\n", gp);
    free(title);
    return figure_close(fg, dat, gp, err);
}

const struct plot_figure fig_latency_cdf = {
    .name = "latency-cdf",
    .what = "completion latency CDF and tail",
    .applies = applies,
    .draw = draw,
};
