/*
 * yaml.c - the YAML subset of yaml.h, line by line.
 *
 * Why not libyaml: the files this reads (cbt's benchmark YAMLs) use a small,
 * regular subset, and what we need from libyaml's event stream (a tree with
 * PyYAML's YAML 1.1 scalar types, errors with line numbers) would be about as
 * much code as this reader, which also refuses clearly what it does not know
 * rather than passing it on.
 *
 * The text is cut into logical lines (comments and blank lines removed,
 * indentation measured); a block node is a run of lines at one indentation.
 * "- key: v" is read by turning the dash into indentation, so the item's
 * mapping continues on the lines below at the key's column, as YAML says.
 */
#include "yaml.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "jsonu.h"
#include "sim.h"

#define YAML_MAX_FILE (16u << 20)
#define YAML_MAX_DEPTH 64

struct yline {
    int no;      /* 1-based line number in the file */
    int indent;  /* leading spaces */
    char *text;  /* the content after the indentation, comment and trailing space removed */
};

struct yparser {
    const char *file;
    struct yline *lines;
    int n, i;
    int depth;
};

static int yerr(const struct yparser *p, int line, struct sim_err *err, const char *what)
{
    return sim_errf(err, -EINVAL, "%s:%d: %s", p->file, line, what);
}

/* Where a quoted scalar may start: at a token's start. */
static bool token_start(const char *s, const char *at)
{
    const char *q = at;
    while (q > s && (q[-1] == ' '))
        q--;
    return q == s || strchr(":-[{,?", q[-1]);
}

/* Length of the line's content without its comment (# after space or at the start, outside quotes). */
static size_t content_len(const char *s, size_t len)
{
    char quote = 0;
    for (size_t k = 0; k < len; k++) {
        char c = s[k];
        if (quote) {
            if (quote == '"' && c == '\\' && k + 1 < len)
                k++;
            else if (c == quote) {
                if (quote == '\'' && k + 1 < len && s[k + 1] == '\'')
                    k++; /* '' inside '...' */
                else
                    quote = 0;
            }
            continue;
        }
        if ((c == '\'' || c == '"') && token_start(s, s + k))
            quote = c;
        else if (c == '#' && (k == 0 || s[k - 1] == ' ' || s[k - 1] == '\t'))
            return k;
    }
    return len;
}

static int split_lines(struct yparser *p, const char *text, size_t len, struct sim_err *err)
{
    int cap = 64, no = 0;
    p->lines = sim_xcalloc((size_t)cap, sizeof *p->lines);
    size_t pos = 0;
    bool body_seen = false;
    while (pos < len) {
        size_t end = pos;
        while (end < len && text[end] != '\n')
            end++;
        no++;
        const char *s = text + pos;
        size_t l = end - pos;
        pos = end + 1;
        if (l && s[l - 1] == '\r')
            l--;
        int ind = 0;
        while ((size_t)ind < l && s[ind] == ' ')
            ind++;
        size_t cl = content_len(s + ind, l - (size_t)ind);
        while (cl > 0 && (s[ind + cl - 1] == ' ' || s[ind + cl - 1] == '\t'))
            cl--;
        if (cl == 0)
            continue; /* blank or comment only, at any indentation */
        if (s[ind] == '\t')
            return yerr(p, no, err, "a tab in the indentation (YAML indents with spaces)");
        if (ind == 0 && ((cl == 3 && !strncmp(s, "---", 3)) || (cl >= 4 && !strncmp(s, "--- ", 4)))) {
            if (body_seen)
                return yerr(p, no, err, "a second YAML document ('---'): one document per file");
            if (cl > 3)
                return yerr(p, no, err, "content after '---' on the same line is not supported");
            continue;
        }
        if (ind == 0 && cl == 3 && !strncmp(s, "...", 3))
            break;
        if (ind == 0 && s[0] == '%')
            return yerr(p, no, err, "YAML directives ('%') are not supported");
        body_seen = true;
        if (p->n == cap) {
            cap *= 2;
            p->lines = sim_xrealloc(p->lines, (size_t)cap, sizeof *p->lines);
        }
        char *t = sim_xcalloc(cl + 1, 1);
        memcpy(t, s + ind, cl);
        p->lines[p->n++] = (struct yline){.no = no, .indent = ind, .text = t};
    }
    return 0;
}

