/*
 * test_optracker.c - OpTracker history and dump_historic_ops shape, checked
 * against a real Ceph 16.2.15 window dump (../shared/data/lab/...).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "historicops.h"
#include "optracker.h"

#define REAL_WINDOW "../shared/data/lab/noparent_randw-qd1_sched-simple_rt_r1/osd.0.historic_window.json.gz"
#define MS 1000000ull
#define US 1000ull

/* Read a gzip'd JSON capture through `gzip -dc`. */
static cJSON *load_gz(const char *path)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "gzip -dc '%s'", path);
    FILE *p = popen(cmd, "r");
    if (!p)
        return NULL;
    size_t cap = 1 << 20, len = 0;
    char *buf = malloc(cap);
    size_t r;
    while ((r = fread(buf + len, 1, cap - len - 1, p)) > 0) {
        len += r;
        if (cap - len < 2) {
            cap *= 2;
            buf = realloc(buf, cap);
        }
    }
    pclose(p);
    buf[len] = '\0';
    cJSON *j = cJSON_Parse(buf);
    free(buf);
    return j;
}

static cJSON *real_window_or_skip(void)
{
    if (access(REAL_WINDOW, R_OK) != 0)
        return NULL;
    return load_gz(REAL_WINDOW);
}

/* Our dump goes through text (raw numbers become numbers), as a consumer sees it. */
static cJSON *roundtrip(cJSON *j)
{
    char *s = cJSON_PrintUnformatted(j);
    cJSON *r = cJSON_Parse(s);
    free(s);
    cJSON_Delete(j);
    assert_non_null(r);
    return r;
}

/* Same keys in the same order with the same JSON types, recursively (arrays: first element). */
static void assert_same_shape(const cJSON *real, const cJSON *ours, const char *path)
{
    if ((real->type & 0xff) != (ours->type & 0xff)) {
        fail_msg("%s: type %d in the real dump, %d in ours", path, real->type & 0xff, ours->type & 0xff);
    }
    if (cJSON_IsObject(real)) {
        const cJSON *a = real->child, *b = ours->child;
        for (; a && b; a = a->next, b = b->next) {
            char p[256];
            snprintf(p, sizeof p, "%s.%s", path, a->string);
            if (strcmp(a->string, b->string) != 0)
                fail_msg("%s: real key '%s', ours '%s'", path, a->string, b->string);
            assert_same_shape(a, b, p);
        }
        if (a || b)
            fail_msg("%s: key sets differ (%s)", path, a ? a->string : b->string);
    } else if (cJSON_IsArray(real) && cJSON_GetArraySize(real) > 0) {
        assert_true(cJSON_GetArraySize(ours) > 0);
        char p[256];
        snprintf(p, sizeof p, "%s[0]", path);
        assert_same_shape(real->child, ours->child, p);
    }
}

static void set_events(struct optrack_op *op, const char *const *names, const sim_time_t *t, int n)
{
    op->n_events = op->n_inline = 0; /* forget the events (the op keeps any overflow array) */
    op->own_name = NULL;
    for (int i = 0; i < n; i++)
        optrack_mark(op, names[i], t[i]);
}

static const char *const primary_events[] = {
    "initiated", "throttled", "header_read", "all_read", "dispatched", "queued_for_pg", "reached_pg",
    "started", "waiting for subops from 1,2", "op_commit", "sub_op_commit_rec", "sub_op_commit_rec",
    "commit_sent", "done"};
static const char *const repop_events[] = {"initiated", "throttled", "header_read", "all_read", "dispatched",
                                           "queued_for_pg", "reached_pg", "started", "commit_sent", "done"};
static const char *const reply_events[] = {"initiated", "throttled", "header_read", "all_read", "dispatched",
                                           "queued_for_pg", "reached_pg", "started", "done"};

/* The ops of the real capture's first entries (client.4835 tid 5411/5412). */
static struct optrack_op real_write_op(void)
{
    struct optrack_op op = {.kind = OPTRACK_OSD_OP, .client = 4835, .tid = 5412, .pool = 2, .pg_seed = 0x1c,
                            .image_id = 0x104b745b84f5ull, .objno = 0x6a, .subops = OPTRACK_WRITE,
                            .off = 872448, .len = 4096, .epoch = 24};
    return op;
}

static struct optrack_op real_repop_op(void)
{
    struct optrack_op op = {.kind = OPTRACK_OSD_REPOP, .client = 4835, .tid = 5411, .pool = 2, .pg_seed = 0xd,
                            .image_id = 0x104b745b84f5ull, .objno = 0x19f, .subops = OPTRACK_WRITE,
                            .off = 0, .len = 4096, .epoch = 24, .min_epoch = 16, .version = 83543,
                            .mlcod = 83541};
    return op;
}

