/*
 * test_replay.c - trace replay through the full model: traces from fio iologs and
 * op-tracker dumps, stable ordering, open loop at exactly the recorded arrival times,
 * closed loop at a fixed depth in recorded order, the `cephsim replay` command, and a
 * replay of the real lab window dumps (skipped when ../shared/data is absent).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <ftw.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "replay_cmd.h"
#include "replay.h"
#include "tracereplay.h"
#include "scenario.h"

#define SHARED "../shared/data/"
#define LAB SHARED "lab/"

static const char *const tiny_json =
    "{\"cluster\": {\"hosts\": 1, \"osds_per_host\": 3, \"client_hosts\": 0, \"cpu\": \"lab-vm\",\n"
    "   \"nvme\": \"lab-virtio\", \"nic\": \"loopback\", \"switch\": \"none\", \"failure_domain\": \"osd\"},\n"
    " \"pool\": {\"size\": 3, \"min_size\": 2, \"pg_num\": 8},\n"
    " \"image\": {\"kind\": \"plain\", \"size_gib\": 0.25},\n"
    " \"ceph\": {\"release\": \"16.2.15\", \"debug_osd\": 0, \"debug_ms\": 0, \"debug_bluestore\": 0,\n"
    "   \"debug_rocksdb\": 0, \"debug_bdev\": 0},\n"
    " \"clients\": {\"jobs\": \"[t]\\nioengine=rbd\\nrw=randwrite\\nbs=4k\\niodepth=1\\n\"},\n"
    " \"sim\": {\"seed\": 3}}\n";

static void spec_of(struct scenario *sc, struct cluster_spec *spec)
{
    struct sim_err err = {0};
    int rc = scenario_load(sc, NULL, tiny_json, "(tiny)", NULL, 0, &err);
    if (rc)
        fail_msg("%s", err.msg);
    assert_int_equal(scenario_to_spec(sc, 0, spec, &err), 0);
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    return remove(path);
}

/* ------------------------------------------------------------------ traces */

static void trace_from_iolog(void **state)
{
    static const char text[] =
        "fio version 3 iolog\n"
        "0 rbd add\n"
        "0 rbd open\n"
        "100 rbd write 4096 4096\n"
        "250 rbd read 8192 8192\n"
        "250 rbd sync 0 0\n"
        "900 rbd write 0 4096\n"
        "1000 rbd trim 0 4096\n"
        "1200 rbd close\n";
    struct trace_iolog log;
    struct sim_err err = {0};
    assert_int_equal(trace_iolog_parse("(v3)", text, sizeof text - 1, &log, &err), 0);
    struct replay_trace tr = {0};
    assert_int_equal(tracereplay_from_iolog(&tr, &log, &err), 0);
    trace_iolog_free(&log);
    assert_int_equal(tr.n, 3);
    assert_int_equal(tr.skipped, 5); /* add, open, sync, trim, close */
    assert_int_equal(tr.ios[0].t_ns, 100000);
    assert_int_equal(tr.ios[0].ddir, 1);
    assert_int_equal(tr.ios[1].ddir, 0);
    assert_int_equal(tr.ios[1].offset, 8192);
    assert_int_equal(tr.ios[1].len, 8192);
    assert_int_equal(tr.ios[2].t_ns, 900000);
    replay_trace_free(&tr);
}

