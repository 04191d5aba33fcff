/*
 * hwprofile.h - hardware profiles for the physical models (cpu, nvme, network).
 *
 * One JSON file per part under hw-profiles/<kind>/<name>.json, kind = cpu, nvme,
 * nic, switch or host.  Every numeric key carries its unit in its name
 * (write_latency_us, line_rate_gbps) and every file has a required "source"
 * string naming where its numbers come from ("[est]" marks estimates).  A host
 * profile names one part of each other kind and is loaded with them resolved.
 *
 * Conventions the models rely on:
 *  - CPU costs of the simulated stages are given in scenarios as µs at
 *    hw_cpu.ref_clock_ghz on the reference microarchitecture (Zen 2, where the
 *    Ceph anchors were measured); a core running at clock f costs
 *    cost * hwprofile_cpu_cost_scale(cpu, f).
 *  - C-states follow Linux cpuidle sysfs (state<N>/latency = exit_latency_us,
 *    state<N>/residency = target_residency_us), shallow to deep; PM QoS
 *    (/dev/cpu_dma_latency) excludes states whose exit latency exceeds
 *    cpu_dma_latency_us.  wake_latency_us is what leaving the state really costs
 *    (firmware tables often overstate it); it defaults to exit_latency_us.
 *  - NVMe latencies are typical (median-like) QD1 4 KiB service times; the IOPS
 *    figures are throughput caps; internal_parallelism is how many commands the
 *    device services at once (Little's law: iops x latency).  A percentile table,
 *    when present, is the latency shape; latency_cv is the fallback.
 *  - phy_latency_us is what the PHYs of one link add (one hop: both ends
 *    together); a host -> switch -> host path has two hops.  header_bytes is the
 *    whole per-frame overhead on the wire, l3_header_bytes the part of it that
 *    sits inside the MTU (IP + TCP), so the TCP payload per frame is
 *    mtu_bytes - l3_header_bytes.
 */
#ifndef CEPHSIM_MODELS_HWPROFILE_H
#define CEPHSIM_MODELS_HWPROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cjson/cJSON.h>

#include "err.h"
#include "param.h"

#define HWPROFILE_NAME_MAX PARAM_STR_MAX /* short names, models, part references */
#define HWPROFILE_PATH_MAX 1024
#define HWPROFILE_SOURCE_MAX 2048
#define HWPROFILE_CSTATES_MAX 8
#define HWPROFILE_GOVERNORS_MAX 4
#define HWPROFILE_PCT_MAX 24 /* <= DIST_EMPIRICAL_MAX - 2 */

enum hwprofile_kind {
    HWPROFILE_CPU,
    HWPROFILE_NVME,
    HWPROFILE_NIC,
    HWPROFILE_SWITCH,
    HWPROFILE_HOST,
    HWPROFILE_KIND_COUNT,
};

/* cpufreq governors (index into hw_governor.kind and hw_cpu.default_governor). */
enum hwprofile_governor {
    HWPROFILE_GOV_PERFORMANCE,
    HWPROFILE_GOV_ONDEMAND,
    HWPROFILE_GOV_SCHEDUTIL,
    HWPROFILE_GOV_POWERSAVE,
    HWPROFILE_GOV_COUNT,
};

enum hwprofile_switch_mode {
    HWPROFILE_SWITCH_CUT_THROUGH,
    HWPROFILE_SWITCH_STORE_AND_FORWARD,
    HWPROFILE_SWITCH_NONE, /* no switch: loopback, everything on one host */
};

/* One cpuidle state (Linux /sys/devices/system/cpu/cpuN/cpuidle/stateM). */
struct hw_cstate {
    char name[HWPROFILE_NAME_MAX];
    double exit_latency_us;     /* stateM/latency: used for selection and PM QoS */
    double target_residency_us; /* stateM/residency: shortest idle worth entering it */
    double wake_latency_us;     /* real cost of leaving it (default exit_latency_us) */
};

/* Clock behaviour under one cpufreq governor. */
struct hw_governor {
    int kind;              /* enum hwprofile_governor */
    double idle_clock_ghz; /* clock a core is at after idling */
    double max_clock_ghz;  /* clock reached after ramp_us of continuous load */
    double ramp_us;        /* busy time from idle_clock to max_clock */
};

