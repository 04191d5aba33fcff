/*
 * cluster.c - builds a cluster from its spec, places PGs and objects, runs
 * warm-up and measurement, and exposes the results.
 *
 * Placement is Ceph's own (place_pgs: CRUSH through placement.c, equal to
 * crushtool and osdmaptool PG for PG).  Objects map to PGs as Ceph maps
 * them: ceph_str_hash_rjenkins of the name (rbd_data.<id>.<objno>), then
 * ceph_stable_mod by pg_num (pg_pool_t::raw_hash_to_pg), so the PG ids in
 * the dumps are the ones a tool would compute from the object names.
 *
 * Images: image.count of them, each with its own id (so its rbd_data.<id>.*
 * objects hash to their own PGs), header and object map objects; every fio
 * job clone opens the image its rbdname names (or, with volumes_per_client,
 * one of its client host's own images, as cbt gives each fio process its
 * volume).  A RADOS object's state is created the first time anything
 * touches it (image_object), so set-up and memory do not grow with the image
 * size.  Which objects of a clone were copied up before the run is decided
 * per object from a hash of (seed, image id, object number) against
 * image.copied_up: a deterministic, order-independent draw (before, one
 * sequential draw per object at set-up picked a different but equally
 * distributed set).
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bluestore.h"
#include "cluster-internal.h"
#include "err.h"
#include "librbd.h"
#include "msgr.h"
#include "osd.h"

const char *const image_kind_names[] = {"plain", "clone", "flattened", NULL};
const char *const guard_design_names[] = {"assert_exists", "none", "stat_roundtrip", "write_flag",
                                          "object_map_skip", NULL};
const char *const stage_names[STAGE_COUNT] = {
    "client submit", "net to primary", "primary queue", "do_op + lock wait", "primary prepare",
    "local commit", "replica commit", "primary reply", "net to client", "client complete"};

const char *const replica_stage_names[REPLICA_STAGE_COUNT] = {
    "to replica", "replica queue", "replica commit", "back to primary"};

const uint32_t *cluster_acting(const struct cluster *c, uint32_t pg)
{
    return &c->acting[(size_t)pg * c->spec.pool_size];
}

uint32_t cluster_pg_local(const struct cluster *c, uint32_t pg, uint32_t osd)
{
    const uint32_t *acting = cluster_acting(c, pg);
    for (uint32_t r = 0; r < c->spec.pool_size; r++)
        if (acting[r] == osd)
            return c->pg_local[(size_t)pg * c->spec.pool_size + r];
    SIM_ASSERT(!"the OSD is not in the PG's acting set");
    return 0;
}

const char *cluster_subops_event(const struct cluster *c, uint32_t pg)
{
    return c->subops_event[pg];
}

/* pg_pool_t::raw_hash_to_pg: ceph_stable_mod(hash, pg_num, pg_num_mask) */
static uint32_t name_pg(const struct cluster *c, const char *name)
{
    uint32_t n = c->spec.pg_num, mask = 1;
    while (mask < n)
        mask <<= 1;
    return optrack_stable_mod(optrack_str_hash_rjenkins(name, strlen(name)), n, mask - 1);
}

uint32_t cluster_object_pg(const struct cluster *c, const struct image *img, uint64_t objno)
{
    char name[64];
    snprintf(name, sizeof name, "rbd_data.%" PRIx64 ".%016" PRIx64, img->spec.id, objno);
    return name_pg(c, name);
}

/* The "waiting for subops from 1,2" event of each PG: Ceph prints the replicas
   as a sorted set. */
static void subops_events(struct cluster *c)
{
    uint32_t size = c->spec.pool_size;
    for (uint32_t pg = 0; pg < c->spec.pg_num; pg++) {
        const uint32_t *acting = cluster_acting(c, pg);
        uint32_t rep[PLACEMENT_MAX_SIZE];
        uint32_t nr = size - 1;
        for (uint32_t r = 0; r < nr; r++)
            rep[r] = acting[r + 1];
        for (uint32_t a = 1; a < nr; a++)
            for (uint32_t b = a; b > 0 && rep[b - 1] > rep[b]; b--) {
                uint32_t t = rep[b];
                rep[b] = rep[b - 1];
                rep[b - 1] = t;
            }
        int n = snprintf(c->subops_event[pg], sizeof c->subops_event[pg], "waiting for subops from ");
        for (uint32_t r = 0; r < nr && n < (int)sizeof c->subops_event[pg]; r++)
            n += snprintf(c->subops_event[pg] + n, sizeof c->subops_event[pg] - (size_t)n, "%s%u",
                          r ? "," : "", rep[r]);
    }
}

/*
 * OSDMap::pg_to_up_acting_osds for every PG of the pool, through CRUSH
 * (placement.c: straw2, Jewel tunables, the pool's pps).  Without a user's
 * map, the map is the one a fresh cluster builds as its OSDs boot: root
 * "default", one host bucket per host, each OSD weighted by its device size
 * (osd_crush_initial_weight), rule 0 "replicated_rule" choosing leaves of
 * type host, or of type osd for failure_domain osd (or when there are fewer
 * hosts than replicas, like osd_crush_chooseleaf_type 0 on a one-host lab).
 */
