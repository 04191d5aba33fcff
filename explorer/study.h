/*
 * study.h - the two seed studies (../shared/seeds): variants of the shipped
 * scenarios run side by side, reported as tables.  `cephsim run` with no
 * scenario runs them at a size that finishes in well under a minute.
 */
#ifndef CEPHSIM_EXPLORER_STUDY_H
#define CEPHSIM_EXPLORER_STUDY_H

#include <stdbool.h>
#include <stdio.h>

#include "err.h"

/* Run the default studies; tables on f; per-variant outputs under out_dir (may be NULL). */
int study_run_default(FILE *f, const char *out_dir, const char *const *sets, int n_sets, bool progress,
                      struct sim_err *err);

#endif
