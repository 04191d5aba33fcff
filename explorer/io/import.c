/*
 * import.c - a scenario from a real cluster's outputs (see import.h).
 *
 * Where the numbers come from, per Ceph 16.2 (src/osd/OSD.cc, src/common/options.cc):
 *  - OSD::get_num_op_shards(): osd_op_num_shards when non-zero, else the _ssd or
 *    _hdd variant by the store's rotational flag; the same for
 *    osd_op_num_threads_per_shard.  The model has the SSD path, so the generic
 *    option sets ceph.osd_op_num_shards_ssd.
 *  - debug_X = "log/gather": an entry is built when its level is <= the larger
 *    of the two (should_gather), which is the level the model charges for.
 *  - bluestore_min_alloc_size is fixed at mkfs and reported per OSD in
 *    `ceph osd metadata`: it overrides whatever the config says now.
 *  - sizes in options take IEC suffixes (strict_iec_cast: 4K = 4096).
 */
#include "import.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <glob.h>
#include <libgen.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "files.h"
#include "hwprofile.h"
#include "jsonu.h"
#include "scenario.h"

#define IMPORT_MARK "Imported by cephsim import"

struct ictx {
    const struct import_opts *o;
    struct import_result *r;
    char profiles[1024];
    cJSON *cluster, *pool, *image, *ceph;
    char **unmodelled;          /* option names with no counterpart */
    int n_unmodelled;
    int n_debug_unmodelled;
    bool loopback, rotational, enforce_ssd;
    char pool_name[128], image_name[128];
};

static void note(struct ictx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(struct ictx *c, const char *fmt, ...)
{
    char buf[1200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    c->r->notes = sim_xrealloc(c->r->notes, (size_t)c->r->n_notes + 1, sizeof *c->r->notes);
    c->r->notes[c->r->n_notes++] = sim_xstrdup(buf);
}

/*
 * dir/name in out: 1 when it is a regular file, 0 when nothing is there (the file is
 * optional or its absence is reported), else -errno and err names it: a directory, a
 * device, a dangling link or an unreadable path must not pass for "no such file".
 */
static int file_in(const char *dir, const char *name, char *out, size_t n, struct sim_err *err)
{
    struct stat st;
    snprintf(out, n, "%s/%s", dir, name);
    if (stat(out, &st) == 0) {
        if (S_ISREG(st.st_mode))
            return 1;
        return sim_errf(err, -EINVAL, "%s: not a regular file (%s)", out,
                        S_ISDIR(st.st_mode) ? "a directory" : "a device, socket or pipe");
    }
    if (errno != ENOENT)
        return sim_errf(err, -errno, "%s: %s", out, strerror(errno));
    if (lstat(out, &st) == 0)
        return sim_errf(err, -ENOENT, "%s: a symbolic link to nothing", out);
    return 0;
}

/* The first of names present in the directory: 1, 0 if none is, or -errno as file_in(). */
static int find_file(const struct ictx *c, const char *const *names, char *out, size_t n, struct sim_err *err)
{
    for (; *names; names++) {
        int rc = file_in(c->o->dir, *names, out, n, err);
        if (rc != 0)
            return rc;
    }
    return 0;
}

static const char *jstr(const cJSON *o, const char *k)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

static bool jnum(const cJSON *o, const char *k, double *out)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    if (cJSON_IsNumber(v)) {
        *out = v->valuedouble;
        return true;
    }
    if (cJSON_IsString(v)) { /* osd metadata prints numbers as strings */
        char *end;
        double x = strtod(v->valuestring, &end);
        if (end != v->valuestring && !*end) {
            *out = x;
            return true;
        }
    }
    return false;
}

/* ---- pool ----------------------------------------------------------------- */

/* An erasure pool's k, m and stripe unit: its profile (`ceph osd
   erasure-code-profile get`, in osd_erasure_code_profiles.json by name), else
   from the pool itself: stripe_width = k x stripe unit, taken at its default
   (the scenario's pool.stripe_unit default: osd_pool_erasure_code_stripe_unit),
   and size = k + m. */
static int ec_shape(struct ictx *c, const cJSON *pool, const char *path, double size, double *k, double *m,
                    double *unit, struct sim_err *err)
{
    const char *name = jstr(pool, "pool_name"), *prof = jstr(pool, "erasure_code_profile");
    double width = 0, default_unit = param_find(scenario_pool_params, "stripe_unit")->def;
    jnum(pool, "stripe_width", &width);
    char ppath[1300];
    int have = prof ? file_in(c->o->dir, "osd_erasure_code_profiles.json", ppath, sizeof ppath, err) : 0;
    if (have < 0)
        return have;
    if (have) {
        cJSON *all = jsonu_load_file(ppath, err);
        if (!all)
            return err->code;
        const cJSON *pr = cJSON_GetObjectItemCaseSensitive(all, prof);
        bool ok = cJSON_IsObject(pr) && jnum(pr, "k", k) && jnum(pr, "m", m);
        if (ok && !jnum(pr, "stripe_unit", unit))
            *unit = width > 0 ? width / *k : default_unit;
        cJSON_Delete(all);
        if (!ok)
            return sim_errf(err, -EINVAL, "%s: \"%s\": the profile of pool '%s' with its k and m is missing", ppath,
                            prof, name);
        note(c, "taken: pool '%s' is erasure-coded with profile '%s': k=%.0f m=%.0f, stripe unit %.0f", name, prof, *k,
             *m, *unit);
        return 0;
    }
    *unit = default_unit;
    *k = width / *unit;
    *m = size - *k;
    if (width <= 0 || *k != floor(*k) || *k < 2 || *m < 1)
        return sim_errf(err, -EINVAL, "%s: pool '%s' is erasure-coded, but its stripe_width %.0f and size %.0f give no "
                        "k and m: add osd_erasure_code_profiles.json (tests/lab/cluster_facts.sh)", path, name, width,
                        size);
    note(c, "assumed: pool '%s' is erasure-coded with k=%.0f m=%.0f (stripe_width %.0f / a %.0f-byte stripe unit, "
            "size - k): no osd_erasure_code_profiles.json", name, *k, *m, width, *unit);
    return 0;
}

/* The scenario's pool from one entry of `ceph osd pool ls detail` (replicated or erasure). */
static int pool_from_detail(struct ictx *c, const cJSON *pick, const char *path, struct sim_err *err)
{
    double type = 1, id, size, min_size, pg_num, rule, pgp;
    jnum(pick, "type", &type);
    if (!jnum(pick, "pool_id", &id) || !jnum(pick, "size", &size) || !jnum(pick, "min_size", &min_size) ||
        !jnum(pick, "pg_num", &pg_num) || !jnum(pick, "crush_rule", &rule))
        return sim_errf(err, -EINVAL, "%s: pool '%s': pool_id, size, min_size, pg_num and crush_rule are required",
                        path, jstr(pick, "pool_name"));
    while (c->pool->child) /* a data pool replaces the header's pool read before */
        cJSON_Delete(cJSON_DetachItemViaPointer(c->pool, c->pool->child));
    if (type == 3) { /* pg_pool_t::TYPE_ERASURE */
        double k, m, unit;
        int rc = ec_shape(c, pick, path, size, &k, &m, &unit, err);
        if (rc < 0)
            return rc;
        cJSON_AddStringToObject(c->pool, "type", "erasure");
        cJSON_AddNumberToObject(c->pool, "k", k);
        cJSON_AddNumberToObject(c->pool, "m", m);
        cJSON_AddNumberToObject(c->pool, "stripe_unit", unit);
    } else if (type != 1) {
        return sim_errf(err, -EINVAL, "%s: pool '%s' has type %.0f: neither replicated (1) nor erasure (3)", path,
                        jstr(pick, "pool_name"), type);
    }
    snprintf(c->pool_name, sizeof c->pool_name, "%s", jstr(pick, "pool_name"));
    cJSON_AddNumberToObject(c->pool, "id", id);
    cJSON_AddNumberToObject(c->pool, "size", size);
    cJSON_AddNumberToObject(c->pool, "min_size", min_size);
    cJSON_AddNumberToObject(c->pool, "pg_num", pg_num);
    cJSON_AddNumberToObject(c->pool, "crush_rule", rule);
    if (jnum(pick, "pg_placement_num", &pgp) && pgp != pg_num)
        note(c, "not modelled: pool '%s' has pgp_num %.0f != pg_num %.0f (a split in progress); placement follows "
                "pg_num", jstr(pick, "pool_name"), pgp, pg_num);
    return 0;
}

/* `ceph osd pool ls detail`, parsed (the caller deletes it), and its path. */
static cJSON *load_pool_detail(struct ictx *c, char *path, size_t n, struct sim_err *err)
{
    static const char *const names[] = {"osd_pool_ls_detail.json", "pool_ls_detail.json", NULL};
    int have = find_file(c, names, path, n, err);
    if (have < 0)
        return NULL;
    if (!have) {
        sim_errf(err, -ENOENT, "%s: no osd_pool_ls_detail.json (`ceph osd pool ls detail --format json`)",
                 c->o->dir);
        return NULL;
    }
    cJSON *j = jsonu_load_file(path, err);
    if (j && !cJSON_IsArray(j)) {
        sim_errf(err, -EINVAL, "%s: expected the array `ceph osd pool ls detail --format json` prints", path);
        cJSON_Delete(j);
        return NULL;
    }
    return j;
}

static int read_pool(struct ictx *c, struct sim_err *err)
{
    char path[1300];
    cJSON *j = load_pool_detail(c, path, sizeof path, err);
    if (!j)
        return err->code;
    int rc = 0;
    const cJSON *pick = NULL, *p;
    int i = 0, n_rbd = 0;
    char rbd_names[300] = "";
    cJSON_ArrayForEach(p, j) {
        const char *name = jstr(p, "pool_name");
        if (!name) {
            rc = sim_errf(err, -EINVAL, "%s: [%d].pool_name: missing", path, i);
            goto out;
        }
        bool rbd = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(p, "application_metadata"), "rbd");
        if (rbd) {
            n_rbd++;
            snprintf(rbd_names + strlen(rbd_names), sizeof rbd_names - strlen(rbd_names), "%s%s",
                     n_rbd > 1 ? ", " : "", name);
        }
        if (c->o->pool ? !strcmp(name, c->o->pool) : (rbd && !pick))
            pick = p;
        i++;
    }
    if (!pick) {
        rc = c->o->pool ? sim_errf(err, -ENOENT, "%s: no pool named '%s'", path, c->o->pool)
                        : sim_errf(err, -ENOENT, "%s: no pool with the rbd application (name one with --pool)", path);
        goto out;
    }
    if (!c->o->pool && n_rbd > 1)
        note(c, "taken: pool '%s', the first of the rbd pools (%s): choose another with --pool", jstr(pick, "pool_name"),
             rbd_names);
    rc = pool_from_detail(c, pick, path, err);
out:
    cJSON_Delete(j);
    return rc;
}

