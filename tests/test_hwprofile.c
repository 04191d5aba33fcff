/*
 * test_hwprofile.c - hardware profiles: every shipped profile loads, short names
 * resolve, datasheet values arrive exactly, malformed files give one-line errors
 * naming the file and the JSON path, and the derived helpers compute right.
 * Run from the repository root (profiles in hw-profiles/, fixtures in tests/data/hw/).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hwprofile.h"
#include "paramjson.h"

#define DIR_ "hw-profiles"
#define FIX "tests/data/hw/"

static void assert_has(const char *hay, const char *needle)
{
    if (!strstr(hay, needle))
        fail_msg("expected \"%s\" in \"%s\"", needle, hay);
}

static void assert_one_line(const char *msg)
{
    assert_true(msg[0] != '\0');
    assert_null(strchr(msg, '\n'));
}

/* Load a file of kind by path and return the error message (rc must be < 0). */
static const char *load_err(enum hwprofile_kind kind, const char *path, struct sim_err *err)
{
    static struct hw_host host; /* large; reused for every kind */
    int rc = -1;
    memset(err, 0, sizeof *err);
    switch (kind) {
    case HWPROFILE_CPU: rc = hwprofile_load_cpu(path, DIR_, &host.cpu, err); break;
    case HWPROFILE_NVME: rc = hwprofile_load_nvme(path, DIR_, &host.nvme, err); break;
    case HWPROFILE_NIC: rc = hwprofile_load_nic(path, DIR_, &host.nic, err); break;
    case HWPROFILE_SWITCH: rc = hwprofile_load_switch(path, DIR_, &host.sw, err); break;
    case HWPROFILE_HOST: rc = hwprofile_load_host(path, DIR_, &host, err); break;
    case HWPROFILE_KIND_COUNT: break;
    }
    assert_true(rc < 0);
    assert_int_equal(rc, err->code);
    assert_one_line(err->msg);
    return err->msg;
}

static void every_shipped_profile_loads(void **state)
{
    (void)state;
    struct hw_host *h = calloc(1, sizeof *h);
    char names[64][HWPROFILE_NAME_MAX];
    struct sim_err err = {0};
    int total = 0;
    for (int k = 0; k < HWPROFILE_KIND_COUNT; k++) {
        int n = hwprofile_list((enum hwprofile_kind)k, DIR_, names, 64, &err);
        assert_true(n >= 1);
        for (int i = 1; i < n; i++)
            assert_true(strcmp(names[i - 1], names[i]) < 0); /* sorted */
        for (int i = 0; i < n; i++) {
            int rc = -1;
            const char *src = NULL, *nm = NULL;
            switch ((enum hwprofile_kind)k) {
            case HWPROFILE_CPU:
                rc = hwprofile_load_cpu(names[i], DIR_, &h->cpu, &err);
                src = h->cpu.source, nm = h->cpu.name;
                break;
            case HWPROFILE_NVME:
                rc = hwprofile_load_nvme(names[i], DIR_, &h->nvme, &err);
                src = h->nvme.source, nm = h->nvme.name;
                break;
            case HWPROFILE_NIC:
                rc = hwprofile_load_nic(names[i], DIR_, &h->nic, &err);
                src = h->nic.source, nm = h->nic.name;
                break;
            case HWPROFILE_SWITCH:
                rc = hwprofile_load_switch(names[i], DIR_, &h->sw, &err);
                src = h->sw.source, nm = h->sw.name;
                break;
            case HWPROFILE_HOST:
                rc = hwprofile_load_host(names[i], DIR_, h, &err);
                src = h->source, nm = h->name;
                break;
            case HWPROFILE_KIND_COUNT: break;
            }
            if (rc != 0)
                fail_msg("%s/%s: %s", hwprofile_kind_name((enum hwprofile_kind)k), names[i],
                         err.msg);
            assert_string_equal(nm, names[i]);
            assert_true(strlen(src) > 10);
            total++;
        }
    }
    assert_true(total >= 17);
    free(h);
}