/* ---- hashing and descriptions ---- */

static void test_rjenkins_real_objects(void **state)
{
    (void)state;
    /* name -> bit-reversed hash printed in the real dump, and its PG with pg_num 32 */
    static const struct {
        const char *name;
        uint32_t printed, seed;
    } v[] = {
        {"rbd_data.104b745b84f5.000000000000019f", 0xb65cb8cf, 0xd},
        {"rbd_data.104b745b84f5.000000000000006a", 0x38a63e63, 0x1c},
        {"rbd_data.104b745b84f5.0000000000000059", 0x8167319b, 0x1},
        {"rbd_header.104b745b84f5", 0x076473e6, 0x0},
    };
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        uint32_t h = optrack_str_hash_rjenkins(v[i].name, strlen(v[i].name));
        uint32_t rev = 0;
        for (int b = 0; b < 32; b++)
            if (h >> b & 1)
                rev |= 1u << (31 - b);
        assert_int_equal(rev, v[i].printed);
        assert_int_equal(optrack_stable_mod(h, 32, 31), v[i].seed);
    }
    /* ceph_stable_mod for a non-power-of-two pg_num folds into the lower half */
    assert_int_equal(optrack_stable_mod(0x1e, 24, 31), 0xe);
    assert_int_equal(optrack_stable_mod(0x15, 24, 31), 0x15);
}

static void test_describe_vectors(void **state)
{
    (void)state;
    char buf[512];
    /* exact strings from the real 16.2.15 capture */
    struct optrack_op w = real_write_op();
    assert_string_equal(optrack_describe(&w, buf, sizeof buf),
                        "osd_op(client.4835.0:5412 2.1c 2:38a63e63:::rbd_data.104b745b84f5.000000000000006a:head "
                        "[write 872448~4096] snapc 0=[] ondisk+write+known_if_redirected e24)");
    struct optrack_op r = real_repop_op();
    assert_string_equal(optrack_describe(&r, buf, sizeof buf),
                        "osd_repop(client.4835.0:5411 2.d e24/16 "
                        "2:b65cb8cf:::rbd_data.104b745b84f5.000000000000019f:head v 24'83543, mlcod=24'83541)");
    struct optrack_op rr = {.kind = OPTRACK_OSD_REPOP_REPLY, .client = 4835, .tid = 5412, .pool = 2,
                            .pg_seed = 0x1c, .epoch = 24, .min_epoch = 16};
    assert_string_equal(optrack_describe(&rr, buf, sizeof buf),
                        "osd_repop_reply(client.4835.0:5412 2.1c e24/16 ondisk, result = 0)");

    /* forms derived from OSDOp printing after OSDOp::clear_data */
    const char *pre = "osd_op(client.4835.0:5412 2.1c 2:38a63e63:::rbd_data.104b745b84f5.000000000000006a:head ";
    static const struct {
        uint32_t subops;
        uint64_t off, len;
        const char *ops, *flags;
    } v[] = {
        {OPTRACK_STAT | OPTRACK_WRITE, 8192, 4096, "[stat,write 8192~4096]", "ondisk+write+known_if_redirected"},
        {OPTRACK_ALLOC_HINT | OPTRACK_WRITE, 0, 4096,
         "[set-alloc-hint object_size 4194304 write_size 4194304,write 0~4096]", "ondisk+write+known_if_redirected"},
        {OPTRACK_CALL_COPYUP | OPTRACK_ALLOC_HINT | OPTRACK_WRITE, 4096, 4096,
         "[call rbd.sparse_copyup in=16b,set-alloc-hint object_size 4194304 write_size 4194304,write 4096~4096]",
         "ondisk+write+known_if_redirected"},
        {OPTRACK_WRITEFULL, 0, 4194304, "[writefull 0~4194304]", "ondisk+write+known_if_redirected"},
        {OPTRACK_READ, 12288, 4096, "[read 12288~4096]", "ondisk+read+known_if_redirected"},
        {OPTRACK_CMPEXT | OPTRACK_WRITE, 0, 512, "[cmpext 0~512 in=512b,write 0~512]",
         "ondisk+write+known_if_redirected"},
        {0, 0, 0, "[]", "ondisk+read+known_if_redirected"},
    };
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        char want[512];
        w.subops = v[i].subops;
        w.off = v[i].off;
        w.len = v[i].len;
        snprintf(want, sizeof want, "%s%s snapc 0=[] %s e24)", pre, v[i].ops, v[i].flags);
        assert_string_equal(optrack_describe(&w, buf, sizeof buf), want);
    }
    /* defaults of the added fields: min_epoch = epoch, mlcod = version - 2 */
    r.min_epoch = 0;
    r.mlcod = 0;
    assert_non_null(strstr(optrack_describe(&r, buf, sizeof buf), " e24/24 "));
    assert_non_null(strstr(buf, "mlcod=24'83541)"));
    /* a small buffer truncates, NUL-terminated */
    char tiny[16];
    optrack_describe(&w, tiny, sizeof tiny);
    assert_int_equal(strlen(tiny), 15);
    assert_memory_equal(tiny, "osd_op(client.4", 15);
}