static int place_pgs(struct cluster *c, struct sim_err *err)
{
    const struct cluster_spec *sp = &c->spec;
    uint32_t size = sp->pool_size;
    if (size > PLACEMENT_MAX_SIZE)
        return sim_errf(err, -EINVAL, "pool.size: at most %d replicas", PLACEMENT_MAX_SIZE);
    struct placement_map built;
    const struct placement_map *m = sp->crush;
    int32_t rule = sp->crush_rule;
    int rc = 0;
    if (!m) {
        placement_map_init(&built);
        /* no device size given: 1 TiB, i.e. weight 1.0 (crushtool --build's) */
        uint32_t w = placement_weight_from_bytes(sp->device_bytes ? sp->device_bytes : (1ull << 40));
        uint32_t *weights = sim_xcalloc(c->n_osds, sizeof *weights);
        for (uint32_t i = 0; i < c->n_osds; i++)
            weights[i] = w;
        struct placement_build_spec bs = {.hosts = sp->hosts, .osds_per_host = sp->osds_per_host,
                                          .weight = weights,
                                          .domain = sp->failure_domain_host ? PLACEMENT_DOMAIN_HOST : PLACEMENT_DOMAIN_OSD,
                                          .ec_size = sp->pool_erasure ? size : 0};
        rc = placement_build(&built, &bs, &rule, err);
        free(weights);
        if (rc < 0) {
            placement_map_fini(&built);
            return rc;
        }
        m = &built;
    }
    struct placement_osds osds;
    placement_osds_init(&osds, (int32_t)c->n_osds);
    struct placement_pool pool;
    placement_pool_init(&pool, sp->pool_id ? sp->pool_id : 2, size, sp->pg_num, rule);
    if (sp->pool_erasure) {
        /* the scenario's min_size: OSDMonitor::prepare_pool_size's k + min(1, m - 1) unless given */
        pool.type = PLACEMENT_POOL_ERASURE;
        pool.min_size = sp->pool_min_size;
    }
    int32_t *acting = sim_xcalloc((size_t)sp->pg_num * size, sizeof *acting);
    if ((rc = placement_pool_check(m, &pool, err)) == 0)
        rc = placement_map_pool(m, &osds, &pool, acting, NULL, err);
    c->acting = sim_xcalloc((size_t)sp->pg_num * size, sizeof *c->acting);
    for (size_t i = 0; rc == 0 && i < (size_t)sp->pg_num * size; i++) {
        if (acting[i] < 0 || (uint32_t)acting[i] >= c->n_osds)
            rc = sim_errf(err, -EINVAL, "pool.size: PG %" PRId64 ".%zx maps to fewer than %u OSDs through CRUSH "
                          "rule %d (too few failure domains)", pool.id, i / size, size, rule);
        else
            c->acting[i] = (uint32_t)acting[i];
    }
    free(acting);
    placement_osds_fini(&osds);
    if (!sp->crush)
        placement_map_fini(&built);
    if (rc < 0)
        return rc;
    c->subops_event = sim_xcalloc(sp->pg_num, sizeof *c->subops_event);
    subops_events(c);
    return 0;
}

/* The object map object's size: a BitVector<2> (2 bits per object) plus its
   header and per-block crcs [est]. */
static uint64_t object_map_bytes(uint64_t n_objects)
{
    return (n_objects + 3) / 4 + (n_objects / 16384 + 1) * 4 + 64;
}

static void image_init(struct cluster *c, struct image *img, const struct image_spec *spec,
                       struct image *parent, uint32_t index, const char *name)
{
    memset(img, 0, sizeof *img);
    img->spec = *spec;
    img->index = index;
    snprintf(img->name, sizeof img->name, "%s", name);
    img->object_size = 1ull << spec->order;
    img->n_objects = (spec->size_bytes + img->object_size - 1) / img->object_size;
    idmap_init(&img->objs, sizeof(struct obj_state), 256);
    img->parent = parent;
    img->copied_up_key = sim_fmix64(c->spec.seed ^ sim_fmix64(spec->id ^ 0x636f706965645570ull));
    img->map_bytes = object_map_bytes(img->n_objects);
    const struct rwlockq_policy *policy = osd_backend_for(&c->spec.rel)->obj_lock_policy;
    char oid[64];
    snprintf(oid, sizeof oid, "rbd_object_map.%" PRIx64, spec->id);
    img->map_obj.pg = name_pg(c, oid);
    img->map_obj.exists = img->map_obj.map_exists = true;
    rwlockq_init(&img->map_obj.lock, policy);
    snprintf(oid, sizeof oid, "rbd_header.%" PRIx64, spec->id);
    img->header.pg = name_pg(c, oid);
    img->header.exists = img->header.map_exists = true;
    rwlockq_init(&img->header.lock, policy);
}

static void image_fini(struct image *img)
{
    idmap_fini(&img->objs);
    free(img->watchers);
}

/* Was objno of a clone copied up before the run?  A uniform draw in [0, 1)
   from (seed, image id, objno), against copied_up. */
static bool copied_up_before(const struct image *img, uint64_t objno)
{
    uint64_t h = sim_fmix64(img->copied_up_key ^ sim_fmix64(objno + 0x9E3779B97F4A7C15ull));
    return (double)(h >> 11) * 0x1p-53 < img->spec.copied_up;
}

static bool written_before(const struct image *img, uint64_t objno)
{
    if (img->spec.written >= 1)
        return true;
    uint64_t h = sim_fmix64(img->copied_up_key ^ sim_fmix64(objno + 0x7772697474656e21ull));
    return (double)(h >> 11) * 0x1p-53 < img->spec.written;
}

struct obj_state *image_object(struct cluster *c, struct image *img, uint64_t objno)
{
    bool created;
    struct obj_state *o = idmap_get(&img->objs, objno, &created);
    if (created) {
        o->objno = objno;
        o->pg = cluster_object_pg(c, img, objno);
        rwlockq_init(&o->lock, osd_backend_for(&c->spec.rel)->obj_lock_policy);
        /* plain and flattened images were fully written before the run (as in the
           lab captures); a clone has copied_up of its objects copied up */
        /* a clone's objects exist once copied up; a plain image's once written
           (image.written: prefilled or fresh) - which ones, a hash of the object */
        o->exists = o->map_exists = img->spec.kind == IMAGE_CLONE ? copied_up_before(img, objno)
                                                                  : written_before(img, objno);
    }
    return o;
}

/* Image i's id: image 0 keeps the scenario's, the others derive a distinct one. */
static uint64_t image_id(uint64_t base, uint32_t i)
{
    return i ? (sim_fmix64(base ^ ((uint64_t)i * 0xC2B2AE3D27D4EB4Full)) & 0xffffffffffffull) | 0x100000000000ull
             : base;
}

static bool job_writes(const struct workload_job *j)
{
    switch (j->rw) {
    case FIO_RW_WRITE:
    case FIO_RW_RANDWRITE: return true;
    case FIO_RW_RW:
    case FIO_RW_RANDRW: return j->rwmixread < 100;
    default: return false;
    }
}

