/*
 * test_trace.c - importers of op-tracker dumps, descriptions, fio iologs / latency logs and
 * the osdtrace log; reading through zlib, the read limit and the importer table.  Fixtures
 * are in tests/data/trace/ (or written to a temporary directory); tests over the shared real
 * captures (../shared/data/) skip when that directory is absent.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <zlib.h>

#include "trace.h"
#include "trace_int.h"

#define FIX "tests/data/trace/"
#define SHARED "../shared/data/"
#define SAMPLES SHARED "historic_ops_samples/"
#define LAB SHARED "lab/"

static void skip_without_shared(void)
{
    if (access(SHARED, R_OK) != 0)
        skip();
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static int64_t median(int64_t *v, size_t n)
{
    assert_true(n > 0);
    qsort(v, n, sizeof *v, cmp_i64);
    return v[n / 2];
}

/* Independent count of ops: occurrences of "description" in the decompressed text. */
static size_t count_descriptions(const char *gzpath)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "gzip -dc -- '%s' | grep -o '\"description\"' | wc -l", gzpath);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    unsigned long n = 0;
    assert_int_equal(fscanf(p, "%lu", &n), 1);
    assert_int_equal(pclose(p), 0);
    return n;
}

static const struct trace_event *ev_at(const struct trace_ops *t, const struct trace_op *op, size_t i)
{
    assert_true(i < op->n_ev);
    return trace_op_events(t, op) + i;
}

/* ------------------------------------------------------------------ timestamps */

static void test_time_parse(void **state)
{
    int64_t ns;
    assert_int_equal(trace_time_parse("2021-02-05T07:50:14.531543+0000", &ns), 0);
    assert_true(ns == INT64_C(1612511414531543000));
    assert_int_equal(trace_time_parse("2018-03-23 12:05:38.972791", &ns), 0);
    assert_true(ns == INT64_C(1521806738972791000));
    assert_int_equal(trace_time_parse("2020-10-19T07:09:58.840675-0500", &ns), 0);
    int64_t utc;
    assert_int_equal(trace_time_parse("2020-10-19T12:09:58.840675Z", &utc), 0);
    assert_true(ns == utc);
    assert_int_equal(trace_time_parse("2020-10-19T14:39:58.840675+02:30", &ns), 0);
    assert_true(ns == utc);
    assert_int_equal(trace_time_parse("2000-02-29 00:00:00", &ns), 0);
    assert_true(ns == INT64_C(951782400) * 1000000000);
    assert_int_equal(trace_time_parse("1969-12-31 23:59:59.5", &ns), 0);
    assert_true(ns == -500000000);
    assert_int_equal(trace_time_parse("2024-01-02T03:04:05.123456789+0000", &ns), 0);
    assert_true(ns % 1000000000 == 123456789);
    assert_int_equal(trace_time_parse("2018-0", &ns), -EINVAL);
    assert_int_equal(trace_time_parse("2019-02-29 00:00:00", &ns), -EINVAL);
    assert_int_equal(trace_time_parse("2024-01-02T03:04:05.+0000", &ns), -EINVAL);
    assert_int_equal(trace_time_parse("2024-01-02T03:04:05.1 junk", &ns), -EINVAL);
    assert_int_equal(trace_time_parse("", &ns), -EINVAL);
    /* utime_t's range (unsigned 32-bit seconds, 1970 .. 2106-02-07T06:28:15Z)
       and a day of zone offset either side; beyond it no tracker prints a
       time, and from ~1678 / ~2262 on the nanoseconds overflow int64_t */
    assert_int_equal(trace_time_parse("2106-02-07T06:28:15Z", &ns), 0);
    assert_true(ns == INT64_C(4294967295) * 1000000000);
    assert_int_equal(trace_time_parse("1969-12-31T00:00:00Z", &ns), 0);
    assert_int_equal(trace_time_parse("1969-12-30T23:59:59Z", &ns), -ERANGE);
    assert_int_equal(trace_time_parse("2106-02-08T06:28:16Z", &ns), -ERANGE);
    assert_int_equal(trace_time_parse("1600-01-01T00:00:00Z", &ns), -ERANGE);
    assert_int_equal(trace_time_parse("3000-01-01T00:00:00Z", &ns), -ERANGE);
    assert_int_equal(trace_time_parse("9999-12-31T23:59:59.999999999-2359", &ns), -ERANGE);
    assert_int_equal(trace_time_parse("0000-01-01T00:00:00+2359", &ns), -ERANGE);
}

/* The parse errors of the op-tracker dump that guard the arithmetic: a time
   outside utime_t, a duration that would overflow as nanoseconds, a tid
   beyond a double's integers, NUL bytes; and an op without events (the
   event queries see NULL, never NULL + 0). */
static void test_historic_guards(void **state)
{
    (void)state;
    static const char op_fmt[] =
        "{\"ops\": [{\"description\": \"osd_op(client.4123.0:1 2.0 2:0 [write 0~4096] snapc 0=[] e1)\", "
        "\"initiated_at\": \"%s\", \"age\": 1, \"duration\": %s, \"type_data\": {\"flag_point\": \"done\", "
        "\"client_info\": {\"client\": \"client.4123\", \"tid\": %s}, \"events\": [%s]}}]}";
    struct {
        const char *at, *dur, *tid, *events, *want;
    } cases[] = {
        {"1600-01-01T00:00:00.000000+0000", "0.001", "1", "", "outside Ceph's utime_t range"},
        {"2262-04-12T00:00:00.000000+0000", "0.001", "1", "", "outside Ceph's utime_t range"},
        {"2024-01-01T00:00:00.000000+0000", "1e300", "1", "", "duration: not a number of seconds in [0, 2^33)"},
        {"2024-01-01T00:00:00.000000+0000", "0.001", "1e300", "", "tid: not a non-negative integer below 2^53"},
        {"2024-01-01T00:00:00.000000+0000", "0.001", "1",
         "{\"event\": \"initiated\", \"time\": \"3000-01-01T00:00:00.000000+0000\"}", "outside Ceph's utime_t range"},
        {"2024-01-01T00:00:00.000000+0000", "0.001", "1",
         "{\"event\": \"a\\u0000b\", \"time\": \"2024-01-01T00:00:00.000000+0000\"}", "a string holding a NUL"},
    };
    char text[2048];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        snprintf(text, sizeof text, op_fmt, cases[i].at, cases[i].dur, cases[i].tid, cases[i].events);
        struct trace_ops t;
        struct sim_err e = {0};
        assert_true(trace_ops_parse("h.json", text, strlen(text), 0, &t, &e) < 0);
        if (!strstr(e.msg, cases[i].want) || strncmp(e.msg, "h.json:", 7))
            fail_msg("case %zu: '%s' lacks '%s'", i, e.msg, cases[i].want);
    }
    /* a raw NUL byte inside a string */
    snprintf(text, sizeof text, op_fmt, "2024-01-01T00:00:00.000000+0000", "0.001", "1", "");
    size_t len = strlen(text);
    char *q = strstr(text, "client.4123\"");
    q[3] = '\0';
    struct trace_ops t;
    struct sim_err e = {0};
    assert_true(trace_ops_parse("h.json", text, len, 0, &t, &e) < 0);
    assert_non_null(strstr(e.msg, "a NUL byte"));
    /* no events at all: parsed, and every query answers "none" */
    snprintf(text, sizeof text, op_fmt, "2024-01-01T00:00:00.000000+0000", "0.001", "1", "");
    assert_int_equal(trace_ops_parse("h.json", text, strlen(text), 0, &t, &e), 0);
    assert_int_equal(t.n, 1);
    assert_null(trace_op_events(&t, &t.ops[0]));
    assert_true(trace_op_event_time(&t, &t.ops[0], "initiated") == TRACE_NS_NONE);
    struct trace_stages st;
    trace_op_stages(&t, &t.ops[0], &st);
    assert_int_equal(st.rw_lock_waits, 0);
    trace_ops_free(&t);
}

/* ------------------------------------------------------------------ descriptions */

static void check_osdop(const struct trace_osdop *o, const char *name, int64_t off, int64_t len,
                        const char *extra)
{
    assert_string_equal(o->name, name);
    assert_true(o->offset == off);
    assert_true(o->length == len);
    assert_string_equal(o->extra, extra);
}

static void test_desc_seed(void **state)
{
    /* verbatim from the seed report (its op vector lost "set-alloc-hint", see below) */
    struct trace_ops t = {0};
    struct trace_desc d;
    struct sim_err e = {0};
    assert_int_equal(trace_desc_parse(&t, "osd_op(client.204166.0:954770 4.298 "
        "4:19642c7c:::rbd_data.2f65e994b93ec.0000000000002ca8:head [stat, object_size 4194304 "
        "write_size 4194304,write 4186112~4096] snapc 0=[] ondisk+write+known_if_redirected e196)",
        &d, NULL, &e), 0);
    assert_int_equal(d.kind, TRACE_DESC_OSD_OP);
    assert_string_equal(d.msg, "osd_op");
    assert_string_equal(d.entity, "client.204166");
    assert_true(d.inc == 0 && d.tid == 954770);
    assert_string_equal(d.pgid, "4.298");
    assert_true(d.pool == 4);
    assert_string_equal(d.object, "rbd_data.2f65e994b93ec.0000000000002ca8");
    assert_string_equal(d.snap, "head");
    assert_string_equal(d.flags, "ondisk+write+known_if_redirected");
    assert_true(d.epoch == 196 && d.min_epoch == -1 && d.retry == 0);
    assert_int_equal(d.n_osdops, 3);
    const struct trace_osdop *o = trace_desc_osdops(&t, &d);
    check_osdop(&o[0], "stat", -1, -1, "");
    check_osdop(&o[1], "set-alloc-hint", -1, -1, "object_size 4194304 write_size 4194304");
    check_osdop(&o[2], "write", 4186112, 4096, "");

    /* the same vector as Ceph prints it (Mimic log line in a public post) */
    assert_int_equal(trace_desc_parse(&t, "osd_op(client.46802596.0:14766739 3.39828228 "
        "3:1441419c:::rbd_data.b9722b2e598557.00000000000000ab:head [stat,set-alloc-hint "
        "object_size 4194304 write_size 4194304,write 2580480~86016] snapc 0=[] "
        "ack+ondisk+write+known_if_redirected e49197)", &d, NULL, &e), 0);
    assert_int_equal(d.n_osdops, 3);
    o = trace_desc_osdops(&t, &d);
    check_osdop(&o[0], "stat", -1, -1, "");
    check_osdop(&o[1], "set-alloc-hint", -1, -1, "object_size 4194304 write_size 4194304");
    check_osdop(&o[2], "write", 2580480, 86016, "");
    assert_string_equal(d.pgid, "3.39828228");
    assert_true(d.tid == 14766739 && d.epoch == 49197 && d.pool == 3);
    assert_string_equal(d.flags, "ack+ondisk+write+known_if_redirected");
    trace_ops_free(&t);
}

