/*
 * perfdump.h - the model's perf counters as `ceph daemon osd.N perf dump` JSON.
 */
#ifndef CEPHSIM_EXPLORER_IO_PERFDUMP_H
#define CEPHSIM_EXPLORER_IO_PERFDUMP_H

#include <cjson/cJSON.h>

#include "perfcounters.h"

/*
 * Build {"bluestore": {...}, "cephsim": {...}, "osd": {...}} as `perf dump`
 * prints it (sections sorted by name as Ceph does; a NULL argument leaves its
 * section out).  "cephsim" holds the model-only counters (rw_lock_waits,
 * requeues, kv_batches) so the Ceph sections stay pure.
 */
cJSON *perfdump_osd(const struct osd_perf *osd, const struct bluestore_perf *bs);

/* The same with the OSD's AsyncMessenger workers ("AsyncMessenger::Worker-N", n_workers of them;
   running_ns: each one's CPU since the reset). */
cJSON *perfdump_osd_msgr(const struct osd_perf *osd, const struct bluestore_perf *bs,
                         const struct msgr_worker_perf *w, const uint64_t *running_ns, uint32_t n_workers);

/*
 * A librbd client's `perf dump` as far as the model goes: "objecter" (the
 * counters of struct objecter_perf, in Objecter::init's order; the rest of
 * a real client's section, e.g. linger_*, poolop_*, map_*, is absent) and
 * "throttle-objecter_bytes", "throttle-objecter_ops".
 */
cJSON *perfdump_client(const struct objecter_perf *p);

/*
 * Add {"avgcount": n, "sum": s, "avgtime": s/n} under key, sum and avgtime
 * printed "%d.%09d" seconds like Ceph (avgtime = integer ns sum/n).  They are
 * cJSON_Raw items (exact text) whose valuedouble also holds the value.
 */
void perfdump_add_time(cJSON *section, const char *key, const struct lat_sum *l);

#endif