static int images_create(struct cluster *c, struct sim_err *err)
{
    const struct cluster_spec *sp = &c->spec;
    c->n_images = sp->image_count ? sp->image_count : 1;
    c->images = sim_xcalloc(c->n_images, sizeof *c->images);
    struct image *parent = NULL;
    if (sp->image.kind == IMAGE_CLONE) {
        /* one parent (the golden image's snapshot) under every clone */
        struct image_spec ps = sp->image;
        ps.kind = IMAGE_PLAIN;
        ps.id = sp->image.id ^ 0x5a5a5a5a5aull;
        image_init(c, &c->parent, &ps, NULL, UINT32_MAX, "parent");
        parent = &c->parent;
    }
    const char *base = sp->image.name[0] ? sp->image.name : "image";
    for (uint32_t i = 0; i < c->n_images; i++) {
        struct image_spec is = sp->image;
        is.id = image_id(sp->image.id, i);
        char name[64];
        if (c->n_images == 1)
            snprintf(name, sizeof name, "%s", sp->image.name);
        else
            snprintf(name, sizeof name, "%.50s-%u", base, i);
        for (uint32_t k = 0; k < i; k++)
            if (c->images[k].spec.id == is.id || (parent && parent->spec.id == is.id))
                return sim_errf(err, -EINVAL, "image.count: images %u and %u would share an id", k, i);
        image_init(c, &c->images[i], &is, parent, i, name);
    }
    return 0;
}

/* The image fio's rbd engine opens for a clone of job (rbd_open(rbdname)):
   the one its rbdname names; with volumes_per_client, one of the host's own;
   else the first (which answers to any name when image.name is unset). */
static struct image *job_image(struct cluster *c, const struct workload_job *job, uint32_t host_index,
                               uint32_t *dealt, struct sim_err *err)
{
    const struct cluster_spec *sp = &c->spec;
    if (job->rbdname[0])
        for (uint32_t i = 0; i < c->n_images; i++)
            if (!strcmp(c->images[i].name, job->rbdname))
                return &c->images[i];
    if (sp->volumes_per_client) {
        uint32_t v = sp->volumes_per_client, k = dealt[host_index]++ % v;
        SIM_ASSERT(host_index * v + k < c->n_images);
        return &c->images[host_index * v + k];
    }
    if (!job->rbdname[0] || !sp->image.name[0])
        return &c->images[0];
    char names[256] = "";
    for (uint32_t i = 0; i < c->n_images && strlen(names) < 200; i++)
        snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", i ? ", " : "", c->images[i].name);
    sim_errf(err, -ENOENT, "job '%s': rbdname=%s names no image (the images: %s)", job->name, job->rbdname, names);
    return NULL;
}

uint32_t cluster_spec_fio_hosts(const struct cluster_spec *spec)
{
    return spec->client_hosts ? spec->client_hosts : spec->clients_on_osd_hosts ? spec->hosts : 1;
}

uint32_t cluster_spec_fio_host(const struct cluster_spec *spec, uint32_t k)
{
    return spec->client_hosts ? spec->hosts + k : spec->clients_on_osd_hosts ? k : 0;
}

/* Log entries gathered per stage cost CPU on every stage (debug_* gather
   levels).  rocksdb's and bdev's count a quarter and a third of a level each
   [est: few of a stage's lines are theirs; no per-subsystem line count in the
   corpus], kept as fractions: debug_bdev's default gather level 3 ("1/3") is
   one level, debug_bdev 1 a third, not nothing. */
static double log_cost(const struct cluster_spec *sp)
{
    const struct ceph_options *o = &sp->ceph;
    double levels = o->debug_osd + o->debug_ms + o->debug_bluestore + o->debug_rocksdb / 4.0 + o->debug_bdev / 3.0;
    return levels * sp->cost.log_entries_per_stage_per_level * sp->cost.log_entry_us / 3.0;
}

/* The OSD whose drive OSD id shares (ceph-volume --osds-per-device: the
   host's OSDs k*n .. k*n+n-1 share the first one's); id itself otherwise. */
uint32_t osd_drive_first(const struct cluster *c, uint32_t id)
{
    uint32_t per = c->spec.osds_per_nvme;
    if (per > 1 && !c->spec.crush && c->spec.osds_per_host)
        return id - (id % c->spec.osds_per_host) % per;
    return id;
}

static uint32_t osd_host_of(const struct cluster_spec *sp, uint32_t id)
{
    return sp->crush ? sp->osd_host[id] : id / sp->osds_per_host;
}

uint32_t osd_cpuset_index(const struct cluster *c, uint32_t id)
{
    switch (c->spec.osd_cpus_scope) {
    case OSD_CPUS_PER_NVME: return osd_drive_first(c, id);
    case OSD_CPUS_PER_HOST: return osd_host_of(&c->spec, id);
    case OSD_CPUS_PER_OSD: break;
    }
    return id;
}

/*
 * The CPU sets when the OSDs are confined to them (numactl --physcpubind,
 * cpuset.cpus): the set's hardware threads are its own, so an OSD queues for
 * its set's cores, not the host's.  A set is osd_cpus hardware threads for
 * one OSD or one drive's OSDs; a host's set is osd_cpus per drive of the host,
 * all its OSDs queueing for all of them (one list for every ceph-osd).  The
 * boost limit is the socket's: with every OSD of the host busy (the
 * high-depth runs such limits are set for), the active cores are the host's
 * sets together, capped at its cores [simplification: a lightly loaded host
 * would boost higher].
 */
