/*
 * hwprofile.c - loading, validation and serialisation of hardware profiles.
 *
 * Mirrors the hardware as the Linux kernel and the datasheets describe it:
 *  - cpuidle (drivers/cpuidle): one entry per idle state with the sysfs
 *    stateN/latency (exit latency) and stateN/residency (target residency);
 *    acpi_idle sets residency = latency x latency_factor (default 2); PM QoS
 *    /dev/cpu_dma_latency (default PM_QOS_CPU_LATENCY_DEFAULT_VALUE, 2e9 us)
 *    excludes states whose exit latency exceeds it.
 *  - cpufreq governors performance / ondemand / schedutil / powersave, reduced
 *    to the clock after idling, the clock under load and the ramp between them;
 *    the part's base (P0), single-core boost and all-core clocks bound what the
 *    boost above P0 reaches; SMT threads and CCXs as the vendor lists them.
 *  - NVMe datasheet figures (typical QD1 random and sequential latency,
 *    sustained IOPS, PLP/VWC) with an optional measured percentile table.
 *  - Ethernet + IPv4 + TCP framing for serialisation time.
 * Simplifies: no per-core frequency domains, no NUMA; a profile is a bag of
 * validated numbers, the models decide how to use them (models/hw/cpu.h,
 * nvme.h).  Fields no model uses are marked PARAM_DESCRIPTIVE in their help.
 */
#include "hwprofile.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "files.h"
#include "jsonu.h"
#include "paramjson.h"

#define DBL(st, key, lo, hi, d, u, h)                                                        \
    { .name = #key, .type = PARAM_DOUBLE, .offset = offsetof(struct st, key), .min = lo,     \
      .max = hi, .def = d, .unit = u, .help = h }
#define INT(st, key, lo, hi, d, u, h)                                                        \
    { .name = #key, .type = PARAM_INT, .offset = offsetof(struct st, key), .min = lo,        \
      .max = hi, .def = d, .unit = u, .help = h }
#define BOOL(st, key, d, h)                                                                  \
    { .name = #key, .type = PARAM_BOOL, .offset = offsetof(struct st, key), .def = d,        \
      .help = h }
#define STR(st, key, field, d, h)                                                            \
    { .name = key, .type = PARAM_STRING, .offset = offsetof(struct st, field), .def_str = d, \
      .help = h }
#define ENUM(st, key, field, ch, d, h)                                                       \
    { .name = key, .type = PARAM_ENUM, .offset = offsetof(struct st, field), .choices = ch,  \
      .def = d, .help = h }

static const char *const scaling_driver_names[] = {"acpi-cpufreq", "intel_pstate", NULL};
static const char *const governor_names[] = {"performance", "ondemand", "schedutil", "powersave",
                                             NULL};
static const char *const switch_modes[] = {"cut-through", "store-and-forward", "none", NULL};
static const char *const kind_names[] = {"cpu", "nvme", "nic", "switch", "host"};

/* Defaults of required keys are the seed cluster's parts, shown by list-params. */
static const struct param_def cpu_params[] = {
    STR(hw_cpu, "model", model, "AMD EPYC 7302P",
        PARAM_DESCRIPTIVE "part name, for the record (required)"),
    INT(hw_cpu, cores, 1, 1024, 16, "count", "physical cores (7302P: 16, AMD) (required)"),
    INT(hw_cpu, threads, 1, 8192, 32, "count",
        "hardware threads per host = cores x SMT ways (7302P: 32, AMD): threads the host runs "
        "at once; past cores, SMT siblings share cores (smt_pair_throughput) (required)"),
    DBL(hw_cpu, smt_pair_throughput, 1, 2, 1.25, "ratio",
        "work a core does with both SMT threads busy, relative to one thread alone; each "
        "then runs at this / 2 [est: SMT yields of +15-30 % are the usual figure for server "
        "code (Intel's 'up to 30 %'), no Ceph measurement; 1.25]"),
    DBL(hw_cpu, base_clock_ghz, 0.1, 10, 3.0, "GHz",
        "base clock = P0 (7302P: 3.0, commonly listed): the highest clock ondemand/schedutil "
        "request (acpi-cpufreq); above it only boost at P0, whose limit never drops below "
        "it (required)"),
    DBL(hw_cpu, boost_clock_ghz, 0.1, 10, 3.3, "GHz",
        "max single-core boost (7302P: 3.3, AMD): the boost limit with one core active "
        "(required)"),
    DBL(hw_cpu, all_core_clock_ghz, 0.1, 10, 3.0, "GHz",
        "boost limit with every core active (default base_clock_ghz); in between it falls "
        "linearly with the active cores [est]"),
    INT(hw_cpu, ccx_cores, 1, 1024, 2, "count",
        "cores sharing one L3 slice (AMD CCX); = cores on a monolithic mesh: threads are "
        "placed round robin on cores / ccx_cores CCXs (required)"),
    DBL(hw_cpu, l3_mb, 0, 65536, 128, "MB",
        PARAM_DESCRIPTIVE "total L3 cache: there is no cache model (stage costs are measured on "
        "the reference core with its caches; what an L3 of another size would change depends "
        "on each stage's working set, which no published anchor gives) (required)"),
    DBL(hw_cpu, ref_clock_ghz, 0.1, 10, 3.0, "GHz",
        "clock at which scenario per-stage CPU costs (us) are expressed; costs scale by "
        "ref_clock_ghz / (clock x ipc_rel)"),
    DBL(hw_cpu, ipc_rel, 0.1, 10, 1.0, "ratio",
        "work per clock relative to the reference core (Zen 2, where Ceph's anchors were "
        "measured)"),
    DBL(hw_cpu, cross_ccx_wake_extra_us, 0, 1000, 1.5, "us",
        "extra cost of a wake-up whose waking thread sits on another CCX (the hand-off's "
        "cache lines move through the IO die) [est] (required)"),
    DBL(hw_cpu, cpu_dma_latency_us, 0, 2e9, 2e9, "us",
        "PM QoS limit (/dev/cpu_dma_latency): C-states with a larger exit latency are not "
        "used; 2e9 = Linux default (none); 0 = poll only"),
    ENUM(hw_cpu, "default_governor", default_governor, governor_names, HWPROFILE_GOV_SCHEDUTIL,
         "cpufreq governor in effect; must be one of governors[] (required)"),
    ENUM(hw_cpu, "scaling_driver", scaling_driver, scaling_driver_names, 0,
         "cpufreq driver (scaling_driver): acpi-cpufreq's powersave pins the lowest P-state; intel_pstate "
         "(active, HWP) has its own powersave, whose hardware-chosen clock follows load from idle_clock_ghz to "
         "max_clock_ghz over ramp_us (Linux intel_pstate.rst: 'powersave' is not the generic governor)"),
    PARAM_END,
};
static const char *const cpu_optional[] = {"smt_pair_throughput", "all_core_clock_ghz",
                                           "ref_clock_ghz", "ipc_rel", "cpu_dma_latency_us",
                                           "scaling_driver", NULL};
static const char *const cpu_extra[] = {"source", "cstates", "governors", NULL};

