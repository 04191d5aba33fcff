/*
 * test_nvme.c - the NVMe device model (models/hw/nvme.c) alone, driven by the
 * real Samsung PM983 profile (hw-profiles/nvme/pm983.json) mapped to
 * nvme_params exactly as scenario_to_spec does.  A closed loop keeps QD 4 KiB
 * I/Os outstanding (fio's iodepth against the raw device): QD=1 latency is
 * the datasheet's typical latency (50 us write, 85 us read), high-QD IOPS
 * saturate at the sustained figures (50K write, 540K read), large I/O is
 * capped by the sequential bandwidth, a flush costs only the syscall on a
 * power-loss-protected drive and the device flush on one without PLP, and
 * the tail-spike knob makes a fraction p of the I/Os slow.  Sequential I/O
 * (a WAL append; a read that follows on from the previous one) takes the
 * datasheet's sequential latency (15 us) and is bounded by bandwidth only.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hwprofile.h"
#include "nvme.h"
#include "scenario.h"
#include "sim.h"
#include "stats.h"

/* The mapping scenario_to_spec uses, with the profile's constant latencies:
   these tests check the typical-latency model (measured shapes are tested
   through the lab profile elsewhere). */
static struct nvme_params params_from_profile(const struct hw_nvme *nv)
{
    struct nvme_params p;
    scenario_nvme_params(nv, &p);
    p.read_shape = p.write_shape = p.flush_shape = false;
    return p;
}

static void load(const char *name, struct hw_nvme *hw)
{
    struct sim_err err = {0};
    if (hwprofile_load_nvme(name, "hw-profiles", hw, &err) < 0)
        fail_msg("loading nvme profile %s: %s", name, err.msg);
}

/* ---- closed loop of QD outstanding I/Os ---- */

struct qd_loop {
    struct nvme_dev *d;
    enum nvme_op op;
    uint32_t bytes;
    sim_time_t t_measure, t_end;  /* count I/Os submitted in [t_measure, t_end) */
    uint64_t done;                /* ... that completed */
    uint64_t slow;                /* ... whose latency exceeded slow_ns */
    sim_time_t slow_ns;
    struct hist lat;
    uint64_t read_stride, next_addr;
};

static void io_done(struct sim *s, void *obj, uint64_t t_submit);

/* The loop's next I/O: op, or with read_stride a read at the next address
   (stride = bytes: one sequential stream; larger: every read jumps). */
static void qd_next(struct qd_loop *q, sim_time_t now)
{
    if (q->read_stride) {
        nvme_read_at(q->d, q->next_addr, q->bytes, io_done, q, now);
        q->next_addr += q->read_stride;
    } else {
        nvme_submit(q->d, q->op, q->bytes, io_done, q, now);
    }
}

static void io_done(struct sim *s, void *obj, uint64_t t_submit)
{
    struct qd_loop *q = obj;
    sim_time_t now = sim_now(s);
    if ((sim_time_t)t_submit >= q->t_measure && (sim_time_t)t_submit < q->t_end) {
        q->done++;
        hist_add(&q->lat, now - t_submit);
        if (q->slow_ns && now - (sim_time_t)t_submit > q->slow_ns)
            q->slow++;
    }
    if (now < q->t_end)
        qd_next(q, now);
}

struct qd_result {
    double iops, mean_us, p99_us, mbps, slow_frac;
};

/* Run QD outstanding I/Os for warm + measured ns of simulated time. */
/*
 * Run QD outstanding I/Os for warm + measured ns of simulated time; with
 * stride, reads at advancing addresses (nvme_read_at).  seq_out, if given,
 * gets how many I/Os the device took as sequential, and how many it did.
 */
static struct qd_result run_loop(const struct nvme_params *p, enum nvme_op op, uint32_t bytes, uint64_t stride,
                                 uint32_t qd, sim_time_t warm, sim_time_t measured, sim_time_t slow_ns,
                                 uint64_t seed, uint64_t *seq_out)
{
    struct sim *s = sim_create(seed);
    struct nvme_dev d;
    nvme_init(&d, s, p, 0);
    struct qd_loop *q = calloc(1, sizeof *q);
    *q = (struct qd_loop){.d = &d, .op = op, .bytes = bytes, .t_measure = warm,
                          .t_end = warm + measured, .slow_ns = slow_ns, .read_stride = stride};
    hist_reset(&q->lat);
    for (uint32_t i = 0; i < qd; i++)
        qd_next(q, 0);
    sim_run(s, SIM_TIME_MAX);
    /* completions of I/Os issued in the window, over the window: the closed loop
       keeps QD in flight throughout, so this is the throughput */
    struct qd_result r = {
        .iops = (double)q->done / ((double)measured / 1e9),
        .mean_us = hist_mean(&q->lat) / 1e3,
        .p99_us = (double)hist_percentile(&q->lat, 99) / 1e3,
        .slow_frac = q->done ? (double)q->slow / (double)q->done : 0,
    };
    r.mbps = r.iops * bytes / 1e6;
    if (seq_out) {
        seq_out[0] = d.seq_reads + d.seq_writes;
        seq_out[1] = d.reads + d.writes;
    }
    free(q);
    nvme_fini(&d);
    sim_destroy(s);
    return r;
}

