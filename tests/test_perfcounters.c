/*
 * test_perfcounters.c - perf dump shape against a real Ceph 16.2.15 capture
 * (key names, relative order, number formats) and avgtime arithmetic.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jsonu.h"
#include "perfcounters.h"
#include "perfdump.h"

#define REAL_PERF "../shared/data/lab/noparent_randw-qd1_sched-simple_rt_r1/osd.0.perf.json"
/* a 16.2.15 OSD's whole `perf dump`, committed with the tree (tests/data/lab2/NOTES.md) */
#define REAL_DUMP "tests/data/lab2/cluster/osd.0.asok_perf_dump.json"

static struct lat_sum ls(uint64_t n, uint64_t sum_ns)
{
    return (struct lat_sum){n, sum_ns};
}

/* Values that are all different, so a swapped field shows. */
static void fill(struct osd_perf *o, struct bluestore_perf *b)
{
    memset(o, 0, sizeof *o);
    memset(b, 0, sizeof *b);
    o->op_wip = 3;
    o->op = (struct perf_op_class){3862, 15818752, 7, ls(3862, 6206543672ull), ls(3862, 6003306615ull),
                                   ls(3862, 1434352215ull)};
    o->op_r = (struct perf_op_class){11, 12, 13, ls(11, 1100), ls(11, 1000), ls(11, 900)};
    o->op_w = (struct perf_op_class){3851, 15818740, 14, ls(3851, 6206542672ull), ls(3851, 6003305615ull),
                                     ls(3851, 1434351315ull)};
    o->op_rw = (struct perf_op_class){15, 16, 17, ls(15, 0), ls(15, 0), ls(15, 0)};
    o->op_before_queue_op_lat = ls(18226, 425963176);
    o->op_before_dequeue_op_lat = ls(18226, 1178701298);
    o->subop = 6639;
    o->subop_in_bytes = 31672791;
    o->subop_latency = ls(6639, 7373236413ull);
    o->subop_w = 6638;
    o->subop_w_in_bytes = 31672790;
    o->subop_w_latency = ls(6638, 7373236412ull);
    o->numpg = 33;
    o->numpg_primary = 12;
    o->numpg_replica = 21;
    o->rw_lock_waits = 101;
    o->requeues = 102;
    b->kv_flush_lat = ls(10501, 1250878619);
    b->kv_commit_lat = ls(10501, 4677877003ull);
    b->kv_sync_lat = ls(10501, 5928755622ull);
    b->commit_lat = ls(10501, 9660651806ull);
    b->state_kv_commiting_lat = ls(10501, 4831627064ull);
    b->deferred_write_ops = 21;
    b->deferred_write_bytes = 22;
    b->bluestore_write_big = 23;
    b->bluestore_write_big_bytes = 24;
    b->bluestore_write_small = 10501;
    b->bluestore_write_small_bytes = 43012096;
    b->bluestore_txc = 10501;
    b->kv_batches = 9000;
    b->rocksdb_bg_txcs_queued = 9100;
    b->rocksdb_bg_txcs_done = 9050;
    o->client_messages = (struct perf_throttle){.val = 1, .max = 256, .get = 4177, .get_sum = 4177,
                                                .get_or_fail_fail = 2, .get_or_fail_success = 4177, .put = 4176,
                                                .put_sum = 4176};
    o->client_bytes = (struct perf_throttle){.val = 4521, .max = 524288000, .get = 4177, .get_sum = 18884217,
                                             .get_or_fail_success = 4177, .put = 4176, .put_sum = 18879696};
    b->throttle_bytes = (struct perf_throttle){.max = 67108864, .get_started = 10501, .get = 10501,
                                               .get_sum = 141766, .put = 9000, .put_sum = 141766,
                                               .wait = ls(3, 4500)};
    b->rocksdb_submit_latency = ls(10501, 926188);
    b->rocksdb_submit_sync_latency = ls(9000, 4677877003ull);
}

static void fill_client(struct objecter_perf *p)
{
    memset(p, 0, sizeof *p);
    *p = (struct objecter_perf){.op_active = 2, .op_send = 10503, .op_send_bytes = 43216384, .op_reply = 10501,
                                .oplen_avg = ls(10503, 10610), .op = 10503, .op_r = 1, .op_w = 10395,
                                .op_rmw = 107, .osdop_stat = 106, .osdop_read = 1, .osdop_write = 10501,
                                .osdop_call = 2, .osdop_notify = 0, .osdop_other = 0};
    p->throttle_ops = (struct perf_throttle){.val = 2, .max = 1024, .get_started = 10503, .get = 10503,
                                             .get_sum = 10503, .put = 10501, .put_sum = 10501};
    p->throttle_bytes = (struct perf_throttle){.val = 8192, .max = 104857600, .get_started = 10503,
                                               .get = 10503, .get_sum = 43216384, .put = 10501,
                                               .put_sum = 43208192};
}