static const struct param_def cstate_params[] = {
    STR(hw_cstate, "name", name, "C1",
        PARAM_DESCRIPTIVE "state name as in cpuidle stateN/name: a label (cluster.max_cstate "
        "names the deepest state allowed by it; the state's numbers decide) (required)"),
    DBL(hw_cstate, exit_latency_us, 0, 100000, 1, "us",
        "cpuidle stateN/latency: PM QoS (cpu_dma_latency_us) excludes states above it; the "
        "state is chosen by target_residency_us and costs wake_latency_us (required)"),
    DBL(hw_cstate, target_residency_us, 0, 1e6, 2, "us",
        "cpuidle stateN/residency: shortest idle worth entering the state (required)"),
    DBL(hw_cstate, wake_latency_us, 0, 100000, 1, "us",
        "measured cost of leaving the state (default exit_latency_us)"),
    PARAM_END,
};
static const char *const cstate_optional[] = {"wake_latency_us", NULL};

static const struct param_def governor_params[] = {
    ENUM(hw_governor, "name", kind, governor_names, HWPROFILE_GOV_PERFORMANCE,
         "cpufreq governor (required)"),
    DBL(hw_governor, idle_clock_ghz, 0.1, 10, 3.0, "GHz",
        "clock of a core that has been idle: ondemand/schedutil ramp up from it, powersave "
        "stays at it (performance holds P0 and does not use it) (required)"),
    DBL(hw_governor, max_clock_ghz, 0.1, 10, 3.3, "GHz",
        "highest clock under the governor (scaling_max_freq), <= boost_clock_ghz: caps the "
        "boost at P0 (required)"),
    DBL(hw_governor, ramp_us, 0, 1e8, 1000, "us",
        "continuous busy time to go from idle_clock_ghz to P0: sets ondemand/schedutil's "
        "utilisation window (performance and powersave do not ramp) (required)"),
    PARAM_END,
};

static const struct param_def nvme_params[] = {
    STR(hw_nvme, "model", model, "Samsung PM983 3.84 TB",
        PARAM_DESCRIPTIVE "part name, for the record (required)"),
    /* min 0.06 GB: OSD::update_crush_location writes the weight as TiB "%.4lf",
       0.0000 below ~0.055 GB, and CRUSH places nothing on a zero-weight OSD */
    DBL(hw_nvme, capacity_gb, 0.06, 1e6, 3840, "GB",
        PARAM_DESCRIPTIVE "usable capacity, decimal: no capacity model (the drive never "
        "fills; fill level and garbage collection are in the sustained IOPS figures); "
        "it sets the OSD's CRUSH weight, 0 below 0.06 GB (required)"),
    DBL(hw_nvme, rand_read_4k_iops, 1, 1e8, 540000, "IOPS",
        "sustained 4 KiB random-read cap (PM983: 540K, datasheet) (required)"),
    DBL(hw_nvme, rand_write_4k_iops, 1, 1e8, 50000, "IOPS",
        "sustained 4 KiB random-write cap (PM983: 50K, datasheet) (required)"),
    DBL(hw_nvme, seq_read_mbps, 1, 1e6, 3200, "MB/s",
        "sequential read bandwidth: caps every read; a sequential read's throughput stage "
        "is bytes / this (required)"),
    DBL(hw_nvme, seq_write_mbps, 1, 1e6, 2000, "MB/s",
        "sequential write bandwidth: caps every write; a sequential write's throughput "
        "stage is bytes / this (required)"),
    DBL(hw_nvme, read_latency_us, 0.1, 100000, 85, "us",
        "typical QD1 4 KiB random-read latency (PM983: 85, datasheet) (required)"),
    DBL(hw_nvme, write_latency_us, 0.1, 100000, 50, "us",
        "typical QD1 4 KiB random-write latency (PM983: 50, datasheet) (required)"),
    DBL(hw_nvme, seq_read_latency_us, 0.1, 100000, 15, "us",
        "typical QD1 4 KiB sequential read latency (PM983: 15, datasheet): a read that "
        "starts where the device's previous read ended (read-ahead) (default "
        "read_latency_us)"),
    DBL(hw_nvme, seq_write_latency_us, 0.1, 100000, 15, "us",
        "typical QD1 4 KiB sequential write latency (PM983: 15, datasheet): BlueFS's "
        "RocksDB WAL appends (default write_latency_us)"),
    DBL(hw_nvme, latency_cv, 0, 100, 0.25, "ratio",
        "stddev/mean of the service time, used when no percentile table is given (required)"),
    INT(hw_nvme, internal_parallelism, 1, 65536, 48, "count",
        "commands in service at once (channels x dies; Little: iops x latency) (required)"),
    BOOL(hw_nvme, plp, 1,
         "power-loss protected: no volatile write cache, flushes are not sent (required)"),
    DBL(hw_nvme, flush_latency_us, 0, 1e6, 2, "us",
        "typical cost of a flush / fdatasync (~syscall when plp) (required)"),
    DBL(hw_nvme, flush_sleeps, 1, 100, 1, "count",
        "times the thread that flushes (fdatasync) sleeps and is woken within one flush: 1 on a block "
        "device (it waits once for the FLUSH command, or the syscall's return); more on a file in a journaling "
        "filesystem, whose fdatasync also waits for the journal (ext4: jbd2_log_wait_commit) and its own "
        "I/O.  Each sleep past the first costs the thread cost.thread_sleep_us, inside the flush's latency"),
    DBL(hw_nvme, tail_spike_prob, 0, 1, 0, "prob",
        "per-IO probability of a firmware stall (PM983 write-queue spikes, ceph.io 2023)"),
    DBL(hw_nvme, tail_spike_us, 0, 1e7, 0, "us", "service time added by such a stall"),
    PARAM_END,
};
static const char *const nvme_optional[] = {"seq_read_latency_us", "seq_write_latency_us", "flush_sleeps",
                                            "tail_spike_prob", "tail_spike_us", NULL};
static const char *const nvme_extra[] = {"source", "read_latency_pct_us", "write_latency_pct_us",
                                         "flush_latency_pct_us", NULL};

static const struct param_def nic_params[] = {
    STR(hw_nic, "model", model, "10GBASE-T",
        PARAM_DESCRIPTIVE "part name, for the record (required)"),
    DBL(hw_nic, line_rate_gbps, 0.001, 1000, 10, "Gb/s", "line rate (required)"),
    DBL(hw_nic, phy_latency_us, 0, 100, 2.5, "us",
        "latency the PHYs of one link add, per hop (10GBASE-T ~2-3, SFP+/DAC ~0.3-0.4, "
        "vendor note) (required)"),
    INT(hw_nic, mtu_bytes, 576, 65536, 1500, "bytes", "IP MTU (required)"),
    INT(hw_nic, header_bytes, 0, 1024, 90, "bytes",
        "per-frame wire overhead: preamble+SFD 8, MAC 14, FCS 4, IFG 12, IPv4 20, TCP 20 + "
        "timestamps 12 = 90 (required)"),
    INT(hw_nic, l3_header_bytes, 0, 512, 52, "bytes",
        "IP + TCP part of header_bytes, inside the MTU (MSS = mtu - this) (required)"),
    DBL(hw_nic, tcp_tx_cpu_us, 0, 1000, 3, "us",
        "kernel CPU to send one message (sendmsg, TCP/IP, driver) [est 2-5] (required)"),
    DBL(hw_nic, tcp_rx_cpu_us, 0, 1000, 3, "us",
        "kernel CPU to receive one message (softirq, TCP/IP, recvmsg) [est 2-5] (required)"),
    DBL(hw_nic, irq_wake_us, 0, 10000, 8, "us",
        "NIC interrupt -> softirq -> epoll wake of the reader thread [est 5-15] (required)"),
    DBL(hw_nic, per_byte_cpu_ns, 0, 100, 0, "ns",
        "CPU per payload byte on each side (copy to/from socket buffers)"),
    PARAM_END,
};
static const char *const nic_optional[] = {"per_byte_cpu_ns", NULL};

