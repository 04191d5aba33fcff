/*
 * test_client.c - the client model (fio jobs, librbd, the simple scheduler,
 * clone guards and copy-up) checked end to end: inline scenarios are loaded
 * with scenario_load, simulated with cluster_run, and judged only through the
 * public outputs: the fio results (cluster.h), every OSD's
 * dump_historic_ops JSON (historicops_dump, with a history large enough to keep
 * every op) and the perf dump JSON (perfdump_osd).
 *
 * The historic ops give, per op that reached a primary: the client tid, the
 * PG, the object name (rbd_data.<id>.<objno %016x>), the op vector
 * ("[stat,write 0~4096]"), the acting set ("waiting for subops from 1,2" on
 * the primary, osd_repop on the replicas), and its OSD-side start and
 * duration.  That is enough to recover the offsets fio issued, the librbd
 * striping, the merging of the simple scheduler and the copy-up sequence.
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

#include <cjson/cJSON.h>

#include "cluster.h"
#include "fioout.h"
#include "historicops.h"
#include "jsonu.h"
#include "optracker.h"
#include "perfcounters.h"
#include "perfdump.h"
#include "scenario.h"

#define MIB (1024ull * 1024ull)

/* A small cluster; rbd_io_scheduler none unless a test asks; every op kept. */
static const char base_sections[] =
    "{\"cluster\": {\"hosts\": 3, \"osds_per_host\": 2, \"client_hosts\": 1},"
    " \"pool\": {\"size\": 3, \"pg_num\": 32},"
    " \"image\": {\"size_gib\": 1},"
    " \"ceph\": {\"rbd_io_scheduler\": \"none\", \"osd_op_history_size\": 1000000},"
    " \"sim\": {\"duration_s\": 0.3, \"warmup_s\": 0, \"seed\": 1}}";

/* One op as dump_historic_ops shows it. */
struct hop {
    uint32_t osd;          /* the OSD whose dump holds it */
    bool repop;            /* osd_repop on a replica (else osd_op on the primary) */
    uint32_t client, pg;
    uint64_t tid;
    char obj[96];          /* object name */
    char ops[2048];        /* the op vector without brackets */
    double start, dur;     /* s; start relative to the dump time (= -age) */
    uint32_t acting[8];    /* primary ops: primary then "waiting for subops from" */
    int n_acting;
};

struct run {
    struct scenario sc;
    struct cluster_spec spec;
    struct cluster *c;
    struct hop *ops;       /* primary ops, sorted by (client, tid) */
    size_t n;
    struct hop *repops;
    size_t n_repops;
    double op_w, op_r, op_rw; /* perf dump counts summed over OSDs */
};

static int cmp_hop(const void *a, const void *b)
{
    const struct hop *x = a, *y = b;
    if (x->client != y->client)
        return x->client < y->client ? -1 : 1;
    if (x->tid != y->tid)
        return x->tid < y->tid ? -1 : 1;
    return 0;
}

static char *scenario_text(const char *jobs)
{
    cJSON *j = cJSON_Parse(base_sections);
    assert_non_null(j);
    cJSON *cl = cJSON_AddObjectToObject(j, "clients");
    cJSON_AddStringToObject(cl, "jobs", jobs);
    char *text = cJSON_PrintUnformatted(j);
    cJSON_Delete(j);
    return text;
}

static void parse_events(struct hop *h, const cJSON *op)
{
    const cJSON *evs = cJSON_GetObjectItem(cJSON_GetObjectItem(op, "type_data"), "events");
    const cJSON *e;
    h->acting[0] = h->osd;
    h->n_acting = 1;
    cJSON_ArrayForEach(e, evs) {
        const char *name = cJSON_GetStringValue(cJSON_GetObjectItem(e, "event"));
        static const char prefix[] = "waiting for subops from ";
        if (!name || strncmp(name, prefix, sizeof prefix - 1))
            continue;
        char buf[64], *save = NULL;
        snprintf(buf, sizeof buf, "%s", name + sizeof prefix - 1);
        for (char *t = strtok_r(buf, ",", &save); t && h->n_acting < 8; t = strtok_r(NULL, ",", &save))
            h->acting[h->n_acting++] = (uint32_t)strtoul(t, NULL, 10);
    }
}

static void collect_ops(struct run *r)
{
    size_t cap = 1024, rcap = 1024;
    r->ops = calloc(cap, sizeof *r->ops);
    r->repops = calloc(rcap, sizeof *r->repops);
    sim_time_t now = sim_now(cluster_sim(r->c));
    for (uint32_t i = 0; i < cluster_n_osds(r->c); i++) {
        cJSON *d = historicops_dump(cluster_optracker(r->c, i), now, r->spec.wall_epoch_ns, 0);
        const cJSON *op;
        cJSON_ArrayForEach(op, cJSON_GetObjectItem(d, "ops")) {
            const char *desc = cJSON_GetStringValue(cJSON_GetObjectItem(op, "description"));
            assert_non_null(desc);
            struct hop h = {.osd = i};
            h.start = -fioout_num(cJSON_GetObjectItem(op, "age"));
            h.dur = fioout_num(cJSON_GetObjectItem(op, "duration"));
            if (sscanf(desc, "osd_op(client.%" SCNu32 ".0:%" SCNu64 " %*u.%" SCNx32 " %*u:%*x:::%95[^:]:head [%2047[^]]]",
                       &h.client, &h.tid, &h.pg, h.obj, h.ops) == 5) {
                parse_events(&h, op);
                if (r->n == cap)
                    r->ops = realloc(r->ops, (cap *= 2) * sizeof *r->ops);
                r->ops[r->n++] = h;
            } else if (sscanf(desc, "osd_repop(client.%" SCNu32 ".0:%" SCNu64 " %*u.%" SCNx32 " e%*u/%*u %*u:%*x:::%95[^:]:head",
                              &h.client, &h.tid, &h.pg, h.obj) == 4) {
                h.repop = true;
                if (r->n_repops == rcap)
                    r->repops = realloc(r->repops, (rcap *= 2) * sizeof *r->repops);
                r->repops[r->n_repops++] = h;
            } else if (strncmp(desc, "osd_repop_reply(", 16)) {
                fail_msg("unparsed historic op description: %s", desc);
            }
        }
        cJSON_Delete(d);
        cJSON *perf = perfdump_osd(cluster_osd_perf(r->c, i), NULL);
        const cJSON *osd = cJSON_GetObjectItem(perf, "osd");
        r->op_w += fioout_num(cJSON_GetObjectItem(osd, "op_w"));
        r->op_r += fioout_num(cJSON_GetObjectItem(osd, "op_r"));
        r->op_rw += fioout_num(cJSON_GetObjectItem(osd, "op_rw"));
        cJSON_Delete(perf);
    }
    qsort(r->ops, r->n, sizeof *r->ops, cmp_hop);
}

/* Load the base scenario with jobs and --set overrides, simulate it, collect the outputs. */
static void run_jobs(struct run *r, const char *jobs, const char *const *sets, int n_sets)
{
    memset(r, 0, sizeof *r);
    char *text = scenario_text(jobs);
    struct sim_err err = {0};
    int rc = scenario_load(&r->sc, NULL, text, "inline.json", sets, n_sets, &err);
    free(text);
    if (rc < 0)
        fail_msg("scenario_load: %s", err.msg);
    if (scenario_to_spec(&r->sc, 0, &r->spec, &err) < 0)
        fail_msg("scenario_to_spec: %s", err.msg);
    r->c = cluster_create(&r->spec, &err);
    if (!r->c)
        fail_msg("cluster_create: %s", err.msg);
    cluster_run(r->c, NULL, NULL);
    collect_ops(r);
}

static void run_free(struct run *r)
{
    cluster_destroy(r->c);
    scenario_free(&r->sc);
    free(r->ops);
    free(r->repops);
    memset(r, 0, sizeof *r);
}

static const struct job_ddir_stats *wstats(const struct run *r, int job)
{
    return &cluster_job_results(r->c)[job].dir[FIO_DDIR_WRITE];
}

static double job_iops(const struct run *r, int ddir)
{
    double ios = 0;
    const struct job_result *jr = cluster_job_results(r->c);
    for (uint32_t i = 0; i < cluster_n_jobs(r->c); i++)
        ios += (double)jr[i].dir[ddir].total_ios;
    return ios / ((double)jr[0].runtime_ns / 1e9);
}

/* ---- op-vector helpers ---- */

/* The i-th comma-separated entry of an op vector into buf; false past the end. */
static bool op_entry(const char *ops, int i, char *buf, size_t n)
{
    const char *p = ops;
    for (int k = 0; k < i; k++) {
        p = strchr(p, ',');
        if (!p)
            return false;
        p++;
    }
    size_t len = strcspn(p, ",");
    if (len >= n)
        len = n - 1;
    memcpy(buf, p, len);
    buf[len] = '\0';
    return true;
}

static int count_entries(const char *ops, const char *verb)
{
    char e[160];
    int n = 0;
    size_t vl = strlen(verb);
    for (int i = 0; op_entry(ops, i, e, sizeof e); i++)
        if (!strncmp(e, verb, vl) && (e[vl] == ' ' || e[vl] == '\0'))
            n++;
    return n;
}

/* The first "write off~len" entry; false if none. */
static bool write_extent(const struct hop *h, uint64_t *off, uint64_t *len)
{
    char e[160];
    for (int i = 0; op_entry(h->ops, i, e, sizeof e); i++)
        if (sscanf(e, "write %" SCNu64 "~%" SCNu64, off, len) == 2)
            return true;
    return false;
}

static uint64_t written_bytes(const struct hop *h)
{
    char e[160];
    uint64_t off, len, sum = 0;
    for (int i = 0; op_entry(h->ops, i, e, sizeof e); i++)
        if (sscanf(e, "write %" SCNu64 "~%" SCNu64, &off, &len) == 2)
            sum += len;
    return sum;
}