struct hw_cpu {
    char name[HWPROFILE_NAME_MAX]; /* profile name (file stem) */
    char path[HWPROFILE_PATH_MAX]; /* file it was loaded from */
    char source[HWPROFILE_SOURCE_MAX];
    char model[HWPROFILE_NAME_MAX];
    int64_t cores, threads; /* threads = cores x SMT ways */
    double smt_pair_throughput; /* a core's throughput with both SMT threads busy / with one */
    int64_t ccx_cores; /* cores sharing one L3 (AMD CCX); = cores on a mesh */
    double base_clock_ghz, boost_clock_ghz, all_core_clock_ghz;
    double l3_mb;
    double ref_clock_ghz; /* clock at which scenario CPU costs are expressed */
    double ipc_rel;       /* work per clock relative to the reference core */
    double cross_ccx_wake_extra_us;
    double cpu_dma_latency_us; /* PM QoS limit; 2e9 = Linux default (no limit) */
    int default_governor;      /* enum hwprofile_governor, one of governors[] */
    int scaling_driver;        /* 0 acpi-cpufreq, 1 intel_pstate (HWP: powersave follows load) */
    int n_cstates;
    struct hw_cstate cstates[HWPROFILE_CSTATES_MAX]; /* shallow to deep */
    int n_governors;
    struct hw_governor governors[HWPROFILE_GOVERNORS_MAX];
};

/* One point of a latency distribution: pct percent of IOs take at most us. */
struct hw_pct_point {
    double pct;
    double us;
};

struct hw_nvme {
    char name[HWPROFILE_NAME_MAX];
    char path[HWPROFILE_PATH_MAX];
    char source[HWPROFILE_SOURCE_MAX];
    char model[HWPROFILE_NAME_MAX];
    double capacity_gb; /* decimal GB */
    double rand_read_4k_iops, rand_write_4k_iops; /* sustained caps */
    double seq_read_mbps, seq_write_mbps;         /* decimal MB/s */
    double read_latency_us, write_latency_us;     /* typical QD1 4 KiB random */
    double seq_read_latency_us, seq_write_latency_us;
    bool seq_read_given, seq_write_given; /* else they follow read/write_latency_us */
    double latency_cv; /* stddev / mean of service time, when no table */
    int64_t internal_parallelism;
    bool plp;                /* power-loss protected: no volatile write cache */
    double flush_latency_us; /* device cost of a flush (~syscall when plp) */
    double flush_sleeps;     /* voluntary sleeps of the flushing thread per flush (1: a block device) */
    double tail_spike_prob;  /* per-IO probability of a firmware stall */
    double tail_spike_us;    /* added service time of such a stall */
    int n_read_pct, n_write_pct, n_flush_pct;
    struct hw_pct_point read_pct[HWPROFILE_PCT_MAX];
    struct hw_pct_point write_pct[HWPROFILE_PCT_MAX];
    struct hw_pct_point flush_pct[HWPROFILE_PCT_MAX];
};

struct hw_nic {
    char name[HWPROFILE_NAME_MAX];
    char path[HWPROFILE_PATH_MAX];
    char source[HWPROFILE_SOURCE_MAX];
    char model[HWPROFILE_NAME_MAX];
    double line_rate_gbps;
    double phy_latency_us; /* per hop (both PHYs of one link) */
    int64_t mtu_bytes;
    int64_t header_bytes;    /* per-frame wire overhead, L1..L4 */
    int64_t l3_header_bytes; /* IP + TCP part of header_bytes (inside the MTU) */
    double tcp_tx_cpu_us, tcp_rx_cpu_us; /* kernel CPU per message */
    double irq_wake_us;     /* NIC IRQ -> softirq -> epoll wake of the reader */
    double per_byte_cpu_ns; /* copy/checksum CPU per payload byte, each side */
};

struct hw_switch {
    char name[HWPROFILE_NAME_MAX];
    char path[HWPROFILE_PATH_MAX];
    char source[HWPROFILE_SOURCE_MAX];
    char model[HWPROFILE_NAME_MAX];
    int mode; /* enum hwprofile_switch_mode */
    double port_to_port_latency_us;
};

struct hw_host {
    char name[HWPROFILE_NAME_MAX];
    char path[HWPROFILE_PATH_MAX];
    char source[HWPROFILE_SOURCE_MAX];
    char cpu_ref[HWPROFILE_NAME_MAX]; /* as written: short name or path */
    char nvme_ref[HWPROFILE_NAME_MAX];
    char nic_ref[HWPROFILE_NAME_MAX];
    char switch_ref[HWPROFILE_NAME_MAX];
    double memory_gib;
    int64_t drives_per_host;
    struct hw_cpu cpu; /* resolved parts */
    struct hw_nvme nvme;
    struct hw_nic nic;
    struct hw_switch sw;
};

/* "cpu", "nvme", "nic", "switch", "host". */
const char *hwprofile_kind_name(enum hwprofile_kind kind);

/* Name of a governor ("schedutil"); "?" when out of range. */
const char *hwprofile_governor_name(int gov);

/* Parameter table of one kind (for list-params, --set and schema documents). */
const struct param_def *hwprofile_params(enum hwprofile_kind kind);

/* Element tables of hw.cpu's cstates[] and governors[] arrays. */
const struct param_def *hwprofile_cstate_params(void);
const struct param_def *hwprofile_governor_params(void);

/* Print every table, including the cstates[] / governors[] element tables. */
void hwprofile_print_params(FILE *f, bool markdown);