static const struct param_def switch_params[] = {
    STR(hw_switch, "model", model, "cut-through ToR",
        PARAM_DESCRIPTIVE "part name, for the record (required)"),
    ENUM(hw_switch, "mode", mode, switch_modes, HWPROFILE_SWITCH_CUT_THROUGH,
         "cut-through forwards after the header; store-and-forward after the whole frame "
         "(one more frame serialisation); none = no switch (required)"),
    DBL(hw_switch, port_to_port_latency_us, 0, 1000, 0.5, "us",
        "fixed forwarding latency, port to port (cut-through ~0.3-1 [est]) (required)"),
    PARAM_END,
};

static const struct param_def host_params[] = {
    STR(hw_host, "cpu", cpu_ref, "epyc-7302p", "cpu profile: short name or path (required)"),
    STR(hw_host, "nvme", nvme_ref, "pm983", "nvme profile: short name or path (required)"),
    STR(hw_host, "nic", nic_ref, "10gbase-t", "nic profile: short name or path (required)"),
    STR(hw_host, "switch", switch_ref, "tor-cut-through",
        "switch profile the host's NIC is cabled to: short name or path (required)"),
    DBL(hw_host, memory_gib, 0.1, 65536, 128, "GiB",
        PARAM_DESCRIPTIVE "installed memory: the host's memory is not modelled (BlueStore's data cache "
        "takes its size from ceph.osd_memory_target or bluestore_cache_size_ssd, not from this) (required)"),
    INT(hw_host, drives_per_host, 1, 1024, 10, "count", "data drives per host (required)"),
    PARAM_END,
};

static const char *const no_keys[] = {NULL};
static const char *const source_only[] = {"source", NULL};

const char *hwprofile_kind_name(enum hwprofile_kind kind)
{
    return (unsigned)kind < HWPROFILE_KIND_COUNT ? kind_names[kind] : "?";
}

const char *hwprofile_governor_name(int gov)
{
    return gov >= 0 && gov < HWPROFILE_GOV_COUNT ? governor_names[gov] : "?";
}

const struct param_def *hwprofile_params(enum hwprofile_kind kind)
{
    switch (kind) {
    case HWPROFILE_CPU: return cpu_params;
    case HWPROFILE_NVME: return nvme_params;
    case HWPROFILE_NIC: return nic_params;
    case HWPROFILE_SWITCH: return switch_params;
    case HWPROFILE_HOST: return host_params;
    case HWPROFILE_KIND_COUNT: break;
    }
    return NULL;
}

const struct param_def *hwprofile_cstate_params(void)
{
    return cstate_params;
}

const struct param_def *hwprofile_governor_params(void)
{
    return governor_params;
}

void hwprofile_print_params(FILE *f, bool markdown)
{
    static const struct {
        const char *section;
        const struct param_def *defs;
    } tables[] = {
        {"hw.cpu", cpu_params},       {"hw.cpu.cstates[]", cstate_params},
        {"hw.cpu.governors[]", governor_params}, {"hw.nvme", nvme_params},
        {"hw.nic", nic_params},       {"hw.switch", switch_params},
        {"hw.host", host_params},
    };
    for (size_t i = 0; i < sizeof tables / sizeof tables[0]; i++) {
        if (markdown)
            param_print_markdown(f, tables[i].section, tables[i].defs);
        else
            param_print_table(f, tables[i].section, tables[i].defs);
    }
    fprintf(f, "%sEvery profile also needs \"source\" (string: where the numbers come from, "
               "\"[est]\" for estimates). hw.nvme may add read_latency_pct_us, "
               "write_latency_pct_us and flush_latency_pct_us: [[percentile, us], ...] with "
               "increasing percentiles.\n",
            markdown ? "\n" : "  ");
}

/* ---- small helpers ---------------------------------------------------- */

static bool in_list(const char *const *list, const char *s)
{
    for (int i = 0; list && list[i]; i++)
        if (strcmp(list[i], s) == 0)
            return true;
    return false;
}

static bool is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static bool is_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

bool hwprofile_is_path(const char *s)
{
    size_t n = strlen(s);
    return strchr(s, '/') || (n >= 5 && strcmp(s + n - 5, ".json") == 0);
}

static bool valid_short_name(const char *s)
{
    if (!s[0] || s[0] == '.' || strlen(s) >= HWPROFILE_NAME_MAX)
        return false;
    for (const char *p = s; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
              *p == '-' || *p == '_' || *p == '.'))
            return false;
    return true;
}

static int copy_str(char *out, size_t outsz, const char *s, struct sim_err *err)
{
    int n = snprintf(out, outsz, "%s", s);
    if (n < 0 || (size_t)n >= outsz)
        return sim_errf(err, -ENAMETOOLONG, "%s: path too long", s);
    return 0;
}

/* Object keys must be unique: cJSON keeps both copies and the last would win silently. */
static int check_duplicates(const cJSON *obj, const char *file, const char *path,
                            struct sim_err *err)
{
    char p[512];
    for (const cJSON *a = obj->child; a; a = a->next)
        for (const cJSON *b = a->next; b; b = b->next)
            if (a->string && b->string && strcmp(a->string, b->string) == 0)
                return sim_errf(err, -EINVAL, "%s: %s: duplicate key", file,
                                jsonu_path(p, sizeof p, path, a->string));
    return 0;
}

static int check_required(const struct param_def *defs, const char *const *optional,
                          const cJSON *obj, const char *file, const char *path,
                          struct sim_err *err)
{
    char p[512];
    for (const struct param_def *d = defs; d->name; d++)
        if (!in_list(optional, d->name) && !cJSON_GetObjectItemCaseSensitive(obj, d->name))
            return sim_errf(err, -EINVAL, "%s: %s: missing required key", file,
                            jsonu_path(p, sizeof p, path, d->name));
    return 0;
}

/* Defaults, strict binding, then the required-key check, for one JSON object. */
static int bind_object(const struct param_def *defs, const char *const *optional,
                       const char *const *extra, void *obj, const cJSON *json, const char *file,
                       const char *path, struct sim_err *err)
{
    if (!cJSON_IsObject(json))
        return sim_errf(err, -EINVAL, "%s: %s: expected an object", file,
                        path[0] ? path : "(top)");
    int rc = check_duplicates(json, file, path, err);
    if (rc < 0)
        return rc;
    param_set_defaults(defs, obj);
    rc = paramjson_bind(defs, obj, json, extra, file, path, err);
    if (rc < 0)
        return rc;
    return check_required(defs, optional, json, file, path, err);
}

static bool has_key(const cJSON *obj, const char *key)
{
    return cJSON_GetObjectItemCaseSensitive(obj, key) != NULL;
}