static void osd_cpusets_init(struct cluster *c)
{
    const struct cluster_spec *sp = &c->spec;
    uint32_t n_sets = c->n_osds > sp->hosts ? c->n_osds : sp->hosts;
    c->osd_cpusets = sim_xcalloc(n_sets, sizeof *c->osd_cpusets);
    c->osd_cpuset_host = sim_xcalloc(n_sets, sizeof *c->osd_cpuset_host);
    uint32_t *osds = sim_xcalloc(2 * (size_t)sp->hosts, sizeof *osds), *drives = osds + sp->hosts; /* per host */
    for (uint32_t k = 0; k < n_sets; k++)
        c->osd_cpuset_host[k] = UINT32_MAX;
    for (uint32_t i = 0; i < c->n_osds; i++) {
        uint32_t h = osd_host_of(sp, i);
        osds[h]++;
        drives[h] += osd_drive_first(c, i) == i;
        c->osd_cpuset_host[osd_cpuset_index(c, i)] = h;
    }
    uint32_t set_cores = sp->osd_cpus_smt ? (sp->osd_cpus + 1) / 2 : sp->osd_cpus;
    uint32_t host_cores = sp->cpu.cores ? sp->cpu.cores : set_cores;
    for (uint32_t k = 0; k < n_sets; k++) {
        uint32_t h = c->osd_cpuset_host[k];
        if (h == UINT32_MAX)
            continue;
        /* a host's set holds every drive's share; the others one */
        uint32_t mult = sp->osd_cpus_scope == OSD_CPUS_PER_HOST ? drives[h] : 1;
        uint32_t cores = set_cores * mult;
        uint32_t active = set_cores * (sp->osd_cpus_scope == OSD_CPUS_PER_OSD ? osds[h] : drives[h]);
        if (active > host_cores)
            active = host_cores;
        double socket_boost = cpu_boost_limit_ghz(&sp->cpu, active);
        struct cpu_params cp = sp->cpu;
        cp.index = c->n_hosts + k; /* its own random stream, after the hosts' */
        cp.cores = cores;
        cp.threads = sp->osd_cpus * mult;
        if (cp.ccx_cores == 0 || cp.ccx_cores > cores)
            cp.ccx_cores = cores;
        if (cp.boost_clock_ghz > 0 && socket_boost < cp.boost_clock_ghz) {
            cp.boost_clock_ghz = socket_boost;
            if (cp.all_core_clock_ghz > socket_boost)
                cp.all_core_clock_ghz = socket_boost;
        }
        cpu_host_init(&c->osd_cpusets[k], c->s, &cp);
    }
    c->n_osd_cpusets = n_sets;
    free(osds);
}

struct cluster *cluster_create(const struct cluster_spec *spec, struct sim_err *err)
{
    if (spec->pool_size < 1 || spec->pg_num < 1 || spec->hosts < 1 || spec->osds_per_host < 1) {
        sim_errf(err, -EINVAL, "cluster: hosts, osds_per_host, pool.size and pool.pg_num must be >= 1");
        return NULL;
    }
    uint32_t n_osds = spec->crush ? spec->n_osds : spec->hosts * spec->osds_per_host;
    if (spec->pool_size > n_osds) {
        sim_errf(err, -EINVAL, "pool.size: %u replicas need at least %u OSDs (the cluster has %u)",
                 spec->pool_size, spec->pool_size, n_osds);
        return NULL;
    }
    if (spec->crush && !spec->osd_host) {
        sim_errf(err, -EINVAL, "cluster: a CRUSH map needs the host of every OSD");
        return NULL;
    }
    if (!spec->jobs.jobs || spec->jobs.n_jobs < 1) {
        sim_errf(err, -EINVAL, "clients: no fio job to run");
        return NULL;
    }
    struct cluster *c = sim_xcalloc(1, sizeof *c);
    c->spec = *spec;
    c->s = sim_create(spec->seed);
    c->lock_rule = ceph_rw_lock_rule(&spec->ceph, &spec->rel);
    c->log_cost_us = log_cost(spec);
    pool_init(&c->op_pool, sizeof(struct osd_op), 256);
    pool_init(&c->rados_pool, sizeof(struct rados_op), 256);
    pool_init(&c->io_pool, sizeof(struct fio_io), 256);
    pool_init(&c->msg_pool, sizeof(struct msgr_msg), 256);

    c->n_hosts = spec->hosts + spec->client_hosts;
    c->hosts = sim_xcalloc(c->n_hosts, sizeof *c->hosts);
    for (uint32_t h = 0; h < c->n_hosts; h++) {
        struct cpu_params cp = spec->cpu;
        cp.index = h;
        cpu_host_init(&c->hosts[h], c->s, &cp);
    }
    net_init(&c->net, c->s, &spec->net, c->n_hosts);
    c->net.busy_poll = spec->cpu.busy_poll_us > 0; /* every host's net.core.busy_poll */

    c->n_osds = n_osds;
    if (spec->osd_cpus > 0)
        osd_cpusets_init(c);
    if (place_pgs(c, err) < 0) {
        c->n_osds = 0;
        cluster_destroy(c);
        return NULL;
    }
    /* each OSD's PGs in one pass over the acting sets: O(pg_num x size) */
    uint32_t *n_local = sim_xcalloc(c->n_osds, sizeof *n_local);
    for (size_t i = 0; i < (size_t)spec->pg_num * spec->pool_size; i++)
        n_local[c->acting[i]]++;
    c->osds = sim_xcalloc(c->n_osds, sizeof *c->osds);
    for (uint32_t i = 0; i < c->n_osds; i++)
        osd_init(&c->osds[i], c, i, osd_host_of(spec, i), n_local[i]);
    free(n_local);
    c->pg_local = sim_xcalloc((size_t)spec->pg_num * spec->pool_size, sizeof *c->pg_local);
    for (uint32_t pg = 0; pg < spec->pg_num; pg++)
        for (uint32_t r = 0; r < spec->pool_size; r++) {
            size_t k = (size_t)pg * spec->pool_size + r;
            c->pg_local[k] = osd_add_pg(&c->osds[c->acting[k]], pg, r == 0);
        }

    if (images_create(c, err) < 0)
        goto fail;
    /* image.cached: what earlier jobs left in each primary's data cache, as a
       share of the data (images and parent) it is primary for */
    if (spec->image.cached > 0) {
        uint64_t blocks = (uint64_t)c->n_images * (spec->image.size_bytes >> 12);
        if (spec->image.kind == IMAGE_CLONE)
            blocks += spec->image.size_bytes >> 12;
        /* each OSD's primary blocks per cache shard (a PG's: ps % shards): the
           objects that exist, each in its PG, as long as there are at most
           2^20 of them to place; beyond, the blocks spread evenly over the PGs
           (the lumps of a few objects per PG matter only for small images) */
        uint32_t n_shards = bluestore_cache_shards(&spec->ceph);
        uint64_t *per = sim_xcalloc((size_t)c->n_osds * n_shards, sizeof *per);
        uint64_t objects = 0;
        for (uint32_t i = 0; i < c->n_images; i++)
            objects += c->images[i].n_objects;
        if (spec->image.kind == IMAGE_CLONE)
            objects += c->parent.n_objects;
        if (objects <= 1u << 20) {
            for (uint32_t i = 0; i <= c->n_images; i++) {
                const struct image *img = i < c->n_images ? &c->images[i] : &c->parent;
                if (i == c->n_images && spec->image.kind != IMAGE_CLONE)
                    break;
                uint64_t obj_blocks = img->object_size >> 12;
                for (uint64_t k = 0; k < img->n_objects; k++) {
                    bool exists = img == &c->parent ? true
                                  : img->spec.kind == IMAGE_CLONE ? copied_up_before(img, k)
                                                                  : written_before(img, k);
                    if (!exists)
                        continue;
                    uint32_t pg = cluster_object_pg(c, img, k);
                    per[(size_t)c->acting[(size_t)pg * spec->pool_size] * n_shards + pg % n_shards] += obj_blocks;
                }
            }
        } else {
            double per_pg = (double)blocks / spec->pg_num;
            for (uint32_t pg = 0; pg < spec->pg_num; pg++)
                per[(size_t)c->acting[(size_t)pg * spec->pool_size] * n_shards + pg % n_shards] += 1;
            for (size_t k = 0; k < (size_t)c->n_osds * n_shards; k++)
                per[k] = (uint64_t)((double)per[k] * per_pg);
        }
        for (uint32_t i = 0; i < c->n_osds; i++) {
            struct osd *o = &c->osds[i];
            if (o->store_ops->warm_cache)
                o->store_ops->warm_cache(o->store, spec->image.cached, per + (size_t)i * n_shards);
        }
        free(per);
    }

