/*
 * plot.c - `cephsim plot DIR` (see plot.h): which figures a directory's files
 * allow, drawn through a table of figure descriptors (figure.h), rendered by
 * gnuplot (gnuplot.h) and moved into place only when all of them rendered.
 *
 * DIR is walked once for itself, then once per sub-directory that is one of
 * cephsim's own runs (sorted by name; the marker is the sim.json a run writes,
 * as runner_check_output trusts a directory), each time with its run data
 * loaded (rundata.h) and every table entry asked whether it applies: a run's
 * figures apply to any run directory, the studies' only to DIR itself.  Other
 * run-like sub-directories (a fio.json of someone's fio, without sim.json) are
 * skipped and named: on a shared directory, plot draws only cephsim's runs and
 * says which.
 */
#include "plot.h"

#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "figure.h"
#include "files.h"
#include "jsonu.h"
#include "plotutil.h"

/* Every figure, in the order they are drawn and listed for each directory. */
static const struct plot_figure *const figures[] = {
    &fig_latency_cdf, &fig_waterfall, &fig_qd1_tunings, &fig_iops_vs_iodepth, &fig_copyup, NULL,
};

struct plot_ctx {
    const char *tmp;        /* where the files are written before they are moved into place */
    struct figure *figs;
    int n_figs;
    char **runs, **skipped; /* sub-directories plotted, and run-like ones that are not cephsim's */
    int n_runs, n_skipped;
    char **notes;           /* figures not drawn where one would expect them: "FIGURE of DIR: why" */
    int n_notes;
};

/* A run directory cephsim wrote: its sim.json, the marker runner_check_output trusts (a JSON object). */
static bool is_cephsim_run(const char *dir)
{
    char *p = plot_asprintf("%s/sim.json", dir);
    bool ours = false;
    if (plot_is_file(p)) {
        struct sim_err e2 = {0};
        cJSON *j = jsonu_load_file(p, &e2);
        ours = cJSON_IsObject(j);
        cJSON_Delete(j);
    }
    free(p);
    return ours;
}

static void add_name(char ***v, int *n, const char *name)
{
    *v = sim_xrealloc(*v, (size_t)*n + 1, sizeof **v);
    (*v)[(*n)++] = sim_xstrdup(name);
}

/* "a, b, c" of at most 8 names, then "and N more". */
static void print_names(FILE *f, char *const *v, int n)
{
    for (int i = 0; i < n && i < 8; i++)
        fprintf(f, "%s%s", i ? ", " : "", v[i]);
    if (n > 8)
        fprintf(f, " and %d more", n - 8);
}

/* Every figure rd allows, in table order; names after "PREFIX." for a run sub-directory. */
static int draw_figures(struct plot_ctx *c, const struct run_data *rd, struct sim_err *err)
{
    int rc = 0;
    for (const struct plot_figure *const *f = figures; *f && rc == 0; f++) {
        if (!(*f)->applies(rd)) {
            const char *why = (*f)->why_not ? (*f)->why_not(rd) : NULL;
            if (why) {
                char *note = plot_asprintf("%s of %s: %s", (*f)->name, rd->dir, why);
                add_name(&c->notes, &c->n_notes, note);
                free(note);
            }
            continue;
        }
        c->figs = sim_xrealloc(c->figs, (size_t)c->n_figs + 1, sizeof *c->figs);
        struct figure *fg = &c->figs[c->n_figs++];
        *fg = (struct figure){.desc = *f, .dir = c->tmp};
        snprintf(fg->name, sizeof fg->name, "%s%s%s", rd->prefix ? rd->prefix : "", rd->prefix ? "." : "",
                 (*f)->name);
        rc = (*f)->draw(fg, rd, err);
    }
    return rc;
}

/* The figures of one directory: DIR itself (prefix NULL) or a run sub-directory. */
static int plot_one(struct plot_ctx *c, const char *dir, const char *prefix, struct sim_err *err)
{
    struct run_data rd;
    int rc = run_data_load(dir, prefix, &rd, err);
    if (rc == 0)
        rc = draw_figures(c, &rd, err);
    run_data_free(&rd);
    return rc;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Immediate sub-directories that are cephsim's runs, sorted (not out_dir itself). */
static int plot_subdirs(struct plot_ctx *c, const char *dir, const char *out_dir, struct sim_err *err)
{
    DIR *d = opendir(dir);
    if (!d)
        return sim_errf(err, -errno, "%s: cannot read: %s", dir, strerror(errno));
    char **names = NULL;
    int n = 0, rc = 0;
    struct dirent *e;
    struct stat out_st;
    bool have_out = stat(out_dir, &out_st) == 0;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char *p = plot_asprintf("%s/%s", dir, e->d_name);
        struct stat st;
        bool is_out = have_out && stat(p, &st) == 0 && st.st_dev == out_st.st_dev && st.st_ino == out_st.st_ino;
        if (!is_out && plot_is_dir(p) && run_data_is_run(p)) {
            if (is_cephsim_run(p))
                add_name(&names, &n, e->d_name);
            else
                add_name(&c->skipped, &c->n_skipped, e->d_name);
        }
        free(p);
    }
    closedir(d);
    if (n > 1)
        qsort(names, (size_t)n, sizeof *names, cmp_str);
    if (c->n_skipped > 1)
        qsort(c->skipped, (size_t)c->n_skipped, sizeof *c->skipped, cmp_str);
    for (int i = 0; i < n && rc == 0; i++) {
        char *p = plot_asprintf("%s/%s", dir, names[i]);
        int before = c->n_figs;
        rc = plot_one(c, p, names[i], err);
        if (c->n_figs > before)
            add_name(&c->runs, &c->n_runs, names[i]);
        free(p);
    }
    for (int i = 0; i < n; i++)
        free(names[i]);
    free(names);
    return rc;
}

