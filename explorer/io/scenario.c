/*
 * scenario.c - scenario files, --set overrides and their resolution into a
 * cluster_spec (see scenario.h for the paths).
 */
#include "scenario.h"

#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <unistd.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "crushdump.h"
#include "fioopts.h"
#include "files.h"
#include "jsonu.h"
#include "paramjson.h"

#define CL(f) offsetof(struct scenario_cluster, f)
#define PO(f) offsetof(struct scenario_pool, f)
#define IM(f) offsetof(struct scenario_image, f)
#define SI(f) offsetof(struct scenario_sim, f)
#define CLI(f) offsetof(struct scenario_clients, f)

static const char *const governor_names[] = {"default", "performance", "ondemand", "schedutil",
                                             "powersave", NULL};
static const char *const failure_domain_names[] = {"host", "osd", NULL};
static const char *const pool_type_names[] = {"replicated", "erasure", NULL};
static const char *const osd_cpus_scope_names[] = {"osd", "nvme", "host", NULL};
/* scenario_to_spec casts the name's index to the model's enum */
_Static_assert(sizeof osd_cpus_scope_names / sizeof *osd_cpus_scope_names == OSD_CPUS_PER_HOST + 2 &&
                   OSD_CPUS_PER_OSD == 0 && OSD_CPUS_PER_NVME == 1,
               "osd_cpus_scope_names follows enum osd_cpus_scope");
static const char *const rocksdb_flushes_names[] = {"steady", "on_fill", NULL};
static const char *const cpu_scheduler_names[] = {"fifo", "cfs", "eevdf", NULL};
/* fill_cpu casts the name's index to the model's enum */
_Static_assert(CPU_SCHED_FIFO == 0 && CPU_SCHED_CFS == 1 && CPU_SCHED_EEVDF == 2,
               "cpu_scheduler_names follows enum cpu_sched");
static const char *const guard_names[] = {"default", "assert_exists", "none", "stat_roundtrip",
                                          "write_flag", "object_map_skip", NULL};

const struct param_def scenario_cluster_params[] = {
    {"host", PARAM_STRING, CL(host), 0, 0, 0, "", NULL, NULL,
     "host profile (hw-profiles/host, e.g. seed-epyc-7302p): sets cpu, nvme, nic, switch and osds_per_host "
     "(= its drives_per_host); keys given explicitly win"},
    {"hosts", PARAM_INT, CL(hosts), 1, 1000, 3, NULL, NULL, "count", "OSD hosts"},
    {"osds_per_host", PARAM_INT, CL(osds_per_host), 1, 64, 10, NULL, NULL, "count", "OSDs per host, one NVMe drive each"},
    {"osds_per_nvme", PARAM_INT, CL(osds_per_nvme), 1, 16, 1, NULL, NULL, "count",
     "OSDs sharing one NVMe drive (ceph-volume lvm batch --osds-per-device): consecutive OSDs of a host share "
     "its queue and internal parallelism; with cluster.host, osds_per_host defaults to drives_per_host x this"},
    {"osd_cpus", PARAM_INT, CL(osd_cpus), 0, 1024, 0, NULL, NULL, "count",
     "hardware threads each OSD is confined to (numactl --physcpubind / a container's cpuset.cpus): its threads "
     "queue for its own set; 0 = no set, the OSDs share the host's cores"},
    {"osd_cpus_smt", PARAM_BOOL, CL(osd_cpus_smt), 0, 1, 1, NULL, NULL, NULL,
     "the CPU set is osd_cpus / 2 cores with both SMT siblings (the Reef OSDs-per-NVMe study's numactl lists: "
     "half physical, half siblings); false: osd_cpus whole cores"},
    {"osd_cpus_scope", PARAM_ENUM, CL(osd_cpus_scope), 0, 0, 0, NULL, osd_cpus_scope_names, NULL,
     "osd: each OSD has a set of its own (a container per OSD); nvme: the OSDs of one drive share one set "
     "(numactl per NVMe); host: all of a host's OSDs share one set of osd_cpus per drive (one numactl "
     "--physcpubind list for every ceph-osd, as the Reef OSDs-per-NVMe study ran them)"},
    {"client_hosts", PARAM_INT, CL(client_hosts), 0, 64, 1, NULL, NULL, "count",
     "hosts running fio (0: fio runs on OSD host 0, as in the lab)"},
    {"clients_on_osd_hosts", PARAM_BOOL, CL(clients_on_osd_hosts), 0, 1, 0, NULL, NULL, NULL,
     "fio runs on the OSD hosts themselves, its job clones dealt over all of them in turn (a hyperconverged "
     "cluster; cbt's clients = its osds): they share the hosts' cores with the OSDs and reach a local primary "
     "without the wire; needs client_hosts 0"},
    {"cpu_scheduler", PARAM_ENUM, CL(cpu_scheduler), 0, 0, 0, NULL, cpu_scheduler_names, NULL,
     "who gets a core when every hardware thread is taken: fifo = first come first served, a running thread keeps "
     "its core for cost.cpu_timeslice_us (the model's own); cfs = Linux's CFS (2.6.23-6.5: Debian 12's 6.1): the "
     "run queue in virtual-runtime order, a woken thread placed no further back than min_vruntime - sched_latency / "
     "2 and preempting the running thread furthest ahead by more than sched_wakeup_granularity (1 ms x (1 + log2 "
     "min(CPUs, 8))); eevdf = Linux 6.6+: the same, preempting whenever that thread is ahead at all "
     "[simplification: no deadlines]. Matters on a saturated host: on the lab's 2-vCPU guest (kernel 6.18) the real "
     "OSD threads are preempted ~12 times per 4 KiB write at QD=64 (tests/data/lab12); on the Reef study's 4-thread "
     "CPU sets fifo ran 40 % under the published IOPS, cfs 21 % (docs/fidelity.md). Set it to what the OSD hosts' "
     "kernel runs (cephsim import reads it from osd metadata's kernel_version; the scored set runs cfs); fifo "
     "simulates ~1.5x faster on a saturated host and answers the same where cores are not short"},
    {"busy_poll", PARAM_DOUBLE, CL(busy_poll), 0, 1e6, 0, NULL, NULL, "us",
     "net.core.busy_poll (and busy_read) of every host: an idle messenger worker spins in epoll_wait polling its NIC "
     "queue this long before it sleeps (fs/eventpoll.c ep_poll -> ep_busy_loop, napi_busy_loop): work reaching it "
     "meanwhile costs no wake-up, a message reaching its NIC queue no interrupt (irq_wake_us), and the spin is CPU "
     "the thread shows; only for sockets fed by a NIC (not loopback), only for epoll readers (librbd's and the OSD's "
     "msgr-workers, not krbd's kworkers); tuned's network-latency profile sets 50 (redhat-performance/tuned "
     "profiles/network-latency/tuned.conf); Linux default 0 (off)"},
    {"cpu", PARAM_STRING, CL(cpu), 0, 0, 0, "epyc-7302p", NULL, NULL, "CPU profile (hw-profiles/cpu)"},
    {"nvme", PARAM_STRING, CL(nvme), 0, 0, 0, "pm983", NULL, NULL, "NVMe profile (hw-profiles/nvme)"},
    {"nic", PARAM_STRING, CL(nic), 0, 0, 0, "10gbase-t", NULL, NULL, "NIC/link profile (hw-profiles/nic)"},
    {"switch", PARAM_STRING, CL(switch_), 0, 0, 0, "tor-cut-through", NULL, NULL, "switch profile (hw-profiles/switch)"},
    {"max_cstate", PARAM_STRING, CL(max_cstate), 0, 0, 0, "deepest", NULL, NULL,
     "deepest idle state allowed (e.g. C1 = 'C-state pinning to 1', POLL = none, deepest = untuned)"},
    {"governor", PARAM_ENUM, CL(governor), 0, 0, 0, NULL, governor_names, NULL,
     "cpufreq governor (default: the CPU profile's default_governor)"},
    {"failure_domain", PARAM_ENUM, CL(failure_domain), 0, 0, 0, NULL, failure_domain_names, NULL,
     "replicas on distinct hosts or distinct OSDs (osd_crush_chooseleaf_type)"},
    {"crush_map", PARAM_STRING, CL(crush_map), 0, 0, 0, "", NULL, NULL,
     "a real cluster's CRUSH map, `ceph osd crush dump --format json` (relative to the scenario): its hosts, "
     "OSDs, weights, classes and rules replace hosts, osds_per_host and failure_domain (a --set of those, or "
     "those beside it in the same file, is refused)"},
    {"rocksdb_flushes", PARAM_ENUM, CL(rocksdb_flushes), 0, 0, 0, NULL, rocksdb_flushes_names, NULL,
     "when RocksDB's memtable flushes and the compactions after them cost CPU: steady = on every transaction "
     "(cost.rocksdb_background_us_per_txc on the background threads), a long run's average; on_fill = in one "
     "burst each time an OSD's memtables reach write_buffer_size x min_write_buffer_number_to_merge "
     "(DBImpl::SwitchMemtable, FlushJob; ~cost.bluestore_wal_bytes_per_txc of memtable per txc), starting from "
     "rocksdb_memtable_fill: a short run or a lightly written OSD, which may see none (the lab's 20 s runs at "
     "1 k writes/s fill ~25 MB of Pacific's 256 MiB)"},
    {"rocksdb_memtable_fill", PARAM_DOUBLE, CL(rocksdb_memtable_fill), 0, 0.999999, 0, NULL, NULL, "ratio",
     "with rocksdb_flushes on_fill: how full each OSD's memtables are at the start, of what a flush takes"},
    PARAM_END,
};

