/*
 * fig_clone.c - the clone study's figures.
 *   iops-vs-iodepth  clone-serialisation.json: IOPS ± 95 % CI vs iodepth per
 *                    image kind / guard design / release, one panel per access
 *                    pattern (workloads "<pattern> qd<iodepth>"), log-log;
 *                    variants with equal results share one line, with a key
 *                    line for each ("plain", "  = flattened").
 *   copyup           copyup.json: first-write (copy-up) latency per guard
 *                    design, as bars (fig_bars.c); the first row an image
 *                    without parent.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "figure.h"
#include "gnuplot.h"
#include "plotutil.h"

/* ------------------------------------------------------------------ iops-vs-iodepth */

/* "seq qd16" -> pattern "seq" (pat_len 3), depth 16. */
static bool parse_workload(const char *w, size_t *pat_len, long *depth)
{
    const char *q = NULL;
    for (const char *p = strstr(w, " qd"); p; p = strstr(p + 1, " qd"))
        q = p;
    if (!q || q == w)
        return false;
    char *end;
    long d = strtol(q + 3, &end, 10);
    if (end == q + 3 || *end || d <= 0)
        return false;
    *pat_len = (size_t)(q - w);
    *depth = d;
    return true;
}

static const char *pattern_title(const char *p, size_t n)
{
    if (n == 3 && !strncmp(p, "seq", 3))
        return "sequential";
    if (n == 4 && !strncmp(p, "rand", 4))
        return "random";
    return NULL;
}

/* The row of variant v at pattern p and depth, or -1. */
static int row_at(const int *rp, const int *rv, const long *rdp, int n, int p, int v, long depth)
{
    for (int i = 0; i < n; i++)
        if (rp[i] == p && rv[i] == v && rdp[i] == depth)
            return i;
    return -1;
}

/*
 * Whether variants u and v give the same IOPS at every pattern and depth
 * (the same points, each within the larger CI half-width or 0.5 %): drawn
 * apart they would lie on top of each other and hide all but the last.
 */
static bool same_series(const struct study_table *s, const int *rp, const int *rv, const long *rdp, int np,
                        const long *depths, int nd, int u, int v)
{
    for (int p = 0; p < np; p++)
        for (int d = 0; d < nd; d++) {
            int a = row_at(rp, rv, rdp, s->n, p, u, depths[d]), b = row_at(rp, rv, rdp, s->n, p, v, depths[d]);
            if ((a < 0) != (b < 0))
                return false;
            if (a < 0)
                continue;
            double x = s->rows[a].iops, y = s->rows[b].iops;
            double tol = fmax(fmax(s->rows[a].iops_ci, s->rows[b].iops_ci), 0.005 * fmax(x, y));
            if (!(fabs(x - y) <= tol))
                return false;
        }
    return true;
}

