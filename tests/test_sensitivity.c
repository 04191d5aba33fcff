/*
 * test_sensitivity.c - no knob that changes nothing (issue 11, item 6).
 *
 * Every declared parameter - the scenario sections (cluster, pool, image, sim,
 * ceph, cost: the tables list-params prints), every field of the hardware
 * profiles (hw.cpu, hw.cpu.cstates[], hw.cpu.governors[], hw.nvme, hw.nic,
 * hw.switch, hw.host) and the fio options that shape the workload - is
 * perturbed on short base runs, and each perturbation is simulated in
 * process.  A parameter is alive when some perturbation on some of its bases
 * changes an output: the fio results (without the echoed "job options"),
 * every OSD's perf dump and dump_historic_ops, and sim.json's engine object
 * (events, per-host CPU and wake-ups, per-OSD device figures), fingerprinted
 * with FNV-1a.  The test fails on a parameter that is neither alive nor
 * declared descriptive (help text starting with PARAM_DESCRIPTIVE, sim/param.h,
 * which list-params prints), and
 * on a descriptive one that does change an output.  It prints the outcome of
 * every parameter, then the lists: descriptive, known dead (being fixed
 * elsewhere) and dead.
 *
 * Values tried: x1.1, x0.9, x2, /2 of the base's value (integers at least
 * +-1; 1 or 0.5 when it is 0), clamped to the declared range; booleans
 * flipped; every other enum choice; named alternatives for strings.  A value
 * the scenario loader refuses (a validation error) is skipped.  A parameter
 * may name its own bases (below, with why): a mechanism acts only where it
 * can (a deferred-bytes throttle near its limit, SMT on a saturated host).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cluster.h"
#include "clusterjson.h"
#include "fioout.h"
#include "historicops.h"
#include "hwprofile.h"
#include "jsonu.h"
#include "perfdump.h"
#include "scenario.h"

#define MAX_SETS 16

/* Short runs: 0.1 s measured after 0.02 s of warm-up, one replication. */
#define SHORT "sim.duration_s=0.1", "sim.warmup_s=0.02", "sim.replications=1"

struct base {
    const char *name;
    const char *scenario;
    const char *sets[MAX_SETS];
};

