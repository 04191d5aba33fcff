/*
 * fiojob.c - fio job files parsed with fio's own semantics.
 *
 * Mirrors fio's init.c __parse_jobs_ini(): `[name]` starts a job, `[global]`
 * (any name starting with "global", as fio's strncmp) edits the defaults that
 * each job *below* it copies, lines whose first non-blank is ';' or '#' are
 * comments and text after ';' or '#' is cut (strip_blank_end), a key without '='
 * is a bare flag, and `include FILE` pulls option lines (no sections) into the
 * current section, nested.  options.c fio_options_parse(): kb_base (prio 1) is
 * applied before the other options of a section, ${VAR} is substituted in the
 * whole line (fio_option_dup_subs; unset = ""), canonical names replace aliases
 * (readwrite, blocksize, blocksize_range, io_limit, fileoffset, timeout,
 * wait_for_previous, allrandrepeat) and each job records its own options as
 * given ("job options"; [global] ones are "global options").  parse.c
 * str_to_decimal()/__get_mult_bytes()/get_mult_time(): k/m/g/t/p are kb_base
 * powers, ki/kib... the other base (HOWTO: with kb_base=1024, 1mi = 1000000),
 * b = bytes, case-insensitive, 0x prefix; times default to seconds (thinktime
 * to microseconds) with d/h/m/s/ms/msec/us/usec.  init.c add_job(): stonewall or
 * new_group opens a new group id once the current group has a job.
 * Defaults (options.c): rw=read, bs=4096, iodepth=1, numjobs=1, rwmixread=50,
 * thinktime_blocks=1, randrepeat=1, randseed=0x89, clat_percentiles=1,
 * percentile_list=1:5:10:20:30:40:50:60:70:80:90:95:99:99.5:99.9:99.95:99.99.
 *
 * Stricter than fio where fio silently mis-parses: unknown unit suffixes,
 * fractional sizes ("1.5g" is 1 byte in fio), hex with a suffix, bssplit
 * percentages that do not add up to 100, bssplit/percentage above 100 (fio
 * clamps) and include cycles are errors.  Simplified: bare bool options mean 1
 * (fio requires a value for direct=, randrepeat=); includes resolve against the
 * including file's directory only (fio tries the current directory first);
 * the $pagesize/$ncpus keywords and (arithmetic) are not supported; trim
 * directions are parsed and dropped; a repeated option replaces its entry in
 * job_options (fio would emit a duplicate JSON key).
 */
#include "fiojob.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fioopts.h"
#include "jsonu.h"
#include "strbuf.h"

#define FIOJOB_MAX_INCLUDE_DEPTH 16
#define FIOJOB_MAX_LINE 4096        /* fio OPT_LEN_MAX */
#define FIOJOB_MAX_IODEPTH 65536
#define FIOJOB_MAX_NUMJOBS 4096     /* fio REAL_MAX_JOBS */

#define NS_PER_US 1000ULL
#define NS_PER_S 1000000000ULL

static const double default_percentiles[] = { 1, 5, 10, 20, 30, 40, 50, 60, 70, 80, 90,
                                              95, 99, 99.5, 99.9, 99.95, 99.99 };

/* ---- small helpers ------------------------------------------------------- */

static int whyf(char *why, size_t n, int code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int whyf(char *why, size_t n, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, n, fmt, ap);
    va_end(ap);
    return code;
}

static char *trim(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    size_t len = strlen(s);
    while (len > 0 && isspace((unsigned char)s[len - 1]))
        s[--len] = '\0';
    return s;
}

static int copy_str(char *dst, size_t size, const char *v, char *why, size_t n)
{
    if (strlen(v) >= size)
        return whyf(why, n, -EINVAL, "value '%s' too long (max %zu characters)", v, size - 1);
    memcpy(dst, v, strlen(v) + 1);
    return 0;
}

/* Splits s at sep into at most max parts (modified in place); -1 if more. */
static int split(char *s, char sep, char **parts, int max)
{
    int k = 0;
    for (;;) {
        if (k == max)
            return -1;
        parts[k++] = s;
        char *p = strchr(s, sep);
        if (!p)
            return k;
        *p = '\0';
        s = p + 1;
    }
}

static uint64_t ipow(uint64_t base, int p)
{
    uint64_t r = 1;
    while (p-- > 0)
        r *= base;
    return r;
}

/* ---- value types (parse.c str_to_decimal and friends) -------------------- */

/* Multiplier of a size suffix (__get_mult_bytes, as the HOWTO states it). */
static int size_mult(const char *suffix, uint32_t kb_base, uint64_t *mult)
{
    char s[8];
    size_t len = strlen(suffix);
    if (len >= sizeof s)
        return -1;
    for (size_t i = 0; i <= len; i++)
        s[i] = (char)tolower((unsigned char)suffix[i]);
    if (!s[0] || !strcmp(s, "b")) {
        *mult = 1;
        return 0;
    }
    const char *p = strchr("kmgtp", s[0]);
    if (!p)
        return -1;
    int pw = (int)(p - "kmgtp") + 1;
    const char *rest = s + 1;
    uint64_t base;
    if (!rest[0] || !strcmp(rest, "b"))
        base = kb_base;
    else if (!strcmp(rest, "i") || !strcmp(rest, "ib"))
        base = kb_base == 1024 ? 1000 : 1024; /* fio's backwards inversion */
    else
        return -1;
    *mult = ipow(base, pw);
    return 0;
}

/*
 * [0x]digits[suffix] into bytes; with pct non-NULL also "N%" (0 < N <= 100),
 * returned in *pct with *out = 0.
 */
static int parse_size(const char *s, uint32_t kb_base, uint64_t *out, double *pct, char *why,
                      size_t n)
{
    *out = 0;
    if (pct)
        *pct = 0;
    if (!*s)
        return whyf(why, n, -EINVAL, "missing value");
    if (s[0] == '-')
        return whyf(why, n, -EINVAL, "value '%s' must not be negative", s);
    if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        char *e;
        errno = 0;
        unsigned long long v = strtoull(s + 2, &e, 16);
        if (e == s + 2 || !isxdigit((unsigned char)s[2]))
            return whyf(why, n, -EINVAL, "bad number '%s'", s);
        if (*e)
            return whyf(why, n, -EINVAL, "bad number '%s' (hexadecimal values take no suffix)", s);
        if (errno == ERANGE)
            return whyf(why, n, -EINVAL, "value '%s' too large", s);
        *out = v;
        return 0;
    }
    if (!isdigit((unsigned char)s[0]))
        return whyf(why, n, -EINVAL, "bad number '%s'", s);
    const char *e = s;
    while (isdigit((unsigned char)*e))
        e++;
    if (*e == '.' || *e == '%') {
        char *pe;
        double d = strtod(s, &pe);
        if (pe[0] == '%' && pe[1] == '\0') {
            if (!pct)
                return whyf(why, n, -EINVAL, "'%s': a percentage is not allowed here", s);
            if (!(d > 0 && d <= 100))
                return whyf(why, n, -EINVAL, "percentage '%s' out of range (0, 100]", s);
            *pct = d;
            return 0;
        }
        return whyf(why, n, -EINVAL, "bad number '%s' (fractional sizes are not supported)", s);
    }
    errno = 0;
    unsigned long long v = strtoull(s, NULL, 10);
    if (errno == ERANGE)
        return whyf(why, n, -EINVAL, "value '%s' too large", s);
    uint64_t mult;
    if (strpbrk(e, "*/+-()^"))
        return whyf(why, n, -EINVAL, "'%s': fio's arithmetic expressions are not supported by cephsim "
                    "(give the value)", s);
    if (size_mult(e, kb_base, &mult))
        return whyf(why, n, -EINVAL, "unknown unit '%s' in '%s' (use k/m/g/t/p, ki/mi/..., b or %%)",
                    e, s);
    if (v && mult > UINT64_MAX / v)
        return whyf(why, n, -EINVAL, "value '%s' too large", s);
    *out = v * mult;
    return 0;
}

static int parse_uint(const char *s, uint32_t kb_base, uint64_t lo, uint64_t hi, uint64_t *out,
                      char *why, size_t n)
{
    int rc = parse_size(s, kb_base, out, NULL, why, n);
    if (rc)
        return rc;
    if (*out < lo || *out > hi)
        return whyf(why, n, -EINVAL, "value '%s' out of range [%llu, %llu]", s,
                    (unsigned long long)lo, (unsigned long long)hi);
    return 0;
}

/* fio get_mult_time(): d/h/m/s/sec/ms/msec/us/usec, unit_ns when none. */
static int parse_time(const char *s, uint64_t unit_ns, uint64_t *out, char *why, size_t n)
{
    static const struct { const char *sfx; uint64_t ns; } units[] = {
        { "d", 86400 * NS_PER_S }, { "h", 3600 * NS_PER_S }, { "m", 60 * NS_PER_S },
        { "s", NS_PER_S },         { "sec", NS_PER_S },      { "ms", 1000000 },
        { "msec", 1000000 },       { "us", NS_PER_US },      { "usec", NS_PER_US },
    };
    *out = 0;
    if (!*s)
        return whyf(why, n, -EINVAL, "missing value");
    if (s[0] == '-')
        return whyf(why, n, -EINVAL, "time '%s' must not be negative", s);
    if (!isdigit((unsigned char)s[0]))
        return whyf(why, n, -EINVAL, "bad time '%s'", s);
    char *e;
    errno = 0;
    unsigned long long v = strtoull(s, &e, 10);
    if (errno == ERANGE)
        return whyf(why, n, -EINVAL, "time '%s' too large", s);
    uint64_t mult = 0;
    if (!*e) {
        mult = unit_ns;
    } else {
        for (size_t i = 0; i < sizeof units / sizeof units[0] && !mult; i++)
            if (!strcasecmp(e, units[i].sfx))
                mult = units[i].ns;
        if (!mult)
            return whyf(why, n, -EINVAL, "unknown time unit '%s' in '%s' (use d/h/m/s/ms/us)", e, s);
    }
    if (v && mult > UINT64_MAX / v)
        return whyf(why, n, -EINVAL, "time '%s' too large", s);
    *out = v * mult;
    return 0;
}

static int parse_bool(const char *v, bool *out, char *why, size_t n)
{
    if (!v || !strcmp(v, "1") || !strcasecmp(v, "true"))
        *out = true;
    else if (!strcmp(v, "0") || !strcasecmp(v, "false"))
        *out = false;
    else
        return whyf(why, n, -EINVAL, "bad boolean '%s' (use 0/1 or true/false)", v);
    return 0;
}

static int parse_double(const char *s, double *out)
{
    char *e;
    if (!*s)
        return -1;
    errno = 0;
    *out = strtod(s, &e);
    return *e || errno == ERANGE ? -1 : 0;
}

/*
 * Per-direction values "r[,w[,t]]" as fio's bs: one value applies to all
 * directions, "a,b" gives writes and trims b, an empty part keeps the current
 * value.  Returns the number of parts or -1; parts[i] NULL = keep.
 */
static int split_ddir(char *v, char *parts[3])
{
    char *p[4];
    int k = split(v, ',', p, 3);
    if (k < 0)
        return -1;
    for (int i = 0; i < k; i++)
        p[i] = trim(p[i]);
    parts[0] = p[0];
    parts[1] = k >= 2 ? p[1] : p[0];
    parts[2] = k >= 3 ? p[2] : parts[1];
    for (int i = 0; i < 3; i++)
        if (!parts[i][0])
            parts[i] = NULL;
    return k;
}

/* ---- option handlers ------------------------------------------------------ */