static void required_short_names_resolve(void **state)
{
    (void)state;
    static const struct {
        enum hwprofile_kind kind;
        const char *name;
    } want[] = {
        {HWPROFILE_CPU, "epyc-7302p"},  {HWPROFILE_CPU, "epyc-7742"},
        {HWPROFILE_CPU, "lab-vm"},      {HWPROFILE_NVME, "pm983"},
        {HWPROFILE_NVME, "pm9a3"},      {HWPROFILE_NVME, "lab-virtio"},
        {HWPROFILE_NIC, "10gbase-t"},   {HWPROFILE_NIC, "10gbe-sfp"},
        {HWPROFILE_NIC, "25gbe"},       {HWPROFILE_NIC, "100gbe"},
        {HWPROFILE_NIC, "loopback"},    {HWPROFILE_SWITCH, "none"},
        {HWPROFILE_SWITCH, "tor-cut-through"}, {HWPROFILE_SWITCH, "tor-store-and-forward"},
        {HWPROFILE_HOST, "seed-epyc-7302p"},   {HWPROFILE_HOST, "lab"},
    };
    char path[HWPROFILE_PATH_MAX], expect[HWPROFILE_PATH_MAX];
    struct sim_err err = {0};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        int rc = hwprofile_resolve(want[i].kind, want[i].name, DIR_, path, sizeof path, &err);
        if (rc != 0)
            fail_msg("%s: %s", want[i].name, err.msg);
        snprintf(expect, sizeof expect, "%s/%s/%s.json", DIR_, hwprofile_kind_name(want[i].kind),
                 want[i].name);
        assert_string_equal(path, expect);
    }
    /* anything with a slash or .json is a path, used as given */
    assert_int_equal(hwprofile_resolve(HWPROFILE_NVME, "x/y.json", DIR_, path, sizeof path, &err),
                     0);
    assert_string_equal(path, "x/y.json");
}

static void datasheet_values_arrive_exactly(void **state)
{
    (void)state;
    struct sim_err err = {0};
    struct hw_nvme d;
    assert_int_equal(hwprofile_load_nvme("pm983", DIR_, &d, &err), 0);
    assert_true(fabs(d.write_latency_us - 50) < 1e-12);
    assert_true(fabs(d.read_latency_us - 85) < 1e-12);
    assert_true(fabs(d.rand_write_4k_iops - 50000) < 1e-9);
    assert_true(fabs(d.rand_read_4k_iops - 540000) < 1e-9);
    assert_true(d.plp);
    assert_int_equal(d.n_write_pct, 0);
    assert_string_equal(d.path, "hw-profiles/nvme/pm983.json");

    /* omitted optional keys take their documented defaults */
    struct hw_nvme p9;
    assert_int_equal(hwprofile_load_nvme("pm9a3", DIR_, &p9, &err), 0);
    assert_true(fabs(p9.seq_write_latency_us - p9.write_latency_us) < 1e-12);
    assert_true(fabs(p9.write_latency_us - 15) < 1e-12);

    struct hw_nic nic;
    assert_int_equal(hwprofile_load_nic("10gbase-t", DIR_, &nic, &err), 0);
    assert_true(fabs(nic.line_rate_gbps - 10) < 1e-12);
    assert_int_equal(nic.mtu_bytes, 1500);

    struct hw_cpu cpu;
    assert_int_equal(hwprofile_load_cpu("epyc-7302p", DIR_, &cpu, &err), 0);
    assert_int_equal(cpu.cores, 16);
    assert_int_equal(cpu.threads, 32);
    assert_int_equal(cpu.n_cstates, 2);
    assert_string_equal(cpu.cstates[1].name, "C2");
    assert_int_equal(cpu.default_governor, HWPROFILE_GOV_SCHEDUTIL);
    assert_non_null(hwprofile_cpu_governor(&cpu, HWPROFILE_GOV_PERFORMANCE));

    /* a C-state without wake_latency_us defaults it to exit_latency_us (C1E);
       C6 gives its measured cost, below the declared exit latency */
    assert_int_equal(hwprofile_load_cpu("xeon-gold-6242", DIR_, &cpu, &err), 0);
    assert_true(fabs(cpu.cstates[1].wake_latency_us - 10) < 1e-12);
    assert_true(fabs(cpu.cstates[2].exit_latency_us - 133) < 1e-12);
    assert_true(fabs(cpu.cstates[2].wake_latency_us - 30) < 1e-12);
    assert_null(hwprofile_cpu_governor(&cpu, HWPROFILE_GOV_SCHEDUTIL));
}