/* Every rbd_data op of the real window dump is reproduced byte for byte from its fields. */
static void test_describe_real_capture(void **state)
{
    (void)state;
    cJSON *real = real_window_or_skip();
    if (!real)
        skip();
    int n_op = 0, n_repop = 0, n_reply = 0;
    const cJSON *o;
    cJSON_ArrayForEach(o, cJSON_GetObjectItem(real, "ops"))
    {
        const char *d = cJSON_GetObjectItem(o, "description")->valuestring;
        struct optrack_op op = {0};
        uint64_t img, obj, tid, off, len, v, ml;
        unsigned client, pool, seed, ep, minep, vep, mlep, pool2, hash;
        int res, used = 0;
        if (sscanf(d, "osd_op(client.%u.0:%" SCNu64 " %u.%x %u:%x:::rbd_data.%" SCNx64 ".%" SCNx64
                      ":head [write %" SCNu64 "~%" SCNu64 "] snapc 0=[] ondisk+write+known_if_redirected e%u)%n",
                   &client, &tid, &pool, &seed, &pool2, &hash, &img, &obj, &off, &len, &ep, &used) == 11 &&
            used == (int)strlen(d)) {
            op = (struct optrack_op){.kind = OPTRACK_OSD_OP, .subops = OPTRACK_WRITE, .off = off, .len = len};
            n_op++;
        } else if (sscanf(d, "osd_repop(client.%u.0:%" SCNu64 " %u.%x e%u/%u %u:%x:::rbd_data.%" SCNx64 ".%" SCNx64
                             ":head v %u'%" SCNu64 ", mlcod=%u'%" SCNu64 ")%n",
                          &client, &tid, &pool, &seed, &ep, &minep, &pool2, &hash, &img, &obj, &vep, &v, &mlep, &ml,
                          &used) == 14 &&
                   used == (int)strlen(d)) {
            assert_int_equal(vep, ep);
            assert_int_equal(mlep, ep);
            op = (struct optrack_op){.kind = OPTRACK_OSD_REPOP, .min_epoch = minep, .version = v, .mlcod = ml};
            n_repop++;
        } else if (sscanf(d, "osd_repop_reply(client.%u.0:%" SCNu64 " %u.%x e%u/%u ondisk, result = %d)%n", &client,
                          &tid, &pool, &seed, &ep, &minep, &res, &used) == 7 &&
                   used == (int)strlen(d)) {
            op = (struct optrack_op){.kind = OPTRACK_OSD_REPOP_REPLY, .min_epoch = minep, .result = res};
            img = obj = 0;
            n_reply++;
        } else {
            continue; /* rbd_header / omap ops: not produced by the model */
        }
        op.client = client;
        op.tid = tid;
        op.pool = pool;
        op.pg_seed = seed;
        op.epoch = ep;
        op.image_id = img;
        op.objno = obj;
        char buf[512];
        optrack_describe(&op, buf, sizeof buf);
        assert_string_equal(buf, d);
    }
    assert_true(n_op > 100 && n_repop > 100 && n_reply > 100);
    cJSON_Delete(real);
}

/* ---- flag points and events ---- */