static struct qd_result run_qd(const struct nvme_params *p, enum nvme_op op, uint32_t bytes,
                               uint32_t qd, sim_time_t warm, sim_time_t measured, sim_time_t slow_ns,
                               uint64_t seed)
{
    return run_loop(p, op, bytes, 0, qd, warm, measured, slow_ns, seed, NULL);
}

static void assert_rel(const char *what, double got, double want, double tol)
{
    if (!(fabs(got - want) <= tol * want))
        fail_msg("%s: %.6g, expected %.6g within %.1f %%", what, got, want, tol * 100);
}

/* The profile is the datasheet's: these are the numbers the device must reproduce. */
static void test_profile_mapping(void **state)
{
    struct hw_nvme hw;
    load("pm983", &hw);
    struct nvme_params p = params_from_profile(&hw);
    assert_true(p.write_latency_us == 50 && p.read_latency_us == 85);
    assert_true(p.rand_write_iops == 50000 && p.rand_read_iops == 540000);
    assert_true(p.seq_write_mbps == 2000 && p.seq_read_mbps == 3200);
    assert_true(p.plp);
}

/* QD=1: the mean latency is the typical latency within 2 % (write 50 us, read 85 us). */
static void test_qd1_latency(void **state)
{
    struct hw_nvme hw;
    load("pm983", &hw);
    struct nvme_params p = params_from_profile(&hw);
    struct qd_result w = run_qd(&p, NVME_WRITE, 4096, 1, 10 * SIM_NS_PER_MS, 500 * SIM_NS_PER_MS, 0, 1);
    struct qd_result r = run_qd(&p, NVME_READ, 4096, 1, 10 * SIM_NS_PER_MS, 500 * SIM_NS_PER_MS, 0, 2);
    assert_rel("QD1 4k write mean latency (us)", w.mean_us, 50, 0.02);
    assert_rel("QD1 4k read mean latency (us)", r.mean_us, 85, 0.02);
    /* Little's law at QD1: IOPS = 1 / latency */
    assert_rel("QD1 write IOPS", w.iops, 1e6 / w.mean_us, 0.01);
    assert_rel("QD1 read IOPS", r.iops, 1e6 / r.mean_us, 0.01);
}

/*
 * High QD: 4 KiB writes at QD 32 saturate at 50K IOPS (within 2 %); reads at
 * QD 256 at 540K (within 3 %); IOPS never exceed the cap and grow with QD.
 */
static void test_qd_saturation(void **state)
{
    struct hw_nvme hw;
    load("pm983", &hw);
    struct nvme_params p = params_from_profile(&hw);
    sim_time_t warm = 10 * SIM_NS_PER_MS, meas = 100 * SIM_NS_PER_MS;
    struct qd_result w32 = run_qd(&p, NVME_WRITE, 4096, 32, warm, meas, 0, 3);
    struct qd_result w4 = run_qd(&p, NVME_WRITE, 4096, 4, warm, meas, 0, 4);
    struct qd_result r256 = run_qd(&p, NVME_READ, 4096, 256, warm, meas, 0, 5);
    struct qd_result r8 = run_qd(&p, NVME_READ, 4096, 8, warm, meas, 0, 6);
    assert_rel("QD32 4k write IOPS", w32.iops, 50000, 0.02);
    assert_rel("QD256 4k read IOPS", r256.iops, 540000, 0.03);
    assert_true(w32.iops <= 50000 * 1.005 && r256.iops <= 540000 * 1.005);
    assert_true(w4.iops < w32.iops * 1.001 && r8.iops < r256.iops);
    /* Little's law: at saturation latency = QD / IOPS (32 / 50K = 640 us) */
    assert_rel("QD32 write latency (us)", w32.mean_us, 32 / w32.iops * 1e6, 0.02);
}