static bool is_dash(const char *t)
{
    return t[0] == '-' && (t[1] == '\0' || t[1] == ' ');
}

/*
 * Offset of the ':' that ends a mapping key (followed by a space or the end,
 * outside quotes and brackets), -1 if the text is not "key: ...".
 */
static int map_colon(const char *t)
{
    char quote = 0;
    int nest = 0;
    for (int k = 0; t[k]; k++) {
        char c = t[k];
        if (quote) {
            if (quote == '"' && c == '\\' && t[k + 1])
                k++;
            else if (c == quote)
                quote = 0;
            continue;
        }
        if ((c == '\'' || c == '"') && token_start(t, t + k))
            quote = c;
        else if (c == '[' || c == '{')
            nest++;
        else if ((c == ']' || c == '}') && nest > 0)
            nest--;
        else if (c == ':' && nest == 0 && (t[k + 1] == '\0' || t[k + 1] == ' '))
            return k;
    }
    return -1;
}

/* ---- scalars ------------------------------------------------------------- */

static bool one_of(const char *s, const char *const *list)
{
    for (; *list; list++)
        if (!strcmp(s, *list))
            return true;
    return false;
}

/* PyYAML's int: [-+]?(0|[1-9][0-9_]*), 0x.., 0 followed by octal digits. */
static bool parse_int(const char *s, double *out)
{
    char buf[128];
    size_t k = 0;
    for (const char *q = s; *q; q++)
        if (*q != '_') {
            if (k + 1 >= sizeof buf)
                return false;
            buf[k++] = *q;
        }
    buf[k] = '\0';
    const char *d = buf + (buf[0] == '-' || buf[0] == '+');
    if (!*d)
        return false;
    int base = 10;
    if (d[0] == '0' && (d[1] == 'x' || d[1] == 'X'))
        base = 16;
    else if (d[0] == '0' && d[1] == 'o')
        return false; /* YAML 1.2's 0o is a string to PyYAML */
    else if (d[0] == '0' && d[1])
        base = 8;
    for (const char *q = d + (base == 16 ? 2 : base == 8 ? 1 : 0); *q; q++)
        if (!(base == 16 ? isxdigit((unsigned char)*q) : *q >= '0' && *q < (base == 8 ? '8' : ':')))
            return false;
    errno = 0;
    long long v = strtoll(buf, NULL, base == 16 ? 16 : base);
    if (errno)
        return false;
    *out = (double)v;
    return true;
}

/* PyYAML's float needs a '.' (1e5 is a string), or .inf / .nan. */
static bool parse_float(const char *s, double *out)
{
    static const char *const inf[] = {".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF", NULL};
    static const char *const ninf[] = {"-.inf", "-.Inf", "-.INF", NULL};
    if (one_of(s, inf) || one_of(s, ninf)) {
        *out = one_of(s, inf) ? HUGE_VAL : -HUGE_VAL;
        return true;
    }
    if (!strchr(s, '.'))
        return false;
    char buf[128];
    size_t k = 0;
    for (const char *q = s; *q; q++) {
        if (*q == '_')
            continue;
        if (!(isdigit((unsigned char)*q) || strchr("+-.eE", *q)) || k + 1 >= sizeof buf)
            return false;
        buf[k++] = *q;
    }
    buf[k] = '\0';
    char *end;
    double v = strtod(buf, &end);
    if (*end || end == buf)
        return false;
    *out = v;
    return true;
}

static cJSON *plain_scalar(const char *s)
{
    static const char *const nulls[] = {"~", "null", "Null", "NULL", NULL};
    static const char *const trues[] = {"yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON", NULL};
    static const char *const falses[] = {"no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF", NULL};
    double v;
    if (!*s || one_of(s, nulls))
        return cJSON_CreateNull();
    if (one_of(s, trues))
        return cJSON_CreateTrue();
    if (one_of(s, falses))
        return cJSON_CreateFalse();
    if (parse_int(s, &v) || parse_float(s, &v))
        return cJSON_CreateNumber(v);
    return cJSON_CreateString(s);
}