static void test_flag_points(void **state)
{
    (void)state;
    struct optrack_op op = real_write_op();
    sim_time_t t[14];
    for (int i = 0; i < 14; i++)
        t[i] = 1000 * (sim_time_t)i;
    assert_string_equal(optrack_flag_point(&op), "no flag points reached");
    set_events(&op, primary_events, t, 6);
    assert_string_equal(optrack_flag_point(&op), "queued for pg");
    set_events(&op, primary_events, t, 7);
    assert_string_equal(optrack_flag_point(&op), "reached pg");
    optrack_mark(&op, "waiting for rw locks", 7000);
    assert_string_equal(optrack_flag_point(&op), "delayed"); /* Pacific: "delayed" */
    optrack_mark(&op, "reached_pg", 8000);
    assert_string_equal(optrack_flag_point(&op), "reached pg");
    set_events(&op, primary_events, t, 9);
    assert_string_equal(optrack_flag_point(&op), "waiting for sub ops");
    set_events(&op, primary_events, t, 12);
    assert_string_equal(optrack_flag_point(&op), "waiting for sub ops"); /* op_commit/sub_op_commit_rec: no flag */
    set_events(&op, primary_events, t, 14);
    assert_string_equal(optrack_flag_point(&op), "commit sent; apply or cleanup");
    set_events(&op, reply_events, t, 9);
    assert_string_equal(optrack_flag_point(&op), "started");
}

/* Flag points of every real op follow from its event names alone. */
static void test_flag_points_real_capture(void **state)
{
    (void)state;
    cJSON *real = real_window_or_skip();
    if (!real)
        skip();
    const cJSON *o;
    int n = 0;
    cJSON_ArrayForEach(o, cJSON_GetObjectItem(real, "ops"))
    {
        const cJSON *td = cJSON_GetObjectItem(o, "type_data"), *e;
        struct optrack_op op = {0};
        cJSON_ArrayForEach(e, cJSON_GetObjectItem(td, "events"))
            optrack_mark(&op, cJSON_GetObjectItem(e, "event")->valuestring, 0);
        assert_string_equal(optrack_flag_point(&op), cJSON_GetObjectItem(td, "flag_point")->valuestring);
        n++;
    }
    assert_true(n > 500);
    cJSON_Delete(real);
}

static void test_event_durations(void **state)
{
    (void)state;
    /* wall 2026-11-30T14:21:43.409666123Z at sim time 0 */
    const int64_t wall = 1796048503409666123ll;
    struct optrack_op op = real_write_op();
    sim_time_t t[14] = {0,         0,         1 * US,    25 * US,   26 * US,   30 * US,   55 * US,
                        87 * US,   162 * US,  1821 * US, 1974 * US, 2022 * US, 2031 * US, 2046 * US + 5};
    set_events(&op, primary_events, t, 14);
    sim_time_t now = 999880 * US;
    cJSON *j = historicops_op(&op, now, wall);
    char *s = cJSON_PrintUnformatted(j);
    char want[64];
    snprintf(want, sizeof want, "\"duration\":%.17g,", 2046005 / 1e9);
    assert_non_null(strstr(s, want));
    free(s);
    cJSON_Delete(j);
    /* Ceph prints doubles with 17 significant digits: the real repop's 907871 ns */
    struct optrack_op r17 = real_repop_op();
    optrack_mark(&r17, "initiated", 5 * MS);
    optrack_mark(&r17, "done", 5 * MS + 907871);
    j = historicops_op(&r17, 10 * MS, wall);
    s = cJSON_PrintUnformatted(j);
    assert_non_null(strstr(s, "\"duration\":0.00090787099999999998,"));
    free(s);
    cJSON_Delete(j);
    j = roundtrip(historicops_op(&op, now, wall));
    assert_string_equal(cJSON_GetObjectItem(j, "initiated_at")->valuestring, "2026-11-30T14:21:43.409666+0000");
    assert_true(fabs(cJSON_GetObjectItem(j, "age")->valuedouble - 0.99988) < 1e-12);
    assert_true(fabs(cJSON_GetObjectItem(j, "duration")->valuedouble - 0.002046005) < 1e-12);
    const cJSON *td = cJSON_GetObjectItem(j, "type_data");
    assert_string_equal(cJSON_GetObjectItem(td, "flag_point")->valuestring, "commit sent; apply or cleanup");
    const cJSON *ci = cJSON_GetObjectItem(td, "client_info");
    assert_string_equal(cJSON_GetObjectItem(ci, "client")->valuestring, "client.4835");
    assert_int_equal((int)cJSON_GetObjectItem(ci, "tid")->valuedouble, 5412);
    assert_non_null(strstr(cJSON_GetObjectItem(ci, "client_addr")->valuestring, "127.0.0.1:0/"));
    const cJSON *evs = cJSON_GetObjectItem(td, "events");
    assert_int_equal(cJSON_GetArraySize(evs), 14);
    for (int i = 0; i < 14; i++) {
        const cJSON *e = cJSON_GetArrayItem(evs, i);
        assert_string_equal(cJSON_GetObjectItem(e, "event")->valuestring, primary_events[i]);
        double want_d = i < 13 ? (double)(t[i + 1] - t[i]) / 1e9 : (double)(t[13] - t[0]) / 1e9;
        assert_true(fabs(cJSON_GetObjectItem(e, "duration")->valuedouble - want_d) < 1e-15);
    }
    /* µs truncation of the 123 ns and of the last event's 5 ns */
    assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(evs, 2), "time")->valuestring,
                        "2026-11-30T14:21:43.409667+0000");
    assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(evs, 13), "time")->valuestring,
                        "2026-11-30T14:21:43.411712+0000");
    cJSON_Delete(j);

    /* an op still in flight (last event not "done") lasts until now */
    op.n_events = 9;
    j = roundtrip(historicops_op(&op, 10 * MS, wall));
    assert_true(fabs(cJSON_GetObjectItem(j, "duration")->valuedouble - 0.010) < 1e-12);
    cJSON_Delete(j);

    /* a repop has no client_info */
    struct optrack_op r = real_repop_op();
    set_events(&r, repop_events, t, 10);
    j = roundtrip(historicops_op(&r, now, wall));
    assert_null(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "type_data"), "client_info"));
    cJSON_Delete(j);
}