static const struct { const char *name; int rw; } rw_modes[] = {
    { "read", FIO_RW_READ }, { "write", FIO_RW_WRITE }, { "randread", FIO_RW_RANDREAD },
    { "randwrite", FIO_RW_RANDWRITE }, { "rw", FIO_RW_RW }, { "readwrite", FIO_RW_RW },
    { "randrw", FIO_RW_RANDRW }, { "trim", -1 }, { "randtrim", -1 }, { "trimwrite", -1 },
    { "randtrimwrite", -1 },
};

static bool rw_is_random(enum fio_rw rw)
{
    return rw == FIO_RW_RANDREAD || rw == FIO_RW_RANDWRITE || rw == FIO_RW_RANDRW;
}

/* options.c str_rw_cb(): mode[:nr] */
static int opt_rw(struct workload_job *j, char *v, char *why, size_t n)
{
    char *post = strchr(v, ':');
    if (post)
        *post++ = '\0';
    char *mode = trim(v);
    if (!mode[0])
        return whyf(why, n, -EINVAL, "missing value (read, write, randread, randwrite, rw, randrw)");
    int rw = -2;
    const char *names[sizeof rw_modes / sizeof rw_modes[0]];
    int nn = 0;
    for (size_t i = 0; i < sizeof rw_modes / sizeof rw_modes[0]; i++) {
        names[nn++] = rw_modes[i].name;
        if (!strcmp(mode, rw_modes[i].name))
            rw = rw_modes[i].rw;
    }
    if (rw == -1)
        return whyf(why, n, -ENOTSUP, "'%s' is not supported (cephsim models reads and writes only)",
                    mode);
    if (rw == -2) {
        const char *dym = names_did_you_mean(mode, names, nn);
        return whyf(why, n, -EINVAL,
                    "unknown mode '%s'%s%s%s (read, write, randread, randwrite, rw, randrw)", mode,
                    dym ? " (did you mean '" : "", dym ? dym : "", dym ? "'?)" : "");
    }
    j->rw = (enum fio_rw)rw;
    j->rw_seq_nr = 1;
    j->rw_seq_add = 0;
    if (!post)
        return 0;
    uint64_t val;
    char *num = trim(post);
    /* str_rw_cb: a sequential skip may be negative (backwards I/O: rw=read:-8k) */
    bool backwards = !rw_is_random(j->rw) && num[0] == '-';
    int rc = rw_is_random(j->rw) ? parse_uint(num, j->kb_base, 1, UINT32_MAX, &val, why, n)
                                 : parse_size(num + backwards, j->kb_base, &val, NULL, why, n);
    if (!rc && val > INT64_MAX)
        rc = whyf(why, n, -EINVAL, "skip '%s' too large", num);
    if (rc)
        return rc;
    if (rw_is_random(j->rw))
        j->rw_seq_nr = (uint32_t)val;
    else
        j->rw_seq_add = backwards ? -(int64_t)val : (int64_t)val;
    return 0;
}

static int opt_rw_sequencer(struct workload_job *j, char *v, char *why, size_t n)
{
    if (!strcmp(v, "sequential"))
        j->rw_sequencer = FIO_RWSEQ_SEQUENTIAL;
    else if (!strcmp(v, "identical"))
        j->rw_sequencer = FIO_RWSEQ_IDENTICAL;
    else
        return whyf(why, n, -EINVAL, "unknown value '%s' (sequential or identical)", v);
    return 0;
}

/* options.c str_rwmix_read_cb / str_rwmix_write_cb: the two stay complementary. */
static int opt_rwmixread(struct workload_job *j, char *v, char *why, size_t n)
{
    uint64_t val;
    int rc = parse_uint(v, j->kb_base, 0, 100, &val, why, n);
    if (!rc)
        j->rwmixread = (uint32_t)val;
    return rc;
}

static int opt_rwmixwrite(struct workload_job *j, char *v, char *why, size_t n)
{
    uint64_t val;
    int rc = parse_uint(v, j->kb_base, 0, 100, &val, why, n);
    if (!rc)
        j->rwmixread = 100 - (uint32_t)val;
    return rc;
}

static int opt_kb_base(struct workload_job *j, char *v, char *why, size_t n)
{
    if (!strcmp(v, "1024"))
        j->kb_base = 1024;
    else if (!strcmp(v, "1000"))
        j->kb_base = 1000;
    else
        return whyf(why, n, -EINVAL, "value '%s' must be 1000 or 1024", v);
    return 0;
}

static int opt_bs(struct workload_job *j, char *v, char *why, size_t n)
{
    char *parts[3];
    if (split_ddir(v, parts) < 0)
        return whyf(why, n, -EINVAL, "more than three comma-separated values");
    uint64_t val[3] = { 0, 0, 0 };
    for (int d = 0; d < 3; d++) {
        int rc = parts[d] ? parse_uint(parts[d], j->kb_base, 1, UINT32_MAX, &val[d], why, n) : 0;
        if (rc)
            return rc;
    }
    for (int d = 0; d < 2; d++)
        if (parts[d])
            j->bs[d] = (uint32_t)val[d];
    return 0;
}

/* irange "a-b" or "a:b" (swapped when a > b, as the HOWTO says). */
static int parse_size_range(const char *in, uint32_t kb_base, uint64_t lo_min, uint64_t out[2],
                            char *why, size_t n)
{
    char s[FIOJOB_MAX_LINE];
    snprintf(s, sizeof s, "%s", in);
    char *sep = strpbrk(s, "-:");
    if (!sep)
        return whyf(why, n, -EINVAL, "range '%s' must be 'min-max' or 'min:max'", s);
    *sep = '\0';
    int rc = parse_uint(trim(s), kb_base, lo_min, UINT32_MAX, &out[0], why, n);
    if (!rc)
        rc = parse_uint(trim(sep + 1), kb_base, lo_min, UINT32_MAX, &out[1], why, n);
    if (!rc && out[0] > out[1]) {
        uint64_t t = out[0];
        out[0] = out[1];
        out[1] = t;
    }
    return rc;
}

static int opt_bsrange(struct workload_job *j, char *v, char *why, size_t n)
{
    char *parts[3];
    if (split_ddir(v, parts) < 0)
        return whyf(why, n, -EINVAL, "more than three comma-separated ranges");
    uint64_t r[3][2];
    for (int d = 0; d < 3; d++) {
        int rc = parts[d] ? parse_size_range(parts[d], j->kb_base, 1, r[d], why, n) : 0;
        if (rc)
            return rc;
    }
    for (int d = 0; d < 2; d++)
        if (parts[d]) {
            j->bsrange[d][0] = (uint32_t)r[d][0];
            j->bsrange[d][1] = (uint32_t)r[d][1];
        }
    return 0;
}

/*
 * options.c split_parse_ddir() + bssplit_ddir(): "bs/pct:bs/pct:bs/", blank (or
 * 0, as fio's atoi) percentages share the remainder evenly; the remainder of
 * that division goes to the first blanks so the direction sums to exactly 100.
 */
static int parse_bssplit_ddir(char *s, uint32_t kb_base, struct fio_bssplit *out, int *nout,
                              char *why, size_t n)
{
    char *ents[FIOJOB_MAX_BSSPLIT + 1];
    int k = split(s, ':', ents, FIOJOB_MAX_BSSPLIT + 1);
    if (k < 0 || (k == FIOJOB_MAX_BSSPLIT + 1 && trim(ents[k - 1])[0]))
        return whyf(why, n, -EINVAL, "more than %d block sizes", FIOJOB_MAX_BSSPLIT);
    int nr = 0, blanks = 0;
    uint32_t sum = 0;
    bool blank[FIOJOB_MAX_BSSPLIT];
    for (int i = 0; i < k; i++) {
        char *e = trim(ents[i]);
        if (!e[0])
            break; /* fio stops at an empty entry */
        char *slash = strchr(e, '/');
        uint64_t bs, pct = 0;
        if (slash)
            *slash++ = '\0';
        int rc = parse_uint(trim(e), kb_base, 1, UINT32_MAX, &bs, why, n);
        if (!rc && slash && trim(slash)[0])
            rc = parse_uint(trim(slash), 1024, 0, 100, &pct, why, n);
        if (rc)
            return rc;
        out[nr].bs = (uint32_t)bs;
        out[nr].pct = (uint32_t)pct;
        blank[nr] = pct == 0;
        blanks += blank[nr];
        sum += (uint32_t)pct;
        nr++;
    }
    if (!nr)
        return whyf(why, n, -EINVAL, "no block sizes given");
    if (sum > 100)
        return whyf(why, n, -EINVAL, "percentages add up to %u%%, more than 100%%", sum);
    if (!blanks && sum != 100)
        return whyf(why, n, -EINVAL, "percentages add up to %u%%, not 100%%", sum);
    if (blanks) {
        uint32_t share = (100 - sum) / (uint32_t)blanks, extra = (100 - sum) % (uint32_t)blanks;
        for (int i = 0; i < nr; i++)
            if (blank[i]) {
                out[i].pct = share + (extra ? 1 : 0);
                if (extra)
                    extra--;
            }
    }
    *nout = nr;
    return 0;
}

static int opt_bssplit(struct workload_job *j, char *v, char *why, size_t n)
{
    char *parts[3];
    if (split_ddir(v, parts) < 0)
        return whyf(why, n, -EINVAL, "more than three comma-separated lists");
    struct fio_bssplit tmp[3][FIOJOB_MAX_BSSPLIT];
    int nr[3] = { 0, 0, 0 };
    memset(tmp, 0, sizeof tmp); /* unused entries stay zero */
    for (int d = 0; d < 3; d++) {
        if (!parts[d] || (d > 0 && parts[d] == parts[d - 1])) {
            if (parts[d]) {
                memcpy(tmp[d], tmp[d - 1], sizeof tmp[d]);
                nr[d] = nr[d - 1];
            }
            continue;
        }
        int rc = parse_bssplit_ddir(parts[d], j->kb_base, tmp[d], &nr[d], why, n);
        if (rc)
            return rc;
    }
    for (int d = 0; d < 2; d++)
        if (parts[d]) {
            memcpy(j->bssplit[d], tmp[d], sizeof tmp[d]);
            j->n_bssplit[d] = nr[d];
        }
    return 0;
}

static int opt_size_pct(uint32_t kb_base, char *v, uint64_t *bytes, double *pct, char *why,
                        size_t n)
{
    uint64_t b;
    double p;
    int rc = parse_size(v, kb_base, &b, &p, why, n);
    if (!rc) {
        *bytes = b;
        *pct = p;
    }
    return rc;
}

static int opt_size(struct workload_job *j, char *v, char *why, size_t n)
{
    return opt_size_pct(j->kb_base, v, &j->size, &j->size_pct, why, n);
}

static int opt_offset(struct workload_job *j, char *v, char *why, size_t n)
{
    return opt_size_pct(j->kb_base, v, &j->offset, &j->offset_pct, why, n);
}

static int opt_io_size(struct workload_job *j, char *v, char *why, size_t n)
{
    return opt_size_pct(j->kb_base, v, &j->io_size, &j->io_size_pct, why, n);
}

/* irange(time), seconds by default. */
static int opt_startdelay(struct workload_job *j, char *v, char *why, size_t n)
{
    uint64_t t[2];
    char *sep = strpbrk(v, "-:");
    if (sep)
        *sep = '\0';
    int rc = parse_time(trim(v), NS_PER_S, &t[0], why, n);
    t[1] = t[0];
    if (!rc && sep)
        rc = parse_time(trim(sep + 1), NS_PER_S, &t[1], why, n);
    if (rc)
        return rc;
    j->startdelay_ns = t[0] < t[1] ? t[0] : t[1];
    j->startdelay_max_ns = t[0] < t[1] ? t[1] : t[0];
    return 0;
}

