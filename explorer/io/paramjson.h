/*
 * paramjson.h - parameter tables (sim/param.h) bound from and written to JSON.
 */
#ifndef CEPHSIM_EXPLORER_IO_PARAMJSON_H
#define CEPHSIM_EXPLORER_IO_PARAMJSON_H

#include <cjson/cJSON.h>

#include "err.h"
#include "param.h"

/*
 * Bind a JSON object onto obj: each key must name a parameter (unknown keys are
 * errors with a did-you-mean), values are type- and range-checked.  Keys in
 * extra_keys (NULL-terminated, may be NULL) are allowed and skipped.
 */
int paramjson_bind(const struct param_def *defs, void *obj, const cJSON *json,
                    const char *const *extra_keys, const char *file, const char *path,
                    struct sim_err *err);

/* Bind one JSON value to one parameter. */
int paramjson_bind_value(const struct param_def *d, void *obj, const cJSON *v,
                     const char *file, const char *path, struct sim_err *err);

/* Add every parameter's current value to json (resolved parameters of a run).
   Doubles are cJSON numbers: printed, they read back to ~1e-15 relative. */
void paramjson_write(const struct param_def *defs, const void *obj, cJSON *json);

#endif
