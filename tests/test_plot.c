/*
 * test_plot.c - `cephsim plot`: the waterfall layout and its text form; the
 * data files and gnuplot scripts written for small synthetic study summaries
 * and a synthetic run directory (columns, order, CI classes, scales); input
 * errors; no files left behind when gnuplot is missing or fails; and, when
 * gnuplot is installed, real PNG and SVG files.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jsonu.h"
#include "fig_waterfall.h"
#include "plot.h"

#define EPS 1e-6

/* ------------------------------------------------------------------ helpers */

static void write_file(const char *dir, const char *name, const char *text)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
}

static char *read_file(const char *dir, const char *name)
{
    char path[1024], *buf;
    size_t len;
    struct sim_err err = {0};
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return jsonu_slurp(path, &buf, &len, &err) == 0 ? buf : NULL;
}

static bool exists(const char *dir, const char *name)
{
    char path[1024];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return stat(path, &st) == 0;
}

static int count_entries(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
    closedir(d);
    return n;
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    return remove(path);
}

static void rm_tree(const char *dir)
{
    nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* Data lines of a gnuplot data file, with the block (gnuplot index) each belongs to. */
struct dat {
    int n;
    char line[256][512];
    int block[256];
};

static void read_dat(const char *dir, const char *name, struct dat *d)
{
    char *text = read_file(dir, name);
    assert_non_null(text);
    memset(d, 0, sizeof *d);
    int blanks = 0, block = 0;
    char *p = text;
    while (*p) {
        char *e = strchr(p, '\n');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len == 0) {
            blanks++;
        } else if (p[0] != '#') {
            if (blanks >= 2 && d->n > 0)
                block++;
            blanks = 0;
            assert_true(d->n < 256 && len < 512);
            memcpy(d->line[d->n], p, len);
            d->line[d->n][len] = '\0';
            d->block[d->n++] = block;
        }
        p = e ? e + 1 : p + len;
    }
    free(text);
}

/* The n-th (0-based) whitespace-separated number of a data line. */
static double col(const char *line, int k)
{
    const char *p = line;
    for (int i = 0; i < k; i++) {
        while (*p == ' ')
            p++;
        if (*p == '"')
            p = strchr(p + 1, '"') + 1;
        else
            while (*p && *p != ' ')
                p++;
    }
    return strtod(p, NULL);
}

/* The n-th quoted string of a data line. */
static void qstr(const char *line, int k, char *out, size_t n)
{
    const char *p = line;
    for (int i = 0; i <= k; i++) {
        p = strchr(p, '"');
        assert_non_null(p);
        if (i < k)
            p = strchr(p + 1, '"') + 1;
    }
    const char *e = strchr(p + 1, '"');
    snprintf(out, n, "%.*s", (int)(e - p - 1), p + 1);
}

static const double stages[STAGE_COUNT] = {10, 20, 30, 40, 50, 100, 200, 5, 15, 25};

static const char *const qd1_json =
    "[{\"variant\":\"base\",\"direction\":\"write\",\"lat_mean_us\":{\"mean\":600,\"ci95\":2,\"n\":3},"
    "\"lat_p99_us\":{\"mean\":700,\"ci95\":0,\"n\":3},\"iops\":{\"mean\":1660,\"ci95\":5,\"n\":3}},"
    " {\"variant\":\"slow \\\"one\\\"\",\"lat_mean_us\":{\"mean\":800,\"ci95\":3,\"n\":3},"
    "\"lat_p99_us\":{\"mean\":900,\"ci95\":0,\"n\":3},\"iops\":{\"mean\":1250,\"ci95\":5,\"n\":3}},"
    " {\"variant\":\"noisy\",\"lat_mean_us\":{\"mean\":590,\"ci95\":30,\"n\":3},"
    "\"lat_p99_us\":{\"mean\":650,\"ci95\":0,\"n\":3},\"iops\":{\"mean\":1690,\"ci95\":80,\"n\":3}},"
    " {\"variant\":\"fast_cpu\",\"lat_mean_us\":{\"mean\":450,\"ci95\":1,\"n\":3},"
    "\"lat_p99_us\":{\"mean\":500,\"ci95\":0,\"n\":3},\"iops\":{\"mean\":2200,\"ci95\":5,\"n\":3}}]";

#define ROW(v, w, iops, ci)                                                                                   \
    "{\"variant\":\"" v "\",\"workload\":\"" w "\",\"lat_mean_us\":{\"mean\":1000,\"ci95\":1,\"n\":2},"       \
    "\"lat_p99_us\":{\"mean\":2000,\"ci95\":0,\"n\":2},\"iops\":{\"mean\":" #iops ",\"ci95\":" #ci ",\"n\":2}}"