/* Image id and object number of rbd_data.<id>.<objno>; false if not that shape. */
static bool object_id(const char *name, uint64_t *image_id, uint64_t *objno)
{
    const char *dot = strrchr(name, '.');
    if (strncmp(name, "rbd_data.", 9) || !dot || strlen(dot + 1) != 16)
        return false;
    for (const char *p = dot + 1; *p; p++)
        if (!((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f')))
            return false;
    char *end;
    *image_id = strtoull(name + 9, &end, 16);
    if (end != dot)
        return false;
    *objno = strtoull(dot + 1, NULL, 16);
    return true;
}

static bool of_image(const struct run *r, const struct hop *h, uint64_t *objno)
{
    uint64_t id;
    return object_id(h->obj, &id, objno) && id == r->spec.image.id;
}

/* ---- librbd mapping ---- */

/* Sequential 8k writes starting 4k before the end of object 2: the first I/O
   is split by the Striper into two object extents, the next ones follow. */
static void check_striping(uint32_t order)
{
    uint64_t osz = 1ull << order;
    char jobs[512], set_order[64];
    snprintf(jobs, sizeof jobs,
             "[seq]\nioengine=rbd\nrw=write\nbs=8k\niodepth=1\noffset=%" PRIu64 "\nsize=1m\nnumber_ios=4\n",
             3 * osz - 4096);
    snprintf(set_order, sizeof set_order, "image.order=%u", order);
    const char *sets[] = {set_order};
    struct run r;
    run_jobs(&r, jobs, sets, 1);
    assert_int_equal(r.spec.image.order, order);
    assert_int_equal(wstats(&r, 0)->total_ios, 4);
    const struct { uint64_t objno, off, len; } want[] = {
        {2, osz - 4096, 4096}, {3, 0, 4096}, {3, 4096, 8192}, {3, 12288, 8192}, {3, 20480, 8192}};
    assert_int_equal(r.n, 5);
    for (size_t i = 0; i < 5; i++) {
        char name[96];
        snprintf(name, sizeof name, "rbd_data.%" PRIx64 ".%016" PRIx64, r.spec.image.id, want[i].objno);
        assert_string_equal(r.ops[i].obj, name);
        uint64_t off, len;
        assert_true(write_extent(&r.ops[i], &off, &len));
        assert_int_equal(off, want[i].off);
        assert_int_equal(len, want[i].len);
        assert_int_equal(count_entries(r.ops[i].ops, "write"), 1);
    }
    run_free(&r);
}

static void test_striping_order22(void **state) { check_striping(22); }
static void test_striping_order20(void **state) { check_striping(20); }

/* Object names, object -> PG stable across runs and workloads, PGs spread. */
static void test_object_names_and_pgs(void **state)
{
    const char *jobs = "[r]\nioengine=rbd\nrw=randwrite\nbs=4k\niodepth=4\ntime_based\n";
    struct run a, b;
    run_jobs(&a, jobs, NULL, 0);
    const char *sets[] = {"sim.seed=7", "fio.rw=randread"};
    run_jobs(&b, jobs, sets, 2);
    uint64_t n_obj = a.spec.image.size_bytes >> a.spec.image.order;
    int32_t *pg_of = malloc(n_obj * sizeof *pg_of);
    for (uint64_t i = 0; i < n_obj; i++)
        pg_of[i] = -1;
    uint8_t used_pg[32] = {0};
    int n_pg = 0, common = 0;
    for (int pass = 0; pass < 2; pass++) {
        struct run *r = pass ? &b : &a;
        assert_true(r->n > 200);
        for (size_t i = 0; i < r->n; i++) {
            uint64_t objno;
            if (!of_image(r, &r->ops[i], &objno))
                fail_msg("not an object of the image: %s", r->ops[i].obj);
            assert_true(objno < n_obj);
            assert_true(r->ops[i].pg < 32);
            if (pg_of[objno] < 0) {
                pg_of[objno] = (int32_t)r->ops[i].pg;
                if (!used_pg[r->ops[i].pg]++)
                    n_pg++;
            } else {
                if (pass)
                    common++;
                if ((uint32_t)pg_of[objno] != r->ops[i].pg)
                    fail_msg("%s in PG %x and %x", r->ops[i].obj, pg_of[objno], r->ops[i].pg);
            }
        }
    }
    assert_true(common > 50);
    assert_true(n_pg >= 24); /* ~256 objects over 32 PGs */
    free(pg_of);
    run_free(&a);
    run_free(&b);
}

/* Acting sets from the dumps: size distinct OSDs, the same per PG, the repops on the replicas. */
static void check_acting(const char *const *sets, int n_sets, uint32_t size, bool distinct_hosts,
                         bool expect_shared_host)
{
    struct run r;
    run_jobs(&r, "[r]\nioengine=rbd\nrw=randwrite\nbs=4k\niodepth=4\ntime_based\n", sets, n_sets);
    uint32_t oph = r.spec.osds_per_host, pg_num = r.spec.pg_num;
    assert_int_equal(r.spec.pool_size, size);
    int32_t *first = malloc(pg_num * 8 * sizeof *first);
    for (uint32_t i = 0; i < pg_num * 8; i++)
        first[i] = -1;
    bool shared_host = false;
    size_t checked = 0;
    for (size_t i = 0; i < r.n; i++) {
        const struct hop *h = &r.ops[i];
        assert_int_equal(h->n_acting, (int)size);
        for (int x = 0; x < h->n_acting; x++) {
            assert_true(h->acting[x] < cluster_n_osds(r.c));
            for (int y = 0; y < x; y++) {
                assert_int_not_equal(h->acting[x], h->acting[y]);
                if (h->acting[x] / oph == h->acting[y] / oph) {
                    shared_host = true;
                    if (distinct_hosts)
                        fail_msg("PG %x: osd.%u and osd.%u on one host", h->pg, h->acting[x], h->acting[y]);
                }
            }
            int32_t *f = &first[h->pg * 8 + x];
            if (*f < 0)
                *f = (int32_t)h->acting[x];
            else if ((uint32_t)*f != h->acting[x])
                fail_msg("PG %x: acting set changed", h->pg);
        }
        /* the replicas hold the osd_repop of this tid */
        int found = 0;
        for (size_t k = 0; k < r.n_repops; k++) {
            const struct hop *p = &r.repops[k];
            if (p->client != h->client || p->tid != h->tid)
                continue;
            assert_int_equal(p->pg, h->pg);
            assert_string_equal(p->obj, h->obj);
            bool in = false;
            for (int x = 1; x < h->n_acting; x++)
                in |= p->osd == h->acting[x];
            assert_true(in);
            found++;
        }
        assert_int_equal(found, (int)size - 1);
        checked++;
    }
    assert_true(checked > 200);
    assert_true(shared_host == expect_shared_host);
    free(first);
    run_free(&r);
}

static void test_acting_distinct_hosts(void **state)
{
    const char *sets[] = {"cluster.hosts=4", "cluster.osds_per_host=3", "pool.pg_num=64"};
    check_acting(sets, 3, 3, true, false);
    const char *sets2[] = {"cluster.hosts=4", "cluster.osds_per_host=3", "pool.size=2", "pool.min_size=1"};
    check_acting(sets2, 4, 2, true, false);
}

static void test_acting_distinct_osds(void **state)
{
    /* fewer hosts than replicas under the host rule: refused (a real pool's PGs
       would stay undersized), where it was once placed on distinct OSDs silently */
    const char *sets[] = {"cluster.hosts=2", "cluster.osds_per_host=3"};
    struct scenario sc;
    struct sim_err err = {0};
    char *text = scenario_text("[w]\nioengine=rbd\nrw=randwrite\nbs=4k\n");
    assert_true(scenario_load(&sc, NULL, text, "inline.json", sets, 2, &err) < 0);
    free(text);
    assert_non_null(strstr(err.msg, "cluster.hosts: 2 hosts cannot hold pool.size 3 replicas on distinct hosts"));
    /* the same with failure_domain osd: distinct OSDs, some necessarily on one host */
    const char *sets1[] = {"cluster.hosts=2", "cluster.osds_per_host=3", "cluster.failure_domain=osd"};
    check_acting(sets1, 3, 3, false, true);
    /* failure_domain osd: distinct OSDs, hosts no longer kept apart */
    const char *sets2[] = {"cluster.hosts=3", "cluster.osds_per_host=3", "cluster.failure_domain=osd",
                           "pool.pg_num=64"};
    check_acting(sets2, 4, 3, false, true);
}

/* ---- fio semantics ---- */

static uint64_t image_offset(const struct run *r, const struct hop *h)
{
    uint64_t objno, off, len;
    assert_true(of_image(r, h, &objno));
    assert_true(write_extent(h, &off, &len));
    return (objno << r->spec.image.order) + off;
}

/* Offsets by tid (QD 1, no merging): +bs(+skip) each time, back to the start past the end. */
static void check_seq(const char *rw, uint64_t bs, uint64_t step)
{
    char jobs[256];
    uint64_t start = MIB, size = 64 * 1024;
    snprintf(jobs, sizeof jobs, "[s]\nioengine=rbd\nrw=%s\nbs=%" PRIu64 "\noffset=1m\nsize=64k\niodepth=1\ntime_based\n",
             rw, bs);
    struct run r;
    run_jobs(&r, jobs, NULL, 0);
    assert_true(r.n > 50);
    assert_int_equal(image_offset(&r, &r.ops[0]), start);
    int wraps = 0;
    for (size_t i = 1; i < r.n; i++) {
        uint64_t prev = image_offset(&r, &r.ops[i - 1]), cur = image_offset(&r, &r.ops[i]);
        uint64_t off, len;
        write_extent(&r.ops[i], &off, &len);
        assert_int_equal(len, bs);
        assert_true(cur >= start && cur + bs <= start + size);
        if (cur == prev + step)
            continue;
        if (cur == start && prev + step + bs > start + size) {
            wraps++;
            continue;
        }
        fail_msg("%s: offset %" PRIu64 " after %" PRIu64, rw, cur, prev);
    }
    assert_true(wraps >= 2);
    run_free(&r);
}

static void test_seq_offsets(void **state)
{
    check_seq("write", 8192, 8192);
    check_seq("write:8k", 4096, 12288);
}

static void test_rand_offsets(void **state)
{
    struct run r;
    run_jobs(&r, "[r]\nioengine=rbd\nrw=randwrite\nbs=8k\noffset=2m\nsize=6m\niodepth=4\ntime_based\n", NULL, 0);
    assert_true(r.n > 300);
    uint8_t *seen = calloc(768, 1);
    int distinct = 0;
    for (size_t i = 0; i < r.n; i++) {
        uint64_t off = image_offset(&r, &r.ops[i]), o, len;
        write_extent(&r.ops[i], &o, &len);
        assert_int_equal(len, 8192);
        assert_int_equal(off % 8192, 0);
        assert_true(off >= 2 * MIB && off + len <= 8 * MIB);
        if (!seen[(off - 2 * MIB) / 8192]++)
            distinct++;
    }
    assert_true(distinct > (int)r.n / 2); /* uniform, not a few repeated blocks */
    free(seen);
    run_free(&r);
}

static void test_rwmixread(void **state)
{
    static const int mix[] = {70, 20};
    for (int k = 0; k < 2; k++) {
        char jobs[256];
        snprintf(jobs, sizeof jobs, "[m]\nioengine=rbd\nrw=randrw\nrwmixread=%d\nbs=4k\niodepth=4\ntime_based\n", mix[k]);
        const char *sets[] = {"sim.duration_s=0.6"};
        struct run r;
        run_jobs(&r, jobs, sets, 1);
        const struct job_result *jr = cluster_job_results(r.c);
        double rd = (double)jr->dir[FIO_DDIR_READ].total_ios, wr = (double)jr->dir[FIO_DDIR_WRITE].total_ios;
        assert_true(rd + wr > 800);
        double frac = rd / (rd + wr);
        if (fabs(frac - mix[k] / 100.0) > 0.05)
            fail_msg("rwmixread=%d: read fraction %.3f", mix[k], frac);
        /* the OSDs saw the same mix */
        double osd_frac = r.op_r / (r.op_r + r.op_w);
        assert_true(fabs(osd_frac - frac) < 0.03);
        run_free(&r);
    }
}

static void test_bssplit(void **state)
{
    struct run r;
    /* norandommap: with the map fio cuts an I/O at the first block already done (mark_random_map) */
    run_jobs(&r, "[b]\nioengine=rbd\nrw=randwrite\nbssplit=4k/75:64k/25\niodepth=4\ntime_based\nnorandommap\n", NULL, 0);
    size_t n4 = 0, n64 = 0, cut = 0;
    uint64_t obj = 1ull << r.spec.image.order;
    for (size_t i = 0; i < r.n; i++) {
        uint64_t off, len;
        assert_true(write_extent(&r.ops[i], &off, &len));
        assert_int_equal(off % 4096, 0); /* fio's blockalign: the smallest block size */
        if (len == 4096)
            n4++;
        else if (len == 65536)
            n64++;
        else if (len < 65536 && len % 4096 == 0 && (off == 0 || off + len == obj))
            cut++; /* a 64k write across an object boundary, in two parts */
        else
            fail_msg("bssplit 4k/75:64k/25 issued %" PRIu64 " bytes", len);
    }
    /* a 64k write at a 4k-aligned offset crosses a 4 MiB object boundary with odds 15/1024 */
    assert_true(cut < 0.1 * (double)n64);
    assert_true(n4 + n64 > 300);
    double f = (double)n4 / (double)(n4 + n64);
    if (fabs(f - 0.75) > 0.05)
        fail_msg("4k share %.3f", f);
    const struct job_ddir_stats *w = wstats(&r, 0);
    double mean = (double)w->io_bytes / (double)w->total_ios;
    assert_true(fabs(mean - (0.75 * 4096 + 0.25 * 65536)) < 0.12 * 19456);
    run_free(&r);
}

static void test_limits_stop_job(void **state)
{
    struct run r;
    /* number_ios */
    run_jobs(&r, "[n]\nioengine=rbd\nrw=randwrite\nbs=4k\niodepth=4\nnumber_ios=50\n", NULL, 0);
    assert_int_equal(wstats(&r, 0)->total_ios, 50);
    assert_int_equal(r.n, 50);
    assert_true(fabs(r.op_w - 50) < 0.5);
    run_free(&r);
    /* size: 64k of 4k blocks */
    run_jobs(&r, "[s]\nioengine=rbd\nrw=write\nbs=4k\niodepth=2\nsize=64k\n", NULL, 0);
    assert_int_equal(wstats(&r, 0)->total_ios, 16);
    assert_int_equal(wstats(&r, 0)->io_bytes, 65536);
    assert_int_equal(r.n, 16);
    run_free(&r);
    /* io_size within the region: 16k, and 25 % of the 64k region (fio's io_size_percent) */
    run_jobs(&r, "[s]\nioengine=rbd\nrw=write\nbs=4k\niodepth=2\nsize=64k\nio_size=16k\n", NULL, 0);
    assert_int_equal(wstats(&r, 0)->total_ios, 4);
    run_free(&r);
    run_jobs(&r, "[s]\nioengine=rbd\nrw=write\nbs=4k\niodepth=2\nsize=64k\nio_size=25%\n", NULL, 0);
    assert_int_equal(wstats(&r, 0)->total_ios, 4);
    run_free(&r);
    /* the same job time_based keeps going */
    run_jobs(&r, "[s]\nioengine=rbd\nrw=write\nbs=4k\niodepth=2\nsize=64k\ntime_based\n", NULL, 0);
    assert_true(wstats(&r, 0)->total_ios > 100);
    run_free(&r);
}

/* The spread of the client ops' start times (s) of r, and the smallest gap between two. */
static double op_start_span(const struct run *r, double *min_gap)
{
    double lo = 1e9, hi = -1e9;
    *min_gap = 1e9;
    for (size_t i = 0; i < r->n; i++) {
        lo = fmin(lo, r->ops[i].start);
        hi = fmax(hi, r->ops[i].start);
        for (size_t k = 0; k < i; k++)
            *min_gap = fmin(*min_gap, fabs(r->ops[i].start - r->ops[k].start));
    }
    return hi - lo;
}

/*
 * startdelay=A-B: each clone draws its own delay in [A, B] (fio's
 * rand_between on the job's delay_state); a single value delays every clone
 * alike.  Eight clones of one write each, no exclusive lock to order them:
 * their ops start where their delays put them.
 */
static void test_startdelay_range(void **state)
{
    const char *sets[] = {"image.exclusive_lock=false", "image.object_map=false"};
    struct run r;
    double gap;
    run_jobs(&r, "[d]\nioengine=rbd\nrw=randwrite\nbs=4k\niodepth=1\nnumber_ios=1\nnumjobs=8\nstartdelay=50ms\n",
             sets, 2);
    assert_int_equal(r.n, 8);
    assert_true(op_start_span(&r, &gap) < 0.001);
    run_free(&r);
    run_jobs(&r, "[d]\nioengine=rbd\nrw=randwrite\nbs=4k\niodepth=1\nnumber_ios=1\nnumjobs=8\nstartdelay=10ms-90ms\n",
             sets, 2);
    assert_int_equal(r.n, 8);
    /* 8 uniform draws over 80 ms span 62 ms on average; under 30 ms with probability
       8 * (3/8)^7 ~ 0.1 %: this seed's draws are fixed, so the bound is checked once */
    double span = op_start_span(&r, &gap);
    if (!(span > 0.030 && span < 0.081 && gap > 1e-6))
        fail_msg("start span %.4f s, smallest gap %.6f s", span, gap);
    run_free(&r);
}

/*
 * ramp_time: the measured interval starts after it.  As in fio (io_completed
 * accounts only once ramp_time_over), completions during the ramp are not
 * counted; completions after it are, whenever the I/O was issued.
 */
static void test_ramp_time_excluded(void **state)
{
    struct run ramp, plain;
    run_jobs(&ramp, "[q]\nioengine=rbd\nrw=randwrite\nbs=4k\niodepth=1\ntime_based\nramp_time=200ms\n", NULL, 0);
    run_jobs(&plain, "[q]\nioengine=rbd\nrw=randwrite\nbs=4k\niodepth=1\ntime_based\n", NULL, 0);
    assert_int_equal(ramp.spec.warmup_ns, 200000000);
    const struct job_result *jr = cluster_job_results(ramp.c);
    assert_int_equal(jr->runtime_ns, 300000000);
    uint64_t ios = jr->dir[FIO_DDIR_WRITE].total_ios;
    /* the OSD history also restarts at the measured start: at QD=1 the two counts
       differ by the I/O straddling the start and the one in flight at the end */
    assert_true(ios > 50);
    if (llabs((long long)ramp.n - (long long)ios) > 2)
        fail_msg("%" PRIu64 " fio I/Os counted, %zu ops reached the OSDs after the ramp", ios, ramp.n);
    /* the same count as a run of the same measured length without ramp */
    uint64_t ios_plain = wstats(&plain, 0)->total_ios;
    assert_true(fabs((double)ios - (double)ios_plain) < 0.1 * (double)ios_plain);
    run_free(&ramp);
    run_free(&plain);
}

static void test_rate_iops(void **state)
{
    const char *sets[] = {"sim.duration_s=1"};
    struct run r, free_run;
    run_jobs(&r, "[q]\nioengine=rbd\nrw=randwrite\nbs=4k\niodepth=4\nrate_iops=300\ntime_based\n", sets, 1);
    run_jobs(&free_run, "[q]\nioengine=rbd\nrw=randwrite\nbs=4k\niodepth=4\ntime_based\n", sets, 1);
    double capped = job_iops(&r, FIO_DDIR_WRITE), uncapped = job_iops(&free_run, FIO_DDIR_WRITE);
    if (fabs(capped - 300) > 10 || uncapped < 600)
        fail_msg("rate_iops=300: %.1f IOPS (uncapped %.1f)", capped, uncapped);
    run_free(&r);
    run_free(&free_run);
}

/* Image offsets of the writes of the k-th client (in client order), by tid: the issue order at QD=1. */
static int client_offsets(const struct run *r, int k, uint64_t *out, int max)
{
    int n = 0, seen = -1;
    uint32_t cur = UINT32_MAX;
    for (size_t i = 0; i < r->n; i++) {
        if (r->ops[i].client != cur) {
            cur = r->ops[i].client;
            seen++;
        }
        if (seen == k && n < max)
            out[n++] = image_offset(r, &r->ops[i]);
    }
    return n;
}

/*
 * randseed / randrepeat (init.c setup_random_seeds): with randrepeat=1 the
 * offsets follow randseed and the thread number only, so another scenario
 * seed (other service times) replays the same offsets; randrepeat=0 takes the
 * scenario seed (fio: the OS's entropy).
 */
static void test_randseed_repeats_offsets(void **state)
{
    enum { N = 100 };
    static const char job[] = "[r]\nioengine=rbd\nrw=randwrite\nbs=4k\niodepth=1\ntime_based\n";
    static const char *const seed2[] = {"sim.seed=2"};
    static const char *const norep[] = {"fio.randrepeat=0"};
    static const char *const norep2[] = {"fio.randrepeat=0", "sim.seed=2"};
    static const char *const other[] = {"fio.randseed=7"};
    uint64_t a[N], b[N];
    struct run r1, r2;
    run_jobs(&r1, job, NULL, 0);
    run_jobs(&r2, job, seed2, 1);
    assert_int_equal(client_offsets(&r1, 0, a, N), N);
    assert_int_equal(client_offsets(&r2, 0, b, N), N);
    assert_memory_equal(a, b, sizeof a);
    /* the seed did change the run: other service times */
    assert_true(hist_mean(&wstats(&r1, 0)->clat) != hist_mean(&wstats(&r2, 0)->clat));
    run_free(&r2);
    run_jobs(&r2, job, other, 1);
    client_offsets(&r2, 0, b, N);
    assert_memory_not_equal(a, b, sizeof a);
    run_free(&r1);
    run_free(&r2);
    run_jobs(&r1, job, norep, 1);
    run_jobs(&r2, job, norep2, 2);
    client_offsets(&r1, 0, a, N);
    client_offsets(&r2, 0, b, N);
    assert_memory_not_equal(a, b, sizeof a);
    run_free(&r1);
    run_free(&r2);
    /* two clones of a job: other thread numbers, other offsets (writing side
       by side: without the exclusive lock, that they would take turns with) */
    static const char *const shared[] = {"image.exclusive_lock=false"};
    run_jobs(&r1, "[r]\nioengine=rbd\nrw=randwrite\nbs=4k\niodepth=1\nnumjobs=2\ntime_based\n", shared, 1);
    assert_int_equal(client_offsets(&r1, 0, a, N), N);
    assert_int_equal(client_offsets(&r1, 1, b, N), N);
    assert_memory_not_equal(a, b, sizeof a);
    run_free(&r1);
}

/* rw=randwrite:8 (ddir_seq_nr): a random offset, then 7 I/Os each after the previous one. */
static void test_rw_seq_nr_runs(void **state)
{
    enum { N = 400 };
    uint64_t o[N];
    struct run r;
    run_jobs(&r, "[r]\nioengine=rbd\nrw=randwrite:8\nbs=4k\niodepth=1\ntime_based\n", NULL, 0);
    int n = client_offsets(&r, 0, o, N), jumps = 0;
    assert_true(n > 200);
    for (int i = 1; i < n; i++) {
        if (i % 8)
            assert_int_equal(o[i], o[i - 1] + 4096);
        else
            jumps += o[i] != o[i - 1] + 4096;
    }
    assert_true(jumps >= (n - 1) / 8 - 1);
    run_free(&r);
}

/* bsrange=4k-16k (get_next_buflen): 4, 8, 12, 16k equally often, at 4k-aligned offsets. */
static void test_bsrange_sizes(void **state)
{
    struct run r;
    /* 0.6 s: well over 1,000 writes to count (0.3 s gave 986 once kv_sync paid for its memtable inserts) */
    const char *sets[] = {"sim.duration_s=0.6"};
    run_jobs(&r, "[b]\nioengine=rbd\nrw=randwrite\nbsrange=4k-16k\nnorandommap\niodepth=4\ntime_based\n", sets, 1);
    uint64_t obj = 1ull << r.spec.image.order;
    size_t cnt[4] = {0}, cut = 0;
    for (size_t i = 0; i < r.n; i++) {
        uint64_t off, len;
        assert_true(write_extent(&r.ops[i], &off, &len));
        assert_int_equal(off % 4096, 0);
        assert_true(len % 4096 == 0 && len >= 4096 && len <= 16384);
        if (off + len == obj || (off == 0 && len < 16384))
            cut++; /* possibly one part of a write across two objects */
        else
            cnt[len / 4096 - 1]++;
    }
    size_t tot = cnt[0] + cnt[1] + cnt[2] + cnt[3];
    if (!(tot > 1000 && cut < tot / 20))
        fail_msg("%zu whole writes, %zu cut at an object end", tot, cut);
    double chi2 = 0;
    for (int v = 0; v < 4; v++)
        chi2 += (cnt[v] - tot / 4.0) * (cnt[v] - tot / 4.0) / (tot / 4.0);
    if (chi2 > 16.3) /* 3 degrees of freedom, p = 0.001 */
        fail_msg("bsrange=4k-16k sizes %zu %zu %zu %zu: chi2 %.1f", cnt[0], cnt[1], cnt[2], cnt[3], chi2);
    const struct job_ddir_stats *w = wstats(&r, 0);
    double mean = (double)w->io_bytes / (double)w->total_ios;
    double se = 4096 * sqrt(1.25) / sqrt((double)w->total_ios);
    if (fabs(mean - 10240) > 5 * se)
        fail_msg("bsrange=4k-16k mean block %.0f, expected 10240 +- %.0f", mean, 5 * se);
    run_free(&r);
}

static int peak_in_flight(const struct run *r)
{
    int peak = 0;
    for (size_t i = 0; i < r->n; i++) {
        int in = 0;
        for (size_t k = 0; k < r->n; k++)
            in += r->ops[k].start <= r->ops[i].start && r->ops[k].start + r->ops[k].dur > r->ops[i].start;
        peak = in > peak ? in : peak;
    }
    return peak;
}

/*
 * thinktime at iodepth 16 (backend.c handle_thinktime): once thinktime_blocks
 * I/Os are counted, fio stops issuing, waits for every I/O in flight and
 * sleeps.  Counting issues (thinktime_blocks_type=issue), a cycle is 4 I/Os
 * then 1 ms plus the drain: IOPS < 4 / 1 ms = 4000 and at most 4 in flight.
 * Counting completions (the default), the 4th completion stalls with 15 still
 * in flight, which complete during the drain, and the I/O issued after the
 * sleep meets the count already reached: a second stall.  So 19 I/Os per two
 * sleeps: IOPS < 19 / 2 ms = 9500, above the issue-side bound.
 */
static void test_thinktime_iodepth(void **state)
{
    const char *sets[] = {"sim.duration_s=0.5"};
    struct run iss, cpl, none, spin;
    run_jobs(&iss, "[t]\nioengine=rbd\nrw=randwrite\nbs=4k\niodepth=16\nthinktime=1ms\nthinktime_blocks=4\n"
                   "thinktime_blocks_type=issue\ntime_based\n", sets, 1);
    run_jobs(&cpl, "[t]\nioengine=rbd\nrw=randwrite\nbs=4k\niodepth=16\nthinktime=1ms\nthinktime_blocks=4\n"
                   "time_based\n", sets, 1);
    run_jobs(&none, "[t]\nioengine=rbd\nrw=randwrite\nbs=4k\niodepth=16\ntime_based\n", sets, 1);
    double i_iss = job_iops(&iss, FIO_DDIR_WRITE), i_cpl = job_iops(&cpl, FIO_DDIR_WRITE);
    double i_none = job_iops(&none, FIO_DDIR_WRITE);
    /* the drain of 4 I/Os takes about one latency of 4 in parallel (clat mean) */
    double lat = hist_mean(&wstats(&iss, 0)->clat) / 1e9;
    double expect = 4 / (1e-3 + lat);
    if (!(i_iss < 4000 && fabs(i_iss / expect - 1) < 0.15))
        fail_msg("issue-side thinktime: %.0f IOPS, expected ~%.0f (< 4000)", i_iss, expect);
    assert_true(peak_in_flight(&iss) <= 4);
    if (!(i_cpl < 9500 && i_cpl > 1.3 * i_iss))
        fail_msg("completion-side thinktime: %.0f IOPS, expected < 9500 and above %.0f", i_cpl, i_iss);
    assert_true(i_none > 2 * i_cpl);
    run_free(&cpl);

    /* thinktime_spin=500: the fio thread is busy 0.5 ms of each 1 ms think, same timing */
    run_jobs(&spin, "[t]\nioengine=rbd\nrw=randwrite\nbs=4k\niodepth=16\nthinktime=1ms\nthinktime_blocks=4\n"
                    "thinktime_blocks_type=issue\nthinktime_spin=500\ntime_based\n", sets, 1);
    double stalls = job_iops(&spin, FIO_DDIR_WRITE) / 4;
    double extra = cluster_job_results(spin.c)->usr_cpu - cluster_job_results(iss.c)->usr_cpu;
    if (fabs(extra / (100 * stalls * 0.5e-3) - 1) > 0.1)
        fail_msg("thinktime_spin: %.1f%% more CPU for %.0f stalls/s of 0.5 ms", extra, stalls);
    assert_true(fabs(job_iops(&spin, FIO_DDIR_WRITE) / i_iss - 1) < 0.05);
    run_free(&spin);
    run_free(&iss);

    /* thinktime_iotime: 50 ms of I/O, then (the drain and) 50 ms of stall: about half the I/Os */
    run_jobs(&iss, "[t]\nioengine=rbd\nrw=randwrite\nbs=4k\niodepth=16\nthinktime=50ms\nthinktime_iotime=50ms\n"
                   "time_based\n", sets, 1);
    double ratio = job_iops(&iss, FIO_DDIR_WRITE) / i_none;
    if (fabs(ratio - 0.5) > 0.06)
        fail_msg("thinktime_iotime=50ms, thinktime=50ms: %.3f of the free-running IOPS", ratio);
    run_free(&iss);
    run_free(&none);
}

static void test_numjobs_group_reporting(void **state)
{
    /* four writers of one image in parallel: without exclusive-lock (with it
       they take turns, test_exclusive_lock_ping_pong) */
    const char *shared[] = {"image.exclusive_lock=false"};
    struct run one, many;
    run_jobs(&one, "[q]\nioengine=rbd\nrw=randwrite\nbs=4k\niodepth=1\ntime_based\n", shared, 1);
    run_jobs(&many, "[q]\nioengine=rbd\nrw=randwrite\nbs=4k\niodepth=1\nnumjobs=4\ntime_based\n", shared, 1);
    assert_int_equal(cluster_n_jobs(one.c), 1);
    assert_int_equal(cluster_n_jobs(many.c), 4);
    const struct job_result *jr = cluster_job_results(many.c);
    uint64_t sum = 0;
    for (int i = 0; i < 4; i++) {
        assert_string_equal(jr[i].jobname, "q");
        assert_true(jr[i].dir[FIO_DDIR_WRITE].total_ios > 50);
        sum += jr[i].dir[FIO_DDIR_WRITE].total_ios;
    }
    /* four QD=1 workers in parallel, not one */
    assert_true(job_iops(&many, FIO_DDIR_WRITE) > 2.5 * job_iops(&one, FIO_DDIR_WRITE));
    /* up to 4 ops in flight at the primaries at once */
    int peak = 0;
    for (size_t i = 0; i < many.n; i++) {
        int in = 0;
        for (size_t k = 0; k < many.n; k++)
            in += many.ops[k].start <= many.ops[i].start && many.ops[k].start + many.ops[k].dur > many.ops[i].start;
        if (in > peak)
            peak = in;
    }
    assert_true(peak >= 3 && peak <= 4);
    /* group_reporting: one entry holding all; without it, one per clone */
    struct fioout_opts o = {.fio_version = "fio-3.33", .group_reporting = true};
    cJSON *g = fioout_json(jr, 4, &o);
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(g, "jobs")), 1);
    const cJSON *w = cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(g, "jobs"), 0), "write");
    assert_true(fioout_num(cJSON_GetObjectItem(w, "total_ios")) == (double)sum);
    cJSON_Delete(g);
    o.group_reporting = false;
    g = fioout_json(jr, 4, &o);
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(g, "jobs")), 4);
    cJSON_Delete(g);
    run_free(&one);
    run_free(&many);
}