static void lab_virtio_tables_from_baseline(void **state)
{
    (void)state;
    struct sim_err err = {0};
    struct hw_nvme d;
    assert_int_equal(hwprofile_load_nvme("lab-virtio", DIR_, &d, &err), 0);
    assert_false(d.plp);
    assert_int_equal(d.n_write_pct, 17);
    assert_int_equal(d.n_flush_pct, 17);
    assert_true(fabs(d.write_pct[6].pct - 50) < 1e-12);
    assert_true(fabs(d.write_pct[6].us - d.write_latency_us) < 0.1); /* median = typical */
    assert_true(fabs(d.flush_pct[6].us - d.flush_latency_us) < 0.1);
    assert_true(d.flush_latency_us > d.write_latency_us);
}

static void host_resolves_its_parts(void **state)
{
    (void)state;
    struct sim_err err = {0};
    struct hw_host *h = calloc(1, sizeof *h);
    assert_int_equal(hwprofile_load_host("seed-epyc-7302p", DIR_, h, &err), 0);
    assert_string_equal(h->cpu.name, "epyc-7302p");
    assert_string_equal(h->nvme.name, "pm983");
    assert_string_equal(h->nic.name, "10gbase-t");
    assert_string_equal(h->sw.name, "tor-cut-through");
    assert_int_equal(h->drives_per_host, 10);
    assert_true(fabs(h->memory_gib - 128) < 1e-12);
    assert_int_equal(h->cpu.cores, 16);

    assert_int_equal(hwprofile_load_host("lab", DIR_, h, &err), 0);
    assert_int_equal(h->cpu.cores, 2);
    assert_int_equal(h->sw.mode, HWPROFILE_SWITCH_NONE);
    assert_string_equal(h->nic.name, "loopback");

    /* part paths are relative to the host file; short names still use profiles_dir */
    int rc = hwprofile_load_host(FIX "host-relpath.json", DIR_, h, &err);
    if (rc != 0)
        fail_msg("%s", err.msg);
    assert_string_equal(h->cpu.name, "epyc-7742");
    assert_string_equal(h->nic.name, "nic-jumbo");
    assert_int_equal(h->nic.mtu_bytes, 9000);
    assert_int_equal(h->sw.mode, HWPROFILE_SWITCH_STORE_AND_FORWARD);
    free(h);
}