static const struct base bases[] = {
    /* the seed study's tuned QD=1 write (C1, performance, logging off) */
    {"qd1", "scenarios/qd1-latency.json", {SHORT}},
    {"qd16", "scenarios/qd1-latency.json", {SHORT, "fio.iodepth=16"}},
    {"randread", "scenarios/qd1-latency.json", {SHORT, "fio.rw=randread", "fio.iodepth=4"}},
    /* a fresh clone at QD=16: guard, ENOENT, copy-up, object map */
    {"clone", "scenarios/clone-serialisation.json",
     {SHORT, "image.copied_up=0", "fio.iodepth=16", "ceph.rbd_io_scheduler=simple"}},
    /* sequential reads: the device sees a read stream */
    {"seqread", "scenarios/qd1-latency.json", {SHORT, "fio.rw=read"}},
    /* the profile's default governor (schedutil): clocks follow load */
    {"schedutil", "scenarios/qd1-latency.json", {SHORT, "cluster.governor=default", "fio.iodepth=4"}},
    /* a CPU-bound host: 2 cores, 2-way SMT, one core per CCX */
    {"cpu-bound", "scenarios/qd1-latency.json",
     {SHORT, "fio.iodepth=64", "hw.cpu.cores=2", "hw.cpu.threads=4", "hw.cpu.ccx_cores=1",
      "cost.cpu_timeslice_us=20"}},
    /* deferred 4k writes at QD=64 with the deferred-bytes throttle near its
       limit: max = throttle_bytes + deferred_bytes = 192 KiB = 24 txcs of
       8096 (4000 + 4096) bytes; its midpoint (12 txcs) submits the batches */
    {"deferred", "scenarios/qd1-latency.json",
     {SHORT, "cluster.osds_per_host=1", "fio.iodepth=64", "ceph.bluestore_prefer_deferred_size_ssd=65536",
      "ceph.bluestore_throttle_bytes=65536", "ceph.bluestore_throttle_deferred_bytes=131072"}},
    {"mixed", "scenarios/qd1-latency.json", {SHORT, "fio.rw=randrw", "fio.iodepth=4"}},
    /* deep C-states allowed; and with the PM QoS limit at C1's / C2's exit latency */
    {"deep", "scenarios/qd1-latency.json", {SHORT, "cluster.max_cstate=deepest"}},
    {"pmqos-c1", "scenarios/qd1-latency.json",
     {SHORT, "cluster.max_cstate=deepest", "hw.cpu.cpu_dma_latency_us=1"}},
    {"pmqos-c2", "scenarios/qd1-latency.json",
     {SHORT, "cluster.max_cstate=deepest", "hw.cpu.cpu_dma_latency_us=400"}},
    /* each governor of the profile in effect (performance: qd1) */
    {"gov-performance", "scenarios/qd1-latency.json", {SHORT}},
    {"gov-ondemand", "scenarios/qd1-latency.json", {SHORT, "cluster.governor=ondemand", "fio.iodepth=4"}},
    {"gov-schedutil", "scenarios/qd1-latency.json", {SHORT, "cluster.governor=schedutil", "fio.iodepth=4"}},
    {"gov-powersave", "scenarios/qd1-latency.json", {SHORT, "cluster.governor=powersave"}},
    /* firmware write stalls on */
    {"spikes", "scenarios/qd1-latency.json",
     {SHORT, "fio.iodepth=16", "hw.nvme.tail_spike_us=1000", "hw.nvme.tail_spike_prob=0.01"}},
    /* a drive that services few commands at once, at a deep queue */
    {"devpar", "scenarios/qd1-latency.json",
     {SHORT, "cluster.osds_per_host=1", "fio.rw=randread", "fio.iodepth=64", "hw.nvme.internal_parallelism=2"}},
    /* limits that bind: OSD client message caps, BlueStore's kv throttle, the Objecter */
    /* (on 3 OSDs, so that each sees a share of the ~30 client ops the
       librbd io_context thread lets through at QD=128) */
    {"msgcap", "scenarios/qd1-latency.json",
     {SHORT, "cluster.osds_per_host=1", "fio.iodepth=128", "ceph.osd_client_message_cap=4",
      "ceph.osd_client_message_size_cap=16384"}},
    {"throttled", "scenarios/qd1-latency.json",
     {SHORT, "cluster.osds_per_host=1", "fio.iodepth=64", "ceph.bluestore_throttle_bytes=65536"}},
    {"objecter", "scenarios/qd1-latency.json",
     {SHORT, "fio.iodepth=128", "ceph.objecter_inflight_ops=12", "ceph.objecter_inflight_op_bytes=53248"}},
    /* librbd's write-around cache in effect (fio never flushes) */
    {"writearound", "scenarios/qd1-latency.json",
     {SHORT, "fio.iodepth=16", "ceph.rbd_cache_writethrough_until_flush=false", "ceph.rbd_cache_max_dirty=16384"}},
    {"crimson", "scenarios/qd1-latency.json", {SHORT, "fio.iodepth=16", "ceph.release=crimson"}},
    /* RocksDB flushing when small memtables fill (a flush every ~512 txcs of an OSD) */
    {"rocksdb-fill", "scenarios/qd1-latency.json",
     {SHORT, "fio.iodepth=16", "cluster.rocksdb_flushes=on_fill",
      "ceph.bluestore_rocksdb_options=write_buffer_size=1048576"}},
    /* a copied-up clone before the fix: RWEXCL waits and re-dispatches */
    {"clone-excl", "scenarios/clone-serialisation.json", {SHORT, "fio.iodepth=16"}},
    /* a fresh clone without object map: guarded writes fail with -ENOENT */
    {"clone-nomap", "scenarios/clone-serialisation.json",
     {SHORT, "image.copied_up=0", "image.object_map=false", "fio.iodepth=16"}},
    /* Ceph logging at the release's defaults */
    {"logging", "scenarios/qd1-latency.json",
     {SHORT, "ceph.debug_osd=5", "ceph.debug_ms=1", "ceph.debug_bluestore=5", "ceph.debug_rocksdb=5",
      "ceph.debug_bdev=3"}},
    /* a user's CRUSH map with several rules (racks.crush.json: 0 replicated_rule,
       1 byrack over its 2 racks, hence size 2) */
    {"crushmap", "scenarios/qd1-latency.json",
     {SHORT, "cluster.crush_map=tests/data/crush/racks.crush.json", "pool.size=2", "pool.min_size=1"}},
    /* the lab: fio on the OSD host, loopback, a volatile write cache */
    {"lab", "scenarios/lab.json", {SHORT}},
    /* fio's own runtime decides the measured interval */
    {"fio-runtime", "scenarios/qd1-latency.json",
     {"sim.duration_s=0", "sim.warmup_s=0.02", "sim.replications=1", "fio.runtime=100ms"}},
    /* random writes over 64 blocks: fio's random map decides which come again */
    {"small-region", "scenarios/qd1-latency.json", {SHORT, "fio.iodepth=16", "fio.size=256k"}},
    /* a job that ends after io_size bytes (not time_based) */
    {"sized", "scenarios/qd1-latency.json", {SHORT, "fio.time_based=0", "fio.io_size=64k"}},
    /* two writers of one image: the exclusive lock moves between them */
    {"two-writers", "scenarios/qd1-latency.json", {SHORT, "fio.numjobs=2"}},
    /* the kernel client: libaio on a mapped /dev/rbd0; deep: more I/Os than blk-mq tags */
    {"krbd", "scenarios/qd1-latency.json",
     {SHORT, "fio.ioengine=libaio", "fio.filename=/dev/rbd0", "fio.direct=1"}},
    {"krbd-deep", "scenarios/qd1-latency.json",
     {SHORT, "fio.ioengine=libaio", "fio.filename=/dev/rbd0", "fio.direct=1", "fio.iodepth=256"}},
    /* intel_pstate's powersave on an Intel profile (idle 1.0 GHz, max turbo 3.9) */
    {"intel-powersave", "scenarios/qd1-latency.json",
     {SHORT, "cluster.cpu=xeon-gold-6242", "cluster.governor=powersave", "fio.iodepth=4"}},
    /* OSDs confined to CPU sets of 3 threads, at a depth that fills them */
    {"cpuset", "scenarios/qd1-latency.json", {SHORT, "fio.iodepth=64", "cluster.osd_cpus=3"}},
    /* reads over a warm data cache smaller than each OSD's share of the image:
       its size (autotuned from osd_memory_target, at the floor, or without
       the autotuner) decides the hits */
    {"cache", "scenarios/qd1-latency.json",
     {SHORT, "fio.rw=randread", "fio.iodepth=4", "image.cached=1", "ceph.osd_memory_target=2147483648"}},
    /* below osd_memory_base + osd_memory_cache_min the caches get the floor,
       of which Manager::balance keeps 4 chunks (272 MiB) back: a floor above that */
    {"cache-floor", "scenarios/qd1-latency.json",
     {SHORT, "fio.rw=randread", "fio.iodepth=4", "image.cached=1", "ceph.osd_memory_target=1073741824",
      "ceph.osd_memory_cache_min=536870912"}},
    {"cache-noauto", "scenarios/qd1-latency.json",
     {SHORT, "fio.rw=randread", "fio.iodepth=4", "image.cached=1", "ceph.bluestore_cache_autotune=false"}},
    /* one full shard whose size the autotuner's balances grow within the run */
    {"cache-balance", "scenarios/qd1-latency.json",
     {SHORT, "fio.rw=randread", "fio.iodepth=4", "image.cached=1", "ceph.osd_memory_target=2147483648",
      "ceph.osd_num_cache_shards=1", "ceph.bluestore_cache_autotune_interval=0.02"}},
    /* fio on OSD host 0 of the seed cluster (its 3 hosts): with clients_on_osd_hosts
       the 3 clones are dealt over all three */
    {"fio-on-osd-host", "scenarios/qd1-latency.json",
     {SHORT, "cluster.client_hosts=0", "fio.numjobs=3", "fio.iodepth=8", "clients.volumes_per_client=3"}},
    /* six seed hosts, one client host and image each: the reduction to 3 of
       them simulates half the OSDs and reports twice their IOPS */
    {"six-hosts", "scenarios/qd1-latency.json",
     {SHORT, "cluster.hosts=6", "cluster.client_hosts=6", "fio.numjobs=6", "fio.iodepth=16",
      "clients.volumes_per_client=1"}},
    /* an erasure-coded pool (k=2 m=2): stripe reads, shard writes, rollback */
    {"ec", "tests/data/ec/qd4-ec22.json", {SHORT}},
    {"ec-read", "tests/data/ec/qd4-ec22.json", {SHORT, "fio.rw=randread"}},
    /* two OSDs per NVMe, each with a set of 2 threads */
    {"pernvme", "scenarios/qd1-latency.json",
     {SHORT, "fio.iodepth=64", "cluster.osds_per_nvme=2", "cluster.osd_cpus=2"}},
};
#define N_BASES (int)(sizeof bases / sizeof bases[0])