/* ---- SimpleSchedulerObjectDispatch ---- */

static void test_simple_scheduler_merges_sequential(void **state)
{
    const char *jobs = "[s]\nioengine=rbd\nrw=write\nbs=4k\niodepth=32\nsize=4m\ntime_based\n";
    const char *simple[] = {"ceph.rbd_io_scheduler=simple"};
    struct run s, n;
    run_jobs(&s, jobs, simple, 1);
    run_jobs(&n, jobs, NULL, 0);
    double fio_s = (double)wstats(&s, 0)->total_ios, fio_n = (double)wstats(&n, 0)->total_ios;
    /* none: one OSD op per fio I/O; simple: merged, far fewer */
    assert_true(fabs(n.op_w - fio_n) <= 32);
    if (!(s.op_w * 3 < fio_s))
        fail_msg("simple: %.0f op_w for %.0f fio I/Os", s.op_w, fio_s);
    bool merged = false;
    for (size_t i = 0; i < s.n; i++) {
        uint64_t off, len;
        assert_true(write_extent(&s.ops[i], &off, &len));
        assert_int_equal(len % 4096, 0);
        merged |= len > 4096;
    }
    assert_true(merged);
    if (!(job_iops(&s, FIO_DDIR_WRITE) > 1.5 * job_iops(&n, FIO_DDIR_WRITE)))
        fail_msg("simple %.0f IOPS vs none %.0f", job_iops(&s, FIO_DDIR_WRITE), job_iops(&n, FIO_DDIR_WRITE));
    run_free(&s);
    run_free(&n);
}

