/*
 * testfs.h - scratch directories and input files for the suites that write
 * their inputs (header-only, as testutil.h).  Include after <cmocka.h>.
 * Scratch lives in the tree's generated out/ (the suites run from the tree
 * root), never outside the tree.
 */
#ifndef CEPHSIM_TESTS_TESTFS_H
#define CEPHSIM_TESTS_TESTFS_H

#include <ftw.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

static inline int testfs_rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    return remove(path);
}

/* Remove dir and everything below it (nothing if it does not exist). */
static inline void testfs_rm_tree(const char *dir)
{
    nftw(dir, testfs_rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* A fresh, empty scratch directory out/test-SUITE-PID-NAME, its path in dir. */
static inline void testfs_scratch(char *dir, size_t n, const char *suite, const char *name)
{
    snprintf(dir, n, "out/test-%s-%ld-%s", suite, (long)getpid(), name);
    testfs_rm_tree(dir);
    mkdir("out", 0777);
    assert_int_equal(mkdir(dir, 0777), 0);
}

/* Write text to dir/name (its directory must exist). */
static inline void testfs_put(const char *dir, const char *name, const char *text)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

#endif