static void trace_from_ops(void **state)
{
    static const char text[] =
        "{\"ops\": [\n"
        " {\"description\": \"osd_op(client.1.0:7 2.1f 2:61ccec0d:::rbd_data.104b745b84f5.000000000000001d:head "
        "[write 8192~4096,write 65536~8192] snapc 0=[] ondisk+write+known_if_redirected e24)\",\n"
        "  \"initiated_at\": \"2026-11-30T14:00:00.000500+0000\", \"age\": 1, \"duration\": 0.001,\n"
        "  \"type_data\": {\"flag_point\": \"done\", \"events\": []}},\n"
        " {\"description\": \"osd_op(client.1.0:8 2.3 2:c0000000:::rbd_header.104b745b84f5:head "
        "[watch ping cookie 1] snapc 0=[] ondisk+write+known_if_redirected e24)\",\n"
        "  \"initiated_at\": \"2026-11-30T14:00:00.000100+0000\", \"age\": 1, \"duration\": 0.001,\n"
        "  \"type_data\": {\"flag_point\": \"done\", \"events\": []}},\n"
        " {\"description\": \"osd_op(client.1.0:9 2.4 2:20000000:::rbd_data.104b745b84f5.0000000000000002:head "
        "[read 0~4096] snapc 0=[] ondisk+read+known_if_redirected e24)\",\n"
        "  \"initiated_at\": \"2026-11-30T14:00:00.000200+0000\", \"age\": 1, \"duration\": 0.001,\n"
        "  \"type_data\": {\"flag_point\": \"done\", \"events\": []}},\n"
        " {\"description\": \"osd_repop(client.1.0:7 2.1f e24/16 2:61ccec0d:::rbd_data.104b745b84f5."
        "000000000000001d:head v 24'5, mlcod=24'3)\",\n"
        "  \"initiated_at\": \"2026-11-30T14:00:00.000600+0000\", \"age\": 1, \"duration\": 0.001,\n"
        "  \"type_data\": {\"flag_point\": \"done\", \"events\": []}}]}\n";
    struct trace_ops ops;
    struct sim_err err = {0};
    assert_int_equal(trace_ops_parse("(dump)", text, sizeof text - 1, 0, &ops, &err), 0);
    struct replay_trace tr = {0};
    assert_int_equal(tracereplay_from_ops(&tr, &ops, 22, &err), 0);
    trace_ops_free(&ops);
    replay_trace_sort(&tr);
    assert_int_equal(tr.n, 3);
    assert_int_equal(tr.skipped, 2); /* the header watch and the repop */
    /* sorted by arrival: the read of object 2 first */
    assert_int_equal(tr.ios[0].ddir, 0);
    assert_int_equal(tr.ios[0].offset, 2ull << 22);
    /* both writes of the op, at its arrival, in op order */
    assert_int_equal(tr.ios[1].offset, (0x1dull << 22) + 8192);
    assert_int_equal(tr.ios[2].offset, (0x1dull << 22) + 65536);
    assert_int_equal(tr.ios[2].len, 8192);
    assert_int_equal(tr.ios[1].t_ns, tr.ios[2].t_ns);
    assert_int_equal(tr.ios[1].t_ns - tr.ios[0].t_ns, 300000);
    replay_trace_free(&tr);
}

static void sort_keeps_recorded_order_of_ties(void **state)
{
    struct replay_trace tr = {0};
    for (uint64_t i = 0; i < 50; i++)
        replay_trace_add(&tr, (int64_t)((50 - i) / 10) * 1000, 1, i * 4096, 4096);
    replay_trace_sort(&tr);
    for (size_t i = 1; i < tr.n; i++) {
        assert_true(tr.ios[i - 1].t_ns <= tr.ios[i].t_ns);
        if (tr.ios[i - 1].t_ns == tr.ios[i].t_ns)
            assert_true(tr.ios[i - 1].offset < tr.ios[i].offset);
    }
    replay_trace_free(&tr);
}

/* Write text to a fresh temporary file; its path in path[]. */
static void temp_trace(char path[64], const char *text)
{
    snprintf(path, 64, "/tmp/test_replay_XXXXXX");
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    size_t n = strlen(text);
    assert_int_equal(write(fd, text, n), (ssize_t)n);
    close(fd);
}

/* A fio latency log or an empty file is not a trace: a message saying what it is, not a
   JSON parse error (the op-tracker parser used to get every file that is not an iolog). */