/*
 * Find the profiles directory: $CEPHSIM_PROFILES, else ./hw-profiles, else
 * hw-profiles next to the executable (out/bin/cephsim -> ../../hw-profiles).
 */
int hwprofile_find_dir(char *out, size_t outsz, struct sim_err *err);

/* Like hwprofile_find_dir, but hw-profiles one to three levels above the
   directory of near_file (a scenario) comes before the working directory. */
int hwprofile_find_dir_for(const char *near_file, char *out, size_t outsz, struct sim_err *err);

/* The executable-relative step of hwprofile_find_dir: searches 1-3 levels above exe's directory. */
int hwprofile_dir_near_exe(const char *exe_path, char *out, size_t outsz);

/* A profile reference is a path (it has a '/' or ends in ".json"), not a short name. */
bool hwprofile_is_path(const char *ref);

/*
 * Turn a short name (pm983) into profiles_dir/<kind>/<name>.json; anything with
 * a '/' or ending in ".json" is taken as a path.  An unknown name is an error
 * listing the available names with a did-you-mean.  profiles_dir may be NULL.
 */
int hwprofile_resolve(enum hwprofile_kind kind, const char *name_or_path, const char *profiles_dir,
                      char *out, size_t outsz, struct sim_err *err);

/*
 * Sorted short names of kind in profiles_dir (NULL: hwprofile_find_dir) into
 * names[0..max-1]; returns how many were stored, or a negative errno.
 */
int hwprofile_list(enum hwprofile_kind kind, const char *profiles_dir,
                   char (*names)[HWPROFILE_NAME_MAX], int max, struct sim_err *err);

/* Load and validate one part by short name or path; out is undefined on error. */
int hwprofile_load_cpu(const char *name_or_path, const char *profiles_dir, struct hw_cpu *out,
                       struct sim_err *err);
int hwprofile_load_nvme(const char *name_or_path, const char *profiles_dir, struct hw_nvme *out,
                        struct sim_err *err);
int hwprofile_load_nic(const char *name_or_path, const char *profiles_dir, struct hw_nic *out,
                       struct sim_err *err);
int hwprofile_load_switch(const char *name_or_path, const char *profiles_dir,
                          struct hw_switch *out, struct sim_err *err);

/*
 * Load a host and the parts it names.  Part references that are paths are
 * relative to the host file's directory; short names are looked up in profiles_dir.
 */
int hwprofile_load_host(const char *name_or_path, const char *profiles_dir, struct hw_host *out,
                        struct sim_err *err);

/*
 * Override one scalar field from text (--set hw.nvme.write_latency_us=30) and
 * re-validate the part.  part points at the struct of that kind; host parts are
 * not re-resolved (set cpu/nvme/... fields on host.cpu etc. instead).
 */
int hwprofile_set(enum hwprofile_kind kind, void *part, const char *key, const char *text,
                  struct sim_err *err);
/* The same without the checks that tie fields together (tail_spike_us with
   tail_spike_prob, ...): for several values set at once, checked after the
   last by hwprofile_validate, so their order does not matter. */
int hwprofile_set_unchecked(enum hwprofile_kind kind, void *part, const char *key, const char *text,
                            struct sim_err *err);
/* Those checks on a part; messages name the part's file and then what. */
int hwprofile_validate(enum hwprofile_kind kind, const void *part, const char *what, struct sim_err *err);

/* Resolved parameters as JSON for the run's sim.json (caller owns the result). */
cJSON *hwprofile_cpu_to_json(const struct hw_cpu *cpu);
cJSON *hwprofile_nvme_to_json(const struct hw_nvme *nvme);
cJSON *hwprofile_nic_to_json(const struct hw_nic *nic);
cJSON *hwprofile_switch_to_json(const struct hw_switch *sw);
cJSON *hwprofile_host_to_json(const struct hw_host *host);

/* Ethernet frames needed for a TCP payload of bytes (at least 1). */
uint32_t hwprofile_nic_frames(const struct hw_nic *nic, uint32_t bytes);

/*
 * Time to put a TCP payload of bytes on the wire at line rate, in ns: the payload
 * is split into frames of mtu_bytes - l3_header_bytes, each with header_bytes.
 */
double hwprofile_nic_serialisation_ns(const struct hw_nic *nic, uint32_t bytes);

/* Multiplier for a scenario CPU cost when the core runs at clock_ghz. */
double hwprofile_cpu_cost_scale(const struct hw_cpu *cpu, double clock_ghz);

/* The cpu's entry for governor gov, or NULL if the profile does not list it. */
const struct hw_governor *hwprofile_cpu_governor(const struct hw_cpu *cpu, int gov);

/*
 * Deepest C-state a core may enter for an expected idle of idle_us: target
 * residency <= idle_us and exit latency <= cpu_dma_latency_us (Linux cpuidle
 * rules, menu-governor style); -1 means none fits (the core polls).
 */
int hwprofile_cpu_idle_state(const struct hw_cpu *cpu, double idle_us);

#endif
