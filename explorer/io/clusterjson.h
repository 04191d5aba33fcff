/*
 * clusterjson.h - a run's engine and utilisation figures (cluster_stats) as the
 * "engine" object of sim.json.
 */
#ifndef CEPHSIM_EXPLORER_IO_CLUSTERJSON_H
#define CEPHSIM_EXPLORER_IO_CLUSTERJSON_H

#include <cjson/cJSON.h>

#include "cluster.h"

/* {"events", "measured_s", "rw_lock_rule_effective", "hosts": [...], "osds": [...],
   "peak_ops_in_flight"} of c as it stands now. */
cJSON *clusterjson_stats(const struct cluster *c);

#endif