/* ------------------------------------------------------------------ rendering */

/* Run gnuplot on every figure's script. */
static int render(const struct plot_ctx *c, unsigned formats, struct sim_err *err)
{
    int rc = 0;
    for (int i = 0; i < c->n_figs && rc == 0; i++)
        rc = plot_gp_render(c->tmp, c->figs[i].name, formats, err);
    return rc;
}

/* Move the finished files from the temporary directory into out_dir. */
static int move_into_place(const struct plot_ctx *c, const char *out_dir, unsigned formats, bool rendered,
                           struct sim_err *err)
{
    static const char *const exts[] = {"dat", "gp", "png", "svg"};
    for (int i = 0; i < c->n_figs; i++)
        for (int k = 0; k < 4; k++) {
            if (k >= 2 && (!rendered || !(formats & (1u << (k - 2)))))
                continue;
            char *from = plot_asprintf("%s/%s.%s", c->tmp, c->figs[i].name, exts[k]);
            char *to = plot_asprintf("%s/%s.%s", out_dir, c->figs[i].name, exts[k]);
            int rc = rename(from, to) ? sim_errf(err, -errno, "%s: cannot create: %s", to, strerror(errno)) : 0;
            free(from);
            free(to);
            if (rc < 0)
                return rc;
        }
    return 0;
}

int plot_dir(const struct plot_opts *o, struct sim_err *err)
{
    if (!plot_is_dir(o->dir))
        return sim_errf(err, -ENOENT, "%s: not a directory", o->dir);
    unsigned formats = o->formats & (PLOT_PNG | PLOT_SVG);
    if (o->render && !formats)
        return sim_errf(err, -EINVAL, "no output format");
    if (o->render && !plot_have_gnuplot())
        return sim_errf(err, -ENOENT, "gnuplot not found; install gnuplot-nox (tools/setup.sh does)");
    char *out_dir = o->out_dir ? sim_xstrdup(o->out_dir) : plot_asprintf("%s/plots", o->dir);
    bool existed = plot_is_dir(out_dir);
    int rc = files_mkdir_p(out_dir);
    if (rc < 0) {
        sim_errf(err, rc, "%s: cannot create: %s", out_dir, strerror(-rc));
        free(out_dir);
        return rc;
    }
    char *tmp = plot_asprintf("%s/.cephsim-plot.%ld", out_dir, (long)getpid());
    files_rm_tree(tmp);
    struct plot_ctx c = {.tmp = tmp};
    if (mkdir(tmp, 0777) != 0) {
        rc = sim_errf(err, -errno, "%s: cannot create: %s", tmp, strerror(errno));
        goto out;
    }
    rc = plot_one(&c, o->dir, NULL, err);
    int own_figs = c.n_figs;
    if (rc == 0)
        rc = plot_subdirs(&c, o->dir, out_dir, err);
    if (rc == 0 && c.n_figs == 0)
        rc = sim_errf(err, -ENOENT, "%s: nothing to plot: no fio.json or sim.json (a run's output), nor "
                      "qd1-latency.json, clone-serialisation.json or copyup.json (the studies')%s%s%s", o->dir,
                      c.n_skipped ? "; skipped sub-directories with a fio.json but no sim.json (not cephsim runs), e.g. '" : "",
                      c.n_skipped ? c.skipped[0] : "", c.n_skipped ? "'" : "");
    if (rc == 0 && o->render)
        rc = render(&c, formats, err);
    if (rc == 0)
        rc = move_into_place(&c, out_dir, formats, o->render, err);
    if (rc == 0 && o->log) {
        const char *files = !o->render                              ? "{dat,gp}"
                            : formats == (PLOT_PNG | PLOT_SVG)       ? "{png,svg}"
                            : formats & PLOT_PNG                     ? "png"
                                                                     : "svg";
        int w = 0;
        for (int i = 0; i < c.n_figs; i++)
            w = fmax(w, (int)(strlen(c.figs[i].name) + strlen(files) + 1));
        fprintf(o->log, "cephsim plot: %d figure%s in %s/ (with NAME.dat and NAME.gp)\n", c.n_figs,
                c.n_figs == 1 ? "" : "s", out_dir);
        for (int i = 0; i < c.n_figs; i++)
            fprintf(o->log, "  %s.%-*s  %s\n", c.figs[i].name, w - (int)strlen(c.figs[i].name) - 1, files,
                    c.figs[i].desc->what);
        fprintf(o->log, "  plotted: %s", own_figs ? o->dir : "");
        if (c.n_runs) {
            fprintf(o->log, "%s%d sub-director%s of %s, %s (", own_figs ? " and " : "", c.n_runs,
                    c.n_runs == 1 ? "y" : "ies", o->dir, c.n_runs == 1 ? "a cephsim run" : "each a cephsim run");
            print_names(o->log, c.runs, c.n_runs);
            fprintf(o->log, ")");
        }
        fprintf(o->log, "\n");
        for (int i = 0; i < c.n_notes; i++)
            fprintf(o->log, "  not drawn: %s\n", c.notes[i]);
        if (c.n_skipped) {
            fprintf(o->log, "  skipped %d sub-director%s with a fio.json but no sim.json (not cephsim runs): ",
                    c.n_skipped, c.n_skipped == 1 ? "y" : "ies");
            print_names(o->log, c.skipped, c.n_skipped);
            fprintf(o->log, "\n");
        }
    }
out:
    for (int i = 0; i < c.n_runs; i++)
        free(c.runs[i]);
    for (int i = 0; i < c.n_skipped; i++)
        free(c.skipped[i]);
    for (int i = 0; i < c.n_notes; i++)
        free(c.notes[i]);
    free(c.runs);
    free(c.skipped);
    free(c.notes);
    files_rm_tree(tmp);
    if (rc < 0 && !existed)
        rmdir(out_dir);
    free(c.figs);
    free(tmp);
    free(out_dir);
    return rc;
}