const struct param_def scenario_pool_params[] = {
    {"type", PARAM_ENUM, PO(type), 0, 0, 0, NULL, pool_type_names, NULL,
     "`ceph osd pool create NAME replicated|erasure`: replicated (ReplicatedBackend) or erasure-coded (ECBackend, "
     "RBD's --data-pool with allow_ec_overwrites: partial-stripe writes read the stripe first, reads read whole "
     "stripes, as through Reef)"},
    {"size", PARAM_INT, PO(size), 1, 10, 3, NULL, NULL, "count",
     "replicas (osd_pool_default_size 3; the monitor takes 1-10); an erasure pool's size is k + m (given "
     "otherwise: refused)"},
    {"k", PARAM_INT, PO(k), 2, 31, 2, NULL, NULL, "count",
     "erasure pools: data chunks of a stripe (the erasure-code-profile's k, at least 2 as ErasureCodeJerasure "
     "parses it; osd_pool_default_erasure_code_profile's k=2); k + m <= 32"},
    {"m", PARAM_INT, PO(m), 1, 30, 2, NULL, NULL, "count",
     "erasure pools: coding chunks (the profile's m; the default profile's m=2 from 15.2, m=1 before: ceph PR "
     "27656) (set by ceph.release)"},
    {"stripe_unit", PARAM_INT, PO(stripe_unit), 512, 16777216, 4096, NULL, NULL, "bytes",
     "erasure pools: bytes of one chunk of a stripe (osd_pool_erasure_code_stripe_unit 4096; the profile's "
     "stripe_unit); a stripe is k of them"},
    {"min_size", PARAM_INT, PO(min_size), 1, 10, 2, NULL, NULL, "count",
     PARAM_DESCRIPTIVE "unless given, size - size/2 (osd_pool_default_min_size 0: OSDMonitor::prepare_pool_size; 2 "
     "for size 3) or an erasure pool's k + min(1, m - 1): no failures are simulated, so it never blocks I/O "
     "(checked <= size)"},
    {"pg_num", PARAM_INT, PO(pg_num), 1, 65536, 256, NULL, NULL, "count", "placement groups of the pool"},
    {"id", PARAM_INT, PO(id), 1, 2147483647, 2, NULL, NULL, NULL,
     "pool id (`ceph osd pool ls detail`): it seeds placement; 2 = the first pool created on Pacific+"},
    {"crush_rule", PARAM_INT, PO(crush_rule), -1, 255, -1, NULL, NULL, NULL,
     "the pool's CRUSH rule id (with cluster.crush_map; -1: rule 0, replicated_rule)"},
    PARAM_END,
};

const struct param_def scenario_image_params[] = {
    {"kind", PARAM_ENUM, IM(kind), 0, 0, 0, NULL, image_kind_names, NULL,
     "plain (no parent), clone (parent snapshot, copy-up), flattened (a clone after rbd flatten)"},
    {"guard", PARAM_ENUM, IM(guard), 0, 0, 0, NULL, guard_names, NULL,
     "copy-up guard of clone writes: default = assert_exists for a clone, none otherwise"},
    {"copied_up", PARAM_DOUBLE, IM(copied_up), 0, 1, 1, NULL, NULL, "fraction",
     "clone objects already copied up at the start (0 = freshly cloned)"},
    {"parent_written", PARAM_DOUBLE, IM(parent_written), 0, 1, 1, NULL, NULL, "fraction",
     "clone: share of each parent object that holds data, from its start (1 = a parent filled before the snapshot, "
     "as the lab kit does; 0 = never written): what the copy-up reads and sends (CopyupRequest::read_from_parent, "
     "prepare_copyup_data)"},
    {"written", PARAM_DOUBLE, IM(written), 0, 1, 1, NULL, NULL, "fraction",
     "objects of a plain or flattened image written before the run (1 = prefilled, as benchmarks do; 0 = a fresh "
     "image): a never-written object does not exist, so a read of it costs no device I/O (BlueStore has no "
     "extent: -ENOENT, zeros) or, with the object map, no OSD op at all (ObjectReadRequest)"},
    {"cached", PARAM_DOUBLE, IM(cached), 0, 1, 0, NULL, NULL, "fraction",
     "share of the image's data in its primaries' BlueStore data caches when the job starts (0 = cold, as after "
     "a prefill with bluestore_default_buffered_write false; 1 = after a full read pass), capped by each OSD's "
     "cache size: what earlier jobs left there"},
    {"size_gib", PARAM_DOUBLE, IM(size_gib), 0.004, 1048576, 10, NULL, NULL, "GiB",
     "image size (object state is created on first touch: any size sets up at once)"},
    {"order", PARAM_INT, IM(order), 12, 26, 22, NULL, NULL, "log2 bytes", "object size 1 << order (rbd_default_order 22 = 4 MiB)"},
    {"exclusive_lock", PARAM_BOOL, IM(exclusive_lock), 0, 1, 1, NULL, NULL, NULL, "feature exclusive-lock (rbd_default_features)"},
    {"object_map", PARAM_BOOL, IM(object_map), 0, 1, 1, NULL, NULL, NULL,
     "feature object-map (needs exclusive-lock: off with it unless given)"},
    {"name", PARAM_STRING, IM(name), 0, 0, 0, "", NULL, NULL,
     "the image fio's rbdname opens; with count > 1 the images are NAME-0 .. NAME-(count-1), NAME 'image' "
     "if unset; unset, the (first) image answers to any rbdname"},
    {"count", PARAM_INT, IM(count), 1, 4096, 1, NULL, NULL, "count",
     "images of this spec, each with its own id (rbd_data.ID objects), header, exclusive lock, object map "
     "and clients"},
    PARAM_END,
};

const struct param_def scenario_clients_params[] = {
    {"volumes_per_client", PARAM_INT, CLI(volumes_per_client), 0, 4096, 0, NULL, NULL, "count",
     "cbt's volumes_per_client: each client host gets this many images and its fio job clones are dealt over "
     "them (image.count = this x client hosts); 0 = every clone opens the image its rbdname names"},
    PARAM_END,
};

const struct param_def scenario_sim_params[] = {
    {"duration_s", PARAM_DOUBLE, SI(duration_s), 0, 1e6, 0, NULL, NULL, "s",
     "measured simulated time (0: the jobs' runtime, else 5 s)"},
    {"warmup_s", PARAM_DOUBLE, SI(warmup_s), 0, 1e6, 0.5, NULL, NULL, "s",
     "simulated time before measuring (at least the jobs' ramp_time)"},
    {"seed", PARAM_INT, SI(seed), 0, 9007199254740991.0, 1, NULL, NULL, NULL, "seed of every random stream"},
    {"replications", PARAM_INT, SI(replications), 1, 1000, 1, NULL, NULL, "count",
     "independent runs (seeds derived from seed) for confidence intervals"},
    {"reduce_to_hosts", PARAM_INT, SI(reduce_to_hosts), 0, 1000, 0, NULL, NULL, "count",
     "the symmetric-cluster reduction (docs/scaling.md): simulate this many of cluster.hosts alike hosts with "
     "their share of pool.pg_num, client hosts and fio clones, and report IOPS, bandwidth and op counts for "
     "the whole cluster; means within 3 % of full runs, tails (p99 and beyond) read low; 0 = every host"},
    PARAM_END,
};

static const char *const top_keys[] = {"description", "cluster", "pool", "image", "sim", "ceph",
                                       "cost", "hw", "clients", "fio"};
#define N_TOP_KEYS (int)(sizeof top_keys / sizeof top_keys[0])

struct section {
    const char *name;
    const struct param_def *defs;
    size_t offset; /* of the bound struct inside struct scenario */
    const char *const *extra_keys; /* keys of the section that are not parameters */
};

static const char *const clients_keys[] = {"jobfile", "jobs", NULL};

static const struct section sections[] = {
    {"cluster", scenario_cluster_params, offsetof(struct scenario, cluster), NULL},
    {"pool", scenario_pool_params, offsetof(struct scenario, pool), NULL},
    {"image", scenario_image_params, offsetof(struct scenario, image), NULL},
    {"clients", scenario_clients_params, offsetof(struct scenario, clients), clients_keys},
    {"sim", scenario_sim_params, offsetof(struct scenario, sim), NULL},
    {"ceph", ceph_option_params, offsetof(struct scenario, ceph), NULL},
    {"cost", stage_cost_params, offsetof(struct scenario, cost), NULL},
};
#define N_SECTIONS (int)(sizeof sections / sizeof sections[0])

static const struct section *find_section(const char *name)
{
    for (int i = 0; i < N_SECTIONS; i++)
        if (!strcmp(sections[i].name, name))
            return &sections[i];
    return NULL;
}

const struct param_def *scenario_param_for_path(const char *path)
{
    const char *dot = strchr(path, '.');
    if (!dot)
        return NULL;
    for (int i = 0; i < N_SECTIONS; i++)
        if (strlen(sections[i].name) == (size_t)(dot - path) && !strncmp(path, sections[i].name, (size_t)(dot - path)))
            return param_find(sections[i].defs, dot + 1);
    return NULL;
}

static const char *const set_sections[] = {"cluster", "pool", "image", "clients", "sim", "ceph", "cost", "hw", "fio"};

/* Split "a.b=c" into section "a", key "b", value "c" (in buf). */
static int split_set(const char *set, char *buf, size_t n, char **section, char **key, char **value,
                     struct sim_err *err)
{
    if (strlen(set) >= n)
        return sim_errf(err, -EINVAL, "--set %.40s...: too long", set);
    strcpy(buf, set);
    char *eq = strchr(buf, '=');
    char *dot = strchr(buf, '.');
    if (!eq || !dot || dot > eq)
        return sim_errf(err, -EINVAL, "--set %s: expected section.key=value (e.g. cluster.nic=25gbe)", set);
    *eq = '\0';
    *dot = '\0';
    *section = buf;
    *key = dot + 1;
    *value = eq + 1;
    return 0;
}

static int set_error_unknown_section(const char *set, const char *section, struct sim_err *err)
{
    const char *dym = names_did_you_mean(section, set_sections, 9);
    return sim_errf(err, -EINVAL, "--set %s: unknown section '%s'%s%s%s", set, section,
                    dym ? " (did you mean '" : "", dym ? dym : "", dym ? "'?)" : "");
}

static int set_param(struct scenario *sc, const struct section *sec, const char *key, const char *value,
                     const char *set, struct sim_err *err)
{
    const struct param_def *d = param_find(sec->defs, key);
    char path[256];
    snprintf(path, sizeof path, "%s.%s", sec->name, key);
    if (!d) {
        int n = param_count(sec->defs), m = 0;
        const char **names = sim_xcalloc((size_t)n + 16, sizeof *names);
        for (int i = 0; i < n; i++)
            names[m++] = sec->defs[i].name;
        for (int i = 0; sec->extra_keys && sec->extra_keys[i] && m < n + 16; i++)
            names[m++] = sec->extra_keys[i];
        const char *dym = names_did_you_mean(key, names, m);
        int rc = sim_errf(err, -EINVAL, "--set %s: unknown key %s%s%s%s", set, path,
                          dym ? " (did you mean '" : "", dym ? dym : "", dym ? "'?)" : "");
        free(names);
        return rc;
    }
    char origin[300];
    snprintf(origin, sizeof origin, "--set %s", set);
    return param_set_text(d, (char *)sc + sec->offset, value, origin, path, err);
}

