/*
 * test_osd.c - the OSD model end to end (models/ceph/osd.c, bluestore.c, librbd.c,
 * cluster.c), on a small cluster built from an inline scenario (3 hosts x 2
 * OSDs, pg_num 32, a small image, tens of simulated milliseconds), checked
 * only through the public outputs: dump_historic_ops JSON (event order and
 * times), perf dump JSON, fio JSON, and runner output files.
 *
 *  - writes to ONE object: under RWWRITE their [started, commit_sent]
 *    intervals overlap (pipelining, ceph-model.md 1.6); under RWEXCL (clone
 *    [stat, write], 16.2.14) they never do and "waiting for rw locks" shows;
 *    at iodepth 32 the pre-fix clone re-parks ops (requeue storm, 1.3), the
 *    post-fix release never waits;
 *  - perf counter classes (log_op_stats): plain -> op_w, clone -> op_rw pre
 *    AND post fix, reads -> op_r; op = op_r + op_w + op_rw; replicas' subop_w
 *    = 2 x primary writes at size 3;
 *  - the primary's event order of a size-3 write (3.3), the replicas named in
 *    "waiting for subops from X,Y" are the OSDs that ran the repops, and the
 *    reply waits for the last of the three commits; size 1: no subops;
 *  - Little's law at the client at iodepth 1, 8, 64;
 *  - a fresh clone: the guarded write to a missing object fails (-ENOENT),
 *    librbd copies up ([call rbd.*copyup, write]), and the object never fails
 *    again; error writes are accounted as Ceph does (record_write_error);
 *  - determinism of the output files for a seed, and a different seed.
 * Run from the repository root (hardware profiles in ./hw-profiles).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cluster.h"
#include "fioout.h"
#include "jsonu.h"
#include "historicops.h"
#include "optracker.h"
#include "perfcounters.h"
#include "perfdump.h"
#include "runner.h"
#include "scenario.h"
#include "testcluster.h"

#define WALL_EPOCH_NS (1764460800LL * 1000000000LL)
#define CLONE_ID "104b745b84f5" /* scenario_to_spec's image id */

/* 3 hosts x 2 OSDs, size 3, 32 PGs, 64 MiB image, logging off, every op kept
   in the history, librbd's scheduler off (writes reach the OSD as issued). */
static const char base_json[] =
    "{\"description\": \"test_osd\","
    " \"cluster\": {\"hosts\": 3, \"osds_per_host\": 2, \"client_hosts\": 1, \"cpu\": \"epyc-7302p\","
    "   \"nvme\": \"pm983\", \"nic\": \"10gbase-t\", \"switch\": \"tor-cut-through\", \"max_cstate\": \"C1\","
    "   \"governor\": \"performance\"},"
    " \"pool\": {\"size\": 3, \"min_size\": 1, \"pg_num\": 32},"
    " \"image\": {\"kind\": \"plain\", \"size_gib\": 0.0625},"
    " \"ceph\": {\"release\": \"16.2.14\", \"rbd_io_scheduler\": \"none\", \"osd_op_history_size\": 1000000,"
    "   \"debug_osd\": 0, \"debug_ms\": 0, \"debug_bluestore\": 0, \"debug_rocksdb\": 0, \"debug_bdev\": 0},"
    " \"clients\": {\"jobs\": \"[w]\\nioengine=rbd\\nrw=randwrite\\nbs=4k\\niodepth=1\\ntime_based\\n\"},"
    " \"sim\": {\"duration_s\": 0.1, \"warmup_s\": 0, \"seed\": 1, \"replications\": 1}}";

/* ---- running a scenario ---- */

struct run {
    struct scenario sc;
    struct cluster *c;
};

static void run_start(struct run *r, const char *const *sets, int n_sets)
{
    struct sim_err err = {0};
    memset(r, 0, sizeof *r);
    int rc = scenario_load(&r->sc, NULL, base_json, "test_osd.json", sets, n_sets, &err);
    if (rc < 0)
        fail_msg("scenario: %s", err.msg);
    struct cluster_spec spec;
    if (scenario_to_spec(&r->sc, 0, &spec, &err) < 0)
        fail_msg("spec: %s", err.msg);
    r->c = cluster_create(&spec, &err);
    if (!r->c)
        fail_msg("cluster: %s", err.msg);
    cluster_run(r->c, NULL, NULL);
}

static void run_end(struct run *r)
{
    cluster_destroy(r->c);
    scenario_free(&r->sc);
}

/* Print a cJSON document and parse it back: the checks read the text output. */
static cJSON *reparse(cJSON *doc)
{
    char *text = cJSON_PrintUnformatted(doc);
    cJSON_Delete(doc);
    cJSON *j = cJSON_Parse(text);
    free(text);
    assert_non_null(j);
    return j;
}

static double num(const cJSON *obj, const char *key)
{
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!it)
        fail_msg("no key '%s'", key);
    return it->valuedouble;
}

/* ---- the historic ops, parsed back from dump_historic_ops ---- */

#define MAX_EV 1024 /* events per op in a dump: every one is kept, as in Ceph */

struct tev {
    const char *name; /* owned by the dump cJSON, which outlives the ops */
    int64_t t;        /* ns, simulated */
};

struct top {
    int osd;
    bool client_op;      /* osd_op(...) on the primary, else osd_repop(...) */
    uint64_t tid;
    char oid[80];        /* rbd_data.<image>.<objno> */
    char ops[256];       /* the op vector text, "stat,write 0~4096" */
    int n_ev;
    struct tev ev[MAX_EV];
};

struct tops {
    struct top *v;
    int n;
    cJSON *dumps[64];
    int n_dumps;
};

static void between(const char *s, const char *a, const char *b, char *out, size_t n)
{
    out[0] = '\0';
    const char *p = strstr(s, a);
    if (!p)
        return;
    p += strlen(a);
    const char *q = strstr(p, b);
    if (!q)
        return;
    size_t len = (size_t)(q - p) < n - 1 ? (size_t)(q - p) : n - 1;
    memcpy(out, p, len);
    out[len] = '\0';
}