static int opt_rate_iops(struct workload_job *j, char *v, char *why, size_t n)
{
    char *parts[3];
    if (split_ddir(v, parts) < 0)
        return whyf(why, n, -EINVAL, "more than three comma-separated values");
    uint64_t val[3] = { 0, 0, 0 };
    for (int d = 0; d < 3; d++) {
        int rc = parts[d] ? parse_uint(parts[d], j->kb_base, 0, UINT32_MAX, &val[d], why, n) : 0;
        if (rc)
            return rc;
    }
    for (int d = 0; d < 2; d++)
        if (parts[d])
            j->rate_iops[d] = (uint32_t)val[d];
    return 0;
}

static int opt_percentile_list(struct workload_job *j, char *v, char *why, size_t n)
{
    char *p[FIOJOB_MAX_PERCENTILES];
    int k = split(v, ':', p, FIOJOB_MAX_PERCENTILES);
    if (k < 0)
        return whyf(why, n, -EINVAL, "more than %d percentiles", FIOJOB_MAX_PERCENTILES);
    double tmp[FIOJOB_MAX_PERCENTILES];
    for (int i = 0; i < k; i++) {
        char *s = trim(p[i]);
        if (parse_double(s, &tmp[i]))
            return whyf(why, n, -EINVAL, "bad percentile '%s'", s);
        if (!(tmp[i] > 0 && tmp[i] <= 100))
            return whyf(why, n, -EINVAL, "percentile '%s' out of range (0, 100]", s);
    }
    memcpy(j->percentile_list, tmp, (size_t)k * sizeof tmp[0]);
    j->n_percentiles = k;
    return 0;
}

/*
 * options.c zone_split_ddir(): "access/size:access/size..." for one direction;
 * access percentages add up to 100, sizes are percentages of the region
 * (zoned: 0 or blank ones share what is left, as fio) or bytes (zoned_abs).
 */
static int parse_zones_ddir(char *s, bool absolute, uint32_t kb_base, struct fio_zone_split *out,
                            int *nout, char *why, size_t n)
{
    char *ents[FIOJOB_MAX_ZONES + 1];
    int k = split(s, ':', ents, FIOJOB_MAX_ZONES + 1);
    if (k < 0 || (k == FIOJOB_MAX_ZONES + 1 && trim(ents[k - 1])[0]))
        return whyf(why, n, -EINVAL, "more than %d zones", FIOJOB_MAX_ZONES);
    int nr = 0, missing = 0;
    uint32_t access = 0, sizes = 0;
    for (int i = 0; i < k; i++) {
        char *e = trim(ents[i]);
        if (!e[0])
            break; /* fio stops at an empty entry */
        char *slash = strchr(e, '/');
        if (slash)
            *slash++ = '\0';
        uint64_t a, sz = 0;
        int rc = parse_uint(trim(e), kb_base, 0, 100, &a, why, n);
        if (!rc && slash && trim(slash)[0])
            rc = absolute ? parse_size(trim(slash), kb_base, &sz, NULL, why, n)
                          : parse_uint(trim(slash), kb_base, 0, 100, &sz, why, n);
        if (rc)
            return rc;
        out[nr] = (struct fio_zone_split){ .access_pct = (uint32_t)a };
        if (absolute)
            out[nr].size = sz;
        else
            out[nr].size_pct = (uint32_t)sz;
        missing += !absolute && sz == 0;
        access += (uint32_t)a;
        sizes += absolute ? 0 : (uint32_t)sz;
        nr++;
    }
    if (!nr)
        return whyf(why, n, -EINVAL, "no zones given");
    if (access != 100)
        return whyf(why, n, -EINVAL, "access percentages add up to %u%%, not 100%%", access);
    if (sizes > 100)
        return whyf(why, n, -EINVAL, "zone sizes add up to %u%%, more than 100%%", sizes);
    for (int i = 0; i < nr && missing; i++)
        if (!out[i].size_pct)
            out[i].size_pct = (100 - sizes) / (uint32_t)missing;
    *nout = nr;
    return 0;
}

/* options.c parse_zoned_distribution(): per direction as bs ("r,w"; one set applies to both). */
static int opt_zoned(struct workload_job *j, char *v, bool absolute, char *why, size_t n)
{
    char *parts[3];
    if (split_ddir(v, parts) < 0)
        return whyf(why, n, -EINVAL, "more than three comma-separated zone lists");
    struct fio_zone_split tmp[2][FIOJOB_MAX_ZONES];
    int nr[2] = { 0, 0 };
    memset(tmp, 0, sizeof tmp);
    for (int d = 0; d < 2; d++) {
        if (d > 0 && parts[d] == parts[d - 1]) {
            memcpy(tmp[d], tmp[d - 1], sizeof tmp[d]);
            nr[d] = nr[d - 1];
            continue;
        }
        int rc = parts[d] ? parse_zones_ddir(parts[d], absolute, j->kb_base, tmp[d], &nr[d], why, n) : 0;
        if (rc)
            return rc;
    }
    memcpy(j->zones, tmp, sizeof tmp);
    memcpy(j->n_zones, nr, sizeof nr);
    j->random_distribution = absolute ? FIO_DIST_ZONED_ABS : FIO_DIST_ZONED;
    j->dist_param = 0;
    j->dist_center = -1;
    return 0;
}

/* options.c str_random_distribution_cb(): kind[:value[:center]], zoned:..., zoned_abs:... */
static int opt_random_distribution(struct workload_job *j, char *v, char *why, size_t n)
{
    if (!strncmp(v, "zoned:", 6))
        return opt_zoned(j, v + 6, false, why, n);
    if (!strncmp(v, "zoned_abs:", 10))
        return opt_zoned(j, v + 10, true, why, n);
    char *p[4];
    int k = split(v, ':', p, 3);
    if (k < 0)
        return whyf(why, n, -EINVAL, "expected kind[:value[:center]]");
    char *kind = trim(p[0]);
    double val = 0, center = -1;
    enum fio_rand_dist d;
    if (!strcmp(kind, "random")) {
        d = FIO_DIST_RANDOM;
    } else if (!strcmp(kind, "zipf")) {
        d = FIO_DIST_ZIPF;
        val = 1.1; /* FIO_DEF_ZIPF */
    } else if (!strcmp(kind, "pareto")) {
        d = FIO_DIST_PARETO;
        val = 0.2; /* FIO_DEF_PARETO */
    } else if (!strcmp(kind, "normal")) {
        d = FIO_DIST_NORMAL;
    } else if (!strcmp(kind, "zoned") || !strcmp(kind, "zoned_abs")) {
        return whyf(why, n, -EINVAL, "'%s' needs its zones (%s:access/size:...)", kind, kind);
    } else if (!strcmp(kind, "sequence")) {
        return whyf(why, n, -ENOTSUP, "'%s' is not a distribution of %s (Debian 12's fio, which cephsim "
                    "follows; a later fio added it): random, zipf, pareto, normal, zoned, zoned_abs",
                    kind, fio_vocabulary_release);
    } else {
        return whyf(why, n, -EINVAL,
                    "unknown distribution '%s' (random, zipf, pareto, normal, zoned, zoned_abs)", kind);
    }
    if (k >= 2 && d != FIO_DIST_RANDOM && parse_double(trim(p[1]), &val))
        return whyf(why, n, -EINVAL, "bad value '%s'", p[1]);
    if (k >= 3 && d != FIO_DIST_RANDOM) {
        if (parse_double(trim(p[2]), &center) || center < 0 || center > 1)
            return whyf(why, n, -EINVAL, "center '%s' out of range [0, 1]", p[2]);
    }
    if (d == FIO_DIST_ZIPF && (val <= 0 || val == 1.0))
        return whyf(why, n, -EINVAL, "zipf theta %g must be > 0 and different from 1", val);
    if (d == FIO_DIST_PARETO && (val <= 0 || val >= 1))
        return whyf(why, n, -EINVAL, "pareto h %g out of range (0, 1)", val);
    if (d == FIO_DIST_NORMAL && (val < 0 || val >= 100))
        return whyf(why, n, -EINVAL, "normal deviation %g out of range [0, 100)", val);
    j->random_distribution = d;
    j->dist_param = val;
    j->dist_center = center;
    memset(j->n_zones, 0, sizeof j->n_zones);
    return 0;
}

static int opt_random_generator(struct workload_job *j, char *v, char *why, size_t n)
{
    if (!strcmp(v, "tausworthe"))
        j->random_generator = FIO_RAND_GEN_TAUSWORTHE;
    else if (!strcmp(v, "lfsr"))
        j->random_generator = FIO_RAND_GEN_LFSR;
    else if (!strcmp(v, "tausworthe64"))
        j->random_generator = FIO_RAND_GEN_TAUSWORTHE64;
    else
        return whyf(why, n, -EINVAL, "unknown value '%s' (tausworthe, lfsr, tausworthe64)", v);
    return 0;
}

static int opt_thinktime_blocks_type(struct workload_job *j, char *v, char *why, size_t n)
{
    if (!strcmp(v, "complete"))
        j->thinktime_blocks_type = FIO_THINKTIME_COMPLETE;
    else if (!strcmp(v, "issue"))
        j->thinktime_blocks_type = FIO_THINKTIME_ISSUE;
    else
        return whyf(why, n, -EINVAL, "unknown value '%s' (complete or issue)", v);
    return 0;
}

/* str_write_*_log_cb(): the value (optional) is the log file prefix. */
static int opt_log(bool *flag, char *dst, size_t size, char *v, char *why, size_t n)
{
    int rc = copy_str(dst, size, v ? v : "", why, n);
    if (!rc)
        *flag = true;
    return rc;
}

static int opt_write_lat_log(struct workload_job *j, char *v, char *why, size_t n)
{
    return opt_log(&j->write_lat_log, j->lat_log, sizeof j->lat_log, v, why, n);
}

static int opt_write_iops_log(struct workload_job *j, char *v, char *why, size_t n)
{
    return opt_log(&j->write_iops_log, j->iops_log, sizeof j->iops_log, v, why, n);
}

static int opt_write_bw_log(struct workload_job *j, char *v, char *why, size_t n)
{
    return opt_log(&j->write_bw_log, j->bw_log, sizeof j->bw_log, v, why, n);
}

/* verify=0/none does nothing; any real verification changes the I/O stream. */
static int check_verify(struct workload_job *j, char *v, char *why, size_t n)
{
    if (v && (!strcmp(v, "0") || !strcmp(v, "none")))
        return 0;
    return whyf(why, n, -ENOSYS, "fio option verify is not modelled by cephsim (it would change: the written "
                "blocks read back and checked; only verify=0 or none is accepted)");
}

/* rbd engine busy_poll: 1 spins on rbd_poll_io_events instead of sleeping on the
   completion eventfd, a completion path (and fio CPU) cephsim does not model. */
static int check_busy_poll(struct workload_job *j, char *v, char *why, size_t n)
{
    bool on = false;
    int rc = parse_bool(v, &on, why, n);
    if (!rc && on)
        return whyf(why, n, -ENOSYS, "fio's rbd engine option busy_poll=1 is not modelled by cephsim (fio "
                    "would spin on rbd_poll_io_events instead of sleeping until a completion)");
    return rc;
}