/*
 * From 16.2 the client's two io_context threads dispatch writes in parallel,
 * so they reach the scheduler out of order; try_delay_request merges a held
 * write front and back and try_merge_delayed_requests joins the neighbours,
 * so the held writes of an object still end as contiguous runs.  Sequential
 * 4 KiB writes over one 4 MiB object (size=4m) at iodepth 32: while one
 * write is in flight the other 31 are held, and when it completes they go
 * out as one run, two where the offsets wrap at 4 MiB: at most ~2 OSD
 * writes per 31 fio I/Os once the scheduler holds writes (merging with one
 * neighbour only left 3x as many).
 */
static void test_simple_scheduler_merges_out_of_order(void **state)
{
    const char *jobs = "[s]\nioengine=rbd\nrw=write\nbs=4k\niodepth=32\nsize=4m\ntime_based\n";
    const char *sets[] = {"ceph.rbd_io_scheduler=simple", "ceph.release=16.2.15"};
    struct run r;
    run_jobs(&r, jobs, sets, 2);
    /* until rbd_simple_scheduler_min_samples (10) writes have completed none
       is held: up to 10 + 32 go out alone */
    double fio = (double)wstats(&r, 0)->total_ios - 42, ops = r.op_w - 42;
    print_message("%.0f OSD writes for %.0f fio I/Os after the first 42: %.2f a round of 31\n", ops, fio,
                  ops * 31 / fio);
    if (!(ops * 31 <= 2.5 * fio))
        fail_msg("%.0f OSD writes for %.0f fio I/Os: %.1f a round of 31, expected at most ~2", ops, fio,
                 ops * 31 / fio);
    run_free(&r);
}

static void test_simple_scheduler_random_close(void **state)
{
    const char *jobs = "[r]\nioengine=rbd\nrw=randwrite\nbs=4k\niodepth=32\ntime_based\n";
    const char *simple[] = {"ceph.rbd_io_scheduler=simple", "image.size_gib=100"};
    const char *none[] = {"image.size_gib=100"};
    struct run s, n;
    run_jobs(&s, jobs, simple, 2);
    run_jobs(&n, jobs, none, 1);
    double fio_s = (double)wstats(&s, 0)->total_ios;
    assert_true(fio_s > 1000);
    assert_true(fabs(s.op_w - fio_s) < 0.02 * fio_s + 32);
    double is = job_iops(&s, FIO_DDIR_WRITE), in = job_iops(&n, FIO_DDIR_WRITE);
    if (fabs(is - in) > 0.05 * in)
        fail_msg("random writes: simple %.0f IOPS vs none %.0f", is, in);
    run_free(&s);
    run_free(&n);
}

/* Nothing is held before rbd_simple_scheduler_min_samples writes completed. */
static void test_simple_scheduler_min_samples(void **state)
{
    const char *jobs = "[s]\nioengine=rbd\nrw=write\nbs=4k\niodepth=32\nsize=4m\nnumber_ios=300\n";
    struct run r;
    const char *def[] = {"ceph.rbd_io_scheduler=simple"};
    run_jobs(&r, jobs, def, 1);
    assert_int_equal(r.spec.ceph.rbd_simple_scheduler_min_samples, 10);
    assert_int_equal(wstats(&r, 0)->total_ios, 300);
    /* 32 issued at once, then 9 more after the first 9 completions: all unmerged */
    size_t first_merged = r.n;
    uint64_t bytes = 0;
    for (size_t i = 0; i < r.n; i++) {
        uint64_t off, len;
        write_extent(&r.ops[i], &off, &len);
        bytes += len;
        if (len > 4096 && first_merged == r.n)
            first_merged = i;
    }
    assert_int_equal(bytes, 300 * 4096);
    if (first_merged < 40 || first_merged == r.n)
        fail_msg("first merged op is op #%zu of %zu", first_merged, r.n);
    run_free(&r);
    /* never enough samples: nothing merged */
    const char *never[] = {"ceph.rbd_io_scheduler=simple", "ceph.rbd_simple_scheduler_min_samples=1000"};
    run_jobs(&r, jobs, never, 2);
    assert_int_equal(r.n, 300);
    run_free(&r);
    /* no threshold: the second write is already held and merged */
    const char *zero[] = {"ceph.rbd_io_scheduler=simple", "ceph.rbd_simple_scheduler_min_samples=0"};
    run_jobs(&r, jobs, zero, 2);
    uint64_t off, len;
    assert_true(r.n < 100);
    write_extent(&r.ops[1], &off, &len);
    assert_true(len > 4096);
    run_free(&r);
}

/*
 * Merged writes must still complete exactly the fio I/Os they carry: at any
 * time the write bytes at the primaries are at most iodepth * bs.  Sequential
 * 12k writes cross object boundaries (4 MiB is not a multiple of 12k), so
 * some I/Os are split in two object requests of which one may be merged.
 */
static void test_simple_scheduler_split_ios_keep_iodepth(void **state)
{
    const char *sets[] = {"ceph.rbd_io_scheduler=simple", "sim.duration_s=1"};
    struct run r;
    run_jobs(&r, "[s]\nioengine=rbd\nrw=write\nbs=12k\niodepth=32\nsize=64m\ntime_based\n", sets, 2);
    size_t n = r.n;
    struct { double t; int64_t d; } *ev = calloc(2 * n, sizeof *ev);
    for (size_t i = 0; i < n; i++) {
        int64_t b = (int64_t)written_bytes(&r.ops[i]);
        ev[2 * i].t = r.ops[i].start;
        ev[2 * i].d = b;
        ev[2 * i + 1].t = r.ops[i].start + r.ops[i].dur;
        ev[2 * i + 1].d = -b;
    }
    /* sort by time, ends before starts at equal times */
    for (size_t i = 1; i < 2 * n; i++)
        for (size_t k = i; k > 0 && (ev[k].t < ev[k - 1].t || (ev[k].t == ev[k - 1].t && ev[k].d < ev[k - 1].d)); k--) {
            __typeof__(*ev) t = ev[k];
            ev[k] = ev[k - 1];
            ev[k - 1] = t;
        }
    int64_t cur = 0, peak = 0;
    for (size_t i = 0; i < 2 * n; i++) {
        cur += ev[i].d;
        if (cur > peak)
            peak = cur;
    }
    free(ev);
    if (peak > 32 * 12288)
        fail_msg("%" PRId64 " write bytes at the primaries at once, iodepth*bs = %d: merged object "
                 "requests completed fio I/Os they did not carry",
                 peak, 32 * 12288);
    run_free(&r);
}

/* ---- clone writes: guard designs and copy-up ---- */

enum op_class { OC_PARENT_READ, OC_COPYUP, OC_MAP_UPDATE, OC_OTHER };

static enum op_class classify(const struct run *r, const struct hop *h)
{
    uint64_t id, objno;
    if (!strncmp(h->obj, "rbd_object_map.", 15))
        return OC_MAP_UPDATE;
    if (object_id(h->obj, &id, &objno) && id != r->spec.image.id && !strncmp(h->ops, "read 0~", 7))
        return OC_PARENT_READ;
    char e[160];
    if (op_entry(h->ops, 0, e, sizeof e) && !strncmp(e, "call rbd.", 9) && strstr(e, "copyup") &&
        count_entries(h->ops, "write") > 0)
        return OC_COPYUP;
    return OC_OTHER;
}

static const char *const guards[] = {"assert_exists", "write_flag", "stat_roundtrip", "object_map_skip", "none"};

/* Is ops the form the design sends for a write to an object that exists? */
static bool steady_form(const char *guard, bool object_map, const char *ops, const char *prev_ops)
{
    if (!strcmp(guard, "assert_exists"))
        return !strncmp(ops, "stat,", 5) && count_entries(ops, "write") == 1;
    if (!strcmp(guard, "write_flag") || !strcmp(guard, "none"))
        return !strncmp(ops, "write ", 6);
    if (!strcmp(guard, "stat_roundtrip"))
        return !strcmp(ops, "stat") || (!strncmp(ops, "write ", 6) && prev_ops && !strcmp(prev_ops, "stat"));
    /* object_map_skip: no guard when the map says the object exists */
    return object_map ? !strncmp(ops, "write ", 6) : !strncmp(ops, "stat,", 5) && count_entries(ops, "write") == 1;
}