    /* fio's rbd engine opens its own rados connection and image in every job
       thread (numjobs clones included): one client (librbd instance) each */
    const struct workload *jf = &spec->jobs;
    for (int j = 0; j < jf->n_jobs; j++)
        c->n_results += jf->jobs[j].numjobs;
    c->n_clients = c->n_results;
    c->clients = sim_xcalloc(c->n_clients, sizeof *c->clients);
    c->results = sim_xcalloc(c->n_results, sizeof *c->results);
    uint32_t n_hosts_clients = cluster_spec_fio_hosts(spec);
    uint32_t *dealt = sim_xcalloc(n_hosts_clients, sizeof *dealt);
    uint32_t slot = 0;
    for (int j = 0; j < jf->n_jobs; j++) {
        const struct workload_job *job = &jf->jobs[j];
        for (uint32_t k = 0; k < job->numjobs; k++, slot++) {
            uint32_t host_index = slot % n_hosts_clients;
            uint32_t host = cluster_spec_fio_host(spec, host_index);
            struct image *img = job_image(c, job, host_index, dealt, err);
            if (!img) {
                free(dealt);
                goto fail;
            }
            struct client *cl = &c->clients[slot];
            if (job->kernel_client && img->parent) {
                free(dealt);
                sim_errf(err, -EINVAL, "job '%s': the kernel client (krbd) on a clone image is not modelled "
                         "(rbd_obj_copyup)", job->name);
                goto fail;
            }
            /* fio ioengine=rbd: librbd; a block engine on /dev/rbdN: the kernel
               client, one mapping per device and host that every job on it shares */
            struct client *mapping = NULL;
            for (uint32_t m = 0; job->kernel_client && m < slot && !mapping; m++) {
                const struct client *o = &c->clients[m];
                if (o->ops == &krbd_client_ops && o->mapping == o && o->host == host &&
                    !strcmp(o->workers[0].job->filename, job->filename))
                    mapping = &c->clients[m];
            }
            if (mapping) {
                krbd_client_join(cl, mapping);
                img = mapping->ictx.img; /* the device's image, whatever was dealt */
                cl->ictx.img = img;
            } else {
                const struct client_ops *ops = job->kernel_client ? &krbd_client_ops : &librbd_client_ops;
                struct cpu_pool *before = cpu_host_last_pool(&c->hosts[host]);
                ops->init(cl, c, slot, host); /* init sets cl->ops */
                /* librbd runs inside fio's process; krbd's threads are the kernel's */
                cpu_host_label_pools(&c->hosts[host], before, job->kernel_client ? "kernel" : "fio");
                cl->ictx.img = img;
                img->n_watchers++;
            }
            cl->n_workers = 1;
            cl->workers = sim_xcalloc(1, sizeof *cl->workers);
            struct fio_worker *w = &cl->workers[0];
            w->cl = cl;
            w->job = job;
            w->index = slot;
            cpu_pool_init(&w->thread, &c->hosts[host], "fio", 1);
            w->thread.process = "fio";
            uint64_t img_size = img->n_objects * img->object_size;
            uint64_t off = job->offset_pct > 0 ? (uint64_t)(job->offset_pct / 100.0 * img_size) : job->offset;
            uint64_t len = job->size ? job->size
                           : job->size_pct > 0 ? (uint64_t)(job->size_pct / 100.0 * img_size) : img_size;
            if (off >= img_size) {
                free(dealt);
                sim_errf(err, -EINVAL, "job '%s': offset=%" PRIu64 " is at or beyond the end of the image "
                         "(%" PRIu64 " bytes)", job->name, off, img_size);
                goto fail;
            }
            if (off + len > img_size)
                len = img_size - off;
            w->region_off = off;
            w->region_len = len;
            w->io_limit = job->io_size ? job->io_size
                          : job->io_size_pct > 0 ? (uint64_t)((double)len * job->io_size_pct / 100.0) : len;
            fiogen_init(&w->gen, c->s, job, slot + 1, len); /* fio's thread_number is 1-based */
            struct job_result *r = &c->results[slot];
            snprintf(r->jobname, sizeof r->jobname, "%s", job->name);
            r->groupid = job->groupid;
            r->job_index = (uint32_t)j;
            r->iodepth = job->iodepth;
            for (int d = 0; d < FIO_DDIR_NR; d++) {
                hist_reset(&r->dir[d].slat);
                hist_reset(&r->dir[d].clat);
                hist_reset(&r->dir[d].lat);
            }
        }
    }
    free(dealt);
    /* ImageWatcher::register_watch at rbd_open: every opener watches the header;
       the first that writes holds the exclusive lock from the start */
    for (uint32_t i = 0; i < c->n_images; i++) {
        struct image *img = &c->images[i];
        img->watchers = sim_xcalloc(img->n_watchers ? img->n_watchers : 1, sizeof *img->watchers);
        img->n_watchers = 0;
    }
    for (uint32_t i = 0; i < c->n_clients; i++) {
        struct client *cl = &c->clients[i];
        struct image *img = cl->ictx.img;
        if (cl->ops == &krbd_client_ops && cl->mapping != cl)
            continue; /* a further job on a mapping: the mapping watches and locks */
        bool owner = job_writes(cl->workers[0].job) && !img->header.cls_lock_owner;
        if (cl->ops == &krbd_client_ops && job_writes(cl->workers[0].job) && !owner) {
            sim_errf(err, -EINVAL, "job '%s': a kernel client (krbd) writing an image another client writes is "
                     "not modelled (rbd_try_acquire_lock handover)", cl->workers[0].job->name);
            goto fail;
        }
        if (cl->ops != &krbd_client_ops && job_writes(cl->workers[0].job) && img->header.cls_lock_owner) {
            for (uint32_t k = 0; k < img->n_watchers; k++)
                if (img->watchers[k]->ops == &krbd_client_ops && job_writes(img->watchers[k]->workers[0].job)) {
                    sim_errf(err, -EINVAL, "job '%s': writes an image a kernel client (krbd) writes: the lock "
                             "handover is not modelled", cl->workers[0].job->name);
                    goto fail;
                }
        }
        img->watchers[img->n_watchers++] = cl;
        exclusive_lock_init(cl, owner);
    }
    return c;
fail:
    cluster_destroy(c);
    return NULL;
}