/* The text of a scalar as printed in our document. */
static char *our_text(const cJSON *it)
{
    return cJSON_IsRaw(it) ? strdup(it->valuestring) : cJSON_PrintUnformatted(it);
}

/* "int" for [0-9]+, "fix9" for [0-9]+.[0-9]{9}, else "other". */
static const char *number_class(const char *s, size_t n)
{
    size_t i = 0;
    while (i < n && isdigit((unsigned char)s[i]))
        i++;
    if (i == n && n > 0)
        return "int";
    if (i > 0 && i < n && s[i] == '.' && n - i - 1 == 9) {
        for (size_t j = i + 1; j < n; j++)
            if (!isdigit((unsigned char)s[j]))
                return "other";
        return "fix9";
    }
    return "other";
}

/* The number text after "key": in the real file, searching from *from (section start). */
static const char *real_number(const char *text, const char *from, const char *key, size_t *len)
{
    char pat[128];
    snprintf(pat, sizeof pat, "\"%s\": ", key);
    const char *p = strstr(from, pat);
    if (!p)
        return NULL;
    p += strlen(pat);
    size_t n = strcspn(p, ",\n}");
    while (n && isspace((unsigned char)p[n - 1]))
        n--;
    *len = n;
    (void)text;
    return p;
}

static void check_section_n(const char *text, const cJSON *real, const cJSON *ours, const char *name, int min_keys)
{
    const cJSON *rs = cJSON_GetObjectItem(real, name), *os = cJSON_GetObjectItem(ours, name);
    assert_non_null(rs);
    assert_non_null(os);
    char pat[64];
    snprintf(pat, sizeof pat, "\n    \"%s\": {", name); /* top level: 4-space indent */
    const char *sec = strstr(text, pat);
    assert_non_null(sec);

    const cJSON *r = rs->child, *o;
    int n = 0;
    cJSON_ArrayForEach(o, os)
    {
        /* subset, same relative order: advance in the real section until the key */
        while (r && strcmp(r->string, o->string) != 0)
            r = r->next;
        if (!r)
            fail_msg("%s.%s: not in the real section, or out of order", name, o->string);
        n++;
        if (cJSON_IsObject(r)) {
            assert_true(cJSON_IsObject(o));
            /* {"avgcount", "sum", "avgtime"} with the real formats */
            char kpat[96];
            snprintf(kpat, sizeof kpat, "\"%s\": {", o->string);
            const char *sub = strstr(sec, kpat);
            assert_non_null(sub);
            const cJSON *rc = r->child, *oc = o->child;
            for (; rc && oc; rc = rc->next, oc = oc->next) {
                assert_string_equal(rc->string, oc->string);
                size_t rl;
                const char *rt = real_number(text, sub, rc->string, &rl);
                assert_non_null(rt);
                char *ot = our_text(oc);
                assert_string_equal(number_class(rt, rl), number_class(ot, strlen(ot)));
                assert_string_not_equal(number_class(ot, strlen(ot)), "other");
                free(ot);
            }
            assert_null(rc);
            assert_null(oc);
        } else {
            size_t rl;
            char key[80];
            snprintf(key, sizeof key, "%s", o->string);
            const char *rt = real_number(text, sec, key, &rl);
            assert_non_null(rt);
            char *ot = our_text(o);
            assert_string_equal(number_class(rt, rl), number_class(ot, strlen(ot)));
            free(ot);
        }
        r = r->next;
    }
    assert_true(n >= min_keys);
}

static void check_section(const char *text, const cJSON *real, const cJSON *ours, const char *name)
{
    check_section_n(text, real, ours, name, 11);
}

static void test_shape_against_real(void **state)
{
    (void)state;
    if (access(REAL_PERF, R_OK) != 0)
        skip();
    struct sim_err err = {0};
    char *text;
    size_t len;
    assert_int_equal(jsonu_slurp(REAL_PERF, &text, &len, &err), 0);
    cJSON *real = cJSON_Parse(text);
    assert_non_null(real);
    struct osd_perf o;
    struct bluestore_perf b;
    fill(&o, &b);
    cJSON *ours = perfdump_osd(&o, &b);
    check_section(text, real, ours, "osd");
    check_section(text, real, ours, "bluestore");
    /* the model-only counters stay out of the Ceph sections */
    static const char *const extra[] = {"rw_lock_waits", "requeues", "kv_batches"};
    for (int i = 0; i < 3; i++) {
        assert_null(cJSON_GetObjectItem(cJSON_GetObjectItem(ours, "osd"), extra[i]));
        assert_null(cJSON_GetObjectItem(cJSON_GetObjectItem(ours, "bluestore"), extra[i]));
        assert_null(cJSON_GetObjectItem(cJSON_GetObjectItem(real, "osd"), extra[i]));
        assert_null(cJSON_GetObjectItem(cJSON_GetObjectItem(real, "bluestore"), extra[i]));
    }
    /* sections in Ceph's (sorted) order, as in the real file */
    const cJSON *s = ours->child;
    assert_string_equal(s->string, "bluestore");
    assert_string_equal(s->next->string, "cephsim");
    for (; s->next; s = s->next)
        assert_true(strcmp(s->string, s->next->string) < 0);
    cJSON_Delete(ours);
    cJSON_Delete(real);
    free(text);
}

