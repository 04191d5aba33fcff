/*
 * param.h - declarative parameter tables (fio's fio_option idea).
 *
 * One table per model or profile part drives: defaults, range-checked values
 * (from JSON through explorer/io/paramjson.h), --set overrides from strings,
 * `cephsim list-params`, the
 * generated schema document and the resolved-parameter JSON of a run.
 * Names follow the Ceph config option or fio option they model where one exists.
 */
#ifndef CEPHSIM_SIM_PARAM_H
#define CEPHSIM_SIM_PARAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "err.h"

enum param_type {
    PARAM_INT,    /* int64_t */
    PARAM_DOUBLE, /* double */
    PARAM_BOOL,   /* bool */
    PARAM_STRING, /* char[PARAM_STR_MAX] */
    PARAM_ENUM,   /* int index into choices */
    PARAM_TEXT,   /* char[PARAM_TEXT_MAX]: a long string (an options string such as bluestore_rocksdb_options) */
};

#define PARAM_STR_MAX 64
#define PARAM_TEXT_MAX 1024

/* The size of a STRING or TEXT parameter's field. */
#define PARAM_CHARS(type) ((type) == PARAM_TEXT ? PARAM_TEXT_MAX : PARAM_STR_MAX)

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

/*
 * A descriptive parameter is recorded (a part's name, a datasheet fact the
 * models do not use) but has no effect on results.  Its help text starts
 * with PARAM_DESCRIPTIVE, so list-params and the schema document say so:
 *   .help = PARAM_DESCRIPTIVE "total L3 cache (no cache model)"
 */
#define PARAM_DESCRIPTIVE "[descriptive] "

static inline bool param_is_descriptive(const struct param_def *d)
{
    return d->help && strncmp(d->help, PARAM_DESCRIPTIVE, sizeof PARAM_DESCRIPTIVE - 1) == 0;
}

/* Tables end with an entry whose name is NULL. */
#define PARAM_END { .name = NULL }

int param_count(const struct param_def *defs);
const struct param_def *param_find(const struct param_def *defs, const char *name);

/* Write every default into obj. */
void param_set_defaults(const struct param_def *defs, void *obj);

/* Set one parameter from its text form (as given to --set): numbers, true/false/1/0,
   strings and enum names, type- and range-checked; errors name file and path. */
int param_set_text(const struct param_def *d, void *obj, const char *text,
                   const char *file, const char *path, struct sim_err *err);

/* Typed setters behind param_set_text and the JSON binder (explorer/io/paramjson.h):
   a value of the wrong kind is an error naming the kind expected. */
int param_set_number(const struct param_def *d, void *obj, double x, const char *file, const char *path,
                     struct sim_err *err);
int param_set_bool(const struct param_def *d, void *obj, bool b, const char *file, const char *path,
                   struct sim_err *err);
int param_set_string(const struct param_def *d, void *obj, const char *v, const char *file, const char *path,
                     struct sim_err *err);

/* Index of s among an ENUM's choices, or -1. */
int param_enum_index(const struct param_def *d, const char *s);
/* "file: path: 's' is not one of a, b, c (did you mean ...?)"; returns -EINVAL. */
int param_enum_error(const struct param_def *d, const char *s, const char *file, const char *path,
                     struct sim_err *err);
/* -ERANGE with "file: path: v is out of range [min, max] unit" unless min <= v <= max. */
int param_check_range(const struct param_def *d, double v, const char *file, const char *path,
                      struct sim_err *err);

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