static void tops_load(struct tops *ts, struct cluster *c)
{
    memset(ts, 0, sizeof *ts);
    int64_t now = (int64_t)sim_now(cluster_sim(c));
    int cap = 0;
    for (uint32_t o = 0; o < cluster_n_osds(c); o++) {
        cJSON *d = reparse(historicops_dump(cluster_optracker(c, o), (sim_time_t)now, WALL_EPOCH_NS, 0));
        ts->dumps[ts->n_dumps++] = d;
        const cJSON *op;
        cJSON_ArrayForEach(op, cJSON_GetObjectItemCaseSensitive(d, "ops")) {
            if (ts->n == cap) {
                cap = cap ? 2 * cap : 256;
                ts->v = realloc(ts->v, (size_t)cap * sizeof *ts->v);
            }
            struct top *t = &ts->v[ts->n++];
            memset(t, 0, sizeof *t);
            t->osd = (int)o;
            const char *desc = cJSON_GetObjectItemCaseSensitive(op, "description")->valuestring;
            t->client_op = strncmp(desc, "osd_op(", 7) == 0;
            char tid[32];
            between(desc, ".0:", " ", tid, sizeof tid);
            t->tid = strtoull(tid, NULL, 10);
            between(desc, ":::", ":head", t->oid, sizeof t->oid);
            between(desc, "[", "]", t->ops, sizeof t->ops);
            int64_t init = now - llround(num(op, "age") * 1e9), at = init;
            const cJSON *ev;
            cJSON_ArrayForEach(ev, cJSON_GetObjectItemCaseSensitive(
                                       cJSON_GetObjectItemCaseSensitive(op, "type_data"), "events")) {
                assert_true(t->n_ev < MAX_EV);
                t->ev[t->n_ev].name = cJSON_GetObjectItemCaseSensitive(ev, "event")->valuestring;
                t->ev[t->n_ev].t = at;
                at += llround(num(ev, "duration") * 1e9);
                t->n_ev++;
            }
        }
    }
}

static void tops_free(struct tops *ts)
{
    for (int i = 0; i < ts->n_dumps; i++)
        cJSON_Delete(ts->dumps[i]);
    free(ts->v);
}

/* Time of the first event named name (prefix match if prefix), or -1. */
static int64_t ev_time(const struct top *t, const char *name, bool prefix)
{
    for (int i = 0; i < t->n_ev; i++)
        if (prefix ? strncmp(t->ev[i].name, name, strlen(name)) == 0 : strcmp(t->ev[i].name, name) == 0)
            return t->ev[i].t;
    return -1;
}

static int ev_count(const struct top *t, const char *name)
{
    int n = 0;
    for (int i = 0; i < t->n_ev; i++)
        n += strcmp(t->ev[i].name, name) == 0;
    return n;
}

static int cmp_started(const void *a, const void *b)
{
    int64_t x = ev_time(a, "started", false), y = ev_time(b, "started", false);
    return (x > y) - (x < y);
}

static int cmp_initiated(const void *a, const void *b)
{
    const struct top *x = a, *y = b;
    return (x->ev[0].t > y->ev[0].t) - (x->ev[0].t < y->ev[0].t);
}

/* The primaries' client ops, sorted by initiated. */
static int client_ops(const struct tops *ts, struct top **out)
{
    int n = 0;
    *out = calloc((size_t)ts->n + 1, sizeof **out);
    for (int i = 0; i < ts->n; i++)
        if (ts->v[i].client_op)
            (*out)[n++] = ts->v[i];
    qsort(*out, (size_t)n, sizeof **out, cmp_initiated);
    return n;
}

/* ---- perf dump ---- */

struct perf_sum {
    double op, op_r, op_w, op_rw, subop_w, op_w_in_bytes, op_rw_in_bytes, lock_waits, requeues;
};

static void perf_load(struct cluster *c, struct perf_sum *p, bool check_each)
{
    memset(p, 0, sizeof *p);
    for (uint32_t o = 0; o < cluster_n_osds(c); o++) {
        cJSON *d = reparse(perfdump_osd(cluster_osd_perf(c, o), cluster_bluestore_perf(c, o)));
        const cJSON *osd = cJSON_GetObjectItemCaseSensitive(d, "osd");
        const cJSON *cs = cJSON_GetObjectItemCaseSensitive(d, "cephsim");
        double op = num(osd, "op"), r = num(osd, "op_r"), w = num(osd, "op_w"), rw = num(osd, "op_rw");
        if (check_each && op != r + w + rw)
            fail_msg("osd.%u: op %.0f != op_r %.0f + op_w %.0f + op_rw %.0f", o, op, r, w, rw);
        p->op += op;
        p->op_r += r;
        p->op_w += w;
        p->op_rw += rw;
        p->subop_w += num(osd, "subop_w");
        p->op_w_in_bytes += num(osd, "op_w_in_bytes");
        p->op_rw_in_bytes += num(osd, "op_rw_in_bytes");
        p->lock_waits += num(cs, "rw_lock_waits");
        p->requeues += num(cs, "requeues");
        cJSON_Delete(d);
    }
}

/* ---- fio JSON ---- */

static void fio_write_stats(struct cluster *c, double *iops, double *lat_mean_ns, double *ios)
{
    cJSON *j = reparse(fioout_json(cluster_job_results(c), (int)cluster_n_jobs(c), NULL));
    const cJSON *job = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(j, "jobs"), 0);
    const cJSON *w = cJSON_GetObjectItemCaseSensitive(job, "write");
    *iops = num(w, "iops");
    *lat_mean_ns = num(cJSON_GetObjectItemCaseSensitive(w, "lat_ns"), "mean");
    *ios = num(w, "total_ios");
    cJSON_Delete(j);
}

/* ---- two writes to one object ---- */

static const char *const one_object_sets[] = {"fio.rw=write", "fio.size=4m", "fio.iodepth=2"};

/* Pairs (i, i+1) of client ops, sorted by started, whose [started, commit_sent] overlap;
   and whether ANY two ops overlap. */
static void overlaps(struct top *v, int n, int *pairs, bool *any)
{
    qsort(v, (size_t)n, sizeof *v, cmp_started);
    *pairs = 0;
    *any = false;
    int64_t latest_end = -1;
    for (int i = 0; i < n; i++) {
        int64_t s = ev_time(&v[i], "started", false), e = ev_time(&v[i], "commit_sent", false);
        assert_true(s >= 0 && e >= s);
        if (latest_end > s)
            *any = true;
        if (i + 1 < n && ev_time(&v[i + 1], "started", false) < e)
            (*pairs)++;
        if (e > latest_end)
            latest_end = e;
    }
}