/* ---- locating profiles ------------------------------------------------ */

/* hw-profiles one to three levels above dir, made absolute where it can be. */
static int dir_above(const char *dir, char *out, size_t outsz)
{
    char cand[PATH_MAX + 64], real[PATH_MAX];
    for (int up = 1; up <= 3; up++) {
        int n = snprintf(cand, sizeof cand, "%s", dir);
        for (int i = 0; i < up && n > 0 && (size_t)n < sizeof cand; i++)
            n += snprintf(cand + n, sizeof cand - (size_t)n, "/..");
        if (n < 0 || (size_t)n >= sizeof cand - 16)
            return -ENAMETOOLONG;
        snprintf(cand + n, sizeof cand - (size_t)n, "/hw-profiles");
        if (is_dir(cand)) {
            const char *use = realpath(cand, real) ? real : cand;
            int m = snprintf(out, outsz, "%s", use);
            return m < 0 || (size_t)m >= outsz ? -ENAMETOOLONG : 0;
        }
    }
    return -ENOENT;
}

int hwprofile_dir_near_exe(const char *exe_path, char *out, size_t outsz)
{
    char dir[PATH_MAX];
    if (snprintf(dir, sizeof dir, "%s", exe_path) >= (int)sizeof dir)
        return -ENAMETOOLONG;
    char *slash = strrchr(dir, '/');
    if (!slash)
        return -ENOENT;
    *slash = '\0';
    return dir_above(dir, out, outsz);
}

int hwprofile_find_dir(char *out, size_t outsz, struct sim_err *err)
{
    return hwprofile_find_dir_for(NULL, out, outsz, err);
}

int hwprofile_find_dir_for(const char *near_file, char *out, size_t outsz, struct sim_err *err)
{
    const char *env = getenv("CEPHSIM_PROFILES");
    if (env && env[0]) {
        if (!is_dir(env))
            return sim_errf(err, -ENOENT, "CEPHSIM_PROFILES=%s: not a directory", env);
        return copy_str(out, outsz, env, err);
    }
    /* a scenario's own tree first: a copied or cloned tree uses its profiles,
       not those of whichever tree the binary or the working directory is in */
    if (near_file && near_file[0]) {
        char d[PATH_MAX];
        if (files_dir_of(near_file, d, sizeof d) == 0 && dir_above(d, out, outsz) == 0)
            return 0;
    }
    if (is_dir("hw-profiles"))
        return copy_str(out, outsz, "hw-profiles", err);
    char exe_dir[PATH_MAX];
    if (files_exe_dir(exe_dir, sizeof exe_dir) == 0 && dir_above(exe_dir, out, outsz) == 0)
        return 0;
    return sim_errf(err, -ENOENT,
                    "cannot find the hw-profiles directory: set CEPHSIM_PROFILES or run from "
                    "the cephsim source tree");
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp((const char *)a, (const char *)b);
}

/* All names of kind, sorted, in a calloc'd array the caller frees; count in *n. */
static int list_all(enum hwprofile_kind kind, const char *dir, char (**names)[HWPROFILE_NAME_MAX],
                    int *n, struct sim_err *err)
{
    char path[HWPROFILE_PATH_MAX];
    int len = snprintf(path, sizeof path, "%s/%s", dir, hwprofile_kind_name(kind));
    if (len < 0 || (size_t)len >= sizeof path)
        return sim_errf(err, -ENAMETOOLONG, "%s: path too long", dir);
    DIR *d = opendir(path);
    if (!d)
        return sim_errf(err, -errno, "%s: cannot open directory: %s", path, strerror(errno));
    int cap = 16, cnt = 0;
    char(*v)[HWPROFILE_NAME_MAX] = sim_xcalloc((size_t)cap, sizeof *v);
    for (struct dirent *e; (e = readdir(d));) {
        size_t l = strlen(e->d_name);
        if (e->d_name[0] == '.' || l <= 5 || strcmp(e->d_name + l - 5, ".json") != 0 ||
            l - 5 >= HWPROFILE_NAME_MAX)
            continue;
        if (cnt == cap) {
            cap *= 2;
            v = sim_xrealloc(v, (size_t)cap, sizeof *v);
        }
        memcpy(v[cnt], e->d_name, l - 5);
        v[cnt][l - 5] = '\0';
        cnt++;
    }
    closedir(d);
    qsort(v, (size_t)cnt, sizeof *v, cmp_names);
    *names = v;
    *n = cnt;
    return 0;
}

int hwprofile_list(enum hwprofile_kind kind, const char *profiles_dir,
                   char (*names)[HWPROFILE_NAME_MAX], int max, struct sim_err *err)
{
    char dir[HWPROFILE_PATH_MAX];
    if (!profiles_dir) {
        int rc = hwprofile_find_dir(dir, sizeof dir, err);
        if (rc < 0)
            return rc;
        profiles_dir = dir;
    }
    char(*all)[HWPROFILE_NAME_MAX];
    int n;
    int rc = list_all(kind, profiles_dir, &all, &n, err);
    if (rc < 0)
        return rc;
    int stored = n < max ? n : max;
    for (int i = 0; i < stored; i++)
        memcpy(names[i], all[i], HWPROFILE_NAME_MAX);
    free(all);
    return stored;
}

static int unknown_name(enum hwprofile_kind kind, const char *name, const char *dir,
                        struct sim_err *err)
{
    const char *kn = hwprofile_kind_name(kind);
    char(*all)[HWPROFILE_NAME_MAX];
    int n;
    struct sim_err lerr;
    if (list_all(kind, dir, &all, &n, &lerr) < 0)
        return sim_errf(err, -ENOENT, "unknown %s profile '%s' (%s)", kn, name, lerr.msg);
    const char **cand = sim_xcalloc((size_t)n + 1, sizeof *cand);
    char avail[384] = "";
    for (int i = 0; i < n; i++) {
        cand[i] = all[i];
        if (i)
            strncat(avail, ", ", sizeof avail - strlen(avail) - 1);
        strncat(avail, all[i], sizeof avail - strlen(avail) - 1);
    }
    const char *dym = names_did_you_mean(name, cand, n);
    int rc = sim_errf(err, -ENOENT, "unknown %s profile '%s'%s%s%s; available in %s/%s: %s", kn,
                      name, dym ? " (did you mean '" : "", dym ? dym : "", dym ? "'?)" : "", dir,
                      kn, n ? avail : "none");
    free(cand);
    free(all);
    return rc;
}

int hwprofile_resolve(enum hwprofile_kind kind, const char *name_or_path, const char *profiles_dir,
                      char *out, size_t outsz, struct sim_err *err)
{
    struct sim_err local;
    if (!err)
        err = &local;
    if (!name_or_path || !name_or_path[0])
        return sim_errf(err, -EINVAL, "empty %s profile name", hwprofile_kind_name(kind));
    if (hwprofile_is_path(name_or_path))
        return copy_str(out, outsz, name_or_path, err);
    if (!valid_short_name(name_or_path))
        return sim_errf(err, -EINVAL, "'%s' is not a valid %s profile name (letters, digits, "
                        "'-', '_', '.')", name_or_path, hwprofile_kind_name(kind));
    char dir[HWPROFILE_PATH_MAX];
    if (!profiles_dir) {
        int rc = hwprofile_find_dir(dir, sizeof dir, err);
        if (rc < 0)
            return rc;
        profiles_dir = dir;
    }
    int n = snprintf(out, outsz, "%s/%s/%s.json", profiles_dir, hwprofile_kind_name(kind),
                     name_or_path);
    if (n < 0 || (size_t)n >= outsz)
        return sim_errf(err, -ENAMETOOLONG, "%s: path too long", profiles_dir);
    if (!is_file(out))
        return unknown_name(kind, name_or_path, profiles_dir, err);
    return 0;
}