/* Real events (µs strings) give durations within 1 µs of the real ns-resolution ones. */
static void test_event_durations_real_capture(void **state)
{
    (void)state;
    cJSON *real = real_window_or_skip();
    if (!real)
        skip();
    const cJSON *o;
    int checked = 0;
    cJSON_ArrayForEach(o, cJSON_GetObjectItem(real, "ops"))
    {
        const cJSON *evs = cJSON_GetObjectItem(cJSON_GetObjectItem(o, "type_data"), "events"), *e;
        struct optrack_op op = {0};
        double real_d[256];
        cJSON_ArrayForEach(e, evs)
        {
            unsigned hh, mm, ss, us;
            const char *ts = cJSON_GetObjectItem(e, "time")->valuestring;
            assert_int_equal(sscanf(ts + 11, "%u:%u:%u.%u", &hh, &mm, &ss, &us), 4);
            assert_true(op.n_events < 256);
            real_d[op.n_events] = cJSON_GetObjectItem(e, "duration")->valuedouble;
            optrack_mark(&op, "x", ((sim_time_t)(hh * 3600 + mm * 60 + ss) * 1000000 + us) * US);
        }
        for (uint32_t i = 0; i + 1 < op.n_events; i++) {
            if (real_d[i] > 4e9) { /* utime_t underflow as printed by Ceph: out of order by < 1 µs */
                assert_true(optrack_event_t(&op, i + 1) <= optrack_event_t(&op, i) + US);
                continue;
            }
            assert_true(fabs(real_d[i] - (double)(optrack_event_t(&op, i + 1) - optrack_event_t(&op, i)) / 1e9) <=
                        1.001e-6);
            checked++;
        }
        uint32_t l = op.n_events - 1;
        assert_true(fabs(real_d[l] - (double)(optrack_event_t(&op, l) - optrack_initiated(&op)) / 1e9) <= 1.001e-6);
        assert_true(fabs(cJSON_GetObjectItem(o, "duration")->valuedouble - real_d[l]) < 1e-12);
        optrack_release(&op);
    }
    assert_true(checked > 1000);
    cJSON_Delete(real);
}