static void test_desc_forms(void **state)
{
    struct trace_ops t = {0};
    struct trace_desc d;
    struct sim_err e = {0};
    const struct trace_osdop *o;

    /* PR #16504 sample, with the line break of the post inside the op vector */
    assert_int_equal(trace_desc_parse(&t, "osd_op(client.24123.0:328 3.36 3:6ec0d61b:::"
        "rbd_data.10472ae8944a.0000000000000289:head [write 4141056~4096 [fadvise_seque\n"
        "ntial]] snapc 0=[] ondisk+write+known_if_redirected e36)", &d, NULL, &e), 0);
    assert_int_equal(d.n_osdops, 1);
    check_osdop(trace_desc_osdops(&t, &d), "write", 4141056, 4096, "[fadvise_sequential]");
    assert_true(d.epoch == 36 && d.tid == 328);

    /* lab capture, exact */
    assert_int_equal(trace_desc_parse(&t, "osd_op(client.4767.0:5236 2.0 2:076473e6:::"
        "rbd_header.104b745b84f5:head [call lock.unlock in=10b] snapc 0=[] "
        "ondisk+write+known_if_redirected e24)", &d, NULL, &e), 0);
    check_osdop(trace_desc_osdops(&t, &d), "call", -1, -1, "lock.unlock in=10b");
    assert_string_equal(d.object, "rbd_header.104b745b84f5");
    assert_int_equal(trace_desc_parse(&t, "osd_op(client.4106.0:70 2.11 2:88c1567c:::"
        "rbd_trash_purge_schedule:head [omap-get-vals] snapc 0=[] ondisk+read+known_if_redirected "
        "e24)", &d, NULL, &e), 0);
    check_osdop(trace_desc_osdops(&t, &d), "omap-get-vals", -1, -1, "");
    assert_string_equal(d.flags, "ondisk+read+known_if_redirected");

    /* clone copy-up with queued writes folded in (constructed in the printed form) */
    assert_int_equal(trace_desc_parse(&t, "osd_op(client.4767.0:77 2.1 2:8c1d0000:::"
        "rbd_data.1.0000000000000001:head [call rbd.copyup in=0b,set-alloc-hint object_size "
        "4194304 write_size 4194304,writefull 0~4194304] snapc 0=[] ondisk+write e24)",
        &d, NULL, &e), 0);
    assert_int_equal(d.n_osdops, 3);
    o = trace_desc_osdops(&t, &d);
    check_osdop(&o[0], "call", -1, -1, "rbd.copyup in=0b");
    check_osdop(&o[2], "writefull", 0, 4194304, "");

    /* Squid in-flight sample: "in=4096b" after the extent */
    assert_int_equal(trace_desc_parse(&t, "osd_op(client.279342.0:13428 19.3a 19:5e2301ca:::"
        "benchmark_data_cepha_2958544_object13427:head [set-alloc-hint object_size 4096 "
        "write_size 4096,write 0~4096 in=4096b] snapc 0=[] "
        "ondisk+write+known_if_redirected+supports_pool_eio e3749)", &d, NULL, &e), 0);
    check_osdop(trace_desc_osdops(&t, &d) + 1, "write", 0, 4096, "in=4096b");

    /* RETRY and a read with an fadvise flag (constructed) */
    assert_int_equal(trace_desc_parse(&t, "osd_op(client.1.0:9 2.3 2:c0000000:::obj:head "
        "[read 0~4096 [fadvise_random]] snapc 0=[] RETRY=1 ondisk+read+known_if_redirected e30)",
        &d, NULL, &e), 0);
    assert_true(d.retry == 1 && d.epoch == 30);
    assert_string_equal(d.flags, "ondisk+read+known_if_redirected");
    check_osdop(trace_desc_osdops(&t, &d), "read", 0, 4096, "[fadvise_random]");

    /* Hammer (PR #4178): object before the ops, raw pg after them, no snapc */
    assert_int_equal(trace_desc_parse(&t, "osd_op(client.4436.1:11617 "
        "rb.0.1153.6b8b4567.000000000192 [] 2.8eb4757c ondisk+write e92)", &d, NULL, &e), 0);
    assert_string_equal(d.entity, "client.4436");
    assert_true(d.inc == 1 && d.tid == 11617 && d.pool == 2 && d.epoch == 92);
    assert_string_equal(d.object, "rb.0.1153.6b8b4567.000000000192");
    assert_string_equal(d.pgid, "2.8eb4757c");
    assert_string_equal(d.flags, "ondisk+write");
    assert_int_equal(d.n_osdops, 0);

    /* Jewel-era log line with a snap context */
    assert_int_equal(trace_desc_parse(&t, "osd_op(client.2901606.0:6804035 "
        "rbd_data.29bf88245cc9e0.000000000000031c [stat,set-alloc-hint object_size 4194304 "
        "write_size 4194304,write 1093632~4096] 3.72c22d00 snapc a969=[a969,a41b,a27e] "
        "ack+ondisk+write e75292)", &d, NULL, &e), 0);
    assert_string_equal(d.object, "rbd_data.29bf88245cc9e0.000000000000031c");
    assert_string_equal(d.pgid, "3.72c22d00");
    assert_string_equal(d.flags, "ack+ondisk+write");
    assert_int_equal(d.n_osdops, 3);

    /* replica side, exact from the lab captures */
    assert_int_equal(trace_desc_parse(&t, "osd_repop(client.4835.0:5411 2.d e24/16 "
        "2:b65cb8cf:::rbd_data.104b745b84f5.000000000000019f:head v 24'83543, mlcod=24'83541)",
        &d, NULL, &e), 0);
    assert_int_equal(d.kind, TRACE_DESC_REPOP);
    assert_string_equal(trace_desc_kind_name(d.kind), "repop");
    assert_true(d.tid == 5411 && d.epoch == 24 && d.min_epoch == 16 && d.pool == 2);
    assert_string_equal(d.pgid, "2.d");
    assert_string_equal(d.object, "rbd_data.104b745b84f5.000000000000019f");
    assert_string_equal(d.version, "24'83543");
    assert_int_equal(trace_desc_parse(&t, "osd_repop_reply(client.4835.0:5412 2.1c e24/16 "
        "ondisk, result = 0)", &d, NULL, &e), 0);
    assert_int_equal(d.kind, TRACE_DESC_REPOP_REPLY);
    assert_true(d.result == 0 && d.epoch == 24 && d.tid == 5412);
    assert_string_equal(d.flags, "ondisk");

    /* pre-Jewel replica op (constructed from MOSDSubOp::print) */
    assert_int_equal(trace_desc_parse(&t, "osd_sub_op(client.4436.1:11617 2.eb "
        "8eb4757c/rb.0.1153.6b8b4567.000000000192/head//2 [] v 92'1234 snapset=0=[]:[] "
        "snapc=0=[])", &d, NULL, &e), 0);
    assert_int_equal(d.kind, TRACE_DESC_REPOP);
    assert_string_equal(d.object, "rb.0.1153.6b8b4567.000000000192");
    assert_string_equal(d.snap, "head");
    assert_string_equal(d.version, "92'1234");
    assert_true(d.pool == 2);
    trace_ops_free(&t);
}

static void test_desc_other_and_errors(void **state)
{
    struct trace_ops t = {0};
    struct trace_desc d;
    struct sim_err e = {0};
    assert_int_equal(trace_desc_parse(&t, "pg_info(1 pgs e5:1.0)", &d, NULL, &e), 0);
    assert_int_equal(d.kind, TRACE_DESC_OTHER);
    assert_string_equal(d.msg, "pg_info");
    assert_int_equal(trace_desc_parse(&t, "no parentheses at all", &d, NULL, &e), 0);
    assert_int_equal(d.kind, TRACE_DESC_OTHER);
    assert_string_equal(trace_desc_kind_name(d.kind), "other");
    assert_int_equal(trace_desc_parse(&t, "osd_op(garbage 1.2 [write 0~1] e3)", &d, "x.json: ops[4]",
                                      &e), -EINVAL);
    assert_non_null(strstr(e.msg, "x.json: ops[4]: osd_op: bad reqid 'garbage'"));
    assert_int_equal(trace_desc_parse(&t, "osd_repop()", &d, NULL, &e), -EINVAL);
    trace_ops_free(&t);
}

/* ------------------------------------------------------------------ dump fixtures */

