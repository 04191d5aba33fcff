#include "param.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "jsonu.h"

int param_count(const struct param_def *defs)
{
    int n = 0;
    while (defs[n].name)
        n++;
    return n;
}

const struct param_def *param_find(const struct param_def *defs, const char *name)
{
    for (; defs->name; defs++)
        if (strcmp(defs->name, name) == 0)
            return defs;
    return NULL;
}

void param_set_defaults(const struct param_def *defs, void *obj)
{
    for (const struct param_def *d = defs; d->name; d++) {
        void *p = param_ptr(d, obj);
        switch (d->type) {
        case PARAM_INT: *(int64_t *)p = (int64_t)d->def; break;
        case PARAM_DOUBLE: *(double *)p = d->def; break;
        case PARAM_BOOL: *(bool *)p = d->def != 0; break;
        case PARAM_ENUM: *(int *)p = (int)d->def; break;
        case PARAM_STRING:
            snprintf((char *)p, PARAM_STR_MAX, "%s", d->def_str ? d->def_str : "");
            break;
        }
    }
}

static int enum_index(const struct param_def *d, const char *s)
{
    for (int i = 0; d->choices[i]; i++)
        if (strcmp(d->choices[i], s) == 0)
            return i;
    return -1;
}

static int enum_error(const struct param_def *d, const char *s, const char *file, const char *path,
                      struct sim_err *err)
{
    char list[256] = "";
    int n = 0;
    for (; d->choices[n]; n++) {
        strncat(list, n ? ", " : "", sizeof list - strlen(list) - 1);
        strncat(list, d->choices[n], sizeof list - strlen(list) - 1);
    }
    const char *dym = jsonu_did_you_mean(s, d->choices, n);
    return sim_errf(err, -EINVAL, "%s: %s: '%s' is not one of %s%s%s%s", file, path, s, list,
                    dym ? " (did you mean '" : "", dym ? dym : "", dym ? "'?)" : "");
}

static int check_range(const struct param_def *d, double v, const char *file, const char *path,
                       struct sim_err *err)
{
    if (!isfinite(v) || v < d->min || v > d->max)
        return sim_errf(err, -ERANGE, "%s: %s: %g is out of range [%g, %g]%s%s", file, path, v,
                        d->min, d->max, d->unit ? " " : "", d->unit ? d->unit : "");
    return 0;
}

int param_bind_value(const struct param_def *d, void *obj, const cJSON *v, const char *file,
                     const char *path, struct sim_err *err)
{
    void *p = param_ptr(d, obj);
    switch (d->type) {
    case PARAM_INT:
        if (!cJSON_IsNumber(v) || v->valuedouble != floor(v->valuedouble))
            return sim_errf(err, -EINVAL, "%s: %s: expected an integer", file, path);
        if (check_range(d, v->valuedouble, file, path, err) < 0)
            return err ? err->code : -ERANGE;
        *(int64_t *)p = (int64_t)v->valuedouble;
        return 0;
    case PARAM_DOUBLE:
        if (!cJSON_IsNumber(v))
            return sim_errf(err, -EINVAL, "%s: %s: expected a number", file, path);
        if (check_range(d, v->valuedouble, file, path, err) < 0)
            return err ? err->code : -ERANGE;
        *(double *)p = v->valuedouble;
        return 0;
    case PARAM_BOOL:
        if (!cJSON_IsBool(v))
            return sim_errf(err, -EINVAL, "%s: %s: expected true or false", file, path);
        *(bool *)p = cJSON_IsTrue(v);
        return 0;
    case PARAM_STRING:
        if (!cJSON_IsString(v))
            return sim_errf(err, -EINVAL, "%s: %s: expected a string", file, path);
        if (strlen(v->valuestring) >= PARAM_STR_MAX)
            return sim_errf(err, -EINVAL, "%s: %s: string too long", file, path);
        strcpy((char *)p, v->valuestring);
        return 0;
    case PARAM_ENUM: {
        if (!cJSON_IsString(v))
            return sim_errf(err, -EINVAL, "%s: %s: expected a string", file, path);
        int i = enum_index(d, v->valuestring);
        if (i < 0)
            return enum_error(d, v->valuestring, file, path, err);
        *(int *)p = i;
        return 0;
    }
    }
    return sim_errf(err, -EINVAL, "%s: %s: bad parameter type", file, path);
}