/* Our op dumps have the real dump's keys, order and JSON types at every level. */
static void test_dump_shape_real_capture(void **state)
{
    (void)state;
    cJSON *real = real_window_or_skip();
    if (!real)
        skip();
    const cJSON *real_op = NULL, *real_repop = NULL, *real_reply = NULL, *o;
    cJSON_ArrayForEach(o, cJSON_GetObjectItem(real, "ops"))
    {
        const char *d = cJSON_GetObjectItem(o, "description")->valuestring;
        if (!real_op && !strncmp(d, "osd_op(", 7))
            real_op = o;
        if (!real_repop && !strncmp(d, "osd_repop(", 10))
            real_repop = o;
        if (!real_reply && !strncmp(d, "osd_repop_reply(", 16))
            real_reply = o;
    }
    assert_non_null(real_op);
    assert_non_null(real_repop);
    assert_non_null(real_reply);

    struct optracker t;
    optracker_init(&t, 20000, 1000 * MS);
    sim_time_t tt[14];
    for (int i = 0; i < 14; i++)
        tt[i] = 10 * MS + (sim_time_t)i * 7 * US;
    struct optrack_op w = real_write_op(), r = real_repop_op(), rr = real_repop_op();
    rr.kind = OPTRACK_OSD_REPOP_REPLY;
    set_events(&w, primary_events, tt, 14);
    set_events(&r, repop_events, tt, 10);
    set_events(&rr, reply_events, tt, 9);
    optracker_finish(&t, &r);
    optracker_finish(&t, &rr);
    optracker_finish(&t, &w);
    cJSON *ours = roundtrip(historicops_dump(&t, 500 * MS, 1796048503000000000ll, 0));

    /* top level: {"size", "duration", "ops"} with the real types */
    const cJSON *a = real->child, *b = ours->child;
    for (; a && b; a = a->next, b = b->next) {
        assert_string_equal(a->string, b->string);
        assert_int_equal(a->type & 0xff, b->type & 0xff);
    }
    assert_null(a);
    assert_null(b);
    assert_int_equal((int)cJSON_GetObjectItem(ours, "size")->valuedouble, 20000);
    assert_int_equal((int)cJSON_GetObjectItem(ours, "duration")->valuedouble, 1);

    const cJSON *ops = cJSON_GetObjectItem(ours, "ops");
    assert_int_equal(cJSON_GetArraySize(ops), 3);
    /* same initiated time: arrival order is insertion order */
    assert_same_shape(real_repop, cJSON_GetArrayItem(ops, 0), "repop");
    assert_same_shape(real_reply, cJSON_GetArrayItem(ops, 1), "repop_reply");
    assert_same_shape(real_op, cJSON_GetArrayItem(ops, 2), "osd_op");
    cJSON_Delete(ours);
    optracker_fini(&t);
    cJSON_Delete(real);
}

/* ---- the history set ---- */

static struct optrack_op timed_op(uint64_t tid, sim_time_t start, sim_time_t dur)
{
    struct optrack_op op = real_write_op();
    op.tid = tid;
    optrack_mark(&op, "initiated", start);
    optrack_mark(&op, "started", start + dur / 2);
    optrack_mark(&op, "done", start + dur);
    return op;
}

static void dumped_tids(const cJSON *dump, uint64_t *tids, int *n)
{
    const cJSON *o;
    *n = 0;
    cJSON_ArrayForEach(o, cJSON_GetObjectItem(dump, "ops"))
    {
        const cJSON *ci = cJSON_GetObjectItem(cJSON_GetObjectItem(o, "type_data"), "client_info");
        tids[(*n)++] = (uint64_t)cJSON_GetObjectItem(ci, "tid")->valuedouble;
    }
}

static void test_history_size_keeps_slowest(void **state)
{
    (void)state;
    struct optracker t;
    optracker_init(&t, 3, 600000 * MS);
    /* tid i starts at 10*i ms and lasts dur[i] ms (finishing in start order) */
    static const sim_time_t dur[6] = {5, 1, 4, 2, 6, 3};
    for (int i = 0; i < 6; i++) {
        struct optrack_op op = timed_op((uint64_t)i, (sim_time_t)i * 10 * MS, dur[i] * MS);
        optracker_finish(&t, &op);
    }
    assert_int_equal(t.completed, 6);
    uint64_t tids[8];
    int n;
    cJSON *d = roundtrip(historicops_dump(&t, 100 * MS, 0, 0));
    dumped_tids(d, tids, &n);
    assert_int_equal(n, 3); /* the 3 slowest (6, 5, 4 ms), listed by initiated time */
    assert_int_equal(tids[0], 0);
    assert_int_equal(tids[1], 2);
    assert_int_equal(tids[2], 4);
    cJSON_Delete(d);
    d = roundtrip(historicops_dump(&t, 100 * MS, 0, 1));
    dumped_tids(d, tids, &n);
    assert_int_equal(n, 3); /* the same set, slowest first */
    assert_int_equal(tids[0], 4);
    assert_int_equal(tids[1], 0);
    assert_int_equal(tids[2], 2);
    double prev = 1e9;
    const cJSON *o;
    cJSON_ArrayForEach(o, cJSON_GetObjectItem(d, "ops"))
    {
        double du = cJSON_GetObjectItem(o, "duration")->valuedouble;
        assert_true(du <= prev);
        prev = du;
    }
    cJSON_Delete(d);

    optracker_reset(&t);
    d = historicops_dump(&t, 100 * MS, 0, 0);
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(d, "ops")), 0);
    cJSON_Delete(d);
    optracker_fini(&t);
}