/* An image with a data pool (`rbd create --data-pool`, rbd info's data_pool):
   its data objects, what fio's I/O reaches, live there; the scenario's pool
   becomes that one (the header and object map stay where cephsim puts them). */
static int follow_data_pool(struct ictx *c, const char *image, const char *data_pool, struct sim_err *err)
{
    if (!strcmp(data_pool, c->pool_name))
        return 0;
    char path[1300];
    cJSON *j = load_pool_detail(c, path, sizeof path, err);
    if (!j)
        return err->code;
    const cJSON *pick = NULL, *p;
    cJSON_ArrayForEach(p, j) {
        const char *name = jstr(p, "pool_name");
        if (name && !strcmp(name, data_pool))
            pick = p;
    }
    char header_pool[128];
    snprintf(header_pool, sizeof header_pool, "%s", c->pool_name);
    int rc = pick ? pool_from_detail(c, pick, path, err)
                  : sim_errf(err, -ENOENT, "%s: no pool named '%s', image '%s''s data pool", path, data_pool, image);
    if (rc == 0)
        note(c, "taken: image '%s' keeps its data in pool '%s' (rbd info's data_pool): the scenario's pool is that "
                "one; its header and object map are in '%s'", image, data_pool, header_pool);
    cJSON_Delete(j);
    return rc;
}

/* ---- crush map -------------------------------------------------------------- */