/*
 * Resolve, parse and bind the scalar keys and "source" of one profile file.
 * On success *rootp holds the parsed document for the kind-specific parts.
 */
static int load_common(enum hwprofile_kind kind, const char *name_or_path,
                       const char *profiles_dir, void *obj, const char *const *optional,
                       const char *const *extra, char *name, char *path, char *source,
                       cJSON **rootp, struct sim_err *err)
{
    int rc = hwprofile_resolve(kind, name_or_path, profiles_dir, path, HWPROFILE_PATH_MAX, err);
    if (rc < 0)
        return rc;
    cJSON *root = jsonu_load_file(path, err);
    if (!root)
        return err->code ? err->code : -EINVAL;
    rc = bind_object(hwprofile_params(kind), optional, extra, obj, root, path, "", err);
    if (rc == 0)
        rc = jsonu_get_string(root, "source", source, HWPROFILE_SOURCE_MAX, true, path, "", err);
    if (rc == 0 && strspn(source, " \t\n") == strlen(source))
        rc = sim_errf(err, -EINVAL, "%s: source: must name where the numbers come from", path);
    if (rc == 0) {
        const char *base = strrchr(path, '/');
        base = base ? base + 1 : path;
        size_t l = strlen(base);
        if (l > 5 && strcmp(base + l - 5, ".json") == 0)
            l -= 5;
        if (l >= HWPROFILE_NAME_MAX)
            rc = sim_errf(err, -ENAMETOOLONG, "%s: file name too long for a profile name", path);
        else
            snprintf(name, HWPROFILE_NAME_MAX, "%.*s", (int)l, base);
    }
    if (rc < 0) {
        cJSON_Delete(root);
        return rc;
    }
    *rootp = root;
    return 0;
}

/* ---- CPU -------------------------------------------------------------- */

static const cJSON *get_array(const cJSON *root, const char *key, int lo, int hi,
                              const char *what, const char *file, struct sim_err *err, int *rc)
{
    const cJSON *arr = cJSON_GetObjectItemCaseSensitive(root, key);
    *rc = 0;
    if (!arr) {
        *rc = lo > 0 ? sim_errf(err, -EINVAL, "%s: %s: missing required key", file, key) : 0;
        return NULL;
    }
    int n = cJSON_IsArray(arr) ? cJSON_GetArraySize(arr) : -1;
    if (n < lo || n > hi) {
        *rc = sim_errf(err, -EINVAL, "%s: %s: expected an array of %d to %d %s", file, key, lo,
                       hi, what);
        return NULL;
    }
    return arr;
}

static int parse_cstates(const cJSON *root, struct hw_cpu *cpu, const char *file,
                         struct sim_err *err)
{
    int rc;
    const cJSON *arr = get_array(root, "cstates", 1, HWPROFILE_CSTATES_MAX,
                                 "{name, exit_latency_us, target_residency_us}", file, err, &rc);
    if (!arr)
        return rc;
    char p[64];
    int i = 0;
    const cJSON *el;
    cJSON_ArrayForEach(el, arr) {
        struct hw_cstate cs;
        snprintf(p, sizeof p, "cstates[%d]", i);
        rc = bind_object(cstate_params, cstate_optional, no_keys, &cs, el, file, p, err);
        if (rc < 0)
            return rc;
        if (!has_key(el, "wake_latency_us"))
            cs.wake_latency_us = cs.exit_latency_us;
        cpu->cstates[i++] = cs;
    }
    cpu->n_cstates = i;
    return 0;
}

static int parse_governors(const cJSON *root, struct hw_cpu *cpu, const char *file,
                           struct sim_err *err)
{
    int rc;
    const cJSON *arr = get_array(root, "governors", 1, HWPROFILE_GOVERNORS_MAX,
                                 "{name, idle_clock_ghz, max_clock_ghz, ramp_us}", file, err, &rc);
    if (!arr)
        return rc;
    char p[64];
    int i = 0;
    const cJSON *el;
    cJSON_ArrayForEach(el, arr) {
        struct hw_governor g;
        snprintf(p, sizeof p, "governors[%d]", i);
        rc = bind_object(governor_params, no_keys, no_keys, &g, el, file, p, err);
        if (rc < 0)
            return rc;
        cpu->governors[i++] = g;
    }
    cpu->n_governors = i;
    return 0;
}

static bool valid_state_name(const char *s)
{
    if (!s[0])
        return false;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
              *s == '-' || *s == '_'))
            return false;
    return true;
}

static int validate_cpu(const struct hw_cpu *c, const char *file, struct sim_err *err)
{
    if (c->threads < c->cores || c->threads % c->cores != 0)
        return sim_errf(err, -EINVAL, "%s: threads: %lld is not a multiple of cores %lld", file,
                        (long long)c->threads, (long long)c->cores);
    if (c->ccx_cores > c->cores || c->cores % c->ccx_cores != 0)
        return sim_errf(err, -EINVAL, "%s: ccx_cores: %lld does not divide cores %lld", file,
                        (long long)c->ccx_cores, (long long)c->cores);
    if (c->boost_clock_ghz < c->base_clock_ghz)
        return sim_errf(err, -EINVAL, "%s: boost_clock_ghz: %g is below base_clock_ghz %g", file,
                        c->boost_clock_ghz, c->base_clock_ghz);
    if (c->all_core_clock_ghz > c->boost_clock_ghz)
        return sim_errf(err, -EINVAL, "%s: all_core_clock_ghz: %g is above boost_clock_ghz %g",
                        file, c->all_core_clock_ghz, c->boost_clock_ghz);
    for (int i = 0; i < c->n_cstates; i++) {
        const struct hw_cstate *s = &c->cstates[i];
        if (!valid_state_name(s->name))
            return sim_errf(err, -EINVAL,
                            "%s: cstates[%d].name: '%s' must be letters, digits, '-' or '_'",
                            file, i, s->name);
        if (s->target_residency_us < s->exit_latency_us)
            return sim_errf(err, -EINVAL,
                            "%s: cstates[%d].target_residency_us: %g is below its "
                            "exit_latency_us %g",
                            file, i, s->target_residency_us, s->exit_latency_us);
        for (int j = 0; j < i; j++)
            if (strcmp(c->cstates[j].name, s->name) == 0)
                return sim_errf(err, -EINVAL, "%s: cstates[%d].name: '%s' repeats cstates[%d]",
                                file, i, s->name, j);
        if (i > 0 && s->exit_latency_us < c->cstates[i - 1].exit_latency_us)
            return sim_errf(err, -EINVAL,
                            "%s: cstates[%d].exit_latency_us: %g is below cstates[%d]'s %g "
                            "(list states shallow to deep)",
                            file, i, s->exit_latency_us, i - 1, c->cstates[i - 1].exit_latency_us);
        if (i > 0 && s->target_residency_us < c->cstates[i - 1].target_residency_us)
            return sim_errf(err, -EINVAL,
                            "%s: cstates[%d].target_residency_us: %g is below cstates[%d]'s %g "
                            "(list states shallow to deep)",
                            file, i, s->target_residency_us, i - 1,
                            c->cstates[i - 1].target_residency_us);
    }
    bool have_default = false;
    for (int i = 0; i < c->n_governors; i++) {
        const struct hw_governor *g = &c->governors[i];
        for (int j = 0; j < i; j++)
            if (c->governors[j].kind == g->kind)
                return sim_errf(err, -EINVAL, "%s: governors[%d].name: '%s' repeats governors[%d]",
                                file, i, hwprofile_governor_name(g->kind), j);
        if (g->idle_clock_ghz > g->max_clock_ghz)
            return sim_errf(err, -EINVAL,
                            "%s: governors[%d].idle_clock_ghz: %g is above its max_clock_ghz %g",
                            file, i, g->idle_clock_ghz, g->max_clock_ghz);
        if (g->max_clock_ghz > c->boost_clock_ghz + 1e-9)
            return sim_errf(err, -EINVAL,
                            "%s: governors[%d].max_clock_ghz: %g is above boost_clock_ghz %g",
                            file, i, g->max_clock_ghz, c->boost_clock_ghz);
        have_default |= g->kind == c->default_governor;
    }
    if (!have_default)
        return sim_errf(err, -EINVAL, "%s: default_governor: '%s' is not listed in governors",
                        file, hwprofile_governor_name(c->default_governor));
    return 0;
}