static void test_one_object_rwwrite_overlaps(void **state)
{
    /* plain image [write] and the post-fix clone [stat, write]: RWWRITE */
    const char *variants[][3] = {{"image.kind=plain", "ceph.release=16.2.14", "image.copied_up=1"},
                                 {"image.kind=clone", "ceph.release=16.2.15", "image.copied_up=1"}};
    for (int k = 0; k < 2; k++) {
        const char *sets[6] = {one_object_sets[0], one_object_sets[1], one_object_sets[2], variants[k][0],
                               variants[k][1], variants[k][2]};
        struct run r;
        run_start(&r, sets, 6);
        struct tops ts;
        tops_load(&ts, r.c);
        struct top *v;
        int n = client_ops(&ts, &v);
        assert_true(n >= 50);
        for (int i = 0; i < n; i++) {
            assert_string_equal(v[i].oid, "rbd_data." CLONE_ID ".0000000000000000");
            assert_int_equal(ev_count(&v[i], "waiting for rw locks"), 0);
            assert_non_null(strstr(v[i].ops, "write "));
            assert_true((strstr(v[i].ops, "stat") != NULL) == (k == 1));
        }
        int pairs;
        bool any;
        overlaps(v, n, &pairs, &any);
        /* iodepth 2 keeps two writes on the object: many neighbours overlap (a
           pair misses only when write i's reply leaves before write i+1 is
           started: about 1 in 2 with CRUSH's acting set for this object, 3 in 4
           with the earlier hash placement); under EXCL none does */
        if (!any || pairs < (n - 1) / 3)
            fail_msg("%s: only %d of %d neighbouring writes overlap under RWWRITE", variants[k][0], pairs, n - 1);
        struct perf_sum p;
        perf_load(r.c, &p, true);
        assert_true(p.lock_waits == 0 && p.requeues == 0);
        free(v);
        tops_free(&ts);
        run_end(&r);
    }
}

static void test_one_object_excl_serialises(void **state)
{
    const char *sets[] = {one_object_sets[0], one_object_sets[1], one_object_sets[2], "image.kind=clone",
                          "image.guard=assert_exists", "image.copied_up=1", "ceph.release=16.2.14"};
    struct run r;
    run_start(&r, sets, 7);
    struct tops ts;
    tops_load(&ts, r.c);
    struct top *v;
    int n = client_ops(&ts, &v);
    assert_true(n >= 50);
    int waits = 0;
    for (int i = 0; i < n; i++) {
        assert_non_null(strstr(v[i].ops, "stat"));
        waits += ev_count(&v[i], "waiting for rw locks");
        /* a lock wait comes between reached_pg and started, and is followed by another reached_pg */
        int64_t w = ev_time(&v[i], "waiting for rw locks", false);
        if (w >= 0) {
            assert_true(w >= ev_time(&v[i], "reached_pg", false));
            assert_true(w <= ev_time(&v[i], "started", false));
            assert_true(ev_count(&v[i], "reached_pg") == ev_count(&v[i], "waiting for rw locks") + 1);
            assert_true(ev_count(&v[i], "queued_for_pg") == 1); /* enqueue_front marks nothing */
        }
    }
    if (waits == 0)
        fail_msg("no 'waiting for rw locks' among %d clone writes to one object under RWEXCL", n);
    int pairs;
    bool any;
    overlaps(v, n, &pairs, &any);
    if (any)
        fail_msg("RWEXCL: %d neighbouring writes to one object overlap [started, commit_sent]", pairs);
    struct perf_sum p;
    perf_load(r.c, &p, true);
    assert_true(p.lock_waits >= waits);
    free(v);
    tops_free(&ts);
    run_end(&r);
}

/* Pre-fix clone at iodepth 32 on one object: each release requeues every
   waiter, all but one re-park (requeue storm), yet every I/O progresses in
   turn; post-fix: no waits at all. */
static void test_requeue_storm_pre_fix_only(void **state)
{
    for (int fixed = 0; fixed < 2; fixed++) {
        const char *sets[] = {"fio.rw=write", "fio.size=4m", "fio.iodepth=32", "image.kind=clone",
                              "image.copied_up=1", fixed ? "ceph.release=16.2.15" : "ceph.release=16.2.14",
                              "sim.duration_s=0.5", "sim.warmup_s=0.05"};
        const char *rel = fixed ? "16.2.15" : "16.2.14";
        struct run r;
        run_start(&r, sets, 8);
        /* serialised or not, all 32 I/Os stay in flight (Little's law at the
           client): a lock waiter must not starve while newer ops take the object */
        double iops, lat, ios;
        fio_write_stats(r.c, &iops, &lat, &ios);
        if (fabs(iops * lat * 1e-9 - 32) > 0.05 * 32)
            fail_msg("%s iodepth 32 on one object: IOPS %.0f x mean latency %.0f us = %.1f in flight, want 32 "
                     "(lock waiters starving?)", rel, iops, lat / 1e3, iops * lat * 1e-9);
        struct tops ts;
        tops_load(&ts, r.c);
        struct top *v;
        int n = client_ops(&ts, &v);
        assert_true(n >= 30);
        int waits = 0;
        for (int i = 0; i < n; i++)
            waits += ev_count(&v[i], "waiting for rw locks");
        struct perf_sum p;
        perf_load(r.c, &p, true);
        assert_true(p.op_rw > 0 && p.op_w == 0 && p.op_r == 0);
        if (fixed) {
            if (waits || p.lock_waits)
                fail_msg("16.2.15: %d lock-wait events (%.0f counted) for stat+write", waits, p.lock_waits);
        } else {
            if ((double)waits / n <= 1.0)
                fail_msg("16.2.14 iodepth 32: %.2f 'waiting for rw locks' per finished op, want > 1 "
                         "(requeue storm; %.0f waits counted for %.0f ops)", (double)waits / n, p.lock_waits,
                         p.op_rw);
            assert_true(p.lock_waits / p.op_rw > 1.0);
            assert_true(p.requeues >= p.lock_waits * 0.9);
        }
        /* every event is kept: however many waits, an op ends started ... commit_sent, done */
        int long_ops = 0;
        for (int i = 0; i < n; i++) {
            struct top *t = &v[i];
            assert_true(t->n_ev >= 2);
            assert_string_equal(t->ev[t->n_ev - 1].name, "done");
            assert_string_equal(t->ev[t->n_ev - 2].name, "commit_sent");
            assert_int_equal(ev_count(t, "started"), 1);
            assert_int_equal(ev_count(t, "op_commit"), 1);
            long_ops += t->n_ev > 32;
        }
        if (!fixed && long_ops == 0)
            fail_msg("16.2.14: no op with more than 32 events: the storm case this checks is gone");
        free(v);
        tops_free(&ts);
        run_end(&r);
    }
}

/* ---- perf counter classes ---- */