static void malformed_profiles_give_file_and_path(void **state)
{
    (void)state;
    struct sim_err err;
    assert_string_equal(
        load_err(HWPROFILE_NVME, FIX "nvme-unknown-key.json", &err),
        FIX "nvme-unknown-key.json: write_latncy_us: unknown key (did you mean "
            "'write_latency_us'?)");
    assert_string_equal(load_err(HWPROFILE_NVME, FIX "nvme-wrong-type.json", &err),
                        FIX "nvme-wrong-type.json: write_latency_us: expected a number");
    assert_has(load_err(HWPROFILE_NVME, FIX "nvme-out-of-range.json", &err),
               FIX "nvme-out-of-range.json: write_latency_us: -3 is out of range [0.1, 100000]");
    assert_int_equal(err.code, -ERANGE);
    assert_string_equal(load_err(HWPROFILE_NVME, FIX "nvme-missing-source.json", &err),
                        FIX "nvme-missing-source.json: source: missing required key");
    assert_has(load_err(HWPROFILE_NVME, FIX "no-such-profile.json", &err),
               FIX "no-such-profile.json: cannot open");
    assert_int_equal(err.code, -ENOENT);
    assert_string_equal(load_err(HWPROFILE_NVME, FIX "nvme-bad-pct.json", &err),
                        FIX "nvme-bad-pct.json: write_latency_pct_us[1][0]: percentiles must "
                            "increase (40 after 50)");
    /* p100 would be dropped by the empirical distribution: refused here, not ignored later */
    assert_string_equal(load_err(HWPROFILE_NVME, FIX "nvme-pct-100.json", &err),
                        FIX "nvme-pct-100.json: write_latency_pct_us[1][0]: 100 is out of range (0, 100)");
    assert_has(load_err(HWPROFILE_CPU, FIX "cpu-bad-cstate.json", &err),
               FIX "cpu-bad-cstate.json: cstates[1].exit_latency_us: -5 is out of range "
                   "[0, 100000]");
    assert_string_equal(load_err(HWPROFILE_CPU, FIX "cpu-cstate-order.json", &err),
                        FIX "cpu-cstate-order.json: cstates[1].exit_latency_us: 0.5 is below "
                            "cstates[0]'s 1 (list states shallow to deep)");
    assert_string_equal(load_err(HWPROFILE_CPU, FIX "cpu-cstate-unknown-key.json", &err),
                        FIX "cpu-cstate-unknown-key.json: cstates[0].target_residency: unknown "
                            "key (did you mean 'target_residency_us'?)");
    assert_string_equal(load_err(HWPROFILE_CPU, FIX "cpu-governor-not-listed.json", &err),
                        FIX "cpu-governor-not-listed.json: default_governor: 'ondemand' is not "
                            "listed in governors");
    assert_string_equal(load_err(HWPROFILE_NIC, FIX "nic-bad-header.json", &err),
                        FIX "nic-bad-header.json: l3_header_bytes: 100 exceeds header_bytes 90");
    assert_string_equal(load_err(HWPROFILE_SWITCH, FIX "switch-duplicate-key.json", &err),
                        FIX "switch-duplicate-key.json: mode: duplicate key");
    assert_has(load_err(HWPROFILE_SWITCH, FIX "malformed.json", &err),
               FIX "malformed.json:3: malformed JSON");
    /* a part file of the wrong kind fails on its first foreign key */
    assert_has(load_err(HWPROFILE_NIC, DIR_ "/nvme/pm983.json", &err),
               DIR_ "/nvme/pm983.json: capacity_gb: unknown key");
}

static void unknown_names_list_alternatives(void **state)
{
    (void)state;
    struct sim_err err = {0};
    struct hw_nvme d;
    assert_int_equal(hwprofile_load_nvme("pm938", DIR_, &d, &err), -ENOENT);
    assert_one_line(err.msg);
    assert_has(err.msg, "unknown nvme profile 'pm938' (did you mean 'pm983'?)");
    assert_has(err.msg, "available in hw-profiles/nvme: dell-ri-15tb-gen4, intel-p4500-4tb, lab-calibrated, lab-virtio, lab2-calibrated, lab5-calibrated, pm983, pm9a3");

    struct hw_nic nic;
    assert_true(hwprofile_load_nic("400gbe", DIR_, &nic, &err) < 0);
    assert_has(err.msg, "unknown nic profile '400gbe'");
    assert_has(err.msg,
               "available in hw-profiles/nic: 100gbe, 10gbase-t, 10gbe-sfp, 25gbe, 40gbe, loopback");

    /* a host naming an unknown part: host file, key, then the alternatives */
    const char *m = load_err(HWPROFILE_HOST, FIX "host-unknown-part.json", &err);
    assert_has(m, FIX "host-unknown-part.json: cpu: unknown cpu profile 'epyc-7302' (did you "
                  "mean 'epyc-7302p'?); available in hw-profiles/cpu: epyc-7302p, ");
    /* sorted; more profiles (epyc-9454p, ...) may sit between */
    const char *after_7742 = strstr(m, ", epyc-7742, ");
    assert_non_null(after_7742);
    assert_has(after_7742, ", lab-vm");

    assert_true(hwprofile_load_nvme("pm 983", DIR_, &d, &err) < 0);
    assert_has(err.msg, "'pm 983' is not a valid nvme profile name");
}