static void test_reef_fixture(void **state)
{
    struct trace_ops t;
    struct sim_err e = {0};
    assert_int_equal(trace_ops_load(FIX "reef_historic_offset.json", 0, &t, &e), 0);
    assert_int_equal(t.n, 2);
    assert_true(t.hist_size == 20 && t.hist_duration_s == 600.0 && !t.salvaged);

    const struct trace_op *a = &t.ops[0];
    assert_true(a->initiated_ns == INT64_C(1704207600000100000)); /* -0500 offset applied */
    assert_true(fabs(a->age_s - 12.5) < 1e-12);
    assert_true(a->duration_ns == 1430000 && !a->duration_wrapped);
    assert_string_equal(a->client, "client.4151");
    assert_string_equal(a->client_addr, "10.0.0.5:0/123456");
    assert_true(a->client_tid == 12345);
    assert_string_equal(a->flag_point, "commit sent; apply or cleanup");
    assert_int_equal(a->n_ev, 16);
    assert_string_equal(ev_at(&t, a, 0)->name, "initiated");
    assert_string_equal(ev_at(&t, a, 8)->name, "reached_pg");
    assert_string_equal(ev_at(&t, a, 10)->name, "waiting for subops from 1,2");
    /* throttled's wrapped gap (to header_read, 1 µs earlier) is recomputed */
    assert_true(ev_at(&t, a, 1)->dur_wrapped);
    assert_true(ev_at(&t, a, 1)->dur_ns == -1000);
    assert_true(ev_at(&t, a, 2)->dur_ns == 21000 && !ev_at(&t, a, 2)->dur_wrapped);
    /* event names are interned: the two reached_pg share storage */
    assert_ptr_equal(ev_at(&t, a, 6)->name, ev_at(&t, a, 8)->name);

    struct trace_stages st;
    trace_op_stages(&t, a, &st);
    static const int64_t at_us[TRACE_ST_N] = {50, 80, 350, 400, 1100, 1400, 1410, 1430};
    static const int64_t gap_us[TRACE_ST_N] = {50, 30, 270, 50, 700, 300, 10, 20};
    for (int s = 0; s < TRACE_ST_N; s++) {
        assert_true(st.at_ns[s] == at_us[s] * 1000);
        assert_true(st.gap_ns[s] == gap_us[s] * 1000);
    }
    assert_int_equal(st.rw_lock_waits, 1);
    assert_true(trace_op_interval(&t, a, "initiated", "sub_op_commit_rec*") == 900000);
    assert_true(trace_op_interval(&t, a, "reached_pg", "started") == 270000); /* first reached_pg */
    assert_true(trace_op_interval(&t, a, "initiated", "header_read") == -1000);
    assert_true(trace_op_interval(&t, a, "initiated", "op_applied") == TRACE_NS_NONE);
    assert_true(trace_op_event_time(&t, a, "done") == a->initiated_ns + 1430000);
    assert_string_equal(trace_stage_name(TRACE_ST_SUBOP_COMMIT_REC), "sub_op_commit_rec");
    assert_int_equal(a->desc.n_osdops, 1);
    check_osdop(trace_desc_osdops(&t, &a->desc), "write", 1048576, 4096, "in=4096b");

    /* replica op: wrapped op duration recomputed as done - initiated */
    const struct trace_op *b = &t.ops[1];
    assert_int_equal(b->desc.kind, TRACE_DESC_REPOP);
    assert_true(b->duration_wrapped && b->duration_ns == 890000);
    assert_string_equal(b->client, "");
    assert_true(b->client_tid == -1);
    trace_op_stages(&t, b, &st);
    assert_true(st.gap_ns[TRACE_ST_STARTED] == 20000);
    assert_true(st.at_ns[TRACE_ST_STARTED] == 80000);
    assert_true(st.at_ns[TRACE_ST_WAIT_SUBOPS] == TRACE_NS_NONE);
    assert_true(st.at_ns[TRACE_ST_OP_COMMIT] == TRACE_NS_NONE);
    assert_true(st.gap_ns[TRACE_ST_COMMIT_SENT] == 800000); /* started -> commit_sent */
    assert_int_equal(st.rw_lock_waits, 0);
    trace_ops_free(&t);
    assert_null(t.ops);
}

static void check_jewel(const struct trace_ops *t)
{
    assert_int_equal(t->n, 1);
    assert_true(t->hist_size == 20 && t->hist_duration_s == 600.0);
    const struct trace_op *o = &t->ops[0];
    assert_true(o->initiated_ns == INT64_C(1521806738972791000));
    assert_true(fabs(o->age_s - 3.25) < 1e-12);
    assert_true(o->duration_ns == 4811000);
    assert_string_equal(o->flag_point, "commit sent; apply or cleanup");
    assert_string_equal(o->client, "client.4153");
    assert_true(o->client_tid == 9);
    assert_int_equal(o->n_ev, 11);
    for (size_t i = 0; i < o->n_ev; i++)
        assert_true(ev_at(t, o, i)->dur_ns == TRACE_NS_NONE);
    assert_string_equal(ev_at(t, o, 5)->name, "commit_queued_for_journal_write");
    struct trace_stages st;
    trace_op_stages(t, o, &st);
    assert_true(st.at_ns[TRACE_ST_QUEUED_FOR_PG] == 1864000);
    assert_true(st.at_ns[TRACE_ST_OP_COMMIT] == 4614000);
    assert_true(st.at_ns[TRACE_ST_SUBOP_COMMIT_REC] == 4708000); /* last one, "from 1" */
    assert_true(st.gap_ns[TRACE_ST_SUBOP_COMMIT_REC] == 94000);
    assert_true(st.at_ns[TRACE_ST_DONE] == 4811000);
    assert_string_equal(o->desc.object, "rbd_data.1234.0000000000000007");
    assert_string_equal(o->desc.pgid, "3.5f3d2c1b");
    assert_int_equal(o->desc.n_osdops, 2);
}

static void test_jewel_fixture_plain_and_gz(void **state)
{
    struct trace_ops t;
    struct sim_err e = {0};
    assert_int_equal(trace_ops_load(FIX "jewel_array_type_data.json", 0, &t, &e), 0);
    check_jewel(&t);
    trace_ops_free(&t);
    assert_int_equal(trace_ops_load(FIX "jewel_array_type_data.json.gz", 0, &t, &e), 0);
    check_jewel(&t);
    trace_ops_free(&t);
}

static void test_truncated_fixture(void **state)
{
    struct trace_ops t;
    struct sim_err e = {0};
    assert_int_equal(trace_ops_load(FIX "truncated_historic.json", 0, &t, &e), -EINVAL);
    assert_non_null(strstr(e.msg, "truncated_historic.json:47:73:"));
    assert_non_null(strstr(e.msg, "truncated JSON"));
    assert_non_null(strstr(e.msg, "ops[1].type_data.events[2].time"));
    assert_null(strchr(e.msg, '\n'));
    assert_null(t.ops);

    assert_int_equal(trace_ops_load(FIX "truncated_historic.json", TRACE_LOAD_SALVAGE, &t, &e), 0);
    assert_true(t.salvaged);
    assert_non_null(strstr(t.damage, "ops[1].type_data.events[2].time"));
    assert_non_null(strstr(t.damage, "; salvaged 2 op(s) (1 cut off), 0 unreadable"));
    assert_int_equal(t.n, 2);
    assert_false(t.ops[0].truncated);
    assert_int_equal(t.ops[0].n_ev, 16);
    assert_true(t.ops[1].truncated);
    assert_int_equal(t.ops[1].desc.kind, TRACE_DESC_REPOP);
    assert_int_equal(t.ops[1].n_ev, 2);
    assert_string_equal(ev_at(&t, &t.ops[1], 1)->name, "queued_for_pg");
    assert_true(t.hist_size == -1); /* the top-level keys are not recovered */
    trace_ops_free(&t);
}

static void test_truncated_gzip(void **state)
{
    struct trace_ops t;
    struct sim_err e = {0};
    assert_int_equal(trace_ops_load(FIX "truncated_historic.json.gz", 0, &t, &e), -EIO);
    /* zlib hands over every byte the stream determines: 1508 (gzip -dc gave 1507) */
    assert_string_equal(e.msg, "tests/data/trace/truncated_historic.json.gz: truncated or corrupt "
                               "gzip data (zlib: unexpected end of file after 1508 bytes)");
    assert_int_equal(trace_ops_load(FIX "truncated_historic.json.gz", TRACE_LOAD_SALVAGE, &t, &e), 0);
    assert_true(t.salvaged);
    assert_int_equal(t.n, 1);
    assert_true(t.ops[0].truncated);
    assert_true(t.ops[0].n_ev >= 1 && t.ops[0].n_ev < 16);
    assert_string_equal(t.ops[0].desc.object, "rbd_data.10226b8b4567.0000000000000123");
    trace_ops_free(&t);

    char *buf;
    size_t len;
    assert_int_equal(trace_slurp(FIX "jewel_array_type_data.json.gz", &buf, &len, &e), 0);
    assert_int_equal(len, 1670);
    assert_true(buf[len] == '\0');
    free(buf);
    assert_int_equal(trace_slurp(FIX "no_such_file.json", &buf, &len, &e), -ENOENT);
    assert_non_null(strstr(e.msg, "no_such_file.json: cannot open"));
}

static int parse_str(const char *text, unsigned flags, struct trace_ops *t, struct sim_err *e)
{
    return trace_ops_parse("mem.json", text, strlen(text), flags, t, e);
}