int param_set_text(const struct param_def *d, void *obj, const char *text, const char *file,
                   const char *path, struct sim_err *err)
{
    cJSON *v = NULL;
    char *end;
    switch (d->type) {
    case PARAM_INT:
    case PARAM_DOUBLE: {
        double x = strtod(text, &end);
        if (end == text || *end)
            return sim_errf(err, -EINVAL, "%s: %s: '%s' is not a number", file, path, text);
        v = cJSON_CreateNumber(x);
        break;
    }
    case PARAM_BOOL:
        if (!strcmp(text, "true") || !strcmp(text, "1"))
            v = cJSON_CreateTrue();
        else if (!strcmp(text, "false") || !strcmp(text, "0"))
            v = cJSON_CreateFalse();
        else
            return sim_errf(err, -EINVAL, "%s: %s: '%s' is not true or false", file, path, text);
        break;
    case PARAM_STRING:
    case PARAM_ENUM:
        v = cJSON_CreateString(text);
        break;
    }
    int rc = param_bind_value(d, obj, v, file, path, err);
    cJSON_Delete(v);
    return rc;
}

int param_bind_json(const struct param_def *defs, void *obj, const cJSON *json,
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
            const char *dym = jsonu_did_you_mean(it->string, names, m);
            int rc = sim_errf(err, -EINVAL, "%s: %s: unknown key%s%s%s", file, p,
                              dym ? " (did you mean '" : "", dym ? dym : "", dym ? "'?)" : "");
            free(names);
            return rc;
        }
        int rc = param_bind_value(d, obj, it, file, p, err);
        if (rc < 0)
            return rc;
    }
    return 0;
}

void param_to_json(const struct param_def *defs, const void *obj, cJSON *json)
{
    for (const struct param_def *d = defs; d->name; d++) {
        const void *p = (const char *)obj + d->offset;
        switch (d->type) {
        case PARAM_INT: cJSON_AddNumberToObject(json, d->name, (double)*(const int64_t *)p); break;
        case PARAM_DOUBLE: cJSON_AddNumberToObject(json, d->name, *(const double *)p); break;
        case PARAM_BOOL: cJSON_AddBoolToObject(json, d->name, *(const bool *)p); break;
        case PARAM_STRING: cJSON_AddStringToObject(json, d->name, (const char *)p); break;
        case PARAM_ENUM: cJSON_AddStringToObject(json, d->name, d->choices[*(const int *)p]); break;
        }
    }
}

static const char *type_name(enum param_type t)
{
    static const char *const names[] = {"int", "number", "bool", "string", "enum"};
    return names[t];
}

static void format_default(const struct param_def *d, char *buf, size_t n)
{
    switch (d->type) {
    case PARAM_INT: snprintf(buf, n, "%.0f", d->def); break;
    case PARAM_DOUBLE: snprintf(buf, n, "%g", d->def); break;
    case PARAM_BOOL: snprintf(buf, n, "%s", d->def ? "true" : "false"); break;
    case PARAM_STRING: snprintf(buf, n, "%s", d->def_str ? d->def_str : ""); break;
    case PARAM_ENUM: snprintf(buf, n, "%s", d->choices[(int)d->def]); break;
    }
}

static void format_range(const struct param_def *d, char *buf, size_t n)
{
    buf[0] = '\0';
    if (d->type == PARAM_INT || d->type == PARAM_DOUBLE) {
        snprintf(buf, n, "%g..%g", d->min, d->max);
    } else if (d->type == PARAM_ENUM) {
        for (int i = 0; d->choices[i]; i++) {
            strncat(buf, i ? "|" : "", n - strlen(buf) - 1);
            strncat(buf, d->choices[i], n - strlen(buf) - 1);
        }
    }
}

void param_print_table(FILE *f, const char *section, const struct param_def *defs)
{
    char def[64], range[256];
    fprintf(f, "[%s]\n", section);
    for (const struct param_def *d = defs; d->name; d++) {
        format_default(d, def, sizeof def);
        format_range(d, range, sizeof range);
        fprintf(f, "  %-40s %-6s %-8s default=%-12s %-20s %s\n", d->name, type_name(d->type),
                d->unit ? d->unit : "-", def, range, d->help ? d->help : "");
    }
}

/* Markdown table cells: a '|' would end the cell. */
static void md_escape(char *dst, size_t n, const char *src)
{
    size_t j = 0;
    for (; *src && j + 2 < n; src++) {
        if (*src == '|')
            dst[j++] = '\\';
        dst[j++] = *src;
    }
    dst[j] = '\0';
}

void param_print_markdown(FILE *f, const char *section, const struct param_def *defs)
{
    char def[64], range[256], erange[512], ehelp[1024];
    fprintf(f, "\n### `%s`\n\n| key | type | unit | default | range | meaning and source |\n"
               "|---|---|---|---|---|---|\n", section);
    for (const struct param_def *d = defs; d->name; d++) {
        format_default(d, def, sizeof def);
        format_range(d, range, sizeof range);
        md_escape(erange, sizeof erange, range);
        md_escape(ehelp, sizeof ehelp, d->help ? d->help : "");
        fprintf(f, "| `%s` | %s | %s | %s | %s | %s |\n", d->name, type_name(d->type),
                d->unit ? d->unit : "", def, erange, ehelp);
    }
}
