/*
 * clusterjson.c - sim.json's "engine" object from the model's run figures.
 */
#include "clusterjson.h"

#include "jsonu.h"

cJSON *clusterjson_stats(const struct cluster *c)
{
    struct cluster_stats st;
    cluster_stats(c, &st);
    cJSON *j = cJSON_CreateObject();
    jsonu_add_u64(j, "events", st.events);
    cJSON_AddNumberToObject(j, "measured_s", (double)st.measured_ns / 1e9);
    cJSON_AddStringToObject(j, "rw_lock_rule_effective", st.rw_lock_rule);
    cJSON *hosts = cJSON_AddArrayToObject(j, "hosts");
    for (uint32_t h = 0; h < st.n_hosts; h++) {
        struct cluster_host_stats hs;
        cluster_host_stats(c, h, &hs);
        cJSON *e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "role", hs.osd_host ? "osd" : "client");
        cJSON_AddNumberToObject(e, "busy_cores", hs.busy_cores);
        cJSON_AddNumberToObject(e, "cpu_busy_us", hs.cpu_busy_ns / 1e3);
        cJSON_AddNumberToObject(e, "cpu_utilisation", hs.cpu_utilisation);
        cJSON_AddNumberToObject(e, "wakeups", (double)hs.wakeups);
        cJSON_AddNumberToObject(e, "mean_wake_us", hs.wakeups ? hs.wake_ns_total / (double)hs.wakeups / 1e3 : 0);
        cJSON_AddItemToArray(hosts, e);
    }
    cJSON *osds = cJSON_AddArrayToObject(j, "osds");
    for (uint32_t i = 0; i < st.n_osds; i++) {
        struct cluster_osd_stats os;
        cluster_osd_stats(c, i, &os);
        cJSON *e = cJSON_CreateObject();
        cJSON_AddNumberToObject(e, "id", i);
        cJSON_AddNumberToObject(e, "device_utilisation", os.device_utilisation);
        jsonu_add_u64(e, "device_writes", os.device_writes);
        jsonu_add_u64(e, "device_flushes", os.device_flushes);
        double batches = (double)os.kv_batches;
        cJSON_AddNumberToObject(e, "kv_batch_mean", batches ? (double)os.txcs / batches : 0);
        cJSON_AddItemToArray(osds, e);
    }
    cJSON_AddNumberToObject(j, "peak_ops_in_flight", (double)st.peak_ops_in_flight);
    return j;
}