int hwprofile_load_cpu(const char *name_or_path, const char *profiles_dir, struct hw_cpu *out,
                       struct sim_err *err)
{
    struct sim_err local;
    if (!err)
        err = &local;
    cJSON *root;
    memset(out, 0, sizeof *out);
    int rc = load_common(HWPROFILE_CPU, name_or_path, profiles_dir, out, cpu_optional, cpu_extra,
                         out->name, out->path, out->source, &root, err);
    if (rc < 0)
        return rc;
    if (!has_key(root, "all_core_clock_ghz"))
        out->all_core_clock_ghz = out->base_clock_ghz;
    rc = parse_cstates(root, out, out->path, err);
    if (rc == 0)
        rc = parse_governors(root, out, out->path, err);
    if (rc == 0)
        rc = validate_cpu(out, out->path, err);
    cJSON_Delete(root);
    return rc;
}

/* ---- NVMe ------------------------------------------------------------- */

static int parse_pct(const cJSON *root, const char *key, struct hw_pct_point *pts, int *n,
                     const char *file, struct sim_err *err)
{
    int rc;
    *n = 0;
    const cJSON *arr = get_array(root, key, 0, HWPROFILE_PCT_MAX, "[percentile, us] pairs", file,
                                 err, &rc);
    if (!arr)
        return rc;
    if (cJSON_GetArraySize(arr) == 0)
        return sim_errf(err, -EINVAL, "%s: %s: expected an array of 1 to %d [percentile, us] pairs",
                        file, key, HWPROFILE_PCT_MAX);
    int i = 0;
    const cJSON *el;
    cJSON_ArrayForEach(el, arr) {
        const cJSON *a = cJSON_IsArray(el) && cJSON_GetArraySize(el) == 2 ? el->child : NULL;
        if (!a || !cJSON_IsNumber(a) || !cJSON_IsNumber(a->next))
            return sim_errf(err, -EINVAL, "%s: %s[%d]: expected [percentile, us]", file, key, i);
        double pct = a->valuedouble, us = a->next->valuedouble;
        /* (0, 100): what dist_empirical takes (p100 has no tail to extrapolate) */
        if (!(pct > 0 && pct < 100))
            return sim_errf(err, -ERANGE, "%s: %s[%d][0]: %g is out of range (0, 100)", file, key,
                            i, pct);
        if (!(us > 0 && us <= 1e7))
            return sim_errf(err, -ERANGE, "%s: %s[%d][1]: %g is out of range (0, 1e+07] us", file,
                            key, i, us);
        if (i > 0 && pct <= pts[i - 1].pct)
            return sim_errf(err, -EINVAL, "%s: %s[%d][0]: percentiles must increase (%g after %g)",
                            file, key, i, pct, pts[i - 1].pct);
        if (i > 0 && us < pts[i - 1].us)
            return sim_errf(err, -EINVAL,
                            "%s: %s[%d][1]: latencies must not decrease (%g after %g)", file, key,
                            i, us, pts[i - 1].us);
        pts[i].pct = pct;
        pts[i].us = us;
        i++;
    }
    *n = i;
    return 0;
}

static int validate_nvme(const struct hw_nvme *d, const char *file, struct sim_err *err)
{
    if (d->tail_spike_prob > 0 && d->tail_spike_us <= 0)
        return sim_errf(err, -EINVAL, "%s: tail_spike_us: must be > 0 when tail_spike_prob is %g",
                        file, d->tail_spike_prob);
    return 0;
}

int hwprofile_load_nvme(const char *name_or_path, const char *profiles_dir, struct hw_nvme *out,
                        struct sim_err *err)
{
    struct sim_err local;
    if (!err)
        err = &local;
    cJSON *root;
    memset(out, 0, sizeof *out);
    int rc = load_common(HWPROFILE_NVME, name_or_path, profiles_dir, out, nvme_optional,
                         nvme_extra, out->name, out->path, out->source, &root, err);
    if (rc < 0)
        return rc;
    out->seq_read_given = has_key(root, "seq_read_latency_us");
    out->seq_write_given = has_key(root, "seq_write_latency_us");
    if (!out->seq_read_given)
        out->seq_read_latency_us = out->read_latency_us;
    if (!out->seq_write_given)
        out->seq_write_latency_us = out->write_latency_us;
    rc = parse_pct(root, "read_latency_pct_us", out->read_pct, &out->n_read_pct, out->path, err);
    if (rc == 0)
        rc = parse_pct(root, "write_latency_pct_us", out->write_pct, &out->n_write_pct, out->path,
                       err);
    if (rc == 0)
        rc = parse_pct(root, "flush_latency_pct_us", out->flush_pct, &out->n_flush_pct, out->path,
                       err);
    if (rc == 0)
        rc = validate_nvme(out, out->path, err);
    cJSON_Delete(root);
    return rc;
}

/* ---- NIC and switch --------------------------------------------------- */

static int validate_nic(const struct hw_nic *n, const char *file, struct sim_err *err)
{
    if (n->l3_header_bytes > n->header_bytes)
        return sim_errf(err, -EINVAL, "%s: l3_header_bytes: %lld exceeds header_bytes %lld", file,
                        (long long)n->l3_header_bytes, (long long)n->header_bytes);
    return 0;
}

int hwprofile_load_nic(const char *name_or_path, const char *profiles_dir, struct hw_nic *out,
                       struct sim_err *err)
{
    struct sim_err local;
    if (!err)
        err = &local;
    cJSON *root;
    memset(out, 0, sizeof *out);
    int rc = load_common(HWPROFILE_NIC, name_or_path, profiles_dir, out, nic_optional, source_only,
                         out->name, out->path, out->source, &root, err);
    if (rc < 0)
        return rc;
    rc = validate_nic(out, out->path, err);
    cJSON_Delete(root);
    return rc;
}

