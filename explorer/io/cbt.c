/*
 * cbt.c - cbt's librbdfio benchmark YAML as runs (see cbt.h).
 *
 * The anchor is cbt's own code (ceph/cbt, benchmark/librbdfio.py and
 * benchmarkfactory.py): its defaults are LibrbdFio.__init__'s (mode write,
 * op_size 4 MiB, iodepth 16, numjobs 1, volumes_per_client 1,
 * procs_per_volume 1, rwmixread 50, vol_size 65536 MB, vol_object_size 22),
 * and a run is what mkfiocmd puts on fio's command line.
 */
#include "cbt.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fiojob.h"
#include "scenario.h"
#include "yaml.h"

#define CBT_MAX_ROWS 100000

struct cbt_ctx {
    const char *file;
    struct cbt_plan *pl;
    const cJSON *pool_profiles;  /* cluster.pool_profiles, may be NULL */
    const cJSON *erasure_profiles; /* cluster.erasure_profiles, may be NULL */
    const cJSON *librbdfio;
    int n_clients;               /* fio runs on every client: 1 when the list is absent */
    int client_hosts;            /* cluster.client_hosts to set, -1: leave the scenario's */
    bool clients_on_osd_hosts;   /* every OSD host is one of cbt's clients */
    int hosts, osds_per_host;    /* -1: leave the scenario's */
    bool warned_pool;
};