/* Options whose fio default (0 = fio derives it) is the only value with no effect. */
static int check_default_zero(const char *name, const char *what, char *v, char *why, size_t n)
{
    uint64_t val;
    int rc = parse_uint(v ? v : "", 1024, 0, UINT64_MAX, &val, why, n);
    if (!rc && val)
        return whyf(why, n, -ENOSYS, "fio option %s is not modelled by cephsim (%s); only %s=0, fio's "
                    "default, is accepted", name, what, name);
    return rc;
}

static int check_iodepth_low(struct workload_job *j, char *v, char *why, size_t n)
{
    return check_default_zero("iodepth_low", "fio would let the queue drain to iodepth_low before refilling it", v,
                              why, n);
}

static int check_iodepth_batch_complete_max(struct workload_job *j, char *v, char *why, size_t n)
{
    return check_default_zero("iodepth_batch_complete_max", "fio would reap up to that many completions at once",
                              v, why, n);
}

static int check_iodepth_batch_complete_min(struct workload_job *j, char *v, char *why, size_t n)
{
    uint64_t val;
    int rc = parse_uint(v ? v : "", 1024, 0, UINT64_MAX, &val, why, n);
    if (!rc && val > 1)
        return whyf(why, n, -ENOSYS, "fio option iodepth_batch_complete_min is not modelled by cephsim (fio would "
                    "wait for that many completions before issuing again); only 0 or 1 is accepted");
    return rc;
}

static int check_iodepth_batch(struct workload_job *j, char *v, char *why, size_t n)
{
    uint64_t val;
    int rc = parse_uint(v ? v : "", 1024, 0, UINT64_MAX, &val, why, n);
    if (!rc && val > 1 && strcmp(j->ioengine, "rbd"))
        return whyf(why, n, -ENOSYS, "fio option iodepth_batch is not modelled by cephsim for ioengine=%s (its "
                    "commit would hold I/Os until %llu are queued); only the rbd engine, which has each I/O in "
                    "flight when queued, takes it", j->ioengine, (unsigned long long)val);
    return rc;
}

/* options.c: buffered is the negation of direct (fio's .neg). */
static int opt_buffered(struct workload_job *j, char *v, char *why, size_t n)
{
    bool on = false;
    int rc = parse_bool(v, &on, why, n);
    if (!rc)
        j->direct = !on;
    return rc;
}

/* filename: for the rbd engine a label (the engine opens rbdname); for
   libaio/io_uring/psync the device the kernel client (krbd) maps. */
static int opt_filename(struct workload_job *j, char *v, char *why, size_t n)
{
    return copy_str(j->filename, sizeof j->filename, v, why, n);
}

/* ---- option table --------------------------------------------------------- */

enum opt_type {
    OT_STR,         /* char[size] */
    OT_U32,         /* integer with size suffixes, [min, max] */
    OT_U64,
    OT_BOOL,        /* 0/1/true/false, bare = 1 */
    OT_TIME,        /* uint64 ns; unit_ns when no suffix */
    OT_FN,          /* custom handler; the value may be NULL only if bare_ok */
    OT_IGNORED,     /* accepted, no effect (fn, if any, validates the value) */
};

struct opt_def {
    const char *name, *alias;
    enum opt_type type;
    size_t off, size;
    uint64_t min, max, unit_ns;
    int (*fn)(struct workload_job *j, char *v, char *why, size_t n);
    bool bare_ok;
    bool no_effect; /* stored, but also listed as ignored (no effect on the simulation) */
    size_t set_off; /* non-zero: a bool set when the option is given (fio_option_is_set) */
    bool rbd_engine; /* an option of fio's rbd engine (engines/rbd.c): only with ioengine=rbd */
};

#define J(f) offsetof(struct workload_job, f)
#define STR(nm, f) { .name = nm, .type = OT_STR, .off = J(f), .size = sizeof(((struct workload_job *)0)->f) }
#define U32(nm, f, lo, hi) { .name = nm, .type = OT_U32, .off = J(f), .min = lo, .max = hi }
#define U64(nm, f) { .name = nm, .type = OT_U64, .off = J(f), .min = 0, .max = UINT64_MAX }
#define BOOL(nm, f) { .name = nm, .type = OT_BOOL, .off = J(f) }
#define TIME(nm, al, f, unit) { .name = nm, .alias = al, .type = OT_TIME, .off = J(f), .unit_ns = unit }
#define FN(nm, al, f) { .name = nm, .alias = al, .type = OT_FN, .fn = f }
#define IGN(nm, al) { .name = nm, .alias = al, .type = OT_IGNORED }

static const struct opt_def opt_table[] = {
    STR("name", name),
    { .name = "description", .type = OT_STR, .off = J(description),
      .size = sizeof(((struct workload_job *)0)->description), .no_effect = true },
    STR("ioengine", ioengine),
#define RBD_STR(nm, f) { .name = nm, .type = OT_STR, .off = J(f), .size = sizeof(((struct workload_job *)0)->f), \
                        .rbd_engine = true }
/* the cluster, its one pool and the client's identity are the scenario's: a job
   naming them changes nothing the model measures (listed as such) */
#define RBD_NAME(nm, f) { .name = nm, .type = OT_STR, .off = J(f), .size = sizeof(((struct workload_job *)0)->f), \
                          .rbd_engine = true, .no_effect = true }
    RBD_NAME("pool", pool),
    RBD_STR("rbdname", rbdname),
    RBD_NAME("clientname", clientname),
    RBD_NAME("clustername", clustername),
    FN("rw", "readwrite", opt_rw),
    FN("rw_sequencer", NULL, opt_rw_sequencer),
    FN("rwmixread", NULL, opt_rwmixread),
    FN("rwmixwrite", NULL, opt_rwmixwrite),
    FN("kb_base", NULL, opt_kb_base),
    FN("bs", "blocksize", opt_bs),
    FN("bsrange", "blocksize_range", opt_bsrange),
    FN("bssplit", NULL, opt_bssplit),
    U32("iodepth", iodepth, 1, FIOJOB_MAX_IODEPTH),
    U32("numjobs", numjobs, 1, FIOJOB_MAX_NUMJOBS),
    FN("size", NULL, opt_size),
    FN("offset", "fileoffset", opt_offset),
    FN("io_size", "io_limit", opt_io_size),
    U64("number_ios", number_ios),
    TIME("runtime", "timeout", runtime_ns, NS_PER_S),
    BOOL("time_based", time_based),
    TIME("ramp_time", NULL, ramp_time_ns, NS_PER_S),
    FN("startdelay", NULL, opt_startdelay),
    FN("rate_iops", NULL, opt_rate_iops),
    TIME("thinktime", NULL, thinktime_ns, NS_PER_US),
    { .name = "thinktime_blocks", .type = OT_U32, .off = J(thinktime_blocks), .min = 1, .max = UINT32_MAX,
      .set_off = J(thinktime_blocks_set) },
    FN("thinktime_blocks_type", NULL, opt_thinktime_blocks_type),
    TIME("thinktime_spin", NULL, thinktime_spin_ns, NS_PER_US),
    TIME("thinktime_iotime", NULL, thinktime_iotime_ns, NS_PER_S),
    BOOL("group_reporting", group_reporting),
    FN("percentile_list", NULL, opt_percentile_list),
    BOOL("clat_percentiles", clat_percentiles),
    BOOL("lat_percentiles", lat_percentiles),
    BOOL("slat_percentiles", slat_percentiles),
    FN("random_distribution", NULL, opt_random_distribution),
    { .name = "randrepeat", .alias = "allrandrepeat", .type = OT_BOOL, .off = J(randrepeat) },
    BOOL("norandommap", norandommap),
    { .name = "randseed", .type = OT_U64, .off = J(randseed), .min = 0, .max = UINT64_MAX,
      .set_off = J(randseed_set) },
    FN("random_generator", NULL, opt_random_generator),
    BOOL("new_group", new_group),
    { .name = "stonewall", .alias = "wait_for_previous", .type = OT_BOOL, .off = J(stonewall) },
    { .name = "write_lat_log", .type = OT_FN, .fn = opt_write_lat_log, .bare_ok = true },
    { .name = "write_iops_log", .type = OT_FN, .fn = opt_write_iops_log, .bare_ok = true },
    { .name = "write_bw_log", .type = OT_FN, .fn = opt_write_bw_log, .bare_ok = true },
    U32("log_avg_msec", log_avg_msec, 0, UINT32_MAX),
    BOOL("log_offset", log_offset),
    BOOL("per_job_logs", per_job_logs),
    STR("write_iolog", write_iolog),
    /* no effect on the rbd engine (listed as such); the kernel client needs direct=1
       (scenario.c check_engines: the page cache is not modelled) */
    { .name = "direct", .type = OT_BOOL, .off = J(direct), .no_effect = true },
    { .name = "buffered", .type = OT_FN, .fn = opt_buffered, .bare_ok = true },
    { .name = "filename", .type = OT_FN, .fn = opt_filename },
    /* no effect on the simulated I/O stream: host-side (threads vs processes,
       CPU/NUMA binding, priorities, clocks, locked memory), output-only,
       file-system knobs the rbd engine and a block device do not use, buffer
       contents (BlueStore compresses nothing by default), error handling (the
       model produces no errors) */
    IGN("thread", NULL), IGN("invalidate", NULL), IGN("exitall_on_error", NULL),
    IGN("gtod_reduce", NULL), IGN("gtod_cpu", NULL), IGN("disable_lat", NULL),
    IGN("disable_clat", NULL), IGN("disable_slat", NULL), IGN("disable_bw_measurement", "disable_bw"),
    IGN("clocksource", NULL), IGN("cpus_allowed", NULL), IGN("cpus_allowed_policy", NULL),
    IGN("cpumask", NULL), IGN("numa_cpu_nodes", NULL), IGN("numa_mem_policy", NULL),
    IGN("nice", NULL), IGN("prio", NULL), IGN("prioclass", NULL), IGN("uid", NULL), IGN("gid", NULL),
    IGN("ioscheduler", NULL), IGN("directory", NULL), IGN("filename_format", NULL),
    IGN("unique_filename", NULL), IGN("nrfiles", "nr_files"), IGN("openfiles", NULL),
    IGN("file_service_type", NULL), IGN("filesize", NULL), IGN("unlink", NULL),
    IGN("unlink_each_loop", NULL), IGN("fallocate", NULL), IGN("lockmem", NULL),
    IGN("mem", "iomem"), IGN("iomem_align", "mem_align"), IGN("hugepage-size", NULL),
    /* rbd: fio_rbd_queue has the I/O in flight already (no .commit); a block
       engine's io_submit waits for the batch (ioengines.c td_io_queue) */
    { .name = "iodepth_batch", .alias = "iodepth_batch_submit", .type = OT_IGNORED, .fn = check_iodepth_batch },
    { .name = "iodepth_batch_complete_min", .alias = "iodepth_batch_complete", .type = OT_IGNORED,
      .fn = check_iodepth_batch_complete_min },
    { .name = "iodepth_batch_complete_max", .type = OT_IGNORED, .fn = check_iodepth_batch_complete_max },
    { .name = "iodepth_low", .type = OT_IGNORED, .fn = check_iodepth_low },
    IGN("refill_buffers", NULL), IGN("scramble_buffers", NULL), IGN("buffer_pattern", NULL),
    IGN("buffer_compress_percentage", NULL), IGN("buffer_compress_chunk", NULL),
    IGN("dedupe_percentage", NULL), IGN("zero_buffers", NULL), IGN("continue_on_error", NULL),
    IGN("ignore_error", NULL), IGN("error_dump", NULL), IGN("exit_what", NULL),
    IGN("unified_rw_reporting", NULL),
    IGN("log_prio", NULL), IGN("log_compression", NULL), IGN("unit_base", NULL),
    IGN("significant_figures", NULL), IGN("allow_file_create", NULL), IGN("create_on_open", NULL),
    IGN("allow_mounted_write", NULL),
    { .name = "verify", .type = OT_IGNORED, .fn = check_verify },
    /* fio's rbd engine (engines/rbd.c) */
    { .name = "busy_poll", .type = OT_IGNORED, .fn = check_busy_poll, .rbd_engine = true },
};