static int bind_sections(struct scenario *sc, const cJSON *root, const char *file, struct sim_err *err)
{
    int rc;
    if ((rc = jsonu_check_keys(root, top_keys, N_TOP_KEYS, file, "", err)) < 0)
        return rc;
    const cJSON *desc = cJSON_GetObjectItemCaseSensitive(root, "description");
    if (desc) {
        if (!cJSON_IsString(desc))
            return sim_errf(err, -EINVAL, "%s: description: expected a string", file);
        snprintf(sc->description, sizeof sc->description, "%s", desc->valuestring);
    }
    for (int i = 0; i < N_SECTIONS; i++) {
        const cJSON *j = cJSON_GetObjectItemCaseSensitive(root, sections[i].name);
        if (!j)
            continue;
        if ((rc = paramjson_bind(sections[i].defs, (char *)sc + sections[i].offset, j, sections[i].extra_keys,
                                  file, sections[i].name, err)) < 0)
            return rc;
    }
    return 0;
}

static int value_error(const struct scenario *sc, int rc, const char *path, const char *const *sets, int n_sets,
                       const char *msg, struct sim_err *err);
static const char *set_origin(const char *path, const char *const *sets, int n_sets);

/* given[i]: defs[i] is set by the file's <section> object or by a --set of
   <section>.<name> (the caller frees it). */
static bool *params_given(const struct scenario *sc, const char *section, const struct param_def *defs,
                          const char *const *sets, int n_sets)
{
    const cJSON *obj = cJSON_GetObjectItemCaseSensitive(sc->json, section);
    int n = param_count(defs);
    bool *given = sim_xcalloc((size_t)n, sizeof *given);
    for (int i = 0; i < n; i++) {
        char path[96];
        snprintf(path, sizeof path, "%s.%s", section, defs[i].name);
        given[i] = cJSON_GetObjectItemCaseSensitive(obj, defs[i].name) || set_origin(path, sets, n_sets);
    }
    return given;
}

/* ceph.release's option defaults (release_table.c) on every ceph.<option>
   that neither the file nor a --set gives, and its client costs on every
   cost.<stage> likewise: the user's value wins. */
static int apply_release_defaults(struct scenario *sc, const char *const *sets, int n_sets, struct sim_err *err)
{
    bool *given = params_given(sc, "ceph", ceph_option_params, sets, n_sets);
    int rc = ceph_options_apply_release(&sc->ceph, &sc->rel, given, err);
    free(given);
    if (rc < 0)
        return rc;
    given = params_given(sc, "cost", stage_cost_params, sets, n_sets);
    rc = stage_costs_apply_release(&sc->cost, &sc->rel, given, err);
    free(given);
    return rc;
}

static int profiles_dir(const struct scenario *sc, char *dir, size_t n, struct sim_err *err);
static const char *profile_ref(const struct scenario *sc, const char *key, const char *ref, const char *const *sets,
                               int n_sets, char *buf, size_t n);

/* A part reference of a host profile as a cluster.<part> value: its short
   name, or the path it resolved to. */
static int host_part(char *dst, const char *ref, const char *path, const char *what, struct sim_err *err)
{
    const char *v = strchr(ref, '/') ? path : ref;
    if (strlen(v) >= PARAM_STR_MAX)
        return sim_errf(err, -ENAMETOOLONG, "cluster.host: %s reference '%s' is too long for cluster.%s", what, v, what);
    strcpy(dst, v);
    return 0;
}

/* cluster.host (from the file or --set): the host profile's parts become the
   defaults of cluster.cpu/nvme/nic/switch and osds_per_host; the file's and
   --set's own keys are applied after it and win. */
static int apply_host_profile(struct scenario *sc, const cJSON *root, const char *const *sets, int n_sets,
                              struct sim_err *err)
{
    const char *set = set_origin("cluster.host", sets, n_sets);
    const cJSON *cl = cJSON_GetObjectItemCaseSensitive(root, "cluster");
    const cJSON *h = cJSON_GetObjectItemCaseSensitive(cl, "host");
    const char *name = set ? strchr(set, '=') + 1 : cJSON_IsString(h) ? h->valuestring : NULL;
    if (!name || !name[0])
        return 0;
    char dir[1024], ref[2048];
    int rc;
    if ((rc = profiles_dir(sc, dir, sizeof dir, err)) < 0)
        return rc;
    struct hw_host *host = sim_xcalloc(1, sizeof *host);
    struct sim_err e2;
    if ((rc = hwprofile_load_host(profile_ref(sc, "cluster.host", name, sets, n_sets, ref, sizeof ref), dir, host,
                                  &e2)) < 0)
        rc = value_error(sc, rc, "cluster.host", sets, n_sets, e2.msg, err);
    else if ((rc = host_part(sc->cluster.cpu, host->cpu_ref, host->cpu.path, "cpu", err)) == 0 &&
             (rc = host_part(sc->cluster.nvme, host->nvme_ref, host->nvme.path, "nvme", err)) == 0 &&
             (rc = host_part(sc->cluster.nic, host->nic_ref, host->nic.path, "nic", err)) == 0 &&
             (rc = host_part(sc->cluster.switch_, host->switch_ref, host->sw.path, "switch", err)) == 0)
        sc->cluster.osds_per_host = host->drives_per_host;
    free(host);
    return rc;
}

static const enum hwprofile_kind hw_kinds[] = {HWPROFILE_CPU, HWPROFILE_NVME, HWPROFILE_NIC, HWPROFILE_SWITCH};
static const char *const hw_kind_keys[] = {"cpu", "nvme", "nic", "switch"};

static void *hw_part(struct scenario *sc, int i)
{
    switch (i) {
    case 0: return &sc->cpu;
    case 1: return &sc->nvme;
    case 2: return &sc->nic;
    default: return &sc->sw;
    }
}

/* The --set argument that gave path its value, or NULL if it came from the file. */
static const char *set_origin(const char *path, const char *const *sets, int n_sets)
{
    size_t n = strlen(path);
    const char *found = NULL;
    for (int i = 0; i < n_sets; i++)
        if (!strncmp(sets[i], path, n) && sets[i][n] == '=')
            found = sets[i]; /* the last one wins, as it does when applied */
    return found;
}

/* "--set a.b=c: a.b: msg" or "file: a.b: msg": the error names where the value came from. */
static int value_error(const struct scenario *sc, int rc, const char *path, const char *const *sets, int n_sets,
                       const char *msg, struct sim_err *err)
{
    const char *set = set_origin(path, sets, n_sets);
    if (set)
        return sim_errf(err, rc, "--set %s: %s: %s", set, path, msg);
    return sim_errf(err, rc, "%s: %s: %s", sc->path, path, msg);
}

/* The scenario file, or NULL for a built-in or in-memory scenario. */
static const char *scenario_file(const struct scenario *sc)
{
    return sc->path[0] == '(' ? NULL : sc->path;
}

/* The profiles directory for sc: its own tree's hw-profiles first. */
static int profiles_dir(const struct scenario *sc, char *dir, size_t n, struct sim_err *err)
{
    return hwprofile_find_dir_for(scenario_file(sc), dir, n, err);
}

/* A profile given by path in the scenario file is relative to that file, so a
   tree can be copied or cloned anywhere; one from --set is relative to the
   working directory, as any command-line path is. */
static const char *profile_ref(const struct scenario *sc, const char *key, const char *ref, const char *const *sets,
                               int n_sets, char *buf, size_t n)
{
    const char *file = scenario_file(sc);
    if (!file || !hwprofile_is_path(ref) || ref[0] == '/' || set_origin(key, sets, n_sets))
        return ref;
    char dir[1024];
    if (files_dir_of(file, dir, sizeof dir) < 0 || files_join(dir, ref, buf, n) < 0)
        return ref;
    return buf;
}

/*
 * cluster.crush_map: a real cluster's map.  Its OSDs (ids 0..N-1, each in one
 * bucket of type "host") become the cluster's OSDs on its hosts; hosts and
 * osds_per_host (the mean, for messages) follow from it.
 */
static int load_crush_map(struct scenario *sc, const char *const *sets, int n_sets, struct sim_err *err)
{
    if (!sc->cluster.crush_map[0])
        return 0;
    char ref[2048];
    const char *path = profile_ref(sc, "cluster.crush_map", sc->cluster.crush_map, sets, n_sets, ref, sizeof ref);
    struct sim_err e2 = {0};
    sc->crush = sim_xcalloc(1, sizeof *sc->crush);
    placement_map_init(sc->crush);
    int rc = crushdump_load_crush(path, sc->crush, &e2);
    if (rc < 0)
        return value_error(sc, rc, "cluster.crush_map", sets, n_sets, e2.msg, err);
    const struct placement_map *m = sc->crush;
    int32_t host_type = -1;
    for (uint32_t t = 0; t < m->n_types; t++)
        if (!strcmp(m->types[t].name, "host"))
            host_type = m->types[t].id;
    uint32_t n = 0;
    for (int32_t d = 0; d < m->max_devices; d++)
        if (m->devices[d].name)
            n = (uint32_t)d + 1;
    if (n == 0 || host_type < 0)
        return value_error(sc, -EINVAL, "cluster.crush_map", sets, n_sets, "no OSDs under buckets of type host",
                           err);
    sc->osd_host = sim_xcalloc(n, sizeof *sc->osd_host);
    for (uint32_t d = 0; d < n; d++)
        sc->osd_host[d] = UINT32_MAX;
    uint32_t hosts = 0;
    for (int32_t b = 0; b < m->max_buckets; b++) {
        const struct placement_bucket *bk = m->buckets[b];
        if (!bk || bk->type != host_type || bk->class_id >= 0) /* real host buckets, not shadows */
            continue;
        for (uint32_t i = 0; i < bk->size; i++)
            if (bk->items[i] >= 0 && (uint32_t)bk->items[i] < n)
                sc->osd_host[bk->items[i]] = hosts;
        hosts++;
    }
    for (uint32_t d = 0; d < n; d++)
        if (sc->osd_host[d] == UINT32_MAX) {
            char msg[160];
            snprintf(msg, sizeof msg, "osd.%u is in no host bucket (or ids have gaps): the model needs OSD ids "
                     "0..%u each on a host", d, n - 1);
            return value_error(sc, -EINVAL, "cluster.crush_map", sets, n_sets, msg, err);
        }
    if (hosts > 1000)
        return value_error(sc, -EINVAL, "cluster.crush_map", sets, n_sets, "more than 1000 hosts", err);
    /* The map's host buckets and rules replace these.  A --set of one, or one
       written beside the map in the same file, would be dropped unseen; a map
       given by --set over a file's own topology is the user replacing it. */
    static const char *const replaced[] = {"hosts", "osds_per_host", "failure_domain"};
    const cJSON *cl = cJSON_GetObjectItemCaseSensitive(sc->json, "cluster");
    bool map_in_file = !set_origin("cluster.crush_map", sets, n_sets);
    for (size_t i = 0; i < sizeof replaced / sizeof replaced[0]; i++) {
        char key[64];
        snprintf(key, sizeof key, "cluster.%s", replaced[i]);
        if ((map_in_file && cJSON_GetObjectItemCaseSensitive(cl, replaced[i])) || set_origin(key, sets, n_sets))
            return value_error(sc, -EINVAL, key, sets, n_sets,
                               "given with cluster.crush_map, whose host buckets and rules replace it: give one "
                               "of the two",
                               err);
    }
    sc->n_osds = n;
    sc->cluster.hosts = hosts;
    sc->cluster.osds_per_host = (n + hosts - 1) / hosts;
    return 0;
}

