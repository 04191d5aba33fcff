/*
 * clusterjson.c - sim.json's "engine" object from the model's run figures.
 */
#include "clusterjson.h"

#include <inttypes.h>
#include <stdio.h>

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
        cJSON_AddNumberToObject(e, "client_cpu_us", hs.client_cpu_ns / 1e3);
        cJSON_AddNumberToObject(e, "cpu_utilisation", hs.cpu_utilisation);
        cJSON_AddNumberToObject(e, "wakeups", (double)hs.wakeups);
        cJSON_AddNumberToObject(e, "mean_wake_us", hs.wakeups ? hs.wake_ns_total / (double)hs.wakeups / 1e3 : 0);
        struct cluster_thread_stats ts[CLUSTER_THREAD_KINDS_MAX];
        uint32_t nk = cluster_host_thread_stats(c, h, ts, CLUSTER_THREAD_KINDS_MAX);
        cJSON *threads = cJSON_AddArrayToObject(e, "threads");
        for (uint32_t k = 0; k < nk; k++) {
            cJSON *t = cJSON_CreateObject();
            cJSON_AddStringToObject(t, "process", ts[k].process);
            cJSON_AddStringToObject(t, "name", ts[k].name);
            cJSON_AddNumberToObject(t, "threads", ts[k].threads);
            cJSON_AddNumberToObject(t, "cpu_us", ts[k].cpu_ns / 1e3);
            jsonu_add_u64(t, "wakeups", ts[k].wakeups);
            cJSON_AddItemToArray(threads, t);
        }
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
    /* per-object state created on first touch: independent of the image size */
    jsonu_add_u64(j, "object_states", st.object_states);
    jsonu_add_u64(j, "client_object_states", st.client_object_states);
    jsonu_add_u64(j, "object_state_bytes", st.object_state_bytes);
    cJSON *images = cJSON_AddArrayToObject(j, "images");
    for (uint32_t i = 0; i < st.n_images; i++) {
        struct cluster_image_stats is;
        cluster_image_stats(c, i, &is);
        cJSON *e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "name", is.name);
        char id[32];
        snprintf(id, sizeof id, "%" PRIx64, is.id);
        cJSON_AddStringToObject(e, "id", id);
        cJSON_AddNumberToObject(e, "clients", is.openers);
        jsonu_add_u64(e, "objects_touched", is.objects_touched);
        cJSON_AddItemToArray(images, e);
    }
    /* librbd's exclusive lock per client, over the whole run (warm-up included) */
    cJSON *clients = cJSON_AddArrayToObject(j, "clients");
    for (uint32_t i = 0; i < st.n_clients; i++) {
        struct cluster_client_stats cs;
        cluster_client_stats(c, i, &cs);
        cJSON *e = cJSON_CreateObject();
        char name[32];
        snprintf(name, sizeof name, "client.%" PRIu32, cs.client);
        cJSON_AddStringToObject(e, "client", name);
        cJSON_AddNumberToObject(e, "image", cs.image);
        jsonu_add_u64(e, "lock_acquisitions", cs.lock_acquisitions);
        jsonu_add_u64(e, "lock_releases", cs.lock_releases);
        jsonu_add_u64(e, "lock_requests_sent", cs.lock_requests_sent);
        jsonu_add_u64(e, "lock_requests_received", cs.lock_requests_received);
        jsonu_add_u64(e, "lock_busy", cs.lock_busy);
        jsonu_add_u64(e, "notifies_sent", cs.notifies_sent);
        jsonu_add_u64(e, "notifies_received", cs.notifies_received);
        jsonu_add_u64(e, "writes_blocked", cs.writes_blocked);
        cJSON_AddNumberToObject(e, "lock_wait_mean_us",
                                cs.writes_blocked ? cs.lock_wait_ns / (double)cs.writes_blocked / 1e3 : 0);
        cJSON_AddItemToArray(clients, e);
    }
    return j;
}
