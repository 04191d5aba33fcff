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

#endif