const char *cluster_client_kind(const struct cluster *c, uint32_t i)
{
    return i < c->n_clients ? c->clients[i].ops->name : NULL;
}

/* An op still in flight when the run ends owns its overflow events. */
static void release_live_op(void *obj, void *ctx)
{
    optrack_release(&((struct osd_op *)obj)->track);
}

void cluster_destroy(struct cluster *c)
{
    if (!c)
        return;
    pool_visit_in_use(&c->op_pool, release_live_op, NULL);
    for (uint32_t i = 0; i < c->n_clients; i++)
        if (c->clients[i].ops)
            c->clients[i].ops->fini(&c->clients[i]);
    free(c->clients);
    for (uint32_t i = 0; i < c->n_osds; i++)
        osd_fini(&c->osds[i]);
    free(c->osds);
    for (uint32_t i = 0; i < c->n_images; i++)
        image_fini(&c->images[i]);
    free(c->images);
    if (c->spec.image.kind == IMAGE_CLONE && c->parent.object_size)
        image_fini(&c->parent);
    net_fini(&c->net);
    free(c->hosts);
    free(c->osd_cpusets);
    free(c->osd_cpuset_host);
    free(c->acting);
    free(c->pg_local);
    free(c->subops_event);
    free(c->results);
    pool_fini(&c->op_pool);
    pool_fini(&c->rados_pool);
    pool_fini(&c->io_pool);
    pool_fini(&c->msg_pool);
    sim_destroy(c->s);
    free(c);
}

void cluster_account_stages(struct cluster *c, const struct fio_io *io)
{
    const sim_time_t *st = io->st;
    sim_time_t now = sim_now(c->s);
    sim_time_t commit = st[STAGE_LOCAL_COMMIT] > st[STAGE_REPLICA_COMMIT] ? st[STAGE_LOCAL_COMMIT]
                                                                           : st[STAGE_REPLICA_COMMIT];
    sim_time_t mark[STAGE_COUNT + 1] = {
        io->t_issue, st[STAGE_CLIENT_SUBMIT], st[STAGE_NET_TO_PRIMARY], st[STAGE_PRIMARY_QUEUE],
        st[STAGE_PRIMARY_LOCK_WAIT], st[STAGE_PRIMARY_PREPARE], st[STAGE_PRIMARY_PREPARE], commit,
        st[STAGE_PRIMARY_REPLY], st[STAGE_NET_TO_CLIENT], now};
    /* stage i runs from mark[i] to its end; local and replica commits overlap */
    sim_time_t end[STAGE_COUNT] = {mark[1], mark[2], mark[3], mark[4], mark[5],
                                   st[STAGE_LOCAL_COMMIT], st[STAGE_REPLICA_COMMIT], mark[8], mark[9], mark[10]};
    for (int i = 0; i < STAGE_COUNT; i++)
        if (end[i] >= mark[i])
            c->stage_sum[i] += (double)(end[i] - mark[i]);
    c->stage_n++;
    const sim_time_t *r = io->rep;
    sim_time_t sub = st[STAGE_PRIMARY_PREPARE], back = st[STAGE_REPLICA_COMMIT];
    if (r[0] >= sub && r[1] >= r[0] && r[2] >= r[1] && back >= r[2]) {
        c->replica_sum[REPLICA_NET_IN] += (double)(r[0] - sub);
        c->replica_sum[REPLICA_QUEUE] += (double)(r[1] - r[0]);
        c->replica_sum[REPLICA_COMMIT] += (double)(r[2] - r[1]);
        c->replica_sum[REPLICA_NET_BACK] += (double)(back - r[2]);
        c->replica_n++;
    }
}

void cluster_replica_stage_means(const struct cluster *c, double out_ns[REPLICA_STAGE_COUNT])
{
    for (int i = 0; i < REPLICA_STAGE_COUNT; i++)
        out_ns[i] = c->replica_n ? c->replica_sum[i] / (double)c->replica_n : 0;
}

void cluster_stage_means(const struct cluster *c, double out_ns[STAGE_COUNT], uint64_t *n)
{
    for (int i = 0; i < STAGE_COUNT; i++)
        out_ns[i] = c->stage_n ? c->stage_sum[i] / (double)c->stage_n : 0;
    *n = c->stage_n;
}

void cluster_set_io_observer(struct cluster *c, const struct cluster_io_observer *o)
{
    c->io_obs = o ? *o : (struct cluster_io_observer){0};
}

sim_time_t cluster_measure_start(const struct cluster *c) { return c->t_measure_start; }