static void test_perf_counter_classes(void **state)
{
    struct {
        const char *what;
        const char *sets[4];
        int n_sets;
        char cls; /* 'w', 'x' (op_rw), 'r' */
    } cases[] = {
        {"plain randwrite", {"fio.iodepth=8"}, 1, 'w'},
        {"clone 16.2.14", {"fio.iodepth=8", "image.kind=clone", "image.copied_up=1"}, 3, 'x'},
        {"clone 16.2.15", {"fio.iodepth=8", "image.kind=clone", "image.copied_up=1", "ceph.release=16.2.15"}, 4, 'x'},
        {"plain randread", {"fio.iodepth=8", "fio.rw=randread"}, 2, 'r'},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        struct run r;
        run_start(&r, cases[k].sets, cases[k].n_sets);
        struct perf_sum p;
        perf_load(r.c, &p, true);
        double ios, iops, lat;
        if (cases[k].cls == 'r') {
            cJSON *j = reparse(fioout_json(cluster_job_results(r.c), (int)cluster_n_jobs(r.c), NULL));
            ios = num(cJSON_GetObjectItemCaseSensitive(
                          cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(j, "jobs"), 0), "read"),
                      "total_ios");
            cJSON_Delete(j);
        } else {
            fio_write_stats(r.c, &iops, &lat, &ios);
        }
        assert_true(ios > 100);
        double want_r = cases[k].cls == 'r' ? 1 : 0, want_w = cases[k].cls == 'w' ? 1 : 0,
               want_rw = cases[k].cls == 'x' ? 1 : 0;
        if ((p.op_r > 0) != want_r || (p.op_w > 0) != want_w || (p.op_rw > 0) != want_rw)
            fail_msg("%s: op_r %.0f op_w %.0f op_rw %.0f", cases[k].what, p.op_r, p.op_w, p.op_rw);
        /* every fio I/O is one OSD op (4 KiB never spans objects); at most
           iodepth more were counted by the OSD and not yet by fio */
        double total = p.op_r + p.op_w + p.op_rw;
        if (total < ios || total > ios + 8)
            fail_msg("%s: OSD ops %.0f vs fio ios %.0f", cases[k].what, total, ios);
        /* size 3: each primary write is two replica subop_w; with warm-up 0 the
           only slack is writes whose replicas committed before the end but whose
           reply was not sent yet (at most 2 x iodepth) */
        double writes = p.op_w + p.op_rw;
        if (p.subop_w < 2 * writes || p.subop_w > 2 * writes + 2 * 8)
            fail_msg("%s: subop_w %.0f, want 2 x %.0f primary writes", cases[k].what, p.subop_w, writes);
        if (cases[k].cls == 'w')
            assert_true(p.op_w_in_bytes == 4096 * p.op_w);
        run_end(&r);
    }
}

/* ---- event order of a replicated write ---- */

static bool is_commit(const char *e)
{
    return !strcmp(e, "op_commit") || !strcmp(e, "sub_op_commit_rec");
}

static void test_write_event_order_size3(void **state)
{
    struct run r;
    run_start(&r, NULL, 0);
    struct tops ts;
    tops_load(&ts, r.c);
    struct top *v;
    int n = client_ops(&ts, &v);
    assert_true(n >= 50);
    for (int i = 0; i < n; i++) {
        const struct top *t = &v[i];
        static const char *const head[] = {"initiated", NULL, NULL, NULL, NULL, "queued_for_pg", "reached_pg",
                                           "started"};
        assert_int_equal(t->n_ev, 14);
        for (int e = 0; e < 8; e++)
            if (head[e])
                assert_string_equal(t->ev[e].name, head[e]);
        /* the messenger stamps, in some order, between initiated and queued_for_pg */
        const char *msgr[] = {"header_read", "throttled", "all_read", "dispatched"};
        for (int m = 0; m < 4; m++) {
            bool found = false;
            for (int e = 1; e < 5; e++)
                found |= !strcmp(t->ev[e].name, msgr[m]);
            assert_true(found);
        }
        assert_int_equal(strncmp(t->ev[8].name, "waiting for subops from ", 24), 0);
        int local = 0, sub = 0;
        for (int e = 9; e < 12; e++) {
            assert_true(is_commit(t->ev[e].name));
            local += !strcmp(t->ev[e].name, "op_commit");
            sub += !strcmp(t->ev[e].name, "sub_op_commit_rec");
        }
        assert_int_equal(local, 1);
        assert_int_equal(sub, 2);
        assert_string_equal(t->ev[12].name, "commit_sent");
        assert_string_equal(t->ev[13].name, "done");
        for (int e = 1; e < t->n_ev; e++)
            assert_true(t->ev[e].t >= t->ev[e - 1].t);
        /* the replicas named are the OSDs that ran this write's repop, on other hosts */
        unsigned x, y;
        assert_int_equal(sscanf(t->ev[8].name, "waiting for subops from %u,%u", &x, &y), 2);
        assert_true(x != y && x != (unsigned)t->osd && y != (unsigned)t->osd);
        assert_true(x / 2 != y / 2 && x / 2 != (unsigned)t->osd / 2 && y / 2 != (unsigned)t->osd / 2);
        int reps = 0;
        int64_t last_rep_commit = -1;
        for (int j = 0; j < ts.n; j++) {
            const struct top *rp = &ts.v[j];
            if (rp->client_op || rp->tid != t->tid)
                continue;
            assert_true((unsigned)rp->osd == x || (unsigned)rp->osd == y);
            assert_string_equal(rp->oid, t->oid);
            reps++;
            int64_t cs = ev_time(rp, "commit_sent", false);
            assert_true(cs >= 0);
            /* the replica received the repop after the primary sent it */
            assert_true(rp->ev[0].t >= t->ev[8].t);
            if (cs > last_rep_commit)
                last_rep_commit = cs;
        }
        /* both repops finished before the primary replied (so both are in the history) */
        assert_int_equal(reps, 2);
        /* the primary hears the last replica after it committed, and replies after that */
        assert_true(t->ev[11].t >= last_rep_commit);
        assert_true(t->ev[12].t >= t->ev[9].t && t->ev[12].t >= t->ev[10].t && t->ev[12].t >= t->ev[11].t);
    }
    free(v);
    tops_free(&ts);
    run_end(&r);
}

/* Ceph prints the replicas as a std::set<pg_shard_t>: ascending ids
   (ReplicatedBackend::issue_op; every 16.2.15 capture in ../shared/data/lab). */