#define N_OPTS ((int)(sizeof opt_table / sizeof opt_table[0]))

static const struct opt_def *find_opt_any(const char *key)
{
    for (int i = 0; i < N_OPTS; i++)
        if (!strcmp(key, opt_table[i].name) || (opt_table[i].alias && !strcmp(key, opt_table[i].alias)))
            return &opt_table[i];
    return NULL;
}

/*
 * What fio options cephsim does not model would change, for the ones users
 * meet most (fio's own help text speaks for the others).
 */
static const struct { const char *name, *change; } not_modelled[] = {
    /* `cephsim run` simulates the stream rw=/bs= describe; a log is replayed by its
       own command (replay_cmd.c: in order, at the job's iodepth with --mode closed) */
    { "read_iolog", "the I/Os issued, taken from the log instead of rw= and bs=: replay a log with `cephsim "
      "replay LOG --scenario SCENARIO --mode closed --iodepth N`" },
    { "rate", "a bandwidth cap; cephsim paces by rate_iops only" },
    { "rate_min", "a minimum bandwidth below which fio fails the job" },
    { "rate_iops_min", "a minimum IOPS below which fio fails the job" },
    { "rate_process", "Poisson-distributed issue times instead of linear pacing" },
    { "rate_cycle", "the window over which rate_min is checked" },
    { "rate_ignore_thinktime", "rate pacing that ignores thinktime" },
    { "loops", "the job repeated that many times" },
    { "fsync", "an fsync (rbd_aio_flush) every N writes" },
    { "fdatasync", "an fdatasync (rbd_aio_flush) every N writes" },
    { "end_fsync", "an fsync once the writes are done" },
    { "fsync_on_close", "an fsync when the file is closed" },
    { "sync", "O_SYNC writes: a cache flush or FUA with every write" },
    { "write_barrier", "a barrier write every N writes" },
    { "percentage_random", "a mix of random and sequential offsets" },
    { "zonemode", "zoned-device offsets (zones of zonesize, zone resets)" },
    { "offset_increment", "per-clone offsets (offset + thread number * increment)" },
    { "bs_unaligned", "block sizes not aligned to the sector size" },
    { "ba", "random offsets aligned to a boundary other than the block size" },
    { "bs_is_seq_rand", "block sizes given per sequential/random instead of per read/write" },
    { "io_submit_mode", "submission offloaded to a pool of threads (io_submit_mode=offload)" },
    { "latency_target", "fio searching the queue depth that meets a latency target" },
    { "latency_window", "fio searching the queue depth that meets a latency target" },
    { "latency_percentile", "fio searching the queue depth that meets a latency target" },
    { "max_latency", "the job failing when a latency exceeds the bound" },
    { "steadystate", "the job ending once a steady state is detected" },
    { "ss_dur", "the job ending once a steady state is detected" },
    { "ss_ramp", "the job ending once a steady state is detected" },
    { "flow", "jobs throttling each other (fio's flow control)" },
    { "flow_id", "jobs throttling each other (fio's flow control)" },
    { "flow_sleep", "jobs throttling each other (fio's flow control)" },
    { "flow_watermark", "jobs throttling each other (fio's flow control)" },
    { "wait_for", "this job starting when the named one has finished" },
    { "exitall", "every job stopped when the first one finishes" },
    { "serialize_overlap", "overlapping I/Os kept from being in flight together" },
    { "fill_device", "writing until the device is full" },
    { "fill_fs", "writing until the device is full" },
    { "pre_read", "the file read in before the job starts" },
    { "do_verify", "a verification read phase" },
    { "verify_only", "a verification read phase without the writes" },
    { "experimental_verify", "a verification read phase" },
    { "trim_percentage", "trims of written blocks" },
    { "trim_backlog", "trims of written blocks" },
    { "random_distribution", "a different offset distribution" },
    { "replay_redirect", "an iolog replayed on another device" },
    { "replay_no_stall", "an iolog replayed as fast as possible" },
    { "thinktime_spin", "busy thinktime" },
    { "write_hist_log", "a histogram log file cephsim does not write" },
    { "log_hist_msec", "a histogram log file cephsim does not write" },
    { "stats", "statistics off: nothing reported for the job" },
    { "exec_prerun", "a command run before the job" },
    { "exec_postrun", "a command run after the job" },
    { "create_serialize", "files created one after the other before the job" },
    { "create_fsync", "an fsync of the files laid out before the job" },
    { "create_only", "files laid out, no I/O" },
    { "atomic", "atomic (O_ATOMIC) direct writes" },
    { "cpuload", "a CPU-burning job (fio's cpuio engine)" },
};

static const struct fio_optinfo *fio_info(const char *key)
{
    for (int i = 0; i < fio_optinfo_count; i++) {
        const struct fio_optinfo *o = &fio_optinfo_table[i];
        if (!strcmp(key, o->name) || (o->alias && !strcmp(key, o->alias)))
            return o;
    }
    return NULL;
}

/* engine_in() is defined below */
static bool engine_in(const char *eng, const char *list);

/* The row of key for the job's engine (a shared name has one row per engine meaning). */
static const struct fio_optinfo *fio_info_for(const char *key, const char *engine)
{
    const struct fio_optinfo *first = NULL;
    for (int i = 0; i < fio_optinfo_count; i++) {
        const struct fio_optinfo *o = &fio_optinfo_table[i];
        if (strcmp(key, o->name) && !(o->alias && !strcmp(key, o->alias)))
            continue;
        if (!o->engines || engine_in(engine, o->engines))
            return o;
        first = first ? first : o;
    }
    return first;
}

static bool listed(const char *name, const char *const *names, int n)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(name, names[i]))
            return true;
    return false;
}

/* Is eng one of the comma-separated engines in list? */
static bool engine_in(const char *eng, const char *list)
{
    size_t n = strlen(eng);
    for (const char *p = list; p && *p;) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        if (len == n && !strncmp(p, eng, n))
            return true;
        p = comma ? comma + 1 : NULL;
    }
    return false;
}

/* An option of an engine only (fio resolves those once the engine is loaded). */
static bool is_engine_option(const char *key)
{
    const struct opt_def *d = find_opt_any(key);
    if (d)
        return d->rbd_engine;
    const struct fio_optinfo *o = fio_info(key);
    return o && o->engines;
}

static const char *did_you_mean(const char *key)
{
    /* fio's own names: a did-you-mean must name an option fio has */
    const char **names = sim_xcalloc(2 * (size_t)fio_optinfo_count, sizeof *names);
    int nn = 0;
    for (int i = 0; i < fio_optinfo_count; i++) {
        names[nn++] = fio_optinfo_table[i].name;
        if (fio_optinfo_table[i].alias)
            names[nn++] = fio_optinfo_table[i].alias;
    }
    const char *dym = names_did_you_mean(key, names, nn);
    free(names);
    return dym;
}

/*
 * The message for an option cephsim's table does not have: fio does not have
 * it either (-ENOENT), or it is fio's and not modelled (-ENOSYS); why holds
 * the whole message.  engine: the job's ioengine.
 */
static int explain_unmodelled(const char *key, const char *engine, char *why, size_t n)
{
    const struct fio_optinfo *o = fio_info_for(key, engine);
    if (!o) {
        if (listed(key, fio_newer_options, fio_newer_options_count))
            return whyf(why, n, -ENOENT, "unknown option '%s': %s has it, %s (Debian 12's fio, which cephsim "
                        "follows) does not", key, fio_vocabulary_newer, fio_vocabulary_release);
        const char *dym = did_you_mean(key);
        return whyf(why, n, -ENOENT, "unknown option '%s': fio has no such option%s%s%s", key,
                    dym ? " (did you mean '" : "", dym ? dym : "", dym ? "'?)" : "");
    }
    if (o->engines && !engine_in(engine, o->engines)) {
        /* every engine that has the name, over its rows */
        char owners[512] = "";
        size_t len = 0;
        for (int i = 0; i < fio_optinfo_count; i++)
            if (!strcmp(fio_optinfo_table[i].name, o->name) && fio_optinfo_table[i].engines)
                len += (size_t)snprintf(owners + len, len < sizeof owners ? sizeof owners - len : 0, "%s%s",
                                        len ? "," : "", fio_optinfo_table[i].engines);
        return whyf(why, n, -ENOSYS, "option '%s' belongs to fio's %s engine%s, not to ioengine=%s (fio "
                    "itself would refuse it: \"Bad option\")", key, owners, strchr(owners, ',') ? "s" : "",
                    engine);
    }
    const char *change = NULL;
    for (size_t i = 0; i < sizeof not_modelled / sizeof not_modelled[0] && !change; i++)
        if (!strcmp(o->name, not_modelled[i].name))
            change = not_modelled[i].change;
    if (o->engines && strcmp(engine, "rbd") && !fiojob_block_engine(engine))
        return whyf(why, n, -ENOSYS, "ioengine=%s is not modelled by cephsim (fio's rbd engine and block engines on "
                    "a mapped /dev/rbdN are), nor its option %s", engine, o->name);
    if (o->engines)
        return whyf(why, n, -ENOSYS, "fio's %s engine option %s is not modelled by cephsim (it would change: %s)",
                    engine, o->name, change ? change : o->help ? o->help : o->lname);
    return whyf(why, n, -ENOSYS, "fio option %s is not modelled by cephsim (it would change: %s)", o->name,
                change ? change : o->help ? o->help : o->lname);
}

static void add_ignored(struct fio_jobfile *jf, const char *name)
{
    for (int i = 0; i < jf->n_ignored; i++)
        if (!strcmp(jf->ignored[i], name))
            return;
    jf->ignored = sim_xrealloc(jf->ignored, (size_t)jf->n_ignored + 1, sizeof *jf->ignored);
    jf->ignored[jf->n_ignored++] = sim_xstrdup(name);
}

/* The dump list fio keeps per job: canonical name -> value as given ("" if bare). */
static void dump_option(cJSON *dump, const char *name, const char *val)
{
    if (!dump)
        return;
    cJSON *s = cJSON_CreateString(val ? val : "");
    if (cJSON_GetObjectItemCaseSensitive(dump, name))
        cJSON_ReplaceItemInObjectCaseSensitive(dump, name, s);
    else
        cJSON_AddItemToObject(dump, name, s);
}

/*
 * Apply key[=val] to j.  Returns 0; -ENOENT (fio has no such option) or
 * -ENOSYS (fio's, not modelled) with the whole message in why; or
 * -EINVAL/-ENOTSUP with the reason about the value in why.
 */
