/*
 * fig_bars.c - the bar chart of a study summary (see fig_bars in figure.h):
 * per variant a horizontal bar to its mean latency, whiskers for the 95 % CI
 * and a diamond at p99, coloured by its comparison with the first row (the
 * reference): faster or slower when the 95 % CIs are apart, else "no clear
 * difference".  The value and its change against the reference are printed
 * to the right; the x axis turns logarithmic when the means spread over 10x.
 * qd1-tunings (fig_qd1.c) and copyup (fig_clone.c) draw it.
 */
#include <math.h>
#include <stdio.h>

#include "figure.h"
#include "gnuplot.h"

int fig_bars(const struct figure *fg, const struct study_table *s, const char *title,
             const struct fig_bars_ref *refs, int n_refs, struct sim_err *err)
{
    static const char *const class_title[] = {NULL, "reference (first row)", "faster (95 % CIs apart)",
                                              "slower (95 % CIs apart)", "no clear difference"};
    const char *what = fg->desc->what;
    FILE *dat, *gp;
    int rc = figure_open(fg, &dat, &gp, err);
    if (rc < 0)
        return rc;
    double lo_mean = INFINITY, right = 0;
    for (int k = 0; k < n_refs; k++)
        right = fmax(right, refs[k].x_us);
    for (int i = 0; i < s->n; i++) {
        const struct study_row *r = &s->rows[i];
        if (r->lat_mean > 0 && r->lat_mean < lo_mean)
            lo_mean = r->lat_mean;
        right = fmax(right, fmax(r->lat_mean + r->lat_ci, r->lat_p99));
    }
    if (!isfinite(lo_mean))
        lo_mean = 1;
    bool logx = right / lo_mean > 10;
    double xmin = logx ? lo_mean / 1.6 : 0;
    /* leave the right 36 % of the width for the value labels */
    double xmax = logx ? xmin * pow(right / xmin, 1 / 0.64) : right / 0.64;
    const struct study_row *b = &s->rows[0];
    bool present[5] = {false};
    fprintf(dat, "# %s.dat - %s (from %s)\n", fg->name, what, s->file);
    fprintf(dat, "# class: 1 first row (reference), 2 faster, 3 slower (95 %% CIs apart), 4 no clear difference\n");
    fprintf(dat, "# row mean_us ci95_us ci_lo_us ci_hi_us p99_us bar_from_us class label_x_us variant value\n");
    for (int i = 0; i < s->n; i++) {
        const struct study_row *r = &s->rows[i];
        double lo = fmax(r->lat_mean - r->lat_ci, xmin), hi = r->lat_mean + r->lat_ci;
        int cls = i == 0                                              ? 1
                  : r->lat_mean + r->lat_ci < b->lat_mean - b->lat_ci ? 2
                  : r->lat_mean - r->lat_ci > b->lat_mean + b->lat_ci ? 3
                                                                      : 4;
        present[cls] = true;
        char val[96], rel[32] = "";
        double ratio = b->lat_mean > 0 ? r->lat_mean / b->lat_mean : NAN;
        if (i > 0 && isfinite(ratio))
            snprintf(rel, sizeof rel, ratio >= 2 ? "  (×%.1f)" : "  (%+.1f %%)",
                     ratio >= 2 ? ratio : 100 * (ratio - 1));
        snprintf(val, sizeof val, "%.1f ± %.1f µs%s", r->lat_mean, r->lat_ci, rel);
        fprintf(dat, "%d %.3f %.3f %.3f %.3f %.3f %.3f %d %.3f ", i, r->lat_mean, r->lat_ci, lo, hi, r->lat_p99, xmin,
                cls, fmax(hi, r->lat_p99));
        figure_dat_str(dat, r->variant);
        fputc(' ', dat);
        figure_dat_str(dat, val);
        fputc('\n', dat);
    }
    figure_gp_header(gp, fg->name, what, 1350, 170 + s->n * 36);
    fputs("set title ", gp);
    plot_gp_str(gp, '"', title);
    fprintf(gp, "\nset tmargin 6\nset xlabel \"completion latency (µs%s): bar = mean, whiskers = 95 %% CI, "
                "diamond = p99\"\n",
            logx ? ", log scale" : "");
    if (logx)
        fputs("set logscale x\n", gp);
    fprintf(gp, "set xrange [%g:%g]\nset yrange [%d.6:-0.6]\nset ytics scale 0\nset grid xtics noytics\n"
                "set style fill solid 0.85 border rgb \"#333333\"\n"
                "set linetype 1 lc rgb \"#0072B2\"\nset linetype 2 lc rgb \"#009E73\"\n"
                "set linetype 3 lc rgb \"#D55E00\"\nset linetype 4 lc rgb \"#AAAAAA\"\n"
                "set key outside right top vertical Left reverse samplen 2 spacing 1.2\n",
            xmin, xmax, s->n - 1);
    for (int k = 0; k < n_refs; k++) {
        const struct fig_bars_ref *r = &refs[k];
        fprintf(gp, "set arrow %d from %g, graph 0 to %g, graph 1 nohead dt 2 lw 2 lc rgb \"%s\"\n", k + 1, r->x_us,
                r->x_us, r->color);
        fprintf(gp, "set label %d ", k + 1);
        plot_gp_str(gp, '"', r->label);
        fprintf(gp, " at %g, graph 1 offset %s tc rgb \"%s\"\n", r->x_us,
                r->label_left ? "-0.5,0.8 right" : "0.5,0.8 left", r->color);
    }
    fprintf(gp, "plot \"%s.dat\" using (($7+$2)/2):1:7:2:($1-0.36):($1+0.36):8:ytic(10) "
                "with boxxyerror lc variable notitle, \\\n"
                "     \"\" using 2:1:4:5 with xerrorbars lc rgb \"#222222\" lw 1.5 pt 7 ps 0.4 notitle, \\\n"
                "     \"\" using 6:1 with points pt 12 ps 1.8 lw 1.5 lc rgb \"#222222\" title \"p99\", \\\n"
                "     \"\" using 9:1:11 with labels left offset 1.2,0 notitle",
            fg->name);
    for (int k = 1; k <= 4; k++)
        if (present[k])
            fprintf(gp, ", \\\n     keyentry with boxes lt %d title \"%s\"", k, class_title[k]);
    fputc('\n', gp);
    return figure_close(fg, dat, gp, err);
}