static void profiles_dir_lookup(void **state)
{
    (void)state;
    char out[HWPROFILE_PATH_MAX], cwd[PATH_MAX], exe[PATH_MAX + 32];
    struct sim_err err = {0};
    const char *saved = getenv("CEPHSIM_PROFILES");
    char *keep = saved ? strdup(saved) : NULL;

    unsetenv("CEPHSIM_PROFILES");
    assert_int_equal(hwprofile_find_dir(out, sizeof out, &err), 0);
    assert_string_equal(out, "hw-profiles"); /* tests run from the repository root */

    setenv("CEPHSIM_PROFILES", FIX "profiles-empty", 1);
    assert_int_equal(hwprofile_find_dir(out, sizeof out, &err), 0);
    assert_string_equal(out, FIX "profiles-empty");
    struct hw_cpu cpu;
    assert_int_equal(hwprofile_load_cpu("epyc-7302p", NULL, &cpu, &err), -ENOENT);
    assert_has(err.msg, "available in " FIX "profiles-empty/cpu: none");

    setenv("CEPHSIM_PROFILES", FIX "no-such-dir", 1);
    assert_int_equal(hwprofile_find_dir(out, sizeof out, &err), -ENOENT);
    assert_has(err.msg, "CEPHSIM_PROFILES=" FIX "no-such-dir: not a directory");
    unsetenv("CEPHSIM_PROFILES");

    /*
     * executable-relative: out/bin/cephsim -> ../../hw-profiles.  The binary need not
     * exist but its directory must, so use tests/data/, at the same depth as out/bin/.
     */
    assert_non_null(getcwd(cwd, sizeof cwd));
    snprintf(exe, sizeof exe, "%s/tests/data/cephsim", cwd);
    char want[PATH_MAX + 32];
    snprintf(want, sizeof want, "%s/hw-profiles", cwd);
    assert_int_equal(hwprofile_dir_near_exe(exe, out, sizeof out), 0);
    assert_string_equal(out, want);
    assert_int_equal(hwprofile_dir_near_exe("/cephsim-no-such/a/b/c/d/cephsim", out, sizeof out),
                     -ENOENT);

    if (keep) {
        setenv("CEPHSIM_PROFILES", keep, 1);
        free(keep);
    }
}

static void serialisation_time_from_line_rate(void **state)
{
    (void)state;
    struct sim_err err = {0};
    struct hw_nic n10, n25, n100, lo;
    assert_int_equal(hwprofile_load_nic("10gbase-t", DIR_, &n10, &err), 0);
    assert_int_equal(hwprofile_load_nic("25gbe", DIR_, &n25, &err), 0);
    assert_int_equal(hwprofile_load_nic("100gbe", DIR_, &n100, &err), 0);
    assert_int_equal(hwprofile_load_nic("loopback", DIR_, &lo, &err), 0);

    /* 4 KiB payload, MSS 1448: 3 frames x 90 bytes of overhead = 4366 bytes on the wire */
    assert_int_equal(hwprofile_nic_frames(&n10, 4096), 3);
    double t10 = hwprofile_nic_serialisation_ns(&n10, 4096);
    double t25 = hwprofile_nic_serialisation_ns(&n25, 4096);
    double t100 = hwprofile_nic_serialisation_ns(&n100, 4096);
    assert_true(fabs(t10 - 4366 * 8 / 10.0) < 1e-9);
    assert_true(fabs((t10 - t100) - 3143.52) < 0.01); /* ~3 us apart */
    assert_true(fabs(t25 - 1397.12) < 0.01);          /* hw-facts: ~1.4 us at 25 GbE */

    /* frame boundaries: exactly one MSS is one frame, one byte more is two */
    assert_int_equal(hwprofile_nic_frames(&n10, 1448), 1);
    assert_int_equal(hwprofile_nic_frames(&n10, 1449), 2);
    assert_int_equal(hwprofile_nic_frames(&n10, 0), 1);
    assert_true(fabs(hwprofile_nic_serialisation_ns(&n10, 0) - 72.0) < 1e-9);

    /* jumbo frames carry 4 KiB in one frame; loopback (64 KiB MTU) likewise */
    struct hw_nic j;
    assert_int_equal(hwprofile_load_nic(FIX "nic-jumbo.json", DIR_, &j, &err), 0);
    assert_int_equal(hwprofile_nic_frames(&j, 4096), 1);
    assert_true(fabs(hwprofile_nic_serialisation_ns(&j, 4096) - 4186 * 0.8) < 1e-9);
    assert_int_equal(hwprofile_nic_frames(&lo, 65000), 1);
    assert_true(hwprofile_nic_serialisation_ns(&lo, 4096) < 100);
}

