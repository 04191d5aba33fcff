/*
 * fig_waterfall.c - where a write's time goes: a run's mean per-stage write
 * times (sim.json summary.stages_us, the stages of cluster.h) laid out on the
 * critical path, as the waterfall figure and as text for the run summary
 * (runner_print_summary).
 */
#include "fig_waterfall.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "figure.h"
#include "gnuplot.h"
#include "plotutil.h"

static double clean_us(double v)
{
    return isfinite(v) && v > 0 ? v : 0;
}

void plot_waterfall_layout(const double stage_us[STAGE_COUNT], double start_us[STAGE_COUNT],
                           bool critical[STAGE_COUNT], double *total_us)
{
    double t = 0;
    for (int i = 0; i < STAGE_COUNT; i++) {
        if (i == STAGE_REPLICA_COMMIT)
            continue; /* laid out with the local commit */
        if (i == STAGE_LOCAL_COMMIT) {
            double l = clean_us(stage_us[STAGE_LOCAL_COMMIT]), r = clean_us(stage_us[STAGE_REPLICA_COMMIT]);
            start_us[STAGE_LOCAL_COMMIT] = start_us[STAGE_REPLICA_COMMIT] = t;
            critical[STAGE_LOCAL_COMMIT] = l >= r;
            critical[STAGE_REPLICA_COMMIT] = r >= l;
            t += l > r ? l : r;
            continue;
        }
        start_us[i] = t;
        critical[i] = true;
        t += clean_us(stage_us[i]);
    }
    *total_us = t;
}

void plot_text_waterfall(FILE *f, const double stage_us[STAGE_COUNT])
{
    enum { width = 50 };
    double start[STAGE_COUNT], total;
    bool crit[STAGE_COUNT];
    plot_waterfall_layout(stage_us, start, crit, &total);
    fprintf(f, "  where a write's time goes (mean us; local and replica commits overlap, "
               "\u2591 = off the critical path):\n");
    if (!(total > 0)) {
        fprintf(f, "    (no write stages measured)\n");
        return;
    }
    int w = (int)strlen("total");
    for (int i = 0; i < STAGE_COUNT; i++)
        w = fmax(w, (int)strlen(stage_names[i]));
    for (int i = 0; i < STAGE_COUNT; i++) {
        double d = clean_us(stage_us[i]);
        int c0 = (int)lround(start[i] / total * width), c1 = (int)lround((start[i] + d) / total * width);
        if (d > 0 && c1 <= c0)
            c1 = c0 + 1;
        fprintf(f, "    %-*s %8.1f  ", w, stage_names[i], d);
        for (int c = 0; c < c0; c++)
            fputc(' ', f);
        for (int c = c0; c < c1; c++)
            fputs(crit[i] ? "\u2588" : "\u2591", f);
        fputc('\n', f);
    }
    fprintf(f, "    %-*s %8.1f  (critical path)\n", w, "total", total);
}

/* ------------------------------------------------------------------ the figure */

static bool applies(const struct run_data *rd)
{
    return rd->have_stages;
}

void plot_waterfall_why_none(double op_w, double op_rw, char *out, size_t n)
{
    if (op_rw > 0 && op_w == 0)
        snprintf(out, n, "every write was a copy-up (a fresh clone: op_rw %.0f, op_w 0), and only plain writes are "
                         "timed per stage", op_rw);
    else
        snprintf(out, n, "sim.json summary.stages_us is all zero (no plain write completed)");
}

/* A write run without stages (a fresh clone's copy-ups) would otherwise lose its figure silently. */
static const char *why_not(const struct run_data *rd)
{
    return rd->no_stages_why[0] ? rd->no_stages_why : NULL;
}

/* Horizontal bars on the critical path; the commits side by side. */
static int draw(const struct figure *fg, const struct run_data *rd, struct sim_err *err)
{
    FILE *dat, *gp;
    int rc = figure_open(fg, &dat, &gp, err);
    if (rc < 0)
        return rc;
    double start[STAGE_COUNT], total;
    bool crit[STAGE_COUNT];
    plot_waterfall_layout(rd->stage_us, start, crit, &total);
    fprintf(dat, "# %s.dat - mean time per stage of a write (sim.json summary.stages_us) of %s\n", fg->name, rd->dir);
    fprintf(dat, "# local and replica commits both start when the primary has prepared (critical: the longer)\n");
    fprintf(dat, "# row stage start_us duration_us end_us critical\n");
    for (int i = 0; i < STAGE_COUNT; i++) {
        double d = clean_us(rd->stage_us[i]);
        fprintf(dat, "%d ", i);
        figure_dat_str(dat, rd->stage_label[i]);
        fprintf(dat, " %.3f %.3f %.3f %d\n", start[i], d, start[i] + d, crit[i] ? 1 : 0);
    }
    char scen[128];
    run_data_label(rd, scen, sizeof scen);
    char *title = plot_asprintf("Where a write's time goes: %s%s%s\nmean per stage; local and replica commits run "
                            "in parallel, the longer one is on the critical path",
                            scen, rd->job_desc[0] ? ", " : "", rd->job_desc);
    figure_gp_header(gp, fg->name, "per-stage write latency waterfall", 1100, 150 + STAGE_COUNT * 38);
    fputs("set title ", gp);
    plot_gp_str(gp, '"', title);
    double ref = isfinite(rd->lat_mean_us) ? rd->lat_mean_us : 0;
    double right = fmax(total, ref);
    fprintf(gp, "\nset xlabel \"time since fio submitted the write (µs)\"\n"
                "set xrange [0:%g]\nset yrange [%d.6:-0.6]\nset ytics scale 0\nset grid xtics noytics\n"
                "set style fill solid 0.9 border rgb \"#333333\"\n"
                "set linetype 1 lc rgb \"#0072B2\"\nset linetype 2 lc rgb \"#A6CEE3\"\n"
                "set key bottom left box opaque samplen 2\n",
            right * 1.22, STAGE_COUNT - 1);
    fprintf(gp, "set arrow 1 from %g, graph 0 to %g, graph 1 nohead dt 2 lw 1.5 lc rgb \"#333333\"\n", total, total);
    fprintf(gp, "set label 1 \"critical path %.1f µs\" at %g, graph 0.97 offset 0.6,0 left\n", total, total);
    if (ref > 0) {
        fprintf(gp, "set arrow 2 from %g, graph 0 to %g, graph 1 nohead dt 3 lw 1.5 lc rgb \"#D55E00\"\n", ref, ref);
        fprintf(gp, "set label 2 \"fio clat mean %.1f µs\" at %g, graph 0.91 offset 0.6,0 left tc rgb \"#D55E00\"\n",
                ref, ref);
    }
    fprintf(gp, "plot \"%s.dat\" using (($3+$5)/2):1:3:5:($1-0.36):($1+0.36):($6 > 0 ? 1 : 2):ytic(2) "
                "with boxxyerror lc variable notitle, \\\n"
                "     \"\" using 5:1:(sprintf(\"%%.1f µs\", $4)) with labels left offset 0.6,0 notitle, \\\n"
                "     keyentry with boxes lt 1 title \"on the critical path\", \\\n"
                "     keyentry with boxes lt 2 title \"overlapped by the longer commit\"\n",
            fg->name);
    free(title);
    return figure_close(fg, dat, gp, err);
}

const struct plot_figure fig_waterfall = {
    .name = "waterfall",
    .what = "per-stage write latency on the critical path",
    .applies = applies,
    .draw = draw,
    .why_not = why_not,
};
