/*
 * paramjson.c - binding JSON objects to parameter tables, and back.
 */
#include "paramjson.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "jsonu.h"

int paramjson_bind_value(const struct param_def *d, void *obj, const cJSON *v, const char *file,
                     const char *path, struct sim_err *err)
{
    if (cJSON_IsNumber(v)) {
        /* a float where a whole number is wanted says "integer", whatever its range */
        if (d->type == PARAM_INT && v->valuedouble != floor(v->valuedouble))
            return sim_errf(err, -EINVAL, "%s: %s: expected an integer", file, path);
        return param_set_number(d, obj, v->valuedouble, file, path, err);
    }
    if (cJSON_IsBool(v))
        return param_set_bool(d, obj, cJSON_IsTrue(v), file, path, err);
    if (cJSON_IsString(v))
        return param_set_string(d, obj, v->valuestring, file, path, err);
    switch (d->type) {
    case PARAM_INT: return sim_errf(err, -EINVAL, "%s: %s: expected an integer", file, path);
    case PARAM_DOUBLE: return sim_errf(err, -EINVAL, "%s: %s: expected a number", file, path);
    case PARAM_BOOL: return sim_errf(err, -EINVAL, "%s: %s: expected true or false", file, path);
    default: return sim_errf(err, -EINVAL, "%s: %s: expected a string", file, path);
    }
}

int paramjson_bind(const struct param_def *defs, void *obj, const cJSON *json,
                    const char *const *extra_keys, const char *file, const char *path,
                    struct sim_err *err)
{
    char p[512];
    if (!cJSON_IsObject(json))
        return sim_errf(err, -EINVAL, "%s: %s: expected an object", file, path[0] ? path : "(top)");
    for (const cJSON *it = json->child; it; it = it->next) {
        bool extra = false;
        for (int i = 0; extra_keys && extra_keys[i]; i++)
            extra |= strcmp(extra_keys[i], it->string) == 0;
        if (extra)
            continue;
        const struct param_def *d = param_find(defs, it->string);
        jsonu_path(p, sizeof p, path, it->string);
        if (!d) {
            int n = param_count(defs), m = 0;
            const char **names = sim_xcalloc((size_t)n + 16, sizeof *names);
            for (int i = 0; i < n; i++)
                names[m++] = defs[i].name;
            for (int i = 0; extra_keys && extra_keys[i] && m < n + 16; i++)
                names[m++] = extra_keys[i];
            const char *dym = names_did_you_mean(it->string, names, m);
            int rc = sim_errf(err, -EINVAL, "%s: %s: unknown key%s%s%s", file, p,
                              dym ? " (did you mean '" : "", dym ? dym : "", dym ? "'?)" : "");
            free(names);
            return rc;
        }
        int rc = paramjson_bind_value(d, obj, it, file, p, err);
        if (rc < 0)
            return rc;
    }
    return 0;
}

void paramjson_write(const struct param_def *defs, const void *obj, cJSON *json)
{
    for (const struct param_def *d = defs; d->name; d++) {
        const void *p = (const char *)obj + d->offset;
        switch (d->type) {
        case PARAM_INT: cJSON_AddNumberToObject(json, d->name, (double)*(const int64_t *)p); break;
        case PARAM_DOUBLE: cJSON_AddNumberToObject(json, d->name, *(const double *)p); break;
        case PARAM_BOOL: cJSON_AddBoolToObject(json, d->name, *(const bool *)p); break;
        case PARAM_STRING:
        case PARAM_TEXT: cJSON_AddStringToObject(json, d->name, (const char *)p); break;
        case PARAM_ENUM: cJSON_AddStringToObject(json, d->name, d->choices[*(const int *)p]); break;
        }
    }
}