/* v2 lists its depths out of order and has no "rand qd16"; v3 has no "rand" at all */
static const char *const clone_json = "[" ROW("v1", "seq qd1", 1600, 10) "," ROW("v1", "seq qd16", 6400, 20) ","
    ROW("v1", "rand qd1", 1610, 11) "," ROW("v1", "rand qd16", 24000, 30) "," ROW("v2", "seq qd16", 2100, 40) ","
    ROW("v2", "seq qd1", 1500, 12) "," ROW("v2", "rand qd1", 1400, 13) "," ROW("v3", "seq qd1", 1000, 5) "]";

static const char *const copyup_json =
    "[{\"variant\":\"plain\",\"lat_mean_us\":{\"mean\":600,\"ci95\":5,\"n\":2},"
    "\"lat_p99_us\":{\"mean\":680,\"ci95\":0,\"n\":2},\"iops\":{\"mean\":1600,\"ci95\":9,\"n\":2}},"
    " {\"variant\":\"assert_exists\",\"lat_mean_us\":{\"mean\":24000,\"ci95\":30000,\"n\":2},"
    "\"lat_p99_us\":{\"mean\":29000,\"ci95\":0,\"n\":2},\"iops\":{\"mean\":40,\"ci95\":19,\"n\":2}}]";

static const char *const fio_json =
    "{\"global options\":{\"bs\":\"4k\"},\"jobs\":[{\"jobname\":\"j1\",\"job options\":{\"rw\":\"randwrite\","
    "\"iodepth\":\"1\"},\"read\":{\"clat_ns\":{\"N\":0,\"min\":0,\"max\":0,\"mean\":0}},"
    "\"write\":{\"clat_ns\":{\"N\":100,\"min\":300000,\"max\":900000,\"mean\":520000,"
    "\"percentile\":{\"50.000000\":500000,\"99.000000\":800000}}}}]}";

/* Two client ops (500 and 400 us) and a replica op, which is not a client op. */
#define HOP(desc, dur)                                                                                        \
    "{\"description\":\"" desc "\",\"initiated_at\":\"2025-11-30T00:00:00.100000+0000\",\"age\":1.5,"       \
    "\"duration\":" dur ",\"type_data\":{\"flag_point\":\"commit sent; apply or cleanup\",\"events\":["     \
    "{\"event\":\"initiated\",\"time\":\"2025-11-30T00:00:00.100000+0000\",\"duration\":0}]}}"
static const char *const historic_json =
    "{\"size\":20,\"duration\":600,\"ops\":["
    HOP("osd_op(client.4100.0:812 2.12b 2:25eaf536:::rbd_data.1.00000000000060cd:head [write 1122304~4096] "
        "snapc 0=[] ondisk+write+known_if_redirected e24)", "0.0005") ","
    HOP("osd_repop(client.4100.0:813 2.12b e24/16 2:25eaf536:::rbd_data.1.00000000000060cd:head v 24'83543, "
        "mlcod=24'83542)", "0.0003") ","
    HOP("osd_op(client.4100.0:814 2.12c 2:35eaf536:::rbd_data.1.00000000000060ce:head [write 0~4096] "
        "snapc 0=[] ondisk+write+known_if_redirected e24)", "0.0004") "]}";

static void make_run_dir(const char *dir)
{
    assert_int_equal(mkdir(dir, 0777), 0);
    write_file(dir, "fio.json", fio_json);
    write_file(dir, "osd.0.historic_ops.json", historic_json);
    write_file(dir, "osd.0.historic_ops_by_duration.json", "this file is not read");
    char sim[2048];
    int n = snprintf(sim, sizeof sim, "{\"scenario\":\"scenarios/x.json\",\"summary\":{\"direction\":\"write\","
                                      "\"lat_mean_us\":{\"mean\":520,\"ci95\":1,\"n\":1},\"stages_us\":{");
    for (int i = 0; i < STAGE_COUNT; i++)
        n += snprintf(sim + n, sizeof sim - (size_t)n, "%s\"%s\":%g", i ? "," : "", stage_names[i], stages[i]);
    snprintf(sim + n, sizeof sim - (size_t)n, "}}}");
    write_file(dir, "sim.json", sim);
}

/* A studies directory with the three summaries and one run sub-directory. */
static char *make_study_dir(void)
{
    char *dir = strdup("/tmp/test_plot.XXXXXX");
    assert_non_null(mkdtemp(dir));
    write_file(dir, "qd1-latency.json", qd1_json);
    write_file(dir, "clone-serialisation.json", clone_json);
    write_file(dir, "copyup.json", copyup_json);
    char run[512];
    snprintf(run, sizeof run, "%s/run1", dir);
    make_run_dir(run);
    return dir;
}