static void test_values_and_avgtime(void **state)
{
    (void)state;
    struct osd_perf o;
    struct bluestore_perf b;
    fill(&o, &b);
    cJSON *d = perfdump_osd(&o, &b);
    char *s = cJSON_PrintUnformatted(d);
    /* the real osd.0 op_latency line: 6206543672 ns over 3862 ops */
    assert_non_null(strstr(s, "\"op_latency\":{\"avgcount\":3862,\"sum\":6.206543672,\"avgtime\":0.001607080}"));
    assert_non_null(strstr(s, "\"commit_lat\":{\"avgcount\":10501,\"sum\":9.660651806,\"avgtime\":0.000919974}"));
    /* N = 0 prints zeros with 9 decimals */
    assert_non_null(strstr(s, "\"read_lat\":{\"avgcount\":0,\"sum\":0.000000000,\"avgtime\":0.000000000}"));
    /* op_rw: counted ops with zero time */
    assert_non_null(strstr(s, "\"op_rw_latency\":{\"avgcount\":15,\"sum\":0.000000000,\"avgtime\":0.000000000}"));
    /* class byte counters: op_r out only, op_w in only, op/op_rw both */
    assert_non_null(strstr(s, "\"op_r\":11,\"op_r_out_bytes\":13,\"op_r_latency\""));
    assert_non_null(strstr(s, "\"op_w\":3851,\"op_w_in_bytes\":15818740,\"op_w_latency\""));
    assert_non_null(strstr(s, "\"op_rw\":15,\"op_rw_in_bytes\":16,\"op_rw_out_bytes\":17,"));
    assert_non_null(strstr(s, "\"op\":3862,\"op_in_bytes\":15818752,\"op_out_bytes\":7,"));
    assert_non_null(strstr(s, "\"cephsim\":{\"rw_lock_waits\":101,\"requeues\":102,\"kv_batches\":9000,"
                              "\"rocksdb_bg_txcs_queued\":9100,\"rocksdb_bg_txcs_done\":9050}"));
    free(s);

    /* reparsed, every field reads back */
    s = cJSON_PrintUnformatted(d);
    cJSON *r = cJSON_Parse(s);
    free(s);
    const cJSON *osd = cJSON_GetObjectItem(r, "osd");
    const cJSON *sub = cJSON_GetObjectItem(osd, "subop_w_latency");
    assert_true(fabs(cJSON_GetObjectItem(sub, "sum")->valuedouble - 7.373236412) < 1e-12);
    assert_true(fabs(cJSON_GetObjectItem(sub, "avgtime")->valuedouble - 0.001110761) < 1e-12);
    assert_int_equal((int)cJSON_GetObjectItem(osd, "op_wip")->valuedouble, 3);
    assert_int_equal((int)cJSON_GetObjectItem(osd, "numpg_replica")->valuedouble, 21);
    /* in memory, the raw items carry their value too */
    const cJSON *mem = cJSON_GetObjectItem(cJSON_GetObjectItem(d, "osd"), "op_latency");
    assert_true(fabs(cJSON_GetObjectItem(mem, "avgtime")->valuedouble - 0.00160708) < 1e-12);
    cJSON_Delete(r);
    cJSON_Delete(d);

    /* large sums: seconds part > 2^32 ns, avgtime truncates like Ceph's integer division */
    cJSON *sec = cJSON_CreateObject();
    struct lat_sum big = ls(3, 12345678901234ull);
    perfdump_add_time(sec, "x", &big);
    s = cJSON_PrintUnformatted(sec);
    assert_string_equal(s, "{\"x\":{\"avgcount\":3,\"sum\":12345.678901234,\"avgtime\":4115.226300411}}");
    free(s);
    cJSON_Delete(sec);

    /* a NULL section is left out */
    d = perfdump_osd(&o, NULL);
    assert_null(cJSON_GetObjectItem(d, "bluestore"));
    assert_non_null(cJSON_GetObjectItem(d, "osd"));
    assert_null(cJSON_GetObjectItem(cJSON_GetObjectItem(d, "cephsim"), "kv_batches"));
    cJSON_Delete(d);
}