static void test_json_errors(void **state)
{
    struct trace_ops t;
    struct sim_err e = {0};
    assert_int_equal(parse_str("{\"size\": 20, \"duration\": 600, \"opps\": []}", 0, &t, &e), -EINVAL);
    assert_non_null(strstr(e.msg, "mem.json: no 'ops' array at the top level (found 'opps': did you "
                                  "mean 'ops'?)"));
    assert_int_equal(parse_str("{\"num_ops\": 0, \"ops\": []}", 0, &t, &e), 0);
    assert_true(t.n == 0 && t.hist_size == 0 && isnan(t.hist_duration_s));
    trace_ops_free(&t);

    const char *bad_time = "{\"ops\": [{\"description\": \"x\", \"initiated_at\": "
        "\"2024-01-02T03:04:05.000001+0000\", \"type_data\": {\"events\": [{\"event\": "
        "\"initiated\", \"time\": \"2024-01-02T03:04:05.000001+0000\"}, {\"event\": \"done\", "
        "\"time\": \"yesterday\"}]}}]}";
    assert_int_equal(parse_str(bad_time, 0, &t, &e), -EINVAL);
    assert_string_equal(e.msg, "mem.json: ops[0].type_data.events[1].time: bad timestamp 'yesterday'");

    const char *no_event = "[{\"description\": \"x\", \"initiated_at\": \"2024-01-02 03:04:05\", "
        "\"type_data\": {\"events\": [{\"time\": \"2024-01-02 03:04:05\"}]}}]";
    assert_int_equal(parse_str(no_event, 0, &t, &e), -EINVAL);
    assert_string_equal(e.msg, "mem.json: [0].type_data.events[0].event: missing or not a string");

    assert_int_equal(parse_str("[{\"initiated_at\": \"2024-01-02 03:04:05\"}]", 0, &t, &e), -EINVAL);
    assert_string_equal(e.msg, "mem.json: [0].description: missing or not a string");

    /* a syntax error in the middle names the op it is in */
    assert_int_equal(parse_str("{\"ops\": [{\"description\": \"x\",\n \"age\": 1.0.2}]}", 0, &t, &e),
                     -EINVAL);
    assert_non_null(strstr(e.msg, "mem.json:2:"));
    assert_non_null(strstr(e.msg, "malformed JSON at byte"));
    assert_non_null(strstr(e.msg, "in ops[0].age"));

    assert_int_equal(parse_str("", 0, &t, &e), -EINVAL);
    assert_non_null(strstr(e.msg, "mem.json:1:1:"));
    assert_int_equal(parse_str("42", 0, &t, &e), -EINVAL);
    assert_string_equal(e.msg, "mem.json: top level is not an object or an array");
    /* nothing to salvage */
    assert_int_equal(parse_str("[{\"event\": \"done\"", TRACE_LOAD_SALVAGE, &t, &e), -EINVAL);
    assert_non_null(strstr(e.msg, "no op could be salvaged"));
    assert_null(t.ops);
}

/* Strings larger than an arena block and many small ones interleaved stay intact. */
static void test_long_strings(void **state)
{
    size_t namelen = 40000, cap = namelen + 4096;
    char *name = malloc(namelen + 1), *doc = malloc(cap);
    for (size_t i = 0; i < namelen; i++)
        name[i] = (char)('a' + i % 26);
    name[namelen] = '\0';
    int n = snprintf(doc, cap, "{\"ops\": [{\"description\": \"osd_op(client.1.0:2 3.4 3:01234567:::%s:head "
                     "[write 0~1] snapc 0=[] ondisk+write e5)\", \"initiated_at\": \"2024-01-02 03:04:05\", "
                     "\"type_data\": {\"flag_point\": \"started\", \"events\": [{\"event\": \"initiated\", "
                     "\"time\": \"2024-01-02 03:04:05\"}]}}, {\"description\": \"short\", \"initiated_at\": "
                     "\"2024-01-02 03:04:06\"}]}", name);
    assert_true(n > 0 && (size_t)n < cap);
    struct trace_ops t;
    struct sim_err e = {0};
    assert_int_equal(trace_ops_parse("long.json", doc, (size_t)n, 0, &t, &e), 0);
    assert_int_equal(t.n, 2);
    assert_string_equal(t.ops[0].desc.object, name);
    assert_string_equal(t.ops[0].flag_point, "started");
    assert_string_equal(t.ops[1].description, "short");
    assert_int_equal(t.ops[1].desc.kind, TRACE_DESC_OTHER);
    assert_int_equal(t.ops[1].n_ev, 0);
    assert_true(isnan(t.ops[1].age_s) && t.ops[1].duration_ns == TRACE_NS_NONE);
    trace_ops_free(&t);
    free(name);
    free(doc);
}

/* ------------------------------------------------------------------ published samples */

