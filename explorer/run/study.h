/*
 * study.h - the seed studies (../shared/seeds): variants of the shipped
 * scenarios run side by side and reported as tables, with 95 % confidence
 * intervals over replications.  `cephsim run` with no scenario runs them at a
 * size that finishes in well under a minute on 2 cores.
 *
 *  qd1:   scenarios/qd1-latency.json, the seed's tuned cluster, then each
 *         tuning removed, faster networks, a faster CPU, a Crimson-like OSD.
 *  clone: scenarios/clone-serialisation.json: plain / flattened / clone x
 *         guard designs x pre/post-fix releases at iodepth 1, 16, 128.
 *  copyup: first writes to a fresh clone (image.copied_up = 0) per guard design.
 */
#ifndef CEPHSIM_EXPLORER_STUDY_H
#define CEPHSIM_EXPLORER_STUDY_H

#include <stdbool.h>
#include <stdio.h>

#include "err.h"

/*
 * Run the studies named in which ("qd1", "clone", "copyup"; NULL = all) with
 * extra overrides sets; tables on f; a JSON summary per study and the
 * baseline's full outputs under out_dir (NULL: out/runs/default).
 */
int study_run(FILE *f, const char *which, const char *out_dir, const char *const *sets, int n_sets,
              bool progress, struct sim_err *err);

#endif
