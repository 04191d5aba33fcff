#include "jsonu.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

int jsonu_slurp(const char *path, char **out, size_t *len, struct sim_err *err)
{
    return jsonu_slurp_max(path, JSONU_READ_MAX, out, len, err);
}

int jsonu_slurp_max(const char *path, size_t max, char **out, size_t *len, struct sim_err *err)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return sim_errf(err, -errno, "%s: cannot open: %s", path, strerror(errno));
    struct stat st;
    if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
        fclose(f);
        return sim_errf(err, -EISDIR, "%s: is a directory, not a file", path);
    }
    size_t cap = 1 << 16, n = 0;
    char *buf = sim_xcalloc(cap, 1);
    for (;;) {
        if (n + 1 >= cap) {
            cap *= 2;
            buf = sim_xrealloc(buf, cap, 1);
        }
        size_t r = fread(buf + n, 1, cap - n - 1, f);
        n += r;
        if (r == 0)
            break;
        if (n > max) { /* a device or an endless file (/dev/zero, a FIFO) */
            fclose(f);
            free(buf);
            return sim_errf(err, -EFBIG, "%s: more than %zu MiB: not an input cephsim reads (a device or an endless "
                            "file?)", path, max >> 20);
        }
    }
    int bad = ferror(f), e = errno ? errno : EIO;
    fclose(f);
    if (bad) {
        free(buf);
        return sim_errf(err, -e, "%s: read error: %s", path, strerror(e));
    }
    buf[n] = '\0';
    *out = buf;
    if (len)
        *len = n;
    return 0;
}

int jsonu_check_nul(const char *name, const char *text, size_t len, struct sim_err *err)
{
    int line = 1;
    for (size_t i = 0; i < len; i++) {
        if (text[i] == '\n')
            line++;
        if (text[i] == '\0')
            return sim_errf(err, -EINVAL, "%s:%d: a NUL byte at byte %zu (JSON text holds none; a binary file?)",
                            name, line, i);
        /* "\u0000" whose backslash is not itself escaped */
        if (text[i] == '\\' && i + 5 < len && text[i + 1] == 'u' && !memcmp(text + i + 2, "0000", 4)) {
            size_t bs = 0;
            for (size_t k = i; k > 0 && text[k - 1] == '\\'; k--)
                bs++;
            if (bs % 2 == 0)
                return sim_errf(err, -EINVAL, "%s:%d: \\u0000 at byte %zu: a string holding a NUL character "
                                "(C strings end there; refused rather than cut short)", name, line, i);
        }
    }
    return 0;
}

cJSON *jsonu_load_file(const char *path, struct sim_err *err)
{
    char *buf;
    size_t len;
    if (jsonu_slurp(path, &buf, &len, err) < 0)
        return NULL;
    if (jsonu_check_nul(path, buf, len, err) < 0) {
        free(buf);
        return NULL;
    }
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithLengthOpts(buf, len + 1, &end, 1); /* length counts the NUL */
    if (!root) {
        size_t off = end ? (size_t)(end - buf) : 0;
        int line = 1;
        for (size_t i = 0; i < off && i < len; i++)
            line += buf[i] == '\n';
        sim_errf(err, -EINVAL, "%s:%d: malformed JSON near byte %zu", path, line, off);
    }
    free(buf);
    return root;
}

int jsonu_write_text(const char *path, const char *text, struct sim_err *err)
{
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
    FILE *f = fopen(tmp, "wb");
    if (!f)
        return sim_errf(err, -errno, "%s: cannot write: %s", path, strerror(errno));
    size_t n = strlen(text);
    int bad = fwrite(text, 1, n, f) != n;
    bad |= fclose(f) != 0;
    if (bad || rename(tmp, path) != 0) {
        int e = errno ? errno : EIO;
        unlink(tmp);
        return sim_errf(err, -e, "%s: cannot write: %s", path, strerror(e));
    }
    return 0;
}

int jsonu_write_file(const char *path, const cJSON *json, struct sim_err *err)
{
    char *text = cJSON_Print(json);
    if (!text)
        return sim_errf(err, -ENOMEM, "%s: cannot format JSON", path);
    size_t n = strlen(text);
    text = sim_xrealloc(text, n + 2, 1);
    text[n] = '\n';
    text[n + 1] = '\0';
    int rc = jsonu_write_text(path, text, err);
    free(text);
    return rc;
}

const char *jsonu_path(char *buf, size_t n, const char *parent, const char *key)
{
    if (parent && parent[0])
        snprintf(buf, n, "%s.%s", parent, key);
    else
        snprintf(buf, n, "%s", key);
    return buf;
}



static int check_duplicates(const cJSON *node, const char *path, const char *file, struct sim_err *err)
{
    int i = 0;
    for (const cJSON *a = node->child; a; a = a->next, i++) {
        char p[512];
        if (cJSON_IsObject(node)) {
            /* objects people write are small: a quadratic look is cheaper than a table */
            for (const cJSON *b = node->child; b != a; b = b->next)
                if (a->string && b->string && !strcmp(a->string, b->string))
                    return sim_errf(err, -EINVAL, "%s: %s: given twice (JSON keeps only the last)", file,
                                    jsonu_path(p, sizeof p, path, a->string));
            jsonu_path(p, sizeof p, path, a->string ? a->string : "");
        } else {
            snprintf(p, sizeof p, "%s[%d]", path, i);
        }
        int rc = a->child ? check_duplicates(a, p, file, err) : 0;
        if (rc < 0)
            return rc;
    }
    return 0;
}

