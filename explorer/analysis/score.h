/*
 * score.h - the scored validation set: run one scenario per published case,
 * compare each prediction with the published figure, summarise per category
 * and check each case against its category's band (`cephsim score`).
 *
 * A corpus is a directory with corpus.json:
 *   {"description": "...",
 *    "categories": [{"key": "qd1_write", "title": "QD=1 write", "band_pct": [-30, 10]}, ...],
 *    "cases": [{"id": "...", "category": "qd1_write", "corpus_id": "<cases.json id>",
 *               "scenario": "scenarios/x.json", "set": ["path=value", ...],
 *               "metric": "iops" (reads + writes) | "lat_mean_us",
 *               "baseline": {"scenario": "...", "set": [...]},      (ratio cases only)
 *               "published": 400, "data_quality": "approximate_text",
 *               "source": {"title": "...", "url": "...", "section": "..."},
 *               "slow": false, "note": "..."}, ...],
 *    "not_expressible": [{"id": "...", "category": "...", "reason": "..."}, ...]}
 * A case with a baseline is a ratio: metric(scenario + set) / metric(baseline
 * scenario, default the same, + its set).  Error = (predicted - published) /
 * published.  One band per category (not per case): a case whose signed error
 * leaves [band_pct[0], band_pct[1]] % fails `--check`.  Scenario paths are
 * relative to the corpus directory.
 */
#ifndef CEPHSIM_EXPLORER_SCORE_H
#define CEPHSIM_EXPLORER_SCORE_H

#include <stdbool.h>
#include <stdio.h>

#include "err.h"
#include "stats.h"

#define SCORE_MAX_SETS 16
#define SCORE_STR 256
#define SCORE_PATH 1024

enum score_metric { SCORE_IOPS, SCORE_LAT_MEAN };

struct score_run_spec {
    char scenario[SCORE_PATH]; /* resolved against the corpus directory */
    int n_sets;
    char sets[SCORE_MAX_SETS][SCORE_STR];
};

struct score_case {
    char id[96];
    int category;               /* index into score_corpus.categories */
    char corpus_id[128];
    enum score_metric metric;
    struct score_run_spec run;
    bool ratio;
    struct score_run_spec baseline;
    double published;
    char data_quality[32];
    char source_title[SCORE_STR], source_url[SCORE_STR], source_section[SCORE_STR];
    bool slow;                  /* "slow": true: run only with --all or --only (too long for the test) */
};

struct score_category {
    char key[32];
    char title[64];
    double band_lo_pct, band_hi_pct;
};

struct score_unexpressed {
    char id[96];
    char category[32];
    char reason[512];
};

struct score_corpus {
    char dir[SCORE_PATH];
    int n_categories;
    struct score_category *categories;
    int n_cases;
    struct score_case *cases;
    int n_unexpressed;
    struct score_unexpressed *unexpressed;
};

struct score_result {
    bool done;
    double predicted, half;     /* mean and 95 % CI half-width over replications */
    double error;               /* (predicted - published) / published */
    bool in_band;
    double wall_s;
    double bg_behind;           /* the runs' largest rocksdb_bg_behind (run_summary); -1: none charged */
};

struct score_summary {
    int n;
    double median_abs_err, max_abs_err;
    double min_err, max_err;    /* signed extremes */
    int out_of_band;
};

/* Load dir/corpus.json; one-line errors name the file and the JSON path. */
int score_load(struct score_corpus *c, const char *dir, struct sim_err *err);
void score_free(struct score_corpus *c);

/* Index of case id, or -1. */
int score_find(const struct score_corpus *c, const char *id);

/* Run case i (its scenario, and its baseline for a ratio) with the extra
   --set overrides; fills r (error and band included). */
int score_run_case(const struct score_corpus *c, int i, const char *const *extra_sets, int n_extra,
                   struct score_result *r, struct sim_err *err);

/* Error of a prediction and whether it lies inside the case's category band. */
void score_judge(const struct score_corpus *c, int i, double predicted, double half, struct score_result *r);

/* Summary of category k over the cases that ran. */
void score_summarise(const struct score_corpus *c, const struct score_result *res, int k,
                     struct score_summary *out);

/* Print the per-case table, the per-category summary and the unexpressed cases. */
void score_print(FILE *f, const struct score_corpus *c, const struct score_result *res);

/* `cephsim score [DIR] [--check] [--all] [--only ID,...] [--set P=V]... [--json FILE] [-q]` */
int cmd_score(int argc, char **argv);

#endif
