/*
 * names.h - suggestions for misspelt names in messages ("did you mean ...?").
 */
#ifndef CEPHSIM_SIM_NAMES_H
#define CEPHSIM_SIM_NAMES_H

/* The candidate nearest to name by edit distance, or NULL when none is near
   enough to be a likely typo (at most 2 edits, or a third of name's length). */
const char *names_did_you_mean(const char *name, const char *const *candidates, int n);

#endif