int jsonu_check_duplicates(const cJSON *root, const char *file, struct sim_err *err)
{
    return root ? check_duplicates(root, "", file, err) : 0;
}

int jsonu_check_keys(const cJSON *obj, const char *const *allowed, int n,
                     const char *file, const char *path, struct sim_err *err)
{
    char p[512];
    if (!cJSON_IsObject(obj))
        return sim_errf(err, -EINVAL, "%s: %s: expected an object", file, path[0] ? path : "(top)");
    for (const cJSON *it = obj->child; it; it = it->next) {
        int ok = 0;
        for (int i = 0; i < n && !ok; i++)
            ok = strcmp(it->string, allowed[i]) == 0;
        if (!ok) {
            const char *dym = names_did_you_mean(it->string, allowed, n);
            return sim_errf(err, -EINVAL, "%s: %s: unknown key%s%s%s", file,
                            jsonu_path(p, sizeof p, path, it->string),
                            dym ? " (did you mean '" : "", dym ? dym : "", dym ? "'?)" : "");
        }
    }
    return 0;
}

static const cJSON *get_item(const cJSON *obj, const char *key, bool required, const char *file,
                             const char *path, struct sim_err *err, int *rc)
{
    char p[512];
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(obj, key);
    *rc = 0;
    if (!it && required)
        *rc = sim_errf(err, -EINVAL, "%s: %s: missing required key", file,
                       jsonu_path(p, sizeof p, path, key));
    return it;
}

int jsonu_get_double(const cJSON *obj, const char *key, double *out, double lo, double hi,
                     bool required, const char *file, const char *path, struct sim_err *err)
{
    int rc;
    char p[512];
    const cJSON *it = get_item(obj, key, required, file, path, err, &rc);
    if (!it)
        return rc;
    if (!cJSON_IsNumber(it))
        return sim_errf(err, -EINVAL, "%s: %s: expected a number", file, jsonu_path(p, sizeof p, path, key));
    double v = it->valuedouble;
    if (!isfinite(v) || v < lo || v > hi)
        return sim_errf(err, -ERANGE, "%s: %s: %g is out of range [%g, %g]", file,
                        jsonu_path(p, sizeof p, path, key), v, lo, hi);
    *out = v;
    return 0;
}

int jsonu_get_int(const cJSON *obj, const char *key, int64_t *out, int64_t lo, int64_t hi,
                  bool required, const char *file, const char *path, struct sim_err *err)
{
    int rc;
    char p[512];
    const cJSON *it = get_item(obj, key, required, file, path, err, &rc);
    if (!it)
        return rc;
    if (!cJSON_IsNumber(it) || it->valuedouble != floor(it->valuedouble))
        return sim_errf(err, -EINVAL, "%s: %s: expected an integer", file, jsonu_path(p, sizeof p, path, key));
    double v = it->valuedouble;
    if (v < (double)lo || v > (double)hi)
        return sim_errf(err, -ERANGE, "%s: %s: %.0f is out of range [%" PRId64 ", %" PRId64 "]", file,
                        jsonu_path(p, sizeof p, path, key), v, lo, hi);
    *out = (int64_t)v;
    return 0;
}

int jsonu_get_bool(const cJSON *obj, const char *key, bool *out, bool required,
                   const char *file, const char *path, struct sim_err *err)
{
    int rc;
    char p[512];
    const cJSON *it = get_item(obj, key, required, file, path, err, &rc);
    if (!it)
        return rc;
    if (!cJSON_IsBool(it))
        return sim_errf(err, -EINVAL, "%s: %s: expected true or false", file, jsonu_path(p, sizeof p, path, key));
    *out = cJSON_IsTrue(it);
    return 0;
}

int jsonu_get_string(const cJSON *obj, const char *key, char *out, size_t outsz,
                     bool required, const char *file, const char *path, struct sim_err *err)
{
    int rc;
    char p[512];
    const cJSON *it = get_item(obj, key, required, file, path, err, &rc);
    if (!it)
        return rc;
    if (!cJSON_IsString(it))
        return sim_errf(err, -EINVAL, "%s: %s: expected a string", file, jsonu_path(p, sizeof p, path, key));
    if (strlen(it->valuestring) >= outsz)
        return sim_errf(err, -EINVAL, "%s: %s: string longer than %zu characters", file,
                        jsonu_path(p, sizeof p, path, key), outsz - 1);
    strcpy(out, it->valuestring);
    return 0;
}

cJSON *jsonu_add_fixed(cJSON *obj, const char *key, const char *fmt, double v)
{
    char buf[64];
    snprintf(buf, sizeof buf, fmt, v);
    return cJSON_AddItemToObject(obj, key, cJSON_CreateRaw(buf)) ? cJSON_GetObjectItemCaseSensitive(obj, key) : NULL;
}

cJSON *jsonu_add_u64(cJSON *obj, const char *key, uint64_t v)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%" PRIu64, v);
    cJSON *item = cJSON_CreateRaw(buf);
    cJSON_AddItemToObject(obj, key, item);
    return item;
}

bool jsonu_scalar_text(const cJSON *v, char *buf, size_t n)
{
    if (cJSON_IsNumber(v))
        snprintf(buf, n, "%.17g", v->valuedouble);
    else if (cJSON_IsBool(v))
        snprintf(buf, n, "%s", cJSON_IsTrue(v) ? "true" : "false");
    else if (cJSON_IsString(v))
        snprintf(buf, n, "%s", v->valuestring);
    else
        return false;
    return true;
}