static void test_samples_strict(void **state)
{
    skip_without_shared();
    static const struct {
        const char *file, *expect;
    } cases[] = {
        {"01_pr39250_pacificdev_4m_write_frag_a.txt", "after a complete top-level value"},
        {"02_pr39250_pacificdev_repop_frag_b.txt", "after a complete top-level value"},
        {"03_pr39250_pacificdev_osd_op_head_frag_c.txt", "after a complete top-level value"},
        {"04_pr4178_hammer_filestore_write.txt", ":24:1: truncated JSON: input ends at byte 1227 inside type_data[2][7]"},
        {"05_pr21018_luminous_events_frag.txt", ":1:25: malformed JSON at byte 24"},
        {"06_pr16504_luminousdev_rbd_4k_write_header.txt", "after a complete top-level value"},
        {"07_cephio_issue820_squid_4k_write_inflight_frag.txt", ":1:1: malformed JSON at byte 0 in the top level: unexpected 'c'"},
        {"11_pr21119_2018_events_frag.txt", "truncated JSON: input ends at byte 847 inside [5].time (in a string)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char path[512];
        snprintf(path, sizeof path, SAMPLES "%s", cases[i].file);
        struct trace_ops t;
        struct sim_err e = {0};
        assert_int_equal(trace_ops_load(path, 0, &t, &e), -EINVAL);
        assert_non_null(strstr(e.msg, cases[i].file));
        if (!strstr(e.msg, cases[i].expect))
            fail_msg("%s: got '%s'", cases[i].file, e.msg);
        assert_null(strchr(e.msg, '\n'));
    }
}

static void test_samples_salvage(void **state)
{
    skip_without_shared();
    struct trace_ops t;
    struct sim_err e = {0};
    /* event-list fragments hold no op */
    static const char *const none[] = {"01_pr39250_pacificdev_4m_write_frag_a.txt",
                                       "05_pr21018_luminous_events_frag.txt",
                                       "11_pr21119_2018_events_frag.txt"};
    for (int i = 0; i < 3; i++) {
        char path[512];
        snprintf(path, sizeof path, SAMPLES "%s", none[i]);
        assert_int_equal(trace_ops_load(path, TRACE_LOAD_SALVAGE, &t, &e), -EINVAL);
        assert_non_null(strstr(e.msg, none[i]));
        assert_non_null(strstr(e.msg, "no op could be salvaged"));
    }

    /* 02: head of a replica op, cut inside header_read's "duration" key */
    assert_int_equal(trace_ops_load(SAMPLES "02_pr39250_pacificdev_repop_frag_b.txt",
                                    TRACE_LOAD_SALVAGE, &t, &e), 0);
    assert_int_equal(t.n, 1);
    const struct trace_op *o = &t.ops[0];
    assert_true(o->truncated);
    assert_int_equal(o->desc.kind, TRACE_DESC_REPOP);
    assert_string_equal(o->desc.object, "benchmark_data_vossi03.front.sepia.ceph.com_2893492_object26");
    assert_true(o->desc.epoch == 19 && o->desc.min_epoch == 17);
    assert_string_equal(o->desc.version, "19'2");
    assert_true(o->initiated_ns == INT64_C(1612511414531543000));
    assert_true(o->duration_ns == 6273821350);
    assert_int_equal(o->n_ev, 3);
    assert_true(ev_at(&t, o, 1)->dur_ns == 2723880);
    assert_true(ev_at(&t, o, 2)->dur_ns == TRACE_NS_NONE);
    trace_ops_free(&t);

    /* 03: osd_op head with client_info */
    assert_int_equal(trace_ops_load(SAMPLES "03_pr39250_pacificdev_osd_op_head_frag_c.txt",
                                    TRACE_LOAD_SALVAGE, &t, &e), 0);
    assert_int_equal(t.n, 1);
    o = &t.ops[0];
    assert_string_equal(o->client, "client.4118");
    assert_string_equal(o->client_addr, "172.21.10.3:0/3505037420");
    assert_true(o->client_tid == 47 && o->desc.tid == 47);
    assert_int_equal(o->desc.n_osdops, 2);
    check_osdop(trace_desc_osdops(&t, &o->desc), "set-alloc-hint", -1, -1,
                "object_size 4194304 write_size 4194304");
    check_osdop(trace_desc_osdops(&t, &o->desc) + 1, "write", 0, 4194304, "");
    assert_int_equal(o->n_ev, 2);
    trace_ops_free(&t);

    /* 04: Hammer array type_data, received_at, string age/duration */
    assert_int_equal(trace_ops_load(SAMPLES "04_pr4178_hammer_filestore_write.txt",
                                    TRACE_LOAD_SALVAGE, &t, &e), 0);
    assert_non_null(strstr(t.damage, "type_data[2][7]"));
    assert_int_equal(t.n, 1);
    o = &t.ops[0];
    assert_true(o->initiated_ns == INT64_C(1427312507146145000));
    assert_true(fabs(o->age_s - 2.186521) < 1e-9 && o->duration_ns == 1237882000);
    assert_string_equal(o->flag_point, "commit sent; apply or cleanup");
    assert_string_equal(o->client, "client.4436");
    assert_true(o->client_tid == 11617);
    static const char *const hammer_ev[] = {"waiting_for_osdmap", "reached_pg", "started",
        "waiting for subops from 1,2", "commit_queued_for_journal_write",
        "write_thread_in_journal_buffer", "journaled_completion_queued"};
    assert_int_equal(o->n_ev, 7);
    for (int i = 0; i < 7; i++)
        assert_string_equal(ev_at(&t, o, (size_t)i)->name, hammer_ev[i]);
    struct trace_stages st;
    trace_op_stages(&t, o, &st); /* no "initiated" event: measured from received_at */
    assert_true(st.at_ns[TRACE_ST_REACHED_PG] == 4728000);
    assert_true(st.at_ns[TRACE_ST_QUEUED_FOR_PG] == TRACE_NS_NONE);
    assert_true(st.gap_ns[TRACE_ST_STARTED] == 22000);
    assert_string_equal(o->desc.object, "rb.0.1153.6b8b4567.000000000192");
    trace_ops_free(&t);

    /* 06: header only, starting at the "description" key, line break inside it */
    assert_int_equal(trace_ops_load(SAMPLES "06_pr16504_luminousdev_rbd_4k_write_header.txt",
                                    TRACE_LOAD_SALVAGE, &t, &e), 0);
    assert_int_equal(t.n, 1);
    o = &t.ops[0];
    assert_string_equal(o->client_addr, "-");
    assert_true(o->initiated_ns == INT64_C(1500733465925633000));
    assert_int_equal(o->n_ev, 0);
    check_osdop(trace_desc_osdops(&t, &o->desc), "write", 4141056, 4096, "[fadvise_sequential]");
    trace_ops_free(&t);

    /* 07: Squid in-flight op after a shell line; header_read before initiated */
    assert_int_equal(trace_ops_load(SAMPLES "07_cephio_issue820_squid_4k_write_inflight_frag.txt",
                                    TRACE_LOAD_SALVAGE, &t, &e), 0);
    assert_int_equal(t.n, 1);
    o = &t.ops[0];
    assert_string_equal(o->flag_point, "waiting for sub ops");
    assert_int_equal(o->n_ev, 3);
    assert_true(ev_at(&t, o, 2)->dur_wrapped);
    assert_true(ev_at(&t, o, 2)->dur_ns == -1000); /* Squid: gap since the previous event */
    assert_true(trace_op_interval(&t, o, "initiated", "header_read") == -1000);
    assert_string_equal(o->desc.flags, "ondisk+write+known_if_redirected+supports_pool_eio");
    trace_ops_free(&t);
}

/* ------------------------------------------------------------------ lab captures */

static void test_lab_qd1_window(void **state)
{
    skip_without_shared();
    const char *run = LAB "noparent_randw-qd1_sched-simple_rt_r1/";
    size_t cap = 4096, nq = 0, nc = 0, nrep = 0, nprim = 0;
    int64_t *q = malloc(cap * sizeof *q), *c = malloc(cap * sizeof *c), *rc = malloc(cap * sizeof *rc);
    for (int osd = 0; osd < 3; osd++) {
        char path[512];
        snprintf(path, sizeof path, "%sosd.%d.historic_window.json.gz", run, osd);
        struct trace_ops t;
        struct sim_err e = {0};
        assert_int_equal(trace_ops_load(path, 0, &t, &e), 0);
        assert_int_equal(t.n, count_descriptions(path));
        assert_true(t.n > 500 && (int64_t)t.n <= t.hist_size);
        assert_true(t.hist_size == 20000 && t.hist_duration_s == 1.0);
        for (size_t i = 0; i < t.n; i++) {
            const struct trace_op *o = &t.ops[i];
            assert_true(o->n_ev >= 8);
            assert_string_equal(ev_at(&t, o, 0)->name, "initiated");
            assert_true(ev_at(&t, o, 0)->t_ns == o->initiated_ns);
            assert_string_equal(ev_at(&t, o, o->n_ev - 1)->name, "done");
            /* Pacific: the op duration is done - initiated; timestamps are µs */
            assert_true(llabs(o->duration_ns - (ev_at(&t, o, o->n_ev - 1)->t_ns - o->initiated_ns)) < 1000);
            /* throttled's wrapped duration is the (negative) gap to header_read */
            const struct trace_event *th = ev_at(&t, o, 1), *hr = ev_at(&t, o, 2);
            assert_string_equal(th->name, "throttled");
            if (th->dur_wrapped)
                assert_true(th->dur_ns == hr->t_ns - th->t_ns && th->dur_ns <= 0);
            struct trace_stages st;
            trace_op_stages(&t, o, &st);
            assert_int_equal(st.rw_lock_waits, 0);
            if (o->desc.kind == TRACE_DESC_OSD_OP) {
                nprim++;
                assert_int_equal(o->desc.n_osdops, 1);
                const struct trace_osdop *w = trace_desc_osdops(&t, &o->desc);
                assert_string_equal(w->name, "write");
                assert_true(w->length == 4096 && w->offset % 4096 == 0 && w->offset < 4194304);
                assert_true(strncmp(o->desc.object, "rbd_data.", 9) == 0);
                assert_true(o->client_tid == o->desc.tid);
                for (int s = 0; s < TRACE_ST_N; s++)
                    assert_true(st.gap_ns[s] != TRACE_NS_NONE);
                assert_true(nq < cap);
                q[nq++] = st.gap_ns[TRACE_ST_QUEUED_FOR_PG];
                c[nc++] = st.gap_ns[TRACE_ST_OP_COMMIT];
            } else if (o->desc.kind == TRACE_DESC_REPOP) {
                assert_true(nrep < cap);
                assert_true(st.at_ns[TRACE_ST_OP_COMMIT] == TRACE_NS_NONE);
                rc[nrep++] = st.gap_ns[TRACE_ST_COMMIT_SENT]; /* started -> commit_sent */
            } else {
                assert_int_equal(o->desc.kind, TRACE_DESC_REPOP_REPLY);
                assert_true(o->desc.result == 0);
            }
        }
        trace_ops_free(&t);
    }
    assert_int_equal(nprim, 572);
    /* README: initiated->queued_for_pg 23 µs, ->op_commit 975 µs, replica started->commit_sent 807 */
    int64_t mq = median(q, nq), mc = median(c, nc), mr = median(rc, nrep);
    assert_true(mq > 23000 / 3 && mq < 23000 * 3);
    assert_true(mc > 975000 / 3 && mc < 975000 * 3);
    assert_true(mr > 807000 / 3 && mr < 807000 * 3);
    free(q);
    free(c);
    free(rc);
}

static void test_lab_historic_dumps(void **state)
{
    skip_without_shared();
    const char *run = LAB "noparent_randw-qd1_sched-simple_rt_r1/";
    char path[512];
    struct trace_ops t;
    struct sim_err e = {0};
    snprintf(path, sizeof path, "%sosd.1.historic.json.gz", run);
    assert_int_equal(trace_ops_load(path, 0, &t, &e), 0);
    assert_true(t.hist_size == 200 && (int64_t)t.n == t.hist_size && t.hist_duration_s == 900.0);
    trace_ops_free(&t);
    snprintf(path, sizeof path, "%sosd.1.historic_by_duration.json.gz", run);
    assert_int_equal(trace_ops_load(path, 0, &t, &e), 0);
    assert_int_equal(t.n, 200);
    for (size_t i = 1; i < t.n; i++) /* sorted by duration, longest first */
        assert_true(t.ops[i].duration_ns <= t.ops[i - 1].duration_ns);
    trace_ops_free(&t);
}

static void test_lab_lockprobe(void **state)
{
    skip_without_shared();
    const char *path = LAB "lockprobe_write_rt_r1/osd.0.historic_window.json.gz";
    struct trace_ops t;
    struct sim_err e = {0};
    assert_int_equal(trace_ops_load(path, 0, &t, &e), 0);
    assert_int_equal(t.n, count_descriptions(path));
    size_t n = 0;
    int64_t (*iv)[2] = calloc(t.n, sizeof *iv);
    for (size_t i = 0; i < t.n; i++) {
        const struct trace_op *o = &t.ops[i];
        assert_string_equal(ev_at(&t, o, 0)->name, "initiated");
        if (o->desc.kind != TRACE_DESC_OSD_OP)
            continue;
        assert_string_equal(o->desc.object, "lockprobe.obj");
        assert_string_equal(trace_desc_osdops(&t, &o->desc)->name, "write");
        struct trace_stages st;
        trace_op_stages(&t, o, &st);
        assert_int_equal(st.rw_lock_waits, 0); /* [write] takes the shared write lock */
        iv[n][0] = o->initiated_ns + st.at_ns[TRACE_ST_STARTED];
        iv[n][1] = o->initiated_ns + st.at_ns[TRACE_ST_COMMIT_SENT];
        n++;
    }
    assert_true(n > 1000);
    /* ops executing on the one object at once: many, at most the 64 writers */
    size_t best = 0;
    for (size_t i = 0; i < n; i++) {
        size_t k = 0;
        for (size_t j = 0; j < n; j++)
            k += iv[j][0] <= iv[i][0] && iv[i][0] < iv[j][1];
        best = k > best ? k : best;
    }
    assert_true(best >= 32 && best <= 64);
    free(iv);
    trace_ops_free(&t);
}

/* ------------------------------------------------------------------ fio iolog */

static void check_io(const struct trace_io *io, int64_t t_us, enum trace_io_act a, int64_t off,
                     int64_t len, size_t file)
{
    assert_true(io->t_ns == t_us * 1000);
    assert_int_equal(io->act, a);
    assert_true(io->offset == off && io->length == len);
    assert_int_equal(io->file, file);
}

static void test_iolog_v2(void **state)
{
    struct trace_iolog log;
    struct sim_err e = {0};
    assert_int_equal(trace_iolog_load(FIX "iolog_v2.log", &log, &e), 0);
    assert_int_equal(log.version, 2);
    assert_int_equal(log.n_files, 1);
    assert_string_equal(log.files[0], "/dev/rbd0");
    assert_int_equal(log.n, 8);
    check_io(&log.ios[0], 0, TRACE_IO_ADD, -1, -1, 0);
    check_io(&log.ios[1], 0, TRACE_IO_OPEN, -1, -1, 0);
    check_io(&log.ios[2], 0, TRACE_IO_WRITE, 0, 4096, 0);
    check_io(&log.ios[3], 1500, TRACE_IO_READ, 8192, 16384, 0);
    check_io(&log.ios[4], 1500, TRACE_IO_TRIM, 1048576, 65536, 0);
    check_io(&log.ios[5], 1750, TRACE_IO_SYNC, 0, 0, 0);
    check_io(&log.ios[6], 1750, TRACE_IO_DATASYNC, 0, 0, 0);
    check_io(&log.ios[7], 1750, TRACE_IO_CLOSE, -1, -1, 0);
    assert_string_equal(trace_io_act_name(TRACE_IO_DATASYNC), "datasync");
    trace_iolog_free(&log);
}

static void test_iolog_v3(void **state)
{
    struct trace_iolog log;
    struct sim_err e = {0};
    assert_int_equal(trace_iolog_load(FIX "iolog_v3_crlf.log", &log, &e), 0);
    assert_int_equal(log.version, 3);
    assert_int_equal(log.n_files, 2);
    assert_string_equal(log.files[1], "/tmp/f1");
    assert_int_equal(log.n, 9);
    check_io(&log.ios[0], 0, TRACE_IO_ADD, -1, -1, 0);
    check_io(&log.ios[3], 13, TRACE_IO_OPEN, -1, -1, 1);
    check_io(&log.ios[4], 40, TRACE_IO_WRITE, 0, 4096, 0);
    check_io(&log.ios[5], 310, TRACE_IO_WRITE, 4096, 4096, 0);
    check_io(&log.ios[6], 2005, TRACE_IO_READ, 1048576, 131072, 1);
    check_io(&log.ios[7], 2010, TRACE_IO_TRIM, 0, 65536, 0);
    check_io(&log.ios[8], 4100, TRACE_IO_CLOSE, -1, -1, 0);
    trace_iolog_free(&log);
}

static void iolog_err(const char *text, const char *expect)
{
    struct trace_iolog log;
    struct sim_err e = {0};
    assert_int_equal(trace_iolog_parse("t.iolog", text, strlen(text), &log, &e), -EINVAL);
    if (strcmp(e.msg, expect) != 0)
        fail_msg("got '%s', want '%s'", e.msg, expect);
    assert_null(log.ios);
}

static void test_iolog_errors(void **state)
{
    iolog_err("0, 0, 4096\n", "t.iolog:1: not a fio iolog: the first line must be 'fio version 2 "
              "iolog' or 'fio version 3 iolog' (version 1 logs are unsupported since fio 1.20)");
    iolog_err("fio version 2 iolog\nf add\nf open\nf wirte 0 4096\n",
              "t.iolog:4: unknown I/O action 'wirte' (did you mean 'write'?)");
    iolog_err("fio version 2 iolog\nf add\nf opne\n",
              "t.iolog:3: unknown file action 'opne' (did you mean 'open'?) (file actions: add, open, close)");
    iolog_err("fio version 2 iolog\nf add\nf read 0\n",
              "t.iolog:3: expected 'filename action' or 'filename action offset length', got 3 fields");
    iolog_err("fio version 2 iolog\ng read 0 4096\n", "t.iolog:2: file 'g' is used before its 'add'");
    iolog_err("fio version 2 iolog\nf add\nf write 0 4294967296\n",
              "t.iolog:3: bad length '4294967296' (fio reads an unsigned 32-bit length)");
    iolog_err("fio version 2 iolog\nf add\nf write -4096 4096\n", "t.iolog:3: bad offset '-4096'");
    iolog_err("fio version 3 iolog\n0 f add\n5 f wait 100 0\n",
              "t.iolog:3: 'wait' is not allowed in a version 3 iolog (timestamps give the timing)");
    iolog_err("fio version 3 iolog\n0 f add\nx f write 0 4096\n",
              "t.iolog:3: bad timestamp 'x' (µs since start)");
    iolog_err("fio version 3 iolog\n0 f add\n1 f write 0\n",
              "t.iolog:3: expected 'timestamp filename action' or 'timestamp filename action offset "
              "length', got 4 fields");
    struct trace_iolog log;
    struct sim_err e = {0};
    assert_int_equal(trace_iolog_load(FIX "missing.log", &log, &e), -ENOENT);
    assert_non_null(strstr(e.msg, "missing.log"));
}

/* ------------------------------------------------------------------ fio latency logs */

static void check_lat(const struct trace_lat *s, int64_t t, int64_t v, int ddir, int64_t bs,
                      int64_t off, int prio, int64_t issue)
{
    assert_true(s->t_ms == t && s->lat_ns == v && s->ddir == ddir && s->bs == bs);
    assert_true(s->offset == off && s->prio == prio && s->issue_ns == issue);
}

static void test_latlog(void **state)
{
    struct trace_latlog log;
    struct sim_err e = {0};
    assert_int_equal(trace_latlog_load(FIX "randw_lat.1.log", TRACE_LAT_AUTO, &log, &e), 0);
    assert_int_equal(log.n, 3);
    assert_true(log.ncols == 6 && log.has_offset);
    check_lat(&log.s[0], 1, 1843261, 1, 4096, 872448, 0, -1);
    check_lat(&log.s[2], 3, 1754882, 0, 8192, 0, 1, -1);
    trace_latlog_free(&log);

    /* 5 columns with only 0/1 in the last: fio >= 2020 without log_offset (priority) */
    assert_int_equal(trace_latlog_load(FIX "noff_clat.1.log", TRACE_LAT_AUTO, &log, &e), 0);
    assert_false(log.has_offset);
    check_lat(&log.s[0], 0, 512345, 1, 4096, -1, 0, -1);
    check_lat(&log.s[2], 1, 601000, 0, 4096, -1, 1, -1);
    trace_latlog_free(&log);
    /* ...unless the caller knows log_offset=1 was set */
    assert_int_equal(trace_latlog_load(FIX "noff_clat.1.log", TRACE_LAT_OFFSET, &log, &e), 0);
    assert_true(log.has_offset);
    check_lat(&log.s[2], 1, 601000, 0, 4096, 1, -1, -1);
    trace_latlog_free(&log);

    /* 5 columns of offsets: older fio with log_offset=1 */
    assert_int_equal(trace_latlog_load(FIX "old_offset_lat.1.log", TRACE_LAT_AUTO, &log, &e), 0);
    assert_true(log.has_offset);
    check_lat(&log.s[1], 6, 21000, 0, 4096, 12288, -1, -1);
    trace_latlog_free(&log);

    /* 7 columns: log_offset, log_prio (hex ioprio) and log_issue_time */
    assert_int_equal(trace_latlog_load(FIX "issue_lat.1.log", TRACE_LAT_AUTO, &log, &e), 0);
    check_lat(&log.s[0], 10, 150000, 1, 4096, 4096, 0x2004, 9999000);
    check_lat(&log.s[1], 11, 160000, 2, 65536, 0, 0, 10999500);
    trace_latlog_free(&log);

    const char *hexprio = "1, 100, 0, 4096, 0x6001\n";
    assert_int_equal(trace_latlog_parse("h.log", hexprio, strlen(hexprio), TRACE_LAT_AUTO, &log, &e), 0);
    check_lat(&log.s[0], 1, 100, 0, 4096, -1, 0x6001, -1);
    trace_latlog_free(&log);
}

static void latlog_err(const char *text, int mode, const char *expect)
{
    struct trace_latlog log;
    struct sim_err e = {0};
    assert_int_equal(trace_latlog_parse("l.log", text, strlen(text), mode, &log, &e), -EINVAL);
    if (strcmp(e.msg, expect) != 0)
        fail_msg("got '%s', want '%s'", e.msg, expect);
    assert_null(log.s);
}

static void test_latlog_errors(void **state)
{
    latlog_err("1, 2, 1\n", TRACE_LAT_AUTO, "l.log:1: expected 4 to 7 comma-separated columns "
               "(time, value, ddir, bs[, offset][, prio][, issue_time]), got 3");
    latlog_err("1, 2, 1, 4096, 0, 0\n\n2, 3, 1, 4096, 0\n", TRACE_LAT_AUTO,
               "l.log:3: 5 columns, earlier lines have 6");
    latlog_err("1, 2, 3, 4096\n", TRACE_LAT_AUTO,
               "l.log:1: data direction 3 is not 0 (read), 1 (write) or 2 (trim)");
    latlog_err("1, 2x, 1, 4096\n", TRACE_LAT_AUTO, "l.log:1: bad value '2x'");
    latlog_err("1, 2, 1, 4096, 0x10, 0\n", TRACE_LAT_AUTO, "l.log:1: bad offset '0x10'");
    latlog_err("1, 2, 1, 4096, 0x10\n", TRACE_LAT_OFFSET,
               "l.log: the 5th column holds hex priorities, not offsets");
}

/* ------------------------------------------------------------------ osdtrace */

static void test_osdtrace_sample(void **state)
{
    skip_without_shared();
    struct trace_osdtrace tr;
    struct sim_err e = {0};
    assert_int_equal(trace_osdtrace_load(SAMPLES "10_cephtrace_osdtrace_quincy17.2.7_sample.log",
                                         &tr, &e), 0);
    size_t nk[3] = {0};
    for (size_t i = 0; i < tr.n; i++)
        nk[tr.ops[i].kind]++;
    assert_int_equal(tr.n, 440); /* README: 235 op_w, 171 subop_w, 34 op_r */
    assert_true(nk[TRACE_OSDT_OP_W] == 235 && nk[TRACE_OSDT_SUBOP_W] == 171 && nk[TRACE_OSDT_OP_R] == 34);
    const struct trace_osdt_op *o = &tr.ops[0];
    assert_true(o->osd == 22 && o->kind == TRACE_OSDT_OP_W && o->size == 8192);
    assert_string_equal(o->pgid, "24.b7");
    assert_true(o->client == 225455730 && o->tid == 73911871 && o->aio_size == 1);
    static const int64_t first[TRACE_OSDT_NFIELDS] = {1, 17, 9, 63, 247, 668, 113, 135, 9, 411, 425766};
    for (int f = 0; f < TRACE_OSDT_NFIELDS; f++)
        assert_true(o->us[f] == first[f]);
    assert_int_equal(o->n_peers, 2);
    assert_true(tr.peers[o->peer_first].osd == 4 && tr.peers[o->peer_first].lat_us == 425483);
    assert_true(tr.peers[o->peer_first + 1].osd == 17 && tr.peers[o->peer_first + 1].lat_us == 1024);
    size_t bad = 0;
    for (size_t i = 0; i < tr.n; i++) {
        const struct trace_osdt_op *x = &tr.ops[i];
        assert_true(x->us[TRACE_OSDT_OP_LAT] > 0);
        assert_int_equal(x->n_peers, x->kind == TRACE_OSDT_OP_W ? 2 : 0);
        if (x->invalid) {
            bad++; /* every underflow in this file is bluestore_lat together with prepare */
            assert_int_equal(x->invalid, (1u << TRACE_OSDT_BLUESTORE) | (1u << TRACE_OSDT_BS_PREPARE));
            assert_true(x->us[TRACE_OSDT_BLUESTORE] == -1 && x->us[TRACE_OSDT_BS_PREPARE] == -1);
        }
        for (int f = 0; f < TRACE_OSDT_NFIELDS; f++)
            assert_true(x->us[f] < 100000000); /* nothing left above 100 s */
    }
    assert_int_equal(bad, 89);
    assert_int_equal(tr.n_invalid_ops, 89);
    assert_string_equal(trace_osdt_field_name(TRACE_OSDT_BS_KV_COMMIT), "kv_commit");
    trace_osdtrace_free(&tr);
}

static void test_osdtrace_inline(void **state)
{
    struct trace_osdtrace tr;
    struct sim_err e = {0};
    const char *ok = "Tracing ceph-osd at: /usr/bin/ceph-osd\n"
        "osd 3 pg 1.2f op_r size 4096 client 77 tid 9 throttle_lat 0 recv_lat 5 dispatch_lat 8 "
        "queue_lat 12 osd_lat 30 bluestore_lat 22 op_lat 80 \n"
        "osd 3 pg 1.2f subop_w size 100 client 77 tid 10 throttle_lat 18446744073709551 recv_lat 1 "
        "dispatch_lat 1 queue_lat 1 osd_lat 1 bluestore_lat 5 (prepare 1 aio_wait 2 (aio_size 0) "
        "seq_wait 1 kv_commit 1) subop_lat 12\n";
    assert_int_equal(trace_osdtrace_parse("o.log", ok, strlen(ok), &tr, &e), 0);
    assert_int_equal(tr.n, 2);
    assert_true(tr.ops[0].us[TRACE_OSDT_BS_PREPARE] == -1 && tr.ops[0].aio_size == -1);
    assert_true(tr.ops[0].us[TRACE_OSDT_OP_LAT] == 80 && tr.ops[0].invalid == 0);
    assert_true(tr.ops[1].invalid == 1u << TRACE_OSDT_THROTTLE && tr.ops[1].us[TRACE_OSDT_THROTTLE] == -1);
    assert_true(tr.ops[1].us[TRACE_OSDT_OP_LAT] == 12 && tr.ops[1].aio_size == 0);
    assert_int_equal(tr.n_invalid_ops, 1);
    trace_osdtrace_free(&tr);

    const char *typo = "x\nosd 3 pg 1.2f op_w size 1 client 1 tid 1 queue_latt 5 op_lat 9\n";
    assert_int_equal(trace_osdtrace_parse("o.log", typo, strlen(typo), &tr, &e), -EINVAL);
    assert_string_equal(e.msg, "o.log:2: unknown field 'queue_latt' (did you mean 'queue_lat'?)");
    const char *kind = "osd 3 pg 1.2f op_x size 1 op_lat 9\n";
    assert_int_equal(trace_osdtrace_parse("o.log", kind, strlen(kind), &tr, &e), -EINVAL);
    assert_string_equal(e.msg, "o.log:1: unknown op kind 'op_x' (op_w, subop_w, op_r)");
    const char *nolat = "osd 3 pg 1.2f op_w size 1 queue_lat 5\n";
    assert_int_equal(trace_osdtrace_parse("o.log", nolat, strlen(nolat), &tr, &e), -EINVAL);
    assert_string_equal(e.msg, "o.log:1: no op_lat/subop_lat field");
    const char *noval = "osd 3 pg 1.2f op_w size 1 op_lat\n";
    assert_int_equal(trace_osdtrace_parse("o.log", noval, strlen(noval), &tr, &e), -EINVAL);
    assert_string_equal(e.msg, "o.log:1: field 'op_lat' needs an unsigned number");
    assert_null(tr.ops);
}

/* ------------------------------------------------------------------ zlib, read limit, table */

/* The suite's temporary directory (the group state) and a few paths in it. */
struct tmpdir {
    char dir[64];
    char path[4][600];
    int k;
};

static int tmp_setup(void **state)
{
    struct tmpdir *t = calloc(1, sizeof *t);
    snprintf(t->dir, sizeof t->dir, "/tmp/cephsim-test-trace-XXXXXX");
    if (!mkdtemp(t->dir)) {
        free(t);
        return -1;
    }
    *state = t;
    return 0;
}

static int tmp_teardown(void **state)
{
    struct tmpdir *t = *state;
    DIR *d = opendir(t->dir);
    if (!d)
        return -1;
    struct dirent *e;
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
            char p[600];
            snprintf(p, sizeof p, "%s/%s", t->dir, e->d_name);
            unlink(p);
        }
    closedir(d);
    int rc = rmdir(t->dir);
    free(t);
    return rc;
}