static int load_profiles(struct scenario *sc, const char *const *sets, int n_sets, struct sim_err *err)
{
    char dir[1024], ref[2048];
    int rc;
    if ((rc = profiles_dir(sc, dir, sizeof dir, err)) < 0)
        return rc;
    struct sim_err e2;
#define REF(key, v) profile_ref(sc, key, v, sets, n_sets, ref, sizeof ref)
    if ((rc = hwprofile_load_cpu(REF("cluster.cpu", sc->cluster.cpu), dir, &sc->cpu, &e2)) < 0)
        return value_error(sc, rc, "cluster.cpu", sets, n_sets, e2.msg, err);
    if ((rc = hwprofile_load_nvme(REF("cluster.nvme", sc->cluster.nvme), dir, &sc->nvme, &e2)) < 0)
        return value_error(sc, rc, "cluster.nvme", sets, n_sets, e2.msg, err);
    if ((rc = hwprofile_load_nic(REF("cluster.nic", sc->cluster.nic), dir, &sc->nic, &e2)) < 0)
        return value_error(sc, rc, "cluster.nic", sets, n_sets, e2.msg, err);
    if ((rc = hwprofile_load_switch(REF("cluster.switch", sc->cluster.switch_), dir, &sc->sw, &e2)) < 0)
        return value_error(sc, rc, "cluster.switch", sets, n_sets, e2.msg, err);
#undef REF
    return 0;
}

/* Messages of fiojob_set / hwprofile_set start with their own "--set x: ";
   for values from the file that prefix would blame the command line. */
static const char *strip_set_prefix(const char *msg)
{
    if (strncmp(msg, "--set", 5))
        return msg;
    const char *colon = strstr(msg, ": ");
    if (!colon)
        return msg;
    msg = colon + 2;
    /* hwprofile_set names the path after "--set:": the caller names it too */
    if (!strncmp(msg, "hw.", 3) && (colon = strstr(msg, ": ")))
        msg = colon + 2;
    return msg;
}

/* A latency given explicitly replaces the measured shape of the profile. */
static void nvme_latency_overridden(struct hw_nvme *nv, const char *key)
{
    if (!strcmp(key, "write_latency_us"))
        nv->n_write_pct = 0;
    else if (!strcmp(key, "read_latency_us"))
        nv->n_read_pct = 0;
    else if (!strcmp(key, "flush_latency_us"))
        nv->n_flush_pct = 0;
}

/* "hw": {"nvme": {"write_latency_us": 30}, ...}: field overrides of the loaded profiles. */
static int apply_hw_json(struct scenario *sc, const cJSON *hw, const char *file, struct sim_err *err)
{
    int rc;
    if ((rc = jsonu_check_keys(hw, hw_kind_keys, 4, file, "hw", err)) < 0)
        return rc;
    for (int i = 0; i < 4; i++) {
        const cJSON *part = cJSON_GetObjectItemCaseSensitive(hw, hw_kind_keys[i]);
        if (!part)
            continue;
        if (!cJSON_IsObject(part))
            return sim_errf(err, -EINVAL, "%s: hw.%s: expected an object", file, hw_kind_keys[i]);
        for (const cJSON *f = part->child; f; f = f->next) {
            char text[128];
            if (!jsonu_scalar_text(f, text, sizeof text))
                return sim_errf(err, -EINVAL, "%s: hw.%s.%s: expected a number, bool or string", file,
                                hw_kind_keys[i], f->string);
            struct sim_err e2;
            if ((rc = hwprofile_set_unchecked(hw_kinds[i], hw_part(sc, i), f->string, text, &e2)) < 0)
                return sim_errf(err, rc, "%s: hw.%s.%s: %s", file, hw_kind_keys[i], f->string,
                                strip_set_prefix(e2.msg));
            if (hw_kinds[i] == HWPROFILE_NVME)
                nvme_latency_overridden(&sc->nvme, f->string);
        }
    }
    return 0;
}

/* --set clients.jobfile=F (relative to the working directory, as any path on
   the command line) or clients.jobs=TEXT: the scenario runs these jobs instead
   of its own. */
static int set_clients(struct scenario *sc, const char *set, const char *key, const char *value, struct sim_err *err)
{
    cJSON *clients = cJSON_CreateObject();
    if (!strcmp(key, "jobfile")) {
        char abs_[PATH_MAX], cwd[PATH_MAX];
        if (value[0] != '/' && getcwd(cwd, sizeof cwd) && (size_t)snprintf(abs_, sizeof abs_, "%s/%s", cwd, value) <
                                                              sizeof abs_)
            value = abs_;
        cJSON_AddStringToObject(clients, "jobfile", value);
    } else if (!strcmp(key, "jobs")) {
        cJSON_AddStringToObject(clients, "jobs", value);
    } else {
        cJSON_Delete(clients);
        static const char *const keys[] = {"jobfile", "jobs"};
        const char *dym = names_did_you_mean(key, keys, 2);
        return sim_errf(err, -EINVAL, "--set %s: clients.%s: unknown key (clients.jobfile or clients.jobs)%s%s%s", set,
                        key, dym ? " (did you mean '" : "", dym ? dym : "", dym ? "'?)" : "");
    }
    if (cJSON_GetObjectItemCaseSensitive(sc->json, "clients"))
        cJSON_ReplaceItemInObjectCaseSensitive(sc->json, "clients", clients);
    else
        cJSON_AddItemToObject(sc->json, "clients", clients);
    return 0;
}

static int load_jobs(struct scenario *sc, const cJSON *clients, const char *file, struct sim_err *err)
{
    char dirbuf[1024];
    snprintf(dirbuf, sizeof dirbuf, "%s", file);
    const char *dir = sc->path[0] == '(' ? "." : dirname(dirbuf);
    int rc;
    if (!clients)
        return sim_errf(err, -EINVAL, "%s: clients: missing (give {\"jobfile\": \"x.fio\"} or {\"jobs\": \"[job]...\"})", file);
    const cJSON *jobfile = cJSON_GetObjectItemCaseSensitive(clients, "jobfile");
    const cJSON *jobs = cJSON_GetObjectItemCaseSensitive(clients, "jobs");
    if ((jobfile != NULL) == (jobs != NULL))
        return sim_errf(err, -EINVAL, "%s: clients: give exactly one of jobfile and jobs", file);
    struct sim_err e2;
    if (jobfile) {
        if (!cJSON_IsString(jobfile))
            return sim_errf(err, -EINVAL, "%s: clients.jobfile: expected a path", file);
        char path[2048];
        if (jobfile->valuestring[0] == '/')
            snprintf(path, sizeof path, "%s", jobfile->valuestring);
        else
            snprintf(path, sizeof path, "%s/%s", dir, jobfile->valuestring);
        rc = fiojob_parse_file(path, NULL, &sc->jobs, &e2);
    } else {
        if (!cJSON_IsString(jobs))
            return sim_errf(err, -EINVAL, "%s: clients.jobs: expected the text of a job file", file);
        char pseudo[1100];
        snprintf(pseudo, sizeof pseudo, "%s:clients.jobs", file);
        rc = fiojob_parse_string(jobs->valuestring, pseudo, dir, NULL, &sc->jobs, &e2);
    }
    if (rc < 0)
        return sim_errf(err, rc, "%s (clients of %s)", e2.msg, file);
    return 0;
}

/* cephsim simulates fio's rbd engine (librbd) and a block engine on a mapped
   /dev/rbdN (the kernel client, krbd.c); a job of any other engine would run
   silently as librbd and mislead.  Checked once every fio override is in. */
static int check_engines(const struct scenario *sc, const char *file, struct sim_err *err)
{
    for (int i = 0; i < sc->jobs.n_jobs; i++) {
        const struct workload_job *j = &sc->jobs.jobs[i];
        const char *eng = j->ioengine;
        if (!strcmp(eng, "rbd"))
            continue;
        /* name the job file's line that chose the engine, when the jobs came from text */
        const struct fiojob_where *w = sc->jobs.engine_where ? &sc->jobs.engine_where[i] : NULL;
        const char *at = w && w->at[0] ? w->at : file;
        const char *dflt = w && w->defaulted ? ", fio's default: the job sets no ioengine" : "";
        if (j->kernel_client) {
            /* the page cache in front of the device is not modelled */
            if (!j->direct)
                return sim_errf(err, -EINVAL, "%s: job '%s': ioengine=%s on %s without direct=1 goes through the "
                                "page cache, which cephsim does not model (set direct=1)", at, j->name, eng,
                                j->filename);
            continue;
        }
        const char *help = NULL;
        bool known = false, newer = false;
        for (int k = 0; k < fio_engineinfo_count; k++)
            if (!strcmp(eng, fio_engineinfo_table[k].name)) {
                known = true;
                help = fio_engineinfo_table[k].help;
            }
        for (int k = 0; k < fio_newer_engines_count; k++)
            newer = newer || !strcmp(eng, fio_newer_engines[k]);
        if (!known)
            return sim_errf(err, -EINVAL, "%s: job '%s': ioengine=%s is not an engine of %s%s", at, j->name, eng,
                            fio_vocabulary_release, newer ? " (a later fio added it)" : "");
        bool block = fiojob_block_engine(eng);
        return sim_errf(err, -EINVAL, "%s: job '%s': ioengine=%s (%s%s) is not modelled: cephsim simulates fio's rbd "
                        "engine (ioengine=rbd, librbd)%s", at, j->name, eng, help ? help : "fio engine", dflt,
                        block ? " and block engines on a kernel-mapped RBD device (filename=/dev/rbdN: the kernel "
                                "client, krbd)" : "");
    }
    return 0;
}