static int read_crush(struct ictx *c, int *n_osds, int *n_hosts, struct sim_err *err)
{
    static const char *const names[] = {"osd_crush_dump.json", "crush_dump.json", NULL};
    char path[1300];
    int have = find_file(c, names, path, sizeof path, err);
    if (have < 0)
        return have;
    if (!have)
        return sim_errf(err, -ENOENT, "%s: no osd_crush_dump.json (`ceph osd crush dump --format json`)", c->o->dir);
    cJSON *j = jsonu_load_file(path, err);
    if (!j)
        return err->code;
    *n_osds = cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(j, "devices"));
    *n_hosts = 0;
    const cJSON *b;
    cJSON_ArrayForEach(b, cJSON_GetObjectItemCaseSensitive(j, "buckets")) {
        const char *t = jstr(b, "type_name"), *name = jstr(b, "name");
        *n_hosts += t && !strcmp(t, "host") && name && !strchr(name, '~'); /* not the class shadow buckets */
    }
    cJSON_Delete(j);
    /* the scenario names the dump relative to its own directory */
    char from[1100], rel[1300];
    if (c->o->out_path) {
        snprintf(from, sizeof from, "%s", c->o->out_path);
        char *d = dirname(from);
        int rc = files_mkdir_p(d);
        if (rc < 0)
            return sim_errf(err, rc, "%s: cannot create: %s", d, strerror(-rc));
        memmove(from, d, strlen(d) + 1);
    } else {
        snprintf(from, sizeof from, ".");
    }
    if (files_relative_to(path, from, rel, sizeof rel) < 0)
        snprintf(rel, sizeof rel, "%s", path);
    cJSON_AddStringToObject(c->cluster, "crush_map", rel);
    return 0;
}

/* ---- hardware ------------------------------------------------------------ */

/* Lower case, "(R)", "(TM)", "CPU", "Processor", "N-Core", "@ x GHz" and parentheses dropped. */
static void norm_model(const char *in, char *out, size_t n)
{
    char buf[512];
    size_t k = 0;
    int paren = 0;
    for (const char *p = in; *p && k + 1 < sizeof buf; p++) {
        if (*p == '(') {
            paren++;
            continue;
        }
        if (*p == ')') {
            paren -= paren > 0;
            buf[k++] = ' ';
            continue;
        }
        if (*p == '@')
            break; /* "@ 2.80GHz" */
        if (!paren)
            buf[k++] = (char)tolower((unsigned char)*p);
    }
    buf[k] = '\0';
    static const char *const drop[] = {"cpu", "processor", NULL};
    out[0] = '\0';
    size_t len = 0;
    for (char *save = NULL, *t = strtok_r(buf, " \t", &save); t; t = strtok_r(NULL, " \t", &save)) {
        bool skip = false;
        for (int i = 0; drop[i]; i++)
            skip |= !strcmp(t, drop[i]);
        size_t tl = strlen(t);
        skip |= tl > 5 && !strcmp(t + tl - 5, "-core");
        if (!skip && len + tl + 2 < n)
            len += (size_t)snprintf(out + len, n - len, "%s%s", len ? " " : "", t);
    }
}

/* The model string of every profile of kind: names and models into the arrays. */
static int profile_models(struct ictx *c, enum hwprofile_kind kind, char (*names)[HWPROFILE_NAME_MAX],
                          char (*models)[256], int max, struct sim_err *err)
{
    int n = hwprofile_list(kind, c->profiles, names, max, err);
    for (int i = 0; i < n; i++) {
        char path[1300];
        models[i][0] = '\0';
        if (hwprofile_resolve(kind, names[i], c->profiles, path, sizeof path, err) < 0)
            continue;
        cJSON *j = jsonu_load_file(path, err);
        const char *m = jstr(j, "model");
        snprintf(models[i], sizeof models[i], "%s", m ? m : "");
        cJSON_Delete(j);
    }
    return n;
}

static void match_cpu(struct ictx *c, const char *cpu, const char *hosts)
{
    char names[32][HWPROFILE_NAME_MAX], models[32][256];
    struct sim_err e2 = {0};
    int n = profile_models(c, HWPROFILE_CPU, names, models, 32, &e2);
    char want[256], have[256], near[400] = "";
    norm_model(cpu, want, sizeof want);
    int near_n = 0;
    for (int i = 0; i < n; i++) {
        norm_model(models[i], have, sizeof have);
        if (want[0] && !strcmp(want, have)) {
            cJSON_AddStringToObject(c->cluster, "cpu", names[i]);
            note(c, "taken: CPU '%s' (%s) = profile %s", cpu, hosts, names[i]);
            return;
        }
        if (want[0] && !strncmp(have, want, strlen(want))) {
            snprintf(near + strlen(near), sizeof near - strlen(near), "%s%s", near_n++ ? ", " : "", names[i]);
        }
    }
    note(c, "no profile: CPU '%s' (%s) matches no hw-profiles/cpu model%s%s%s; the scenario keeps the default "
            "CPU profile (epyc-7302p, 16 cores): add hw-profiles/cpu/<name>.json and set cluster.cpu", cpu, hosts,
         near_n ? " exactly (a VM or container may hide the model; it could be any of: " : "", near, near_n ? ")" : "");
}

/* Device ids look like "nvme0n1=SAMSUNG_MZQLB3T8HALS-00007_S4..." (vendor_model_serial). */
static bool id_matches_model(const char *ids, const char *model)
{
    char buf[512], lm[256];
    snprintf(buf, sizeof buf, "%s", ids);
    snprintf(lm, sizeof lm, "%s", model);
    for (char *p = lm; *p; p++)
        *p = (char)tolower((unsigned char)*p);
    for (char *save = NULL, *t = strtok_r(buf, "=_- ,", &save); t; t = strtok_r(NULL, "=_- ,", &save)) {
        if (strlen(t) < 6)
            continue; /* vendor names and device names are not models */
        for (char *p = t; *p; p++)
            *p = (char)tolower((unsigned char)*p);
        if (strstr(lm, t))
            return true;
    }
    return false;
}

static void match_device(struct ictx *c, const cJSON *md)
{
    const char *ids = jstr(md, "device_ids"), *devs = jstr(md, "bluestore_bdev_devices");
    const char *mode = jstr(md, "bluestore_bdev_access_mode");
    if (!devs)
        devs = jstr(md, "devices");
    char names[32][HWPROFILE_NAME_MAX], models[32][256];
    struct sim_err e2 = {0};
    int n = profile_models(c, HWPROFILE_NVME, names, models, 32, &e2);
    for (int i = 0; ids && ids[0] && i < n; i++)
        if (id_matches_model(ids, models[i])) {
            cJSON_AddStringToObject(c->cluster, "nvme", names[i]);
            note(c, "taken: data device '%s' = profile %s (%s)", ids, names[i], models[i]);
            return;
        }
    /* no model id: a virtio disk (vdX) is at least a kind the profiles know */
    if (devs && !strncmp(devs, "vd", 2)) {
        for (int i = 0; i < n; i++) {
            size_t l = strlen(names[i]);
            bool calibrated = l > 11 && !strcmp(names[i] + l - 11, "-calibrated");
            if (strstr(models[i], "virtio-blk") && !calibrated) {
                cJSON_AddStringToObject(c->cluster, "nvme", names[i]);
                note(c, "no profile: data device %s%s has no model id (a virtio-blk disk): using %s ('%s'), a "
                        "virtio disk of another VM (the *-calibrated profiles go with their calibrated scenario's "
                        "costs); its latencies are that VM's, not this one's",
                     devs, mode && !strcmp(mode, "file") ? " (the OSDs' block files are on it)" : "", names[i],
                     models[i]);
                return;
            }
        }
    }
    note(c, "no profile: data device '%s' (ids '%s') matches no hw-profiles/nvme model: the scenario keeps the "
            "default device profile (pm983); add hw-profiles/nvme/<name>.json and set cluster.nvme",
         devs ? devs : "?", ids ? ids : "");
}