static const char *const default_bases[] = {"qd1", "qd16", "randread", "clone", NULL};

/* Parameters that need other bases than the default ones, and why. */
static const struct {
    const char *path;
    const char *bases[4];
} named_bases[] = {
    /* P0 is where ondemand/schedutil stop and boost starts */
    {"hw.cpu.base_clock_ghz", {"schedutil"}},
    /* SMT and hardware threads only matter once more threads run than cores */
    {"hw.cpu.threads", {"cpu-bound"}},
    {"hw.cpu.smt_pair_throughput", {"cpu-bound"}},
    {"ceph.bluestore_throttle_deferred_bytes", {"deferred"}},
    /* flushes are sent only to a drive with a volatile write cache */
    {"hw.nvme.flush_latency_us", {"lab", "qd1"}},
    {"hw.nvme.seq_read_latency_us", {"seqread"}},
    {"hw.nvme.seq_read_mbps", {"seqread", "clone"}},
    {"sim.reduce_to_hosts", {"six-hosts"}},
    /* a rule id means something only with a user's CRUSH map */
    {"pool.crush_rule", {"crushmap"}},
    {"ceph.osd_client_message_cap", {"msgcap"}},
    {"ceph.osd_client_message_size_cap", {"msgcap"}},
    {"ceph.bluestore_prefer_deferred_size_ssd", {"qd1"}},
    {"ceph.bluestore_deferred_batch_ops_ssd", {"deferred"}},
    {"cost.bluestore_deferred_us", {"deferred"}},
    {"cost.bluestore_deferred_aio_us", {"deferred"}},
    {"ceph.bluestore_throttle_bytes", {"throttled"}},
    {"ceph.bluestore_throttle_cost_per_io_ssd", {"throttled"}},
    /* rocksdb and bdev entries count per 4 and 3 levels */
    {"ceph.debug_rocksdb", {"logging"}},
    {"ceph.debug_bdev", {"logging"}},
    {"cost.log_entry_us", {"logging"}},
    {"cost.log_entries_per_stage_per_level", {"logging"}},
    {"ceph.rbd_cache", {"writearound"}},
    {"ceph.rbd_cache_max_dirty", {"writearound"}},
    {"ceph.objecter_inflight_ops", {"objecter"}},
    {"ceph.objecter_inflight_op_bytes", {"objecter"}},
    {"ceph.crimson_seastar_smp", {"crimson"}},
    /* the erasure-code profile and ECBackend's costs act on an erasure pool */
    {"pool.type", {"ec"}},
    {"pool.k", {"ec"}},
    {"pool.m", {"ec"}},
    {"pool.stripe_unit", {"ec", "ec-read"}},
    {"cost.osd_ec_sub_read_us", {"ec", "ec-read"}},
    {"cost.msgr_local_delivery_us", {"ec", "ec-read"}},
    {"cost.osd_ec_sub_read_reply_us", {"ec", "ec-read"}},
    {"cost.osd_ec_encode_us_per_kib", {"ec"}},
    {"cost.bluestore_ec_rollback_keys_per_txc", {"ec"}},
    {"cost.bluestore_ec_rollback_us", {"ec"}},
    /* where the memtables start matters only when they flush on filling */
    {"cluster.rocksdb_memtable_fill", {"rocksdb-fill"}},
    {"cost.osd_redispatch_us", {"clone-excl"}},
    {"cost.osd_error_us", {"clone-nomap"}},
    /* the scheduler's timeslice only matters when threads wait for a core */
    {"cost.cpu_timeslice_us", {"cpu-bound"}},
    /* and who gets the core then, and whether a woken thread preempts */
    {"cluster.cpu_scheduler", {"cpu-bound"}},
    /* messages between processes of one host */
    {"cost.tcp_loopback_us", {"lab"}},
    /* PM QoS excludes states only near their exit latency */
    {"hw.cpu.cpu_dma_latency_us", {"pmqos-c2"}},
    {"hw.nvme.tail_spike_prob", {"spikes"}},
    {"hw.nvme.internal_parallelism", {"devpar"}},
    /* the scenario sets the governor; the profile's default counts without */
    {"hw.cpu.default_governor", {"schedutil"}},
    {"hw.nvme.tail_spike_us", {"spikes"}},
    /* the fio runtime counts only when sim.duration_s is 0 */
    {"fio.runtime", {"fio-runtime"}},
    /* one client host vs fio on OSD host 0 */
    {"cluster.client_hosts", {"qd1", "lab"}},
    {"cluster.clients_on_osd_hosts", {"fio-on-osd-host"}},
    /* the exclusive lock and the images act with several clients */
    {"image.exclusive_lock", {"two-writers", "clone"}},
    /* the kernel client's own costs and its blk-mq tag limit */
    {"cost.krbd_dispatch_us", {"krbd"}},
    {"cost.krbd_osdc_submit_us", {"krbd"}},
    {"cost.krbd_complete_us", {"krbd"}},
    {"cost.krbd_con_send_us", {"krbd"}},
    {"cost.fio_aio_submit_us", {"krbd"}},
    {"cost.fio_aio_complete_us", {"krbd"}},
    {"ceph.krbd_queue_depth", {"krbd-deep"}},
    {"clients.volumes_per_client", {"two-writers"}},
    {"image.count", {"two-writers"}},
    {"ceph.client_notify_timeout", {"two-writers"}},
    /* a CPU set's SMT layout and scope matter only with sets (and, for the
       scope, several OSDs per drive) */
    {"cluster.osd_cpus_smt", {"cpuset"}},
    {"cluster.osd_cpus_scope", {"pernvme"}},
    /* the data cache's size matters only when reads find things in it */
    {"ceph.bluestore_cache_autotune", {"cache"}},
    {"ceph.osd_memory_target", {"cache"}},
    {"ceph.osd_memory_base", {"cache"}},
    {"ceph.osd_memory_expected_fragmentation", {"cache"}},
    {"ceph.osd_memory_cache_min", {"cache-floor"}},
    {"ceph.bluestore_cache_size_ssd", {"cache-noauto"}},
    {"ceph.bluestore_cache_meta_ratio", {"cache-noauto"}},
    {"ceph.bluestore_cache_kv_ratio", {"cache-noauto"}},
    {"ceph.bluestore_cache_kv_onode_ratio", {"cache-noauto"}},
    {"ceph.osd_num_cache_shards", {"cache"}},
    {"ceph.bluestore_cache_autotune_interval", {"cache-balance"}},
    /* the driver decides only what powersave does */
    {"hw.cpu.scaling_driver", {"intel-powersave"}},
};