static void note(struct cbt_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(struct cbt_ctx *c, const char *fmt, ...)
{
    char buf[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    for (int i = 0; i < c->pl->n_notes; i++)
        if (!strcmp(c->pl->notes[i], buf))
            return;
    c->pl->notes = sim_xrealloc(c->pl->notes, (size_t)c->pl->n_notes + 1, sizeof *c->pl->notes);
    c->pl->notes[c->pl->n_notes++] = sim_xstrdup(buf);
}

/* "KEY: ignored: REASON", keys with one reason on one line ("a, b: ignored: ..."). */
static void ignored(struct cbt_ctx *c, const char *key, const char *reason)
{
    char tail[500];
    snprintf(tail, sizeof tail, ": ignored: %s", reason);
    for (int i = 0; i < c->pl->n_notes; i++) {
        char *n = c->pl->notes[i], *at = strstr(n, ": ignored: ");
        if (at && !strcmp(at, tail)) {
            for (const char *q = n; q < at;) {
                size_t kl = strcspn(q, ",:");
                if (kl == strlen(key) && !strncmp(q, key, kl))
                    return; /* listed already */
                q += kl;
                q += strspn(q, ", ");
                if (*q == ':')
                    break;
            }
            size_t len = strlen(n) + strlen(key) + 3;
            char *m = sim_xcalloc(len, 1);
            snprintf(m, len, "%.*s, %s%s", (int)(at - n), n, key, at);
            free(n);
            c->pl->notes[i] = m;
            return;
        }
    }
    note(c, "%s%s", key, tail);
}

/* ---- what is ignored, and why -------------------------------------------- */

struct key_reason {
    const char *key;
    const char *reason;
};

static const struct key_reason librbdfio_ignored[] = {
    {"cmd_path", "the fio binary cbt starts: cephsim plays fio's rbd engine itself"},
    {"poolname", "the pool's name: the scenario's pool is the one simulated"},
    {"no_sudo", "how cbt starts fio: no effect on the I/O"},
    {"idle_monitor_sleep", "an idle pause before the runs: no effect on the I/O"},
    {"wait_pgautoscaler_timeout", "cbt waits for the PG autoscaler: the simulated pool has its final pg_num from the start"},
    {"fio_out_format", "results go to the sweep database (cephsim run writes fio.json)"},
    {"log_avg_msec", "fio's per-interval logs: a sweep keeps summaries, not logs"},
    {"log_iops", "fio's per-interval logs: a sweep keeps summaries, not logs"},
    {"log_bw", "fio's per-interval logs: a sweep keeps summaries, not logs"},
    {"log_lat", "fio's per-interval logs: a sweep keeps summaries, not logs"},
    {"prefill", "cbt's prefill pass writes the images before the runs; it is not measured and not simulated"},
    {"osd_ra", "read-ahead of the OSDs' data devices (read_ahead_kb): BlueStore reads them with O_DIRECT, "
               "where block-device read-ahead does not apply"},
    {"pgs", "read by cbt's librbdfio but unused (the pool's PG count is pool_profiles' pg_size)"},
    {"recov_pool_profile", "only used with cluster.recovery_test"},
    {"recov_test_type", "only used with cluster.recovery_test"},
    {"recov_pool_name", "only used with cluster.recovery_test"},
    {"valgrind", "runs the daemons under valgrind: a debugging aid"},
    {"acceptable", "cbt's pass/fail thresholds on its own results: not checked here"},
    {"iterations", "not read by cbt's librbdfio (cbt repeats runs by cluster.iterations)"},
    {NULL, NULL}};

/* Keys of librbdfio read below. */
static const char *const librbdfio_used[] = {
    "mode", "op_size", "time", "ramp", "time_based", "iodepth", "total_iodepth", "rwmixread", "numjobs",
    "procs_per_volume", "volumes_per_client", "vol_size", "vol_object_size", "random_distribution", "rate_iops",
    "norandommap", "use_existing_volumes", "rbdname", "pool_profile", "end_fsync", "workloads",
    "data_pool_profile", NULL};

/* Keys of a workload that LibrbdFio.run_workloads applies. */
static const char *const workload_used[] = {"jobname", "mode", "op_size", "numjobs", "iodepth", "total_iodepth",
                                            "volumes_per_client", "monitor", "pre_workload_script", NULL};

static const struct key_reason cluster_ignored[] = {
    {"user", "how cbt reaches the hosts"},
    {"head", "how cbt reaches the hosts"},
    {"mons", "monitors are not on the simulated op path"},
    {"mgrs", "managers are not on the simulated op path"},
    {"rgws", "no RGW in an RBD benchmark"},
    {"mdss", "no MDS in an RBD benchmark"},
    {"clusterid", "the cluster's name"},
    {"tmp_dir", "cbt's working directory"},
    {"pid_dir", "cbt's working directory"},
    {"archive_dir", "cbt's output directory"},
    {"use_existing", "whether cbt deploys the cluster: the simulated one always exists"},
    {"conf_file", "the ceph.conf cbt deploys with: give its options as ceph.* in the scenario"},
    {"pdsh_ssh_args", "how cbt reaches the hosts"},
    {"fs", "the OSD data filesystem of FileStore deployments: BlueStore has none"},
    {"mkfs_opts", "the OSD data filesystem of FileStore deployments: BlueStore has none"},
    {"mount_opts", "the OSD data filesystem of FileStore deployments: BlueStore has none"},
    {"rebuild_every_test", "cbt redeploys between tests: every simulated run starts fresh"},
    {NULL, NULL}};

static const char *reason_for(const struct key_reason *t, const char *key)
{
    for (; t->key; t++)
        if (!strcmp(t->key, key))
            return t->reason;
    return NULL;
}

static bool in_list(const char *const *l, const char *key)
{
    for (; *l; l++)
        if (!strcmp(*l, key))
            return true;
    return false;
}

/* ---- values ----------------------------------------------------------------- */

/* A number, or a string int() reads (cbt casts with int()). */
static int get_num(const cJSON *cfg, const char *key, double def, double lo, double hi, double *out,
                   const char *file, const char *jp, struct sim_err *err)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(cfg, key);
    if (!v || cJSON_IsNull(v)) {
        *out = def;
        return 0;
    }
    double x = NAN;
    if (cJSON_IsNumber(v))
        x = v->valuedouble;
    else if (cJSON_IsString(v)) {
        char *end;
        x = strtod(v->valuestring, &end);
        if (end == v->valuestring || *end)
            x = NAN;
    }
    if (!(x >= lo && x <= hi) || x != floor(x))
        return sim_errf(err, -EINVAL, "%s: %s.%s: expected an integer in %.0f..%.0f", file, jp, key, lo, hi);
    *out = x;
    return 0;
}

static bool truthy(const cJSON *v)
{
    if (!v || cJSON_IsNull(v) || cJSON_IsFalse(v))
        return false;
    if (cJSON_IsNumber(v))
        return v->valuedouble != 0;
    if (cJSON_IsString(v))
        return v->valuestring[0] != '\0'; /* Python's bool() of a string */
    return true;
}

static void put_num(cJSON *row, const char *path, double v)
{
    cJSON_AddNumberToObject(row, path, v);
}

/* ---- cluster ------------------------------------------------------------------ */

static bool str_in_array(const cJSON *arr, const char *s)
{
    const cJSON *v;
    cJSON_ArrayForEach(v, arr)
        if (cJSON_IsString(v) && !strcmp(v->valuestring, s))
            return true;
    return false;
}

/* A host list may be a list of names or one name (cbt's settings.getnodes joins either). */
static int host_count(const cJSON *v)
{
    if (cJSON_IsArray(v))
        return cJSON_GetArraySize(v);
    if (cJSON_IsString(v))
        return 1;
    if (cJSON_IsObject(v))
        return cJSON_GetArraySize(v); /* mons: {host: {name: addr}} */
    return 0;
}

static int read_cluster(struct cbt_ctx *c, const cJSON *cl, struct sim_err *err)
{
    c->n_clients = 1;
    c->client_hosts = c->hosts = c->osds_per_host = -1;
    if (!cl)
        return 0;
    if (!cJSON_IsObject(cl))
        return sim_errf(err, -EINVAL, "%s: cluster: expected a mapping", c->file);
    for (const cJSON *k = cl->child; k; k = k->next) {
        const char *key = k->string, *why;
        char jkey[300];
        snprintf(jkey, sizeof jkey, "cluster.%s", key);
        if (!strcmp(key, "osds_per_node")) {
            double n;
            int rc = get_num(cl, key, 1, 1, 64, &n, c->file, "cluster", err);
            if (rc < 0)
                return rc;
            c->osds_per_host = (int)n;
        } else if (!strcmp(key, "osds")) {
            c->hosts = host_count(k);
            if (c->hosts < 1)
                return sim_errf(err, -EINVAL, "%s: cluster.osds: expected a list of hosts", c->file);
        } else if (!strcmp(key, "clients")) {
            c->n_clients = host_count(k);
            if (c->n_clients < 1)
                return sim_errf(err, -EINVAL, "%s: cluster.clients: expected a list of hosts", c->file);
        } else if (!strcmp(key, "pool_profiles")) {
            if (!cJSON_IsObject(k))
                return sim_errf(err, -EINVAL, "%s: cluster.pool_profiles: expected a mapping of profiles", c->file);
            c->pool_profiles = k;
        } else if (!strcmp(key, "erasure_profiles")) {
            if (!cJSON_IsObject(k))
                return sim_errf(err, -EINVAL, "%s: cluster.erasure_profiles: expected a mapping of profiles", c->file);
            c->erasure_profiles = k;
        } else if (!strcmp(key, "iterations")) {
            double n;
            int rc = get_num(cl, key, 1, 0, 1000, &n, c->file, "cluster", err);
            if (rc < 0)
                return rc;
            if (n == 0)
                return sim_errf(err, -EINVAL, "%s: cluster.iterations: 0 (cbt would run nothing)", c->file);
            c->pl->iterations = (int)n;
        } else if (!strcmp(key, "recovery_test")) {
            return sim_errf(err, -EINVAL, "%s: cluster.recovery_test: OSD failures and recovery are not simulated "
                            "by cephsim (remove it to sweep the benchmark without recovery)", c->file);
        } else if ((why = reason_for(cluster_ignored, key))) {
            ignored(c, jkey, why);
        } else if (strlen(key) > 4 && !strcmp(key + strlen(key) - 4, "_cmd")) {
            ignored(c, jkey, "command paths of cbt's deployment");
        } else {
            ignored(c, jkey, "no counterpart in cephsim's model");
        }
    }
    const cJSON *clients = cJSON_GetObjectItemCaseSensitive(cl, "clients");
    const cJSON *osds = cJSON_GetObjectItemCaseSensitive(cl, "osds");
    if (clients) {
        int own = 0, n = 0;
        const cJSON *v;
        if (cJSON_IsString(clients))
            own = !(osds && (cJSON_IsString(osds) ? !strcmp(osds->valuestring, clients->valuestring)
                                                  : str_in_array(osds, clients->valuestring)));
        else
            cJSON_ArrayForEach(v, clients) {
                n++;
                if (!cJSON_IsString(v))
                    return sim_errf(err, -EINVAL, "%s: cluster.clients[%d]: expected a host name", c->file, n - 1);
                bool on_osd = osds && (cJSON_IsString(osds) ? !strcmp(osds->valuestring, v->valuestring)
                                                            : str_in_array(osds, v->valuestring));
                own += !on_osd;
            }
        if (own == 0 && c->n_clients == 1) {
            c->client_hosts = 0; /* fio on an OSD host, as in a one-box lab */
        } else if (own == 0 && c->hosts > 1 && c->n_clients == c->hosts) {
            c->client_hosts = 0; /* hyperconverged: fio on every OSD host */
            c->clients_on_osd_hosts = true;
        } else {
            c->client_hosts = c->n_clients;
            if (own < c->n_clients)
                note(c, "cluster.clients: %d of %d clients are also OSD hosts: cephsim gives every client a host of "
                        "its own (fio shares OSD hosts only when one client is OSD host 0 or every OSD host is a "
                        "client: cluster.clients_on_osd_hosts)", c->n_clients - own, c->n_clients);
        }
    }
    return 0;
}

/*
 * An erasure pool profile (replication: erasure) as cbt makes it
 * (cluster/ceph.py mkpool and the erasure_profiles loop): `osd pool create
 * NAME PG PGP erasure PROFILE`, the profile set with crush-failure-domain=osd
 * k=erasure_k m=erasure_m (defaults 6 and 2), allow_ec_overwrites only with
 * ec_overwrites: true, without which RBD cannot write its data there.
 */
static int erasure_facts(struct cbt_ctx *c, const cJSON *prof, const char *jp, cJSON *row, struct sim_err *err)
{
    const cJSON *ep = cJSON_GetObjectItemCaseSensitive(prof, "erasure_profile");
    if (!cJSON_IsString(ep))
        return sim_errf(err, -EINVAL, "%s: %s.erasure_profile: an erasure pool needs its profile's name", c->file, jp);
    if (!truthy(cJSON_GetObjectItemCaseSensitive(prof, "ec_overwrites")))
        return sim_errf(err, -EINVAL, "%s: %s.ec_overwrites: not true, so the pool has no allow_ec_overwrites and "
                        "RBD cannot keep its data there", c->file, jp);
    const cJSON *ec = cJSON_GetObjectItemCaseSensitive(c->erasure_profiles, ep->valuestring);
    char ejp[300];
    snprintf(ejp, sizeof ejp, "cluster.erasure_profiles.%s", ep->valuestring);
    if (!cJSON_IsObject(ec))
        return sim_errf(err, -EINVAL, "%s: %s: missing (%s.erasure_profile names it)", c->file, ejp, jp);
    double k, m;
    int rc;
    if ((rc = get_num(ec, "erasure_k", 6, 2, 31, &k, c->file, ejp, err)) < 0 ||
        (rc = get_num(ec, "erasure_m", 2, 1, 30, &m, c->file, ejp, err)) < 0)
        return rc;
    cJSON_AddStringToObject(row, "pool.type", "erasure");
    put_num(row, "pool.k", k);
    put_num(row, "pool.m", m);
    /* what the monitor gives an erasure pool, over whatever the base scenario's
       replicated pool has */
    put_num(row, "pool.size", k + m);
    put_num(row, "pool.min_size", (double)scenario_ec_min_size((int64_t)k, (int64_t)m));
    cJSON_AddStringToObject(row, "cluster.failure_domain", "osd");
    return 0;
}

/* pool.pg_num and pool.size (or an erasure pool's k and m) of the row's pool
   profile: the data pool's (data_pool_profile, `rbd create --data-pool`) when
   there is one, which holds what fio reads and writes, else the image's. */
/*
 * cbt runs its benchmark on the cluster as it stands: its pools' PGs were
 * active, so their copies fitted the OSDs and hosts cluster.osds and
 * osds_per_node describe.  The YAML does not say how (the cluster's ceph.conf
 * holds osd_pool_default_size and osd_crush_chooseleaf_type), so the row says
 * the least that makes it so, with a note: without pool_profiles.replication a
 * pool of Ceph's default size 3 on fewer OSDs has as many copies as OSDs
 * (vstart.sh's one-OSD clusters, as cbt's rbd_fio_test.yml uses), and copies
 * on fewer hosts than copies sit on distinct OSDs (chooseleaf type 0, as a
 * one-box cbt cluster is set up).
 */
static int pool_fits_cluster(struct cbt_ctx *c, cJSON *row)
{
    enum { OSD_POOL_DEFAULT_SIZE = 3 }; /* Ceph's osd_pool_default_size */
    if (c->hosts <= 0 || c->osds_per_host <= 0)
        return 0;
    int osds = c->hosts * c->osds_per_host;
    const cJSON *ps = cJSON_GetObjectItemCaseSensitive(row, "pool.size");
    if (!ps && osds < OSD_POOL_DEFAULT_SIZE) {
        put_num(row, "pool.size", osds);
        note(c, "cluster.osds, osds_per_node: %d OSD%s and no pool_profiles replication: pool.size %d (a pool of "
                "Ceph's default size 3 would not go active on them; the cluster's ceph.conf sets it)",
             osds, osds == 1 ? "" : "s", osds);
        ps = cJSON_GetObjectItemCaseSensitive(row, "pool.size");
    }
    double size = ps ? ps->valuedouble : OSD_POOL_DEFAULT_SIZE;
    if (c->hosts < size) {
        cJSON_AddStringToObject(row, "cluster.failure_domain", "osd");
        note(c, "cluster.osds: %d host%s for %.0f copies: cluster.failure_domain osd (their PGs went active, so "
                "the cluster's CRUSH rule picks OSDs, osd_crush_chooseleaf_type 0)",
             c->hosts, c->hosts == 1 ? "" : "s", size);
    }
    return 0;
}

static int pool_facts(struct cbt_ctx *c, const cJSON *cfg, cJSON *row, struct sim_err *err)
{
    const cJSON *dp = cJSON_GetObjectItemCaseSensitive(cfg, "data_pool_profile");
    if (dp && !cJSON_IsNull(dp) && !cJSON_IsString(dp))
        return sim_errf(err, -EINVAL, "%s: benchmarks.librbdfio.data_pool_profile: expected a profile name", c->file);
    const cJSON *pp = cJSON_IsString(dp) ? dp : cJSON_GetObjectItemCaseSensitive(cfg, "pool_profile");
    const char *name = cJSON_IsString(pp) ? pp->valuestring : "default";
    if (pp && !cJSON_IsString(pp))
        return sim_errf(err, -EINVAL, "%s: benchmarks.librbdfio.pool_profile: expected a profile name", c->file);
    const cJSON *prof = cJSON_GetObjectItemCaseSensitive(c->pool_profiles, name);
    if (!prof) {
        if (!c->warned_pool)
            note(c, "benchmarks.librbdfio.pool_profile: cluster.pool_profiles has no '%s': the scenario's pool "
                    "(pool.pg_num, pool.size) is used", name);
        c->warned_pool = true;
        return 0;
    }
    char jp[300];
    snprintf(jp, sizeof jp, "cluster.pool_profiles.%s", name);
    if (!cJSON_IsObject(prof))
        return sim_errf(err, -EINVAL, "%s: %s: expected a mapping", c->file, jp);
    for (const cJSON *k = prof->child; k; k = k->next) {
        if (!strcmp(k->string, "pg_size")) {
            double n;
            int rc = get_num(prof, "pg_size", 0, 1, 65536, &n, c->file, jp, err);
            if (rc < 0)
                return rc;
            put_num(row, "pool.pg_num", n);
        } else if (!strcmp(k->string, "replication")) {
            if (cJSON_IsString(k) && !strcmp(k->valuestring, "erasure")) {
                int rc = erasure_facts(c, prof, jp, row, err);
                if (rc < 0)
                    return rc;
                continue;
            }
            double n;
            int rc = get_num(prof, "replication", 3, 1, 10, &n, c->file, jp, err);
            if (rc < 0)
                return rc;
            put_num(row, "pool.size", n);
        } else if (!strcmp(k->string, "erasure_profile") || !strcmp(k->string, "ec_overwrites")) {
            continue; /* read with replication: erasure */
        } else if (!strcmp(k->string, "pgp_size")) {
            const cJSON *pg = cJSON_GetObjectItemCaseSensitive(prof, "pg_size");
            if (!cJSON_Compare(pg, k, true))
                note(c, "%s.pgp_size: ignored: placement follows pg_size (pgp_num = pg_num in cephsim)", jp);
        } else {
            note(c, "%s.%s: ignored: no counterpart in cephsim's pool model", jp, k->string);
        }
    }
    return 0;
}

/* ---- one run ------------------------------------------------------------------ */

static bool mixed_mode(const char *m)
{
    return !strcmp(m, "readwrite") || !strcmp(m, "randrw"); /* mkfiocmd passes rwmixread for these only */
}

/* The overrides of the fio command mkfiocmd builds from the scalar config cfg. */
static int build_row(struct cbt_ctx *c, const cJSON *cfg, const char *jp, cJSON *row, struct sim_err *err)
{
    const char *f = c->file;
    int rc;
    double op_size, iodepth, numjobs, vpc, ppv, vol_size, order, mix;
    const cJSON *mode = cJSON_GetObjectItemCaseSensitive(cfg, "mode");
    if (mode && !cJSON_IsString(mode))
        return sim_errf(err, -EINVAL, "%s: %s.mode: expected a fio rw mode (read, write, randread, ...)", f, jp);
    const char *m = mode ? mode->valuestring : "write";
    /* fio's own check of the mode, named at the YAML key it came from (not at the
       fio.rw override the row becomes) */
    struct fio_jobfile probe = {0};
    struct sim_err bad = {0};
    if (fiojob_set(&probe, "rw", m, &bad) < 0) {
        const char *why = strstr(bad.msg, ": ");
        return sim_errf(err, -EINVAL, "%s: %s.mode: %s", f, jp, why ? why + 2 : bad.msg);
    }
    bool total = cJSON_GetObjectItemCaseSensitive(cfg, "total_iodepth") != NULL;
    if ((rc = get_num(cfg, "op_size", 4194304, 1, 1 << 30, &op_size, f, jp, err)) < 0 ||
        (rc = get_num(cfg, total ? "total_iodepth" : "iodepth", 16, 1, 65536, &iodepth, f, jp, err)) < 0 ||
        (rc = get_num(cfg, "numjobs", 1, 1, 4096, &numjobs, f, jp, err)) < 0 ||
        (rc = get_num(cfg, "volumes_per_client", 1, 1, 4096, &vpc, f, jp, err)) < 0 ||
        (rc = get_num(cfg, "procs_per_volume", 1, 1, 4096, &ppv, f, jp, err)) < 0 ||
        (rc = get_num(cfg, "vol_size", 65536, 4, 1e9, &vol_size, f, jp, err)) < 0 ||
        (rc = get_num(cfg, "vol_object_size", 22, 12, 26, &order, f, jp, err)) < 0 ||
        (rc = get_num(cfg, "rwmixread", 50, 0, 100, &mix, f, jp, err)) < 0)
        return rc;
    if (total) {
        /* _calculate_iodepth_per_volume_from_total_iodepth: fewer volumes than 1 each, else an even split */
        if (vpc > iodepth) {
            note(c, "%s.total_iodepth: %.0f is less than one per volume: cbt reduces volumes_per_client from %.0f to %.0f",
                 jp, iodepth, vpc, iodepth);
            vpc = iodepth;
        }
        if (fmod(iodepth, vpc) != 0)
            return sim_errf(err, -EINVAL, "%s: %s.total_iodepth: %.0f over %.0f volumes gives the volumes unequal "
                            "iodepths (cbt adds the remainder to the first ones); cephsim runs one iodepth for every "
                            "job: use a multiple of volumes_per_client", f, jp, iodepth, vpc);
        iodepth /= vpc;
    }
    const cJSON *rbdname = cJSON_GetObjectItemCaseSensitive(cfg, "rbdname");
    bool shared = truthy(cJSON_GetObjectItemCaseSensitive(cfg, "use_existing_volumes")) && cJSON_IsString(rbdname) &&
                  rbdname->valuestring[0];
    if (shared && vpc > 1)
        note(c, "%s.rbdname: with use_existing_volumes every fio cbt starts opens image '%s': the %.0f volumes per "
                "client are one image (clients.volumes_per_client=0)", jp, rbdname->valuestring, vpc);
    if ((rc = pool_facts(c, cfg, row, err)) < 0)
        return rc;
    if ((rc = pool_fits_cluster(c, row)) < 0)
        return rc;
    if (c->hosts > 0)
        put_num(row, "cluster.hosts", c->hosts);
    if (c->osds_per_host > 0)
        put_num(row, "cluster.osds_per_host", c->osds_per_host);
    if (c->client_hosts >= 0)
        put_num(row, "cluster.client_hosts", c->client_hosts);
    if (c->clients_on_osd_hosts)
        cJSON_AddTrueToObject(row, "cluster.clients_on_osd_hosts");
    cJSON_AddStringToObject(row, "fio.rw", m);
    put_num(row, "fio.bs", op_size);
    put_num(row, "fio.iodepth", iodepth);
    put_num(row, "fio.numjobs", numjobs * ppv * vpc * c->n_clients);
    put_num(row, "clients.volumes_per_client", shared ? 0 : vpc);
    put_num(row, "fio.rwmixread", mixed_mode(m) ? mix : 50); /* 50: fio's default, what fio uses without it */
    const cJSON *v;
    if ((v = cJSON_GetObjectItemCaseSensitive(cfg, "time")) && !cJSON_IsNull(v)) {
        double t;
        if ((rc = get_num(cfg, "time", 0, 1, 1e7, &t, f, jp, err)) < 0)
            return rc;
        put_num(row, "fio.runtime", t);
        note(c, "benchmarks.librbdfio.time: fio.runtime; the simulated time is the scenario's sim.duration_s "
                "when it sets one (0: the runtime)");
    }
    if ((v = cJSON_GetObjectItemCaseSensitive(cfg, "ramp")) && !cJSON_IsNull(v)) {
        double t;
        if ((rc = get_num(cfg, "ramp", 0, 0, 1e7, &t, f, jp, err)) < 0)
            return rc;
        put_num(row, "fio.ramp_time", t);
    }
    cJSON_AddBoolToObject(row, "fio.time_based", truthy(cJSON_GetObjectItemCaseSensitive(cfg, "time_based")));
    put_num(row, "image.size_gib", vol_size / 1024.0);
    put_num(row, "image.order", order);
    double fs;
    if ((rc = get_num(cfg, "end_fsync", 0, 0, 1e9, &fs, f, jp, err)) < 0)
        return rc;
    if (fs != 0)
        return sim_errf(err, -EINVAL, "%s: %s.end_fsync: fio's end_fsync is not modelled by cephsim (an fsync at "
                        "the end of each job)", f, jp);
    if ((v = cJSON_GetObjectItemCaseSensitive(cfg, "random_distribution")) && !cJSON_IsNull(v)) {
        if (!cJSON_IsString(v))
            return sim_errf(err, -EINVAL, "%s: %s.random_distribution: expected fio's text (zipf:1.2, ...)", f, jp);
        cJSON_AddStringToObject(row, "fio.random_distribution", v->valuestring);
    }
    if ((v = cJSON_GetObjectItemCaseSensitive(cfg, "rate_iops")) && !cJSON_IsNull(v)) {
        double r;
        if ((rc = get_num(cfg, "rate_iops", 0, 1, 1e9, &r, f, jp, err)) < 0)
            return rc;
        put_num(row, "fio.rate_iops", r);
    }
    if (truthy(cJSON_GetObjectItemCaseSensitive(cfg, "norandommap")))
        cJSON_AddBoolToObject(row, "fio.norandommap", true);
    return 0;
}

static int add_row(struct cbt_ctx *c, cJSON *row, const char *label)
{
    struct cbt_plan *pl = c->pl;
    int n = cJSON_GetArraySize(pl->rows), i = 0;
    for (const cJSON *r = pl->rows->child; r; r = r->next, i++)
        if (cJSON_Compare(r, row, true) &&
            (!label || !strcmp(cJSON_GetArrayItem(pl->labels, i)->valuestring, label))) {
            cJSON_Delete(row);
            note(c, "benchmarks.librbdfio: some key combinations give the same fio command: each is run once");
            return 0;
        }
    if (n >= CBT_MAX_ROWS) {
        cJSON_Delete(row);
        return -E2BIG;
    }
    cJSON_AddItemToArray(pl->rows, row);
    if (label)
        cJSON_AddItemToArray(pl->labels, cJSON_CreateString(label));
    return 0;
}

/* ---- expansion -------------------------------------------------------------- */

static cJSON *as_list(const cJSON *v)
{
    if (cJSON_IsArray(v))
        return cJSON_Duplicate(v, 1);
    cJSON *a = cJSON_CreateArray();
    cJSON_AddItemToArray(a, v ? cJSON_Duplicate(v, 1) : cJSON_CreateNull());
    return a;
}

static int run_workloads(struct cbt_ctx *c, const cJSON *glob, const cJSON *wls, struct sim_err *err)
{
    int rc;
    for (const cJSON *w = wls->child; w; w = w->next) {
        char jp[300];
        snprintf(jp, sizeof jp, "benchmarks.librbdfio.workloads.%s", w->string);
        if (!cJSON_IsObject(w))
            return sim_errf(err, -EINVAL, "%s: %s: expected a mapping of fio options", c->file, jp);
        for (const cJSON *k = w->child; k; k = k->next) {
            char jkey[400];
            snprintf(jkey, sizeof jkey, "%s.%s", jp, k->string);
            if (!in_list(workload_used, k->string))
                ignored(c, jkey, "LibrbdFio.run_workloads applies only mode, op_size, numjobs, iodepth "
                                 "and volumes_per_client of a workload (as cbt does)");
            else if (!strcmp(k->string, "monitor"))
                ignored(c, jkey, "cbt's monitors are not simulated");
            else if (!strcmp(k->string, "pre_workload_script"))
                ignored(c, jkey, "a script cbt runs on the clients before the workload");
        }
        bool total = cJSON_GetObjectItemCaseSensitive(w, "total_iodepth") != NULL;
        const char *dkey = total ? "total_iodepth" : "iodepth";
        const cJSON *nj = cJSON_GetObjectItemCaseSensitive(w, "numjobs");
        const cJSON *qd = cJSON_GetObjectItemCaseSensitive(w, dkey);
        cJSON *njl = as_list(nj ? nj : cJSON_GetObjectItemCaseSensitive(glob, "numjobs"));
        cJSON *qdl = as_list(qd ? qd : cJSON_GetObjectItemCaseSensitive(glob, "iodepth"));
        const cJSON *j, *q;
        rc = 0;
        cJSON_ArrayForEach(j, njl) {
            cJSON_ArrayForEach(q, qdl) {
                cJSON *cfg = cJSON_Duplicate(glob, 1);
                cJSON_DeleteItemFromObjectCaseSensitive(cfg, "total_iodepth");
                static const char *const copied[] = {"mode", "op_size", "volumes_per_client", NULL};
                for (int i = 0; copied[i]; i++) {
                    const cJSON *v = cJSON_GetObjectItemCaseSensitive(w, copied[i]);
                    if (v) {
                        cJSON_DeleteItemFromObjectCaseSensitive(cfg, copied[i]);
                        cJSON_AddItemToObject(cfg, copied[i], cJSON_Duplicate(v, 1));
                    }
                }
                cJSON_DeleteItemFromObjectCaseSensitive(cfg, "numjobs");
                cJSON_DeleteItemFromObjectCaseSensitive(cfg, "iodepth");
                if (!cJSON_IsNull(j))
                    cJSON_AddItemToObject(cfg, "numjobs", cJSON_Duplicate(j, 1));
                if (!cJSON_IsNull(q))
                    cJSON_AddItemToObject(cfg, dkey, cJSON_Duplicate(q, 1));
                cJSON *row = cJSON_CreateObject();
                rc = build_row(c, cfg, jp, row, err);
                cJSON_Delete(cfg);
                if (rc < 0) {
                    cJSON_Delete(row);
                    break;
                }
                if ((rc = add_row(c, row, w->string)) < 0)
                    break;
            }
            if (rc < 0)
                break;
        }
        cJSON_Delete(njl);
        cJSON_Delete(qdl);
        if (rc == -E2BIG)
            return sim_errf(err, rc, "%s: more than %d runs", c->file, CBT_MAX_ROWS);
        if (rc < 0)
            return rc;
    }
    return 0;
}

/* benchmarkfactory.all_configs: the product of the list-valued keys, first key slowest. */
static int all_configs(struct cbt_ctx *c, const cJSON *lib, struct sim_err *err)
{
    const cJSON *lists[64];
    int n_lists = 0;
    for (const cJSON *k = lib->child; k; k = k->next)
        if (cJSON_IsArray(k) && strcmp(k->string, "acceptable")) {
            if (n_lists == 64)
                return sim_errf(err, -E2BIG, "%s: benchmarks.librbdfio: more than 64 list-valued keys", c->file);
            if (cJSON_GetArraySize(k) == 0)
                return sim_errf(err, -EINVAL, "%s: benchmarks.librbdfio.%s: an empty list (cbt would run nothing)",
                                c->file, k->string);
            lists[n_lists++] = k;
        }
    int digit[64] = {0};
    const cJSON *wls = cJSON_GetObjectItemCaseSensitive(lib, "workloads");
    if (wls && !cJSON_IsNull(wls) && (!cJSON_IsObject(wls) || !wls->child))
        return sim_errf(err, -EINVAL, "%s: benchmarks.librbdfio.workloads: expected a mapping of workloads", c->file);
    for (;;) {
        cJSON *cfg = cJSON_Duplicate(lib, 1);
        for (int i = 0; i < n_lists; i++) {
            cJSON_DeleteItemFromObjectCaseSensitive(cfg, lists[i]->string);
            cJSON_AddItemToObject(cfg, lists[i]->string, cJSON_Duplicate(cJSON_GetArrayItem(lists[i], digit[i]), 1));
        }
        int rc;
        if (wls && !cJSON_IsNull(wls)) {
            rc = run_workloads(c, cfg, wls, err);
        } else {
            cJSON *row = cJSON_CreateObject();
            rc = build_row(c, cfg, "benchmarks.librbdfio", row, err);
            if (rc < 0)
                cJSON_Delete(row);
            else if ((rc = add_row(c, row, NULL)) == -E2BIG)
                rc = sim_errf(err, rc, "%s: more than %d runs", c->file, CBT_MAX_ROWS);
        }
        cJSON_Delete(cfg);
        if (rc < 0)
            return rc;
        int i = n_lists - 1;
        for (; i >= 0; i--) {
            if (++digit[i] < cJSON_GetArraySize(lists[i]))
                break;
            digit[i] = 0;
        }
        if (i < 0)
            break;
    }
    return 0;
}

static int check_librbdfio_keys(struct cbt_ctx *c, const cJSON *lib, struct sim_err *err)
{
    for (const cJSON *k = lib->child; k; k = k->next) {
        const char *why;
        if (in_list(librbdfio_used, k->string))
            continue;
        char jkey[300];
        snprintf(jkey, sizeof jkey, "benchmarks.librbdfio.%s", k->string);
        if ((why = reason_for(librbdfio_ignored, k->string)))
            ignored(c, jkey, why);
        else
            ignored(c, jkey, "not read by cbt's librbdfio (as cbt ignores it)");
    }
    if (cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(lib, "workloads")))
        return sim_errf(err, -EINVAL, "%s: benchmarks.librbdfio.workloads: expected a mapping name: {options}",
                        c->file);
    return 0;
}