static void test_subops_event_lists_replicas_ascending(void **state)
{
    struct run r;
    run_start(&r, NULL, 0);
    struct tops ts;
    tops_load(&ts, r.c);
    struct top *v;
    int n = client_ops(&ts, &v);
    int bad = 0;
    const char *example = NULL;
    for (int i = 0; i < n; i++) {
        unsigned x, y;
        int64_t t = ev_time(&v[i], "waiting for subops from ", true);
        assert_true(t >= 0);
        for (int e = 0; e < v[i].n_ev; e++)
            if (sscanf(v[i].ev[e].name, "waiting for subops from %u,%u", &x, &y) == 2 && x > y) {
                bad++;
                example = v[i].ev[e].name;
            }
    }
    if (bad)
        fail_msg("%d of %d writes print replicas unsorted, e.g. '%s' (Ceph: ascending)", bad, n, example);
    free(v);
    tops_free(&ts);
    run_end(&r);
}

/* Size 1: no replicas, no "waiting for subops" (issue_op only marks it when
   acting_recovery_backfill has more than the primary), no repops, no subop_w. */
static void test_size1_no_subops(void **state)
{
    const char *sets[] = {"pool.size=1"};
    struct run r;
    run_start(&r, sets, 1);
    struct tops ts;
    tops_load(&ts, r.c);
    int n = 0;
    for (int i = 0; i < ts.n; i++) {
        const struct top *t = &ts.v[i];
        assert_true(t->client_op);
        n++;
        for (int e = 0; e < t->n_ev; e++)
            if (!strncmp(t->ev[e].name, "waiting for subops", 18))
                fail_msg("size 1: event '%s' on a write with no replica", t->ev[e].name);
        assert_int_equal(ev_count(t, "sub_op_commit_rec"), 0);
        assert_int_equal(ev_count(t, "op_commit"), 1);
        assert_true(ev_time(t, "commit_sent", false) >= ev_time(t, "op_commit", false));
    }
    assert_true(n >= 50);
    struct perf_sum p;
    perf_load(r.c, &p, true);
    assert_true(p.subop_w == 0 && p.op_w > 0);
    tops_free(&ts);
    run_end(&r);
}

/* ---- lossless connections: acks ---- */

static double ack_frames(struct cluster *c)
{
    double n = 0;
    for (uint32_t o = 0; o < cluster_n_osds(c); o++) {
        const struct msgr_worker_perf *w;
        uint32_t k = cluster_osd_msgr_workers(c, o, &w, NULL, 0);
        for (uint32_t i = 0; i < k; i++)
            n += (double)w[i].ack_frames;
    }
    return n;
}

/*
 * ProtocolV2 on the OSDs' lossless connections: every message read is acked,
 * by the next message written on the connection (ack_seq in its header) or,
 * when none is queued, by an AckFrame.  At QD=1 nothing else is ever queued
 * on an OSD-to-OSD connection when a repop or its reply arrives, so each
 * replica costs two AckFrames per write (its MOSDRepOp read on the replica,
 * the MOSDRepOpReply read on the primary): 2 (size - 1) per write, none at
 * size 1 (client connections are lossy).  At iodepth 128 more repops wait
 * on the connections and carry acks, so fewer frames per write.
 */
static void test_lossless_acks(void **state)
{
    for (int size = 1; size <= 3; size++) {
        char sz[32];
        snprintf(sz, sizeof sz, "pool.size=%d", size);
        const char *sets[] = {sz};
        struct run r;
        run_start(&r, sets, 1);
        struct perf_sum p;
        perf_load(r.c, &p, true);
        double acks = ack_frames(r.c), want = 2.0 * (size - 1) * p.op_w;
        assert_true(p.op_w >= 50);
        /* a write in flight at the end may have sent some of its acks */
        if (fabs(acks - want) > 2 * (size - 1))
            fail_msg("size %d at QD=1: %.0f AckFrames for %.0f writes, expected %.0f", size, acks, p.op_w, want);
        run_end(&r);
    }
    const char *deep[] = {"fio.iodepth=128"};
    struct run r;
    run_start(&r, deep, 1);
    struct perf_sum p;
    perf_load(r.c, &p, true);
    double per_write = ack_frames(r.c) / p.op_w;
    print_message("iodepth 128, size 3: %.2f AckFrames per write\n", per_write);
    if (!(per_write > 0.5 && per_write < 3.9))
        fail_msg("iodepth 128: %.2f AckFrames per write (expected some, fewer than 4)", per_write);
    run_end(&r);
}

/* ---- the OpTracker's history thread ---- */

struct history_use {
    double cpu_ns, wakeups, threads;
    double osd_ops; /* ops the OSDs finished: client ops and repops */
};

static struct history_use history_use(struct cluster *c)
{
    struct cluster_thread_stats t;
    thread_kind_stats(c, "ceph-osd", "OpHistorySvc", &t);
    struct history_use u = {.cpu_ns = t.cpu_ns, .wakeups = (double)t.wakeups, .threads = t.threads};
    struct perf_sum p;
    perf_load(c, &p, true);
    u.osd_ops = p.op_w + p.op_r + p.op_rw + p.subop_w;
    return u;
}

/*
 * OpHistoryServiceThread::entry polls: an empty look usleep()s sleep_time
 * (1 ms, x4 after each empty look while below 128 ms: 1, 4, 16, 64, 256, 256
 * ... ms, each + 50 us of timer slack), a look that finds ops resets it to
 * 1 ms, runs _insert_delayed on them and looks again at once.
 *  - Idle: 50 QD=1 writes (~40 ms), then fio thinks for 1 s.  From its last
 *    batch at L each thread looks at L + 1.05, 5.1, 21.15, 85.2, 341.25,
 *    597.3, 853.35 ms: in the window 0.2-0.8 s exactly two wake-ups per OSD
 *    for any L below 100 ms, and no CPU (an empty look costs nothing here).
 *  - Under load each OSD's thread wakes at most once per 1.05 ms (952 a
 *    second; fewer when completions come in bursts and a look finds none),
 *    and its CPU is osd_op_history_insert_us per op plus
 *    osd_op_history_write_us per write: every op writes here, 1.5 + 6 =
 *    7.5 us, 5 x the 1.5 us with the write's share set to 0 (same clock).
 *  - With osd_enable_op_tracker off the thread is not there.
 */
