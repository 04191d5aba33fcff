/*
 * plotutil.h - the small helpers the plot layer's files share: formatted
 * path strings and whether a path is a file or a directory.  Internal to
 * explorer/plot.
 */
#ifndef CEPHSIM_EXPLORER_PLOTUTIL_H
#define CEPHSIM_EXPLORER_PLOTUTIL_H

#include <stdbool.h>

/* A printf-formatted string in new storage the caller frees; never NULL. */
char *plot_asprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Whether path names a regular file (after symlinks). */
bool plot_is_file(const char *path);

/* Whether path names a directory (after symlinks). */
bool plot_is_dir(const char *path);

/* Whether DIR/NAME is a regular file. */
bool plot_file_in(const char *dir, const char *name);

#endif