/*
 * The key comparison with a real 16.2.15 OSD's whole dump: every section we
 * write (but "cephsim") is one the OSD prints, each of its keys is in the
 * real section in the same order with the same number format; the Throttle
 * and Finisher sections have the real key set exactly; a client's objecter
 * keys are the OSD objecter's (the same logger).  The sections the model
 * leaves out are listed (they are the README's comparison).
 */
static void test_key_comparison_16_2_15(void **state)
{
    (void)state;
    struct sim_err err = {0};
    char *text;
    size_t len;
    assert_int_equal(jsonu_slurp(REAL_DUMP, &text, &len, &err), 0);
    cJSON *real = cJSON_Parse(text);
    assert_non_null(real);
    struct osd_perf o;
    struct bluestore_perf b;
    fill(&o, &b);
    struct msgr_worker_perf w[3] = {
        {.recv_messages = 6378, .send_messages = 6387, .recv_bytes = 3562445565ull, .send_bytes = 4714895567ull,
         .send_ns = 10434013619ull, .send_queue_lat = ls(6387, 80391620707ull)},
        {.recv_messages = 1, .send_messages = 2, .recv_bytes = 3, .send_bytes = 4, .send_ns = 5},
        {0}};
    uint64_t running[3] = {75721185903ull, 7, 0};
    cJSON *ours = perfdump_osd_msgr(&o, &b, w, running, 3);
    assert_string_equal(cJSON_GetObjectItem(cJSON_GetObjectItem(ours, "AsyncMessenger::Worker-0"),
                                            "msgr_running_total_time")->valuestring, "75.721185903");
    int emitted = 0;
    const cJSON *sec;
    cJSON_ArrayForEach(sec, ours) {
        if (!strcmp(sec->string, "cephsim"))
            continue;
        if (!cJSON_GetObjectItem(real, sec->string))
            fail_msg("section %s is not in a 16.2.15 OSD's dump", sec->string);
        check_section_n(text, real, ours, sec->string, 2);
        bool whole = !strncmp(sec->string, "throttle-", 9) || !strncmp(sec->string, "finisher-", 9);
        if (whole)
            assert_int_equal(cJSON_GetArraySize(sec), cJSON_GetArraySize(cJSON_GetObjectItem(real, sec->string)));
        emitted++;
    }
    assert_int_equal(emitted, 11);
    static const char *const required[] = {"AsyncMessenger::Worker-2", "throttle-osd_client_messages", "throttle-osd_client_bytes",
                                           "throttle-bluestore_throttle_bytes", "rocksdb",
                                           "finisher-commit_finisher", "osd", "bluestore"};
    for (size_t i = 0; i < sizeof required / sizeof required[0]; i++)
        assert_non_null(cJSON_GetObjectItem(ours, required[i]));
    /* rocksdb: the submits, as avgcount/sum/avgtime */
    const cJSON *r = cJSON_GetObjectItem(ours, "rocksdb");
    assert_int_equal(cJSON_GetArraySize(r), 2);
    assert_string_equal(cJSON_GetObjectItem(cJSON_GetObjectItem(r, "submit_sync_latency"), "avgtime")->valuestring,
                        "0.000519764"); /* 4677877003 ns / 9000 */
    const cJSON *t = cJSON_GetObjectItem(ours, "throttle-osd_client_messages");
    assert_int_equal((int)cJSON_GetObjectItem(t, "max")->valuedouble, 256);
    assert_int_equal((int)cJSON_GetObjectItem(t, "get_or_fail_fail")->valuedouble, 2);
    /* the real sections left out, for the record */
    int absent = 0;
    cJSON_ArrayForEach(sec, real) if (!cJSON_GetObjectItem(ours, sec->string)) {
        print_message("absent (no counterpart in the model): %s\n", sec->string);
        absent++;
    }
    assert_true(absent > 0);

    struct objecter_perf p;
    fill_client(&p);
    cJSON *cl = perfdump_client(&p);
    check_section_n(text, real, cl, "objecter", 10);
    check_section_n(text, real, cl, "throttle-objecter_ops", 12);
    check_section_n(text, real, cl, "throttle-objecter_bytes", 12);
    const cJSON *oa = cJSON_GetObjectItem(cJSON_GetObjectItem(cl, "objecter"), "oplen_avg");
    assert_int_equal((int)cJSON_GetObjectItem(oa, "sum")->valuedouble, 10610);
    cJSON_Delete(cl);
    cJSON_Delete(ours);
    cJSON_Delete(real);
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shape_against_real),
        cmocka_unit_test(test_values_and_avgtime),
        cmocka_unit_test(test_key_comparison_16_2_15),
    };
    return cmocka_run_group_tests_name("perfcounters", tests, NULL, NULL);
}