static int validate_switch(const struct hw_switch *s, const char *file, struct sim_err *err)
{
    if (s->mode == HWPROFILE_SWITCH_NONE && s->port_to_port_latency_us != 0)
        return sim_errf(err, -EINVAL, "%s: port_to_port_latency_us: %g must be 0 for mode 'none'",
                        file, s->port_to_port_latency_us);
    return 0;
}

int hwprofile_load_switch(const char *name_or_path, const char *profiles_dir,
                          struct hw_switch *out, struct sim_err *err)
{
    struct sim_err local;
    if (!err)
        err = &local;
    cJSON *root;
    memset(out, 0, sizeof *out);
    int rc = load_common(HWPROFILE_SWITCH, name_or_path, profiles_dir, out, no_keys, source_only,
                         out->name, out->path, out->source, &root, err);
    if (rc < 0)
        return rc;
    rc = validate_switch(out, out->path, err);
    cJSON_Delete(root);
    return rc;
}

/* ---- host ------------------------------------------------------------- */

/* Resolve a part reference of a host file; unknown names are reported against the host file. */
static int host_part_path(enum hwprofile_kind kind, const char *ref, const char *host_file,
                          const char *profiles_dir, char *out, size_t outsz, struct sim_err *err)
{
    const char *key = hwprofile_kind_name(kind);
    if (hwprofile_is_path(ref) && ref[0] != '/') {
        const char *slash = strrchr(host_file, '/');
        int hl = slash ? (int)(slash - host_file) : 1;
        int n = snprintf(out, outsz, "%.*s/%s", hl, slash ? host_file : ".", ref);
        if (n < 0 || (size_t)n >= outsz)
            return sim_errf(err, -ENAMETOOLONG, "%s: %s: path too long", host_file, key);
        return 0;
    }
    struct sim_err lerr;
    int rc = hwprofile_resolve(kind, ref, profiles_dir, out, outsz, &lerr);
    if (rc < 0)
        return sim_errf(err, rc, "%s: %s: %s", host_file, key, lerr.msg);
    return 0;
}

int hwprofile_load_host(const char *name_or_path, const char *profiles_dir, struct hw_host *out,
                        struct sim_err *err)
{
    struct sim_err local;
    if (!err)
        err = &local;
    cJSON *root;
    memset(out, 0, sizeof *out);
    int rc = load_common(HWPROFILE_HOST, name_or_path, profiles_dir, out, no_keys, source_only,
                         out->name, out->path, out->source, &root, err);
    if (rc < 0)
        return rc;
    cJSON_Delete(root);
    char p[HWPROFILE_PATH_MAX];
    if ((rc = host_part_path(HWPROFILE_CPU, out->cpu_ref, out->path, profiles_dir, p, sizeof p,
                             err)) < 0 ||
        (rc = hwprofile_load_cpu(p, profiles_dir, &out->cpu, err)) < 0)
        return rc;
    if ((rc = host_part_path(HWPROFILE_NVME, out->nvme_ref, out->path, profiles_dir, p, sizeof p,
                             err)) < 0 ||
        (rc = hwprofile_load_nvme(p, profiles_dir, &out->nvme, err)) < 0)
        return rc;
    if ((rc = host_part_path(HWPROFILE_NIC, out->nic_ref, out->path, profiles_dir, p, sizeof p,
                             err)) < 0 ||
        (rc = hwprofile_load_nic(p, profiles_dir, &out->nic, err)) < 0)
        return rc;
    if ((rc = host_part_path(HWPROFILE_SWITCH, out->switch_ref, out->path, profiles_dir, p,
                             sizeof p, err)) < 0 ||
        (rc = hwprofile_load_switch(p, profiles_dir, &out->sw, err)) < 0)
        return rc;
    return 0; /* the host's own scalars are range-checked; each part validated itself */
}

/* ---- overrides -------------------------------------------------------- */

static size_t kind_size(enum hwprofile_kind kind)
{
    switch (kind) {
    case HWPROFILE_CPU: return sizeof(struct hw_cpu);
    case HWPROFILE_NVME: return sizeof(struct hw_nvme);
    case HWPROFILE_NIC: return sizeof(struct hw_nic);
    case HWPROFILE_SWITCH: return sizeof(struct hw_switch);
    case HWPROFILE_HOST: return sizeof(struct hw_host);
    case HWPROFILE_KIND_COUNT: break;
    }
    return 0;
}

static int validate_kind(enum hwprofile_kind kind, const void *part, const char *file,
                         struct sim_err *err)
{
    switch (kind) {
    case HWPROFILE_CPU: return validate_cpu(part, file, err);
    case HWPROFILE_NVME: return validate_nvme(part, file, err);
    case HWPROFILE_NIC: return validate_nic(part, file, err);
    case HWPROFILE_SWITCH: return validate_switch(part, file, err);
    case HWPROFILE_HOST: return 0; /* only range-checked scalars are settable */
    case HWPROFILE_KIND_COUNT: break;
    }
    return sim_errf(err, -EINVAL, "bad hardware profile kind %d", (int)kind);
}

/* File a part was loaded from, for messages. */
static const char *part_path(enum hwprofile_kind kind, const void *part)
{
    switch (kind) {
    case HWPROFILE_CPU: return ((const struct hw_cpu *)part)->path;
    case HWPROFILE_NVME: return ((const struct hw_nvme *)part)->path;
    case HWPROFILE_NIC: return ((const struct hw_nic *)part)->path;
    case HWPROFILE_SWITCH: return ((const struct hw_switch *)part)->path;
    case HWPROFILE_HOST: return ((const struct hw_host *)part)->path;
    case HWPROFILE_KIND_COUNT: break;
    }
    return "?";
}

static int set_field(enum hwprofile_kind kind, void *part, const char *key, const char *text, bool check,
                     struct sim_err *err)
{
    struct sim_err local;
    if (!err)
        err = &local;
    const struct param_def *defs = hwprofile_params(kind);
    if (!defs)
        return sim_errf(err, -EINVAL, "bad hardware profile kind %d", (int)kind);
    const char *kn = hwprofile_kind_name(kind);
    char where[128];
    snprintf(where, sizeof where, "hw.%s.%s", kn, key);
    const struct param_def *d = param_find(defs, key);
    if (!d) {
        const char *names[64];
        int n = 0;
        for (const struct param_def *q = defs; q->name && n < 64; q++)
            names[n++] = q->name;
        const char *dym = names_did_you_mean(key, names, n);
        return sim_errf(err, -EINVAL, "--set: %s: unknown key%s%s%s", where,
                        dym ? " (did you mean '" : "", dym ? dym : "", dym ? "'?)" : "");
    }
    if (kind == HWPROFILE_HOST && d->type == PARAM_STRING)
        return sim_errf(err, -EINVAL,
                        "--set: %s: the parts of a loaded host cannot be replaced; choose "
                        "another host profile or set hw.%s.* fields",
                        where, key);
    size_t sz = kind_size(kind);
    void *tmp = sim_xcalloc(1, sz);
    memcpy(tmp, part, sz);
    int rc = param_set_text(d, tmp, text, "--set", where, err);
    if (rc == 0 && kind == HWPROFILE_NVME) {
        /* a sequential latency the profile did not give follows the random one */
        struct hw_nvme *nv = tmp;
        if (!strcmp(key, "seq_read_latency_us"))
            nv->seq_read_given = true;
        else if (!strcmp(key, "seq_write_latency_us"))
            nv->seq_write_given = true;
        else if (!strcmp(key, "read_latency_us") && !nv->seq_read_given)
            nv->seq_read_latency_us = nv->read_latency_us;
        else if (!strcmp(key, "write_latency_us") && !nv->seq_write_given)
            nv->seq_write_latency_us = nv->write_latency_us;
    }
    if (rc == 0 && check) {
        char file[HWPROFILE_PATH_MAX + 160];
        snprintf(file, sizeof file, "%s (after --set %s=%s)", part_path(kind, part), where, text);
        rc = validate_kind(kind, tmp, file, err);
    }
    if (rc == 0)
        memcpy(part, tmp, sz);
    free(tmp);
    return rc;
}