/* The guarded first attempt on an object not yet copied up (no object map). */
static bool first_attempt_form(const char *guard, const char *ops)
{
    if (!strcmp(guard, "write_flag"))
        return !strncmp(ops, "write ", 6);
    if (!strcmp(guard, "stat_roundtrip"))
        return !strcmp(ops, "stat");
    return !strncmp(ops, "stat,", 5) && count_entries(ops, "write") == 1;
}

static void run_clone(struct run *r, const char *guard, bool object_map, double copied_up, const char *jobs,
                      const char *sched)
{
    char g[64], om[64], cu[64], sc[64];
    snprintf(g, sizeof g, "image.guard=%s", guard);
    snprintf(om, sizeof om, "image.object_map=%s", object_map ? "true" : "false");
    snprintf(cu, sizeof cu, "image.copied_up=%g", copied_up);
    snprintf(sc, sizeof sc, "ceph.rbd_io_scheduler=%s", sched);
    const char *sets[] = {"image.kind=clone", g, om, cu, sc};
    run_jobs(r, jobs, sets, 5);
    assert_int_equal(r->spec.image.kind, IMAGE_CLONE);
}

/* QD=1 writes over 4 objects of a fresh clone, every design with and without the object map. */
static void test_copyup_sequence(void **state)
{
    const char *jobs = "[c]\nioengine=rbd\nrw=randwrite\nbs=4k\niodepth=1\nsize=16m\nnumber_ios=40\n";
    for (size_t gi = 0; gi < sizeof guards / sizeof guards[0]; gi++)
        for (int om = 0; om < 2; om++) {
            const char *guard = guards[gi];
            bool none = !strcmp(guard, "none");
            struct run r;
            run_clone(&r, guard, om, 0, jobs, "none");
            assert_int_equal(wstats(&r, 0)->total_ios, 40);
            /* per object: attempts before the copy-up, the parent read, the copy-up, then steady writes */
            for (uint64_t obj = 0; obj < 4; obj++) {
                int stage = 0, n_reads = 0, n_copyups = 0, n_ops = 0;
                const char *prev = NULL;
                for (size_t i = 0; i < r.n; i++) {
                    const struct hop *h = &r.ops[i];
                    uint64_t id, objno;
                    if (!object_id(h->obj, &id, &objno) || objno != obj)
                        continue;
                    enum op_class k = classify(&r, h);
                    /* object map updates: test_copyup_object_map_update */
                    if (k == OC_MAP_UPDATE || (!strncmp(h->ops, "call ", 5) && count_entries(h->ops, "write") == 0))
                        continue;
                    n_ops++;
                    if (k == OC_PARENT_READ) {
                        n_reads++;
                        if (stage != 0)
                            fail_msg("%s om=%d obj %" PRIu64 ": parent read after the copy-up", guard, om, obj);
                        stage = 1;
                    } else if (k == OC_COPYUP) {
                        n_copyups++;
                        if (stage != 1)
                            fail_msg("%s om=%d obj %" PRIu64 ": copy-up without a parent read", guard, om, obj);
                        stage = 2;
                    } else if (stage == 0) {
                        /* before the copy-up: the guarded attempt (no map) or nothing (map) */
                        if (!none && (om || !first_attempt_form(guard, h->ops)))
                            fail_msg("%s om=%d obj %" PRIu64 ": [%s] before the copy-up", guard, om, obj, h->ops);
                        if (none && strncmp(h->ops, "write ", 6))
                            fail_msg("none: [%s]", h->ops);
                    } else if (stage == 2) {
                        if (!steady_form(guard, om, h->ops, prev))
                            fail_msg("%s om=%d obj %" PRIu64 ": [%s] after the copy-up", guard, om, obj, h->ops);
                    } else {
                        fail_msg("%s om=%d obj %" PRIu64 ": [%s] between parent read and copy-up", guard, om, obj, h->ops);
                    }
                    if (id == r.spec.image.id)
                        prev = h->ops;
                }
                if (n_ops == 0)
                    continue;
                /* none: no copy-up ever; the others: exactly one per object */
                assert_int_equal(n_reads, none ? 0 : 1);
                assert_int_equal(n_copyups, none ? 0 : 1);
            }
            run_free(&r);
        }
}

/*
 * With the object map, librbd updates rbd_object_map.<id> (cls
 * rbd.object_map_update) before the copy-up of each object; the update is an
 * op on the map object, not on the data object.
 */
static void test_copyup_object_map_update(void **state)
{
    const char *jobs = "[c]\nioengine=rbd\nrw=randwrite\nbs=4k\niodepth=1\nsize=16m\nnumber_ios=40\n";
    struct run r;
    run_clone(&r, "assert_exists", true, 0, jobs, "none");
    int copyups = 0, updates = 0;
    char bad[2400] = "";
    for (size_t i = 0; i < r.n; i++) {
        const struct hop *h = &r.ops[i];
        enum op_class k = classify(&r, h);
        copyups += k == OC_COPYUP;
        if (k == OC_MAP_UPDATE) {
            updates++;
            if (!strstr(h->ops, "object_map_update") && !bad[0])
                snprintf(bad, sizeof bad, "map update [%s]", h->ops);
        }
        /* a copy-up class call must carry the data write */
        if (strstr(h->ops, "copyup") && k != OC_COPYUP && !bad[0])
            snprintf(bad, sizeof bad, "object map update shown as [%s] on %s", h->ops, h->obj);
    }
    run_free(&r); /* before failing: keep the ASan build's leak report clean */
    if (bad[0])
        fail_msg("%s", bad);
    assert_true(copyups > 0);
    assert_int_equal(updates, copyups);
}

/* QD=32 on one object of a fresh clone: one copy-up, the others wait and complete with it. */
static void test_copyup_concurrent_writers(void **state)
{
    const char *jobs = "[c]\nioengine=rbd\nrw=randwrite\nbs=4k\niodepth=32\nsize=4m\nnumber_ios=64\n";
    static const char *const scheds[] = {"none", "simple"};
    for (size_t gi = 0; gi < 4; gi++)
        for (int om = 0; om < 2; om++)
            for (int si = 0; si < 2; si++) {
                struct run r;
                run_clone(&r, guards[gi], om, 0, jobs, scheds[si]);
                assert_int_equal(wstats(&r, 0)->total_ios, 64);
                int reads = 0, copyups = 0;
                for (size_t i = 0; i < r.n; i++) {
                    enum op_class k = classify(&r, &r.ops[i]);
                    reads += k == OC_PARENT_READ;
                    copyups += k == OC_COPYUP;
                }
                if (reads != 1 || copyups != 1)
                    fail_msg("%s om=%d %s: %d parent reads, %d copy-ups", guards[gi], om, scheds[si], reads, copyups);
                run_free(&r);
            }
}

/*
 * Every byte fio wrote reaches a primary in a write: the writes that wait on a
 * copy-up ride in the copy-up op ([call rbd.copyup, write, write...],
 * CopyupRequest's pending requests) or are sent again after it.
 */
static void test_copyup_carries_pending_writes(void **state)
{
    const char *jobs = "[c]\nioengine=rbd\nrw=randwrite\nbs=4k\niodepth=32\nsize=4m\nnumber_ios=32\n";
    for (int om = 0; om < 2; om++) {
        struct run r;
        run_clone(&r, "assert_exists", om, 0, jobs, "none");
        uint64_t fio_bytes = wstats(&r, 0)->io_bytes, osd_bytes = 0, copyup_writes = 0;
        assert_int_equal(fio_bytes, 32 * 4096);
        for (size_t i = 0; i < r.n; i++) {
            osd_bytes += written_bytes(&r.ops[i]);
            if (classify(&r, &r.ops[i]) == OC_COPYUP)
                copyup_writes += (uint64_t)count_entries(r.ops[i].ops, "write");
        }
        run_free(&r); /* before failing: keep the ASan build's leak report clean */
        /* without the map the 32 guarded attempts carry data but fail with ENOENT */
        if (om ? osd_bytes < fio_bytes : osd_bytes < 2 * fio_bytes)
            fail_msg("object_map=%d: %" PRIu64 " of %" PRIu64 " written bytes reached the OSDs (the copy-up "
                     "carries %" PRIu64 " write(s))",
                     om, osd_bytes, fio_bytes, copyup_writes);
    }
}

/* stat_roundtrip: one more round trip than assert_exists per write to a copied-up object. */
static void test_stat_roundtrip_costs_a_round_trip(void **state)
{
    const char *jobs = "[c]\nioengine=rbd\nrw=randwrite\nbs=4k\niodepth=1\ntime_based\n";
    struct run ae, sr, rd;
    run_clone(&ae, "assert_exists", true, 1, jobs, "none");
    run_clone(&sr, "stat_roundtrip", true, 1, jobs, "none");
    /* a small read round trip on the same cluster, for scale */
    run_jobs(&rd, "[r]\nioengine=rbd\nrw=randread\nbs=4k\niodepth=1\ntime_based\n", NULL, 0);
    size_t stats = 0, writes = 0;
    double stat_osd = 0;
    for (size_t i = 0; i < ae.n; i++) {
        assert_int_equal(classify(&ae, &ae.ops[i]), OC_OTHER);
        assert_true(steady_form("assert_exists", true, ae.ops[i].ops, NULL));
    }
    for (size_t i = 0; i < sr.n; i++) {
        assert_int_equal(classify(&sr, &sr.ops[i]), OC_OTHER);
        if (!strcmp(sr.ops[i].ops, "stat")) {
            stats++;
            stat_osd += sr.ops[i].dur;
        } else {
            assert_true(i > 0 && !strcmp(sr.ops[i - 1].ops, "stat") && !strcmp(sr.ops[i - 1].obj, sr.ops[i].obj));
            writes++;
        }
    }
    assert_true(stats >= writes && stats - writes <= 1);
    stat_osd /= (double)stats;
    double lat_ae = hist_mean(&wstats(&ae, 0)->lat) / 1e9, lat_sr = hist_mean(&wstats(&sr, 0)->lat) / 1e9;
    double rtt = hist_mean(&cluster_job_results(rd.c)->dir[FIO_DDIR_READ].lat) / 1e9;
    double extra = lat_sr - lat_ae;
    /* more than the stat's time on the OSD, less than a whole fio read round trip */
    if (!(extra > stat_osd && extra < rtt))
        fail_msg("stat_roundtrip adds %.1f us (stat on the OSD %.1f us, read round trip %.1f us)", extra * 1e6,
                 stat_osd * 1e6, rtt * 1e6);
    run_free(&ae);
    run_free(&sr);
    run_free(&rd);
}

/* ---- several librbd instances, several images, the exclusive lock ---- */

/* pg_pool_t::raw_hash_to_pg of an object name in the base pool (pg_num 32). */
static uint32_t name_pg32(const char *name)
{
    return optrack_stable_mod(optrack_str_hash_rjenkins(name, strlen(name)), 32, 31);
}

static double iops_of(const struct run *r)
{
    return job_iops(r, FIO_DDIR_WRITE);
}

static struct cluster_client_stats client_stats(const struct run *r, uint32_t i)
{
    struct cluster_client_stats cs;
    cluster_client_stats(r->c, i, &cs);
    return cs;
}

/* Ops whose op vector starts with prefix, on objects whose name starts with oid_prefix. */
static int count_ops(const struct run *r, const char *oid_prefix, const char *prefix)
{
    int n = 0;
    for (size_t i = 0; i < r->n; i++)
        n += !strncmp(r->ops[i].obj, oid_prefix, strlen(oid_prefix)) && !strncmp(r->ops[i].ops, prefix, strlen(prefix));
    return n;
}

/*
 * numjobs=4 on one image under the default simple scheduler: every clone is
 * its own librbd instance, whose SimpleSchedulerObjectDispatch holds and
 * merges only its own writes and sends them through its own Objecter.  The
 * clones write the same offsets (same objects); per client, the bytes its
 * write ops carried to the primaries are the bytes its fio job wrote (up to
 * what is in flight at the end), and each merged.
 */
