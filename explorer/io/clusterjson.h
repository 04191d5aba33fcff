/*
 * clusterjson.h - a run's engine and utilisation figures (cluster_stats) as the
 * "engine" object of sim.json.
 */
#ifndef CEPHSIM_EXPLORER_IO_CLUSTERJSON_H
#define CEPHSIM_EXPLORER_IO_CLUSTERJSON_H

#include <cjson/cJSON.h>

#include "cluster.h"

/* {"events", "measured_s", "rw_lock_rule_effective", "hosts": [...], "osds": [...],
   "peak_ops_in_flight", "object_states", "client_object_states", "object_state_bytes",
   "images": [{name, id, clients, objects_touched}],
   "clients": [{client, image, lock_acquisitions, lock_releases, ...}]} of c as it stands now. */
cJSON *clusterjson_stats(const struct cluster *c);

#endif