static int apply_fio_json(struct scenario *sc, const cJSON *fio, const char *file, struct sim_err *err)
{
    if (!cJSON_IsObject(fio))
        return sim_errf(err, -EINVAL, "%s: fio: expected an object of fio options", file);
    for (const cJSON *f = fio->child; f; f = f->next) {
        char text[256];
        const char *value = text;
        if (cJSON_IsNumber(f))
            snprintf(text, sizeof text, "%.17g", f->valuedouble);
        else if (cJSON_IsString(f))
            snprintf(text, sizeof text, "%s", f->valuestring);
        else if (cJSON_IsTrue(f))
            value = NULL; /* bare flag */
        else if (cJSON_IsFalse(f))
            snprintf(text, sizeof text, "0");
        else
            return sim_errf(err, -EINVAL, "%s: fio.%s: expected a string, number or bool", file, f->string);
        struct sim_err e2;
        int rc = fiojob_set(&sc->jobs, f->string, value, &e2);
        if (rc < 0)
            return sim_errf(err, rc, "%s: fio.%s: %s", file, f->string, strip_set_prefix(e2.msg));
    }
    return 0;
}

static int check_cstate(const struct scenario *sc, struct sim_err *err)
{
    const char *m = sc->cluster.max_cstate;
    if (!strcmp(m, "deepest") || !strcmp(m, "POLL") || !strcmp(m, "C0"))
        return 0;
    for (int i = 0; i < sc->cpu.n_cstates; i++)
        if (!strcmp(sc->cpu.cstates[i].name, m))
            return 0;
    char list[256] = "POLL";
    for (int i = 0; i < sc->cpu.n_cstates; i++) {
        strncat(list, ", ", sizeof list - strlen(list) - 1);
        strncat(list, sc->cpu.cstates[i].name, sizeof list - strlen(list) - 1);
    }
    /* a deeper name than the profile knows (C6 on a CPU listing C1, C2) means "deepest" */
    if (m[0] == 'C' && atoi(m + 1) > 0)
        return 0;
    return sim_errf(err, -EINVAL, "%s: cluster.max_cstate: '%s' is not one of %s, deepest", sc->path, m, list);
}

int64_t scenario_ec_min_size(int64_t k, int64_t m)
{
    return k + (m > 1 ? 1 : 0);
}

void scenario_free(struct scenario *sc)
{
    if (sc->crush)
        placement_map_fini(sc->crush);
    free(sc->crush);
    free(sc->osd_host);
    fiojob_free(&sc->jobs);
    cJSON_Delete(sc->json);
    memset(sc, 0, sizeof *sc);
}

/* n x k / hosts rounded, and whether it is within 2 % of the exact share
   (what the per-OSD load may drift by: a 2 % load difference is within the
   reduction's own error on means, docs/scaling.md) */
static int64_t share(int64_t n, int64_t k, int64_t hosts, bool *close)
{
    double exact = (double)n * (double)k / (double)hosts;
    int64_t r = llround(exact);
    *close = r >= 1 && fabs((double)r - exact) <= 0.02 * exact;
    return r;
}

/* Whether two jobs put the same load on the cluster: every option that
   shapes their I/O equal (their names, images, files, logs and seeds may
   differ).  A job list of alike sections (cbt's one per client, a job file
   per volume) can then be shared by dropping sections. */
static bool jobs_alike(const struct workload_job *a, const struct workload_job *b)
{
#define SAME(f) (memcmp(&a->f, &b->f, sizeof a->f) == 0)
    return SAME(ioengine) && SAME(kernel_client) && SAME(pool) && SAME(clientname) && SAME(rw) &&
           SAME(rw_seq_nr) && SAME(rw_seq_add) && SAME(rw_sequencer) && SAME(rwmixread) && SAME(bs) &&
           SAME(bsrange) && SAME(n_bssplit) && SAME(bssplit) && SAME(iodepth) && SAME(numjobs) && SAME(size) &&
           SAME(size_pct) && SAME(io_size) && SAME(io_size_pct) && SAME(number_ios) && SAME(runtime_ns) &&
           SAME(time_based) && SAME(ramp_time_ns) && SAME(startdelay_ns) && SAME(startdelay_max_ns) &&
           SAME(rate_iops) && SAME(thinktime_ns) && SAME(thinktime_blocks) && SAME(thinktime_spin_ns) &&
           SAME(thinktime_iotime_ns) && SAME(random_distribution) && SAME(dist_param) && SAME(dist_center) &&
           SAME(n_zones) && SAME(zones) &&
           SAME(norandommap) && SAME(random_generator) && !a->stonewall && !b->stonewall && !a->new_group &&
           !b->new_group;
#undef SAME
}

/*
 * sim.reduce_to_hosts: the simulated cluster is k of the N hosts with the
 * same PGs, client hosts, clones and images per host (so the same load per
 * OSD).  A power-of-two pg_num stays one (the nearest in ratio): elsewhere
 * ceph_stable_mod splits PGs unevenly, which the full cluster does not.
 */
static int apply_reduction(struct scenario *sc, const char *const *sets, int n_sets, struct sim_err *err)
{
    int64_t k = sc->sim.reduce_to_hosts, n = sc->cluster.hosts;
    if (k == 0 || k == n)
        return 0;
    char msg[320];
    if (k > n) {
        snprintf(msg, sizeof msg, "%lld is more than cluster.hosts %lld", (long long)k, (long long)n);
        return value_error(sc, -ERANGE, "sim.reduce_to_hosts", sets, n_sets, msg, err);
    }
    if (sc->crush)
        return value_error(sc, -EINVAL, "sim.reduce_to_hosts", sets, n_sets,
                           "needs the generated placement of alike hosts: a real CRUSH map (cluster.crush_map) "
                           "is not reduced",
                           err);
    if (sc->cluster.failure_domain == 0 && k < sc->pool.size) {
        snprintf(msg, sizeof msg, "%lld hosts cannot hold pool.size %lld replicas on distinct hosts",
                 (long long)k, (long long)sc->pool.size);
        return value_error(sc, -EINVAL, "sim.reduce_to_hosts", sets, n_sets, msg, err);
    }
    struct scenario_reduction *r = &sc->reduction;
    *r = (struct scenario_reduction){.on = true, .hosts = n, .pg_num = sc->pool.pg_num,
                                     .client_hosts = sc->cluster.client_hosts, .image_count = sc->image.count,
                                     .scale = (double)n / (double)k};
    bool close;
    int64_t pg = sc->pool.pg_num;
    if ((pg & (pg - 1)) == 0) {
        int64_t p2 = 1;
        double want = (double)pg * (double)k / (double)n;
        while (p2 * 2 <= pg && fabs(log2((double)p2 * 2 / want)) < fabs(log2((double)p2 / want)))
            p2 *= 2;
        sc->pool.pg_num = p2;
    } else {
        sc->pool.pg_num = share(pg, k, n, &close);
        if (sc->pool.pg_num < 1)
            sc->pool.pg_num = 1;
    }
    if (sc->cluster.client_hosts) {
        int64_t ch = share(sc->cluster.client_hosts, k, n, &close);
        sc->cluster.client_hosts = ch < 1 ? 1 : ch;
    }
    /* alike sections whose clones have no whole share (one clone each, as
       cbt writes them): the first k/N of the sections */
    bool by_section = sc->jobs.n_jobs > 1;
    for (int i = 0; by_section && i < sc->jobs.n_jobs; i++) {
        (void)share(sc->jobs.jobs[i].numjobs, k, n, &close);
        by_section = !close && jobs_alike(&sc->jobs.jobs[0], &sc->jobs.jobs[i]);
    }
    if (by_section) {
        int64_t keep = share(sc->jobs.n_jobs, k, n, &close);
        if (!close) {
            snprintf(msg, sizeof msg, "%d alike job sections x %lld/%lld hosts is %.2f sections, not within 2 %% of "
                     "a whole number",
                     sc->jobs.n_jobs, (long long)k, (long long)n, (double)sc->jobs.n_jobs * k / n);
            return value_error(sc, -EINVAL, "sim.reduce_to_hosts", sets, n_sets, msg, err);
        }
        for (int i = 0; i < sc->jobs.n_jobs; i++) {
            r->clones += sc->jobs.jobs[i].numjobs;
            if (i < keep)
                r->clones_simulated += sc->jobs.jobs[i].numjobs;
            else if (sc->jobs.job_options)
                cJSON_Delete(sc->jobs.job_options[i]);
        }
        sc->jobs.n_jobs = (int)keep;
    }
    for (int i = 0; !by_section && i < sc->jobs.n_jobs; i++) {
        struct workload_job *j = &sc->jobs.jobs[i];
        int64_t clones = share(j->numjobs, k, n, &close);
        if (!close) {
            snprintf(msg, sizeof msg,
                     "job '%s': numjobs %u x %lld/%lld hosts is %.2f clones, not within 2 %% of a whole number: "
                     "reduce to hosts that give each job a whole share of its clones",
                     j->name, j->numjobs, (long long)k, (long long)n, (double)j->numjobs * k / n);
            return value_error(sc, -EINVAL, "sim.reduce_to_hosts", sets, n_sets, msg, err);
        }
        r->clones += j->numjobs;
        r->clones_simulated += clones;
        j->numjobs = (uint32_t)clones;
        cJSON *opt = sc->jobs.job_options ? sc->jobs.job_options[i] : NULL;
        if (opt && cJSON_GetObjectItemCaseSensitive(opt, "numjobs")) {
            char v[24];
            snprintf(v, sizeof v, "%lld", (long long)clones);
            cJSON_ReplaceItemInObjectCaseSensitive(opt, "numjobs", cJSON_CreateString(v));
        }
    }
    if (sc->image.count > 1 && !sc->clients.volumes_per_client) {
        int64_t ic = share(sc->image.count, k, n, &close);
        if (!close) {
            snprintf(msg, sizeof msg, "image.count %lld x %lld/%lld hosts is not within 2 %% of a whole number",
                     (long long)sc->image.count, (long long)k, (long long)n);
            return value_error(sc, -EINVAL, "sim.reduce_to_hosts", sets, n_sets, msg, err);
        }
        sc->image.count = ic;
    }
    sc->cluster.hosts = k;
    r->clones_per_osd_ratio = r->clones ? (double)r->clones_simulated / (double)r->clones * r->scale : 1;
    return 0;
}