/* A path in the temporary directory; the last four stay valid. */
static const char *tmp(void **state, const char *name)
{
    struct tmpdir *t = *state;
    char p[sizeof t->path[0]];
    snprintf(p, sizeof p, "%s/%s", t->dir, name);
    t->k = (t->k + 1) % 4;
    memcpy(t->path[t->k], p, sizeof p);
    return t->path[t->k];
}

static void write_bytes(const char *path, const void *b, size_t n)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(b, 1, n, f), n);
    assert_int_equal(fclose(f), 0);
}

/* The file's bytes as they are on disk (no gunzip). */
static char *read_raw(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    assert_int_equal(fseek(f, 0, SEEK_END), 0);
    long sz = ftell(f);
    rewind(f);
    char *b = malloc((size_t)sz + 1);
    assert_int_equal(fread(b, 1, (size_t)sz, f), (size_t)sz);
    fclose(f);
    *n = (size_t)sz;
    return b;
}

/* gzip text into path as `pieces` members (what `gzip -c a b > f` writes for pieces > 1). */
static void write_gz(const char *path, const char *text, size_t n, int pieces)
{
    unlink(path);
    for (int i = 0; i < pieces; i++) {
        size_t a = n * (size_t)i / (size_t)pieces, b = n * (size_t)(i + 1) / (size_t)pieces;
        gzFile g = gzopen(path, "ab9");
        assert_non_null(g);
        if (b > a)
            assert_int_equal(gzwrite(g, text + a, (unsigned)(b - a)), (int)(b - a));
        assert_int_equal(gzclose(g), Z_OK);
    }
}