static void test_numjobs_simple_scheduler_per_client(void **state)
{
    const char *jobs = "[s]\nioengine=rbd\nrw=write\nbs=4k\niodepth=16\nsize=4m\nnumjobs=4\ntime_based\n";
    /* with the exclusive lock (the default) they take turns: it runs, all four
       write (the lock goes to whichever requester's lock op reaches the OSD
       first, not in turn, so one clone may wait most of 0.3 s: 1 s) */
    const char *locked[] = {"ceph.rbd_io_scheduler=simple", "sim.duration_s=1"};
    struct run r;
    run_jobs(&r, jobs, locked, 2);
    for (int i = 0; i < 4; i++)
        if (wstats(&r, i)->total_ios == 0)
            fail_msg("clone %d wrote nothing", i);
    run_free(&r);
    /* without it they write concurrently: merges, per client */
    const char *shared[] = {"ceph.rbd_io_scheduler=simple", "image.exclusive_lock=false"};
    run_jobs(&r, jobs, shared, 2);
    for (uint32_t k = 0; k < 4; k++) {
        uint32_t id = client_stats(&r, k).client;
        uint64_t op_bytes = 0, max_len = 0;
        for (size_t i = 0; i < r.n; i++) {
            if (r.ops[i].client != id)
                continue;
            uint64_t off, len;
            if (write_extent(&r.ops[i], &off, &len)) {
                op_bytes += written_bytes(&r.ops[i]);
                if (len > max_len)
                    max_len = len;
            }
        }
        uint64_t fio_bytes = wstats(&r, (int)k)->io_bytes, slack = 2 * 16 * 4096;
        if (op_bytes + slack < fio_bytes || op_bytes > fio_bytes + slack)
            fail_msg("client.%u: its write ops carried %" PRIu64 " bytes, its fio job wrote %" PRIu64, id, op_bytes,
                     fio_bytes);
        if (max_len <= 4096)
            fail_msg("client.%u: no merged write", id);
    }
    run_free(&r);
}

/*
 * Two writers of one image with exclusive-lock take the lock from each other
 * for every write: far fewer IOPS than without the feature, or than two
 * images; the hand-overs show in the lock counters (both ways, balanced).
 */
static void test_exclusive_lock_ping_pong(void **state)
{
    const char *jobs = "[w]\nioengine=rbd\nrw=randwrite\nbs=4k\niodepth=1\nnumjobs=2\ntime_based\n";
    const char *off[] = {"image.exclusive_lock=false"};
    const char *two[] = {"clients.volumes_per_client=2"};
    struct run lk, sh, im;
    run_jobs(&lk, jobs, NULL, 0);
    run_jobs(&sh, jobs, off, 1);
    run_jobs(&im, jobs, two, 1);
    double i_lk = iops_of(&lk), i_sh = iops_of(&sh), i_im = iops_of(&im);
    if (!(i_lk < 0.4 * i_sh && i_lk < 0.4 * i_im))
        fail_msg("exclusive-lock %.0f IOPS, shared %.0f, two images %.0f", i_lk, i_sh, i_im);
    if (fabs(i_sh - i_im) > 0.15 * i_im)
        fail_msg("shared image %.0f IOPS vs two images %.0f", i_sh, i_im);
    struct cluster_client_stats a = client_stats(&lk, 0), b = client_stats(&lk, 1);
    assert_true(a.lock_acquisitions > 20 && b.lock_acquisitions > 20);
    /* acquisitions minus releases = the current owners: 0 or 1 */
    uint64_t acq = a.lock_acquisitions + b.lock_acquisitions, rel = a.lock_releases + b.lock_releases;
    assert_true(acq == rel || acq == rel + 1);
    /* every release answered a request (one may still be under way at the end) */
    assert_true(a.lock_releases <= a.lock_requests_received && a.lock_requests_received <= a.lock_releases + 1);
    assert_true(b.lock_releases <= b.lock_requests_received && b.lock_requests_received <= b.lock_releases + 1);
    /* each hand-over lets the new owner write: no more hand-overs than writes */
    assert_true((double)rel <= (double)(wstats(&lk, 0)->total_ios + wstats(&lk, 1)->total_ios) * 1.1 + 2);
    /* the feature off: no lock traffic at all; two images: each client owns its own from the start */
    for (uint32_t i = 0; i < 2; i++) {
        struct cluster_client_stats s = client_stats(&sh, i), t = client_stats(&im, i);
        assert_int_equal(s.lock_acquisitions + s.lock_releases + s.notifies_sent + s.writes_blocked, 0);
        assert_int_equal(t.lock_acquisitions, 1);
        assert_int_equal(t.lock_releases + t.lock_requests_sent + t.notifies_sent + t.writes_blocked, 0);
        assert_int_equal(t.image, i);
    }
    assert_int_equal(count_ops(&sh, "rbd_header.", ""), 0);
    run_free(&lk);
    run_free(&sh);
    run_free(&im);
}

/*
 * The hand calculation.  A (the first writer: owner from the start) writes at
 * about 0, 40 and 80 ms, B at about 20, 60 and 100 ms (QD=1, rate_iops 25,
 * B's startdelay 20 ms); a hand-over takes a few ms, so each write of the
 * client that does not hold the lock moves it: B, A, B, A, B = 5 hand-overs.
 * Per hand-over, from requester R and owner O:
 *   R: [lock.get_info] (O holds it), [lock.lock] -EBUSY, [list-watchers] (O is
 *      alive: -EAGAIN), [notify] RequestLock + 2 [notify-ack] (O answers);
 *   O: drained, ObjectMap::close [lock.unlock] on rbd_object_map,
 *      [lock.unlock] on rbd_header, [notify] ReleasedLock + 2 acks;
 *   R: [lock.get_info], [lock.lock], ObjectMap::open [lock.lock] +
 *      [rbd.object_map_load] on rbd_object_map, [notify] AcquiredLock + 2 acks.
 * So 15 ops on the header and 3 on the object map per hand-over; A: 1 + 2
 * acquisitions, 3 releases, 2 requests; B: 3 acquisitions, 2 releases, 3
 * requests; each client sees all 3 notifies of each hand-over.
 */
static void test_exclusive_lock_hand_count(void **state)
{
    const char *jobs = "[global]\nioengine=rbd\nrw=randwrite\nbs=4k\niodepth=1\nnumber_ios=3\nrate_iops=25\n"
                       "[a]\n[b]\nstartdelay=20ms\n";
    const char *sets[] = {"cost.cpu_work_cv=0", "hw.nvme.latency_cv=0", "hw.nvme.tail_spike_prob=0"};
    struct run r;
    run_jobs(&r, jobs, sets, 3);
    assert_int_equal(wstats(&r, 0)->total_ios, 3);
    assert_int_equal(wstats(&r, 1)->total_ios, 3);
    const int T = 5;
    struct cluster_client_stats a = client_stats(&r, 0), b = client_stats(&r, 1);
    assert_int_equal(a.lock_acquisitions, 3);
    assert_int_equal(a.lock_releases, 3);
    assert_int_equal(b.lock_acquisitions, 3);
    assert_int_equal(b.lock_releases, 2);
    assert_int_equal(a.lock_requests_sent, 2);
    assert_int_equal(b.lock_requests_sent, 3);
    assert_int_equal(a.lock_requests_received, 3);
    assert_int_equal(b.lock_requests_received, 2);
    assert_int_equal(a.lock_busy, 2);
    assert_int_equal(b.lock_busy, 3);
    assert_int_equal(a.notifies_sent + b.notifies_sent, 3 * T);
    assert_int_equal(a.notifies_received, 3 * T);
    assert_int_equal(b.notifies_received, 3 * T);
    /* A's first write found the lock its own; every other write waited once */
    assert_int_equal(a.writes_blocked, 2);
    assert_int_equal(b.writes_blocked, 3);
    char hdr[64], map[64];
    snprintf(hdr, sizeof hdr, "rbd_header.%" PRIx64, r.spec.image.id);
    snprintf(map, sizeof map, "rbd_object_map.%" PRIx64, r.spec.image.id);
    assert_int_equal(count_ops(&r, hdr, ""), 15 * T);
    assert_int_equal(count_ops(&r, hdr, "call lock.get_info"), 2 * T);
    assert_int_equal(count_ops(&r, hdr, "call lock.lock"), 2 * T);
    assert_int_equal(count_ops(&r, hdr, "list-watchers"), T);
    assert_int_equal(count_ops(&r, hdr, "notify cookie"), 3 * T);
    assert_int_equal(count_ops(&r, hdr, "notify-ack"), 6 * T);
    assert_int_equal(count_ops(&r, hdr, "call lock.unlock"), T);
    assert_int_equal(count_ops(&r, map, ""), 3 * T);
    assert_int_equal(count_ops(&r, map, "call lock.lock"), T);
    assert_int_equal(count_ops(&r, map, "call rbd.object_map_load"), T);
    assert_int_equal(count_ops(&r, map, "call lock.unlock"), T);
    /* both objects on the PG their names hash to */
    for (size_t i = 0; i < r.n; i++)
        if (!strncmp(r.ops[i].obj, "rbd_", 4) && strncmp(r.ops[i].obj, "rbd_data.", 9))
            assert_int_equal(r.ops[i].pg, name_pg32(r.ops[i].obj));
    run_free(&r);
}

/*
 * image.count=2: each image its own id, so its objects hash to their own PGs;
 * jobs pick theirs by rbdname; each its own exclusive lock and object map
 * (a copy-up in one clone updates that clone's map only: the same object
 * number in the other still is not copied up).
 */
static void test_images_place_and_map_separately(void **state)
{
    const char *jobs = "[global]\nioengine=rbd\nrw=write\nbs=4k\niodepth=1\nnumber_ios=1\n"
                       "[a]\nrbdname=vol-0\n[b]\nrbdname=vol-1\nstartdelay=50ms\n";
    const char *sets[] = {"image.count=2", "image.name=vol", "image.kind=clone", "image.copied_up=0"};
    struct run r;
    run_jobs(&r, jobs, sets, 4);
    assert_int_equal(wstats(&r, 0)->total_ios, 1);
    assert_int_equal(wstats(&r, 1)->total_ios, 1);
    struct cluster_image_stats i0, i1;
    cluster_image_stats(r.c, 0, &i0);
    cluster_image_stats(r.c, 1, &i1);
    assert_string_equal(i0.name, "vol-0");
    assert_string_equal(i1.name, "vol-1");
    assert_true(i0.id != i1.id);
    assert_int_equal(client_stats(&r, 0).image, 0);
    assert_int_equal(client_stats(&r, 1).image, 1);
    /* one map update and one copy-up per image, each on its own map object */
    char map0[64], map1[64], obj0[64], obj1[64];
    snprintf(map0, sizeof map0, "rbd_object_map.%" PRIx64, i0.id);
    snprintf(map1, sizeof map1, "rbd_object_map.%" PRIx64, i1.id);
    snprintf(obj0, sizeof obj0, "rbd_data.%" PRIx64 ".%016x", i0.id, 0);
    snprintf(obj1, sizeof obj1, "rbd_data.%" PRIx64 ".%016x", i1.id, 0);
    assert_int_equal(count_ops(&r, map0, "call rbd.object_map_update"), 1);
    assert_int_equal(count_ops(&r, map1, "call rbd.object_map_update"), 1);
    assert_int_equal(count_ops(&r, obj0, "call rbd."), 1);
    assert_int_equal(count_ops(&r, obj1, "call rbd."), 1);
    /* no lock traffic: each client owns its image's lock */
    assert_int_equal(count_ops(&r, "rbd_header.", ""), 0);
    run_free(&r);
    /* the placement: 64 objects of each image, every op on rjenkins(name)'s PG,
       and the two images' object k mostly on different PGs */
    /* 4k at the start of each object (rw=write:<skip>) */
    const char *seq = "[global]\nioengine=rbd\nrw=write:4092k\nbs=4k\niodepth=4\nsize=256m\nnumber_ios=64\n"
                      "[a]\nrbdname=image-0\n[b]\nrbdname=image-1\n";
    const char *two[] = {"image.count=2"};
    run_jobs(&r, seq, two, 1);
    cluster_image_stats(r.c, 0, &i0);
    cluster_image_stats(r.c, 1, &i1);
    assert_string_equal(i0.name, "image-0");
    int32_t pg[2][64];
    memset(pg, -1, sizeof pg);
    for (size_t i = 0; i < r.n; i++) {
        uint64_t id, objno;
        if (!object_id(r.ops[i].obj, &id, &objno))
            continue;
        assert_int_equal(r.ops[i].pg, name_pg32(r.ops[i].obj));
        assert_true(objno < 64 && (id == i0.id || id == i1.id));
        pg[id == i1.id][objno] = (int32_t)r.ops[i].pg;
    }
    int differ = 0;
    for (int k = 0; k < 64; k++) {
        assert_true(pg[0][k] >= 0 && pg[1][k] >= 0);
        differ += pg[0][k] != pg[1][k];
    }
    assert_true(differ > 48); /* 1/32 collide by chance */
    run_free(&r);
    /* an rbdname that names no image is an error once the images are named */
    const char *named[] = {"image.name=vol"};
    struct scenario sc;
    struct cluster_spec spec;
    struct sim_err err = {0};
    char *text = scenario_text("[x]\nioengine=rbd\nrw=write\nrbdname=nosuch\n");
    assert_int_equal(scenario_load(&sc, NULL, text, "inline.json", named, 1, &err), 0);
    free(text);
    assert_int_equal(scenario_to_spec(&sc, 0, &spec, &err), 0);
    assert_null(cluster_create(&spec, &err));
    assert_non_null(strstr(err.msg, "rbdname=nosuch"));
    scenario_free(&sc);
}

/*
 * Object state is created on first touch: the same I/O pattern (random 4k
 * writes in the first 64 MiB) on a 1 GiB and a 100 TiB image creates the
 * same object states, at most the 16 objects it touches, and the same bytes.
 */