/* A quoted scalar at *pp (which points at the quote); advances past it. */
static cJSON *quoted_scalar(const char **pp, const struct yparser *p, int line, struct sim_err *err)
{
    const char *s = *pp;
    char q = *s++;
    size_t cap = strlen(s) + 1, k = 0;
    char *buf = sim_xcalloc(cap, 1);
    for (;; s++) {
        if (!*s) {
            free(buf);
            yerr(p, line, err, "unterminated quoted string (multi-line quoted scalars are not supported)");
            return NULL;
        }
        if (*s == q) {
            if (q == '\'' && s[1] == '\'') {
                buf[k++] = '\'';
                s++;
                continue;
            }
            s++;
            break;
        }
        if (q == '"' && *s == '\\') {
            s++;
            switch (*s) {
            case 'n': buf[k++] = '\n'; break;
            case 't': buf[k++] = '\t'; break;
            case '\\': buf[k++] = '\\'; break;
            case '"': buf[k++] = '"'; break;
            case '/': buf[k++] = '/'; break;
            case '0': buf[k++] = '\0'; break;
            default:
                free(buf);
                yerr(p, line, err, "an escape in a double-quoted string this reader does not know");
                return NULL;
            }
            continue;
        }
        buf[k++] = *s;
    }
    *pp = s;
    cJSON *j = cJSON_CreateString(buf);
    free(buf);
    return j;
}

static bool refused_start(char c)
{
    return c == '&' || c == '*' || c == '!' || c == '|' || c == '>' || c == '@' || c == '`';
}

static int refuse_start(const struct yparser *p, int line, char c, struct sim_err *err)
{
    switch (c) {
    case '&': return yerr(p, line, err, "YAML anchors (&name) are not supported: write the value out");
    case '*': return yerr(p, line, err, "YAML aliases (*name) are not supported: write the value out");
    case '!': return yerr(p, line, err, "YAML tags (!tag) are not supported");
    case '|':
    case '>': return yerr(p, line, err, "YAML block scalars (| and >) are not supported");
    default: return yerr(p, line, err, "a plain scalar may not start with '@' or '`'");
    }
}

static void skip_spaces(const char **s)
{
    while (**s == ' ')
        (*s)++;
}

static cJSON *flow_node(const char **pp, const struct yparser *p, int line, int depth, struct sim_err *err);

/* A plain scalar inside a flow collection: up to , ] } (and ': ' for a key). */
static cJSON *flow_plain(const char **pp, bool key, const struct yparser *p, int line, struct sim_err *err)
{
    const char *s = *pp, *start = s;
    while (*s && *s != ',' && *s != ']' && *s != '}' && !(key && *s == ':' && (s[1] == ' ' || s[1] == '\0' ||
                                                                            s[1] == ',' || s[1] == '}')))
        s++;
    size_t l = (size_t)(s - start);
    while (l && start[l - 1] == ' ')
        l--;
    if (l && refused_start(start[0])) {
        refuse_start(p, line, start[0], err);
        return NULL;
    }
    char *buf = sim_xcalloc(l + 1, 1);
    memcpy(buf, start, l);
    cJSON *j = plain_scalar(buf);
    free(buf);
    *pp = s;
    return j;
}

static cJSON *flow_node(const char **pp, const struct yparser *p, int line, int depth, struct sim_err *err)
{
    const char *s = *pp;
    skip_spaces(&s);
    if (depth > YAML_MAX_DEPTH) {
        yerr(p, line, err, "flow collections nested too deeply");
        return NULL;
    }
    if (*s == '\'' || *s == '"') {
        cJSON *j = quoted_scalar(&s, p, line, err);
        *pp = s;
        return j;
    }
    if (*s != '[' && *s != '{') {
        cJSON *j = flow_plain(&s, false, p, line, err);
        *pp = s;
        return j;
    }
    bool seq = *s == '[';
    char close = seq ? ']' : '}';
    cJSON *c = seq ? cJSON_CreateArray() : cJSON_CreateObject();
    s++;
    for (;;) {
        skip_spaces(&s);
        if (*s == close) {
            s++;
            break;
        }
        if (!*s) {
            yerr(p, line, err, seq ? "unterminated flow sequence ('[' without ']' on the line)"
                                   : "unterminated flow mapping ('{' without '}' on the line)");
            goto fail;
        }
        if (seq) {
            cJSON *v = flow_node(&s, p, line, depth + 1, err);
            if (!v)
                goto fail;
            cJSON_AddItemToArray(c, v);
        } else {
            cJSON *k = *s == '\'' || *s == '"' ? quoted_scalar(&s, p, line, err) : flow_plain(&s, true, p, line, err);
            if (!k)
                goto fail;
            char *kt = cJSON_IsString(k) ? strdup(k->valuestring) : cJSON_PrintUnformatted(k);
            cJSON_Delete(k);
            skip_spaces(&s);
            cJSON *v;
            if (*s == ':') {
                s++;
                v = flow_node(&s, p, line, depth + 1, err);
            } else {
                v = cJSON_CreateNull();
            }
            if (!v) {
                free(kt);
                goto fail;
            }
            if (cJSON_GetObjectItemCaseSensitive(c, kt)) {
                char m[200];
                snprintf(m, sizeof m, "duplicate key '%.100s'", kt);
                free(kt);
                cJSON_Delete(v);
                yerr(p, line, err, m);
                goto fail;
            }
            cJSON_AddItemToObject(c, kt, v);
            free(kt);
        }
        skip_spaces(&s);
        if (*s == ',')
            s++;
        else if (!*s) {
            yerr(p, line, err, seq ? "unterminated flow sequence ('[' without ']' on the line)"
                                   : "unterminated flow mapping ('{' without '}' on the line)");
            goto fail;
        } else if (*s != close) {
            yerr(p, line, err, seq ? "expected ',' or ']' in a flow sequence" : "expected ',' or '}' in a flow mapping");
            goto fail;
        }
    }
    *pp = s;
    return c;
fail:
    cJSON_Delete(c);
    return NULL;
}