/* Run f with stderr going to a buffer; returns f's result. */
static int with_stderr(char *buf, size_t n, int (*f)(int, char **), int argc, char **argv)
{
    char tmpl[] = "/tmp/test_plot.err.XXXXXX";
    int fd = mkstemp(tmpl);
    assert_true(fd >= 0);
    fflush(stderr);
    int saved = dup(STDERR_FILENO);
    dup2(fd, STDERR_FILENO);
    int rc = f(argc, argv);
    fflush(stderr);
    dup2(saved, STDERR_FILENO);
    close(saved);
    lseek(fd, 0, SEEK_SET);
    ssize_t got = read(fd, buf, n - 1);
    buf[got > 0 ? got : 0] = '\0';
    close(fd);
    unlink(tmpl);
    return rc;
}

/* ------------------------------------------------------------------ tests */

static void test_waterfall_layout(void **state)
{
    double start[STAGE_COUNT], total;
    bool crit[STAGE_COUNT];
    plot_waterfall_layout(stages, start, crit, &total);
    static const double want[STAGE_COUNT] = {0, 10, 30, 60, 100, 150, 150, 350, 355, 370};
    for (int i = 0; i < STAGE_COUNT; i++)
        assert_true(fabs(start[i] - want[i]) < EPS);
    assert_true(fabs(total - 395) < EPS);
    for (int i = 0; i < STAGE_COUNT; i++)
        assert_int_equal(crit[i], i != STAGE_LOCAL_COMMIT);
    /* the local commit longer than the replicas': it is the critical one */
    double s2[STAGE_COUNT];
    memcpy(s2, stages, sizeof s2);
    s2[STAGE_LOCAL_COMMIT] = 300;
    plot_waterfall_layout(s2, start, crit, &total);
    assert_true(crit[STAGE_LOCAL_COMMIT] && !crit[STAGE_REPLICA_COMMIT]);
    assert_true(fabs(start[STAGE_PRIMARY_REPLY] - 450) < EPS && fabs(total - 495) < EPS);
    /* negative or NaN means count as nothing */
    s2[STAGE_CLIENT_SUBMIT] = NAN;
    s2[STAGE_NET_TO_PRIMARY] = -5;
    plot_waterfall_layout(s2, start, crit, &total);
    assert_true(fabs(total - 465) < EPS && fabs(start[STAGE_PRIMARY_QUEUE]) < EPS);
}

static int count_glyphs(const char *line, const char *glyph)
{
    int n = 0;
    for (const char *p = strstr(line, glyph); p; p = strstr(p + 1, glyph))
        n++;
    return n;
}

static void test_text_waterfall(void **state)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    plot_text_waterfall(f, stages);
    fclose(f);
    char *lines[16];
    int n = 0;
    for (char *save = NULL, *l = strtok_r(buf, "\n", &save); l && n < 16; l = strtok_r(NULL, "\n", &save))
        lines[n++] = l;
    assert_int_equal(n, STAGE_COUNT + 2);
    assert_non_null(strstr(lines[0], "where a write's time goes"));
    int w = 5; /* names are left-aligned to the longest */
    for (int i = 0; i < STAGE_COUNT; i++)
        w = strlen(stage_names[i]) > (size_t)w ? (int)strlen(stage_names[i]) : w;
    for (int i = 0; i < STAGE_COUNT; i++) {
        char want[96];
        snprintf(want, sizeof want, "    %-*s %8.1f  ", w, stage_names[i], stages[i]);
        assert_memory_equal(lines[i + 1], want, strlen(want));
    }
    assert_non_null(strstr(lines[STAGE_COUNT + 1], "395.0"));
    /* 50 columns for 395 us: replica 200 us -> 25 full blocks from column 19; local 100 us -> 13 light */
    const char *rep = lines[1 + STAGE_REPLICA_COMMIT], *loc = lines[1 + STAGE_LOCAL_COMMIT];
    assert_int_equal(count_glyphs(rep, "\u2588"), 25);
    assert_int_equal(count_glyphs(rep, "\u2591"), 0);
    assert_int_equal(count_glyphs(loc, "\u2591"), 13);
    size_t prefix = strlen("    ") + (size_t)w + 1 + 8 + 2;
    assert_int_equal(strspn(rep + prefix, " "), 19);
    assert_int_equal(strspn(loc + prefix, " "), 19);
    /* a 5 us stage still gets a block */
    assert_int_equal(count_glyphs(lines[1 + STAGE_PRIMARY_REPLY], "\u2588"), 1);
    free(buf);
    /* nothing measured */
    double zero[STAGE_COUNT] = {0};
    f = open_memstream(&buf, &len);
    plot_text_waterfall(f, zero);
    fclose(f);
    assert_non_null(strstr(buf, "no write stages measured"));
    free(buf);
}