static void latency_logs_and_empty_files_are_refused(void **state)
{
    static const char *const latlogs[] = {"tests/data/trace/randw_lat.1.log", "tests/data/trace/noff_clat.1.log",
                                          "tests/data/trace/issue_lat.1.log", "tests/data/trace/old_offset_lat.1.log"};
    for (size_t i = 0; i < sizeof latlogs / sizeof *latlogs; i++) {
        struct replay_trace tr = {0};
        struct sim_err err = {0};
        assert_int_equal(tracereplay_load(&tr, &latlogs[i], 1, 22, TRACEREPLAY_SPAN_MAX_NS, &err), -EINVAL);
        assert_non_null(strstr(err.msg, latlogs[i]));
        assert_non_null(strstr(err.msg, "a fio latency log"));
        assert_non_null(strstr(err.msg, "write_iolog"));
        assert_null(strstr(err.msg, "JSON"));
        replay_trace_free(&tr);
    }
    static const char *const empties[] = {"", " \n\n"};
    for (size_t i = 0; i < 2; i++) {
        char path[64];
        temp_trace(path, empties[i]);
        const char *p = path;
        struct replay_trace tr = {0};
        struct sim_err err = {0};
        assert_int_equal(tracereplay_load(&tr, &p, 1, 22, TRACEREPLAY_SPAN_MAX_NS, &err), -EINVAL);
        assert_non_null(strstr(err.msg, path));
        assert_non_null(strstr(err.msg, ": empty"));
        assert_null(strstr(err.msg, "JSON"));
        replay_trace_free(&tr);
        unlink(path);
    }
}

/* One timestamp ~10^4 days out had an open-loop replay walk the whole span for minutes;
   the span is bounded, and the record that stretches it is named by file and line. */
static void absurd_span_is_refused_naming_the_line(void **state)
{
    char path[64];
    temp_trace(path, "fio version 3 iolog\n0 rbd add\n0 rbd open\n100 rbd write 0 4096\n"
                     "900000000000000 rbd write 0 4096\n200 rbd write 4096 4096\n");
    const char *p = path;
    char where[80];
    snprintf(where, sizeof where, "%s:5: ", path);
    struct replay_trace tr = {0};
    struct sim_err err = {0};
    assert_int_equal(tracereplay_load(&tr, &p, 1, 22, TRACEREPLAY_SPAN_MAX_NS, &err), -EINVAL);
    assert_non_null(strstr(err.msg, where));
    assert_non_null(strstr(err.msg, "10416.7 days"));
    replay_trace_free(&tr);
    /* the span up to the limit is fine, and without a limit (closed loop) so is any */
    assert_int_equal(tracereplay_load(&tr, &p, 1, 22, 0, &err), 0);
    assert_int_equal(tr.n, 3);
    replay_trace_free(&tr);
    unlink(path);
    temp_trace(path, "fio version 3 iolog\n0 rbd add\n0 rbd open\n0 rbd write 0 4096\n"
                     "86400000000 rbd write 0 4096\n");
    assert_int_equal(tracereplay_load(&tr, &p, 1, 22, TRACEREPLAY_SPAN_MAX_NS, &err), 0);
    assert_int_equal(tr.n, 2);
    replay_trace_free(&tr);
    unlink(path);
}

/* ------------------------------------------------------------------ replays */

static void open_loop_reproduces_arrival_times(void **state)
{
    struct scenario sc;
    struct cluster_spec spec;
    spec_of(&sc, &spec);
    /* irregular arrivals from an arbitrary origin, with bursts of equal times */
    struct replay_trace tr = {0};
    int64_t t = 1764460800LL * 1000000000LL;
    uint64_t x = 12345;
    for (int i = 0; i < 400; i++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        if (i % 7)
            t += (int64_t)(x >> 40) % 3000000 + 1; /* up to 3 ms apart, ns resolution */
        replay_trace_add(&tr, t, (x >> 20) % 4 ? 1 : 0, ((x >> 8) % 60000) * 4096, 4096);
    }
    struct replay_opts o = {.mode = REPLAY_OPEN, .speed = 1, .max_s = 10};
    struct replay_result res;
    struct cluster *c = NULL;
    struct sim_err err = {0};
    int rc = replay_run(&spec, &tr, &o, &res, &c, &err);
    if (rc)
        fail_msg("%s", err.msg);
    assert_int_equal(res.n_done, tr.n);
    for (size_t i = 0; i < tr.n; i++) {
        assert_int_equal(res.t_issue[i], tr.ios[i].t_ns - tr.ios[0].t_ns); /* exactly */
        assert_true(res.t_done[i] > res.t_issue[i]);
    }
    /* fio's view of the replay: every I/O recorded in the job's result slot */
    const struct job_result *jr = cluster_job_results(c);
    assert_int_equal(jr[0].dir[0].total_ios + jr[0].dir[1].total_ios, tr.n);
    assert_true(res.lat_mean_us > 100 && res.lat_p99_us >= res.lat_p50_us);
    cluster_destroy(c);
    replay_result_free(&res);
    /* twice as fast: half the gaps */
    o.speed = 2;
    assert_int_equal(replay_run(&spec, &tr, &o, &res, NULL, &err), 0);
    for (size_t i = 0; i < tr.n; i++)
        assert_true(llabs((long long)res.t_issue[i] - (long long)(tr.ios[i].t_ns - tr.ios[0].t_ns) / 2) <= 1);
    replay_result_free(&res);
    replay_trace_free(&tr);
    scenario_free(&sc);
}