/*
 * Known dead, being fixed elsewhere: parameters parsed but not acted on yet,
 * whose fix another change owns.  They are perturbed like the others and
 * listed as such, so that the list stays visible; one that comes alive is
 * reported, to be taken off.  Issue 11 item 6's fio knobs (client.c:
 * random_distribution, randseed, randrepeat, norandommap, bsrange,
 * rw=randX:N, thinktime at iodepth > 1) were on it until client.c modelled
 * them (the fio merge); they are perturbed below and must stay alive.
 */
static const char *const known_dead[] = {NULL};

/* fio options that shape the simulated workload, with the values to try (and
   their base).  Output-only options (write_*_log, percentile_list, ...) and
   the ones fiojob.c itself declares ignored or unsupported are left out. */
static const struct {
    const char *label;       /* printed name */
    const char *key;
    const char *values[4];
    const char *bases[3];
} fio_opts[] = {
    {"fio.rw", "rw", {"randread", "write", "randrw"}, {"qd1"}},
    {"fio.bs", "bs", {"8k", "16k"}, {"qd1"}},
    {"fio.iodepth", "iodepth", {"2", "4"}, {"qd1"}},
    {"fio.numjobs", "numjobs", {"2"}, {"qd1"}},
    {"fio.size", "size", {"1g"}, {"qd16"}},
    {"fio.offset", "offset", {"1g"}, {"qd1"}},
    {"fio.rwmixread", "rwmixread", {"30", "70"}, {"mixed"}},
    {"fio.rate_iops", "rate_iops", {"200"}, {"qd1"}},
    {"fio.ramp_time", "ramp_time", {"50ms"}, {"qd1"}},
    {"fio.startdelay", "startdelay", {"10ms"}, {"qd1"}},
    {"fio.number_ios", "number_ios", {"10"}, {"qd1"}},
    {"fio.io_size", "io_size", {"128k", "32k"}, {"sized"}},
    {"fio.time_based", "time_based", {"1"}, {"sized"}},
    {"fio.runtime", "runtime", {"110ms", "90ms"}, {"fio-runtime"}},
    {"fio.bssplit", "bssplit", {"4k/50:64k/50"}, {"qd1"}},
    {"fio.thinktime (iodepth=1)", "thinktime", {"200"}, {"qd1"}},
    {"fio.thinktime (iodepth>1)", "thinktime", {"200"}, {"qd16"}},
    {"fio.random_distribution", "random_distribution", {"zipf:1.2", "pareto:0.5"}, {"qd16", "randread"}},
    {"fio.randseed", "randseed", {"42", "7"}, {"qd16", "randread"}},
    {"fio.randrepeat", "randrepeat", {"0"}, {"qd16", "randread"}},
    {"fio.norandommap", "norandommap", {"1"}, {"small-region"}},
    {"fio.bsrange", "bsrange", {"4k-64k"}, {"qd16"}},
    {"fio.rw=randwrite:N", "rw", {"randwrite:8"}, {"qd16"}},
};

/* Strings: the alternatives to try. */
static const struct {
    const char *path;
    const char *values[3];
} string_values[] = {
    {"cluster.host", {"lab"}},
    {"cluster.cpu", {"epyc-75f3", "epyc-7742"}},
    {"cluster.nvme", {"pm9a3"}},
    {"cluster.nic", {"25gbe", "100gbe"}},
    {"cluster.switch", {"tor-store-and-forward", "none"}},
    {"cluster.max_cstate", {"C2", "POLL"}},
    /* the job files' rbdname: the image answers to it by name */
    {"image.name", {"fio_test"}},
    {"ceph.release", {"18.2.4", "crimson", "17.2.7"}},
    /* memtables of 8 MiB and of 1 GiB (the kv_sync thread's skiplist) */
    {"ceph.bluestore_rocksdb_options", {"write_buffer_size=8388608", "write_buffer_size=1073741824"}},
    /* (given with --set: relative to the working directory) */
    {"cluster.crush_map", {"tests/data/crush/unequal.crush.json", "tests/data/crush/h10x6.crush.json"}},
};