static void test_study_files(void **state)
{
    char *dir = make_study_dir();
    char out[600];
    snprintf(out, sizeof out, "%s/figs", dir);
    struct plot_opts o = {.dir = dir, .out_dir = out, .formats = PLOT_PNG, .render = false};
    struct sim_err err = {0};
    assert_int_equal(plot_dir(&o, &err), 0);
    /* 3 study figures + latency-cdf and waterfall of run1, each .dat + .gp, nothing else */
    assert_int_equal(count_entries(out), 10);
    assert_false(exists(out, "qd1-tunings.png"));
    struct dat *d = malloc(sizeof *d);

    /* qd1-tunings: rows in file order, linear scale from 0, CI classes against the first row */
    read_dat(out, "qd1-tunings.dat", d);
    assert_int_equal(d->n, 4);
    static const double mean[] = {600, 800, 590, 450}, ci[] = {2, 3, 30, 1}, p99[] = {700, 900, 650, 500};
    static const int cls[] = {1, 3, 4, 2};
    static const char *const names[] = {"base", "slow 'one'", "noisy", "fast_cpu"};
    for (int i = 0; i < 4; i++) {
        const char *l = d->line[i];
        assert_int_equal((int)col(l, 0), i);
        assert_true(fabs(col(l, 1) - mean[i]) < 1e-3 && fabs(col(l, 2) - ci[i]) < 1e-3);
        assert_true(fabs(col(l, 3) - (mean[i] - ci[i])) < 1e-3 && fabs(col(l, 4) - (mean[i] + ci[i])) < 1e-3);
        assert_true(fabs(col(l, 5) - p99[i]) < 1e-3 && fabs(col(l, 6)) < 1e-9);
        assert_int_equal((int)col(l, 7), cls[i]);
        assert_true(fabs(col(l, 8) - fmax(mean[i] + ci[i], p99[i])) < 1e-3);
        char s[128];
        qstr(l, 0, s, sizeof s);
        assert_string_equal(s, names[i]);
    }
    char s[128];
    qstr(d->line[1], 1, s, sizeof s);
    assert_string_equal(s, "800.0 ± 3.0 µs  (+33.3 %)");
    char *gp = read_file(out, "qd1-tunings.gp");
    assert_non_null(strstr(gp, "set arrow 1 from 500, graph 0 to 500, graph 1"));
    assert_non_null(strstr(gp, "set arrow 2 from 700, graph 0 to 700, graph 1"));
    assert_null(strstr(gp, "set logscale x"));
    assert_non_null(strstr(gp, "plot \"qd1-tunings.dat\" using"));
    assert_non_null(strstr(gp, "set output \"qd1-tunings.\".fmt"));
    assert_non_null(strstr(gp, "95 % CI over 3 replications"));
    /* keys only for classes present (all four here) */
    assert_non_null(strstr(gp, "title \"no clear difference\""));
    free(gp);

    /* copyup: a 40x spread -> log scale, the CI's lower end clamped to the axis start */
    read_dat(out, "copyup.dat", d);
    assert_int_equal(d->n, 2);
    double xmin = col(d->line[0], 6);
    assert_true(fabs(xmin - 600 / 1.6) < 1e-3);
    assert_true(fabs(col(d->line[1], 3) - xmin) < 1e-3);
    assert_int_equal((int)col(d->line[1], 7), 4); /* its CI reaches below the reference's */
    qstr(d->line[1], 1, s, sizeof s);
    assert_string_equal(s, "24000.0 ± 30000.0 µs  (×40.0)");
    gp = read_file(out, "copyup.gp");
    assert_non_null(strstr(gp, "set logscale x"));
    assert_null(strstr(gp, "set arrow"));
    assert_null(strstr(gp, "title \"faster"));
    assert_null(strstr(gp, "title \"slower"));
    assert_non_null(strstr(gp, "title \"no clear difference\""));
    free(gp);

    /* iops-vs-iodepth: blocks pattern-major in order of appearance, depths ascending; v3's empty
       "rand" block is one NaN row so the block numbers stay pattern * variants + variant */
    read_dat(out, "iops-vs-iodepth.dat", d);
    assert_int_equal(d->n, 9);
    static const int blk[] = {0, 0, 1, 1, 2, 3, 3, 4, 5};
    static const double depth[] = {1, 16, 1, 16, 1, 1, 16, 1, 1};
    static const double iops[] = {1600, 6400, 1500, 2100, 1000, 1610, 24000, 1400, NAN};
    static const double ici[] = {10, 20, 12, 40, 5, 11, 30, 13, NAN};
    for (int i = 0; i < 9; i++) {
        assert_int_equal(d->block[i], blk[i]);
        assert_true(fabs(col(d->line[i], 0) - depth[i]) < EPS);
        double dodged = col(d->line[i], 1);
        if (isnan(iops[i])) {
            assert_true(isnan(dodged) && isnan(col(d->line[i], 2)) && isnan(col(d->line[i], 3)));
        } else {
            assert_true(dodged > depth[i] * 0.95 && dodged < depth[i] * 1.05);
            assert_true(fabs(col(d->line[i], 2) - iops[i]) < 1e-3);
            assert_true(fabs(col(d->line[i], 3) - ici[i]) < 1e-3);
        }
    }
    /* v1 left of v2 at the same depth */
    assert_true(col(d->line[0], 1) < col(d->line[2], 1));
    gp = read_file(out, "iops-vs-iodepth.gp");
    assert_non_null(strstr(gp, "set logscale xy"));
    assert_non_null(strstr(gp, "set xtics (\"1\" 1, \"16\" 16)"));
    assert_non_null(strstr(gp, "set title \"sequential write\""));
    assert_non_null(strstr(gp, "set title \"random write\""));
    assert_non_null(strstr(gp, "index 4 using 2:3:4 with yerrorlines lt 2 title \"v2\""));
    assert_non_null(strstr(gp, "index 5 using 2:3:4 with yerrorlines lt 3 title \"v3\""));
    assert_non_null(strstr(gp, "index 0 using 2:3:4 with yerrorlines lt 1 notitle"));
    free(gp);

    /* the run sub-directory: named after it */
    read_dat(out, "run1.waterfall.dat", d);
    assert_int_equal(d->n, STAGE_COUNT);
    static const double start[STAGE_COUNT] = {0, 10, 30, 60, 100, 150, 150, 350, 355, 370};
    for (int i = 0; i < STAGE_COUNT; i++) {
        const char *l = d->line[i];
        assert_int_equal((int)col(l, 0), i);
        qstr(l, 0, s, sizeof s);
        assert_string_equal(s, stage_names[i]);
        assert_true(fabs(col(l, 2) - start[i]) < 1e-3 && fabs(col(l, 3) - stages[i]) < 1e-3);
        assert_true(fabs(col(l, 4) - start[i] - stages[i]) < 1e-3);
        assert_int_equal((int)col(l, 5), i != STAGE_LOCAL_COMMIT);
    }
    gp = read_file(out, "run1.waterfall.gp");
    assert_non_null(strstr(gp, "critical path 395.0 µs"));
    assert_non_null(strstr(gp, "fio clat mean 520.0 µs"));
    assert_non_null(strstr(gp, "Where a write's time goes: x, j1: randwrite, bs 4k, iodepth 1"));
    free(gp);

    /* latency CDF: fio's min, percentiles and max; then the two client ops of the historic dump */
    read_dat(out, "run1.latency-cdf.dat", d);
    assert_int_equal(d->n, 6);
    static const double us[] = {300, 500, 800, 900, 400, 500}, pct[] = {0, 50, 99, 100, 50, 100};
    for (int i = 0; i < 6; i++) {
        assert_int_equal(d->block[i], i < 4 ? 0 : 1);
        assert_true(fabs(col(d->line[i], 0) - us[i]) < 1e-3);
        assert_true(fabs(col(d->line[i], 1) - pct[i]) < 1e-3);
        assert_true(fabs(col(d->line[i], 2) - (100 - pct[i])) < 1e-3);
    }
    gp = read_file(out, "run1.latency-cdf.gp");
    assert_non_null(strstr(gp, "j1 write: fio clat percentiles (100 I/Os)"));
    assert_non_null(strstr(gp, "(a sample of 2)"));
    assert_null(strstr(gp, "set logscale x"));
    free(gp);
    free(d);

    /* a run directory on its own: figure names without a prefix, default output DIR/plots */
    char run[600];
    snprintf(run, sizeof run, "%s/run1", dir);
    o = (struct plot_opts){.dir = run, .formats = PLOT_PNG, .render = false};
    assert_int_equal(plot_dir(&o, &err), 0);
    snprintf(out, sizeof out, "%s/run1/plots", dir);
    assert_int_equal(count_entries(out), 4);
    assert_true(exists(out, "waterfall.gp") && exists(out, "latency-cdf.dat"));
    rm_tree(dir);
    free(dir);
}