static void test_lazy_objects_independent_of_size(void **state)
{
    const char *jobs = "[r]\nioengine=rbd\nrw=randwrite\nbs=4k\niodepth=8\nsize=64m\nnumber_ios=400\n";
    const char *small[] = {"image.size_gib=1"};
    const char *huge[] = {"image.size_gib=102400"};
    struct run a, b;
    run_jobs(&a, jobs, small, 1);
    run_jobs(&b, jobs, huge, 1);
    assert_int_equal(b.spec.image.size_bytes, 102400ull << 30);
    assert_int_equal(wstats(&a, 0)->total_ios, 400);
    assert_int_equal(wstats(&b, 0)->total_ios, 400);
    struct cluster_stats sa, sb;
    cluster_stats(a.c, &sa);
    cluster_stats(b.c, &sb);
    assert_true(sa.object_states > 0 && sa.object_states <= 16);
    assert_int_equal(sa.object_states, sb.object_states);
    assert_int_equal(sa.client_object_states, sb.client_object_states);
    assert_int_equal(sa.object_state_bytes, sb.object_state_bytes);
    run_free(&a);
    run_free(&b);
}

/*
 * image.copied_up is honoured per object: random reads of a clone go to the
 * clone's object if it was copied up, else to the parent's.  Two clones
 * (image.count=2) each read over ~1000 objects: each copied-up fraction is
 * within a 99.9 % binomial interval of the setting, an object is never read
 * from both, the two clones' sets are independent draws (their overlap is
 * about p^2, not p), and 0 and 1 are exact.
 */
static void check_copied_up(double p, uint64_t seed)
{
    const char *jobs = "[global]\nioengine=rbd\nrw=randread\nbs=4k\niodepth=16\ntime_based\n"
                       "[a]\nrbdname=image-0\n[b]\nrbdname=image-1\n";
    char cu[64], sd[64];
    snprintf(cu, sizeof cu, "image.copied_up=%g", p);
    snprintf(sd, sizeof sd, "sim.seed=%" PRIu64, seed);
    const char *sets[] = {"image.kind=clone", "image.size_gib=4", "image.count=2", cu, sd};
    struct run r;
    run_jobs(&r, jobs, sets, 5);
    uint32_t client0 = client_stats(&r, 0).client;
    struct cluster_image_stats im[2];
    cluster_image_stats(r.c, 0, &im[0]);
    cluster_image_stats(r.c, 1, &im[1]);
    uint8_t (*seen)[1024] = calloc(2, sizeof *seen); /* bit 0: read from the clone, bit 1: from the parent */
    for (size_t i = 0; i < r.n; i++) {
        uint64_t id, objno;
        assert_true(object_id(r.ops[i].obj, &id, &objno) && objno < 1024);
        int k = r.ops[i].client != client0;
        seen[k][objno] |= id == im[k].id ? 1 : 2;
    }
    run_free(&r);
    int both = 0, n_both = 0;
    for (int k = 0; k < 2; k++) {
        int n = 0, up = 0;
        for (int o = 0; o < 1024; o++) {
            if (!seen[k][o])
                continue;
            if (seen[k][o] == 3)
                fail_msg("image %d object %d read from the clone and from the parent", k, o);
            n++;
            up += seen[k][o] == 1;
            if (k == 1 && seen[0][o]) {
                n_both++;
                both += seen[0][o] == 1 && seen[1][o] == 1;
            }
        }
        assert_true(n > 800);
        double f = (double)up / n, half = 3.29 * sqrt(p * (1 - p) / n);
        if (fabs(f - p) > half + 1e-12)
            fail_msg("copied_up=%g: image %d: %d of %d objects (%.3f) copied up, 99.9%% interval +-%.3f", p, k, up,
                     n, f, half);
    }
    free(seen);
    /* independent per image: P(both copied up) = p^2 */
    double fb = (double)both / n_both, hb = 3.29 * sqrt(p * p * (1 - p * p) / n_both);
    if (fabs(fb - p * p) > hb + 1e-12)
        fail_msg("copied_up=%g: %d of %d objects copied up in both clones (%.3f, p^2 = %.3f)", p, both, n_both, fb,
                 p * p);
}

static void test_copied_up_fraction(void **state)
{
    check_copied_up(0.3, 1);
    check_copied_up(0.3, 2);
    check_copied_up(0.75, 1);
    check_copied_up(0, 1);
    check_copied_up(1, 1);
}

/*
 * The kernel client (krbd.c) against librbd on the same cluster.  QD=1: with
 * every stage's CPU fixed (cv 0, no C-states, performance governor at the
 * reference clock) the latency drops by exactly the client work the kernel
 * path does not do, less its own, and the wake-ups it does not pay.  librbd
 * submits through fio 4, a wake of the io_context, dispatch (5.3 + a write's
 * own layers 20: the default release, 16.2.x, has librbd on asio) + objecter
 * submit 4.4, a wake of the msgr worker and its write_message 4; the kernel
 * client through fio's io_submit 1.2, then, on the same core without a
 * wake-up (per-CPU rbd_wq and ceph-msgr), krbd_dispatch 2 + osdc submit 2
 * and con_work's write 1.5.  On the reply librbd pays objecter complete 6,
 * a wake of the io_context and librbd complete 4.4, the kernel client krbd
 * complete 4 (fio's own completion work follows the time stamp on both):
 * (4 + 6 + 29.7 + 6 + 4) - 6.7 + (6 + 6 + 4.4) - 4 = 55.4 us.  Saturation (QD=128, one fio job, OSDs not the
 * limit): librbd is held by its two io_context threads (dispatch + objecter
 * submit + complete = 34.1 us a write: <= 58.7k IOPS), krbd by the fio
 * thread's core, which also runs each request's kworker and con_work send:
 * 1.2 + 0.8 + 2 + 2 + 1.5 + crc32c of the message + the NIC's TCP send per
 * write.
 */
static void test_krbd_vs_librbd(void **state)
{
    static const char *const fixed[] = {
        "cost.cpu_work_cv=0", "hw.nvme.latency_cv=0", "hw.nvme.tail_spike_prob=0", "cluster.max_cstate=POLL",
        "cluster.governor=performance", "hw.cpu.ref_clock_ghz=3.3", "hw.cpu.cross_ccx_wake_extra_us=0"};
    struct run lib, kern;
    run_jobs(&lib, "[q]\nioengine=rbd\nrw=randwrite\nbs=4k\niodepth=1\ntime_based\n", fixed, 7);
    run_jobs(&kern, "[q]\nioengine=libaio\nfilename=/dev/rbd0\ndirect=1\nrw=randwrite\nbs=4k\niodepth=1\n"
                    "time_based\n", fixed, 7);
    assert_string_equal(cluster_client_kind(lib.c, 0), "librbd");
    assert_string_equal(cluster_client_kind(kern.c, 0), "krbd");
    double l_lib = hist_mean(&wstats(&lib, 0)->lat) / 1e3, l_k = hist_mean(&wstats(&kern, 0)->lat) / 1e3;
    const struct stage_costs *lc = &lib.spec.cost;
    assert_true(lc->librbd_dispatch_us == 5.3 && lc->librbd_write_dispatch_us == 20 && lc->objecter_submit_us == 4.4 &&
                lc->librbd_complete_us == 4.4); /* 16.2's (stage_costs_apply_release) */
    double submit = lc->librbd_dispatch_us + lc->librbd_write_dispatch_us + lc->objecter_submit_us;
    double removed = (4 + 6 + submit + 6 + 4) - (1.2 + 2 + 2 + 1.5) + (6 + 6 + lc->librbd_complete_us) - 4;
    if (fabs((l_lib - l_k) - removed) > 2.0)
        fail_msg("QD=1: librbd %.1f us, krbd %.1f us: %.1f us apart, expected %.1f", l_lib, l_k, l_lib - l_k, removed);
    run_free(&lib);
    run_free(&kern);

    /* saturation: 8 x 4 OSDs, size 1, so that the client is what limits */
    static const char *const sat[] = {"cluster.hosts=8", "cluster.osds_per_host=4", "pool.size=1", "pool.min_size=1",
                                      "pool.pg_num=256", "sim.duration_s=0.2", "cost.cpu_work_cv=0",
                                      "cluster.governor=performance", "hw.cpu.ref_clock_ghz=3.3",
                                      "hw.cpu.all_core_clock_ghz=3.3"};
    run_jobs(&lib, "[q]\nioengine=rbd\nrw=randwrite\nbs=4k\niodepth=128\ntime_based\nnorandommap\n", sat, 10);
    run_jobs(&kern, "[q]\nioengine=io_uring\nfilename=/dev/rbd0\ndirect=1\nrw=randwrite\nbs=4k\niodepth=128\n"
                    "time_based\nnorandommap\n", sat, 10);
    double i_lib = job_iops(&lib, FIO_DDIR_WRITE), i_k = job_iops(&kern, FIO_DDIR_WRITE);
    /* the default release (16.2.x) runs librbd's I/O path on librados_thread_count
       (2) io_context_pool threads of 5.3 + 20 + 4.4 + 4.4 = 34.1 us a write each */
    double io_bound = 2 * 1e6 / 34.1;
    if (i_lib > io_bound * 1.05 || i_lib < io_bound * 0.9)
        fail_msg("librbd %.0f IOPS, its two io_context threads' bound %.0f", i_lib, io_bound);
    const struct stage_costs *k = &kern.spec.cost;
    double msg = 4096 + 320; /* data + MSG_HEADER_BYTES */
    double core_us = k->fio_aio_submit_us + k->fio_aio_complete_us + k->krbd_dispatch_us + k->krbd_osdc_submit_us +
                     k->krbd_con_send_us + k->msgr_crc_us_per_kib * msg / 1024 + kern.spec.net.tcp_tx_cpu_us +
                     kern.spec.net.tcp_cpu_ns_per_byte * msg / 1e3;
    if (fabs(i_k - 1e6 / core_us) > 0.05 * 1e6 / core_us)
        fail_msg("krbd %.0f IOPS: the fio thread's core (%.2f us a write) bounds it at %.0f", i_k, core_us,
                 1e6 / core_us);
    run_free(&lib);
    run_free(&kern);
}

/* io_context_pool's CPU per I/O over a run's window (tests/data/lab11: the
   threads' schedstat at ~5 s and ~20 s, fio's IOPS over the whole run). */
static double lab11_io_context_us(const char *run, const char *ddir)
{
    static const char *const names[] = {"snap_a.json", "snap_b.json", "fio.json"};
    cJSON *j[3];
    for (int i = 0; i < 3; i++) {
        char path[256], *text = NULL;
        size_t len = 0;
        struct sim_err err = {0};
        snprintf(path, sizeof path, "tests/data/lab11/runs/%s/%s", run, names[i]);
        if (jsonu_slurp(path, &text, &len, &err) < 0)
            fail_msg("%s", err.msg);
        j[i] = cJSON_Parse(text);
        free(text);
        assert_non_null(j[i]);
    }
    double cpu_ns = 0;
    const cJSON *ta = cJSON_GetObjectItem(j[0], "threads"), *tb = cJSON_GetObjectItem(j[1], "threads");
    const cJSON *b;
    cJSON_ArrayForEach(b, tb) { /* "threads": {tid: {comm, cpu_ns, ...}} */
        if (strcmp(cJSON_GetObjectItem(b, "comm")->valuestring, "io_context_pool"))
            continue;
        const cJSON *a = cJSON_GetObjectItem(ta, b->string); /* the same thread at the window's start */
        assert_non_null(a);
        cpu_ns += cJSON_GetObjectItem(b, "cpu_ns")->valuedouble - cJSON_GetObjectItem(a, "cpu_ns")->valuedouble;
    }
    double dt = cJSON_GetObjectItem(j[1], "time")->valuedouble - cJSON_GetObjectItem(j[0], "time")->valuedouble;
    const cJSON *job = cJSON_GetArrayItem(cJSON_GetObjectItem(j[2], "jobs"), 0);
    double iops = cJSON_GetObjectItem(cJSON_GetObjectItem(job, ddir), "iops")->valuedouble;
    for (int i = 0; i < 3; i++)
        cJSON_Delete(j[i]);
    assert_true(cpu_ns > 0 && dt > 10 && iops > 0);
    return cpu_ns / 1e3 / (iops * dt);
}

/* librbd's costs from 16.0 against the real 16.2.15 client they were taken
   from (tests/data/lab11, iodepth 32, the two runs without perf attached):
   io_context_pool's CPU per I/O on the lab VM x its speed against the
   reference core (lab-vm: 2.1 / 3.0 GHz) is what the model's io_context
   stages add up to, a read dispatch + objecter submit + complete, a write
   those and its own layers; each run within 15 % (the runs' spread). */