/* Numbers whose useful values are far from the default (0 = off). */
static const struct {
    const char *path;
    const char *values[3];
} number_values[] = {
    {"ceph.bluestore_prefer_deferred_size_ssd", {"4096", "65536"}},
    {"pool.crush_rule", {"1", "2"}},
    /* the RequestLock retry only fires within a hand-over (~3 ms) */
    {"ceph.client_notify_timeout", {"0.0005", "0.001"}},
    {"clients.volumes_per_client", {"2"}},
    {"sim.reduce_to_hosts", {"3"}},
    /* a batch cut before the throttle's midpoint (12 txcs on the "deferred"
       base) submits it: the x2 and /2 of 16 (8, 32) fall either side of what
       a kv batch queues there */
    {"ceph.bluestore_deferred_batch_ops_ssd", {"2", "4"}},
};

/* An identifier, checked by test_hwprofile instead: the seed CPU lists all
   four governors, so renaming an entry repeats another one (refused); in a
   profile with fewer it makes the entry describe another governor. */
static const char *const identifiers[] = {"hw.cpu.governors[].name", NULL};

/* ---- running and fingerprinting ---- */

struct ctx {
    char tmpdir[256];
    int n_alive, n_desc, n_known, n_dead;
    char dead[4096], desc[8192], known[2048];
    uint64_t base_fp[N_BASES];
    bool base_done[N_BASES];
    int runs;
};

static uint64_t fnv(uint64_t h, const char *s)
{
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 1099511628211ull;
    }
    return h;
}

static uint64_t fnv_json(uint64_t h, cJSON *j)
{
    char *t = cJSON_PrintUnformatted(j);
    h = fnv(h, t);
    free(t);
    cJSON_Delete(j);
    return h;
}

/* Every output of a finished cluster but the echoed parameters. */
static uint64_t fingerprint(struct cluster *c, uint64_t h)
{
    h = fnv_json(h, fioout_json(cluster_job_results(c), (int)cluster_n_jobs(c), NULL));
    sim_time_t now = sim_now(cluster_sim(c));
    int64_t epoch = cluster_wall_epoch_ns(c);
    for (uint32_t i = 0; i < cluster_n_osds(c); i++) {
        h = fnv_json(h, perfdump_osd(cluster_osd_perf(c, i), cluster_bluestore_perf(c, i)));
        h = fnv_json(h, historicops_dump(cluster_optracker(c, i), now, epoch, 0));
    }
    return fnv_json(h, clusterjson_stats(c));
}

/* Load base + extra sets and run every replication; -errno when refused. */
static int run_fp(struct ctx *x, const struct base *b, const char *const *extra, int n_extra, uint64_t *fp,
                  struct sim_err *err)
{
    const char *sets[2 * MAX_SETS];
    int n = 0;
    for (int i = 0; i < MAX_SETS && b->sets[i]; i++)
        sets[n++] = b->sets[i];
    for (int i = 0; i < n_extra; i++)
        sets[n++] = extra[i];
    struct scenario sc;
    int rc = scenario_load(&sc, b->scenario, NULL, NULL, sets, n, err);
    if (rc < 0)
        return rc;
    uint64_t h = 14695981039346656037ull;
    for (int64_t r = 0; r < sc.sim.replications && rc == 0; r++) {
        struct cluster_spec spec;
        if ((rc = scenario_to_spec(&sc, (uint64_t)r, &spec, err)) < 0)
            break;
        struct cluster *c = cluster_create(&spec, err);
        if (!c) {
            rc = err->code ? err->code : -EINVAL;
            break;
        }
        cluster_run(c, NULL, NULL);
        h = fingerprint(c, h);
        cluster_destroy(c);
        x->runs++;
    }
    scenario_free(&sc);
    *fp = h;
    return rc;
}

static const struct base *find_base(const char *name)
{
    for (int i = 0; i < N_BASES; i++)
        if (!strcmp(bases[i].name, name))
            return &bases[i];
    return NULL;
}

static uint64_t base_fp(struct ctx *x, const struct base *b)
{
    int i = (int)(b - bases);
    if (!x->base_done[i]) {
        struct sim_err err = {0};
        if (run_fp(x, b, NULL, 0, &x->base_fp[i], &err) < 0)
            fail_msg("base %s does not run: %s", b->name, err.msg);
        x->base_done[i] = true;
    }
    return x->base_fp[i];
}

/* ---- candidate values ---- */

struct cands {
    int n;
    char v[8][128];
};

static void cand_add(struct cands *c, const char *s)
{
    for (int i = 0; i < c->n; i++)
        if (!strcmp(c->v[i], s))
            return;
    if (c->n < 8)
        snprintf(c->v[c->n++], sizeof c->v[0], "%s", s);
}

static void num_cands(const struct param_def *d, double v, struct cands *c)
{
    double tries[6];
    int n = 0;
    if (v != 0) {
        tries[n++] = v * 1.1;
        tries[n++] = v * 0.9;
        tries[n++] = v * 2;
        tries[n++] = v / 2;
    } else {
        tries[n++] = 1;
        tries[n++] = d->type == PARAM_DOUBLE ? 0.01 : 2;
    }
    for (int i = 0; i < n; i++) {
        double t = tries[i];
        if (d->type == PARAM_INT) {
            t = round(t);
            if (t == v)
                t = i % 2 ? v - 1 : v + 1;
        }
        if (t < d->min)
            t = d->min;
        if (t > d->max)
            t = d->max;
        if (t == v)
            continue;
        char s[64];
        if (d->type == PARAM_INT)
            snprintf(s, sizeof s, "%.0f", t);
        else
            snprintf(s, sizeof s, "%.9g", t);
        cand_add(c, s);
    }
}