static void start_measuring(struct sim *s, void *obj, uint64_t arg)
{
    struct cluster *c = obj;
    c->measuring = true;
    c->t_measure_start = sim_now(s);
    /* the clients' perf reset: counters from now, gauges and limits kept */
    for (uint32_t i = 0; i < c->n_clients; i++) {
        struct objecter_perf *p = &c->clients[i].operf;
        struct perf_throttle to = p->throttle_ops, tb = p->throttle_bytes;
        uint64_t active = p->op_active;
        *p = (struct objecter_perf){.op_active = active};
        p->throttle_ops = (struct perf_throttle){.val = to.val, .max = to.max};
        p->throttle_bytes = (struct perf_throttle){.val = tb.val, .max = tb.max};
    }
    /* fio's reset_all_stats after ramp_time restarts the job's rusage: its CPU and switches */
    for (uint32_t i = 0; i < c->n_clients; i++)
        for (uint32_t k = 0; k < c->clients[i].n_workers; k++) {
            struct fio_worker *w = &c->clients[i].workers[k];
            w->busy_ns_at_start = w->thread.threads[0].busy_ns;
            w->wakeups_at_start = w->thread.threads[0].wakeups;
        }
    for (uint32_t i = 0; i < c->n_clients; i++)
        c->clients[i].cpu_ns_at_start = c->clients[i].ops->cpu_ns(&c->clients[i]);
    for (uint32_t h = 0; h < c->n_hosts; h++)
        cpu_host_reset_stats(&c->hosts[h]);
    for (uint32_t k = 0; k < c->n_osd_cpusets; k++)
        if (c->osd_cpuset_host[k] != UINT32_MAX)
            cpu_host_reset_stats(&c->osd_cpusets[k]);
    net_reset_stats(&c->net);
    for (uint32_t i = 0; i < c->n_osds; i++)
        osd_reset_stats(&c->osds[i]);
    memset(c->stage_sum, 0, sizeof c->stage_sum);
    c->stage_n = 0;
    memset(c->replica_sum, 0, sizeof c->replica_sum);
    c->replica_n = 0;
}

void cluster_run(struct cluster *c, void (*progress)(void *ctx, double done), void *ctx)
{
    struct sim *s = c->s;
    for (uint32_t i = 0; i < c->n_clients; i++)
        c->clients[i].ops->start(&c->clients[i]);
    sim_schedule(s, c->spec.warmup_ns, start_measuring, c, 0);
    c->t_end = c->spec.warmup_ns + c->spec.duration_ns;
    if (progress) {
        for (int i = 1; i <= 100; i++) {
            sim_run(s, c->t_end / 100 * (sim_time_t)i + (i == 100 ? c->t_end % 100 : 0));
            progress(ctx, i / 100.0);
        }
    } else {
        sim_run(s, c->t_end);
    }
    c->measuring = false;
    sim_time_t measured = sim_now(s) - c->t_measure_start;
    uint32_t secs = (uint32_t)(measured / SIM_NS_PER_S);
    for (uint32_t i = 0; i < c->n_results; i++) {
        struct job_result *r = &c->results[i];
        r->runtime_ns = measured;
        for (int d = 0; d < FIO_DDIR_NR; d++)
            r->dir[d].n_samples = secs < 1024 ? secs : 1024;
    }
    /*
     * The fio thread's getrusage(RUSAGE_THREAD) over the measured time, as
     * fio's update_rusage_stat takes it: usr = the CPU its work items used
     * (fio's own submit and reap, the librbd calls made on it); sys = its
     * sleeps and wake-ups, each a futex wait plus a wake (the scheduler's
     * wake cost, cpu wake_us: kernel time of the woken thread; the C-state
     * exit is idle hardware time, not the thread's); ctx = its voluntary
     * switches, one per sleep it was woken from.
     */
    for (uint32_t i = 0; i < c->n_clients; i++)
        for (uint32_t k = 0; k < c->clients[i].n_workers; k++) {
            struct fio_worker *w = &c->clients[i].workers[k];
            const struct cpu_thread *th = &w->thread.threads[0];
            struct job_result *r = &c->results[w->index];
            uint64_t wakes = th->wakeups - w->wakeups_at_start;
            /* busy_ns counts an item when it runs, so one that straddles the
               reset can put a saturated thread a hair over the window */
            double busy = th->busy_ns - w->busy_ns_at_start;
            if (busy > (double)measured)
                busy = (double)measured;
            double sys = (double)wakes * w->thread.host->p.wake_us * 1e3;
            r->usr_cpu = measured ? 100.0 * busy / (double)measured : 0;
            r->sys_cpu = measured ? 100.0 * sys / (double)measured : 0;
            r->ctx = wakes;
        }
}

struct sim *cluster_sim(struct cluster *c) { return c->s; }
uint32_t cluster_n_osds(const struct cluster *c) { return c->n_osds; }
int64_t cluster_wall_epoch_ns(const struct cluster *c) { return c->spec.wall_epoch_ns; }
const struct osd_perf *cluster_osd_perf(const struct cluster *c, uint32_t osd) { return &c->osds[osd].perf; }
const struct bluestore_perf *cluster_bluestore_perf(const struct cluster *c, uint32_t osd)
{
    const struct osd *o = &c->osds[osd];
    return o->store_ops->bluestore_perf ? o->store_ops->bluestore_perf(o->store) : NULL;
}
const struct optracker *cluster_optracker(const struct cluster *c, uint32_t osd) { return &c->osds[osd].tracker; }
uint32_t cluster_n_clients(const struct cluster *c) { return c->n_clients; }

uint32_t cluster_osd_msgr_workers(const struct cluster *c, uint32_t osd, const struct msgr_worker_perf **perf,
                                  uint64_t *running_ns, uint32_t max)
{
    const struct osd *o = &c->osds[osd];
    *perf = o->msgr_perf;
    if (!o->msgr_perf)
        return 0;
    for (uint32_t i = 0; running_ns && i < o->n_msgr && i < max; i++)
        running_ns[i] = (uint64_t)(o->msgr[i].threads[0].busy_ns - o->msgr_perf[i].busy_ns_at_reset);
    return o->n_msgr;
}
const struct objecter_perf *cluster_client_objecter_perf(const struct cluster *c, uint32_t i)
{
    return &c->clients[i].operf;
}
uint32_t cluster_n_jobs(const struct cluster *c) { return c->n_results; }
const struct job_result *cluster_job_results(const struct cluster *c) { return c->results; }

