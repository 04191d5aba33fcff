#include "files.h"

#include <errno.h>
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