static void test_op_history_thread(void **state)
{
    const char *idle[] = {"fio.thinktime=1000000", "fio.thinktime_blocks=50", "sim.warmup_s=0.2",
                          "sim.duration_s=0.6"};
    struct run r;
    run_start(&r, idle, 4);
    struct history_use quiet = history_use(r.c);
    run_end(&r);
    if (quiet.threads != 6 || quiet.wakeups != 12 || quiet.cpu_ns != 0 || quiet.osd_ops != 0)
        fail_msg("an idle 0.2-0.8 s: %.0f OpHistorySvc threads woke %.0f times (expected 6 threads, 12 wake-ups), "
                 "%.0f ns of CPU, %.0f ops", quiet.threads, quiet.wakeups, quiet.cpu_ns, quiet.osd_ops);

    const char *base[] = {"fio.iodepth=32", "sim.duration_s=0.5", "cost.cpu_work_cv=0"};
    run_start(&r, base, 3);
    struct history_use on = history_use(r.c);
    run_end(&r);
    double per_osd_s = on.wakeups / 6 / 0.5;
    print_message("OpHistorySvc: %.0f wake-ups per OSD per second at %.0f ops per OSD per second, %.2f us of CPU "
                  "per op\n", per_osd_s, on.osd_ops / 6 / 0.5, on.cpu_ns / 1e3 / on.osd_ops);
    if (!(per_osd_s > 250 && per_osd_s <= 952.4))
        fail_msg("OpHistorySvc woke %.0f times per OSD per second under load, expected 250-952", per_osd_s);

    const char *no_write_share[] = {"fio.iodepth=32", "sim.duration_s=0.5", "cost.cpu_work_cv=0",
                                    "cost.osd_op_history_write_us=0"};
    run_start(&r, no_write_share, 4);
    struct history_use reads_cost = history_use(r.c);
    run_end(&r);
    double ratio = (on.cpu_ns / on.osd_ops) / (reads_cost.cpu_ns / reads_cost.osd_ops);
    if (fabs(ratio - 5.0) > 0.25)
        fail_msg("OpHistorySvc CPU per write op with the write's share over without: %.3f, expected 7.5 / 1.5 = 5",
                 ratio);

    const char *off[] = {"fio.iodepth=32", "sim.duration_s=0.5", "ceph.osd_enable_op_tracker=false"};
    run_start(&r, off, 3);
    struct history_use none = history_use(r.c);
    run_end(&r);
    assert_true(none.threads == 0 && none.cpu_ns == 0 && none.osd_ops > 0);
}

/* ---- Little's law ---- */

static void test_littles_law(void **state)
{
    const int depths[] = {1, 8, 64};
    for (int k = 0; k < 3; k++) {
        char qd[32];
        snprintf(qd, sizeof qd, "fio.iodepth=%d", depths[k]);
        const char *sets[] = {qd, "image.size_gib=1", "sim.duration_s=0.3", "sim.warmup_s=0.05",
                              "ceph.osd_op_history_size=20"};
        struct run r;
        run_start(&r, sets, 5);
        double iops, lat, ios;
        fio_write_stats(r.c, &iops, &lat, &ios);
        double l = iops * lat * 1e-9;
        if (fabs(l - depths[k]) > 0.03 * depths[k])
            fail_msg("iodepth %d: IOPS %.0f x mean latency %.1f us = %.3f in flight", depths[k], iops, lat / 1e3, l);
        run_end(&r);
    }
}

/*
 * Logging's CPU follows the debug levels, rocksdb's counting a quarter and
 * bdev's a third of a level: debug_bdev=3 costs what debug_osd=1 does (the
 * same write latency to the ns, no noise), and debug_bdev=1 or debug_rocksdb=2
 * a part of it (they counted nothing before: integer division).
 */
static void test_log_levels_fractional(void **state)
{
    static const char *const levels[] = {"ceph.debug_osd=0", "ceph.debug_osd=1", "ceph.debug_bdev=3",
                                         "ceph.debug_bdev=1", "ceph.debug_rocksdb=2"};
    double lat[5];
    for (int k = 0; k < 5; k++) {
        const char *sets[] = {levels[k], "cost.cpu_work_cv=0", "hw.nvme.latency_cv=0", "hw.nvme.tail_spike_prob=0",
                              "sim.duration_s=0.05", "ceph.osd_op_history_size=20"};
        struct run r;
        run_start(&r, sets, 6);
        double iops, ios;
        fio_write_stats(r.c, &iops, &lat[k], &ios);
        run_end(&r);
    }
    assert_true(lat[1] > lat[0] + 1000); /* a level adds microseconds over a write's stages */
    assert_true(fabs(lat[2] - lat[1]) < 1e-6 * lat[1]);
    for (int k = 3; k < 5; k++)
        if (!(lat[k] > lat[0] && lat[k] < lat[1]))
            fail_msg("%s: %.0f ns, not between no logging %.0f and one level %.0f", levels[k], lat[k], lat[0],
                     lat[1]);
}

/* ---- error writes on a fresh clone ---- */

/* Object number of an object name "rbd_data.<id>.<objno hex>". */
static bool obj_of_image(const char *oid, const char *image_id, uint64_t *objno)
{
    char prefix[64];
    snprintf(prefix, sizeof prefix, "rbd_data.%s.", image_id);
    if (strncmp(oid, prefix, strlen(prefix)))
        return false;
    *objno = strtoull(oid + strlen(prefix), NULL, 16);
    return true;
}

static bool is_copyup(const struct top *t)
{
    return strstr(t->ops, "call rbd.") && strstr(t->ops, "copyup");
}

static bool is_guarded(const struct top *t)
{
    return strncmp(t->ops, "stat,", 5) == 0 && strstr(t->ops, "write ");
}

/* The write extent "off~len" of an op vector. */
static void write_extent(const struct top *t, char *out, size_t n)
{
    const char *w = strstr(t->ops, "write ");
    snprintf(out, n, "%s", w ? w + 6 : "");
}

struct clone_story {
    int guarded, copyups, enoent, parent_reads, objects;
    int enoent_idx[64];      /* index in v of each ENOENT write */
};

/*
 * Read the story of every clone object from the primaries' history: a guarded
 * [stat, set-alloc-hint, write] to an object that does not exist fails; librbd
 * then reads the parent object and sends [call rbd.(sparse_)copyup, write]
 * with the same extent.  Without an object map, EVERY -ENOENT triggers a
 * copy-up, so the copy-ups count the failed writes.
 */
