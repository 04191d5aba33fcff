/*
 * trace_slurp.c - reading a trace file whole, plain or gzip'd (API in trace.h and
 * trace_int.h).
 *
 * Compressed files are gzip (RFC 1952, as gzip(1) writes them: captures are often kept
 * as `ceph daemon osd.N dump_historic_ops | gzip`), read in-process by zlib's
 * gzopen()/gzread(), which pass a file without the 1f 8b magic through unchanged and
 * read concatenated members as one stream, as `gzip -dc` does.  A stream that breaks off
 * still hands over what it decoded, for the op-tracker salvage.  What is read is capped
 * (TRACE_READ_MAX), so /dev/zero, a pipe that never ends or a gzip bomb ends in an error
 * naming the file rather than in exhausted memory.
 */
#include "trace_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <zlib.h>

#define SLURP_CHUNK (1u << 16)  /* bytes asked of one gzread(); a corrupt stream loses at
                                   most the chunk it broke in */

/* max for a message: "1 GiB", "64 MiB" or "1000 bytes". */
static void size_text(size_t max, char *out, size_t outsz)
{
    const size_t mib = (size_t)1 << 20, gib = (size_t)1 << 30;
    if (max >= gib && max % gib == 0)
        snprintf(out, outsz, "%zu GiB", max / gib);
    else if (max >= mib && max % mib == 0)
        snprintf(out, outsz, "%zu MiB", max / mib);
    else
        snprintf(out, outsz, "%zu bytes", max);
}

/* zlib's reason for the last error, without the "path: " it puts in front. */
static const char *gz_why(gzFile f, const char *path, int *errnum)
{
    const char *m = gzerror(f, errnum);
    size_t pl = strlen(path);
    if (m && !strncmp(m, path, pl) && m[pl] == ':' && m[pl + 1] == ' ')
        m += pl + 2;
    return m && *m ? m : "unknown error";
}

int trace_slurp_max(const char *path, size_t max, char **out, size_t *len, bool *partial,
                    struct sim_err *err)
{
    *out = NULL;
    *partial = false;
    if (len)
        *len = 0;
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
        return sim_errf(err, -EISDIR, "%s: is a directory, not a file", path);
    errno = 0;
    gzFile f = gzopen(path, "rbe");
    if (!f) {
        int e = errno ? errno : ENOMEM;
        return sim_errf(err, -e, "%s: cannot open: %s", path, strerror(e));
    }
    size_t cap = 1 << 16, n = 0;
    char *buf = sim_xcalloc(cap, 1);
    int rc = 0;
    for (;;) {
        if (n > max) {
            char lim[32];
            size_text(max, lim, sizeof lim);
            rc = sim_errf(err, -EFBIG, "%s: more than %s of text, stopped reading (an endless "
                          "file such as /dev/zero?)", path, lim);
            break;
        }
        if (n + 1 >= cap) { /* room for one byte past max, and the NUL */
            cap = cap > (max + 2) / 2 ? max + 2 : 2 * cap;
            buf = sim_xrealloc(buf, cap, 1);
        }
        size_t room = cap - n - 1;
        int r = gzread(f, buf + n, room < SLURP_CHUNK ? (unsigned)room : SLURP_CHUNK);
        if (r > 0) {
            n += (size_t)r;
            continue;
        }
        int errnum = Z_OK;
        const char *why = gz_why(f, path, &errnum);
        if (errnum == Z_BUF_ERROR || errnum == Z_DATA_ERROR) { /* cut off, or corrupt */
            *partial = true;
            rc = sim_errf(err, -EIO, "%s: truncated or corrupt gzip data (zlib: %s after %zu "
                          "bytes)", path, why, n);
        } else if (errnum == Z_ERRNO) {
            int e = errno ? errno : EIO;
            rc = sim_errf(err, -e, "%s: read error: %s", path, strerror(e));
        } else if (errnum != Z_OK) {
            rc = sim_errf(err, -EIO, "%s: cannot read: zlib: %s", path, why);
        }
        break;
    }
    gzclose(f);
    if (rc < 0 && !*partial) {
        free(buf);
        return rc;
    }
    buf[n] = '\0';
    *out = buf;
    if (len)
        *len = n;
    return rc;
}

int trace_slurp(const char *path, char **out, size_t *len, struct sim_err *err)
{
    bool partial;
    int rc = trace_slurp_max(path, TRACE_READ_MAX, out, len, &partial, err);
    if (rc < 0 && partial) {
        free(*out);
        *out = NULL;
    }
    return rc;
}