static bool is_loopback_addr(const char *a)
{
    return a && (strstr(a, "127.0.0.1") || strstr(a, "[::1]"));
}

/*
 * The kernel's scheduler from the OSDs' kernel_version: Linux's fair class
 * picks the next task by EEVDF from 6.6 (commit 147f3efaa241, "sched/fair:
 * Implement an EEVDF-like scheduling policy"), by CFS's virtual runtime
 * before; both preempt a running task for a woken one, which decides how
 * an OSD's threads share cores that are short (cluster.cpu_scheduler).
 */
static void kernel_scheduler(struct ictx *c, const char *kernel, bool differ)
{
    int major = 0, minor = 0;
    if (!kernel[0] || sscanf(kernel, "%d.%d", &major, &minor) != 2) {
        note(c, "assumed: no kernel_version in osd metadata: cluster.cpu_scheduler stays fifo (a FIFO of cores, the "
                "model's default: set cfs or eevdf as the OSD hosts' kernel schedules)");
        return;
    }
    const char *sched = major > 6 || (major == 6 && minor >= 6) ? "eevdf" : "cfs";
    cJSON_AddStringToObject(c->cluster, "cpu_scheduler", sched);
    note(c, "taken: kernel %s (osd metadata kernel_version): cluster.cpu_scheduler %s (Linux's fair class is EEVDF "
            "from 6.6, CFS before)%s", kernel, sched, differ ? "; the OSDs run several kernels: the first one's is used" : "");
}

static int read_metadata(struct ictx *c, struct sim_err *err)
{
    static const char *const names[] = {"osd_metadata.json", NULL};
    char path[1300];
    int have = find_file(c, names, path, sizeof path, err);
    if (have < 0)
        return have;
    if (!have) {
        note(c, "assumed: no osd_metadata.json (`ceph osd metadata --format json`): CPU, device and network "
                "are the default profiles (epyc-7302p, pm983, 10gbase-t)");
        return 0;
    }
    cJSON *j = jsonu_load_file(path, err);
    if (!j)
        return err->code;
    int rc = 0;
    if (!cJSON_IsArray(j) || !cJSON_GetArraySize(j)) {
        rc = sim_errf(err, -EINVAL, "%s: expected the array `ceph osd metadata --format json` prints", path);
        goto out;
    }
    const cJSON *md, *first = j->child;
    char cpus[4][256] = {{0}}, hosts[600] = "";
    int n_cpus = 0, n_hosts = 0, n = 0, loop = 0, rot = 0, i = 0;
    double alloc = -1;
    bool alloc_mixed = false, dedicated = false, kernels_differ = false;
    char kernel[128] = "";
    cJSON_ArrayForEach(md, j) {
        const char *kv = jstr(md, "kernel_version");
        if (kv && kv[0]) {
            kernels_differ |= kernel[0] && strcmp(kernel, kv);
            if (!kernel[0])
                snprintf(kernel, sizeof kernel, "%s", kv);
        }
        const char *store = jstr(md, "osd_objectstore"), *cpu = jstr(md, "cpu"), *host = jstr(md, "hostname");
        if (store && strcmp(store, "bluestore")) {
            rc = sim_errf(err, -EINVAL, "%s: [%d].osd_objectstore: '%s': cephsim models BlueStore only", path, i,
                          store);
            goto out;
        }
        if (cpu) {
            int k = 0;
            while (k < n_cpus && strcmp(cpus[k], cpu))
                k++;
            if (k == n_cpus && n_cpus < 4)
                snprintf(cpus[n_cpus++], sizeof cpus[0], "%s", cpu);
        }
        if (host && !strstr(hosts, host) && strlen(hosts) + strlen(host) + 3 < sizeof hosts) {
            snprintf(hosts + strlen(hosts), sizeof hosts - strlen(hosts), "%s%s", n_hosts ? ", " : "", host);
            n_hosts++;
        }
        loop += is_loopback_addr(jstr(md, "front_addr")) && is_loopback_addr(jstr(md, "back_addr"));
        double r = 0, a;
        rot += jnum(md, "bluestore_bdev_rotational", &r) && r != 0;
        if (jnum(md, "bluestore_min_alloc_size", &a)) {
            alloc_mixed |= alloc >= 0 && a != alloc;
            alloc = a;
        }
        const char *dd = jstr(md, "bluefs_dedicated_db"), *dw = jstr(md, "bluefs_dedicated_wal");
        dedicated |= (dd && !strcmp(dd, "1")) || (dw && !strcmp(dw, "1"));
        n++;
        i++;
    }
    char hostdesc[700];
    snprintf(hostdesc, sizeof hostdesc, "%d OSD%s on host%s %s", n, n == 1 ? "" : "s", n_hosts == 1 ? "" : "s", hosts);
    if (n_cpus > 1)
        note(c, "not modelled: the OSD hosts have %d CPU models ('%s', '%s'...): every host gets one profile", n_cpus,
             cpus[0], cpus[1]);
    if (n_cpus)
        match_cpu(c, cpus[0], hostdesc);
    note(c, "assumed: cores, SMT, clocks and C-states are the CPU profile's (`ceph osd metadata` gives only the model "
            "string)");
    match_device(c, first);
    c->rotational = rot > 0;
    kernel_scheduler(c, kernel, kernels_differ);
    if (dedicated)
        note(c, "not modelled: some OSDs have a dedicated BlueFS DB/WAL device: the model puts RocksDB on the data "
                "device");
    if (alloc >= 0) {
        cJSON_AddNumberToObject(c->ceph, "bluestore_min_alloc_size_ssd", alloc);
        note(c, "taken: bluestore_min_alloc_size %.0f (fixed at mkfs, from osd metadata)%s", alloc,
             alloc_mixed ? "; the OSDs differ: the last one's is used" : "");
    }
    c->loopback = loop == n;
    if (c->loopback) {
        cJSON_AddStringToObject(c->cluster, "nic", "loopback");
        cJSON_AddStringToObject(c->cluster, "switch", "none");
        cJSON_AddNumberToObject(c->cluster, "client_hosts", 0);
        note(c, "taken: every OSD's front and back address is loopback: nic loopback, no switch, fio on the OSD "
                "host (cluster.client_hosts 0; a loopback cluster is reachable only there)");
    } else {
        note(c, "assumed: network 10gbase-t with a cut-through ToR switch (`ceph osd metadata` names interfaces, not "
                "link speeds): set cluster.nic and cluster.switch");
        note(c, "assumed: fio runs on one client host of its own (cluster.client_hosts 1): the outputs do not say "
                "where the clients are");
    }
out:
    cJSON_Delete(j);
    return rc;
}