static void clone_story(struct top *v, int n, struct clone_story *cs)
{
    memset(cs, 0, sizeof *cs);
    for (int i = 0; i < n; i++) {
        uint64_t o;
        if (obj_of_image(v[i].oid, CLONE_ID, &o)) {
            if (is_guarded(&v[i]))
                cs->guarded++;
            if (!is_copyup(&v[i]))
                continue;
            cs->copyups++;
            assert_non_null(strstr(v[i].ops, "write "));
            /* the failed write: the latest earlier op on this object, guarded, same extent */
            int j = i - 1;
            while (j >= 0 && strcmp(v[j].oid, v[i].oid))
                j--;
            if (j < 0)
                fail_msg("copyup of %s with no write before it", v[i].oid);
            assert_true(is_guarded(&v[j]));
            char a[64], b[64];
            write_extent(&v[i], a, sizeof a);
            write_extent(&v[j], b, sizeof b);
            assert_string_equal(a, b);
            /* it was the first op to the object: nothing before it */
            for (int k = 0; k < j; k++)
                if (!strcmp(v[k].oid, v[i].oid))
                    fail_msg("%s: an op before the write that failed", v[i].oid);
            /* no other copy-up of this object: it never failed again */
            for (int k = i + 1; k < n; k++)
                if (!strcmp(v[k].oid, v[i].oid) && is_copyup(&v[k]))
                    fail_msg("%s copied up twice: a write failed after the first copy-up", v[i].oid);
            /* the parent object was read in between */
            bool parent_read = false;
            for (int k = j + 1; k < i; k++) {
                uint64_t po;
                if (!obj_of_image(v[k].oid, CLONE_ID, &po) && strstr(v[k].ops, "read 0~") &&
                    !strcmp(strrchr(v[k].oid, '.'), strrchr(v[i].oid, '.')))
                    parent_read = true;
            }
            assert_true(parent_read);
            assert_true(cs->enoent < 64);
            cs->enoent_idx[cs->enoent++] = j;
        } else if (strstr(v[i].ops, "read ")) {
            cs->parent_reads++;
        }
    }
    cs->objects = cs->copyups;
}

static const char *const fresh_clone_sets[] = {"image.kind=clone", "image.copied_up=0", "image.object_map=false",
                                               "image.size_gib=0.015625", "sim.duration_s=0.2"};

static void test_fresh_clone_enoent_then_copyup(void **state)
{
    struct run r;
    run_start(&r, fresh_clone_sets, 5);
    struct tops ts;
    tops_load(&ts, r.c);
    struct top *v;
    int n = client_ops(&ts, &v);
    struct clone_story cs;
    clone_story(v, n, &cs);
    /* 4 objects of 4 MiB, ~300 random 4 KiB writes: every object was copied up once */
    assert_int_equal(cs.copyups, 4);
    assert_int_equal(cs.enoent, 4);
    assert_int_equal(cs.parent_reads, 4);
    double iops, lat, ios;
    fio_write_stats(r.c, &iops, &lat, &ios);
    /* QD1: one guarded op per fio write (the last one may still be in flight) */
    if (cs.guarded < ios || cs.guarded > ios + 1)
        fail_msg("guarded ops %d vs fio writes %.0f", cs.guarded, ios);
    struct perf_sum p;
    perf_load(r.c, &p, true);
    assert_true(p.op_r == cs.parent_reads);
    free(v);
    tops_free(&ts);
    run_end(&r);
}

/*
 * What a copy-up carries (CopyupRequest::prepare_copyup_data, cls_rbd
 * sparse_copyup / copyup), seen as the primaries' op_rw_in_bytes (log_op_stats
 * counts the request's data): every op_rw here is a 4 KiB guarded write or a
 * copy-up of 4 KiB plus the parent data, so op_rw_in_bytes - 4096 x op_rw is
 * the parent data of all copy-ups.  By hand, per copy-up of a 4 MiB object:
 *  - 16.2.15, parent fully written: sparse, less the 4 KiB the write
 *    overwrites: 4 MiB - 4096;
 *  - 14.2.16 (no sparse_copyup before require_osd_release octopus): the
 *    whole object, 4 MiB;
 *  - parent never written: nothing (the class only creates the object);
 *  - parent written over its first half (16.2.15): 2 MiB less 4096 when the
 *    write falls in that half, 2 MiB when not: between the two.
 */
static void test_copyup_carries_parent_data(void **state)
{
    const struct {
        const char *release, *written;
        double lo, hi; /* parent bytes per copy-up */
    } cases[] = {
        {"ceph.release=16.2.15", "image.parent_written=1", 4194304 - 4096, 4194304 - 4096},
        {"ceph.release=14.2.16", "image.parent_written=1", 4194304, 4194304},
        {"ceph.release=16.2.15", "image.parent_written=0", 0, 0},
        {"ceph.release=16.2.15", "image.parent_written=0.5", 2097152 - 4096, 2097152},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *sets[7];
        for (int k = 0; k < 5; k++)
            sets[k] = fresh_clone_sets[k];
        sets[5] = cases[i].release;
        sets[6] = cases[i].written;
        struct run r;
        run_start(&r, sets, 7);
        struct tops ts;
        tops_load(&ts, r.c);
        struct top *v;
        int n = client_ops(&ts, &v);
        struct clone_story cs;
        clone_story(v, n, &cs);
        struct perf_sum p;
        perf_load(r.c, &p, true);
        assert_int_equal(cs.copyups, 4);
        double per = (p.op_rw_in_bytes - 4096 * p.op_rw) / cs.copyups;
        if (per < cases[i].lo - 0.5 || per > cases[i].hi + 0.5)
            fail_msg("%s %s: %.1f parent bytes per copy-up, want %.0f..%.0f", cases[i].release, cases[i].written,
                     per, cases[i].lo, cases[i].hi);
        free(v);
        tops_free(&ts);
        run_end(&r);
    }
}

/*
 * PrimaryLogPG::execute_ctx with update_log_only (a -ENOENT write) calls
 * record_write_error and returns before registering the on_commit callback
 * that runs log_op_stats and mark_commit_sent; record_write_error's
 * submit_log_entries sends MOSDPGUpdateLogMissing (no MOSDRepOp: no subop_w on
 * the replicas, no "waiting for subops" on the primary) and replies without
 * marking commit_sent.  So a failed write is not in op/op_rw, and the
 * replicas count subop_w only for the writes that succeeded.
 */