/* A value written on the key's (or the dash's) line. */
static cJSON *inline_value(const char *t, const struct yparser *p, int line, struct sim_err *err)
{
    if (refused_start(t[0])) {
        refuse_start(p, line, t[0], err);
        return NULL;
    }
    if (t[0] == '[' || t[0] == '{' || t[0] == '\'' || t[0] == '"') {
        const char *s = t;
        cJSON *j = flow_node(&s, p, line, 0, err);
        if (!j)
            return NULL;
        skip_spaces(&s);
        if (*s) {
            cJSON_Delete(j);
            yerr(p, line, err, "unexpected text after the value");
            return NULL;
        }
        return j;
    }
    return plain_scalar(t);
}

/* ---- blocks -------------------------------------------------------------- */

static cJSON *block(struct yparser *p, int indent, struct sim_err *err);

/* The node below a key or dash with nothing after it: an indented block, a
   sequence at the key's own indentation (YAML allows it for mappings), or null. */
static cJSON *nested_or_null(struct yparser *p, int indent, bool in_mapping, struct sim_err *err)
{
    if (p->i < p->n && (p->lines[p->i].indent > indent ||
                        (in_mapping && p->lines[p->i].indent == indent && is_dash(p->lines[p->i].text))))
        return block(p, p->lines[p->i].indent, err);
    return cJSON_CreateNull();
}

static cJSON *sequence(struct yparser *p, int indent, struct sim_err *err)
{
    cJSON *seq = cJSON_CreateArray();
    while (p->i < p->n && p->lines[p->i].indent == indent && is_dash(p->lines[p->i].text)) {
        struct yline *l = &p->lines[p->i];
        const char *rest = l->text + 1;
        while (*rest == ' ')
            rest++;
        cJSON *item;
        if (!*rest) {
            p->i++;
            item = nested_or_null(p, indent, false, err);
        } else if (is_dash(rest) || (map_colon(rest) >= 0 && rest[0] != '[' && rest[0] != '{')) {
            /* "- key: v" / "- - x": the item is a block starting at the key's column */
            int shift = (int)(rest - l->text);
            memmove(l->text, rest, strlen(rest) + 1);
            l->indent += shift;
            item = block(p, l->indent, err);
        } else {
            item = inline_value(rest, p, l->no, err);
            p->i++;
        }
        if (!item) {
            cJSON_Delete(seq);
            return NULL;
        }
        cJSON_AddItemToArray(seq, item);
    }
    return seq;
}