int hwprofile_set(enum hwprofile_kind kind, void *part, const char *key, const char *text, struct sim_err *err)
{
    return set_field(kind, part, key, text, true, err);
}

int hwprofile_set_unchecked(enum hwprofile_kind kind, void *part, const char *key, const char *text,
                            struct sim_err *err)
{
    return set_field(kind, part, key, text, false, err);
}

int hwprofile_validate(enum hwprofile_kind kind, const void *part, const char *what, struct sim_err *err)
{
    char file[HWPROFILE_PATH_MAX + 160];
    snprintf(file, sizeof file, "%s (%s)", part_path(kind, part), what);
    return validate_kind(kind, part, file, err);
}

/* ---- serialisation ---------------------------------------------------- */

static cJSON *pct_to_json(const struct hw_pct_point *pts, int n)
{
    cJSON *arr = cJSON_CreateArray();
    for (int i = 0; i < n; i++) {
        cJSON *pair = cJSON_CreateArray();
        cJSON_AddItemToArray(pair, cJSON_CreateNumber(pts[i].pct));
        cJSON_AddItemToArray(pair, cJSON_CreateNumber(pts[i].us));
        cJSON_AddItemToArray(arr, pair);
    }
    return arr;
}

static cJSON *head_json(const char *name, const char *source)
{
    cJSON *j = cJSON_CreateObject();
    cJSON_AddStringToObject(j, "profile", name);
    cJSON_AddStringToObject(j, "source", source);
    return j;
}

cJSON *hwprofile_cpu_to_json(const struct hw_cpu *cpu)
{
    cJSON *j = head_json(cpu->name, cpu->source);
    paramjson_write(cpu_params, cpu, j);
    cJSON *cs = cJSON_AddArrayToObject(j, "cstates");
    for (int i = 0; i < cpu->n_cstates; i++) {
        cJSON *o = cJSON_CreateObject();
        paramjson_write(cstate_params, &cpu->cstates[i], o);
        cJSON_AddItemToArray(cs, o);
    }
    cJSON *gv = cJSON_AddArrayToObject(j, "governors");
    for (int i = 0; i < cpu->n_governors; i++) {
        cJSON *o = cJSON_CreateObject();
        paramjson_write(governor_params, &cpu->governors[i], o);
        cJSON_AddItemToArray(gv, o);
    }
    return j;
}

cJSON *hwprofile_nvme_to_json(const struct hw_nvme *nvme)
{
    cJSON *j = head_json(nvme->name, nvme->source);
    paramjson_write(nvme_params, nvme, j);
    if (nvme->n_read_pct)
        cJSON_AddItemToObject(j, "read_latency_pct_us",
                              pct_to_json(nvme->read_pct, nvme->n_read_pct));
    if (nvme->n_write_pct)
        cJSON_AddItemToObject(j, "write_latency_pct_us",
                              pct_to_json(nvme->write_pct, nvme->n_write_pct));
    if (nvme->n_flush_pct)
        cJSON_AddItemToObject(j, "flush_latency_pct_us",
                              pct_to_json(nvme->flush_pct, nvme->n_flush_pct));
    return j;
}

cJSON *hwprofile_nic_to_json(const struct hw_nic *nic)
{
    cJSON *j = head_json(nic->name, nic->source);
    paramjson_write(nic_params, nic, j);
    return j;
}

cJSON *hwprofile_switch_to_json(const struct hw_switch *sw)
{
    cJSON *j = head_json(sw->name, sw->source);
    paramjson_write(switch_params, sw, j);
    return j;
}

cJSON *hwprofile_host_to_json(const struct hw_host *host)
{
    cJSON *j = head_json(host->name, host->source);
    paramjson_write(host_params, host, j);
    cJSON_ReplaceItemInObjectCaseSensitive(j, "cpu", hwprofile_cpu_to_json(&host->cpu));
    cJSON_ReplaceItemInObjectCaseSensitive(j, "nvme", hwprofile_nvme_to_json(&host->nvme));
    cJSON_ReplaceItemInObjectCaseSensitive(j, "nic", hwprofile_nic_to_json(&host->nic));
    cJSON_ReplaceItemInObjectCaseSensitive(j, "switch", hwprofile_switch_to_json(&host->sw));
    return j;
}

/* ---- derived values --------------------------------------------------- */

uint32_t hwprofile_nic_frames(const struct hw_nic *nic, uint32_t bytes)
{
    SIM_ASSERT(nic->mtu_bytes > nic->l3_header_bytes);
    uint64_t mss = (uint64_t)(nic->mtu_bytes - nic->l3_header_bytes);
    if (bytes == 0)
        return 1; /* a header-only segment still takes a frame */
    return (uint32_t)(((uint64_t)bytes + mss - 1) / mss);
}

double hwprofile_nic_serialisation_ns(const struct hw_nic *nic, uint32_t bytes)
{
    SIM_ASSERT(nic->line_rate_gbps > 0);
    uint64_t wire = (uint64_t)bytes + (uint64_t)hwprofile_nic_frames(nic, bytes) *
                                          (uint64_t)nic->header_bytes;
    return (double)wire * 8.0 / nic->line_rate_gbps; /* bits / (Gbit/s) = ns */
}

double hwprofile_cpu_cost_scale(const struct hw_cpu *cpu, double clock_ghz)
{
    SIM_ASSERT(clock_ghz > 0 && cpu->ipc_rel > 0);
    return cpu->ref_clock_ghz / (clock_ghz * cpu->ipc_rel);
}

const struct hw_governor *hwprofile_cpu_governor(const struct hw_cpu *cpu, int gov)
{
    for (int i = 0; i < cpu->n_governors; i++)
        if (cpu->governors[i].kind == gov)
            return &cpu->governors[i];
    return NULL;
}

int hwprofile_cpu_idle_state(const struct hw_cpu *cpu, double idle_us)
{
    int best = -1;
    for (int i = 0; i < cpu->n_cstates; i++) {
        const struct hw_cstate *s = &cpu->cstates[i];
        if (s->exit_latency_us > cpu->cpu_dma_latency_us)
            break; /* states are ordered by exit latency */
        if (s->target_residency_us <= idle_us)
            best = i;
    }
    return best;
}