static void test_librbd_asio_costs_against_lab11(void **state)
{
    struct scenario sc;
    struct sim_err err = {0};
    const char *sets[] = {"ceph.release=16.2.15"};
    if (scenario_load(&sc, "scenarios/qd1-latency.json", NULL, NULL, sets, 1, &err))
        fail_msg("%s", err.msg);
    const struct stage_costs *c = &sc.cost;
    double read_us = c->librbd_dispatch_us + c->objecter_submit_us + c->librbd_complete_us;
    double write_us = read_us + c->librbd_write_dispatch_us;
    scenario_free(&sc);
    /* the lab VM's speed against the reference core, from the profile the lab scenarios use */
    if (scenario_load(&sc, "scenarios/lab5.json", NULL, NULL, NULL, 0, &err))
        fail_msg("%s", err.msg);
    const struct hw_cpu *vm = &sc.cpu;
    assert_string_equal(vm->name, "lab-vm");
    const double vm_speed = vm->all_core_clock_ghz * vm->ipc_rel / vm->ref_clock_ghz;
    scenario_free(&sc);
    static const struct { const char *run, *ddir; bool write; } runs[] = {
        {"randread_qd32_none_r1", "read", false}, {"randread_qd32_none_r2", "read", false},
        {"randwrite_qd32_none_r1", "write", true}, {"randwrite_qd32_none_r2", "write", true},
    };
    double sum[2] = {0, 0};
    for (size_t i = 0; i < sizeof runs / sizeof *runs; i++) {
        double real = lab11_io_context_us(runs[i].run, runs[i].ddir) * vm_speed;
        double model = runs[i].write ? write_us : read_us;
        if (fabs(real / model - 1) > 0.15)
            fail_msg("%s: io_context %.1f us an I/O (reference core), the model's stages %.1f", runs[i].run, real,
                     model);
        sum[runs[i].write] += real / 2;
    }
    /* the means (14.1 and 34.8 us) within 5 % */
    assert_true(fabs(sum[0] / read_us - 1) < 0.05);
    assert_true(fabs(sum[1] / write_us - 1) < 0.05);
}

/* The io_context_pool threads of a fio process on librbd: from 16.2 librados'
   pool, librados_thread_count of them (RadosClient::connect), raised to
   rbd_op_threads by AsioEngine when that is larger (ceph's own
   qa/workunits/rbd/rbd-nbd.sh counts them the same way); before 16.2 librbd's
   op work queue of rbd_op_threads.  The real lab's 16.2.15 fio shows 2
   (tests/data/lab9/logs/client_threads.log). */
static uint32_t io_context_threads(const char *const *sets, int n)
{
    struct run r;
    run_jobs(&r, "[q]\nioengine=rbd\nrw=randwrite\nbs=4k\niodepth=1\ntime_based\n", sets, n);
    struct cluster_thread_stats ts[CLUSTER_THREAD_KINDS_MAX];
    uint32_t nk = cluster_process_thread_stats(r.c, "fio", ts, CLUSTER_THREAD_KINDS_MAX), threads = 0;
    for (uint32_t k = 0; k < nk; k++)
        if (!strcmp(ts[k].name, "io_context_pool"))
            threads += ts[k].threads;
    run_free(&r);
    return threads;
}

static void test_librbd_io_context_threads(void **state)
{
    const char *pacific[] = {"ceph.release=16.2.15", "sim.duration_s=0.02"};
    const char *more[] = {"ceph.release=16.2.15", "sim.duration_s=0.02", "ceph.rbd_op_threads=4"};
    const char *fewer[] = {"ceph.release=16.2.15", "sim.duration_s=0.02", "ceph.librados_thread_count=1"};
    const char *octopus[] = {"ceph.release=15.2.17", "sim.duration_s=0.02"};
    const char *octopus_more[] = {"ceph.release=15.2.17", "sim.duration_s=0.02", "ceph.librados_thread_count=4"};
    assert_int_equal(io_context_threads(pacific, 2), 2);
    assert_int_equal(io_context_threads(more, 3), 4);
    assert_int_equal(io_context_threads(fewer, 3), 1);
    assert_int_equal(io_context_threads(octopus, 2), 1);
    assert_int_equal(io_context_threads(octopus_more, 3), 1);
}

/* What the kernel client does not model is refused, naming the job. */
static void test_krbd_refusals(void **state)
{
    struct scenario sc;
    struct sim_err err = {0};
    char *text = scenario_text("[a]\nioengine=rbd\nrw=randwrite\n[b]\nioengine=libaio\nfilename=/dev/rbd0\n"
                               "direct=1\nrw=randwrite\n");
    assert_int_equal(scenario_load(&sc, NULL, text, "inline.json", NULL, 0, &err), 0);
    free(text);
    struct cluster_spec spec;
    assert_int_equal(scenario_to_spec(&sc, 0, &spec, &err), 0);
    assert_null(cluster_create(&spec, &err));
    assert_non_null(strstr(err.msg, "job 'b': a kernel client (krbd) writing an image another client writes"));
    scenario_free(&sc);

    text = scenario_text("[b]\nioengine=libaio\nfilename=/dev/rbd0\nrw=randwrite\n");
    assert_true(scenario_load(&sc, NULL, text, "inline.json", NULL, 0, &err) < 0);
    free(text);
    assert_non_null(strstr(err.msg, "without direct=1 goes through the page cache"));

    text = scenario_text("[o]\nioengine=rbd\nrw=write\noffset=2g\n");
    assert_int_equal(scenario_load(&sc, NULL, text, "inline.json", NULL, 0, &err), 0);
    free(text);
    assert_int_equal(scenario_to_spec(&sc, 0, &spec, &err), 0);
    assert_null(cluster_create(&spec, &err));
    assert_string_equal(err.msg, "job 'o': offset=2147483648 is at or beyond the end of the image (1073741824 bytes)");
    scenario_free(&sc);
}

/* Jobs on one /dev/rbdN share its mapping: one client.<id> at the OSDs (one
   tid sequence), no exclusive-lock handover between them. */
static void test_krbd_shared_mapping(void **state)
{
    struct run r;
    run_jobs(&r, "[q]\nioengine=libaio\nfilename=/dev/rbd0\ndirect=1\nrw=randwrite\nbs=4k\niodepth=4\nnumjobs=3\n"
                 "time_based\n", NULL, 0);
    assert_int_equal(cluster_n_jobs(r.c), 3);
    assert_true(r.n > 100);
    for (size_t i = 1; i < r.n; i++)
        assert_int_equal(r.ops[i].client, r.ops[0].client);
    for (int j = 0; j < 3; j++)
        assert_true(wstats(&r, j)->total_ios > 30);
    run_free(&r);
}

/* cluster.clients_on_osd_hosts: fio's clones are dealt over the OSD hosts, and
   their CPU is told apart from the OSDs' on a shared host. */
static void test_clients_on_osd_hosts(void **state)
{
    static const char jobs[] = "[w]\nioengine=rbd\nrw=randwrite\nbs=4k\niodepth=4\nnumjobs=6\ntime_based\n";
    /* a client host of its own: the clients' threads account for all of its CPU */
    struct run r;
    run_jobs(&r, jobs, NULL, 0);
    struct cluster_host_stats hs;
    cluster_host_stats(r.c, 3, &hs);
    assert_false(hs.osd_host);
    assert_true(hs.cpu_busy_ns > 0);
    assert_true(fabs(hs.client_cpu_ns - hs.cpu_busy_ns) < 0.01 * hs.cpu_busy_ns);
    for (uint32_t h = 0; h < 3; h++) {
        cluster_host_stats(r.c, h, &hs);
        assert_true(hs.client_cpu_ns == 0);
    }
    run_free(&r);
    /* hyperconverged: 2 clones per OSD host, each on an image of its own, no client host */
    static const char *const colo[] = {"cluster.client_hosts=0", "cluster.clients_on_osd_hosts=true",
                                       "clients.volumes_per_client=2"};
    run_jobs(&r, jobs, colo, 3);
    struct cluster_stats st;
    cluster_stats(r.c, &st);
    assert_int_equal(st.n_hosts, 3);
    assert_int_equal(st.n_images, 6);
    double client_ns[3], total = 0;
    for (uint32_t h = 0; h < 3; h++) {
        cluster_host_stats(r.c, h, &hs);
        assert_true(hs.osd_host);
        client_ns[h] = hs.client_cpu_ns;
        total += client_ns[h];
        assert_true(hs.client_cpu_ns > 0 && hs.client_cpu_ns < 0.8 * hs.cpu_busy_ns);
        /* the host's threads by process: ceph-osd's are the rest of its CPU, fio's
           (with librbd in it) the clients'; the classic OSD's threads (2 OSDs a host,
           osd_op_num_shards_ssd 8 x osd_op_num_threads_per_shard_ssd 2) */
        struct cluster_thread_stats ts[CLUSTER_THREAD_KINDS_MAX];
        uint32_t nk = cluster_host_thread_stats(r.c, h, ts, CLUSTER_THREAD_KINDS_MAX);
        double osd_ns = 0, fio_ns = 0;
        bool seen_shard = false, seen_kv = false;
        for (uint32_t k = 0; k < nk; k++) {
            if (!strcmp(ts[k].process, "ceph-osd")) {
                osd_ns += ts[k].cpu_ns;
                seen_shard |= !strcmp(ts[k].name, "tp_osd_tp") && ts[k].threads == 2 * 8 * 2;
                seen_kv |= !strcmp(ts[k].name, "bstore_kv_sync") && ts[k].threads == 2 && ts[k].wakeups > 0;
            } else {
                assert_string_equal(ts[k].process, "fio");
                fio_ns += ts[k].cpu_ns;
            }
        }
        assert_true(seen_shard && seen_kv);
        assert_true(fabs(fio_ns - hs.client_cpu_ns) < 1e-6 * hs.cpu_busy_ns);
        assert_true(fabs(osd_ns - (hs.cpu_busy_ns - hs.client_cpu_ns)) < 1e-6 * hs.cpu_busy_ns);
    }
    for (uint32_t h = 0; h < 3; h++) /* the same load on each: a third each */
        assert_true(client_ns[h] > 0.25 * total && client_ns[h] < 0.42 * total);
    for (int j = 0; j < 6; j++)
        assert_true(wstats(&r, j)->total_ios > 30);
    run_free(&r);
    /* fio on OSD hosts and on hosts of its own at once: refused */
    struct scenario sc;
    struct sim_err err = {0};
    struct cluster_spec spec;
    char *text = scenario_text(jobs);
    static const char *const both[] = {"cluster.client_hosts=2", "cluster.clients_on_osd_hosts=true"};
    assert_int_equal(scenario_load(&sc, NULL, text, "inline.json", both, 2, &err), 0);
    assert_true(scenario_to_spec(&sc, 0, &spec, &err) < 0);
    assert_non_null(strstr(err.msg, "cluster.clients_on_osd_hosts: needs cluster.client_hosts 0"));
    scenario_free(&sc);
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_krbd_vs_librbd),
        cmocka_unit_test(test_librbd_asio_costs_against_lab11),
        cmocka_unit_test(test_krbd_refusals),
        cmocka_unit_test(test_librbd_io_context_threads),
        cmocka_unit_test(test_krbd_shared_mapping),
        cmocka_unit_test(test_clients_on_osd_hosts),
        cmocka_unit_test(test_striping_order22),
        cmocka_unit_test(test_striping_order20),
        cmocka_unit_test(test_object_names_and_pgs),
        cmocka_unit_test(test_acting_distinct_hosts),
        cmocka_unit_test(test_acting_distinct_osds),
        cmocka_unit_test(test_seq_offsets),
        cmocka_unit_test(test_rand_offsets),
        cmocka_unit_test(test_rwmixread),
        cmocka_unit_test(test_bssplit),
        cmocka_unit_test(test_limits_stop_job),
        cmocka_unit_test(test_startdelay_range),
        cmocka_unit_test(test_ramp_time_excluded),
        cmocka_unit_test(test_rate_iops),
        cmocka_unit_test(test_randseed_repeats_offsets),
        cmocka_unit_test(test_rw_seq_nr_runs),
        cmocka_unit_test(test_bsrange_sizes),
        cmocka_unit_test(test_thinktime_iodepth),
        cmocka_unit_test(test_numjobs_group_reporting),
        cmocka_unit_test(test_simple_scheduler_merges_sequential),
        cmocka_unit_test(test_simple_scheduler_merges_out_of_order),
        cmocka_unit_test(test_simple_scheduler_random_close),
        cmocka_unit_test(test_simple_scheduler_min_samples),
        cmocka_unit_test(test_simple_scheduler_split_ios_keep_iodepth),
        cmocka_unit_test(test_copyup_sequence),
        cmocka_unit_test(test_copyup_object_map_update),
        cmocka_unit_test(test_copyup_concurrent_writers),
        cmocka_unit_test(test_copyup_carries_pending_writes),
        cmocka_unit_test(test_stat_roundtrip_costs_a_round_trip),
        cmocka_unit_test(test_numjobs_simple_scheduler_per_client),
        cmocka_unit_test(test_exclusive_lock_ping_pong),
        cmocka_unit_test(test_exclusive_lock_hand_count),
        cmocka_unit_test(test_images_place_and_map_separately),
        cmocka_unit_test(test_lazy_objects_independent_of_size),
        cmocka_unit_test(test_copied_up_fraction),
    };
    return cmocka_run_group_tests_name("client", tests, NULL, NULL);
}