/* One panel per access pattern, one line per variant (variants with equal results share one), log-log. */
static int draw_iops(const struct figure *fg, const struct study_table *s, struct sim_err *err)
{
    int np = 0, nv = 0, nd = 0, n = s->n, rc = 0;
    const char **pats = sim_xcalloc((size_t)n, sizeof *pats);
    size_t *plen = sim_xcalloc((size_t)n, sizeof *plen);
    const char **vars = sim_xcalloc((size_t)n, sizeof *vars);
    long *depths = sim_xcalloc((size_t)n, sizeof *depths);
    int *rp = sim_xcalloc((size_t)n, sizeof *rp), *rv = sim_xcalloc((size_t)n, sizeof *rv);
    long *rdp = sim_xcalloc((size_t)n, sizeof *rdp);
    int *same = NULL;
    FILE *dat = NULL, *gp = NULL;
    for (int i = 0; i < n; i++) {
        const struct study_row *r = &s->rows[i];
        size_t pl;
        if (!parse_workload(r->workload, &pl, &rdp[i])) {
            rc = sim_errf(err, -EINVAL, "%s: [%d].workload: '%s' is not '<pattern> qd<iodepth>'", s->file, i,
                          r->workload);
            goto out;
        }
        int p = 0, v = 0, d = 0;
        while (p < np && !(plen[p] == pl && !strncmp(pats[p], r->workload, pl)))
            p++;
        if (p == np) {
            pats[np] = r->workload;
            plen[np++] = pl;
        }
        while (v < nv && strcmp(vars[v], r->variant))
            v++;
        if (v == nv)
            vars[nv++] = r->variant;
        while (d < nd && depths[d] != rdp[i])
            d++;
        if (d == nd)
            depths[nd++] = rdp[i];
        rp[i] = p;
        rv[i] = v;
    }
    for (int a = 1; a < nd; a++) /* depths ascending */
        for (int b2 = a; b2 > 0 && depths[b2 - 1] > depths[b2]; b2--) {
            long t = depths[b2];
            depths[b2] = depths[b2 - 1];
            depths[b2 - 1] = t;
        }
    /* same[v]: the first variant v's results equal (itself if none); its line carries all their names */
    same = sim_xcalloc((size_t)n, sizeof *same);
    for (int v = 0; v < nv; v++) {
        same[v] = v;
        for (int u = 0; u < v && same[v] == v; u++)
            if (same[u] == u && same_series(s, rp, rv, rdp, np, depths, nd, u, v))
                same[v] = u;
    }
    if ((rc = figure_open(fg, &dat, &gp, err)) < 0) {
        dat = gp = NULL;
        goto out;
    }
    double ymin = INFINITY, ymax = 0;
    fprintf(dat, "# %s.dat - IOPS vs iodepth (from %s)\n", fg->name, s->file);
    fprintf(dat, "# block (gnuplot index) = pattern * %d + variant; columns: iodepth iodepth_dodged iops ci95\n", nv);
    fprintf(dat, "# (iodepth_dodged spreads the variants a little sideways so equal results stay visible)\n");
    for (int p = 0; p < np; p++)
        for (int v = 0; v < nv; v++) {
            fprintf(dat, "%s# block %d: %.*s, %s\n", p || v ? "\n\n" : "", p * nv + v, (int)plen[p], pats[p], vars[v]);
            double dodge = pow(2, ((double)v - (nv - 1) / 2.0) * 0.03);
            int rows = 0;
            for (int d = 0; d < nd; d++)
                for (int i = 0; i < n; i++)
                    if (rp[i] == p && rv[i] == v && rdp[i] == depths[d]) {
                        const struct study_row *r = &s->rows[i];
                        fprintf(dat, "%ld %.4f %.3f %.3f\n", depths[d], (double)depths[d] * dodge, r->iops, r->iops_ci);
                        if (r->iops > 0)
                            ymin = fmin(ymin, r->iops - r->iops_ci > 0 ? r->iops - r->iops_ci : r->iops);
                        ymax = fmax(ymax, r->iops + r->iops_ci);
                        rows++;
                        break;
                    }
            if (!rows) /* keep the block so the index numbers stay put */
                fprintf(dat, "%ld NaN NaN NaN\n", depths[0]);
        }
    if (!isfinite(ymin))
        ymin = 1, ymax = 10;
    figure_gp_header(gp, fg->name, "IOPS vs iodepth per variant, one panel per access pattern", 1400, 680);
    fprintf(gp, "set multiplot title \"4k %s IOPS vs iodepth to one image (mean ± 95 %% CI), per image kind / "
                "guard design / release\" font \",13\"\n",
            s->direction);
    fprintf(gp, "set logscale xy\nset xrange [%g:%g]\nset yrange [%g:%g]\nset xtics (", (double)depths[0] / 1.5,
            (double)depths[nd - 1] * 1.5, ymin / 1.6, ymax * 1.6);
    for (int d = 0; d < nd; d++)
        fprintf(gp, "%s\"%ld\" %ld", d ? ", " : "", depths[d], depths[d]);
    fputs(")\nset ytics (", gp);
    int nt = 0;
    for (double dec = pow(10, floor(log10(ymin / 1.6))); dec <= ymax * 1.6; dec *= 10)
        for (int m = 0; m < 3; m++) {
            double t = dec * (m == 0 ? 1 : m == 1 ? 2 : 5);
            if (t >= ymin / 1.6 && t <= ymax * 1.6)
                fprintf(gp, "%s\"%g\" %g", nt++ ? ", " : "", t, t);
        }
    fputs(")\nset mytics 10\nset xlabel \"iodepth (log scale)\"\n"
          "set tmargin at screen 0.88\nset bmargin at screen 0.11\n",
          gp);
    double left = 0.07, right = 0.70, gap = 0.06, pw = (right - left - gap * (np - 1)) / np;
    for (int p = 0; p < np; p++) {
        const char *pt = pattern_title(pats[p], plen[p]);
        fprintf(gp, "set lmargin at screen %.4f\nset rmargin at screen %.4f\n", left + p * (pw + gap),
                left + p * (pw + gap) + pw);
        fprintf(gp, "set title \"%s%.*s %s\"\n", pt ? pt : "", pt ? 0 : (int)plen[p], pats[p], s->direction);
        fputs(p == 0 ? "set ylabel \"IOPS (log scale)\"\n" : "unset ylabel\n", gp);
        if (p == np - 1)
            fputs("set key at screen 0.72, screen 0.88 left top Left reverse samplen 3 spacing 1.15 "
                  "title \"image / guard / release\"\n",
                  gp);
        else
            fputs("unset key\n", gp);
        fputs("plot ", gp);
        for (int v = 0, drawn = 0; v < nv; v++) {
            if (same[v] != v)
                continue;
            fprintf(gp, "%s\"%s.dat\" index %d using 2:3:4 with yerrorlines lt %d ", drawn++ ? ", \\\n     " : "",
                    fg->name, p * nv + v, v % FIGURE_N_LINETYPES + 1);
            if (p == np - 1) {
                fputs("title ", gp);
                plot_gp_str(gp, '"', vars[v]);
                /* the variants it stands for, one key line each under it (a sample drawn in the
                   background colour: text only; multi-line titles would overprint the next entry) */
                for (int w = v + 1; w < nv; w++)
                    if (same[w] == v) {
                        char *t = plot_asprintf("  = %s", vars[w]);
                        fputs(", \\\n     keyentry with lines lc bgnd title ", gp);
                        plot_gp_str(gp, '"', t);
                        free(t);
                    }
            } else {
                fputs("notitle", gp);
            }
        }
        fputc('\n', gp);
    }
    fputs("unset multiplot\n", gp);
    rc = figure_close(fg, dat, gp, err);
    dat = gp = NULL;
out:
    if (dat)
        fclose(dat);
    if (gp)
        fclose(gp);
    free(pats);
    free(plen);
    free(vars);
    free(depths);
    free(rp);
    free(rv);
    free(rdp);
    free(same);
    return rc;
}