/* Candidates for a table parameter whose current value lives at obj. */
static void param_cands(const struct param_def *d, const void *obj, const char *path, struct cands *c)
{
    c->n = 0;
    const void *p = (const char *)obj + d->offset;
    for (size_t i = 0; i < sizeof number_values / sizeof number_values[0]; i++)
        if (!strcmp(number_values[i].path, path))
            for (int k = 0; k < 3 && number_values[i].values[k]; k++)
                cand_add(c, number_values[i].values[k]);
    switch (d->type) {
    case PARAM_INT: num_cands(d, (double)*(const int64_t *)p, c); break;
    case PARAM_DOUBLE: num_cands(d, *(const double *)p, c); break;
    case PARAM_BOOL: cand_add(c, *(const bool *)p ? "false" : "true"); break;
    case PARAM_ENUM:
        for (int i = 0; d->choices[i]; i++)
            if (i != *(const int *)p)
                cand_add(c, d->choices[i]);
        break;
    case PARAM_STRING:
    case PARAM_TEXT:
        for (size_t i = 0; i < sizeof string_values / sizeof string_values[0]; i++)
            if (!strcmp(string_values[i].path, path))
                for (int k = 0; k < 3 && string_values[i].values[k]; k++)
                    if (strcmp(string_values[i].values[k], (const char *)p))
                        cand_add(c, string_values[i].values[k]);
        break;
    }
}

/* ---- outcomes ---- */

static void list_add(char *list, size_t n, const char *s)
{
    if (list[0])
        strncat(list, ", ", n - strlen(list) - 1);
    strncat(list, s, n - strlen(list) - 1);
}

static bool is_known_dead(const char *path)
{
    for (int i = 0; known_dead[i]; i++)
        if (!strcmp(known_dead[i], path))
            return true;
    return false;
}

/*
 * A perturbation: how to turn candidate value v into extra --set strings on
 * base b (set: "path=v"; a profile file: written to the temp dir).
 */
typedef int (*apply_fn)(struct ctx *x, const struct base *b, const void *arg, const char *v, char *set,
                        size_t n, struct sim_err *err);

static int apply_set(struct ctx *x, const struct base *b, const void *arg, const char *v, char *set,
                     size_t n, struct sim_err *err)
{
    snprintf(set, n, "%s=%s", (const char *)arg, v);
    return 0;
}

struct outcome {
    bool changed;
    char value[128];
    const char *base;
    int tried, refused;
    char last_err[sizeof ((struct sim_err *)0)->msg];
};

/* Try every candidate on every base until one changes an output (a
   descriptive parameter: the first value that runs, to confirm it). */
/* Where a table parameter's value lives in a loaded scenario. */
typedef const void *(*locate_fn)(const struct scenario *sc, const void *arg);

struct target {
    const char *path;
    const struct param_def *d; /* NULL: fixed candidates only */
    locate_fn locate;          /* with d: the struct holding d's value */
    const void *locate_arg;
};

/* The candidates of t on base b: from the base's own value of the parameter. */
static void base_cands(const struct target *t, const struct base *b, const struct cands *fixed, struct cands *c)
{
    *c = *fixed;
    if (!t->d)
        return;
    struct scenario sc;
    struct sim_err err = {0};
    const char *sets[MAX_SETS];
    int n = 0;
    for (int i = 0; i < MAX_SETS && b->sets[i]; i++)
        sets[n++] = b->sets[i];
    if (scenario_load(&sc, b->scenario, NULL, NULL, sets, n, &err) < 0)
        fail_msg("base %s: %s", b->name, err.msg);
    param_cands(t->d, t->locate(&sc, t->locate_arg), t->path, c);
    for (int i = 0; i < fixed->n; i++)
        cand_add(c, fixed->v[i]);
    scenario_free(&sc);
}

static void probe(struct ctx *x, const struct target *t, bool descriptive, const char *const *base_names,
                  apply_fn apply, const void *arg, const struct cands *fixed, struct outcome *o)
{
    for (int bi = 0; base_names[bi]; bi++) {
        const struct base *b = find_base(base_names[bi]);
        if (!b)
            fail_msg("no base named %s", base_names[bi]);
        uint64_t b_fp = base_fp(x, b);
        struct cands cb, *c = &cb;
        base_cands(t, b, fixed, &cb);
        if (!c->n && !descriptive)
            fail_msg("%s: no value to try on %s (add it to string_values)", t->path, b->name);
        if (!c->n) { /* a descriptive string: any other text */
            c->n = 1;
            snprintf(c->v[0], sizeof c->v[0], "perturbed");
        }
        for (int k = 0; k < c->n; k++) {
            char set[1400];
            struct sim_err err = {0};
            uint64_t fp;
            int rc = apply(x, b, arg, c->v[k], set, sizeof set, &err);
            const char *extra[1] = {set};
            if (rc == 0)
                rc = run_fp(x, b, extra, 1, &fp, &err);
            if (rc < 0) {
                o->refused++;
                snprintf(o->last_err, sizeof o->last_err, "%s", err.msg);
                continue;
            }
            o->tried++;
            if (fp != b_fp) {
                o->changed = true;
                snprintf(o->value, sizeof o->value, "%s", c->v[k]);
                o->base = b->name;
                return;
            }
            if (descriptive)
                return;
        }
    }
}

static void record(struct ctx *x, const char *path, bool descriptive, const struct outcome *o)
{
    if (descriptive && o->changed) {
        print_message("  FAIL   %-48s declared descriptive, but %s on %s changes outputs\n", path, o->value,
                      o->base);
        list_add(x->dead, sizeof x->dead, path);
        x->n_dead++;
    } else if (descriptive) {
        print_message("  descr  %-48s\n", path);
        list_add(x->desc, sizeof x->desc, path);
        x->n_desc++;
    } else if (o->changed) {
        if (is_known_dead(path))
            print_message("  NOTE   %-48s known dead, but %s on %s changes outputs: take it off "
                          "known_dead\n", path, o->value, o->base);
        else
            print_message("  alive  %-48s %s on %s\n", path, o->value, o->base);
        x->n_alive++;
    } else if (is_known_dead(path)) {
        print_message("  known  %-48s dead (being fixed by another change)\n", path);
        list_add(x->known, sizeof x->known, path);
        x->n_known++;
    } else if (!o->tried) {
        print_message("  DEAD   %-48s every value refused (%d; last: %s)\n", path, o->refused, o->last_err);
        list_add(x->dead, sizeof x->dead, path);
        x->n_dead++;
    } else {
        print_message("  DEAD   %-48s %d values on its bases change no output\n", path, o->tried);
        list_add(x->dead, sizeof x->dead, path);
        x->n_dead++;
    }
}