static void test_history_duration(void **state)
{
    (void)state;
    struct optracker t;
    optracker_init(&t, 2, 1000 * MS);
    /* a long op first; at the next insert (2 s later) it is too old and leaves,
       so it cannot push out the young short ops */
    struct optrack_op a = timed_op(1, 0, 500 * MS);
    optracker_finish(&t, &a);
    struct optrack_op b = timed_op(2, 2000 * MS, 1 * MS), c = timed_op(3, 2100 * MS, 2 * MS);
    optracker_finish(&t, &b);
    optracker_finish(&t, &c);
    uint64_t tids[8];
    int n;
    cJSON *d = historicops_dump(&t, 2200 * MS, 0, 0);
    dumped_tids(d, tids, &n);
    assert_int_equal(n, 2);
    assert_int_equal(tids[0], 2);
    assert_int_equal(tids[1], 3);
    cJSON_Delete(d);
    /* at dump time, ops initiated more than 1 s before now are left out (age <= duration kept) */
    d = historicops_dump(&t, 3000 * MS, 0, 0);
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(d, "ops")), 2);
    cJSON_Delete(d);
    d = historicops_dump(&t, 3000 * MS + 1, 0, 0);
    dumped_tids(d, tids, &n);
    assert_int_equal(n, 1);
    assert_int_equal(tids[0], 3);
    cJSON_Delete(d);
    d = historicops_dump(&t, 3100 * MS, 0, 1);
    dumped_tids(d, tids, &n);
    assert_int_equal(n, 1);
    cJSON_Delete(d);
    d = historicops_dump(&t, 3100 * MS + 1, 0, 0);
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(d, "ops")), 0);
    cJSON_Delete(d);
    optracker_fini(&t);
}

/* A larger random run against a brute-force model of OpHistory; durations
   are multiples of grain (a coarse grain makes equal durations common: the
   older op of a tie is the one the size cut drops). */
static void history_vs_reference(sim_time_t grain)
{
    enum { N = 3000, SIZE = 50 };
    struct optracker t;
    optracker_init(&t, SIZE, 20 * MS);
    static struct optrack_op all[N];
    static int alive[N];
    uint64_t x = 12345;
    sim_time_t now = 0;
    for (int i = 0; i < N; i++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        sim_time_t dur = ((x >> 33) % (5 * MS / grain) + 1) * grain;
        now += (x >> 20) % (100 * US);
        all[i] = timed_op((uint64_t)i, now > dur ? now - dur : 0, now > dur ? dur : now);
        optracker_finish(&t, &all[i]);
        /* reference cleanup(now) */
        alive[i] = 1;
        for (;;) {
            int oldest = -1;
            for (int k = 0; k <= i; k++)
                if (alive[k] && (oldest < 0 || all[k].t0 < all[oldest].t0))
                    oldest = k;
            if (oldest >= 0 && now > all[oldest].t0 && now - all[oldest].t0 > 20 * MS)
                alive[oldest] = 0;
            else
                break;
        }
        for (;;) {
            int cnt = 0, shortest = -1;
            for (int k = 0; k <= i; k++) {
                if (!alive[k])
                    continue;
                cnt++;
                sim_time_t dk = optrack_event_t(&all[k], 2) - all[k].t0;
                if (shortest < 0 || dk < optrack_event_t(&all[shortest], 2) - all[shortest].t0)
                    shortest = k;
            }
            if (cnt <= SIZE)
                break;
            alive[shortest] = 0;
        }
    }
    uint64_t *tids = calloc(SIZE + 1, sizeof *tids);
    int n, want = 0;
    cJSON *d = historicops_dump(&t, now, 0, 1);
    dumped_tids(d, tids, &n);
    for (int k = 0; k < N; k++)
        want += alive[k] && now - all[k].t0 <= 20 * MS;
    assert_int_equal(n, want);
    for (int i = 0; i < n; i++)
        assert_true(alive[tids[i]]);
    cJSON_Delete(d);
    free(tids);
    optracker_fini(&t);
}

/* Inline times are 32-bit offsets from "initiated": an op longer than
   4.29 s (or an event stamped before its initiated) keeps its later events
   with full times, in order, and dumps the same durations. */