static void test_bad_inputs(void **state)
{
    char dir[] = "/tmp/test_plot.XXXXXX";
    assert_non_null(mkdtemp(dir));
    char out[600];
    snprintf(out, sizeof out, "%s/figs", dir);
    struct plot_opts o = {.dir = dir, .out_dir = out, .render = false};
    struct sim_err err = {0};
    /* nothing to plot */
    assert_int_equal(plot_dir(&o, &err), -ENOENT);
    assert_non_null(strstr(err.msg, "nothing to plot"));
    assert_false(exists(dir, "figs"));
    /* a row without its latency: names the file and the row; no files */
    write_file(dir, "copyup.json", "[{\"variant\":\"a\",\"lat_mean_us\":{\"mean\":1,\"ci95\":0},"
                                   "\"lat_p99_us\":{\"mean\":1},\"iops\":{\"mean\":1,\"ci95\":0}},"
                                   " {\"variant\":\"b\",\"iops\":{\"mean\":1,\"ci95\":0}}]");
    assert_int_equal(plot_dir(&o, &err), -EINVAL);
    assert_non_null(strstr(err.msg, "copyup.json: [1].lat_mean_us: expected an object"));
    assert_false(exists(dir, "figs"));
    /* a workload that is not "<pattern> qd<N>" */
    unlink(strcat(strcpy(out, dir), "/copyup.json"));
    snprintf(out, sizeof out, "%s/figs", dir);
    write_file(dir, "clone-serialisation.json", "[" ROW("v", "seq16", 1, 0) "]");
    assert_int_equal(plot_dir(&o, &err), -EINVAL);
    assert_non_null(strstr(err.msg, "[0].workload: 'seq16' is not '<pattern> qd<iodepth>'"));
    assert_false(exists(dir, "figs"));
    /* an existing output directory stays, and keeps only what it had */
    assert_int_equal(mkdir(out, 0777), 0);
    write_file(out, "mine.txt", "x");
    assert_int_equal(plot_dir(&o, &err), -EINVAL);
    assert_int_equal(count_entries(out), 1);
    /* not a directory */
    o.dir = "/nonexistent/cephsim";
    assert_int_equal(plot_dir(&o, &err), -ENOENT);
    rm_tree(dir);
}