int scenario_check_unreduced(const struct scenario *sc, const char *what, struct sim_err *err)
{
    if (!sc->reduction.on)
        return 0;
    return sim_errf(err, -EINVAL,
                    "%s: sim.reduce_to_hosts: %s sets what a reduced run does on its %lld simulated hosts only "
                    "(fio.json, the dumps, a replayed trace's ops) against a whole cluster: run it without the "
                    "reduction",
                    sc->path, what, (long long)sc->cluster.hosts);
}

int scenario_load(struct scenario *sc, const char *path, const char *json_text, const char *pseudo,
                  const char *const *sets, int n_sets, struct sim_err *err)
{
    int rc;
    memset(sc, 0, sizeof *sc);
    snprintf(sc->path, sizeof sc->path, "%s", path ? path : pseudo);
    const char *file = sc->path;
    for (int i = 0; i < N_SECTIONS; i++)
        param_set_defaults(sections[i].defs, (char *)sc + sections[i].offset);
    if (path) {
        sc->json = jsonu_load_file(path, err);
    } else {
        const char *end = NULL;
        sc->json = cJSON_ParseWithOpts(json_text, &end, 1);
        if (!sc->json) {
            int line = 1;
            for (const char *q = json_text; end && q < end && *q; q++)
                line += *q == '\n';
            sim_errf(err, -EINVAL, "%s:%d: malformed JSON near byte %ld", pseudo, line,
                     end ? (long)(end - json_text) : 0L);
        }
    }
    if (!sc->json)
        return err ? err->code : -EINVAL;
    if ((rc = jsonu_check_duplicates(sc->json, file, err)) < 0)
        goto fail;
    if ((rc = apply_host_profile(sc, sc->json, sets, n_sets, err)) < 0)
        goto fail;
    if ((rc = bind_sections(sc, sc->json, file, err)) < 0)
        goto fail;
    /* --set: typed overrides of the parameter sections first */
    char buf[1024], *section, *key, *value;
    for (int i = 0; i < n_sets; i++) {
        if ((rc = split_set(sets[i], buf, sizeof buf, &section, &key, &value, err)) < 0)
            goto fail;
        const struct section *sec = find_section(section);
        if (!strcmp(section, "clients") && (!strcmp(key, "jobfile") || !strcmp(key, "jobs"))) {
            if ((rc = set_clients(sc, sets[i], key, value, err)) < 0)
                goto fail;
        } else if (sec) {
            if ((rc = set_param(sc, sec, key, value, sets[i], err)) < 0)
                goto fail;
        } else if (strcmp(section, "hw") && strcmp(section, "fio")) {
            rc = set_error_unknown_section(sets[i], section, err);
            goto fail;
        }
    }
    struct sim_err e2;
    if ((rc = release_parse(sc->ceph.release, &sc->rel, &e2)) < 0) {
        const char *set = set_origin("ceph.release", sets, n_sets);
        rc = set ? sim_errf(err, rc, "--set %s: %s", set, e2.msg) : sim_errf(err, rc, "%s: %s", file, e2.msg);
        goto fail;
    }
    if ((rc = apply_release_defaults(sc, sets, n_sets, &e2)) < 0) {
        rc = sim_errf(err, rc, "%s: %s", file, e2.msg);
        goto fail;
    }
    if (sc->image.object_map && !sc->image.exclusive_lock) {
        /* rbd feature disable exclusive-lock needs object-map off: given, it is an error */
        const cJSON *im = cJSON_GetObjectItemCaseSensitive(sc->json, "image");
        if (cJSON_GetObjectItemCaseSensitive(im, "object_map") || set_origin("image.object_map", sets, n_sets)) {
            rc = value_error(sc, -EINVAL, "image.object_map", sets, n_sets,
                             "the object-map feature needs exclusive_lock", err);
            goto fail;
        }
        sc->image.object_map = false;
    }
    if (sc->cluster.host[0] && sc->cluster.osds_per_nvme > 1) {
        /* a host profile counts drives: unless given, OSDs per host = drives x OSDs per drive */
        const cJSON *cl = cJSON_GetObjectItemCaseSensitive(sc->json, "cluster");
        if (!cJSON_GetObjectItemCaseSensitive(cl, "osds_per_host") && !set_origin("cluster.osds_per_host", sets, n_sets))
            sc->cluster.osds_per_host *= sc->cluster.osds_per_nvme;
        if (sc->cluster.osds_per_host > 64) {
            rc = value_error(sc, -ERANGE, "cluster.osds_per_nvme", sets, n_sets,
                             "drives_per_host x osds_per_nvme is more than 64 OSDs per host", err);
            goto fail;
        }
    }
    if (sc->cluster.osds_per_host % sc->cluster.osds_per_nvme) {
        rc = value_error(sc, -EINVAL, "cluster.osds_per_nvme", sets, n_sets,
                         "osds_per_host must be a multiple of osds_per_nvme", err);
        goto fail;
    }
    const cJSON *po = cJSON_GetObjectItemCaseSensitive(sc->json, "pool");
    static const char *const ec_only[] = {"k", "m", "stripe_unit"};
    for (int i = 0; i < 3 && sc->pool.type == SCENARIO_POOL_REPLICATED; i++) {
        char opt[32];
        snprintf(opt, sizeof opt, "pool.%s", ec_only[i]);
        if (cJSON_GetObjectItemCaseSensitive(po, ec_only[i]) || set_origin(opt, sets, n_sets)) {
            rc = value_error(sc, -EINVAL, opt, sets, n_sets, "only an erasure pool has it (pool.type erasure)", err);
            goto fail;
        }
    }
    if (sc->pool.type == SCENARIO_POOL_ERASURE) {
        /* osd_pool_default_erasure_code_profile: k=2 m=1 until ceph PR 27656
           (15.2) made it k=2 m=2 */
        if (!cJSON_GetObjectItemCaseSensitive(po, "m") && !set_origin("pool.m", sets, n_sets) && !sc->rel.crimson &&
            sc->rel.major < 15)
            sc->pool.m = 1;
        /* an erasure pool has k + m shards: its size is not a choice */
        bool size_given = cJSON_GetObjectItemCaseSensitive(po, "size") || set_origin("pool.size", sets, n_sets);
        if (sc->pool.k + sc->pool.m > 32) {
            rc = value_error(sc, -ERANGE, "pool.m", sets, n_sets, "k + m is more than 32 shards", err);
            goto fail;
        }
        if (size_given && sc->pool.size != sc->pool.k + sc->pool.m) {
            char msg[160];
            snprintf(msg, sizeof msg, "an erasure pool's size is k + m = %lld (drop pool.size, or give k and m)",
                     (long long)(sc->pool.k + sc->pool.m));
            rc = value_error(sc, -EINVAL, "pool.size", sets, n_sets, msg, err);
            goto fail;
        }
        sc->pool.size = sc->pool.k + sc->pool.m;
        if (!cJSON_GetObjectItemCaseSensitive(po, "min_size") && !set_origin("pool.min_size", sets, n_sets))
            sc->pool.min_size = scenario_ec_min_size(sc->pool.k, sc->pool.m);
    } else if (!set_origin("pool.min_size", sets, n_sets) &&
               (!cJSON_GetObjectItemCaseSensitive(po, "min_size") || set_origin("pool.size", sets, n_sets))) {
        /* osd_pool_default_min_size 0: "ceph will use size-size/2" (md_config_t::
           get_osd_pool_default_min_size, which OSDMonitor::prepare_pool_size calls),
           so a size-1 or size-2 pool gets 1, size 3 gets 2; `ceph osd pool set P size N` resets
           min_size the same way, so a --set of the size overrides the file's min_size too */
        sc->pool.min_size = sc->pool.size - sc->pool.size / 2;
    }
    if ((rc = load_crush_map(sc, sets, n_sets, err)) < 0)
        goto fail;
    uint64_t n_osds = sc->crush ? sc->n_osds : (uint64_t)(sc->cluster.hosts * sc->cluster.osds_per_host);
    if ((uint64_t)sc->pool.size > n_osds) {
        char msg[160];
        snprintf(msg, sizeof msg, "%lld %s need at least %lld OSDs (the cluster has %llu)", (long long)sc->pool.size,
                 sc->pool.type == SCENARIO_POOL_ERASURE ? "shards" : "replicas", (long long)sc->pool.size, (unsigned long long)n_osds);
        rc = value_error(sc, -EINVAL, "pool.size", sets, n_sets, msg, err);
        goto fail;
    }
    /* The generated rule chooses leaves of type host (osd_crush_chooseleaf_type 1):
       with fewer hosts than copies a real pool's PGs stay undersized, and below
       min_size they take no I/O, which the model does not simulate; it used to
       place the copies on distinct OSDs instead, silently. */
    if (!sc->crush && sc->cluster.failure_domain == 0 && sc->cluster.hosts < sc->pool.size) {
        char msg[256];
        snprintf(msg, sizeof msg,
                 "%lld host%s cannot hold pool.size %lld %s on distinct hosts (a real pool's PGs would stay "
                 "undersized); set cluster.failure_domain osd to place them on distinct OSDs",
                 (long long)sc->cluster.hosts, sc->cluster.hosts == 1 ? "" : "s", (long long)sc->pool.size,
                 sc->pool.type == SCENARIO_POOL_ERASURE ? "shards" : "replicas");
        rc = value_error(sc, -EINVAL, "cluster.hosts", sets, n_sets, msg, err);
        goto fail;
    }
    /* BlueStore::_set_alloc_sizes asserts min_alloc_size == 1 << ctz(min_alloc_size): an OSD
       with any other would not start */
    int64_t mas = sc->ceph.bluestore_min_alloc_size_ssd;
    if (mas & (mas - 1)) {
        char msg[160];
        snprintf(msg, sizeof msg, "%lld is not a power of two (BlueStore::_set_alloc_sizes asserts it)",
                 (long long)mas);
        rc = value_error(sc, -EINVAL, "ceph.bluestore_min_alloc_size_ssd", sets, n_sets, msg, err);
        goto fail;
    }
    if (sc->pool.min_size > sc->pool.size) {
        rc = sim_errf(err, -ERANGE, "%s: pool.min_size: %lld is larger than pool.size %lld", file,
                      (long long)sc->pool.min_size, (long long)sc->pool.size);
        goto fail;
    }
    if ((rc = load_profiles(sc, sets, n_sets, err)) < 0)
        goto fail;
    if (sc->cluster.governor && !hwprofile_cpu_governor(&sc->cpu, sc->cluster.governor - 1)) {
        char msg[160];
        snprintf(msg, sizeof msg, "'%s' is not a governor CPU profile '%s' describes", governor_names[sc->cluster.governor],
                 sc->cpu.name);
        rc = value_error(sc, -EINVAL, "cluster.governor", sets, n_sets, msg, err);
        goto fail;
    }
    const cJSON *hw = cJSON_GetObjectItemCaseSensitive(sc->json, "hw");
    if (hw && (rc = apply_hw_json(sc, hw, file, err)) < 0)
        goto fail;
    if (sc->cluster.osd_cpus > sc->cpu.threads) {
        char msg[160];
        snprintf(msg, sizeof msg, "a CPU set of %lld hardware threads is more than CPU profile '%s' has (%lld)",
                 (long long)sc->cluster.osd_cpus, sc->cpu.name, (long long)sc->cpu.threads);
        rc = value_error(sc, -ERANGE, "cluster.osd_cpus", sets, n_sets, msg, err);
        goto fail;
    }
    if ((rc = check_cstate(sc, err)) < 0)
        goto fail;
    if ((rc = load_jobs(sc, cJSON_GetObjectItemCaseSensitive(sc->json, "clients"), file, err)) < 0)
        goto fail;
    const cJSON *fio = cJSON_GetObjectItemCaseSensitive(sc->json, "fio");
    if (fio && (rc = apply_fio_json(sc, fio, file, err)) < 0)
        goto fail;
    /* --set hw.* and fio.* now that profiles and jobs are loaded */
    for (int i = 0; i < n_sets; i++) {
        split_set(sets[i], buf, sizeof buf, &section, &key, &value, err);
        if (!strcmp(section, "hw")) {
            char *dot = strchr(key, '.');
            int k = -1;
            if (dot) {
                *dot = '\0';
                for (int j = 0; j < 4; j++)
                    if (!strcmp(key, hw_kind_keys[j]))
                        k = j;
            }
            if (k < 0) {
                rc = sim_errf(err, -EINVAL, "--set %s: expected hw.cpu|nvme|nic|switch.<field>=value", sets[i]);
                goto fail;
            }
            if ((rc = hwprofile_set_unchecked(hw_kinds[k], hw_part(sc, k), dot + 1, value, &e2)) < 0) {
                rc = sim_errf(err, rc, "--set %s: %s", sets[i], strip_set_prefix(e2.msg));
                goto fail;
            }
            if (hw_kinds[k] == HWPROFILE_NVME)
                nvme_latency_overridden(&sc->nvme, dot + 1);
        } else if (!strcmp(section, "fio")) {
            if ((rc = fiojob_set(&sc->jobs, key, value[0] ? value : NULL, &e2)) < 0) {
                rc = sim_errf(err, rc, "%s", e2.msg);
                goto fail;
            }
        }
    }
    /* the fields that go together, once every hw value is in (their order is free) */
    for (int k = 0; k < 4; k++) {
        char what[96];
        snprintf(what, sizeof what, "with the scenario's hw.%s and --set hw.%s.* values", hw_kind_keys[k],
                 hw_kind_keys[k]);
        if ((rc = hwprofile_validate(hw_kinds[k], hw_part(sc, k), what, &e2)) < 0) {
            rc = sim_errf(err, rc, "%s: hw.%s: %s", file, hw_kind_keys[k], e2.msg);
            goto fail;
        }
    }
    if ((rc = check_engines(sc, file, err)) < 0)
        goto fail;
    if ((rc = apply_reduction(sc, sets, n_sets, err)) < 0)
        goto fail;
    return 0;
fail:
    scenario_free(sc);
    return rc;
}