void cluster_stats(const struct cluster *c, struct cluster_stats *out)
{
    *out = (struct cluster_stats){
        .events = sim_events(c->s),
        .measured_ns = sim_now(c->s) - c->t_measure_start,
        .rw_lock_rule = c->lock_rule == RW_LOCK_RULE_EXCL_IF_READ ? "excl_if_read" : "excl_if_read_data",
        .n_hosts = c->n_hosts,
        .n_osd_hosts = c->spec.hosts,
        .n_osds = c->n_osds,
        .peak_ops_in_flight = c->op_pool.peak,
        .n_images = c->n_images,
        .n_clients = c->n_clients,
    };
    for (uint32_t i = 0; i < c->n_images; i++) {
        out->object_states += idmap_count(&c->images[i].objs);
        out->object_state_bytes += idmap_bytes(&c->images[i].objs);
    }
    if (c->spec.image.kind == IMAGE_CLONE) {
        out->object_states += idmap_count(&c->parent.objs);
        out->object_state_bytes += idmap_bytes(&c->parent.objs);
    }
    for (uint32_t i = 0; i < c->n_clients; i++) {
        out->client_object_states += idmap_count(&c->clients[i].ictx.objs);
        out->object_state_bytes += idmap_bytes(&c->clients[i].ictx.objs);
    }
}

void cluster_client_stats(const struct cluster *c, uint32_t i, struct cluster_client_stats *out)
{
    const struct client *cl = &c->clients[i];
    const struct rbd_lock_stats *l = &cl->ictx.lock;
    *out = (struct cluster_client_stats){
        .client = 4100 + cl->id, /* as osd.c prints it */
        .image = cl->ictx.img->index,
        .image_name = cl->ictx.img->name,
        .lock_acquisitions = l->acquisitions,
        .lock_releases = l->releases,
        .lock_requests_sent = l->requests_sent,
        .lock_requests_received = l->requests_received,
        .lock_busy = l->lock_busy,
        .notifies_sent = l->notifies_sent,
        .notifies_received = l->notifies_received,
        .writes_blocked = l->writes_blocked,
        .lock_wait_ns = (double)l->blocked_ns,
    };
}

void cluster_image_stats(const struct cluster *c, uint32_t i, struct cluster_image_stats *out)
{
    const struct image *img = &c->images[i];
    *out = (struct cluster_image_stats){
        .name = img->name,
        .id = img->spec.id,
        .openers = img->n_watchers,
        .objects_touched = idmap_count(&img->objs),
    };
}

void cluster_host_stats(const struct cluster *c, uint32_t h, struct cluster_host_stats *out)
{
    const struct cpu_host *ch = &c->hosts[h];
    *out = (struct cluster_host_stats){
        .osd_host = h < c->spec.hosts,
        .busy_cores = cpu_host_busy_cores(ch),
        .cpu_busy_ns = ch->busy_ns_total,
        .cpu_utilisation = station_utilisation(&ch->cores),
        .wakeups = ch->wakeups,
        .wake_ns_total = ch->wake_ns_total,
    };
    for (uint32_t i = 0; i < c->n_clients; i++)
        if (c->clients[i].host == h)
            out->client_cpu_ns += c->clients[i].ops->cpu_ns(&c->clients[i]) - c->clients[i].cpu_ns_at_start;
    /* OSDs confined to CPU sets ran on their sets: count them with their host */
    uint32_t set_threads = 0;
    for (uint32_t k = 0; k < c->n_osd_cpusets; k++) {
        if (c->osd_cpuset_host[k] != h)
            continue;
        const struct cpu_host *os = &c->osd_cpusets[k];
        out->busy_cores += cpu_host_busy_cores(os);
        out->cpu_busy_ns += os->busy_ns_total;
        out->wakeups += os->wakeups;
        out->wake_ns_total += os->wake_ns_total;
        set_threads += os->cores.servers;
    }
    if (set_threads > 0)
        out->cpu_utilisation = out->busy_cores / (double)(set_threads + ch->cores.servers);
}

static uint32_t add_thread_stats(const struct cpu_host *h, struct cluster_thread_stats *out, uint32_t n,
                                 uint32_t max)
{
    for (const struct cpu_pool *p = cpu_host_first_pool(h); p; p = p->host_next) {
        const char *process = p->process ? p->process : "";
        uint32_t k = 0;
        while (k < n && (strcmp(out[k].name, p->name) || strcmp(out[k].process, process)))
            k++;
        if (k == n) {
            if (n == max)
                continue; /* more kinds than the caller has room for */
            out[n++] = (struct cluster_thread_stats){.process = process, .name = p->name};
        }
        out[k].threads += p->n_threads;
        out[k].cpu_ns += cpu_pool_busy_ns_since_reset(p);
        out[k].wakeups += cpu_pool_wakeups_since_reset(p);
    }
    return n;
}

uint32_t cluster_host_thread_stats(const struct cluster *c, uint32_t h, struct cluster_thread_stats *out,
                                   uint32_t max)
{
    uint32_t n = add_thread_stats(&c->hosts[h], out, 0, max);
    for (uint32_t k = 0; k < c->n_osd_cpusets; k++)
        if (c->osd_cpuset_host[k] == h)
            n = add_thread_stats(&c->osd_cpusets[k], out, n, max);
    return n;
}

uint32_t cluster_process_thread_stats(const struct cluster *c, const char *process, struct cluster_thread_stats *out,
                                      uint32_t max)
{
    uint32_t n = 0;
    for (uint32_t h = 0; h < c->n_hosts; h++) {
        struct cluster_thread_stats ts[CLUSTER_THREAD_KINDS_MAX];
        uint32_t nk = cluster_host_thread_stats(c, h, ts, CLUSTER_THREAD_KINDS_MAX);
        for (uint32_t k = 0; k < nk; k++) {
            if (strcmp(ts[k].process, process))
                continue;
            uint32_t i = 0;
            while (i < n && strcmp(out[i].name, ts[k].name))
                i++;
            if (i == n) {
                if (n == max)
                    continue;
                out[n++] = (struct cluster_thread_stats){.process = ts[k].process, .name = ts[k].name};
            }
            out[i].threads += ts[k].threads;
            out[i].cpu_ns += ts[k].cpu_ns;
            out[i].wakeups += ts[k].wakeups;
        }
    }
    return n;
}

void cluster_osd_stats(const struct cluster *c, uint32_t osd, struct cluster_osd_stats *out)
{
    const struct osd *o = &c->osds[osd];
    *out = (struct cluster_osd_stats){
        .device_utilisation = nvme_utilisation(&o->dev),
        .device_reads = o->dev.reads,
        .device_writes = o->dev.writes,
        .device_flushes = o->dev.flushes,
    };
    const struct bluestore_perf *bp = o->store_ops->bluestore_perf ? o->store_ops->bluestore_perf(o->store) : NULL;
    if (bp) {
        out->txcs = bp->bluestore_txc;
        out->kv_batches = bp->kv_batches;
    }
}