/*
 * iops-vs-iodepth: variants with the same IOPS at every point (within the
 * larger CI or 0.5 %) are one line named after all of them, in their order;
 * a variant equal at one depth only, or lacking a point, keeps its own line.
 */
static void test_equal_series_share_a_line(void **state)
{
    char *dir = strdup("/tmp/test_plot.XXXXXX");
    assert_non_null(mkdtemp(dir));
    /* plain = flattened (equal within the CI) = fixed (0.3 %, within 0.5 %); broken differs at qd16,
       partial lacks qd16 */
    write_file(dir, "clone-serialisation.json",
               "[" ROW("plain", "seq qd1", 1663, 2) "," ROW("plain", "seq qd16", 6426, 5) ","
               ROW("broken", "seq qd1", 1663, 2) "," ROW("broken", "seq qd16", 2346, 5) ","
               ROW("flattened", "seq qd1", 1664, 2) "," ROW("flattened", "seq qd16", 6430, 5) ","
               ROW("partial", "seq qd1", 1663, 2) ","
               ROW("fixed", "seq qd1", 1668, 0) "," ROW("fixed", "seq qd16", 6410, 0) "]");
    char out[600];
    snprintf(out, sizeof out, "%s/figs", dir);
    struct plot_opts o = {.dir = dir, .out_dir = out, .formats = PLOT_PNG, .render = false};
    struct sim_err err = {0};
    assert_int_equal(plot_dir(&o, &err), 0);
    char *gp = read_file(out, "iops-vs-iodepth.gp");
    assert_non_null(strstr(gp, "index 0 using 2:3:4 with yerrorlines lt 1 title \"plain\", \\\n"
                               "     keyentry with lines lc bgnd title \"  = flattened\", \\\n"
                               "     keyentry with lines lc bgnd title \"  = fixed\""));
    assert_non_null(strstr(gp, "index 1 using 2:3:4 with yerrorlines lt 2 title \"broken\""));
    assert_non_null(strstr(gp, "index 3 using 2:3:4 with yerrorlines lt 4 title \"partial\""));
    assert_null(strstr(gp, "index 2 using"));
    assert_null(strstr(gp, "index 4 using"));
    free(gp);
    /* the data keep every variant's block */
    struct dat *d = malloc(sizeof *d);
    read_dat(out, "iops-vs-iodepth.dat", d);
    assert_int_equal(d->n, 9);
    free(d);
    rm_tree(dir);
    free(dir);
}