static void cpu_helpers(void **state)
{
    (void)state;
    struct sim_err err = {0};
    struct hw_cpu c;
    assert_int_equal(hwprofile_load_cpu("epyc-7302p", DIR_, &c, &err), 0);
    /* cpuidle: residency decides, PM QoS caps the exit latency */
    assert_int_equal(hwprofile_cpu_idle_state(&c, 1), -1);
    assert_int_equal(hwprofile_cpu_idle_state(&c, 10), 0);
    assert_int_equal(hwprofile_cpu_idle_state(&c, 799), 0);
    assert_int_equal(hwprofile_cpu_idle_state(&c, 5000), 1);
    assert_int_equal(hwprofile_set(HWPROFILE_CPU, &c, "cpu_dma_latency_us", "10", &err), 0);
    assert_int_equal(hwprofile_cpu_idle_state(&c, 5000), 0);
    assert_int_equal(hwprofile_set(HWPROFILE_CPU, &c, "cpu_dma_latency_us", "0", &err), 0);
    assert_int_equal(hwprofile_cpu_idle_state(&c, 5000), -1);

    /* costs are us at ref_clock_ghz: a 2.1 GHz core is 3.0/2.1 slower */
    struct hw_cpu vm;
    assert_int_equal(hwprofile_load_cpu("lab-vm", DIR_, &vm, &err), 0);
    assert_true(fabs(hwprofile_cpu_cost_scale(&vm, vm.base_clock_ghz) - 3.0 / 2.1) < 1e-12);
    assert_true(fabs(hwprofile_cpu_cost_scale(&c, 3.0) - 1.0) < 1e-12);
    const struct hw_governor *g = hwprofile_cpu_governor(&c, HWPROFILE_GOV_POWERSAVE);
    assert_non_null(g);
    assert_true(hwprofile_cpu_cost_scale(&c, g->max_clock_ghz) > 1.9);
}

static void set_overrides_are_checked(void **state)
{
    (void)state;
    struct sim_err err = {0};
    struct hw_nvme d;
    assert_int_equal(hwprofile_load_nvme("pm983", DIR_, &d, &err), 0);
    assert_int_equal(hwprofile_set(HWPROFILE_NVME, &d, "write_latency_us", "30", &err), 0);
    assert_true(fabs(d.write_latency_us - 30) < 1e-12);
    assert_int_equal(hwprofile_set(HWPROFILE_NVME, &d, "write_latency_us", "-3", &err), -ERANGE);
    assert_has(err.msg, "--set: hw.nvme.write_latency_us: -3 is out of range [0.1, 100000]");
    assert_true(fabs(d.write_latency_us - 30) < 1e-12); /* unchanged */
    assert_true(hwprofile_set(HWPROFILE_NVME, &d, "write_latncy_us", "3", &err) < 0);
    assert_has(err.msg, "unknown key (did you mean 'write_latency_us'?)");
    /* cross-field rule: a spike probability needs a spike size */
    assert_true(hwprofile_set(HWPROFILE_NVME, &d, "tail_spike_prob", "0.001", &err) < 0);
    assert_has(err.msg, "pm983.json (after --set hw.nvme.tail_spike_prob=0.001): tail_spike_us:");
    assert_true(fabs(d.tail_spike_prob) < 1e-12);
    assert_int_equal(hwprofile_set(HWPROFILE_NVME, &d, "tail_spike_us", "5000", &err), 0);
    assert_int_equal(hwprofile_set(HWPROFILE_NVME, &d, "tail_spike_prob", "0.001", &err), 0);

    struct hw_cpu c;
    assert_int_equal(hwprofile_load_cpu("epyc-7302p", DIR_, &c, &err), 0);
    assert_true(hwprofile_set(HWPROFILE_CPU, &c, "boost_clock_ghz", "2.5", &err) < 0);
    assert_has(err.msg, "boost_clock_ghz: 2.5 is below base_clock_ghz 3");
    assert_int_equal(hwprofile_set(HWPROFILE_CPU, &c, "default_governor", "performance", &err), 0);
    assert_int_equal(c.default_governor, HWPROFILE_GOV_PERFORMANCE);

    struct hw_host *h = calloc(1, sizeof *h);
    assert_int_equal(hwprofile_load_host("lab", DIR_, h, &err), 0);
    assert_true(hwprofile_set(HWPROFILE_HOST, h, "nvme", "pm983", &err) < 0);
    assert_int_equal(hwprofile_set(HWPROFILE_HOST, h, "drives_per_host", "2", &err), 0);
    assert_int_equal(h->drives_per_host, 2);
    free(h);
}

