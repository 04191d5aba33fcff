/*
 * distjson.c - distributions (sim/dist.h) written as JSON in scenarios and profiles.
 */
#include "distjson.h"

#include <errno.h>
#include <string.h>

#include "jsonu.h"

int distjson_parse(struct dist *d, const cJSON *j, const char *file, const char *path,
                   struct sim_err *err)
{
    char kind[32], p[512];
    if (cJSON_IsNumber(j)) {
        if (j->valuedouble < 0)
            return sim_errf(err, -ERANGE, "%s: %s: must be >= 0", file, path);
        *d = dist_const(j->valuedouble);
        return 0;
    }
    int rc = jsonu_get_string(j, "dist", kind, sizeof kind, true, file, path, err);
    if (rc < 0)
        return rc;
    double a = 0, b = 0;
    if (!strcmp(kind, "const")) {
        static const char *const keys[] = {"dist", "value"};
        if ((rc = jsonu_check_keys(j, keys, 2, file, path, err)) < 0 ||
            (rc = jsonu_get_double(j, "value", &a, 0, 1e15, true, file, path, err)) < 0)
            return rc;
        *d = dist_const(a);
    } else if (!strcmp(kind, "exp")) {
        static const char *const keys[] = {"dist", "mean"};
        if ((rc = jsonu_check_keys(j, keys, 2, file, path, err)) < 0 ||
            (rc = jsonu_get_double(j, "mean", &a, 0, 1e15, true, file, path, err)) < 0)
            return rc;
        *d = dist_exp(a);
    } else if (!strcmp(kind, "normal")) {
        static const char *const keys[] = {"dist", "mean", "sd"};
        if ((rc = jsonu_check_keys(j, keys, 3, file, path, err)) < 0 ||
            (rc = jsonu_get_double(j, "mean", &a, 0, 1e15, true, file, path, err)) < 0 ||
            (rc = jsonu_get_double(j, "sd", &b, 0, 1e15, true, file, path, err)) < 0)
            return rc;
        *d = dist_normal(a, b);
    } else if (!strcmp(kind, "lognormal")) {
        static const char *const keys[] = {"dist", "mean", "cv"};
        if ((rc = jsonu_check_keys(j, keys, 3, file, path, err)) < 0 ||
            (rc = jsonu_get_double(j, "mean", &a, 0, 1e15, true, file, path, err)) < 0 ||
            (rc = jsonu_get_double(j, "cv", &b, 0, 100, true, file, path, err)) < 0)
            return rc;
        *d = dist_lognormal(a, b);
    } else if (!strcmp(kind, "uniform")) {
        static const char *const keys[] = {"dist", "min", "max"};
        if ((rc = jsonu_check_keys(j, keys, 3, file, path, err)) < 0 ||
            (rc = jsonu_get_double(j, "min", &a, 0, 1e15, true, file, path, err)) < 0 ||
            (rc = jsonu_get_double(j, "max", &b, a, 1e15, true, file, path, err)) < 0)
            return rc;
        *d = dist_uniform(a, b);
    } else if (!strcmp(kind, "empirical")) {
        static const char *const keys[] = {"dist", "pct"};
        if ((rc = jsonu_check_keys(j, keys, 2, file, path, err)) < 0)
            return rc;
        const cJSON *pts = cJSON_GetObjectItemCaseSensitive(j, "pct");
        jsonu_path(p, sizeof p, path, "pct");
        if (!cJSON_IsArray(pts))
            return sim_errf(err, -EINVAL, "%s: %s: expected an array of [percentile, value]", file, p);
        double pc[DIST_EMPIRICAL_MAX], v[DIST_EMPIRICAL_MAX];
        int n = 0;
        const cJSON *it;
        cJSON_ArrayForEach(it, pts) {
            if (n >= DIST_EMPIRICAL_MAX - 2)
                return sim_errf(err, -EINVAL, "%s: %s: at most %d points", file, p, DIST_EMPIRICAL_MAX - 2);
            if (!cJSON_IsArray(it) || cJSON_GetArraySize(it) != 2 ||
                !cJSON_IsNumber(cJSON_GetArrayItem(it, 0)) || !cJSON_IsNumber(cJSON_GetArrayItem(it, 1)))
                return sim_errf(err, -EINVAL, "%s: %s[%d]: expected [percentile, value]", file, p, n);
            pc[n] = cJSON_GetArrayItem(it, 0)->valuedouble;
            v[n] = cJSON_GetArrayItem(it, 1)->valuedouble;
            n++;
        }
        struct sim_err e2;
        if (dist_empirical(d, pc, v, n, &e2) < 0)
            return sim_errf(err, -EINVAL, "%s: %s: %s", file, p, e2.msg);
    } else {
        static const char *const kinds[] = {"const", "exp", "normal", "lognormal", "uniform", "empirical"};
        const char *dym = names_did_you_mean(kind, kinds, 6);
        return sim_errf(err, -EINVAL, "%s: %s: unknown distribution '%s'%s%s%s", file,
                        jsonu_path(p, sizeof p, path, "dist"), kind,
                        dym ? " (did you mean '" : "", dym ? dym : "", dym ? "'?)" : "");
    }
    return 0;
}