static char *read_all(const char *path, size_t *n)
{
    char *buf;
    struct sim_err e = {0};
    assert_int_equal(trace_slurp(path, &buf, n, &e), 0);
    return buf;
}

static const char osdt_text[] = "Tracing ceph-osd at: /usr/bin/ceph-osd\n"
    "osd 3 pg 1.2f op_r size 4096 client 77 tid 9 throttle_lat 0 recv_lat 5 dispatch_lat 8 "
    "queue_lat 12 osd_lat 30 bluestore_lat 22 op_lat 80\n";

/* Every importer reads gzip'd files, of one member or several, as it reads the plain ones. */
static void test_gzip_every_format(void **state)
{
    struct sim_err e = {0};
    size_t n, m;
    char *plain = read_all(FIX "iolog_v2.log", &n);
    write_gz(tmp(state, "iolog.gz"), plain, n, 1);
    write_gz(tmp(state, "iolog3.gz"), plain, n, 3);
    for (int k = 0; k < 2; k++) {
        const char *p = tmp(state, k ? "iolog3.gz" : "iolog.gz");
        char *back = read_all(p, &m);
        assert_int_equal(m, n);
        assert_memory_equal(back, plain, n);
        assert_true(back[m] == '\0');
        free(back);
        struct trace_iolog log;
        assert_int_equal(trace_iolog_load(p, &log, &e), 0);
        assert_true(log.version == 2 && log.n == 8);
        check_io(&log.ios[3], 1500, TRACE_IO_READ, 8192, 16384, 0);
        trace_iolog_free(&log);
    }
    free(plain);

    plain = read_all(FIX "randw_lat.1.log", &n);
    write_gz(tmp(state, "lat.log.gz"), plain, n, 2);
    free(plain);
    struct trace_latlog lat;
    assert_int_equal(trace_latlog_load(tmp(state, "lat.log.gz"), TRACE_LAT_AUTO, &lat, &e), 0);
    assert_int_equal(lat.n, 3);
    check_lat(&lat.s[2], 3, 1754882, 0, 8192, 0, 1, -1);
    trace_latlog_free(&lat);

    write_gz(tmp(state, "osdt.log.gz"), osdt_text, sizeof osdt_text - 1, 1);
    struct trace_osdtrace tr;
    assert_int_equal(trace_osdtrace_load(tmp(state, "osdt.log.gz"), &tr, &e), 0);
    assert_true(tr.n == 1 && tr.ops[0].us[TRACE_OSDT_OP_LAT] == 80);
    trace_osdtrace_free(&tr);

    /* an empty file, and one byte (no room for the magic), are plain text */
    write_bytes(tmp(state, "empty"), "", 0);
    char *buf = read_all(tmp(state, "empty"), &n);
    assert_true(n == 0 && buf[0] == '\0');
    free(buf);
    write_bytes(tmp(state, "one"), "\x1f", 1);
    buf = read_all(tmp(state, "one"), &n);
    assert_true(n == 1 && buf[0] == 0x1f && buf[1] == '\0');
    free(buf);
}