static bool iops_applies(const struct run_data *rd)
{
    return run_data_has_summary(rd, "clone-serialisation.json");
}

static int iops_draw(const struct figure *fg, const struct run_data *rd, struct sim_err *err)
{
    struct study_table s;
    int rc = run_data_load_study(rd, "clone-serialisation.json", true, &s, err);
    if (rc == 0)
        rc = draw_iops(fg, &s, err);
    run_data_free_study(&s);
    return rc;
}

const struct plot_figure fig_iops_vs_iodepth = {
    .name = "iops-vs-iodepth",
    .what = "IOPS vs iodepth per image kind / guard / release",
    .applies = iops_applies,
    .draw = iops_draw,
};

/* ------------------------------------------------------------------ copyup */

static bool copyup_applies(const struct run_data *rd)
{
    return run_data_has_summary(rd, "copyup.json");
}

static int copyup_draw(const struct figure *fg, const struct run_data *rd, struct sim_err *err)
{
    struct study_table s;
    int rc = run_data_load_study(rd, "copyup.json", false, &s, err);
    if (rc == 0) {
        char *title = plot_asprintf("First writes to a fresh clone (copy-up), 4k random %s QD=1: mean latency per "
                                    "guard design\n95 %% CI over %d replication%s; first row: an image without parent",
                                    s.direction, s.rows[0].n, s.rows[0].n == 1 ? "" : "s");
        rc = fig_bars(fg, &s, title, NULL, 0, err);
        free(title);
    }
    run_data_free_study(&s);
    return rc;
}

const struct plot_figure fig_copyup = {
    .name = "copyup",
    .what = "first-write (copy-up) latency per guard design",
    .applies = copyup_applies,
    .draw = copyup_draw,
};
