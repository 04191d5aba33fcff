/*
 * files.h - the few file-system chores the tools share.
 */
#ifndef CEPHSIM_SIM_FILES_H
#define CEPHSIM_SIM_FILES_H

#include <stddef.h>

/* mkdir -p: create path and its missing parents; 0 or -errno. */
int files_mkdir_p(const char *path);

/* Create the missing directories above path (a file's); 0 or -errno. */
int files_mkdir_parents(const char *path);

/* rm -rf: remove dir and everything below it (no symlinks followed); 0 or -1. */
int files_rm_tree(const char *dir);

/* The directory of the running executable (/proc/self/exe, no trailing slash)
 * into buf[0..n-1]; 0 or -errno (-ENAMETOOLONG when it does not fit). */
int files_exe_dir(char *buf, size_t n);

/* The directory part of path ("." without a slash, "/" for a top-level
 * file) into out[0..n-1]; 0 or -ENAMETOOLONG. */
int files_dir_of(const char *path, char *out, size_t n);

/* rel joined to dir (rel itself when absolute or dir is "."); 0 or -ENAMETOOLONG. */
int files_join(const char *dir, const char *rel, char *out, size_t n);

/* target (which must exist) as a path relative to the directory from_dir,
 * e.g. "../hw-profiles/nvme/x.json"; 0 or -errno. */
int files_relative_to(const char *target, const char *from_dir, char *out, size_t n);

#endif