/*
 * 1 MiB I/O is capped by the sequential bandwidth, not the IOPS: writes at QD 4
 * move 2,000 MB/s, reads 3,200 MB/s (one transfer = 1,048,576 B / 2,000 MB/s
 * = 524 us, more than the 20 us an I/O slot takes).
 */
static void test_bandwidth_cap(void **state)
{
    struct hw_nvme hw;
    load("pm983", &hw);
    struct nvme_params p = params_from_profile(&hw);
    sim_time_t warm = 10 * SIM_NS_PER_MS, meas = 500 * SIM_NS_PER_MS;
    struct qd_result w = run_qd(&p, NVME_WRITE, 1 << 20, 4, warm, meas, 0, 7);
    struct qd_result r = run_qd(&p, NVME_READ, 1 << 20, 4, warm, meas, 0, 8);
    assert_rel("1 MiB write MB/s", w.mbps, 2000, 0.01);
    assert_rel("1 MiB read MB/s", r.mbps, 3200, 0.01);
    /* QD1 large write: transfer 524.3 us + the internal stage (50 - 20 us) */
    struct qd_result w1 = run_qd(&p, NVME_WRITE, 1 << 20, 1, warm, meas, 0, 9);
    assert_rel("QD1 1 MiB write latency (us)", w1.mean_us, 1048576.0 / 2000 + 30, 0.02);
}

struct flush_probe {
    sim_time_t t;
};

static void flush_done(struct sim *s, void *obj, uint64_t arg)
{
    ((struct flush_probe *)obj)->t = sim_now(s);
}

/*
 * A flush on the PLP drive (pm983) costs its fdatasync syscall only (2 us);
 * on a drive with a volatile write cache (lab-virtio, plp false) the device
 * flush, 97.8 us, i.e. ~49x more.
 */
static void test_flush_plp(void **state)
{
    const char *names[] = {"pm983", "lab-virtio"};
    double got[2];
    for (int i = 0; i < 2; i++) {
        struct hw_nvme hw;
        load(names[i], &hw);
        struct nvme_params p = params_from_profile(&hw);
        struct sim *s = sim_create(10);
        struct nvme_dev d;
        nvme_init(&d, s, &p, 0);
        struct flush_probe fp = {0};
        sim_run(s, 1000);
        nvme_submit(&d, NVME_FLUSH, 0, flush_done, &fp, 0);
        sim_run(s, SIM_TIME_MAX);
        got[i] = (double)(fp.t - 1000) / 1e3;
        assert_int_equal(d.flushes, 1);
        nvme_fini(&d);
        sim_destroy(s);
    }
    assert_true(fabs(got[0] - 2.0) < 1e-9);
    assert_true(fabs(got[1] - 97.8) < 1e-9);
}

/*
 * Tail spikes: with probability p = 0.01 an I/O gets 1 ms more.  With QD 4
 * writes for 1 s (~50K I/Os) the slow fraction (> 500 us, which a normal I/O
 * never reaches) is p within 3 binomial standard deviations, for two p; with
 * p = 0 there are none.
 */
static void test_tail_spikes(void **state)
{
    struct hw_nvme hw;
    load("pm983", &hw);
    const double probs[] = {0, 0.01, 0.002};
    for (int i = 0; i < 3; i++) {
        struct nvme_params p = params_from_profile(&hw);
        p.tail_spike_prob = probs[i];
        p.tail_spike_us = 1000;
        sim_time_t meas = 1000 * SIM_NS_PER_MS;
        struct qd_result r = run_qd(&p, NVME_WRITE, 4096, 4, 10 * SIM_NS_PER_MS, meas, 500000, 11 + (uint64_t)i);
        double n = r.iops * ((double)meas / 1e9);
        assert_true(n > 40000);
        double sd = sqrt(probs[i] * (1 - probs[i]) / n);
        if (probs[i] == 0)
            assert_true(r.slow_frac == 0);
        else if (fabs(r.slow_frac - probs[i]) > 3 * sd)
            fail_msg("tail spike p=%g: slow fraction %.5f (n=%.0f, sd %.5f)", probs[i], r.slow_frac, n, sd);
    }
}