/* ---- release ---------------------------------------------------------------- */

/* "ceph version 16.2.15 (618f...) pacific (stable)" -> "16.2.15" */
static bool version_of(const char *s, char *out, size_t n)
{
    const char *p = strstr(s, "version ");
    p = p ? p + 8 : s;
    size_t l = strspn(p, "0123456789.");
    if (l == 0 || l >= n)
        return false;
    memcpy(out, p, l);
    out[l] = '\0';
    return true;
}

static int read_versions(struct ictx *c, struct sim_err *err)
{
    static const char *const names[] = {"versions.json", NULL};
    char path[1300], best[32] = "";
    int have = find_file(c, names, path, sizeof path, err);
    if (have < 0)
        return have;
    if (!have) {
        note(c, "assumed: no versions.json (`ceph versions --format json`): ceph.release stays the scenario "
                "default (16.2.14)");
        return 0;
    }
    cJSON *j = jsonu_load_file(path, err);
    if (!j)
        return err->code;
    const cJSON *osd = cJSON_GetObjectItemCaseSensitive(j, "osd"), *v;
    double most = 0;
    int kinds = 0;
    cJSON_ArrayForEach(v, osd) {
        char ver[32];
        if (!version_of(v->string, ver, sizeof ver))
            continue;
        kinds++;
        if (v->valuedouble > most) {
            most = v->valuedouble;
            snprintf(best, sizeof best, "%s", ver);
        }
    }
    cJSON_Delete(j);
    if (!best[0])
        return sim_errf(err, -EINVAL, "%s: osd: no 'ceph version X.Y.Z' entry", path);
    cJSON_AddStringToObject(c->ceph, "release", best);
    if (kinds > 1)
        note(c, "not modelled: the OSDs run %d Ceph versions: the scenario runs %s (most OSDs)", kinds, best);
    return 0;
}

/* ---- options ---------------------------------------------------------------- */

static void add_unmodelled(struct ictx *c, const char *name)
{
    for (int i = 0; i < c->n_unmodelled; i++)
        if (!strcmp(c->unmodelled[i], name))
            return;
    c->unmodelled = sim_xrealloc(c->unmodelled, (size_t)c->n_unmodelled + 1, sizeof *c->unmodelled);
    c->unmodelled[c->n_unmodelled++] = sim_xstrdup(name);
}

/* Ceph size text with IEC suffixes (4K, 64M, 1Gi) in bytes; false if not a number. */
static bool parse_ceph_num(const char *v, double *out)
{
    char *end;
    double x = strtod(v, &end);
    if (end == v)
        return false;
    static const char units[] = "KMGTP";
    const char *u = *end ? strchr(units, toupper((unsigned char)*end)) : NULL;
    if (u) {
        x *= pow(1024, (double)(u - units + 1));
        end++;
        if (*end == 'i')
            end++;
        if (toupper((unsigned char)*end) == 'B')
            end++;
    }
    if (*end)
        return false;
    *out = x;
    return true;
}

/* Set ceph.<name> from text (source names where it came from); false if the model has no such option. */
static bool set_option(struct ictx *c, const char *name, const char *value, const char *source)
{
    char target[128];
    snprintf(target, sizeof target, "%s", name);
    double x;
    /* the generic shard options win over the _ssd/_hdd ones when non-zero (OSD::get_num_op_shards) */
    if (!strcmp(name, "osd_op_num_shards") || !strcmp(name, "osd_op_num_threads_per_shard")) {
        if (!parse_ceph_num(value, &x) || x == 0)
            return true; /* 0: the _ssd variant decides */
        snprintf(target, sizeof target, "%s_ssd", name);
    }
    char path[160];
    snprintf(path, sizeof path, "ceph.%s", target);
    const struct param_def *d = scenario_param_for_path(path);
    if (!d || param_is_descriptive(d))
        return false;
    cJSON *v = NULL;
    if (!strncmp(target, "debug_", 6)) {
        int a = 0, b = -1;
        if (sscanf(value, "%d/%d", &a, &b) < 1)
            return false;
        v = cJSON_CreateNumber(b > a ? b : a);
    } else if (d->type == PARAM_BOOL) {
        if (!strcmp(value, "true") || !strcmp(value, "1"))
            v = cJSON_CreateTrue();
        else if (!strcmp(value, "false") || !strcmp(value, "0"))
            v = cJSON_CreateFalse();
    } else if (d->type == PARAM_INT || d->type == PARAM_DOUBLE) {
        if (parse_ceph_num(value, &x))
            v = cJSON_CreateNumber(x);
    } else {
        v = cJSON_CreateString(value);
    }
    if (!v) {
        note(c, "not modelled: %s = '%s' (%s) is not a value of ceph.%s: ignored", name, value, source, target);
        return true;
    }
    if (cJSON_GetObjectItemCaseSensitive(c->ceph, target))
        cJSON_ReplaceItemInObjectCaseSensitive(c->ceph, target, v);
    else
        cJSON_AddItemToObject(c->ceph, target, v);
    return true;
}

/* Options that only say how the daemons are deployed: named together in one note. */
static bool deployment_option(const char *name)
{
    static const char *const prefixes[] = {"admin_socket", "auth_", "keyring", "log_", "err_to_", "mon_", "mgr_",
                                           "fsid", "run_dir", "osd_data", "daemonize", "no_config_file", "ms_bind_",
                                           "public_network", "cluster_network", "leveldb_log", "host", "pid_file",
                                           "chdir", "setuser", "setgroup", "osd_crush_update_on_start",
                                           "osd_class_update_on_start", "bluestore_block_create",
                                           "bluestore_fsck_on_", "osd_pool_default_",
                                           /* facts read from their own outputs instead: */
                                           "osd_crush_chooseleaf_type", "osd_objectstore", "rbd_default_features",
                                           NULL};
    for (int i = 0; prefixes[i]; i++)
        if (!strncmp(name, prefixes[i], strlen(prefixes[i])))
            return true;
    return false;
}