static const char *const *bases_of(const char *path)
{
    for (size_t i = 0; i < sizeof named_bases / sizeof named_bases[0]; i++)
        if (!strcmp(named_bases[i].path, path))
            return named_bases[i].bases;
    return default_bases;
}

/* ---- the walks ---- */

struct section {
    const char *name;
    const struct param_def *defs;
    size_t off; /* in struct scenario */
};

static const void *locate_offset(const struct scenario *sc, const void *arg)
{
    return (const char *)sc + *(const size_t *)arg;
}

static void walk_table(struct ctx *x, const char *prefix, const struct param_def *defs, const size_t *off)
{
    for (const struct param_def *d = defs; d->name; d++) {
        char path[160];
        snprintf(path, sizeof path, "%s.%s", prefix, d->name);
        struct target t = {path, d, locate_offset, off};
        struct cands none = {0};
        struct outcome o = {0};
        probe(x, &t, param_is_descriptive(d), bases_of(path), apply_set, path, &none, &o);
        record(x, path, param_is_descriptive(d), &o);
    }
}

/* A profile file perturbation: the base's profile of `kind` with one key changed. */
struct file_arg {
    enum hwprofile_kind kind;
    const char *array; /* "cstates", "governors" or NULL (top-level key) */
    int index;
    const char *key;
};

static int apply_file(struct ctx *x, const struct base *b, const void *argp, const char *v, char *set,
                      size_t n, struct sim_err *err)
{
    const struct file_arg *a = argp;
    /* the base's resolved profile path */
    struct scenario sc;
    const char *sets[MAX_SETS];
    int ns = 0;
    for (int i = 0; i < MAX_SETS && b->sets[i]; i++)
        sets[ns++] = b->sets[i];
    int rc = scenario_load(&sc, b->scenario, NULL, NULL, sets, ns, err);
    if (rc < 0)
        return rc;
    char src[1024], profiles[1024];
    const char *kn = hwprofile_kind_name(a->kind);
    if (a->kind == HWPROFILE_CPU) {
        snprintf(src, sizeof src, "%s", sc.cpu.path);
    } else {
        /* the host file the base names */
        rc = hwprofile_find_dir_for(b->scenario, profiles, sizeof profiles, err);
        if (rc == 0)
            rc = hwprofile_resolve(HWPROFILE_HOST, sc.cluster.host, profiles, src, sizeof src, err);
    }
    scenario_free(&sc);
    if (rc < 0)
        return rc;
    cJSON *j = jsonu_load_file(src, err);
    if (!j)
        return err->code ? err->code : -EINVAL;
    cJSON *obj = j;
    if (a->array)
        obj = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(j, a->array), a->index);
    assert_non_null(obj);
    char *end;
    double num = strtod(v, &end);
    cJSON *val = *end == '\0' ? cJSON_CreateNumber(num)
                 : !strcmp(v, "true") ? cJSON_CreateTrue()
                 : !strcmp(v, "false") ? cJSON_CreateFalse() : cJSON_CreateString(v);
    if (cJSON_GetObjectItemCaseSensitive(obj, a->key))
        cJSON_ReplaceItemInObjectCaseSensitive(obj, a->key, val);
    else
        cJSON_AddItemToObject(obj, a->key, val);
    char dst[400];
    snprintf(dst, sizeof dst, "%s/%s-%d.json", x->tmpdir, kn, x->runs);
    rc = jsonu_write_file(dst, j, err);
    cJSON_Delete(j);
    if (rc < 0)
        return rc;
    snprintf(set, n, "cluster.%s=%s", kn, dst);
    return 0;
}

/*
 * An element field is alive when one of the profile's elements reaches an
 * output from a base where that element is in effect: C-state k with deep
 * states allowed and the PM QoS limit at its exit latency (base pmqos-ck),
 * a governor entry with its governor selected (base gov-<name>).
 */
static void walk_elements(struct ctx *x, const struct scenario *base_sc, const char *array, int count,
                          const struct param_def *defs, const void *elems, size_t elem_size,
                          const char *const *elem_names)
{
    for (const struct param_def *d = defs; d->name; d++) {
        char path[160];
        snprintf(path, sizeof path, "hw.cpu.%s[].%s", array, d->name);
        bool skip = false;
        for (int i = 0; identifiers[i]; i++)
            skip |= !strcmp(identifiers[i], path);
        if (skip) {
            print_message("  ident  %-48s identifier (test_hwprofile)\n", path);
            continue;
        }
        struct outcome o = {0};
        for (int e = 0; e < count && !o.changed; e++) {
            struct cands none = {0};
            size_t off = (size_t)((const char *)elems - (const char *)base_sc) + (size_t)e * elem_size;
            struct target t = {path, d, locate_offset, &off};
            struct file_arg a = {HWPROFILE_CPU, array, e, d->name};
            char b1[64];
            const char *bl[4] = {b1, NULL, NULL, NULL};
            if (!strcmp(array, "cstates")) {
                snprintf(b1, sizeof b1, "pmqos-c%d", e + 1);
                bl[1] = "deep";
                bl[2] = "qd1";
            } else {
                snprintf(b1, sizeof b1, "gov-%s", elem_names[e]);
            }
            probe(x, &t, param_is_descriptive(d), bl, apply_file, &a, &none, &o);
        }
        record(x, path, param_is_descriptive(d), &o);
    }
}

