/*
 * plot.h - `cephsim plot DIR`: figures from a run output directory (fio.json,
 * sim.json, osd.N.historic_ops.json) or from the seed studies' directory
 * (qd1-latency.json, clone-serialisation.json, copyup.json), drawn by gnuplot
 * from generated scripts; plus a text waterfall for terminals.
 *
 * Every figure is three files in the output directory: NAME.dat (the numbers,
 * commented columns), NAME.gp (a self-contained gnuplot 5.4 script reading
 * NAME.dat; `gnuplot -e "fmt='svg'" NAME.gp` there re-renders it) and
 * NAME.png and/or NAME.svg.  Files appear only when every figure rendered.
 */
#ifndef CEPHSIM_EXPLORER_PLOT_H
#define CEPHSIM_EXPLORER_PLOT_H

#include <stdbool.h>
#include <stdio.h>

#include "cluster.h"
#include "err.h"

#define PLOT_PNG 1u
#define PLOT_SVG 2u

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

/* Whether an executable "gnuplot" is on $PATH. */
bool plot_have_gnuplot(void);

/*
 * Write S to F as a gnuplot string literal in quotes Q: '"' (backslash and
 * quote escaped, a newline as \n) or '\'' (a quote doubled, the only escape
 * there, so a newline becomes a space).  Other control characters become spaces.
 */
void plot_gp_str(FILE *f, char q, const char *s);

/*
 * Run `gnuplot [-e 'cd "DIR"; PRE'] SCRIPT` and wait for it; its stdin is
 * /dev/null, its messages go to our stderr.
 *   dir     where it runs (relative SCRIPT and EXPECT are there); NULL: here
 *   pre     gnuplot commands run before SCRIPT (e.g. "fmt = \"svg\""); NULL: none
 *   expect  a file it must leave, not empty; NULL: no check
 * Returns 0; -ENOENT when there is no gnuplot to run (err says "gnuplot not
 * found; ...": callers that can do without the figure skip it); -EIO when it
 * failed ("SCRIPT: gnuplot failed (status N; ...)") or left no EXPECT; or
 * another negative errno.
 */
int plot_gnuplot(const char *dir, const char *pre, const char *script, const char *expect, struct sim_err *err);

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

#endif