/*
 * Sequential, by hand from the datasheet (pm983: sequential 15 / 15 us,
 * 2,000 / 3,200 MB/s): a WAL-style append (NVME_WRITE_SEQ) at QD1 takes
 * 15 us on average against 50 us for a random write; at QD32 4 KiB appends
 * are bounded by bandwidth only, 2e9 / 4096 = 488,281 IOPS, ~10x the random
 * cap of 50K.  Reads at consecutive addresses are a stream (all but the first
 * sequential: 15 us); reads that jump 1 MiB each time are random (85 us).
 */
static void test_sequential_io(void **state)
{
    struct hw_nvme hw;
    load("pm983", &hw);
    assert_true(hw.seq_write_latency_us == 15 && hw.seq_read_latency_us == 15);
    struct nvme_params p = params_from_profile(&hw);
    assert_true(p.seq_write_latency_us == 15 && p.seq_read_latency_us == 15);
    sim_time_t warm = 10 * SIM_NS_PER_MS, meas = 500 * SIM_NS_PER_MS;
    struct qd_result w = run_qd(&p, NVME_WRITE_SEQ, 4096, 1, warm, meas, 0, 31);
    assert_rel("QD1 4k sequential write mean latency (us)", w.mean_us, 15, 0.02);
    struct qd_result w32 = run_qd(&p, NVME_WRITE_SEQ, 4096, 32, warm, 50 * SIM_NS_PER_MS, 0, 32);
    assert_rel("QD32 4k sequential write IOPS", w32.iops, 2e9 / 4096, 0.02);
    uint64_t seq[2];
    struct qd_result rs = run_loop(&p, NVME_READ, 4096, 4096, 1, warm, meas, 0, 33, seq);
    assert_rel("QD1 4k sequential read mean latency (us)", rs.mean_us, 15, 0.02);
    assert_int_equal(seq[0], seq[1] - 1); /* every read after the first follows on */
    struct qd_result rr = run_loop(&p, NVME_READ, 4096, 1 << 20, 1, warm, meas, 0, 34, seq);
    assert_rel("QD1 4k jumping read mean latency (us)", rr.mean_us, 85, 0.02);
    assert_int_equal(seq[0], 0);
}

/*
 * With a measured write shape (the lab drive's fio percentiles as calibrated,
 * median 35.04 us), the sequential shape is the same scaled to the sequential
 * typical latency: with seq_write_latency_us = write_latency_us / 2 the
 * sequential median is 35.04 / 2 = 17.52 us (fio's histogram resolves it to
 * ~1.6 %); without a sequential figure it is the random shape itself.
 */
static void test_sequential_shape(void **state)
{
    struct hw_nvme hw;
    load("lab-calibrated", &hw);
    assert_false(hw.seq_write_given);
    assert_true(hw.seq_write_latency_us == hw.write_latency_us);
    double p50 = 0;
    for (int i = 0; i < hw.n_write_pct; i++)
        if (hw.write_pct[i].pct == 50)
            p50 = hw.write_pct[i].us;
    assert_true(fabs(p50 - 35.04) < 1e-9);
    for (int half = 0; half < 2; half++) {
        struct hw_nvme h2 = hw;
        if (half)
            h2.seq_write_latency_us = hw.write_latency_us / 2;
        struct nvme_params p;
        scenario_nvme_params(&h2, &p);
        assert_true(p.write_shape);
        struct sim *s = sim_create(35);
        struct nvme_dev d;
        nvme_init(&d, s, &p, 0);
        struct qd_loop *q = calloc(1, sizeof *q);
        *q = (struct qd_loop){.d = &d, .op = NVME_WRITE_SEQ, .bytes = 4096, .t_measure = 0,
                              .t_end = 2000 * SIM_NS_PER_MS};
        hist_reset(&q->lat);
        qd_next(q, 0);
        sim_run(s, SIM_TIME_MAX);
        double med = (double)hist_percentile(&q->lat, 50) / 1e3;
        double want = half ? p50 / 2 : p50;
        if (fabs(med - want) > 0.02 * want)
            fail_msg("sequential median %.3f us, expected %.3f", med, want);
        free(q);
        nvme_fini(&d);
        sim_destroy(s);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_profile_mapping),
        cmocka_unit_test(test_qd1_latency),
        cmocka_unit_test(test_qd_saturation),
        cmocka_unit_test(test_bandwidth_cap),
        cmocka_unit_test(test_flush_plp),
        cmocka_unit_test(test_tail_spikes),
        cmocka_unit_test(test_sequential_io),
        cmocka_unit_test(test_sequential_shape),
    };
    return cmocka_run_group_tests_name("nvme", tests, NULL, NULL);
}
