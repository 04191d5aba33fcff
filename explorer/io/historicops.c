/*
 * historicops.c - the OSD op tracker (models/ceph/optracker.h) as the admin
 * socket prints it: `dump_historic_ops` / `dump_historic_ops_by_duration`
 * (OpTracker::dump_historic_ops, TrackedOp::dump, OpHistory::dump_ops in
 * Pacific: key order, utime_t text, JSONFormatter's doubles).
 */
#include "historicops.h"

#include <inttypes.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

/* A double as Ceph's JSONFormatter prints it (precision max_digits10). */
static void add_ceph_float(cJSON *obj, const char *key, double v)
{
    char buf[40];
    snprintf(buf, sizeof buf, "%.17g", v);
    cJSON *it = cJSON_CreateRaw(buf);
    it->valuedouble = v; /* keep the value readable in memory too */
    cJSON_AddItemToObject(obj, key, it);
}

/* A utime_t difference as double: sec + nsec / 1e9 (signed). */
static double ns_to_s(int64_t d)
{
    return (double)(d / 1000000000) + (double)(d % 1000000000) / 1e9;
}

/* utime_t::localtime in UTC: "2026-11-30T14:21:43.409666+0000" (µs truncated). */
static void fmt_time(char *buf, size_t n, int64_t wall_epoch_ns, sim_time_t t)
{
    int64_t ns = wall_epoch_ns + (int64_t)t;
    int64_t sec = ns / 1000000000, rem = ns % 1000000000;
    if (rem < 0) {
        rem += 1000000000;
        sec--;
    }
    time_t tt = (time_t)sec;
    struct tm tm;
    gmtime_r(&tt, &tm);
    snprintf(buf, n, "%04d-%02d-%02dT%02d:%02d:%02d.%06d+0000", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
             tm.tm_hour, tm.tm_min, tm.tm_sec, (int)(rem / 1000));
}

cJSON *historicops_op(const struct optrack_op *op, sim_time_t now, int64_t wall_epoch_ns)
{
    char desc[2048], ts[48], name[64];
    cJSON *o = cJSON_CreateObject();
    sim_time_t init = optrack_initiated(op);
    cJSON_AddStringToObject(o, "description", optrack_describe(op, desc, sizeof desc));
    fmt_time(ts, sizeof ts, wall_epoch_ns, init);
    cJSON_AddStringToObject(o, "initiated_at", ts);
    add_ceph_float(o, "age", ns_to_s((int64_t)(now - init)));
    add_ceph_float(o, "duration", ns_to_s(optrack_duration_ns(op, now)));

    cJSON *td = cJSON_AddObjectToObject(o, "type_data");
    cJSON_AddStringToObject(td, "flag_point", optrack_flag_point(op));
    if (op->kind == OPTRACK_OSD_OP) { /* only client-sourced messages carry client_info */
        cJSON *ci = cJSON_AddObjectToObject(td, "client_info");
        snprintf(name, sizeof name, "client.%" PRIu32, op->client);
        cJSON_AddStringToObject(ci, "client", name);
        uint32_t nonce = op->client_nonce ? op->client_nonce : optrack_str_hash_rjenkins(name, strlen(name));
        snprintf(ts, sizeof ts, "127.0.0.1:0/%" PRIu32, nonce);
        cJSON_AddStringToObject(ci, "client_addr", ts);
        cJSON_AddNumberToObject(ci, "tid", (double)op->tid);
    }
    cJSON *evs = cJSON_AddArrayToObject(td, "events");
    for (uint32_t i = 0; i < op->n_events; i++) {
        cJSON *e = cJSON_CreateObject();
        struct optrack_event ev = optrack_event(op, i);
        cJSON_AddStringToObject(e, "event", ev.name);
        fmt_time(ts, sizeof ts, wall_epoch_ns, ev.t);
        cJSON_AddStringToObject(e, "time", ts);
        int64_t d = i + 1 < op->n_events ? (int64_t)(optrack_event_t(op, i + 1) - ev.t) : (int64_t)(ev.t - init);
        add_ceph_float(e, "duration", ns_to_s(d));
        cJSON_AddItemToArray(evs, e);
    }
    return o;
}

cJSON *historicops_dump(const struct optracker *t, sim_time_t now, int64_t wall_epoch_ns, int by_duration)
{
    cJSON *root = cJSON_CreateObject();
    cJSON_AddNumberToObject(root, "size", t->history_size);
    cJSON_AddNumberToObject(root, "duration", (double)t->history_duration / 1e9);
    cJSON *ops = cJSON_AddArrayToObject(root, "ops");
    const struct optrack_op **list;
    uint32_t n = optracker_history(t, now, by_duration, &list);
    for (uint32_t i = 0; i < n; i++)
        cJSON_AddItemToArray(ops, historicops_op(list[i], now, wall_epoch_ns));
    free(list);
    return root;
}
