/*
 * grid.h - sweep grids: a base scenario, fixed overrides and axes of scenario
 * paths, expanded into points; each point's stable id.
 *
 * A grid file (JSON; explorer/README.md has the full reference):
 *   {"base": "scenarios/qd1-latency.json", "set": {"sim.duration_s": 1},
 *    "axes": {"fio.iodepth": [1, 16, 128],
 *             "ceph.bluestore_min_alloc_size_ssd": {"from": 4096, "to": 65536, "steps": 5, "scale": "log2"},
 *             "design": {"alternatives": {"pre-fix": {"ceph.release": "16.2.14"}, ...}}},
 *    "zip": [["fio.iodepth", "fio.numjobs"]], "sample": {"method": "sobol", "n": 64},
 *    "replications": 2}
 * Axes are crossed (cartesian, first axis slowest) except zip groups, which
 * move together, and range axes under "sample", which are drawn together
 * (Sobol: gsl_qrng_sobol; random: gsl_rng_mt19937) as one factor of n points.
 *
 * A point's id is the SHA-256 (first 128 bits, hex) of its canonical resolved
 * parameters (scenario_resolved_json without sim.seed and sim.replications,
 * keys sorted), its seed and the cephsim version: same parameters, same id.
 */
#ifndef CEPHSIM_EXPLORER_GRID_H
#define CEPHSIM_EXPLORER_GRID_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <cjson/cJSON.h>

#include "err.h"

#define GRID_NAME_MAX 128
#define GRID_ID_LEN 32 /* hex characters of a point id */
#define GRID_MAX_POINTS 10000000

enum grid_axis_kind { GRID_AXIS_LIST, GRID_AXIS_RANGE, GRID_AXIS_ALTERNATIVES };
enum grid_sample_method { GRID_SAMPLE_NONE, GRID_SAMPLE_RANDOM, GRID_SAMPLE_SOBOL };

/* One value of an axis: its column value and the overrides it stands for. */
struct grid_entry {
    cJSON *value;  /* number, string or bool (alternatives: the label) */
    int n_sets;
    char **sets;   /* "path=value" */
};

struct grid_axis {
    char name[GRID_NAME_MAX]; /* a scenario path, or the name of a set of alternatives */
    enum grid_axis_kind kind;
    int n_entries;
    struct grid_entry *entries;
    double from, to;          /* ranges */
    bool log, integer;
    bool pow2;            /* scale log2: values rounded to powers of two (an allocation unit) */
    int zip;                  /* zip group (sampled axes share one), -1 if crossed alone */
    bool sampled;
};

struct grid_point {
    int index;     /* position in the expansion: order of runs, sharding */
    int *entry;    /* entry index per axis (owned by the grid) */
};

struct grid {
    char path[1024];          /* the grid file ("(inline)" for text) */
    char name[GRID_NAME_MAX]; /* "name", else the file's base name without .json */
    char base[1024];          /* the base scenario, resolved against the grid's directory or cwd */
    int n_sets;
    char **sets;              /* "set" as "path=value" */
    int n_axes;
    struct grid_axis *axes;
    int replications;         /* 0: each point's own sim.replications */
    enum grid_sample_method sample;
    int sample_n;
    int64_t sample_seed;
    int n_points;
    struct grid_point *points;
    int *entry_store;
    cJSON *json;              /* the grid file (owned); for a cbt file, the plan it became */
    int n_notes;
    char **notes;             /* what a cbt file's keys became or why they are ignored */
};

/* A point's resolved scenario: what its id is computed from. */
struct grid_resolved {
    char id[GRID_ID_LEN + 1];
    int64_t seed;             /* the point's sim.seed */
    int replications;
    char *params_json;        /* canonical resolved parameters (malloc'd) */
};

/*
 * Load a grid file (or, with path NULL, the JSON text json_text) and expand
 * it into points.  Errors name the file and the JSON path ("g.json: axes.x: ...").
 * Does not load scenarios: see grid_validate.
 */
int grid_load(struct grid *g, const char *path, const char *json_text, struct sim_err *err);
void grid_free(struct grid *g);

/*
 * A cbt benchmark YAML (explorer/io/cbt.h) as a grid on the scenario base:
 * the overrides common to every run of cbt's become "set", the scenario paths
 * that vary become axes zipped together (one point per run of cbt's, in cbt's
 * order), a workloads block adds the axis "workload" (the workload's name);
 * cluster.iterations becomes replications.  g->notes lists what was ignored.
 */
int grid_load_cbt(struct grid *g, const char *cbt_path, const char *base, struct sim_err *err);

/*
 * Load the base scenario with each distinct value of each axis (plus "set"):
 * a bad path or value fails here, before anything runs, naming the axis.
 */
int grid_validate(const struct grid *g, struct sim_err *err);

/*
 * The overrides of point p, in application order ("set", then each axis):
 * a calloc'd array of borrowed strings the caller frees (not the strings).
 */
const char **grid_point_sets(const struct grid *g, const struct grid_point *p, int *n);

/* The point's axis values {"axis name": value, ...} in axis order (caller deletes). */
cJSON *grid_point_axes_json(const struct grid *g, const struct grid_point *p);

/* Human form of a point's axis values: "fio.iodepth=16 cluster.nic=100gbe" (into buf). */
const char *grid_point_label(const struct grid *g, const struct grid_point *p, char *buf, size_t n);

/*
 * Load the point's scenario (scenario_load of base with its overrides) and
 * compute its id.  Errors name the point and its axis values.
 */
int grid_point_resolve(const struct grid *g, const struct grid_point *p, struct grid_resolved *out,
                       struct sim_err *err);
/* Resolve a scenario given as base + overrides (workers, goal search). */
int grid_resolve_sets(const char *base, const char *const *sets, int n_sets, int replications,
                      struct grid_resolved *out, struct sim_err *err);
void grid_resolved_free(struct grid_resolved *r);

struct scenario;
/* The id of a loaded scenario (its sim.seed, CEPHSIM_VERSION); workers check tasks with it. */
void grid_scenario_id(const struct scenario *sc, char out[GRID_ID_LEN + 1]);

/*
 * The id of resolved parameters: SHA-256 over canonical JSON (sim.seed and
 * sim.replications removed), seed and version; 32 hex characters into out.
 */
void grid_point_id(const cJSON *resolved, int64_t seed, const char *version, char out[GRID_ID_LEN + 1]);

/* JSON with object keys sorted recursively, printed unformatted (malloc'd). */
char *grid_canonical_json(const cJSON *j);

/*
 * The seed of replication r of a point with seed s: s itself for r = 0, else
 * fmix64(s ^ r * golden ratio) cut to 53 bits, so that `cephsim run --set
 * sim.seed=N` (seeds up to 2^53 - 1) reproduces any run of a sweep.
 */
int64_t grid_replication_seed(int64_t s, int replication);

/* SHA-256 (FIPS 180-4) of data. */
void grid_sha256(const void *data, size_t n, uint8_t out[32]);

/* Format a JSON scalar as --set text (numbers: shortest round-trip form). */
int grid_value_text(const cJSON *v, char *buf, size_t n);

#endif