static void sensitivity(void **state)
{
    struct ctx *x = calloc(1, sizeof *x);
    snprintf(x->tmpdir, sizeof x->tmpdir, "/tmp/cephsim-sensitivity-XXXXXX");
    assert_non_null(mkdtemp(x->tmpdir));
    /* the seed cluster as the qd1 base loads it: current values */
    struct scenario sc;
    struct sim_err err = {0};
    const struct base *b0 = &bases[0];
    const char *sets[MAX_SETS];
    int ns = 0;
    for (int i = 0; i < MAX_SETS && b0->sets[i]; i++)
        sets[ns++] = b0->sets[i];
    if (scenario_load(&sc, b0->scenario, NULL, NULL, sets, ns, &err) < 0)
        fail_msg("%s", err.msg);

    print_message("sensitivity: outcome per parameter (value and base of the first change)\n");
    const struct section sections[] = {
        {"cluster", scenario_cluster_params, offsetof(struct scenario, cluster)},
        {"pool", scenario_pool_params, offsetof(struct scenario, pool)},
        {"image", scenario_image_params, offsetof(struct scenario, image)},
        {"clients", scenario_clients_params, offsetof(struct scenario, clients)},
        {"sim", scenario_sim_params, offsetof(struct scenario, sim)},
        {"ceph", ceph_option_params, offsetof(struct scenario, ceph)},
        {"cost", stage_cost_params, offsetof(struct scenario, cost)},
    };
    for (size_t i = 0; i < sizeof sections / sizeof sections[0]; i++)
        walk_table(x, sections[i].name, sections[i].defs, &sections[i].off);
    static const size_t hw_off[] = {offsetof(struct scenario, cpu), offsetof(struct scenario, nvme),
                                    offsetof(struct scenario, nic), offsetof(struct scenario, sw)};
    walk_table(x, "hw.cpu", hwprofile_params(HWPROFILE_CPU), &hw_off[0]);
    walk_table(x, "hw.nvme", hwprofile_params(HWPROFILE_NVME), &hw_off[1]);
    walk_table(x, "hw.nic", hwprofile_params(HWPROFILE_NIC), &hw_off[2]);
    walk_table(x, "hw.switch", hwprofile_params(HWPROFILE_SWITCH), &hw_off[3]);
    const char *gov_names[HWPROFILE_GOVERNORS_MAX];
    for (int i = 0; i < sc.cpu.n_governors; i++)
        gov_names[i] = hwprofile_governor_name(sc.cpu.governors[i].kind);
    walk_elements(x, &sc, "cstates", sc.cpu.n_cstates, hwprofile_cstate_params(), sc.cpu.cstates,
                  sizeof sc.cpu.cstates[0], NULL);
    walk_elements(x, &sc, "governors", sc.cpu.n_governors, hwprofile_governor_params(), sc.cpu.governors,
                  sizeof sc.cpu.governors[0], gov_names);
    /* hw.host: the base's host file with one key changed */
    for (const struct param_def *d = hwprofile_params(HWPROFILE_HOST); d->name; d++) {
        char path[160];
        snprintf(path, sizeof path, "hw.host.%s", d->name);
        struct cands c = {0};
        if (d->type == PARAM_STRING) {
            enum hwprofile_kind k = !strcmp(d->name, "cpu") ? HWPROFILE_CPU
                                    : !strcmp(d->name, "nvme") ? HWPROFILE_NVME
                                    : !strcmp(d->name, "nic") ? HWPROFILE_NIC : HWPROFILE_SWITCH;
            static const char *const alt[] = {"epyc-75f3", "pm9a3", "25gbe", "tor-store-and-forward"};
            cand_add(&c, alt[k]);
        } else if (!strcmp(d->name, "memory_gib")) {
            cand_add(&c, "256");
        } else {
            cand_add(&c, "5");
            cand_add(&c, "20");
        }
        struct file_arg a = {HWPROFILE_HOST, NULL, 0, d->name};
        struct outcome o = {0};
        struct target t = {path, NULL, NULL, NULL};
        probe(x, &t, param_is_descriptive(d), bases_of(path), apply_file, &a, &c, &o);
        record(x, path, param_is_descriptive(d), &o);
    }
    /* fio options */
    for (size_t i = 0; i < sizeof fio_opts / sizeof fio_opts[0]; i++) {
        struct cands c = {0};
        for (int k = 0; k < 4 && fio_opts[i].values[k]; k++)
            cand_add(&c, fio_opts[i].values[k]);
        char key[64];
        snprintf(key, sizeof key, "fio.%s", fio_opts[i].key);
        const char *bl[4] = {NULL};
        for (int k = 0; k < 3 && fio_opts[i].bases[k]; k++)
            bl[k] = fio_opts[i].bases[k];
        struct outcome o = {0};
        struct target t = {fio_opts[i].label, NULL, NULL, NULL};
        probe(x, &t, false, bl, apply_set, key, &c, &o);
        record(x, fio_opts[i].label, false, &o);
    }
    scenario_free(&sc);

    print_message("sensitivity: %d alive, %d descriptive, %d known dead, %d dead (%d runs)\n", x->n_alive,
                  x->n_desc, x->n_known, x->n_dead, x->runs);
    print_message("descriptive (declared, no effect on results): %s\n", x->desc[0] ? x->desc : "none");
    print_message("known dead, being fixed by another change: %s\n",
                  x->known[0] ? x->known : "none");
    print_message("dead: %s\n", x->dead[0] ? x->dead : "none");
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", x->tmpdir);
    if (system(cmd) != 0)
        print_message("could not remove %s\n", x->tmpdir);
    int dead = x->n_dead;
    free(x);
    if (dead)
        fail_msg("%d parameter(s) change no output and are not declared descriptive", dead);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sensitivity),
    };
    return cmocka_run_group_tests_name("sensitivity", tests, NULL, NULL);
}