static int apply_option(struct fio_jobfile *jf, struct workload_job *j, cJSON *dump, const char *key,
                        const char *val_in, char *why, size_t n)
{
    const struct opt_def *o = find_opt_any(key);
    if (!o || (o->rbd_engine && strcmp(j->ioengine, "rbd")))
        return explain_unmodelled(key, j->ioengine, why, n); /* fio: the engine's options only */
    char vbuf[FIOJOB_MAX_LINE], given[FIOJOB_MAX_LINE];
    char *v = NULL;
    if (val_in && strlen(val_in) >= sizeof vbuf)
        return whyf(why, n, -EINVAL, "value longer than %d characters", FIOJOB_MAX_LINE - 1);
    if (val_in) {
        snprintf(vbuf, sizeof vbuf, "%s", val_in);
        v = trim(vbuf);
        snprintf(given, sizeof given, "%s", v); /* handlers may cut v up */
    }
    void *field = (char *)j + o->off;
    uint64_t u;
    int rc = 0;
    if (!v && (o->type == OT_STR || o->type == OT_U32 || o->type == OT_U64 || o->type == OT_TIME ||
               (o->type == OT_FN && !o->bare_ok)))
        return whyf(why, n, -EINVAL, "requires a value (%s=...)", o->name);
    switch (o->type) {
    case OT_STR:
        rc = copy_str(field, o->size, v, why, n);
        break;
    case OT_U32:
    case OT_U64:
        rc = parse_uint(v, j->kb_base, o->min, o->max, &u, why, n);
        if (!rc && o->type == OT_U32)
            *(uint32_t *)field = (uint32_t)u;
        else if (!rc)
            *(uint64_t *)field = u;
        break;
    case OT_BOOL:
        rc = parse_bool(v, field, why, n);
        break;
    case OT_TIME:
        rc = parse_time(v, o->unit_ns, field, why, n);
        break;
    case OT_FN:
        rc = o->fn(j, v, why, n);
        break;
    case OT_IGNORED:
        rc = o->fn ? o->fn(j, v, why, n) : 0;
        break;
    }
    if (!rc && o->set_off)
        *(bool *)((char *)j + o->set_off) = true;
    if (!rc && jf && (o->type == OT_IGNORED || o->no_effect))
        add_ignored(jf, o->name);
    if (!rc)
        dump_option(dump, o->name, v ? given : NULL);
    return rc;
}

/* ---- the client a job runs on --------------------------------------------- */

/* fio's engines that do block I/O on a file or device through the kernel. */
static const char *const kernel_block_engines[] = { "libaio", "io_uring", "psync", "sync", "pvsync", "pvsync2",
                                                    "vsync", "posixaio" };

bool fiojob_block_engine(const char *engine)
{
    return listed(engine, kernel_block_engines, (int)(sizeof kernel_block_engines / sizeof kernel_block_engines[0]));
}

/* A kernel-mapped RBD device: /dev/rbdN (rbd map) or udev's /dev/rbd/POOL/IMAGE. */
bool fiojob_is_rbd_device(const char *filename)
{
    if (!strncmp(filename, "/dev/rbd/", 9))
        return filename[9] && strchr(filename + 9, '/') && !strchr(filename, ':');
    if (strncmp(filename, "/dev/rbd", 8) || !isdigit((unsigned char)filename[8]))
        return false;
    const char *p = filename + 8;
    while (isdigit((unsigned char)*p))
        p++;
    return *p == '\0';
}

/* A block engine on /dev/rbdN runs on the kernel client (models/ceph/krbd.c). */
static void resolve_client(struct workload_job *j)
{
    j->kernel_client = fiojob_block_engine(j->ioengine) && fiojob_is_rbd_device(j->filename);
}

/* ---- defaults, groups ----------------------------------------------------- */

static void job_defaults(struct workload_job *j)
{
    memset(j, 0, sizeof *j);
    snprintf(j->ioengine, sizeof j->ioengine, "psync");
    j->rw = FIO_RW_READ;
    j->rw_seq_nr = 1;
    j->rw_sequencer = FIO_RWSEQ_SEQUENTIAL;
    j->rwmixread = 50;
    j->kb_base = 1024;
    j->bs[0] = j->bs[1] = 4096;
    j->iodepth = 1;
    j->numjobs = 1;
    j->thinktime_blocks = 1;
    j->per_job_logs = true;
    j->n_percentiles = (int)(sizeof default_percentiles / sizeof default_percentiles[0]);
    memcpy(j->percentile_list, default_percentiles, sizeof default_percentiles);
    j->clat_percentiles = true;
    j->random_distribution = FIO_DIST_RANDOM;
    j->dist_center = -1;
    j->randrepeat = true;
    j->randseed = 0x89;
    j->groupid = 0;
}

/* init.c add_job(): a stonewall or new_group job opens a group if the current one has jobs. */
static void assign_groups(struct fio_jobfile *jf)
{
    int gid = 0, prev_group_jobs = 0;
    for (int i = 0; i < jf->n_jobs; i++) {
        struct workload_job *j = &jf->jobs[i];
        if ((j->stonewall || j->new_group) && prev_group_jobs) {
            prev_group_jobs = 0;
            gid++;
        }
        j->groupid = gid;
        prev_group_jobs++;
    }
}

/* ---- the ini reader ------------------------------------------------------- */

struct raw_opt {
    char *text;       /* "key[=value]" after ${VAR} substitution */
    const char *file; /* display name, owned by the parse context */
    int line;
    char unset_var[64]; /* the first ${NAME} of the line that was unset ("" = none) */
};

struct parse_ctx {
    const struct fiojob_vars *vars;
    struct fio_jobfile *jf;
    struct sim_err *err;
    struct workload_job def;           /* [global] state each job below copies */
    bool in_section, is_global;
    char sect_name[sizeof(((struct workload_job *)0)->name)];
    struct fiojob_where sect_engine;   /* the section's ioengine origin so far */
    struct fiojob_where def_engine;    /* [global]'s, which each job starts from */
    struct raw_opt *opts;
    int n_opts;
    char **files;                 /* display names for messages */
    int n_files;
    char *stack[FIOJOB_MAX_INCLUDE_DEPTH + 1]; /* real paths being read (cycle check) */
    int depth;
};

static const char *keep_name(struct parse_ctx *c, const char *name)
{
    c->files = sim_xrealloc(c->files, (size_t)c->n_files + 1, sizeof *c->files);
    return c->files[c->n_files++] = sim_xstrdup(name);
}

static const char *lookup_var(const struct fiojob_vars *vars, const char *name)
{
    return vars && vars->lookup ? vars->lookup(vars->ctx, name) : getenv(name);
}

/* fio_option_dup_subs(): every ${NAME} becomes its value, "" when unset (the
   first unset name is kept in unset, size 64, for messages). */
static char *expand_vars(const struct fiojob_vars *vars, const char *in, char *unset)
{
    size_t cap = strlen(in) + 64, len = 0;
    char *out = sim_xcalloc(cap, 1);
    for (const char *p = in; *p;) {
        const char *val = NULL;
        size_t vlen = 0;
        const char *end = p[0] == '$' && p[1] == '{' ? strchr(p + 2, '}') : NULL;
        if (end) {
            char name[256];
            snprintf(name, sizeof name, "%.*s", (int)(end - p - 2), p + 2);
            val = name[0] ? lookup_var(vars, name) : NULL;
            if (!val && !unset[0])
                snprintf(unset, 64, "%.63s", name);
            val = val ? val : "";
            vlen = strlen(val);
            p = end + 1;
        } else {
            val = p++;
            vlen = 1;
        }
        if (len + vlen + 1 > cap) {
            cap = 2 * (len + vlen + 1);
            out = sim_xrealloc(out, cap, 1);
        }
        memcpy(out + len, val, vlen);
        len += vlen;
        out[len] = '\0';
    }
    return out;
}

/* Splits "key[=value]" in place; *val NULL for a bare key. */
static char *split_kv(char *text, char **val)
{
    char *eq = strchr(text, '=');
    *val = NULL;
    if (eq) {
        *eq = '\0';
        *val = trim(eq + 1);
    }
    return trim(text);
}

/* Applies the collected options of the current section (kb_base first, as fio's prio). */
static int finish_section(struct parse_ctx *c)
{
    if (!c->in_section)
        return 0;
    struct workload_job job = c->def;
    struct workload_job *t = c->is_global ? &c->def : &job;
    cJSON *dump = c->is_global ? c->jf->global_options : cJSON_CreateObject();
    if (!c->is_global)
        snprintf(job.name, sizeof job.name, "%s", c->sect_name);
    int rc = 0;
    /* fio_options_parse(): kb_base first (prio), then the general options, then
       the engine's own ones (once ioengine is known, as fio's ioengine_load) */
    for (int pass = 0; pass < 3 && !rc; pass++) {
        for (int i = 0; i < c->n_opts && !rc; i++) {
            char why[600], *val;
            char *tmp = sim_xstrdup(c->opts[i].text);
            char *key = split_kv(tmp, &val);
            /* iodepth_batch's meaning depends on the engine too */
            bool late = is_engine_option(key) || !strcmp(key, "iodepth_batch") || !strcmp(key, "iodepth_batch_submit");
            int p = !strcmp(key, "kb_base") ? 0 : late ? 2 : 1;
            if (p == pass) {
                rc = apply_option(c->jf, t, dump, key, val, why, sizeof why);
                if (!rc && !strcmp(key, "ioengine")) {
                    struct fiojob_where *w = c->is_global ? &c->def_engine : &c->sect_engine;
                    snprintf(w->at, sizeof w->at, "%s:%d", c->opts[i].file, c->opts[i].line);
                    w->defaulted = false;
                }
                const char *unset = c->opts[i].unset_var;
                char note[160] = "";
                if (rc && unset[0])
                    snprintf(note, sizeof note, " (${%s} is not set: fio substitutes an empty value)", unset);
                if (rc == -ENOENT || rc == -ENOSYS)
                    sim_errf(c->err, -EINVAL, "%s:%d: %s%s", c->opts[i].file, c->opts[i].line, why, note);
                else if (rc)
                    sim_errf(c->err, rc, "%s:%d: %s: %s%s", c->opts[i].file, c->opts[i].line, key, why, note);
                if (rc == -ENOENT || rc == -ENOSYS)
                    rc = -EINVAL;
            }
            free(tmp);
        }
    }
    for (int i = 0; i < c->n_opts; i++)
        free(c->opts[i].text);
    c->n_opts = 0;
    c->in_section = false;
    if (rc) {
        if (!c->is_global)
            cJSON_Delete(dump);
        return rc;
    }
    if (!c->is_global) {
        struct fio_jobfile *jf = c->jf;
        resolve_client(&job);
        jf->jobs = sim_xrealloc(jf->jobs, (size_t)jf->n_jobs + 1, sizeof *jf->jobs);
        jf->job_options = sim_xrealloc(jf->job_options, (size_t)jf->n_jobs + 1, sizeof *jf->job_options);
        jf->job_options[jf->n_jobs] = dump;
        jf->engine_where = sim_xrealloc(jf->engine_where, (size_t)jf->n_jobs + 1, sizeof *jf->engine_where);
        jf->engine_where[jf->n_jobs] = c->sect_engine;
        jf->jobs[jf->n_jobs++] = job;
    }
    return 0;
}

static char *dir_of(const char *path)
{
    char *d = sim_xstrdup(path);
    char *slash = strrchr(d, '/');
    if (!slash)
        snprintf(d, strlen(d) + 1, ".");
    else if (slash == d)
        d[1] = '\0';
    else
        *slash = '\0';
    return d;
}

static int read_text(struct parse_ctx *c, char *text, const char *file, const char *dir,
                     bool nested);

