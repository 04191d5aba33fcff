/*
 * gnuplot.h - running gnuplot: whether it is installed, quoting strings into
 * its scripts, running a script and checking the file it must leave, and the
 * png/svg terminal of a script rendered once per format.  It knows no figure:
 * cephsim plot (plot.h), validate's CDFs and query's plots all draw through it.
 *
 * A script made for rendering per format starts its terminal with
 * plot_gp_terminal: it draws NAME.svg when the gnuplot variable fmt is "svg"
 * and NAME.png otherwise (pngcairo where gnuplot has it, else libgd's png), so
 * `gnuplot NAME.gp` and `gnuplot -e "fmt='svg'" NAME.gp` re-render it by hand;
 * plot_gp_render runs it once per format asked for.
 */
#ifndef CEPHSIM_EXPLORER_GNUPLOT_H
#define CEPHSIM_EXPLORER_GNUPLOT_H

#include <stdbool.h>
#include <stdio.h>

#include "err.h"

/* Output formats, a bit set. */
#define PLOT_PNG 1u
#define PLOT_SVG 2u

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
 * Write a script's terminal and output for rendering by format: svg when fmt
 * is "svg", else png (fmt defaults to "png"); W x H pixels; output NAME.<fmt>.
 */
void plot_gp_terminal(FILE *f, const char *name, int w, int h);

/*
 * Run DIR/NAME.gp (written with plot_gp_terminal) once per format in formats
 * (PLOT_PNG | PLOT_SVG), png first, each required to leave DIR/NAME.<fmt>.
 * Returns 0 or plot_gnuplot's error.
 */
int plot_gp_render(const char *dir, const char *name, unsigned formats, struct sim_err *err);

#endif