static cJSON *mapping(struct yparser *p, int indent, struct sim_err *err)
{
    cJSON *map = cJSON_CreateObject();
    while (p->i < p->n && p->lines[p->i].indent == indent) {
        struct yline *l = &p->lines[p->i];
        if (is_dash(l->text)) {
            yerr(p, l->no, err, "a sequence item ('- ') where a mapping key was expected");
            goto fail;
        }
        int colon = map_colon(l->text);
        if (colon < 0) {
            yerr(p, l->no, err, p->i > 0 && p->lines[p->i - 1].indent < indent
                                    ? "expected 'key: value' (a multi-line plain scalar is not supported)"
                                    : "expected 'key: value'");
            goto fail;
        }
        char key[256];
        const char *kt = l->text;
        int kl = colon;
        while (kl > 0 && kt[kl - 1] == ' ')
            kl--;
        if (kl == 0 || kl >= (int)sizeof key) {
            yerr(p, l->no, err, kl ? "key too long" : "empty key");
            goto fail;
        }
        if (kt[0] == '\'' || kt[0] == '"') {
            char tmp[256];
            memcpy(tmp, kt, (size_t)kl);
            tmp[kl] = '\0';
            const char *q = tmp;
            cJSON *k = quoted_scalar(&q, p, l->no, err);
            if (!k)
                goto fail;
            snprintf(key, sizeof key, "%s", k->valuestring);
            cJSON_Delete(k);
        } else {
            if (refused_start(kt[0]) || kt[0] == '?') {
                if (kt[0] == '?')
                    yerr(p, l->no, err, "complex mapping keys ('? ') are not supported");
                else
                    refuse_start(p, l->no, kt[0], err);
                goto fail;
            }
            memcpy(key, kt, (size_t)kl);
            key[kl] = '\0';
        }
        if (cJSON_GetObjectItemCaseSensitive(map, key)) {
            char m[320];
            snprintf(m, sizeof m, "duplicate key '%s'", key);
            yerr(p, l->no, err, m);
            goto fail;
        }
        const char *rest = l->text + colon + 1;
        while (*rest == ' ')
            rest++;
        int line_no = l->no;
        cJSON *v;
        if (!*rest) {
            p->i++;
            v = nested_or_null(p, indent, true, err);
        } else {
            v = inline_value(rest, p, line_no, err);
            p->i++;
            if (v && p->i < p->n && p->lines[p->i].indent > indent) {
                cJSON_Delete(v);
                yerr(p, p->lines[p->i].no, err,
                     "unexpected indentation (the key above already has a value; multi-line plain scalars are not supported)");
                goto fail;
            }
        }
        if (!v)
            goto fail;
        cJSON_AddItemToObject(map, key, v);
    }
    return map;
fail:
    cJSON_Delete(map);
    return NULL;
}

static cJSON *block(struct yparser *p, int indent, struct sim_err *err)
{
    if (++p->depth > YAML_MAX_DEPTH) {
        yerr(p, p->lines[p->i].no, err, "nested too deeply");
        return NULL;
    }
    const struct yline *l = &p->lines[p->i];
    cJSON *j;
    if (is_dash(l->text))
        j = sequence(p, indent, err);
    else if (map_colon(l->text) >= 0 && l->text[0] != '[' && l->text[0] != '{')
        j = mapping(p, indent, err);
    else {
        j = inline_value(l->text, p, l->no, err);
        p->i++;
    }
    p->depth--;
    if (j && p->i < p->n && p->lines[p->i].indent > indent) {
        yerr(p, p->lines[p->i].no, err, "unexpected indentation");
        cJSON_Delete(j);
        return NULL;
    }
    return j;
}

cJSON *yaml_parse(const char *text, size_t len, const char *file, struct sim_err *err)
{
    struct yparser p = {.file = file};
    cJSON *root = NULL;
    if (memchr(text, '\0', len)) {
        sim_errf(err, -EINVAL, "%s: not a text file (a NUL byte)", file);
        return NULL;
    }
    if (split_lines(&p, text, len, err) < 0)
        goto out;
    if (p.n == 0) {
        root = cJSON_CreateNull();
        goto out;
    }
    int top = p.lines[0].indent;
    root = block(&p, top, err);
    if (root && p.i < p.n) {
        yerr(&p, p.lines[p.i].no, err, p.lines[p.i].indent < top ? "less indented than the first line"
                                                                   : "unexpected text after the document's top node");
        cJSON_Delete(root);
        root = NULL;
    }
out:
    for (int k = 0; k < p.n; k++)
        free(p.lines[k].text);
    free(p.lines);
    return root;
}

cJSON *yaml_load_file(const char *path, struct sim_err *err)
{
    char *text;
    size_t len;
    if (jsonu_slurp_max(path, YAML_MAX_FILE, &text, &len, err) < 0)
        return NULL;
    cJSON *j = yaml_parse(text, len, path, err);
    free(text);
    return j;
}