static void closed_loop_keeps_depth(void **state)
{
    struct scenario sc;
    struct cluster_spec spec;
    spec_of(&sc, &spec);
    struct replay_trace tr = {0};
    for (uint64_t i = 0; i < 200; i++)
        replay_trace_add(&tr, (int64_t)i * 1000000000, 1, (i * 7919 % 60000) * 4096, 4096);
    struct replay_opts o = {.mode = REPLAY_CLOSED, .iodepth = 4, .max_s = 10};
    struct replay_result res;
    struct sim_err err = {0};
    assert_int_equal(replay_run(&spec, &tr, &o, &res, NULL, &err), 0);
    assert_int_equal(res.n_done, tr.n);
    for (size_t i = 0; i < 4; i++)
        assert_int_equal(res.t_issue[i], 0); /* the first iodepth at once */
    for (size_t i = 1; i < tr.n; i++)
        assert_true(res.t_issue[i] >= res.t_issue[i - 1]); /* recorded order */
    for (size_t i = 4; i < tr.n; i++) {
        /* issued when an earlier I/O completed: at most 4 in flight, never idle */
        int inflight = 0, completes_now = 0;
        for (size_t k = 0; k < i; k++) {
            inflight += res.t_issue[k] <= res.t_issue[i] && res.t_done[k] > res.t_issue[i];
            completes_now += res.t_done[k] == res.t_issue[i];
        }
        assert_true(inflight <= 3);
        assert_true(completes_now >= 1);
    }
    /* the recorded times do not matter in closed loop: 200 s of trace run in well under 1 s */
    assert_true(res.makespan < 1000000000);
    replay_result_free(&res);
    /* bad options */
    o.iodepth = 0;
    assert_int_equal(replay_run(&spec, &tr, &o, &res, NULL, &err), -EINVAL);
    struct replay_trace empty = {0};
    o.iodepth = 1;
    assert_int_equal(replay_run(&spec, &empty, &o, &res, NULL, &err), -EINVAL);
    replay_trace_free(&tr);
    scenario_free(&sc);
}