static void test_error_writes_accounted_as_ceph(void **state)
{
    struct run r;
    run_start(&r, fresh_clone_sets, 5);
    struct tops ts;
    tops_load(&ts, r.c);
    struct top *v;
    int n = client_ops(&ts, &v);
    struct clone_story cs;
    clone_story(v, n, &cs);
    assert_true(cs.enoent > 0);
    struct perf_sum p;
    perf_load(r.c, &p, true);
    int ok_writes = cs.guarded - cs.enoent + cs.copyups;
    char msg[512] = "";
    for (int e = 0; e < cs.enoent; e++) {
        const struct top *t = &v[cs.enoent_idx[e]];
        if (ev_time(t, "commit_sent", false) >= 0 || ev_time(t, "waiting for subops", true) >= 0) {
            snprintf(msg, sizeof msg, "a -ENOENT write has commit_sent/waiting for subops events; ");
            break;
        }
    }
    if (p.op_rw != ok_writes || p.subop_w < 2.0 * ok_writes || p.subop_w > 2.0 * ok_writes + 2)
        snprintf(msg + strlen(msg), sizeof msg - strlen(msg),
                 "op_rw %.0f / subop_w %.0f, want %d / 2 x %d (guarded %d - failed %d + copyups %d)", p.op_rw,
                 p.subop_w, ok_writes, ok_writes, cs.guarded, cs.enoent, cs.copyups);
    if (msg[0])
        fail_msg("record_write_error accounting: %s", msg);
    free(v);
    tops_free(&ts);
    run_end(&r);
}

/* ---- determinism ---- */

static bool same_file(const char *a, const char *b)
{
    size_t la = 0, lb = 0;
    char *x = NULL, *y = NULL;
    struct sim_err err = {0};
    bool same = jsonu_slurp(a, &x, &la, &err) == 0 && jsonu_slurp(b, &y, &lb, &err) == 0 && la == lb &&
                memcmp(x, y, la) == 0;
    free(x);
    free(y);
    return same;
}

/* The base scenario with sets, run through the runner (outputs in dir, if any). */
static struct run_summary run_base(const char *const *sets, int n_sets, const char *dir)
{
    struct scenario sc;
    struct sim_err err = {0};
    if (scenario_load(&sc, NULL, base_json, "test_osd.json", sets, n_sets, &err) < 0)
        fail_msg("%s", err.msg);
    struct run_summary sum;
    if (runner_run(&sc, dir, false, &sum, &err) < 0)
        fail_msg("runner: %s", err.msg);
    scenario_free(&sc);
    return sum;
}

static void run_to_dir(const char *dir, const char *seed)
{
    const char *sets[] = {"image.kind=clone", "image.copied_up=0.5", "fio.iodepth=8", "sim.duration_s=0.05",
                          "ceph.osd_op_history_size=50", seed};
    run_base(sets, 6, dir);
}

/*
 * The summary's read_cache_hit is the OSDs' bluestore_buffer_hit_bytes over
 * all bytes read: a 64 MiB image read through before (image.cached 1) in one
 * cache shard per OSD (~208 MiB) is held whole, so every read is found (1;
 * with the 32 shards of ~7 MiB the PGs holding 2-3 of its 16 objects
 * overflow theirs, as on the real lab cluster); the same reads cold, within fio's
 * first pass of the random map, never read a block twice (0); a run without
 * reads has none (-1, left out of sim.json).
 */
static void test_read_cache_summary(void **state)
{
    const struct {
        const char *rw, *cached;
        double want;
    } cases[] = {{"fio.rw=randread", "image.cached=1", 1}, {"fio.rw=randread", "image.cached=0", 0},
                 {"fio.rw=randwrite", "image.cached=1", -1}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *sets[] = {cases[i].rw, cases[i].cached, "ceph.osd_num_cache_shards=1", "fio.iodepth=8",
                              "sim.duration_s=0.05", "sim.replications=1"};
        struct run_summary sum = run_base(sets, 6, NULL);
        if (sum.read_cache_hit != cases[i].want)
            fail_msg("%s %s: read_cache_hit %.4f, expected %.0f", cases[i].rw, cases[i].cached, sum.read_cache_hit,
                     cases[i].want);
    }
}

static void rm_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    char p[600];
    while ((e = readdir(d)))
        if (e->d_name[0] != '.') {
            snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
            unlink(p);
        }
    closedir(d);
    rmdir(dir);
}

static void test_deterministic_outputs(void **state)
{
    char base[] = "/tmp/test_osd.XXXXXX";
    assert_non_null(mkdtemp(base));
    char a[300], b[300], c[300];
    snprintf(a, sizeof a, "%s/a", base);
    snprintf(b, sizeof b, "%s/b", base);
    snprintf(c, sizeof c, "%s/c", base);
    run_to_dir(a, "sim.seed=7");
    run_to_dir(b, "sim.seed=7");
    run_to_dir(c, "sim.seed=8");
    int compared = 0;
    char pa[600], pb[600];
    const char *files[] = {"fio.json", "osd.%u.perf.json", "osd.%u.historic_ops.json",
                           "osd.%u.historic_ops_by_duration.json"};
    for (int f = 0; f < 4; f++)
        for (unsigned o = 0; o < (f ? 6u : 1u); o++) {
            char name[64];
            snprintf(name, sizeof name, files[f], o);
            snprintf(pa, sizeof pa, "%s/%s", a, name);
            snprintf(pb, sizeof pb, "%s/%s", b, name);
            if (!same_file(pa, pb))
                fail_msg("%s differs between two runs of the same seed", name);
            compared++;
        }
    assert_int_equal(compared, 19);
    snprintf(pa, sizeof pa, "%s/fio.json", a);
    snprintf(pb, sizeof pb, "%s/fio.json", c);
    if (same_file(pa, pb))
        fail_msg("seeds 7 and 8 give the same fio.json");
    rm_dir(a);
    rm_dir(b);
    rm_dir(c);
    rmdir(base);
}

int main(void)
{
    struct stat st;
    if (stat("hw-profiles", &st) != 0) {
        fprintf(stderr, "test_osd: run from the repository root (needs ./hw-profiles)\n");
        return 1;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_one_object_rwwrite_overlaps),
        cmocka_unit_test(test_one_object_excl_serialises),
        cmocka_unit_test(test_requeue_storm_pre_fix_only),
        cmocka_unit_test(test_perf_counter_classes),
        cmocka_unit_test(test_write_event_order_size3),
        cmocka_unit_test(test_subops_event_lists_replicas_ascending),
        cmocka_unit_test(test_size1_no_subops),
        cmocka_unit_test(test_lossless_acks),
        cmocka_unit_test(test_littles_law),
        cmocka_unit_test(test_log_levels_fractional),
        cmocka_unit_test(test_fresh_clone_enoent_then_copyup),
        cmocka_unit_test(test_copyup_carries_parent_data),
        cmocka_unit_test(test_error_writes_accounted_as_ceph),
        cmocka_unit_test(test_deterministic_outputs),
        cmocka_unit_test(test_read_cache_summary),
        cmocka_unit_test(test_op_history_thread),
    };
    return cmocka_run_group_tests_name("osd", tests, NULL, NULL);
}