static void fill_cpu(const struct scenario *sc, struct cpu_params *p)
{
    const struct hw_cpu *cpu = &sc->cpu;
    memset(p, 0, sizeof *p);
    p->cores = (uint32_t)cpu->cores;
    p->ref_clock_ghz = cpu->ref_clock_ghz;
    int gov = sc->cluster.governor ? sc->cluster.governor - 1 : cpu->default_governor;
    const struct hw_governor *g = hwprofile_cpu_governor(cpu, gov);
    double ipc = cpu->ipc_rel > 0 ? cpu->ipc_rel : 1;
    p->governor = (enum cpu_governor)gov;
    p->powersave_follows_load = cpu->scaling_driver == 1; /* intel_pstate */
    p->max_clock_ghz = (g ? g->max_clock_ghz : cpu->boost_clock_ghz) * ipc;
    p->idle_clock_ghz = (g ? g->idle_clock_ghz : cpu->base_clock_ghz) * ipc;
    if (gov == CPU_GOV_PERFORMANCE)
        p->idle_clock_ghz = p->max_clock_ghz;
    p->governor_up_util = 0.8; /* cpufreq ondemand up_threshold 80 % */
    /* the EWMA reaches up_util of a step load after ramp_us: tau = ramp / ln(1 / (1 - up));
       a profile without a ramp: about one cpufreq sampling period, 10 ms [est] */
    p->util_window_us = (g && g->ramp_us > 0 ? g->ramp_us : 10000) / log(1 / (1 - p->governor_up_util));
    /* topology and boost (hwprofile.h: threads, ccx_cores, the three clocks) */
    p->threads = (uint32_t)cpu->threads;
    p->smt_pair_throughput = cpu->smt_pair_throughput;
    p->ccx_cores = (uint32_t)cpu->ccx_cores;
    p->cross_ccx_wake_us = cpu->cross_ccx_wake_extra_us;
    p->base_clock_ghz = cpu->base_clock_ghz * ipc;
    p->boost_clock_ghz = cpu->boost_clock_ghz * ipc;
    p->all_core_clock_ghz = cpu->all_core_clock_ghz * ipc;
    p->wake_us = sc->cost.thread_wake_us;
    p->sleep_us = sc->cost.thread_sleep_us;
    p->busy_poll_us = sc->cluster.busy_poll;
    p->sched = (enum cpu_sched)sc->cluster.cpu_scheduler;
    p->work_cv = sc->cost.cpu_work_cv;
    p->timeslice_us = sc->cost.cpu_timeslice_us;
    /* allowed idle states: up to max_cstate, within the PM QoS latency limit */
    const char *m = sc->cluster.max_cstate;
    bool poll = !strcmp(m, "POLL") || !strcmp(m, "C0");
    for (int i = 0; i < cpu->n_cstates && !poll && p->n_cstates < CPU_MAX_CSTATES; i++) {
        const struct hw_cstate *cs = &cpu->cstates[i];
        if (cs->exit_latency_us > cpu->cpu_dma_latency_us)
            break;
        p->cstate_exit_us[p->n_cstates] = cs->wake_latency_us;
        p->cstate_residency_us[p->n_cstates] = cs->target_residency_us;
        p->n_cstates++;
        if (!strcmp(cs->name, m))
            break;
    }
}

_Static_assert(HWPROFILE_PCT_MAX <= DIST_EMPIRICAL_MAX - 2, "a profile's table fits an empirical distribution");

/* A profile's percentile table as an empirical distribution (equal
   consecutive percentiles, as fio prints at its resolution, are merged). */
static int pct_dist(struct dist *d, const struct hw_pct_point *pts, int n, struct sim_err *err)
{
    double pct[DIST_EMPIRICAL_MAX], val[DIST_EMPIRICAL_MAX];
    int m = 0;
    for (int i = 0; i < n && m < DIST_EMPIRICAL_MAX - 2; i++) {
        if (m && pts[i].us <= val[m - 1]) {
            pct[m - 1] = pts[i].pct; /* same value: keep the higher percentile */
            continue;
        }
        pct[m] = pts[i].pct;
        val[m] = pts[i].us;
        m++;
    }
    return dist_empirical(d, pct, val, m, err);
}

void scenario_nvme_params(const struct hw_nvme *nv, struct nvme_params *out)
{
    *out = (struct nvme_params){
        .read_latency_us = nv->read_latency_us, .write_latency_us = nv->write_latency_us,
        .seq_read_latency_us = nv->seq_read_latency_us, .seq_write_latency_us = nv->seq_write_latency_us,
        .latency_cv = nv->latency_cv, .rand_read_iops = nv->rand_read_4k_iops,
        .rand_write_iops = nv->rand_write_4k_iops, .seq_read_mbps = nv->seq_read_mbps,
        .seq_write_mbps = nv->seq_write_mbps, .internal_parallelism = (uint32_t)nv->internal_parallelism,
        .plp = nv->plp, .flush_latency_us = nv->flush_latency_us,
        /* read only for PLP drives, whose profile flush latency is the fdatasync syscall */
        .flush_syscall_us = nv->flush_latency_us, .flush_sleeps = nv->flush_sleeps,
        .tail_spike_prob = nv->tail_spike_prob, .tail_spike_us = nv->tail_spike_us};
    /* measured shapes, when the profile has percentile tables (hwprofile_load
       admits only tables dist_empirical takes: it cannot fail here) */
    struct sim_err e2 = {0};
    if (nv->n_write_pct) {
        SIM_ASSERT(pct_dist(&out->write_dist, nv->write_pct, nv->n_write_pct, &e2) == 0);
        out->write_shape = true;
    }
    if (nv->n_read_pct) {
        SIM_ASSERT(pct_dist(&out->read_dist, nv->read_pct, nv->n_read_pct, &e2) == 0);
        out->read_shape = true;
    }
    if (nv->n_flush_pct) {
        SIM_ASSERT(pct_dist(&out->flush_dist, nv->flush_pct, nv->n_flush_pct, &e2) == 0);
        out->flush_shape = true;
    }
}