static int do_include(struct parse_ctx *c, const char *arg, const char *file, int line,
                      const char *dir)
{
    if (!arg[0])
        return sim_errf(c->err, -EINVAL, "%s:%d: include without a file name", file, line);
    if (c->depth >= FIOJOB_MAX_INCLUDE_DEPTH)
        return sim_errf(c->err, -ELOOP, "%s:%d: includes nested deeper than %d", file, line,
                        FIOJOB_MAX_INCLUDE_DEPTH);
    size_t plen = strlen(dir) + strlen(arg) + 2;
    char *path = sim_xcalloc(plen, 1);
    if (arg[0] == '/' || !strcmp(dir, "."))
        snprintf(path, plen, "%s", arg);
    else
        snprintf(path, plen, "%s/%s", dir, arg);
    const char *shown = keep_name(c, path);
    char *real = realpath(path, NULL);
    int saved = errno;
    free(path);
    if (!real)
        return sim_errf(c->err, -saved, "%s:%d: include '%s': cannot open '%s': %s", file, line,
                        arg, shown, strerror(saved));
    for (int i = 0; i < c->depth; i++)
        if (c->stack[i] && !strcmp(c->stack[i], real)) {
            free(real);
            return sim_errf(c->err, -ELOOP, "%s:%d: include cycle: '%s' is already being read",
                            file, line, shown);
        }
    char *buf = NULL;
    size_t len;
    struct sim_err e2;
    int rc = jsonu_slurp(real, &buf, &len, &e2);
    if (rc) {
        free(real);
        return sim_errf(c->err, rc, "%s:%d: include '%s': cannot read '%s': %s", file, line, arg,
                        shown, strerror(-rc));
    }
    c->stack[c->depth++] = real;
    char *subdir = dir_of(shown);
    rc = read_text(c, buf, shown, subdir, true);
    free(subdir);
    free(buf);
    free(c->stack[--c->depth]);
    return rc;
}

static int start_section(struct parse_ctx *c, char *line, const char *file, int lineno,
                         bool nested)
{
    if (nested)
        return sim_errf(c->err, -EINVAL, "%s:%d: no [] sections allowed in an included file",
                        file, lineno);
    size_t len = strlen(line);
    char *close = strchr(line, ']');
    if (!close)
        return sim_errf(c->err, -EINVAL, "%s:%d: unterminated section header '%s'", file, lineno,
                        line);
    if (line[len - 1] != ']')
        return sim_errf(c->err, -EINVAL, "%s:%d: unexpected text after ']' in '%s'", file, lineno,
                        line);
    line[len - 1] = '\0';
    const char *name = line + 1;
    if (!name[0])
        return sim_errf(c->err, -EINVAL, "%s:%d: empty section name", file, lineno);
    if (strlen(name) >= sizeof c->sect_name)
        return sim_errf(c->err, -EINVAL, "%s:%d: section name '%s' too long (max %zu)", file,
                        lineno, name, sizeof c->sect_name - 1);
    int rc = finish_section(c);
    if (rc)
        return rc;
    c->in_section = true;
    c->is_global = !strncmp(name, "global", 6); /* fio: strncmp(name, "global", 6) */
    snprintf(c->sect_name, sizeof c->sect_name, "%s", name);
    /* a job's engine is [global]'s unless it sets its own; with neither, fio's default */
    c->sect_engine = c->def_engine;
    if (!c->sect_engine.at[0]) {
        snprintf(c->sect_engine.at, sizeof c->sect_engine.at, "%s:%d", file, lineno);
        c->sect_engine.defaulted = true;
    }
    return 0;
}

static int read_text(struct parse_ctx *c, char *text, const char *file, const char *dir,
                     bool nested)
{
    int lineno = 0;
    for (char *p = text; p;) {
        char *nl = strchr(p, '\n');
        if (nl)
            *nl = '\0';
        char *line = p;
        p = nl ? nl + 1 : NULL;
        lineno++;
        line[strcspn(line, ";#")] = '\0'; /* fio strip_blank_end(): comments end the line */
        line = trim(line);
        if (!line[0])
            continue;
        if (strlen(line) >= FIOJOB_MAX_LINE)
            return sim_errf(c->err, -EINVAL, "%s:%d: line longer than %d characters", file,
                            lineno, FIOJOB_MAX_LINE - 1);
        int rc;
        if (line[0] == '[') {
            rc = start_section(c, line, file, lineno, nested);
        } else if (!strncmp(line, "include", 7) && (!line[7] || isspace((unsigned char)line[7]))) {
            if (!c->in_section)
                return sim_errf(c->err, -EINVAL, "%s:%d: include outside of a [] job section",
                                file, lineno);
            rc = do_include(c, trim(line + 7), file, lineno, dir);
        } else {
            if (!c->in_section) {
                char *val;
                return sim_errf(c->err, -EINVAL, "%s:%d: option '%s' outside of a [] job section",
                                file, lineno, split_kv(line, &val));
            }
            c->opts = sim_xrealloc(c->opts, (size_t)c->n_opts + 1, sizeof *c->opts);
            struct raw_opt *ro = &c->opts[c->n_opts++];
            *ro = (struct raw_opt){ .file = file, .line = lineno };
            ro->text = expand_vars(c->vars, line, ro->unset_var);
            rc = 0;
        }
        if (rc)
            return rc;
    }
    return 0;
}

static int parse_top(char *text, const char *name, const char *dir, const char *real,
                     const struct fiojob_vars *vars, struct fio_jobfile *out, struct sim_err *err)
{
    struct parse_ctx c = { .vars = vars, .jf = out, .err = err };
    memset(out, 0, sizeof *out);
    out->global_options = cJSON_CreateObject();
    job_defaults(&c.def);
    if (real)
        c.stack[c.depth++] = sim_xstrdup(real);
    const char *shown = keep_name(&c, name);
    int rc = read_text(&c, text, shown, dir, false);
    if (!rc)
        rc = finish_section(&c);
    if (!rc && out->n_jobs == 0)
        rc = sim_errf(err, -EINVAL, "%s: no job sections (only [global] or nothing)", shown);
    for (int i = 0; i < c.n_opts; i++)
        free(c.opts[i].text);
    free(c.opts);
    for (int i = 0; i < c.depth; i++)
        free(c.stack[i]);
    for (int i = 0; i < c.n_files; i++)
        free(c.files[i]);
    free(c.files);
    if (rc) {
        fiojob_free(out);
        return rc;
    }
    assign_groups(out);
    return 0;
}

/* ---- public API ----------------------------------------------------------- */

int fiojob_parse_file(const char *path, const struct fiojob_vars *vars, struct fio_jobfile *out,
                      struct sim_err *err)
{
    char *buf = NULL;
    size_t len;
    memset(out, 0, sizeof *out);
    int rc = jsonu_slurp(path, &buf, &len, err);
    if (rc)
        return sim_errf(err, rc, "%s: cannot read job file: %s", path, strerror(-rc));
    char *real = realpath(path, NULL);
    char *dir = dir_of(path);
    rc = parse_top(buf, path, dir, real, vars, out, err);
    free(dir);
    free(real);
    free(buf);
    return rc;
}

int fiojob_parse_string(const char *text, const char *pseudo_name, const char *base_dir,
                        const struct fiojob_vars *vars, struct fio_jobfile *out,
                        struct sim_err *err)
{
    char *buf = sim_xstrdup(text);
    int rc = parse_top(buf, pseudo_name ? pseudo_name : "(string)", base_dir ? base_dir : ".",
                       NULL, vars, out, err);
    free(buf);
    return rc;
}

int fiojob_set(struct fio_jobfile *jf, const char *key, const char *value, struct sim_err *err)
{
    char why[600];
    /* Validate on copies first so that a bad value leaves jf untouched. */
    struct workload_job scratch;
    int n = jf->n_jobs > 0 ? jf->n_jobs : 1;
    for (int i = 0; i < n; i++) {
        if (jf->n_jobs > 0)
            scratch = jf->jobs[i];
        else
            job_defaults(&scratch);
        int rc = apply_option(NULL, &scratch, NULL, key, value, why, sizeof why);
        if (rc == -ENOENT || rc == -ENOSYS)
            return sim_errf(err, -EINVAL, "--set fio.%s: %s", key, why);
        if (rc)
            return sim_errf(err, rc, "--set fio.%s: %s", key, why);
    }
    for (int i = 0; i < jf->n_jobs; i++) {
        int rc = apply_option(jf, &jf->jobs[i], jf->job_options[i], key, value, why,
                              sizeof why);
        SIM_ASSERT(rc == 0);
        resolve_client(&jf->jobs[i]);
        if (jf->engine_where && !strcmp(key, "ioengine"))
            jf->engine_where[i] = (struct fiojob_where){.at = "--set fio.ioengine"};
    }
    assign_groups(jf);
    return 0;
}

const char *fiojob_rw_name(enum fio_rw rw)
{
    switch (rw) {
    case FIO_RW_READ: return "read";
    case FIO_RW_WRITE: return "write";
    case FIO_RW_RANDREAD: return "randread";
    case FIO_RW_RANDWRITE: return "randwrite";
    case FIO_RW_RW: return "rw";
    case FIO_RW_RANDRW: return "randrw";
    }
    return "?";
}

const char *fiojob_dist_name(enum fio_rand_dist d)
{
    switch (d) {
    case FIO_DIST_RANDOM: return "random";
    case FIO_DIST_ZIPF: return "zipf";
    case FIO_DIST_PARETO: return "pareto";
    case FIO_DIST_NORMAL: return "normal";
    case FIO_DIST_ZONED: return "zoned";
    case FIO_DIST_ZONED_ABS: return "zoned_abs";
    }
    return "?";
}

/* ---- normalized text ------------------------------------------------------ */

/* Bytes with the largest exact binary suffix, spelled for the job's kb_base. */
static const char *fmt_size(char *buf, size_t n, uint64_t v, uint32_t kb_base)
{
    int pw = 0;
    while (pw < 5 && v && v % (1ULL << (10 * (pw + 1))) == 0)
        pw++;
    if (!pw)
        snprintf(buf, n, "%llu", (unsigned long long)v);
    else
        snprintf(buf, n, "%llu%c%s", (unsigned long long)(v >> (10 * pw)), "kmgtp"[pw - 1],
                 kb_base == 1000 ? "i" : "");
    return buf;
}

static const char *fmt_time(char *buf, size_t n, uint64_t ns)
{
    if (ns % NS_PER_S == 0)
        snprintf(buf, n, "%llus", (unsigned long long)(ns / NS_PER_S));
    else if (ns % 1000000 == 0)
        snprintf(buf, n, "%llums", (unsigned long long)(ns / 1000000));
    else
        snprintf(buf, n, "%lluus", (unsigned long long)(ns / NS_PER_US));
    return buf;
}

static void put_pct_or_size(struct strbuf *b, const char *key, uint64_t v, double pct,
                            uint32_t kb_base)
{
    char t[64];
    if (pct > 0)
        strbuf_printf(b, "%s=%.15g%%\n", key, pct);
    else if (v)
        strbuf_printf(b, "%s=%s\n", key, fmt_size(t, sizeof t, v, kb_base));
}

/* s without its surrounding blanks, in buf. */
static const char *trim_copy(char *buf, size_t n, const char *s)
{
    snprintf(buf, n, "%s", s);
    return trim(buf);
}

