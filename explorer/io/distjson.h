/*
 * distjson.h - distributions (sim/dist.h) from their JSON form.
 */
#ifndef CEPHSIM_EXPLORER_IO_DISTJSON_H
#define CEPHSIM_EXPLORER_IO_DISTJSON_H

#include <cjson/cJSON.h>

#include "dist.h"
#include "err.h"

/*
 * Parse {"dist": "lognormal", "mean": 50, "cv": 0.3} / {"dist":"const","value":5}
 * / {"dist":"exp","mean":..} / {"dist":"normal","mean":..,"sd":..}
 * / {"dist":"uniform","min":..,"max":..} / {"dist":"empirical","pct":[[50,40],[99,90]]}
 * or a bare number (constant).  Values are in the caller's unit.
 */
int distjson_parse(struct dist *d, const cJSON *j, const char *file, const char *path,
                   struct sim_err *err);

#endif
