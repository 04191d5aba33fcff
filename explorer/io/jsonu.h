/*
 * jsonu.h - strict cJSON helpers: load files, typed getters and key checks
 * whose errors name the file and the JSON path ("scen.json: cluster.hosts: ...").
 */
#ifndef CEPHSIM_SIM_JSONU_H
#define CEPHSIM_SIM_JSONU_H

#include <stdbool.h>
#include <stdint.h>
#include <cjson/cJSON.h>

#include "err.h"
#include "names.h"

/* Read a whole file into a NUL-terminated buffer the caller frees; -errno on error. */
/* What jsonu_slurp reads at most: scenarios, profiles, captures are far smaller. */
#define JSONU_READ_MAX ((size_t)256 << 20)

/* jsonu_slurp with a cap of max bytes (-EFBIG past it, the file named). */
int jsonu_slurp_max(const char *path, size_t max, char **out, size_t *len, struct sim_err *err);
int jsonu_slurp(const char *path, char **out, size_t *len, struct sim_err *err);

/* Parse a JSON file; NULL on error (message names the file and the byte offset). */
cJSON *jsonu_load_file(const char *path, struct sim_err *err);

/* -EINVAL naming name:line when text[0..len) holds a NUL byte or a "\u0000"
   escape: cJSON would end the string there and the rest would be lost. */
int jsonu_check_nul(const char *name, const char *text, size_t len, struct sim_err *err);

/* Write JSON text to path atomically (tmp file + rename): no half-written files. */
int jsonu_write_file(const char *path, const cJSON *json, struct sim_err *err);
/* Same for arbitrary text. */
int jsonu_write_text(const char *path, const char *text, struct sim_err *err);

/*
 * A key given twice in one object, anywhere under root, is an error "file:
 * path.key: given twice (JSON keeps only the last)": for files people write
 * (scenarios), where the first value would be dropped unseen (hardware
 * profiles check theirs as they bind: hwprofile.c).
 * Array elements are named path[i].
 */
int jsonu_check_duplicates(const cJSON *root, const char *file, struct sim_err *err);

/* Join a parent JSON path and a key into buf ("a.b" + "c" -> "a.b.c"); returns buf. */
const char *jsonu_path(char *buf, size_t n, const char *parent, const char *key);


/*
 * Check that every key of object obj is in allowed[0..n-1]; an unknown key is an
 * error "file: path.key: unknown key (did you mean 'x'?)".
 */
int jsonu_check_keys(const cJSON *obj, const char *const *allowed, int n,
                     const char *file, const char *path, struct sim_err *err);

/* Typed getters.  Missing keys leave *out untouched and return 0 unless required. */
int jsonu_get_double(const cJSON *obj, const char *key, double *out, double lo, double hi,
                     bool required, const char *file, const char *path, struct sim_err *err);
int jsonu_get_int(const cJSON *obj, const char *key, int64_t *out, int64_t lo, int64_t hi,
                  bool required, const char *file, const char *path, struct sim_err *err);
int jsonu_get_bool(const cJSON *obj, const char *key, bool *out, bool required,
                   const char *file, const char *path, struct sim_err *err);
/* Copies the string into out[outsz]; too long is an error. */
int jsonu_get_string(const cJSON *obj, const char *key, char *out, size_t outsz,
                     bool required, const char *file, const char *path, struct sim_err *err);

/* Add a number printed with a fixed format (e.g. "%.9f" as Ceph prints seconds). */
cJSON *jsonu_add_fixed(cJSON *obj, const char *key, const char *fmt, double v);
/* Add an unsigned 64-bit integer exactly (cJSON numbers are doubles). */
cJSON *jsonu_add_u64(cJSON *obj, const char *key, uint64_t v);
/* A scalar as a parameter's text (a number in full precision, true/false, a
   string as is) in buf; false when v is not a number, bool or string. */
bool jsonu_scalar_text(const cJSON *v, char *buf, size_t n);

#endif
