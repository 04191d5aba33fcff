/* fuzz_crushdump.c - a `ceph osd crush dump` / `osd dump` / `pool ls detail`
   file: each of the three readers on it, then every PG of each pool it
   lists mapped through the map (what cluster.crush_map does). */
#include "crushdump.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_write("crush.json", data, size);
    struct sim_err err = {0};
    struct placement_map m;
    int rc_map = crushdump_load_crush(path, &m, &err);
    fuzz_check_err(rc_map, &err, "crushdump_load_crush");
    struct placement_pool *pools = NULL;
    size_t n = 0;
    int rc = crushdump_load_pools(path, &pools, &n, &err);
    fuzz_check_err(rc, &err, "crushdump_load_pools");
    struct placement_osds osds;
    int rc_osds = crushdump_load_osds(path, &osds, &err);
    fuzz_check_err(rc_osds, &err, "crushdump_load_osds");
    if (rc_osds == 0)
        placement_osds_fini(&osds);
    if (rc == 0)
        free(pools);
    if (rc_map == 0)
        placement_map_fini(&m);
    return 0;
}