static void replay_command(void **state)
{
    char dir[256], scen[300], log[300], out[300], path[400];
    snprintf(dir, sizeof dir, "/tmp/cephsim-test-replay-%ld", (long)getpid());
    nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
    assert_int_equal(mkdir(dir, 0777), 0);
    snprintf(scen, sizeof scen, "%s/tiny.json", dir);
    snprintf(log, sizeof log, "%s/trace.iolog", dir);
    snprintf(out, sizeof out, "%s/out", dir);
    FILE *f = fopen(scen, "w");
    fputs(tiny_json, f);
    fclose(f);
    f = fopen(log, "w");
    fprintf(f, "fio version 2 iolog\nrbd add\nrbd open\n");
    for (int i = 0; i < 20; i++)
        fprintf(f, "rbd write %d 4096\nrbd wait 1500 0\n", i * 4096);
    fprintf(f, "rbd close\n");
    fclose(f);
    char *ok[] = {"replay", log, "--scenario", scen, "-o", out, "-q", NULL};
    assert_int_equal(cmd_replay(7, ok), 0);
    snprintf(path, sizeof path, "%s/fio.json", out);
    assert_int_equal(access(path, R_OK), 0);
    snprintf(path, sizeof path, "%s/replay.iolog", out);
    f = fopen(path, "r");
    assert_non_null(f);
    char line[128];
    int writes = 0;
    long long ts = -1;
    while (fgets(line, sizeof line, f)) {
        long long t, off, len;
        if (sscanf(line, "%lld rbd write %lld %lld", &t, &off, &len) == 3) {
            assert_int_equal(t, (long long)writes * 1500); /* v2 waits are us, cumulative */
            ts = t;
            writes++;
        }
    }
    fclose(f);
    assert_int_equal(writes, 20);
    assert_int_equal(ts, 19 * 1500);
    char *closed[] = {"replay", log, "--scenario", scen, "--mode", "closed", "--iodepth", "8", "-o", out, "-q", NULL};
    assert_int_equal(cmd_replay(11, closed), 0);
    char *badmode[] = {"replay", log, "--scenario", scen, "--mode", "sideways", NULL};
    assert_int_equal(cmd_replay(6, badmode), 2);
    char *depth_open[] = {"replay", log, "--scenario", scen, "--iodepth", "4", NULL};
    assert_int_equal(cmd_replay(6, depth_open), 2);
    char *notrace[] = {"replay", "--scenario", scen, NULL};
    assert_int_equal(cmd_replay(3, notrace), 2);
    char *missing[] = {"replay", "/nonexistent.iolog", "--scenario", scen, "-q", NULL};
    assert_int_equal(cmd_replay(5, missing), 2);
    nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static void real_window_dumps_replay(void **state)
{
    if (access(SHARED, R_OK) != 0)
        skip();
    const char *paths[] = {LAB "noparent_randw-qd1_sched-simple_rt_r1/osd.0.historic_window.json.gz",
                           LAB "noparent_randw-qd1_sched-simple_rt_r1/osd.1.historic_window.json.gz",
                           LAB "noparent_randw-qd1_sched-simple_rt_r1/osd.2.historic_window.json.gz"};
    struct replay_trace tr = {0};
    struct sim_err err = {0};
    int rc = tracereplay_load(&tr, paths, 3, 22, TRACEREPLAY_SPAN_MAX_NS, &err);
    if (rc)
        fail_msg("%s", err.msg);
    /* every primary write of the 1 s window (about the run's 525 IOPS), 4 KiB each */
    assert_true(tr.n > 500 && tr.n < 700);
    for (size_t i = 0; i < tr.n; i++) {
        assert_int_equal(tr.ios[i].ddir, 1);
        assert_int_equal(tr.ios[i].len, 4096);
        assert_true(tr.ios[i].offset + 4096 <= 2ull << 30); /* the 2 GiB image */
        if (i)
            assert_true(tr.ios[i].t_ns >= tr.ios[i - 1].t_ns);
    }
    double span = (double)(tr.ios[tr.n - 1].t_ns - tr.ios[0].t_ns) / 1e9;
    assert_true(span > 0.9 && span < 2.0);
    /* through the lab scenario, open loop */
    struct scenario sc;
    if (scenario_load(&sc, "scenarios/lab.json", NULL, NULL, NULL, 0, &err) < 0)
        fail_msg("%s", err.msg);
    struct cluster_spec spec;
    assert_int_equal(scenario_to_spec(&sc, 0, &spec, &err), 0);
    struct replay_opts o = {.mode = REPLAY_OPEN, .speed = 1, .max_s = 10};
    struct replay_result res;
    assert_int_equal(replay_run(&spec, &tr, &o, &res, NULL, &err), 0);
    assert_int_equal(res.n_done, tr.n);
    for (size_t i = 0; i < tr.n; i++)
        assert_int_equal(res.t_issue[i], tr.ios[i].t_ns - tr.ios[0].t_ns);
    replay_result_free(&res);
    scenario_free(&sc);
    replay_trace_free(&tr);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(trace_from_iolog),
        cmocka_unit_test(trace_from_ops),
        cmocka_unit_test(sort_keeps_recorded_order_of_ties),
        cmocka_unit_test(latency_logs_and_empty_files_are_refused),
        cmocka_unit_test(absurd_span_is_refused_naming_the_line),
        cmocka_unit_test(open_loop_reproduces_arrival_times),
        cmocka_unit_test(closed_loop_keeps_depth),
        cmocka_unit_test(replay_command),
        cmocka_unit_test(real_window_dumps_replay),
    };
    return cmocka_run_group_tests_name("replay", tests, NULL, NULL);
}