/*
 * A sequential latency the profile leaves out defaults to the random one and
 * follows it under --set (lab-calibrated gives none); one the profile gives
 * (pm983: 15 / 15 us, datasheet) stays; setting it marks it given.  The
 * descriptive fields say so in their help (PARAM_DESCRIPTIVE), the modelled
 * ones do not.
 */
static void sequential_latency_follows_random_unless_given(void **state)
{
    (void)state;
    struct sim_err err = {0};
    struct hw_nvme d;
    assert_int_equal(hwprofile_load_nvme("lab-calibrated", DIR_, &d, &err), 0);
    assert_false(d.seq_write_given || d.seq_read_given);
    assert_true(d.seq_write_latency_us == d.write_latency_us && d.seq_read_latency_us == d.read_latency_us);
    assert_int_equal(hwprofile_set(HWPROFILE_NVME, &d, "write_latency_us", "30", &err), 0);
    assert_true(d.seq_write_latency_us == 30);
    assert_int_equal(hwprofile_set(HWPROFILE_NVME, &d, "read_latency_us", "40", &err), 0);
    assert_true(d.seq_read_latency_us == 40);
    assert_int_equal(hwprofile_set(HWPROFILE_NVME, &d, "seq_write_latency_us", "9", &err), 0);
    assert_int_equal(hwprofile_set(HWPROFILE_NVME, &d, "write_latency_us", "31", &err), 0);
    assert_true(d.seq_write_latency_us == 9 && d.seq_write_given);
    assert_int_equal(hwprofile_load_nvme("pm983", DIR_, &d, &err), 0);
    assert_true(d.seq_write_given && d.seq_write_latency_us == 15 && d.seq_read_latency_us == 15);
    assert_int_equal(hwprofile_set(HWPROFILE_NVME, &d, "write_latency_us", "30", &err), 0);
    assert_true(d.seq_write_latency_us == 15);

    static const char *const descriptive[] = {"model", "l3_mb", "capacity_gb", "memory_gib"};
    static const char *const modelled[] = {"threads", "smt_pair_throughput", "base_clock_ghz",
                                           "boost_clock_ghz", "all_core_clock_ghz", "ccx_cores",
                                           "cross_ccx_wake_extra_us", "seq_read_latency_us",
                                           "seq_write_latency_us"};
    for (int k = 0; k < HWPROFILE_KIND_COUNT; k++)
        for (const struct param_def *p = hwprofile_params((enum hwprofile_kind)k); p->name; p++) {
            for (size_t i = 0; i < sizeof descriptive / sizeof descriptive[0]; i++)
                if (!strcmp(p->name, descriptive[i]) && !param_is_descriptive(p))
                    fail_msg("%s.%s should be descriptive", hwprofile_kind_name(k), p->name);
            for (size_t i = 0; i < sizeof modelled / sizeof modelled[0]; i++)
                if (!strcmp(p->name, modelled[i]) && param_is_descriptive(p))
                    fail_msg("%s.%s is modelled", hwprofile_kind_name(k), p->name);
        }
    /* SMT's pair throughput is optional, 1.25 [est], within [1, 2] */
    struct hw_cpu c;
    assert_int_equal(hwprofile_load_cpu("epyc-7302p", DIR_, &c, &err), 0);
    assert_true(c.smt_pair_throughput == 1.25);
    assert_true(hwprofile_set(HWPROFILE_CPU, &c, "smt_pair_throughput", "2.5", &err) < 0);
}