static void option(struct ictx *c, const char *name, const char *value, const char *source)
{
    if (!strcmp(name, "bluestore_debug_enforce_settings")) {
        c->enforce_ssd = !strcmp(value, "ssd");
        return;
    }
    if (set_option(c, name, value, source))
        return;
    if (deployment_option(name))
        return;
    add_unmodelled(c, name);
}

/* ceph.conf: [global], [osd], [client] (and [osd.N], [client.X]); keys with spaces are Ceph's too. */
static int read_ceph_conf(struct ictx *c, struct sim_err *err)
{
    char path[1300];
    int have = file_in(c->o->dir, "ceph.conf", path, sizeof path, err);
    if (have <= 0)
        return have;
    FILE *f = fopen(path, "r");
    if (!f)
        return sim_errf(err, -errno, "%s: %s", path, strerror(errno));
    char line[2048], section[128] = "global";
    int n_opts = 0;
    while (fgets(line, sizeof line, f)) {
        char *s = line + strspn(line, " \t");
        s[strcspn(s, "\r\n")] = '\0';
        char *hash = strpbrk(s, "#;");
        if (hash)
            *hash = '\0';
        size_t l = strlen(s);
        while (l && isspace((unsigned char)s[l - 1]))
            s[--l] = '\0';
        if (!l)
            continue;
        if (s[0] == '[') {
            snprintf(section, sizeof section, "%.*s", (int)strcspn(s + 1, "]"), s + 1);
            continue;
        }
        bool relevant = !strcmp(section, "global") || !strncmp(section, "osd", 3) || !strncmp(section, "client", 6);
        char *eq = strchr(s, '=');
        if (!relevant || !eq)
            continue;
        *eq = '\0';
        char *k = s, *v = eq + 1;
        l = strlen(k);
        while (l && isspace((unsigned char)k[l - 1]))
            k[--l] = '\0';
        v += strspn(v, " \t");
        for (char *p = k; *p; p++)
            if (*p == ' ' || *p == '-')
                *p = '_'; /* "osd op num shards" = osd_op_num_shards */
        option(c, k, v, "ceph.conf");
        n_opts++;
    }
    fclose(f);
    note(c, "taken: ceph.conf: %d options of [global], [osd] and [client]", n_opts);
    return 0;
}

static int read_config_dump(struct ictx *c, struct sim_err *err)
{
    static const char *const names[] = {"config_dump.json", NULL};
    char path[1300];
    int have = find_file(c, names, path, sizeof path, err);
    if (have < 0)
        return have;
    if (!have) {
        note(c, "assumed: no config_dump.json (`ceph config dump --format json`): options from ceph.conf and the "
                "daemons' config diff only");
        return 0;
    }
    cJSON *j = jsonu_load_file(path, err);
    if (!j)
        return err->code;
    if (!cJSON_IsArray(j)) {
        cJSON_Delete(j);
        return sim_errf(err, -EINVAL, "%s: expected the array `ceph config dump --format json` prints", path);
    }
    const cJSON *e;
    int i = 0, used = 0;
    cJSON_ArrayForEach(e, j) {
        const char *sec = jstr(e, "section"), *name = jstr(e, "name"), *value = jstr(e, "value");
        if (!sec || !name || !value) {
            cJSON_Delete(j);
            return sim_errf(err, -EINVAL, "%s: [%d]: expected section, name and value", path, i);
        }
        const char *mask = jstr(e, "mask");
        if (strchr(sec, '.') || (mask && mask[0])) {
            note(c, "not modelled: %s/%s = %s applies to %s%s%s only: options are the same on every OSD in the "
                    "model", sec, name, value, sec, mask && mask[0] ? " with mask " : "", mask ? mask : "");
        } else if (!strcmp(sec, "global") || !strcmp(sec, "osd") || !strcmp(sec, "client")) {
            option(c, name, value, "config dump");
            used++;
        }
        i++;
    }
    cJSON_Delete(j);
    note(c, "taken: ceph config dump: %d entries (%d of global, osd and client)", i, used);
    return 0;
}

/* The running daemon's non-default values (`config diff`): what the OSD really ran with. */
static int read_config_diff(struct ictx *c, struct sim_err *err)
{
    char pat[1300];
    glob_t g;
    snprintf(pat, sizeof pat, "%s/osd.*config_diff.json", c->o->dir);
    if (glob(pat, 0, NULL, &g) != 0)
        return 0;
    const char *path = g.gl_pathv[0];
    cJSON *j = jsonu_load_file(path, err);
    int rc = 0;
    if (!j) {
        rc = err->code;
        goto out;
    }
    const cJSON *diff = cJSON_GetObjectItemCaseSensitive(j, "diff"), *o;
    if (!cJSON_IsObject(diff)) {
        rc = sim_errf(err, -EINVAL, "%s: diff: expected `ceph daemon osd.N config diff` output", path);
        goto out;
    }
    int n = 0;
    cJSON_ArrayForEach(o, diff) {
        const cJSON *fin = cJSON_GetObjectItemCaseSensitive(o, "final");
        char text[256];
        if (!jsonu_scalar_text(fin, text, sizeof text))
            continue;
        option(c, o->string, text, "config diff");
        n++;
    }
    {
        char name[300];
        snprintf(name, sizeof name, "%s", path);
        note(c, "taken: %s: %d non-default values of a running OSD%s", basename(name), n,
             g.gl_pathc > 1 ? " (the first of the OSDs' diffs)" : "");
    }
out:
    cJSON_Delete(j);
    globfree(&g);
    return rc;
}

/* ---- image ------------------------------------------------------------------ */

