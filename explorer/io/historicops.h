/*
 * historicops.h - op-tracker history as `dump_historic_ops` JSON.
 */
#ifndef CEPHSIM_EXPLORER_IO_HISTORICOPS_H
#define CEPHSIM_EXPLORER_IO_HISTORICOPS_H

#include <stdint.h>
#include <cjson/cJSON.h>

#include "optracker.h"

/*
 * Build the dump_historic_ops JSON ({"size", "duration", "ops": [...]}) as of
 * time now; wall_epoch_ns maps simulated time 0 to a wall-clock instant for
 * the "initiated_at"/"time" strings.  by_duration selects
 * dump_historic_ops_by_duration (slowest first).
 */
cJSON *historicops_dump(const struct optracker *t, sim_time_t now, int64_t wall_epoch_ns, int by_duration);

/* One op as TrackedOp::dump prints it (also usable for dump_ops_in_flight). */
cJSON *historicops_op(const struct optrack_op *op, sim_time_t now, int64_t wall_epoch_ns);

#endif
