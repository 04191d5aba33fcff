#include "files.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <ftw.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int mkdir_upto(char *buf, int include_last)
{
    for (char *p = buf + 1; *p; p++)
        if (*p == '/') {
            *p = '\0';
            if (mkdir(buf, 0777) && errno != EEXIST)
                return -errno;
            *p = '/';
        }
    if (include_last && mkdir(buf, 0777) && errno != EEXIST)
        return -errno;
    return 0;
}

int files_mkdir_p(const char *path)
{
    char buf[4096];
    if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf)
        return -ENAMETOOLONG;
    return mkdir_upto(buf, 1);
}

int files_mkdir_parents(const char *path)
{
    char buf[4096];
    if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf)
        return -ENAMETOOLONG;
    return mkdir_upto(buf, 0);
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    return remove(path);
}

int files_rm_tree(const char *dir)
{
    return nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

int files_exe_dir(char *buf, size_t n)
{
    if (n < 2)
        return -ENAMETOOLONG;
    ssize_t k = readlink("/proc/self/exe", buf, n);
    if (k < 0)
        return -errno;
    if ((size_t)k >= n)
        return -ENAMETOOLONG;
    buf[k] = '\0';
    char *slash = strrchr(buf, '/');
    if (!slash)
        return -ENOENT;
    if (slash == buf)
        slash++; /* "/x" -> "/", as dirname() */
    *slash = '\0';
    return 0;
}

int files_dir_of(const char *path, char *out, size_t n)
{
    const char *slash = strrchr(path, '/');
    int len;
    if (!slash)
        len = snprintf(out, n, ".");
    else if (slash == path)
        len = snprintf(out, n, "/");
    else
        len = snprintf(out, n, "%.*s", (int)(slash - path), path);
    return len < 0 || (size_t)len >= n ? -ENAMETOOLONG : 0;
}

int files_join(const char *dir, const char *rel, char *out, size_t n)
{
    int len = rel[0] == '/' || !strcmp(dir, ".") ? snprintf(out, n, "%s", rel)
                                                 : snprintf(out, n, "%s/%s", dir, rel);
    return len < 0 || (size_t)len >= n ? -ENAMETOOLONG : 0;
}

int files_relative_to(const char *target, const char *from_dir, char *out, size_t n)
{
    char t[PATH_MAX], d[PATH_MAX];
    if (!realpath(target, t) || !realpath(from_dir, d))
        return -errno;
    /* the longest common prefix that ends at a directory boundary */
    size_t common = 0;
    for (size_t i = 0; t[i] && t[i] == d[i]; i++)
        if (t[i] == '/')
            common = i;
    size_t dl = strlen(d);
    if (dl == 1) /* from "/" */
        return snprintf(out, n, "%s", t + 1) >= (int)n ? -ENAMETOOLONG : 0;
    if (!strncmp(t, d, dl) && (t[dl] == '/' || t[dl] == '\0'))
        common = dl;
    size_t used = 0;
    out[0] = '\0';
    /* one ".." for every directory of from_dir below the common prefix */
    for (size_t i = common; i < dl; i++)
        if (d[i] == '/') {
            int k = snprintf(out + used, n - used, "../");
            if (k < 0 || (size_t)k >= n - used)
                return -ENAMETOOLONG;
            used += (size_t)k;
        }
    const char *rest = t[common] == '/' ? t + common + 1 : t + common;
    int k = snprintf(out + used, n - used, "%s", rest);
    return k < 0 || (size_t)k >= n - used ? -ENAMETOOLONG : 0;
}
