#include "param.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "names.h"

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
        case PARAM_TEXT:
            snprintf((char *)p, PARAM_CHARS(d->type), "%s", d->def_str ? d->def_str : "");
            break;
        }
    }
}

int param_enum_index(const struct param_def *d, const char *s)
{
    for (int i = 0; d->choices[i]; i++)
        if (strcmp(d->choices[i], s) == 0)
            return i;
    return -1;
}

int param_enum_error(const struct param_def *d, const char *s, const char *file, const char *path,
                     struct sim_err *err)
{
    char list[256] = "";
    int n = 0;
    for (; d->choices[n]; n++) {
        strncat(list, n ? ", " : "", sizeof list - strlen(list) - 1);
        strncat(list, d->choices[n], sizeof list - strlen(list) - 1);
    }
    const char *dym = names_did_you_mean(s, d->choices, n);
    return sim_errf(err, -EINVAL, "%s: %s: '%s' is not one of %s%s%s%s", file, path, s, list,
                    dym ? " (did you mean '" : "", dym ? dym : "", dym ? "'?)" : "");
}

int param_check_range(const struct param_def *d, double v, const char *file, const char *path,
                      struct sim_err *err)
{
    if (!isfinite(v) || v < d->min || v > d->max)
        return sim_errf(err, -ERANGE, "%s: %s: %.10g is out of range [%.10g, %.10g]%s%s", file, path, v,
                        d->min, d->max, d->unit ? " " : "", d->unit ? d->unit : "");
    return 0;
}

int param_set_number(const struct param_def *d, void *obj, double x, const char *file, const char *path,
                     struct sim_err *err)
{
    void *p = param_ptr(d, obj);
    switch (d->type) {
    case PARAM_INT:
        if (x != floor(x))
            return sim_errf(err, -EINVAL, "%s: %s: expected an integer", file, path);
        if (param_check_range(d, x, file, path, err) < 0)
            return err ? err->code : -ERANGE;
        *(int64_t *)p = (int64_t)x;
        return 0;
    case PARAM_DOUBLE:
        if (param_check_range(d, x, file, path, err) < 0)
            return err ? err->code : -ERANGE;
        *(double *)p = x;
        return 0;
    case PARAM_BOOL:
        return sim_errf(err, -EINVAL, "%s: %s: expected true or false", file, path);
    case PARAM_STRING:
    case PARAM_TEXT:
    case PARAM_ENUM:
        return sim_errf(err, -EINVAL, "%s: %s: expected a string", file, path);
    }
    return sim_errf(err, -EINVAL, "%s: %s: bad parameter type", file, path);
}

int param_set_bool(const struct param_def *d, void *obj, bool b, const char *file, const char *path,
                   struct sim_err *err)
{
    switch (d->type) {
    case PARAM_BOOL:
        *(bool *)param_ptr(d, obj) = b;
        return 0;
    case PARAM_INT:
        return sim_errf(err, -EINVAL, "%s: %s: expected an integer", file, path);
    case PARAM_DOUBLE:
        return sim_errf(err, -EINVAL, "%s: %s: expected a number", file, path);
    case PARAM_STRING:
    case PARAM_TEXT:
    case PARAM_ENUM:
        return sim_errf(err, -EINVAL, "%s: %s: expected a string", file, path);
    }
    return sim_errf(err, -EINVAL, "%s: %s: bad parameter type", file, path);
}

int param_set_string(const struct param_def *d, void *obj, const char *v, const char *file, const char *path,
                     struct sim_err *err)
{
    void *p = param_ptr(d, obj);
    switch (d->type) {
    case PARAM_STRING:
    case PARAM_TEXT:
        if (strlen(v) >= PARAM_CHARS(d->type))
            return sim_errf(err, -EINVAL, "%s: %s: string too long (at most %d characters)", file, path,
                            PARAM_CHARS(d->type) - 1);
        strcpy((char *)p, v);
        return 0;
    case PARAM_ENUM: {
        int i = param_enum_index(d, v);
        if (i < 0)
            return param_enum_error(d, v, file, path, err);
        *(int *)p = i;
        return 0;
    }
    case PARAM_INT:
        return sim_errf(err, -EINVAL, "%s: %s: expected an integer", file, path);
    case PARAM_DOUBLE:
        return sim_errf(err, -EINVAL, "%s: %s: expected a number", file, path);
    case PARAM_BOOL:
        return sim_errf(err, -EINVAL, "%s: %s: expected true or false", file, path);
    }
    return sim_errf(err, -EINVAL, "%s: %s: bad parameter type", file, path);
}

int param_set_text(const struct param_def *d, void *obj, const char *text, const char *file,
                   const char *path, struct sim_err *err)
{
    char *end;
    switch (d->type) {
    case PARAM_INT:
    case PARAM_DOUBLE: {
        double x = strtod(text, &end);
        if (end == text || *end)
            return sim_errf(err, -EINVAL, "%s: %s: '%s' is not a number", file, path, text);
        return param_set_number(d, obj, x, file, path, err);
    }
    case PARAM_BOOL:
        if (!strcmp(text, "true") || !strcmp(text, "1"))
            return param_set_bool(d, obj, true, file, path, err);
        if (!strcmp(text, "false") || !strcmp(text, "0"))
            return param_set_bool(d, obj, false, file, path, err);
        return sim_errf(err, -EINVAL, "%s: %s: '%s' is not true or false", file, path, text);
    case PARAM_STRING:
    case PARAM_TEXT:
    case PARAM_ENUM:
        return param_set_string(d, obj, text, file, path, err);
    }
    return sim_errf(err, -EINVAL, "%s: %s: bad parameter type", file, path);
}

static const char *type_name(enum param_type t)
{
    static const char *const names[] = {"int", "number", "bool", "string", "enum", "string"};
    return names[t];
}

static void format_default(const struct param_def *d, char *buf, size_t n)
{
    switch (d->type) {
    case PARAM_INT: snprintf(buf, n, "%.0f", d->def); break;
    case PARAM_DOUBLE: snprintf(buf, n, "%g", d->def); break;
    case PARAM_BOOL: snprintf(buf, n, "%s", d->def ? "true" : "false"); break;
    case PARAM_STRING:
    case PARAM_TEXT: snprintf(buf, n, "%s", d->def_str ? d->def_str : ""); break;
    case PARAM_ENUM: snprintf(buf, n, "%s", d->choices[(int)d->def]); break;
    }
}

static void format_range(const struct param_def *d, char *buf, size_t n)
{
    buf[0] = '\0';
    if (d->type == PARAM_INT || d->type == PARAM_DOUBLE) {
        /* exact: a documented limit must be a value one can type */
        snprintf(buf, n, d->type == PARAM_INT ? "%.0f..%.0f" : "%.10g..%.10g", d->min, d->max);
    } else if (d->type == PARAM_ENUM) {
        for (int i = 0; d->choices[i]; i++) {
            strncat(buf, i ? "|" : "", n - strlen(buf) - 1);
            strncat(buf, d->choices[i], n - strlen(buf) - 1);
        }
    }
}

void param_print_table(FILE *f, const char *section, const struct param_def *defs)
{
    char def[PARAM_TEXT_MAX], range[256];
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
    char def[PARAM_TEXT_MAX], range[256], erange[512], ehelp[1024];
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
