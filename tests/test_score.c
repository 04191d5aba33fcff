/*
 * test_score.c - cephsim score: the shipped corpus loads (every case's
 * scenario included), bad corpora are refused with the file and JSON path
 * named, errors / medians / bands on hand-computed inputs, and one ratio case
 * run end to end.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <ftw.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "testfs.h"
#include "scenario.h"
#include "score.h"

#define CORPUS "validation/published"

/* The shipped corpus: every case's scenario (and baseline) loads as `cephsim run` would. */
static void shipped_corpus_loads(void **state)
{
    struct score_corpus c;
    struct sim_err err = {0};
    assert_int_equal(score_load(&c, CORPUS, &err), 0);
    assert_true(c.n_cases >= 42);
    assert_true(c.n_unexpressed >= 8); /* 9 until ec.c made EC 6+2 expressible */
    for (int i = 0; i < c.n_cases; i++) {
        const struct score_case *k = &c.cases[i];
        const char *sets[SCORE_MAX_SETS];
        for (int s = 0; s < k->run.n_sets; s++)
            sets[s] = k->run.sets[s];
        struct scenario sc;
        if (scenario_load(&sc, k->run.scenario, NULL, NULL, sets, k->run.n_sets, &err) < 0)
            fail_msg("case %s: %s", k->id, err.msg);
        scenario_free(&sc);
        assert_true(k->published > 0);
        assert_true(k->source_url[0] != 0);
    }
    score_free(&c);
}

static const char *const good_scenario = "{\"cluster\": {\"hosts\": 3}}\n";

static void expect_load_error(const char *corpus_json, const char *want1, const char *want2)
{
    char dir[256];
    testfs_scratch(dir, sizeof dir, "score", "bad");
    mkdir(strcat(strcpy((char[300]){0}, dir), "/s"), 0777);
    testfs_put(dir, "s/a.json", good_scenario);
    testfs_put(dir, "s/costly.json", "{\"cluster\": {\"hosts\": 3}, \"cost\": {\"osd_do_op_us\": 5}}\n");
    testfs_put(dir, "corpus.json", corpus_json);
    struct score_corpus c;
    struct sim_err err = {0};
    assert_true(score_load(&c, dir, &err) < 0);
    if (!strstr(err.msg, want1) || (want2 && !strstr(err.msg, want2)))
        fail_msg("message '%s' lacks '%s' / '%s'", err.msg, want1, want2 ? want2 : "");
    assert_null(strchr(err.msg, '\n'));
    testfs_rm_tree(dir);
}

#define CATS "\"categories\": [{\"key\": \"w\", \"title\": \"W\", \"band_pct\": [-10, 10]}]"
#define SRC "\"source\": {\"title\": \"t\", \"url\": \"u\"}"

static void bad_corpora_are_refused(void **state)
{
    expect_load_error("{" CATS ", \"cases\": [{\"id\": \"a\", \"category\": \"w\", \"scenario\": \"s/a.json\", "
                      "\"metric\": \"iops\", \"published\": 1, \"data_quality\": \"x\", " SRC ", \"colour\": 1}]}",
                      "corpus.json", "cases[0].colour");
    expect_load_error("{" CATS ", \"cases\": [{\"id\": \"a\", \"category\": \"r\", \"scenario\": \"s/a.json\", "
                      "\"metric\": \"iops\", \"published\": 1, \"data_quality\": \"x\", " SRC "}]}",
                      "cases[0].category", "'r'");
    expect_load_error("{" CATS ", \"cases\": [{\"id\": \"a\", \"category\": \"w\", \"scenario\": \"s/a.json\", "
                      "\"metric\": \"bw\", \"published\": 1, \"data_quality\": \"x\", " SRC "}]}",
                      "cases[0].metric", NULL);
    /* one cost table: neither a --set nor the scenario may change stage costs */
    expect_load_error("{" CATS ", \"cases\": [{\"id\": \"a\", \"category\": \"w\", \"scenario\": \"s/a.json\", "
                      "\"set\": [\"cost.osd_do_op_us=5\"], \"metric\": \"iops\", \"published\": 1, "
                      "\"data_quality\": \"x\", " SRC "}]}",
                      "cases[0].set[0]", "stage costs");
    expect_load_error("{" CATS ", \"cases\": [{\"id\": \"a\", \"category\": \"w\", \"scenario\": \"s/costly.json\", "
                      "\"metric\": \"iops\", \"published\": 1, \"data_quality\": \"x\", " SRC "}]}",
                      "costly.json", "stage costs");
    expect_load_error("{\"categories\": [{\"key\": \"w\", \"title\": \"W\", \"band_pct\": [10, -10]}], \"cases\": []}",
                      "categories[0].band_pct", NULL);
    expect_load_error("{" CATS ", \"cases\": [{\"id\": \"a\", \"category\": \"w\", \"scenario\": \"s/missing.json\", "
                      "\"metric\": \"iops\", \"published\": 1, \"data_quality\": \"x\", " SRC "}]}",
                      "missing.json", NULL);
}