/* A gzip cut short or corrupt: one line naming the file; only the op-tracker salvage goes on. */
static void test_gzip_damaged(void **state)
{
    struct sim_err e = {0};
    size_t n, gn;
    char *plain = read_all(FIX "iolog_v3_crlf.log", &n);
    write_gz(tmp(state, "whole.gz"), plain, n, 1);
    char *gz = read_raw(tmp(state, "whole.gz"), &gn);
    assert_true(gn > 40);

    /* cut in the middle of the deflate data */
    const char *cut = tmp(state, "cut.log.gz");
    write_bytes(cut, gz, gn / 2);
    struct trace_iolog log;
    for (unsigned flags = 0; flags <= TRACE_LOAD_SALVAGE; flags += TRACE_LOAD_SALVAGE) {
        memset(&e, 0, sizeof e);
        assert_int_equal(trace_load(&trace_iolog_format, cut, flags, &log, &e), -EIO);
        char want[700];
        snprintf(want, sizeof want, "%s: truncated or corrupt gzip data (zlib: unexpected end of "
                 "file after ", cut);
        assert_memory_equal(e.msg, want, strlen(want));
        assert_null(strchr(e.msg, '\n'));
        assert_null(log.ios); /* no salvage for iologs: nothing kept */
    }
    char *buf = (char *)1;
    size_t len = 7;
    assert_int_equal(trace_slurp(cut, &buf, &len, &e), -EIO);
    assert_null(buf);
    /* what was decoded before the cut is there for a salvage */
    bool partial = false;
    assert_int_equal(trace_slurp_max(cut, TRACE_READ_MAX, &buf, &len, &partial, &e), -EIO);
    assert_true(partial);
    assert_true(len < n && buf[len] == '\0');
    assert_memory_equal(buf, plain, len);
    char said[64];
    snprintf(said, sizeof said, "after %zu bytes)", len);
    assert_non_null(strstr(e.msg, said));
    free(buf);

    /* the gzip trailer's CRC-32 does not match the data */
    gz[gn - 8] ^= 0x55;
    const char *crc = tmp(state, "crc.log.gz");
    write_bytes(crc, gz, gn);
    assert_int_equal(trace_iolog_load(crc, &log, &e), -EIO);
    assert_non_null(strstr(e.msg, "crc.log.gz: truncated or corrupt gzip data (zlib: incorrect "
                                  "data check"));

    /* a cut-off op-tracker dump is salvaged from what zlib decoded, and says why */
    char *json = read_all(FIX "jewel_array_type_data.json", &n);
    write_gz(tmp(state, "whole.json.gz"), json, n, 1);
    free(gz);
    gz = read_raw(tmp(state, "whole.json.gz"), &gn);
    const char *cutj = tmp(state, "cut.json.gz");
    write_bytes(cutj, gz, gn * 3 / 4);
    struct trace_ops t;
    assert_int_equal(trace_ops_load(cutj, 0, &t, &e), -EIO);
    assert_non_null(strstr(e.msg, "cut.json.gz: truncated or corrupt gzip data"));
    assert_int_equal(trace_ops_load(cutj, TRACE_LOAD_SALVAGE, &t, &e), 0);
    assert_true(t.salvaged && t.n >= 1);
    assert_non_null(strstr(t.damage, "truncated JSON"));
    trace_ops_free(&t);
    free(json);
    free(gz);
    free(plain);
}

/* Reading stops past the limit, with an error naming the file: plain, gzip bomb, /dev/zero. */
static void test_read_limit(void **state)
{
    struct sim_err e = {0};
    assert_true(TRACE_READ_MAX == (size_t)1 << 30);
    char text[1000];
    memset(text, 'x', sizeof text);
    const char *p = tmp(state, "1000");
    write_bytes(p, text, sizeof text);
    char *buf;
    size_t len;
    bool partial;
    assert_int_equal(trace_slurp_max(p, 1000, &buf, &len, &partial, &e), 0);
    assert_true(len == 1000 && !partial);
    free(buf);
    assert_int_equal(trace_slurp_max(p, 999, &buf, &len, &partial, &e), -EFBIG);
    assert_true(buf == NULL && !partial);
    char want[700];
    snprintf(want, sizeof want, "%s: more than 999 bytes of text, stopped reading (an endless file "
             "such as /dev/zero?)", p);
    assert_string_equal(e.msg, want);

    /* 3 MiB of zeros in a few kB of gzip */
    size_t big = (size_t)3 << 20;
    char *zeros = calloc(big, 1);
    const char *bomb = tmp(state, "bomb.gz");
    write_gz(bomb, zeros, big, 1);
    free(zeros);
    assert_int_equal(trace_slurp_max(bomb, (size_t)1 << 20, &buf, &len, &partial, &e), -EFBIG);
    assert_non_null(strstr(e.msg, "bomb.gz: more than 1 MiB of text, stopped reading"));
    assert_int_equal(trace_slurp_max(bomb, big, &buf, &len, &partial, &e), 0);
    assert_int_equal(len, big);
    free(buf);

    if (access("/dev/zero", R_OK) == 0) {
        assert_int_equal(trace_slurp_max("/dev/zero", (size_t)4 << 20, &buf, &len, &partial, &e),
                         -EFBIG);
        assert_string_equal(e.msg, "/dev/zero: more than 4 MiB of text, stopped reading (an endless "
                                   "file such as /dev/zero?)");
    }
}

/* The table: each fixture goes to its importer, which loads it through trace_load(). */
static void test_format_table(void **state)
{
    static const struct {
        const char *file;
        const struct trace_format *fmt;
    } cases[] = {
        {FIX "iolog_v2.log", &trace_iolog_format},
        {FIX "iolog_v3_crlf.log", &trace_iolog_format},
        {FIX "randw_lat.1.log", &trace_latlog_format},
        {FIX "noff_clat.1.log", &trace_latlog_format},
        {FIX "old_offset_lat.1.log", &trace_latlog_format},
        {FIX "issue_lat.1.log", &trace_latlog_format},
        {FIX "jewel_array_type_data.json", &trace_historic_format},
        {FIX "jewel_array_type_data.json.gz", &trace_historic_format},
        {FIX "reef_historic_offset.json", &trace_historic_format},
        {FIX "truncated_historic.json", &trace_historic_format},
    };
    struct sim_err e = {0};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        size_t n;
        char *text = read_all(cases[i].file, &n);
        const struct trace_format *f = trace_format_sniff(text, n);
        if (f != cases[i].fmt)
            fail_msg("%s: sniffed as %s, not %s", cases[i].file, f ? f->name : "nothing",
                     cases[i].fmt->name);
        free(text);
        void *out = calloc(1, f->size);
        assert_int_equal(trace_load(f, cases[i].file, TRACE_LOAD_SALVAGE, out, &e), 0);
        f->free(out);
        free(out);
    }
    assert_ptr_equal(trace_format_sniff(osdt_text, sizeof osdt_text - 1), &trace_osdtrace_format);
    /* any "fio version" goes to the iolog parser, which names what is unsupported */
    assert_ptr_equal(trace_format_sniff("fio version 1 iolog\n", 20), &trace_iolog_format);
    assert_ptr_equal(trace_format_sniff(" \n{\"ops\": []}", 13), &trace_historic_format);
    assert_null(trace_format_sniff("", 0));
    assert_null(trace_format_sniff("hello\n", 6));
    assert_null(trace_format_sniff("1, 2, 3\n", 8)); /* 3 columns: not a latency log */

    size_t k = 0;
    for (; trace_formats[k]; k++)
        assert_non_null(trace_formats[k]->name);
    assert_int_equal(k, 4);
    /* an absent or unreadable file: the loaders' own messages */
    struct trace_latlog lat;
    assert_int_equal(trace_load(&trace_latlog_format, FIX "no_such.log", 0, &lat, &e), -ENOENT);
    assert_string_equal(e.msg, FIX "no_such.log: cannot open: No such file or directory");
    assert_int_equal(trace_load(&trace_latlog_format, FIX, 0, &lat, &e), -EISDIR);
    assert_string_equal(e.msg, FIX ": is a directory, not a file");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_time_parse),
        cmocka_unit_test(test_historic_guards),
        cmocka_unit_test(test_desc_seed),
        cmocka_unit_test(test_desc_forms),
        cmocka_unit_test(test_desc_other_and_errors),
        cmocka_unit_test(test_reef_fixture),
        cmocka_unit_test(test_jewel_fixture_plain_and_gz),
        cmocka_unit_test(test_truncated_fixture),
        cmocka_unit_test(test_truncated_gzip),
        cmocka_unit_test(test_json_errors),
        cmocka_unit_test(test_long_strings),
        cmocka_unit_test(test_samples_strict),
        cmocka_unit_test(test_samples_salvage),
        cmocka_unit_test(test_lab_qd1_window),
        cmocka_unit_test(test_lab_historic_dumps),
        cmocka_unit_test(test_lab_lockprobe),
        cmocka_unit_test(test_iolog_v2),
        cmocka_unit_test(test_iolog_v3),
        cmocka_unit_test(test_iolog_errors),
        cmocka_unit_test(test_latlog),
        cmocka_unit_test(test_latlog_errors),
        cmocka_unit_test(test_osdtrace_sample),
        cmocka_unit_test(test_osdtrace_inline),
        cmocka_unit_test(test_gzip_every_format),
        cmocka_unit_test(test_gzip_damaged),
        cmocka_unit_test(test_read_limit),
        cmocka_unit_test(test_format_table),
    };
    return cmocka_run_group_tests_name("trace", tests, tmp_setup, tmp_teardown);
}