static int read_images(struct ictx *c, struct sim_err *err)
{
    char path[1300];
    int have = file_in(c->o->dir, "rbd_images.json", path, sizeof path, err);
    if (have < 0)
        return have;
    if (!have) {
        note(c, "assumed: no rbd_images.json (`rbd info --format json` per image): the image is the scenario "
                "default (10 GiB plain, 4 MiB objects, exclusive-lock and object-map)");
        return 0;
    }
    char *text;
    size_t len;
    if (jsonu_slurp(path, &text, &len, err) < 0)
        return err->code;
    cJSON *all = cJSON_ParseWithLength(text, len);
    if (!cJSON_IsArray(all)) { /* one object per line */
        cJSON_Delete(all);
        all = cJSON_CreateArray();
        int lineno = 0;
        for (char *save = NULL, *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
            lineno++;
            if (!*l)
                continue;
            cJSON *o = cJSON_Parse(l);
            if (!cJSON_IsObject(o)) {
                cJSON_Delete(o);
                cJSON_Delete(all);
                free(text);
                return sim_errf(err, -EINVAL, "%s:%d: expected one `rbd info --format json` object per line", path,
                                lineno);
            }
            cJSON_AddItemToArray(all, o);
        }
    }
    free(text);
    const cJSON *img = NULL, *e;
    char names[400] = "";
    int n = 0;
    cJSON_ArrayForEach(e, all) {
        const char *name = jstr(e, "name");
        if (name && strlen(names) + strlen(name) + 3 < sizeof names)
            snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", n ? ", " : "", name);
        if (!img && (c->o->image ? name && !strcmp(name, c->o->image) : true))
            img = e;
        n++;
    }
    int rc = 0;
    if (!img) {
        rc = c->o->image ? sim_errf(err, -ENOENT, "%s: no image named '%s' (images: %s)", path, c->o->image, names)
                         : sim_errf(err, -ENOENT, "%s: no image", path);
        goto out;
    }
    double size, order;
    if (!jnum(img, "size", &size) || !jnum(img, "order", &order)) {
        rc = sim_errf(err, -EINVAL, "%s: image '%s': size and order are required", path,
                      jstr(img, "name") ? jstr(img, "name") : "?");
        goto out;
    }
    cJSON_AddNumberToObject(c->image, "size_gib", size / 1073741824.0);
    cJSON_AddNumberToObject(c->image, "order", order);
    bool lock = false, omap = false;
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(img, "features")) {
        lock |= cJSON_IsString(e) && !strcmp(e->valuestring, "exclusive-lock");
        omap |= cJSON_IsString(e) && !strcmp(e->valuestring, "object-map");
    }
    cJSON_AddBoolToObject(c->image, "exclusive_lock", lock);
    cJSON_AddBoolToObject(c->image, "object_map", omap);
    bool clone = cJSON_GetObjectItemCaseSensitive(img, "parent") != NULL;
    cJSON_AddStringToObject(c->image, "kind", clone ? "clone" : "plain");
    const char *iname = jstr(img, "name") ? jstr(img, "name") : "?";
    snprintf(c->image_name, sizeof c->image_name, "%s", iname);
    if (jstr(img, "data_pool") && (rc = follow_data_pool(c, iname, jstr(img, "data_pool"), err)) < 0)
        goto out;
    const char *which = n == 1 ? "the only image" : c->o->image ? "chosen" : names;
    note(c, "taken: image '%s' (%s%s): %.3g GiB, order %.0f, %s%s%s", iname,
         !c->o->image && n > 1 ? "the first of " : "", which, size / 1073741824.0, order, lock ? "exclusive-lock" : "no exclusive-lock", omap ? ", object-map" : "", clone ? ", a clone" : "");
    if (n > 1 && !c->o->image)
        note(c, "assumed: fio writes to image '%s': choose another with --image (images: %s)", iname, names);
    if (clone)
        note(c, "assumed: the clone's objects are all copied up (image.copied_up 1): rbd info does not say how many");
out:
    cJSON_Delete(all);
    return rc;
}

/* ---- the scenario ------------------------------------------------------------ */

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int import_cluster(const struct import_opts *o, struct import_result *r, struct sim_err *err)
{
    memset(r, 0, sizeof *r);
    struct ictx c = {.o = o, .r = r};
    int rc, n_osds = 0, n_hosts = 0;
    struct stat st;
    if (stat(o->dir, &st) != 0 || !S_ISDIR(st.st_mode))
        return sim_errf(err, -ENOENT, "%s: not a directory", o->dir);
    if (o->profiles)
        snprintf(c.profiles, sizeof c.profiles, "%s", o->profiles);
    else if ((rc = hwprofile_find_dir(c.profiles, sizeof c.profiles, err)) < 0)
        return rc;
    r->scenario = cJSON_CreateObject();
    cJSON_AddStringToObject(r->scenario, "description", "");
    c.cluster = cJSON_AddObjectToObject(r->scenario, "cluster");
    c.pool = cJSON_AddObjectToObject(r->scenario, "pool");
    c.image = cJSON_AddObjectToObject(r->scenario, "image");
    c.ceph = cJSON_AddObjectToObject(r->scenario, "ceph");
    if ((rc = read_crush(&c, &n_osds, &n_hosts, err)) < 0 || (rc = read_pool(&c, err)) < 0 ||
        (rc = read_versions(&c, err)) < 0 || (rc = read_metadata(&c, err)) < 0 || (rc = read_ceph_conf(&c, err)) < 0 ||
        (rc = read_config_dump(&c, err)) < 0 || (rc = read_config_diff(&c, err)) < 0 ||
        (rc = read_images(&c, err)) < 0)
        goto fail;
    if (c.rotational && !c.enforce_ssd)
        note(&c, "not modelled: the OSDs' data devices are rotational, so Ceph runs the _hdd option variants "
                 "(osd_op_num_shards_hdd 5, bluestore_*_hdd, ...); the model has the SSD op path");
    else if (c.rotational)
        note(&c, "taken: bluestore_debug_enforce_settings=ssd: the OSDs run the _ssd option variants, as the model "
                 "does, although the devices report rotational");
    if (c.n_unmodelled) {
        qsort(c.unmodelled, (size_t)c.n_unmodelled, sizeof *c.unmodelled, cmp_str);
        char list[900] = "";
        int n_other = 0;
        for (int i = 0; i < c.n_unmodelled; i++) {
            if (!strncmp(c.unmodelled[i], "debug_", 6)) {
                c.n_debug_unmodelled++;
                continue;
            }
            if (strlen(list) + strlen(c.unmodelled[i]) + 3 < sizeof list)
                snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", n_other ? ", " : "",
                         c.unmodelled[i]);
            n_other++;
        }
        if (n_other)
            note(&c, "not modelled: %d options set on the cluster have no counterpart in the model: %s", n_other,
                 list);
    }
    if (c.n_debug_unmodelled)
        note(&c, "not modelled: %d debug_* levels of subsystems the model charges no logging for", c.n_debug_unmodelled);
    /* a scenario needs jobs: the one a Ceph latency question starts from, said to be assumed */
    char job[600];
    snprintf(job, sizeof job,
             "[imported]\nioengine=rbd\nclientname=admin\npool=%s\n%s%s%srw=randwrite\nbs=4k\niodepth=1\n"
             "time_based=1\nruntime=20\n",
             c.pool_name, c.image_name[0] ? "rbdname=" : "", c.image_name, c.image_name[0] ? "\n" : "");
    cJSON *clients = cJSON_AddObjectToObject(r->scenario, "clients");
    cJSON_AddStringToObject(clients, "jobs", job);
    note(&c, "assumed: the workload is not in a cluster's outputs: one fio rbd job, 4k randwrite at iodepth 1 for "
             "20 s, on pool %s%s%s (replace it: cephsim run SCENARIO --jobfile F.fio, or --set fio.rw=...)",
         c.pool_name, c.image_name[0] ? ", image " : "", c.image_name);
    char desc[700];
    const char *rel = jstr(c.ceph, "release");
    snprintf(desc, sizeof desc,
             IMPORT_MARK " from %s: %d OSDs on %d host%s (CRUSH map), pool id %.0f, %.0f PGs, size %.0f, Ceph %s. "
             "What was assumed or has no profile: `cephsim import` prints it.",
             o->dir, n_osds, n_hosts, n_hosts == 1 ? "" : "s",
             cJSON_GetObjectItemCaseSensitive(c.pool, "id")->valuedouble,
             cJSON_GetObjectItemCaseSensitive(c.pool, "pg_num")->valuedouble,
             cJSON_GetObjectItemCaseSensitive(c.pool, "size")->valuedouble, rel ? rel : "(release assumed)");
    cJSON_ReplaceItemInObjectCaseSensitive(r->scenario, "description", cJSON_CreateString(desc));
    if (!c.image->child)
        cJSON_DeleteItemFromObjectCaseSensitive(r->scenario, "image");
    rc = 0;
    goto out;