void scenario_net_params(const struct hw_nic *nic, const struct hw_switch *sw, double loopback_us,
                         struct net_params *out)
{
    *out = (struct net_params){
        .line_rate_gbps = nic->line_rate_gbps, .phy_latency_us = nic->phy_latency_us,
        .mtu_bytes = (uint32_t)nic->mtu_bytes, .frame_overhead_bytes = (uint32_t)nic->header_bytes,
        .l3_header_bytes = (uint32_t)nic->l3_header_bytes,
        .switch_latency_us = sw->port_to_port_latency_us,
        .switch_store_forward = sw->mode == HWPROFILE_SWITCH_STORE_AND_FORWARD,
        .has_switch = sw->mode != HWPROFILE_SWITCH_NONE,
        .loopback_us = loopback_us, .tcp_tx_cpu_us = nic->tcp_tx_cpu_us,
        .tcp_rx_cpu_us = nic->tcp_rx_cpu_us, .tcp_cpu_ns_per_byte = nic->per_byte_cpu_ns,
        .irq_wake_us = nic->irq_wake_us};
}

int64_t scenario_replication_seed(int64_t seed, uint64_t replication)
{
    if (replication == 0)
        return seed;
    uint64_t k = sim_fmix64((uint64_t)seed ^ (replication * 0x9E3779B97F4A7C15ull));
    return (int64_t)(k & ((1ull << 53) - 1)); /* a valid sim.seed, exact as a JSON number */
}

int scenario_to_spec(const struct scenario *sc, uint64_t replication, struct cluster_spec *spec,
                     struct sim_err *err)
{
    memset(spec, 0, sizeof *spec);
    spec->hosts = (uint32_t)sc->cluster.hosts;
    spec->osds_per_host = (uint32_t)sc->cluster.osds_per_host;
    spec->client_hosts = (uint32_t)sc->cluster.client_hosts;
    spec->clients_on_osd_hosts = sc->cluster.clients_on_osd_hosts;
    if (spec->clients_on_osd_hosts && spec->client_hosts)
        return sim_errf(err, -EINVAL, "%s: cluster.clients_on_osd_hosts: needs cluster.client_hosts 0 (it is %u)", sc->path,
                        spec->client_hosts);
    spec->osds_per_nvme = (uint32_t)sc->cluster.osds_per_nvme;
    spec->rocksdb_flush_on_fill = sc->cluster.rocksdb_flushes == SCENARIO_ROCKSDB_ON_FILL;
    spec->rocksdb_memtable_fill = sc->cluster.rocksdb_memtable_fill;
    spec->osd_cpus = (uint32_t)sc->cluster.osd_cpus;
    spec->osd_cpus_smt = sc->cluster.osd_cpus_smt;
    spec->osd_cpus_scope = (enum osd_cpus_scope)sc->cluster.osd_cpus_scope;
    fill_cpu(sc, &spec->cpu);
    scenario_nvme_params(&sc->nvme, &spec->nvme);
    scenario_net_params(&sc->nic, &sc->sw, sc->cost.tcp_loopback_us, &spec->net);
    spec->pool_size = (uint32_t)sc->pool.size;
    spec->pool_min_size = (uint32_t)sc->pool.min_size;
    spec->pool_erasure = sc->pool.type == SCENARIO_POOL_ERASURE;
    spec->ec_k = (uint32_t)sc->pool.k;
    spec->ec_stripe_unit = (uint32_t)sc->pool.stripe_unit;
    spec->pg_num = (uint32_t)sc->pool.pg_num;
    spec->failure_domain_host = sc->cluster.failure_domain == 0;
    spec->device_bytes = (uint64_t)llround(sc->nvme.capacity_gb * 1e9);
    spec->pool_id = sc->pool.id;
    if (sc->crush) {
        spec->crush = sc->crush;
        spec->crush_rule = sc->pool.crush_rule < 0 ? 0 : (int32_t)sc->pool.crush_rule;
        spec->n_osds = sc->n_osds;
        spec->osd_host = sc->osd_host;
    }
    struct image_spec *im = &spec->image;
    im->kind = sc->image.kind;
    im->guard = sc->image.guard ? sc->image.guard - 1
                : sc->image.kind == IMAGE_CLONE ? GUARD_ASSERT_EXISTS : GUARD_NONE;
    im->copied_up = sc->image.copied_up;
    im->parent_written = sc->image.parent_written;
    im->written = sc->image.written;
    im->cached = sc->image.cached;
    im->size_bytes = (uint64_t)llround(sc->image.size_gib * 1073741824.0);
    im->order = (uint32_t)sc->image.order;
    im->exclusive_lock = sc->image.exclusive_lock;
    im->object_map = sc->image.object_map;
    im->id = 0x104b745b84f5ull;
    snprintf(im->name, sizeof im->name, "%s", sc->image.name);
    if (im->size_bytes < (1ull << im->order))
        return sim_errf(err, -EINVAL, "%s: image.size_gib: smaller than one object (order %u)", sc->path, im->order);
    spec->image_count = (uint32_t)sc->image.count;
    spec->volumes_per_client = (uint32_t)sc->clients.volumes_per_client;
    if (spec->volumes_per_client) {
        uint32_t hosts = cluster_spec_fio_hosts(spec);
        uint32_t n = spec->volumes_per_client * hosts;
        if (sc->image.count > 1 && (uint32_t)sc->image.count != n)
            return sim_errf(err, -EINVAL,
                            "%s: image.count: %lld, but clients.volumes_per_client %u x %u client host(s) needs %u",
                            sc->path, (long long)sc->image.count, spec->volumes_per_client, hosts, n);
        spec->image_count = n;
    }
    spec->ceph = sc->ceph;
    spec->cost = sc->cost;
    spec->rel = sc->rel;
    spec->jobs = (struct workload){sc->jobs.jobs, sc->jobs.n_jobs};
    /* measured interval and warm-up: sim.* unless the jobs ask for more */
    uint64_t runtime = 0, ramp = 0;
    for (int i = 0; i < sc->jobs.n_jobs; i++) {
        if (sc->jobs.jobs[i].runtime_ns > runtime)
            runtime = sc->jobs.jobs[i].runtime_ns;
        if (sc->jobs.jobs[i].ramp_time_ns > ramp)
            ramp = sc->jobs.jobs[i].ramp_time_ns;
    }
    spec->duration_ns = sc->sim.duration_s > 0 ? (sim_time_t)llround(sc->sim.duration_s * 1e9)
                        : runtime ? runtime : 5 * SIM_NS_PER_S;
    sim_time_t warm = (sim_time_t)llround(sc->sim.warmup_s * 1e9);
    spec->warmup_ns = warm > ramp ? warm : ramp;
    /* replications: independent seeds derived from the scenario seed, the same
       ones a sweep gives its replications */
    spec->seed = (uint64_t)scenario_replication_seed(sc->sim.seed, replication);
    spec->wall_epoch_ns = 1764460800LL * 1000000000LL; /* 2025-11-30T00:00:00Z: dumps are dated, deterministically */
    return 0;
}

cJSON *scenario_resolved_json(const struct scenario *sc)
{
    cJSON *j = cJSON_CreateObject();
    for (int i = 0; i < N_SECTIONS; i++) {
        cJSON *o = cJSON_AddObjectToObject(j, sections[i].name);
        paramjson_write(sections[i].defs, (const char *)sc + sections[i].offset, o);
    }
    cJSON *hw = cJSON_AddObjectToObject(j, "hw");
    cJSON_AddItemToObject(hw, "cpu", hwprofile_cpu_to_json(&sc->cpu));
    cJSON_AddItemToObject(hw, "nvme", hwprofile_nvme_to_json(&sc->nvme));
    cJSON_AddItemToObject(hw, "nic", hwprofile_nic_to_json(&sc->nic));
    cJSON_AddItemToObject(hw, "switch", hwprofile_switch_to_json(&sc->sw));
    char *jobs = fiojob_to_text(&sc->jobs);
    cJSON_AddStringToObject(j, "fio_jobs", jobs ? jobs : "");
    free(jobs);
    if (sc->reduction.on) { /* the sections above hold the simulated hosts' share; the full cluster's: */
        const struct scenario_reduction *r = &sc->reduction;
        cJSON *o = cJSON_AddObjectToObject(j, "reduction");
        cJSON_AddNumberToObject(o, "hosts", (double)r->hosts);
        cJSON_AddNumberToObject(o, "pg_num", (double)r->pg_num);
        cJSON_AddNumberToObject(o, "client_hosts", (double)r->client_hosts);
        cJSON_AddNumberToObject(o, "image_count", (double)r->image_count);
        cJSON_AddNumberToObject(o, "clones", (double)r->clones);
        cJSON_AddNumberToObject(o, "clones_simulated", (double)r->clones_simulated);
        cJSON_AddNumberToObject(o, "scale", r->scale);
    }
    return j;
}

void scenario_print_params(FILE *f, bool markdown)
{
    if (markdown)
        fprintf(f, "# Scenario parameters\n\nGenerated from the parameter tables by `cephsim list-params --markdown`;"
                   " do not edit (tests/test_schema.c fails when it drifts).  Each key is a path: "
                   "`section.key` in a scenario file and in `--set section.key=value`.\n");
    for (int i = 0; i < N_SECTIONS; i++) {
        if (markdown)
            param_print_markdown(f, sections[i].name, sections[i].defs);
        else
            param_print_table(f, sections[i].name, sections[i].defs);
    }
    if (markdown)
        fprintf(f, "\n### `hw.<cpu|nvme|nic|switch>`\n\nEvery single-valued field of the cpu, nvme, nic and switch "
                   "profiles below can be overridden in a scenario's `hw` object or with `--set "
                   "hw.nvme.write_latency_us=30`.  The lists (`hw.cpu.cstates[]`, `hw.cpu.governors[]`, a drive's "
                   "latency percentiles) and the host profile's fields (`hw.host`, chosen with `cluster.host`) come "
                   "only from a profile file: give another one (`cluster.cpu=PATH`, `cluster.host=PATH`).\n");
    hwprofile_print_params(f, markdown);
    fiojob_print_options(f, markdown);
}