int cbt_plan_from_yaml(cJSON *yaml, const char *file, struct cbt_plan *pl, struct sim_err *err)
{
    memset(pl, 0, sizeof *pl);
    pl->yaml = yaml;
    pl->rows = cJSON_CreateArray();
    struct cbt_ctx c = {.file = file, .pl = pl};
    int rc;
    if (!cJSON_IsObject(yaml)) {
        rc = sim_errf(err, -EINVAL, "%s: expected a cbt benchmark file (a mapping with cluster: and benchmarks:)", file);
        goto fail;
    }
    for (const cJSON *k = yaml->child; k; k = k->next) {
        if (!strcmp(k->string, "cluster") || !strcmp(k->string, "benchmarks"))
            continue;
        if (!strcmp(k->string, "monitoring_profiles"))
            note(&c, "monitoring_profiles: ignored: cbt's monitors (collectl, perf, top) are not simulated; "
                     "cephsim writes perf dump and dump_historic_ops itself");
        else if (!strcmp(k->string, "client_endpoints"))
            note(&c, "client_endpoints: ignored: used by cbt's fio benchmark, not librbdfio");
        else
            note(&c, "%s: ignored: not a section cbt's librbdfio reads", k->string);
    }
    const cJSON *bm = cJSON_GetObjectItemCaseSensitive(yaml, "benchmarks");
    if (!cJSON_IsObject(bm)) {
        rc = sim_errf(err, -EINVAL, "%s: benchmarks: missing (cbt's benchmarks: librbdfio: section is what runs)", file);
        goto fail;
    }
    const cJSON *lib = NULL;
    for (const cJSON *b = bm->child; b; b = b->next) {
        if (!strcmp(b->string, "librbdfio"))
            lib = b;
        else
        {
            char jkey[300];
            snprintf(jkey, sizeof jkey, "benchmarks.%s", b->string);
            ignored(&c, jkey, "cephsim simulates cbt's librbdfio benchmark only");
        }
    }
    if (!lib) {
        rc = sim_errf(err, -EINVAL, "%s: benchmarks.librbdfio: missing (cephsim simulates cbt's librbdfio benchmark "
                      "only)", file);
        goto fail;
    }
    if (cJSON_IsNull(lib)) {
        cJSON *empty = cJSON_CreateObject();
        cJSON_ReplaceItemInObjectCaseSensitive((cJSON *)bm, "librbdfio", empty);
        lib = empty;
    }
    if (!cJSON_IsObject(lib)) {
        rc = sim_errf(err, -EINVAL, "%s: benchmarks.librbdfio: expected a mapping of options", file);
        goto fail;
    }
    if (cJSON_GetObjectItemCaseSensitive(lib, "workloads"))
        pl->labels = cJSON_CreateArray();
    c.librbdfio = lib;
    if ((rc = read_cluster(&c, cJSON_GetObjectItemCaseSensitive(yaml, "cluster"), err)) < 0 ||
        (rc = check_librbdfio_keys(&c, lib, err)) < 0 || (rc = all_configs(&c, lib, err)) < 0)
        goto fail;
    if (cJSON_GetArraySize(pl->rows) == 0) {
        rc = sim_errf(err, -EINVAL, "%s: benchmarks.librbdfio: no runs", file);
        goto fail;
    }
    return 0;
fail:
    cbt_plan_free(pl);
    return rc;
}

int cbt_plan_load(const char *path, struct cbt_plan *pl, struct sim_err *err)
{
    memset(pl, 0, sizeof *pl);
    cJSON *y = yaml_load_file(path, err);
    if (!y)
        return err && err->code ? err->code : -EINVAL;
    return cbt_plan_from_yaml(y, path, pl, err);
}

void cbt_plan_free(struct cbt_plan *pl)
{
    cJSON_Delete(pl->yaml);
    cJSON_Delete(pl->rows);
    cJSON_Delete(pl->labels);
    for (int i = 0; i < pl->n_notes; i++)
        free(pl->notes[i]);
    free(pl->notes);
    memset(pl, 0, sizeof *pl);
}
