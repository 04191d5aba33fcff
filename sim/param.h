/*
 * param.h - declarative parameter tables (fio's fio_option idea).
 *
 * One table per model or profile part drives: defaults, strict JSON binding with
 * range checks, --set overrides from strings, `cephsim list-params`, the
 * generated schema document and the resolved-parameter JSON of a run.
 * Names follow the Ceph config option or fio option they model where one exists.
 */
#ifndef CEPHSIM_SIM_PARAM_H
#define CEPHSIM_SIM_PARAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cjson/cJSON.h>

#include "err.h"

enum param_type {
    PARAM_INT,    /* int64_t */
    PARAM_DOUBLE, /* double */
    PARAM_BOOL,   /* bool */
    PARAM_STRING, /* char[PARAM_STR_MAX] */
    PARAM_ENUM,   /* int index into choices */
};

#define PARAM_STR_MAX 64

struct param_def {
    const char *name;            /* JSON key */
    enum param_type type;
    size_t offset;               /* offsetof() into the bound struct */
    double min, max;             /* inclusive range for INT and DOUBLE */
    double def;                  /* default for INT, DOUBLE, BOOL, ENUM (index) */
    const char *def_str;         /* default for STRING */
    const char *const *choices;  /* ENUM names, NULL-terminated */
    const char *unit;            /* "us", "ns", "bytes", "count", ... */
    const char *help;            /* what it stands for and its source */
};

/* Tables end with an entry whose name is NULL. */
#define PARAM_END { .name = NULL }

int param_count(const struct param_def *defs);
const struct param_def *param_find(const struct param_def *defs, const char *name);

/* Write every default into obj. */
void param_set_defaults(const struct param_def *defs, void *obj);

/*
 * Bind a JSON object onto obj: each key must name a parameter (unknown keys are
 * errors with a did-you-mean), values are type- and range-checked.  Keys in
 * extra_keys (NULL-terminated, may be NULL) are allowed and skipped.
 */
int param_bind_json(const struct param_def *defs, void *obj, const cJSON *json,
                    const char *const *extra_keys, const char *file, const char *path,
                    struct sim_err *err);

/* Bind one JSON value to one parameter. */
int param_bind_value(const struct param_def *d, void *obj, const cJSON *v,
                     const char *file, const char *path, struct sim_err *err);

/* Set one parameter from its text form (as given to --set); checked like JSON. */
int param_set_text(const struct param_def *d, void *obj, const char *text,
                   const char *file, const char *path, struct sim_err *err);

/* Add every parameter's current value to json (resolved parameters of a run).
   Doubles are cJSON numbers: printed, they read back to ~1e-15 relative. */
void param_to_json(const struct param_def *defs, const void *obj, cJSON *json);

/* Print a table of the parameters: name, type, unit, default, range, help. */
void param_print_table(FILE *f, const char *section, const struct param_def *defs);
/* Print the same as a Markdown table (for the generated schema document). */
void param_print_markdown(FILE *f, const char *section, const struct param_def *defs);

/* Accessors for code that walks tables generically. */
static inline void *param_ptr(const struct param_def *d, void *obj)
{
    return (char *)obj + d->offset;
}

#endif