/* sim.json from a build that named the stages differently: by position; a wrong count: an error. */
static void test_renamed_stages(void **state)
{
    char dir[] = "/tmp/test_plot.XXXXXX";
    assert_non_null(mkdtemp(dir));
    char sim[1024];
    int n = snprintf(sim, sizeof sim, "{\"summary\":{\"stages_us\":{");
    for (int i = 0; i < STAGE_COUNT; i++)
        n += snprintf(sim + n, sizeof sim - (size_t)n, "%s\"old %d\":%g", i ? "," : "", i, stages[i]);
    snprintf(sim + n, sizeof sim - (size_t)n, "}}}");
    write_file(dir, "sim.json", sim);
    char out[600];
    snprintf(out, sizeof out, "%s/figs", dir);
    struct plot_opts o = {.dir = dir, .out_dir = out, .render = false};
    struct sim_err err = {0};
    assert_int_equal(plot_dir(&o, &err), 0);
    assert_int_equal(count_entries(out), 2); /* no fio.json: the waterfall only */
    struct dat *d = malloc(sizeof *d);
    read_dat(out, "waterfall.dat", d);
    assert_int_equal(d->n, STAGE_COUNT);
    for (int i = 0; i < STAGE_COUNT; i++) {
        char want[16], got[64];
        snprintf(want, sizeof want, "old %d", i);
        qstr(d->line[i], 0, got, sizeof got);
        assert_string_equal(got, want);
        assert_int_equal((int)col(d->line[i], 5), i != STAGE_LOCAL_COMMIT);
    }
    free(d);
    char *gp = read_file(out, "waterfall.gp");
    assert_non_null(strstr(gp, "critical path 395.0 µs"));
    assert_null(strstr(gp, "fio clat mean")); /* sim.json has no lat_mean_us */
    free(gp);
    rm_tree(out);
    write_file(dir, "sim.json", "{\"summary\":{\"stages_us\":{\"a\":1,\"b\":2}}}");
    assert_int_equal(plot_dir(&o, &err), -EINVAL);
    assert_non_null(strstr(err.msg, "sim.json: summary.stages_us: expected the 10 stages of a write"));
    assert_false(exists(dir, "figs"));
    /* reads have no stage breakdown: nothing to plot from sim.json alone */
    write_file(dir, "sim.json", "{\"summary\":{\"direction\":\"read\",\"stages_us\":{\"a\":1}}}");
    assert_int_equal(plot_dir(&o, &err), -ENOENT);
    rm_tree(dir);
}

/* A fresh clone's run: every write a copy-up, whose stages the model does not time, so
   the waterfall is not drawn; that used to pass without a word. */
static void test_copyup_run_says_why_no_waterfall(void **state)
{
    char dir[] = "/tmp/test_plot.XXXXXX";
    assert_non_null(mkdtemp(dir));
    write_file(dir, "fio.json", fio_json);
    char sim[1024];
    int n = snprintf(sim, sizeof sim, "{\"scenario\":\"scenarios/lab.json\",\"summary\":{\"direction\":\"write\","
                                      "\"op_w\":0,\"op_rw\":27,\"stages_us\":{");
    for (int i = 0; i < STAGE_COUNT; i++)
        n += snprintf(sim + n, sizeof sim - (size_t)n, "%s\"%s\":0", i ? "," : "", stage_names[i]);
    snprintf(sim + n, sizeof sim - (size_t)n, "}}}");
    write_file(dir, "sim.json", sim);
    char out[600];
    snprintf(out, sizeof out, "%s/figs", dir);
    char *log = NULL;
    size_t log_len = 0;
    FILE *logf = open_memstream(&log, &log_len);
    assert_non_null(logf);
    struct plot_opts o = {.dir = dir, .out_dir = out, .render = false, .log = logf};
    struct sim_err err = {0};
    assert_int_equal(plot_dir(&o, &err), 0);
    fclose(logf);
    assert_false(exists(out, "waterfall.gp"));
    char want[300];
    snprintf(want, sizeof want, "\n  not drawn: waterfall of %s: every write was a copy-up (a fresh clone: op_rw 27, "
             "op_w 0), and only plain writes are timed per stage\n", dir);
    if (!strstr(log, want))
        fail_msg("log lacks the note:\n%s", log);
    free(log);
    /* a run that has its stages draws the waterfall and notes nothing */
    rm_tree(out);
    char run[600];
    snprintf(run, sizeof run, "%s/run1", dir);
    make_run_dir(run);
    log = NULL;
    logf = open_memstream(&log, &log_len);
    o.dir = run;
    assert_int_equal(plot_dir(&o, &err), 0);
    fclose(logf);
    assert_true(exists(out, "waterfall.gp"));
    assert_null(strstr(log, "not drawn"));
    free(log);
    rm_tree(dir);
}

static void test_usage(void **state)
{
    char buf[2048];
    char *a1[] = {"plot", NULL};
    assert_int_equal(with_stderr(buf, sizeof buf, cmd_plot, 1, a1), 2);
    char *a2[] = {"plot", "--format", "jpeg", "/tmp", NULL};
    assert_int_equal(with_stderr(buf, sizeof buf, cmd_plot, 4, a2), 2);
    assert_non_null(strstr(buf, "--format 'jpeg': expected png, svg or both"));
    char *a3[] = {"plot", "/tmp", "/var", NULL};
    assert_int_equal(with_stderr(buf, sizeof buf, cmd_plot, 3, a3), 2);
    char *a4[] = {"plot", "--bogus", "/tmp", NULL};
    assert_int_equal(with_stderr(buf, sizeof buf, cmd_plot, 3, a4), 2);
}