/* Errors, medians and bands against values computed by hand. */
static void judge_and_summary_by_hand(void **state)
{
    char dir[256];
    testfs_scratch(dir, sizeof dir, "score", "hand");
    mkdir(strcat(strcpy((char[300]){0}, dir), "/s"), 0777);
    testfs_put(dir, "s/a.json", good_scenario);
    testfs_put(dir, "corpus.json",
        "{\"categories\": [{\"key\": \"w\", \"title\": \"W\", \"band_pct\": [-25, 15]},"
        "                  {\"key\": \"r\", \"title\": \"R\", \"band_pct\": [-5, 5]}],"
        " \"cases\": ["
        "  {\"id\": \"a\", \"category\": \"w\", \"scenario\": \"s/a.json\", \"metric\": \"iops\", \"published\": 1000,"
        "   \"data_quality\": \"x\", " SRC "},"
        "  {\"id\": \"b\", \"category\": \"w\", \"scenario\": \"s/a.json\", \"metric\": \"iops\", \"published\": 2000,"
        "   \"data_quality\": \"x\", " SRC "},"
        "  {\"id\": \"c\", \"category\": \"w\", \"scenario\": \"s/a.json\", \"metric\": \"lat_mean_us\", \"published\": 500,"
        "   \"data_quality\": \"x\", " SRC "},"
        "  {\"id\": \"d\", \"category\": \"w\", \"scenario\": \"s/a.json\", \"metric\": \"iops\", \"published\": 10,"
        "   \"data_quality\": \"x\", " SRC "},"
        "  {\"id\": \"e\", \"category\": \"r\", \"scenario\": \"s/a.json\", \"metric\": \"iops\", \"published\": 4,"
        "   \"baseline\": {\"set\": [\"pool.size=2\"]}, \"data_quality\": \"x\", " SRC "}]}");
    struct score_corpus c;
    struct sim_err err = {0};
    if (score_load(&c, dir, &err) < 0)
        fail_msg("%s", err.msg);
    assert_true(c.cases[4].ratio);
    assert_string_equal(c.cases[4].baseline.sets[0], "pool.size=2");
    struct score_result r[5] = {{0}};
    score_judge(&c, 0, 1100, 5, &r[0]); /* +10 % */
    score_judge(&c, 1, 1400, 5, &r[1]); /* -30 %: below the -25 % edge */
    score_judge(&c, 2, 600, 5, &r[2]);  /* +20 %: above +15 % */
    /* case d did not run: it counts nowhere */
    score_judge(&c, 4, 4.1, 0.1, &r[4]); /* +2.5 % */
    assert_float_equal(r[0].error, 0.10, 1e-12);
    assert_float_equal(r[1].error, -0.30, 1e-12);
    assert_true(r[0].in_band);
    assert_false(r[1].in_band);
    assert_false(r[2].in_band);
    assert_true(r[4].in_band);
    struct score_summary s;
    score_summarise(&c, r, 0, &s);
    assert_int_equal(s.n, 3);
    assert_float_equal(s.median_abs_err, 0.20, 1e-12); /* |errors| 0.1, 0.2, 0.3 */
    assert_float_equal(s.max_abs_err, 0.30, 1e-12);
    assert_float_equal(s.min_err, -0.30, 1e-12);
    assert_float_equal(s.max_err, 0.20, 1e-12);
    assert_int_equal(s.out_of_band, 2);
    r[3] = r[0]; /* with d at +10 % too: |errors| 0.1, 0.1, 0.2, 0.3 -> median 0.15 */
    score_judge(&c, 3, 11, 0, &r[3]);
    score_summarise(&c, r, 0, &s);
    assert_float_equal(s.median_abs_err, 0.15, 1e-12);
    score_summarise(&c, r, 1, &s);
    assert_int_equal(s.n, 1);
    assert_int_equal(s.out_of_band, 0);
    /* the cases whose RocksDB background work fell behind by the summary's
       note threshold are listed after the table, the others not */
    r[0].bg_behind = 0.38;
    r[1].bg_behind = 0.049;
    r[2].bg_behind = -1;
    char *text = NULL;
    size_t len = 0;
    FILE *mf = open_memstream(&text, &len);
    score_print(mf, &c, r);
    fclose(mf);
    const char *list = strstr(text, "RocksDB's background work fell behind");
    assert_non_null(list);
    assert_non_null(strstr(list, "\n  a "));
    assert_non_null(strstr(list, " 38%\n"));
    assert_null(strstr(list, "\n  b "));
    free(text);
    score_free(&c);
    testfs_rm_tree(dir);
}

/* A ratio case end to end: holding /dev/cpu_dma_latency at 0 must speed a QD=1 write up. */
static void ratio_case_runs(void **state)
{
    struct score_corpus c;
    struct sim_err err = {0};
    assert_int_equal(score_load(&c, CORPUS, &err), 0);
    int i = score_find(&c, "intel-cstate-ratio");
    assert_true(i >= 0);
    /* 3 replications: ~350 I/Os each, so two could give the same ratio of counts (a zero CI) */
    const char *sets[] = {"sim.duration_s=0.3", "sim.warmup_s=0.05", "sim.replications=3"};
    struct score_result r;
    if (score_run_case(&c, i, sets, 3, &r, &err) < 0)
        fail_msg("%s", err.msg);
    assert_true(r.done);
    assert_true(r.predicted > 1.2);
    if (!(r.half > 0 && r.half < 0.2 * r.predicted))
        fail_msg("ratio %.3f +- %.3f", r.predicted, r.half);
    assert_float_equal(r.error, (r.predicted - c.cases[i].published) / c.cases[i].published, 1e-12);
    score_free(&c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(shipped_corpus_loads),
        cmocka_unit_test(bad_corpora_are_refused),
        cmocka_unit_test(judge_and_summary_by_hand),
        cmocka_unit_test(ratio_case_runs),
    };
    return cmocka_run_group_tests_name("score", tests, NULL, NULL);
}
