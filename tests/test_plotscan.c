/*
 * test_plotscan.c - `cephsim plot DIR` on a shared directory: it draws DIR's
 * sub-directories that are cephsim's own runs (the sim.json a run writes, the
 * marker runner_check_output trusts), skips run-like directories of others (a
 * real capture's or someone's fio.json without it) and says both.  The run is made by the binary ($CEPHSIM_BIN or
 * out/bin/cephsim; skipped if absent); plot_dir is called in-process without
 * rendering (no gnuplot needed).  Scratch files go under out/.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "plot.h"

static void write_file(const char *dir, const char *name, const char *text)
{
    char p[400];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void plots_only_cephsim_runs(void **state)
{
    (void)state;
    const char *b = getenv("CEPHSIM_BIN");
    const char *bin = b && *b ? b : "out/bin/cephsim";
    if (access(bin, X_OK) != 0)
        skip();
    char dir[] = "out/test_plotscan.XXXXXX", cmd[1200], p[400];
    assert_non_null(mkdtemp(dir));
    snprintf(cmd, sizeof cmd, "'%s' run scenarios/lab.json --set sim.duration_s=0.05 --set sim.warmup_s=0.01 -q -o %s/mine",
             bin, dir);
    assert_int_equal(system(cmd), 0);
    /* two fio outputs of someone else's, side by side with it */
    snprintf(p, sizeof p, "%s/theirs", dir);
    assert_int_equal(mkdir(p, 0777), 0);
    write_file(p, "fio.json", "{\"fio version\": \"fio-3.33\", \"jobs\": []}");
    snprintf(p, sizeof p, "%s/other", dir);
    assert_int_equal(mkdir(p, 0777), 0);
    write_file(p, "fio.json", "{\"fio version\": \"fio-3.36\", \"jobs\": []}");
    char *log = NULL;
    size_t n = 0;
    FILE *lf = open_memstream(&log, &n);
    struct plot_opts o = {.dir = dir, .formats = PLOT_PNG, .render = false, .log = lf};
    struct sim_err err = {0};
    int rc = plot_dir(&o, &err);
    fclose(lf);
    if (rc < 0)
        fail_msg("%s", err.msg);
    if (!strstr(log, "mine.latency-cdf") || strstr(log, "theirs.") || strstr(log, "other."))
        fail_msg("%s", log);
    if (!strstr(log, "plotted: 1 sub-directory of") || !strstr(log, "a cephsim run (mine)") ||
        !strstr(log, "skipped 2 sub-directories with a fio.json but no sim.json (not cephsim runs): other, theirs"))
        fail_msg("%s", log);
    free(log);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(plots_only_cephsim_runs),
    };
    return cmocka_run_group_tests_name("plotscan", tests, NULL, NULL);
}