/* PATH without gnuplot, or with a gnuplot that fails or writes nothing: exit 1, no files. */
static void test_no_gnuplot(void **state)
{
    char *dir = make_study_dir();
    char out[600], bin[600], buf[4096];
    snprintf(out, sizeof out, "%s/figs", dir);
    snprintf(bin, sizeof bin, "%s/bin", dir);
    char *old = strdup(getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin");
    char *argv[] = {"plot", dir, "-o", out, "--format", "both", NULL};

    setenv("PATH", "/nonexistent", 1);
    assert_false(plot_have_gnuplot());
    assert_int_equal(with_stderr(buf, sizeof buf, cmd_plot, 6, argv), 1);
    assert_string_equal(buf, "cephsim plot: gnuplot not found; install gnuplot-nox (tools/setup.sh does)\n");
    assert_false(exists(dir, "figs"));

    /* --no-render needs no gnuplot */
    char *argv_n[] = {"plot", dir, "-o", out, "--no-render", NULL};
    assert_int_equal(with_stderr(buf, sizeof buf, cmd_plot, 5, argv_n), 0);
    assert_int_equal(count_entries(out), 10);
    rm_tree(out);

    /* a gnuplot that fails */
    assert_int_equal(mkdir(bin, 0777), 0);
    /* (it does not read its input either: no SIGPIPE may kill us) */
    write_file(bin, "gnuplot", "#!/bin/sh\necho 'gnuplot: broken' >&2\nexit 1\n");
    char gp[700];
    snprintf(gp, sizeof gp, "%s/gnuplot", bin);
    assert_int_equal(chmod(gp, 0755), 0);
    char path[1400];
    snprintf(path, sizeof path, "%s:/usr/bin:/bin", bin);
    setenv("PATH", path, 1);
    assert_true(plot_have_gnuplot());
    assert_int_equal(with_stderr(buf, sizeof buf, cmd_plot, 6, argv), 1);
    assert_non_null(strstr(buf, "gnuplot failed (status 1"));
    assert_false(exists(dir, "figs"));

    /* one that succeeds without writing anything */
    write_file(bin, "gnuplot", "#!/bin/sh\ncat >/dev/null\nexit 0\n");
    assert_int_equal(with_stderr(buf, sizeof buf, cmd_plot, 6, argv), 1);
    assert_non_null(strstr(buf, "gnuplot wrote no"));
    assert_false(exists(dir, "figs"));

    setenv("PATH", old, 1);
    free(old);
    rm_tree(dir);
    free(dir);
}

static void test_render(void **state)
{
    if (!plot_have_gnuplot())
        skip();
    char *dir = make_study_dir();
    char out[600];
    snprintf(out, sizeof out, "%s/figs", dir);
    char *argv[] = {"plot", dir, "-o", out, "--format", "both", NULL};
    char buf[4096];
    assert_int_equal(with_stderr(buf, sizeof buf, cmd_plot, 6, argv), 0);
    static const char *const figs[] = {"qd1-tunings", "iops-vs-iodepth", "copyup", "run1.latency-cdf",
                                       "run1.waterfall"};
    assert_int_equal(count_entries(out), 5 * 4);
    for (int i = 0; i < 5; i++) {
        char name[128];
        snprintf(name, sizeof name, "%s.png", figs[i]);
        char *png = read_file(out, name);
        assert_non_null(png);
        assert_memory_equal(png, "\x89PNG\r\n\x1a\n", 8);
        assert_memory_equal(png + 12, "IHDR", 4);
        free(png);
        snprintf(name, sizeof name, "%s.svg", figs[i]);
        char *svg = read_file(out, name);
        assert_non_null(svg);
        assert_non_null(strstr(svg, "<svg"));
        assert_non_null(strstr(svg, "</svg>"));
        free(svg);
    }
    /* the written script renders again on its own, in its directory */
    char cmd[1400];
    snprintf(cmd, sizeof cmd, "cd '%s' && rm copyup.png && gnuplot copyup.gp 2>/dev/null", out);
    assert_int_equal(system(cmd), 0);
    assert_true(exists(out, "copyup.png"));
    rm_tree(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_waterfall_layout), cmocka_unit_test(test_text_waterfall),
        cmocka_unit_test(test_study_files),      cmocka_unit_test(test_bad_inputs),
        cmocka_unit_test(test_renamed_stages),   cmocka_unit_test(test_equal_series_share_a_line),
        cmocka_unit_test(test_usage),            cmocka_unit_test(test_no_gnuplot),
        cmocka_unit_test(test_copyup_run_says_why_no_waterfall),
        cmocka_unit_test(test_render),
    };
    return cmocka_run_group_tests_name("plot", tests, NULL, NULL);
}
