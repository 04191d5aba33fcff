/*
 * plotutil.c - helpers shared by the plot layer (see plotutil.h).
 */
#include "plotutil.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "err.h"

char *plot_asprintf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    SIM_ASSERT(n >= 0);
    char *s = sim_xcalloc((size_t)n + 1, 1);
    va_start(ap, fmt);
    vsnprintf(s, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return s;
}

bool plot_is_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

bool plot_is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

bool plot_file_in(const char *dir, const char *name)
{
    char *p = plot_asprintf("%s/%s", dir, name);
    bool r = plot_is_file(p);
    free(p);
    return r;
}