/* ------------------------------------------------------------------ the command */

static void plot_usage(FILE *f)
{
    fprintf(f, "usage: cephsim plot DIR [-o OUTDIR] [--format png|svg|both] [--no-render]\n"
               "  DIR                  a run's outputs (cephsim run SCENARIO -o DIR) or the studies'\n"
               "                       (out/runs/default: qd1-latency.json, clone-serialisation.json, copyup.json)\n"
               "  -o, --output OUTDIR  where the figures go (default DIR/plots): NAME.png/.svg, NAME.dat, NAME.gp\n"
               "  -f, --format FMT     png (default), svg or both\n"
               "  -n, --no-render      write the data files and gnuplot scripts only (no gnuplot needed)\n"
               "  -h, --help           this text\n");
}

int cmd_plot(int argc, char **argv)
{
    static const struct option opts[] = {{"output", required_argument, NULL, 'o'},
                                         {"format", required_argument, NULL, 'f'},
                                         {"no-render", no_argument, NULL, 'n'},
                                         {"help", no_argument, NULL, 'h'},
                                         {0}};
    struct plot_opts o = {.formats = PLOT_PNG, .render = true, .log = stdout};
    int ch;
    optind = 0; /* glibc: a full rescan, also when called more than once */
    while ((ch = getopt_long(argc, argv, "o:f:nh", opts, NULL)) != -1) {
        switch (ch) {
        case 'o': o.out_dir = optarg; break;
        case 'f':
            if (!strcmp(optarg, "png"))
                o.formats = PLOT_PNG;
            else if (!strcmp(optarg, "svg"))
                o.formats = PLOT_SVG;
            else if (!strcmp(optarg, "both"))
                o.formats = PLOT_PNG | PLOT_SVG;
            else {
                fprintf(stderr, "cephsim plot: --format '%s': expected png, svg or both\n", optarg);
                return 2;
            }
            break;
        case 'n': o.render = false; break;
        case 'h': plot_usage(stdout); return 0;
        default: plot_usage(stderr); return 2;
        }
    }
    if (argc - optind != 1) {
        fprintf(stderr, "cephsim plot: expected one directory (got %d); try cephsim plot --help\n", argc - optind);
        return 2;
    }
    o.dir = argv[optind];
    if (o.render && !plot_have_gnuplot()) {
        fprintf(stderr, "cephsim plot: gnuplot not found; install gnuplot-nox (tools/setup.sh does)\n");
        return 1;
    }
    struct sim_err err = {0};
    int rc = plot_dir(&o, &err);
    if (rc < 0) {
        fprintf(stderr, "cephsim plot: %s\n", err.msg[0] ? err.msg : strerror(-rc));
        return 1;
    }
    return 0;
}