static void resolved_parameters_to_json(void **state)
{
    (void)state;
    struct sim_err err = {0};
    struct hw_host *h = calloc(1, sizeof *h);
    assert_int_equal(hwprofile_load_host("lab", DIR_, h, &err), 0);
    cJSON *j = hwprofile_host_to_json(h);
    assert_non_null(j);
    assert_string_equal(cJSON_GetObjectItem(j, "profile")->valuestring, "lab");
    assert_int_equal((int)cJSON_GetObjectItem(j, "drives_per_host")->valuedouble, 1);
    const cJSON *cpu = cJSON_GetObjectItem(j, "cpu");
    assert_true(cJSON_IsObject(cpu));
    assert_string_equal(cJSON_GetObjectItem(cpu, "profile")->valuestring, "lab-vm");
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(cpu, "cstates")), 2);
    assert_string_equal(cJSON_GetObjectItem(cpu, "default_governor")->valuestring, "performance");
    const cJSON *nvme = cJSON_GetObjectItem(j, "nvme");
    assert_true(fabs(cJSON_GetObjectItem(nvme, "write_latency_us")->valuedouble - 28.5) < 1e-12);
    const cJSON *pct = cJSON_GetObjectItem(nvme, "flush_latency_pct_us");
    assert_int_equal(cJSON_GetArraySize(pct), 17);
    assert_true(fabs(cJSON_GetArrayItem(cJSON_GetArrayItem(pct, 6), 1)->valuedouble - 97.792) <
                1e-12);
    assert_string_equal(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "switch"), "mode")->valuestring,
                        "none");
    cJSON_Delete(j);

    /* a part's JSON (minus "profile") binds back to the same values */
    struct hw_nic n;
    assert_int_equal(hwprofile_load_nic("25gbe", DIR_, &n, &err), 0);
    cJSON *nj = hwprofile_nic_to_json(&n);
    cJSON_DeleteItemFromObject(nj, "profile");
    cJSON_DeleteItemFromObject(nj, "source");
    struct hw_nic back;
    memset(&back, 0, sizeof back);
    assert_int_equal(paramjson_bind(hwprofile_params(HWPROFILE_NIC), &back, nj, NULL, "x", "",
                                     &err), 0);
    assert_true(back.line_rate_gbps == n.line_rate_gbps);
    assert_int_equal(back.header_bytes, n.header_bytes);
    assert_string_equal(back.model, n.model);
    cJSON_Delete(nj);
    free(h);
}

static void param_tables_print(void **state)
{
    (void)state;
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    hwprofile_print_params(f, false);
    fclose(f);
    assert_has(buf, "[hw.cpu.cstates[]]");
    assert_has(buf, "write_latency_us");
    assert_has(buf, "line_rate_gbps");
    assert_has(buf, "\"source\"");
    free(buf);
    for (int k = 0; k < HWPROFILE_KIND_COUNT; k++) {
        const struct param_def *d = hwprofile_params((enum hwprofile_kind)k);
        assert_non_null(d);
        for (; d->name; d++)
            assert_non_null(d->help);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_shipped_profile_loads),
        cmocka_unit_test(required_short_names_resolve),
        cmocka_unit_test(datasheet_values_arrive_exactly),
        cmocka_unit_test(lab_virtio_tables_from_baseline),
        cmocka_unit_test(host_resolves_its_parts),
        cmocka_unit_test(malformed_profiles_give_file_and_path),
        cmocka_unit_test(unknown_names_list_alternatives),
        cmocka_unit_test(profiles_dir_lookup),
        cmocka_unit_test(serialisation_time_from_line_rate),
        cmocka_unit_test(cpu_helpers),
        cmocka_unit_test(set_overrides_are_checked),
        cmocka_unit_test(sequential_latency_follows_random_unless_given),
        cmocka_unit_test(resolved_parameters_to_json),
        cmocka_unit_test(param_tables_print),
    };
    return cmocka_run_group_tests_name("hwprofile", tests, NULL, NULL);
}