fail:
    import_result_free(r);
out:
    for (int i = 0; i < c.n_unmodelled; i++)
        free(c.unmodelled[i]);
    free(c.unmodelled);
    return rc;
}

void import_result_free(struct import_result *r)
{
    cJSON_Delete(r->scenario);
    for (int i = 0; i < r->n_notes; i++)
        free(r->notes[i]);
    free(r->notes);
    memset(r, 0, sizeof *r);
}

/* ---- the command ------------------------------------------------------------ */

static void import_usage(FILE *f)
{
    fprintf(f, "usage: cephsim import DIR [-o SCENARIO.json] [--pool NAME] [--image NAME] [-q]\n"
               "  build a scenario from a real cluster's outputs in DIR (all --format json):\n"
               "    osd_crush_dump.json (ceph osd crush dump), osd_pool_ls_detail.json (ceph osd pool ls detail),\n"
               "    osd_metadata.json (ceph osd metadata), config_dump.json (ceph config dump),\n"
               "    versions.json (ceph versions); optional: ceph.conf, osd.N.asok_config_diff.json\n"
               "    (ceph daemon osd.N config diff), rbd_images.json (rbd info per image).\n"
               "  tests/lab/capture.sh collects them.  Prints what it assumed and the hardware it has no profile for.\n"
               "  -o, --output FILE   the scenario (default out/import/<DIR name>.json); replaces only a file\n"
               "                      cephsim import wrote\n"
               "      --pool NAME     the pool to simulate (default: the pool with the rbd application)\n"
               "      --image NAME    the image of rbd_images.json (default: the first)\n"
               "  -q, --quiet         print only the scenario's path\n");
}

int cmd_import(int argc, char **argv)
{
    static const struct option opts[] = {{"output", required_argument, NULL, 'o'}, {"pool", required_argument, NULL, 'p'},
                                         {"image", required_argument, NULL, 'i'},  {"quiet", no_argument, NULL, 'q'},
                                         {"help", no_argument, NULL, 'h'},         {0}};
    struct import_opts o = {0};
    bool quiet = false;
    int ch;
    optind = 0;
    while ((ch = getopt_long(argc, argv, "o:qh", opts, NULL)) != -1) {
        switch (ch) {
        case 'o': o.out_path = optarg; break;
        case 'p': o.pool = optarg; break;
        case 'i': o.image = optarg; break;
        case 'q': quiet = true; break;
        case 'h': import_usage(stdout); return 0;
        default: import_usage(stderr); return 2;
        }
    }
    if (argc - optind != 1) {
        fprintf(stderr, "cephsim import: expected one directory (try cephsim import --help)\n");
        return 2;
    }
    o.dir = argv[optind];
    char outbuf[1200];
    if (!o.out_path) {
        char tmp[1100];
        snprintf(tmp, sizeof tmp, "%s", o.dir);
        size_t l = strlen(tmp);
        while (l > 1 && tmp[l - 1] == '/')
            tmp[--l] = '\0';
        snprintf(outbuf, sizeof outbuf, "out/import/%s.json", basename(tmp));
        o.out_path = outbuf;
    }
    struct sim_err err = {0};
    /* replace only a scenario this command wrote */
    struct stat st;
    if (stat(o.out_path, &st) == 0) {
        cJSON *old = S_ISREG(st.st_mode) ? jsonu_load_file(o.out_path, &err) : NULL;
        const char *d = jstr(old, "description");
        bool ours = d && !strncmp(d, IMPORT_MARK, strlen(IMPORT_MARK));
        cJSON_Delete(old);
        if (!ours) {
            fprintf(stderr, "cephsim import: %s: exists and was not written by cephsim import: not replacing it "
                            "(choose another -o)\n", o.out_path);
            return 1;
        }
    }
    struct import_result r;
    if (import_cluster(&o, &r, &err) < 0) {
        fprintf(stderr, "cephsim import: %s\n", err.msg);
        return 1;
    }
    int rc = 0;
    if (jsonu_write_file(o.out_path, r.scenario, &err) < 0) {
        fprintf(stderr, "cephsim import: %s\n", err.msg);
        rc = 1;
        goto out;
    }
    /* what was written must load: a scenario this command cannot read back is its bug, said plainly */
    struct scenario sc;
    if (scenario_load(&sc, o.out_path, NULL, NULL, NULL, 0, &err) < 0) {
        fprintf(stderr, "cephsim import: the scenario written does not load: %s\n", err.msg);
        rc = 1;
        goto out;
    }
    scenario_free(&sc);
    if (!quiet)
        for (int i = 0; i < r.n_notes; i++)
            fprintf(stderr, "cephsim import: %s\n", r.notes[i]);
    fflush(stderr);
    printf("%s\n", o.out_path);
out:
    import_result_free(&r);
    return rc;
}