static void test_long_op_times_exact(void **state)
{
    (void)state;
    const sim_time_t t0 = 7000 * (sim_time_t)1000000000 + 123;
    const sim_time_t t[] = {t0, t0 + 1, t0 + 4294967295ull, t0 + 4294967296ull, t0 + 4294967297ull, t0 - 5,
                            t0 + 9 * (sim_time_t)1000000000};
    const char *const names[] = {"initiated", "queued_for_pg", "reached_pg", "started", "op_commit",
                                 "commit_sent", "done"};
    struct optrack_op op = real_write_op();
    for (int i = 0; i < 7; i++)
        optrack_mark(&op, names[i], t[i]);
    assert_int_equal(op.n_events, 7);
    assert_int_equal(op.n_inline, 3); /* t0 + 2^32 - 1 still fits */
    for (uint32_t i = 0; i < 7; i++) {
        assert_true(optrack_event_t(&op, i) == t[i]);
        assert_string_equal(optrack_event(&op, i).name, names[i]);
    }
    assert_true(optrack_duration_ns(&op, 0) == 9 * (int64_t)1000000000);
    struct optracker tr;
    optracker_init(&tr, 20, 600 * (sim_time_t)1000000000);
    optracker_finish(&tr, &op);
    const struct optrack_op **list;
    assert_int_equal(optracker_history(&tr, t[6], 1, &list), 1);
    assert_true(optrack_event_t(list[0], 5) == t0 - 5);
    free(list);
    optrack_release(&op);
    optracker_fini(&tr);
}

static void test_history_matches_reference(void **state)
{
    (void)state;
    history_vs_reference(1);
    history_vs_reference(250 * US); /* 20 distinct durations: ties everywhere */
}

/* Every event is kept, as Ceph's TrackedOp does: an op that waits for its
   rw lock again and again (the pre-fix clone's requeue storm) still dumps
   "started", "op_commit" and "commit_sent" after its waits. */
static void test_mark_keeps_every_event(void **state)
{
    (void)state;
    struct optrack_op op = real_write_op();
    uint32_t n0 = op.n_events;
    for (int i = 0; i < 100; i++)
        optrack_mark(&op, "waiting for rw locks", (sim_time_t)(i + 1) * US);
    optrack_mark(&op, "started", 101 * US);
    optrack_mark(&op, "op_commit", 102 * US);
    optrack_mark(&op, "commit_sent", 103 * US);
    optrack_mark(&op, "done", 104 * US);
    assert_int_equal(op.n_events, n0 + 104);
    assert_string_equal(optrack_event(&op, n0 + 100).name, "started");
    assert_string_equal(optrack_event(&op, n0 + 103).name, "done");
    assert_true(optrack_event_t(&op, n0 + 57) == 58 * US);
    cJSON *j = roundtrip(historicops_op(&op, 200 * US, 0));
    const cJSON *evs = cJSON_GetObjectItem(cJSON_GetObjectItem(j, "type_data"), "events");
    assert_int_equal(cJSON_GetArraySize(evs), (int)(n0 + 104));
    assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(evs, (int)(n0 + 102)), "event")->valuestring,
                        "commit_sent");
    cJSON_Delete(j);
    /* into a history and out again: the tracker owns and frees the overflow (ASan checks) */
    struct optracker t;
    optracker_init(&t, 2, 600 * 1000 * MS);
    optracker_finish(&t, &op);
    assert_null(op.more);
    struct optrack_op op2 = real_write_op();
    for (int i = 0; i < 50; i++)
        optrack_mark(&op2, "waiting for rw locks", (sim_time_t)(i + 1) * US);
    optrack_mark(&op2, "done", 300 * US);
    optracker_finish(&t, &op2);
    struct optrack_op op3 = real_write_op();
    optrack_mark(&op3, "done", 1 * US);
    optracker_finish(&t, &op3); /* size 2: the shortest goes, its events freed */
    const struct optrack_op **list;
    uint32_t n = optracker_history(&t, 400 * US, 1, &list);
    assert_int_equal(n, 2);
    free(list);
    optracker_reset(&t);
    optracker_fini(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rjenkins_real_objects),
        cmocka_unit_test(test_describe_vectors),
        cmocka_unit_test(test_describe_real_capture),
        cmocka_unit_test(test_flag_points),
        cmocka_unit_test(test_flag_points_real_capture),
        cmocka_unit_test(test_event_durations),
        cmocka_unit_test(test_event_durations_real_capture),
        cmocka_unit_test(test_dump_shape_real_capture),
        cmocka_unit_test(test_history_size_keeps_slowest),
        cmocka_unit_test(test_history_duration),
        cmocka_unit_test(test_history_matches_reference),
        cmocka_unit_test(test_mark_keeps_every_event),
        cmocka_unit_test(test_long_op_times_exact),
    };
    return cmocka_run_group_tests_name("optracker", tests, NULL, NULL);
}