static void put_job(struct strbuf *b, const struct workload_job *j)
{
    char t1[64], t2[64];
    uint32_t kb = j->kb_base;
    /* The section header must read back as this job: a name= that is empty,
       starts with "global" (fio's strncmp) or holds ']' or a comment character
       goes in a name= line under a plain header. */
    bool plain = j->name[0] && strncmp(j->name, "global", 6) && !strpbrk(j->name, "[];#") &&
                 strlen(j->name) == strlen(trim_copy(t1, sizeof t1, j->name));
    if (plain)
        strbuf_printf(b, "\n[%s]\n", j->name);
    else
        strbuf_printf(b, "\n[job]\nname=%s\n", j->name);
    if (j->description[0])
        strbuf_printf(b, "description=%s\n", j->description);
    strbuf_printf(b, "kb_base=%u\nioengine=%s\n", kb, j->ioengine);
    if (j->clustername[0])
        strbuf_printf(b, "clustername=%s\n", j->clustername);
    if (j->clientname[0])
        strbuf_printf(b, "clientname=%s\n", j->clientname);
    if (j->pool[0])
        strbuf_printf(b, "pool=%s\n", j->pool);
    if (j->rbdname[0])
        strbuf_printf(b, "rbdname=%s\n", j->rbdname);
    if (j->filename[0])
        strbuf_printf(b, "filename=%s\n", j->filename);
    strbuf_printf(b, "rw=%s", fiojob_rw_name(j->rw));
    if (rw_is_random(j->rw) && j->rw_seq_nr != 1)
        strbuf_printf(b, ":%u", j->rw_seq_nr);
    else if (!rw_is_random(j->rw) && j->rw_seq_add)
        strbuf_printf(b, ":%s%s", j->rw_seq_add < 0 ? "-" : "",
                      fmt_size(t1, sizeof t1, j->rw_seq_add < 0 ? (uint64_t)-j->rw_seq_add : (uint64_t)j->rw_seq_add, kb));
    strbuf_printf(b, "\n");
    if (j->rw_sequencer != FIO_RWSEQ_SEQUENTIAL)
        strbuf_printf(b, "rw_sequencer=identical\n");
    strbuf_printf(b, "rwmixread=%u\n", j->rwmixread);
    strbuf_printf(b, "bs=%s,%s\n", fmt_size(t1, sizeof t1, j->bs[0], kb),
                  fmt_size(t2, sizeof t2, j->bs[1], kb));
    if (j->bsrange[0][1] || j->bsrange[1][1]) {
        strbuf_printf(b, "bsrange=");
        for (int d = 0; d < 2; d++) {
            if (j->bsrange[d][1])
                strbuf_printf(b, "%s-%s", fmt_size(t1, sizeof t1, j->bsrange[d][0], kb),
                              fmt_size(t2, sizeof t2, j->bsrange[d][1], kb));
            strbuf_printf(b, "%s", d == 0 ? "," : ",\n");
        }
    }
    if (j->n_bssplit[0] || j->n_bssplit[1]) {
        strbuf_printf(b, "bssplit=");
        for (int d = 0; d < 2; d++) {
            for (int i = 0; i < j->n_bssplit[d]; i++)
                strbuf_printf(b, "%s%s/%u", i ? ":" : "",
                              fmt_size(t1, sizeof t1, j->bssplit[d][i].bs, kb), j->bssplit[d][i].pct);
            strbuf_printf(b, "%s", d == 0 ? "," : ",\n");
        }
    }
    strbuf_printf(b, "iodepth=%u\nnumjobs=%u\n", j->iodepth, j->numjobs);
    put_pct_or_size(b, "size", j->size, j->size_pct, kb);
    put_pct_or_size(b, "offset", j->offset, j->offset_pct, kb);
    put_pct_or_size(b, "io_size", j->io_size, j->io_size_pct, kb);
    if (j->number_ios)
        strbuf_printf(b, "number_ios=%llu\n", (unsigned long long)j->number_ios);
    if (j->runtime_ns)
        strbuf_printf(b, "runtime=%s\n", fmt_time(t1, sizeof t1, j->runtime_ns));
    strbuf_printf(b, "time_based=%d\n", j->time_based);
    if (j->ramp_time_ns)
        strbuf_printf(b, "ramp_time=%s\n", fmt_time(t1, sizeof t1, j->ramp_time_ns));
    if (j->startdelay_max_ns) {
        strbuf_printf(b, "startdelay=%s", fmt_time(t1, sizeof t1, j->startdelay_ns));
        if (j->startdelay_max_ns != j->startdelay_ns)
            strbuf_printf(b, "-%s", fmt_time(t1, sizeof t1, j->startdelay_max_ns));
        strbuf_printf(b, "\n");
    }
    if (j->rate_iops[0] || j->rate_iops[1])
        strbuf_printf(b, "rate_iops=%u,%u\n", j->rate_iops[0], j->rate_iops[1]);
    if (j->thinktime_ns)
        strbuf_printf(b, "thinktime=%s\n", fmt_time(t1, sizeof t1, j->thinktime_ns));
    if (j->thinktime_blocks_set)
        strbuf_printf(b, "thinktime_blocks=%u\n", j->thinktime_blocks);
    if (j->thinktime_blocks_type == FIO_THINKTIME_ISSUE)
        strbuf_printf(b, "thinktime_blocks_type=issue\n");
    if (j->thinktime_spin_ns)
        strbuf_printf(b, "thinktime_spin=%s\n", fmt_time(t1, sizeof t1, j->thinktime_spin_ns));
    if (j->thinktime_iotime_ns)
        strbuf_printf(b, "thinktime_iotime=%s\n", fmt_time(t1, sizeof t1, j->thinktime_iotime_ns));
    strbuf_printf(b, "group_reporting=%d\n", j->group_reporting);
    strbuf_printf(b, "percentile_list=");
    for (int i = 0; i < j->n_percentiles; i++)
        strbuf_printf(b, "%s%.15g", i ? ":" : "", j->percentile_list[i]);
    strbuf_printf(b, "\nclat_percentiles=%d\nlat_percentiles=%d\nslat_percentiles=%d\n",
                  j->clat_percentiles, j->lat_percentiles, j->slat_percentiles);
    strbuf_printf(b, "random_distribution=%s", fiojob_dist_name(j->random_distribution));
    bool zoned = j->random_distribution == FIO_DIST_ZONED || j->random_distribution == FIO_DIST_ZONED_ABS;
    if (zoned) {
        for (int d = 0; d < 2; d++) {
            strbuf_printf(b, "%s", d ? "," : ":");
            for (int i = 0; i < j->n_zones[d]; i++) {
                const struct fio_zone_split *z = &j->zones[d][i];
                if (j->random_distribution == FIO_DIST_ZONED)
                    strbuf_printf(b, "%s%u/%u", i ? ":" : "", z->access_pct, z->size_pct);
                else
                    strbuf_printf(b, "%s%u/%s", i ? ":" : "", z->access_pct, fmt_size(t1, sizeof t1, z->size, kb));
            }
        }
    } else if (j->random_distribution != FIO_DIST_RANDOM) {
        strbuf_printf(b, ":%.15g", j->dist_param);
        if (j->dist_center >= 0)
            strbuf_printf(b, ":%.15g", j->dist_center);
    }
    strbuf_printf(b, "\nrandrepeat=%d\nnorandommap=%d\n", j->randrepeat, j->norandommap);
    if (j->random_generator == FIO_RAND_GEN_LFSR)
        strbuf_printf(b, "random_generator=lfsr\n");
    else if (j->random_generator == FIO_RAND_GEN_TAUSWORTHE64)
        strbuf_printf(b, "random_generator=tausworthe64\n");
    if (j->randseed_set)
        strbuf_printf(b, "randseed=%llu\n", (unsigned long long)j->randseed);
    if (j->new_group)
        strbuf_printf(b, "new_group=1\n");
    if (j->stonewall)
        strbuf_printf(b, "stonewall=1\n");
    const struct { bool on; const char *key, *prefix; } logs[] = {
        { j->write_lat_log, "write_lat_log", j->lat_log },
        { j->write_iops_log, "write_iops_log", j->iops_log },
        { j->write_bw_log, "write_bw_log", j->bw_log },
    };
    for (int i = 0; i < 3; i++)
        if (logs[i].on)
            strbuf_printf(b, "%s%s%s\n", logs[i].key, logs[i].prefix[0] ? "=" : "", logs[i].prefix);
    if (j->log_avg_msec)
        strbuf_printf(b, "log_avg_msec=%u\n", j->log_avg_msec);
    if (j->log_offset)
        strbuf_printf(b, "log_offset=1\n");
    if (!j->per_job_logs)
        strbuf_printf(b, "per_job_logs=0\n");
    if (j->write_iolog[0])
        strbuf_printf(b, "write_iolog=%s\n", j->write_iolog);
    if (j->direct)
        strbuf_printf(b, "direct=1\n");
}

char *fiojob_to_text(const struct fio_jobfile *jf)
{
    struct strbuf b = STRBUF_INIT;
    strbuf_printf(&b, "; fio jobs as resolved by cephsim: globals, includes and variables applied\n");
    if (jf->n_ignored) {
        strbuf_printf(&b, "; ignored options:");
        for (int i = 0; i < jf->n_ignored; i++)
            strbuf_printf(&b, " %s", jf->ignored[i]);
        strbuf_printf(&b, "\n");
    }
    for (int i = 0; i < jf->n_jobs; i++)
        put_job(&b, &jf->jobs[i]);
    return b.s;
}

/* ---- the modelled vocabulary (list-params) -------------------------------- */

void fiojob_print_options(FILE *f, bool markdown)
{
    if (markdown)
        fprintf(f, "\n### `fio.<option>`\n\nThe fio options cephsim models, in a job file (`cephsim run F.fio`, "
                   "`--jobfile F`, `clients.jobfile`, `clients.jobs`) or applied to every job with "
                   "`--set fio.<option>=<value>`.  The meaning is fio's own (%s, `fio --cmdhelp=<option>`); "
                   "any other option of fio is refused with what it would change, one fio does not have "
                   "with did-you-means from fio's names.\n\n| option | alias | fio's meaning |\n|---|---|---|\n",
                fio_vocabulary_release);
    else
        fprintf(f, "\n[fio] options cephsim models (fio's meaning, %s `fio --cmdhelp`)\n", fio_vocabulary_release);
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 1) {
            if (markdown)
                fprintf(f, "\nAccepted with no effect on what the model measures (host-side, output-only or "
                           "file-system options; listed as ignored in the run's notes):\n\n");
            else
                fprintf(f, "\n[fio] accepted, no effect on the simulation\n");
        }
        for (int i = 0; i < N_OPTS; i++) {
            const struct opt_def *o = &opt_table[i];
            bool noop = o->type == OT_IGNORED || o->no_effect;
            if (noop != (pass == 1))
                continue;
            const struct fio_optinfo *fi = fio_info_for(o->name, "rbd"); /* pool: the rbd engine's */
            const char *help = fi ? (fi->help ? fi->help : fi->lname) : "";
            if (pass == 1 && markdown)
                fprintf(f, "`%s`", o->name);
            if (pass == 1) {
                if (markdown)
                    fprintf(f, " ");
                else
                    fprintf(f, "  %-28s %s\n", o->name, help);
                continue;
            }
            if (markdown)
                fprintf(f, "| `%s` | %s | %s |\n", o->name, o->alias ? o->alias : "", help);
            else
                fprintf(f, "  %-28s %-22s %s\n", o->name, o->alias ? o->alias : "", help);
        }
    }
    if (markdown)
        fprintf(f, "\n");
}

void fiojob_free(struct fio_jobfile *jf)
{
    if (!jf)
        return;
    for (int i = 0; i < jf->n_jobs; i++)
        cJSON_Delete(jf->job_options[i]);
    free(jf->job_options);
    free(jf->jobs);
    for (int i = 0; i < jf->n_ignored; i++)
        free(jf->ignored[i]);
    free(jf->ignored);
    cJSON_Delete(jf->global_options);
    free(jf->engine_where);
    memset(jf, 0, sizeof *jf);
}
