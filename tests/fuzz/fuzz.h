/*
 * fuzz.h - what every libFuzzer harness of tests/fuzz/ shares.
 *
 * A harness feeds one input to one parser, the way the program reads it (a
 * file: the parsers' own size caps, NUL and gzip handling are part of what is
 * fuzzed), and checks the parser's promise beyond "no crash": an input it
 * refuses gets a non-empty one-line message (no byte below 0x20).  Inputs go
 * to a private temporary directory; harnesses run from the tree's root
 * (tests/fuzz/run.sh), where the profiles and the shipped job files are.
 */
#ifndef CEPHSIM_TESTS_FUZZ_H
#define CEPHSIM_TESTS_FUZZ_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "err.h"

/* The harness's private directory, made on first use (removed by run.sh's TMPDIR). */
static inline const char *fuzz_dir(void)
{
    static char dir[512];
    if (!dir[0]) {
        const char *t = getenv("TMPDIR");
        snprintf(dir, sizeof dir, "%s/cephsim-fuzz-XXXXXX", t && *t ? t : "/tmp");
        if (!mkdtemp(dir)) {
            perror("fuzz: mkdtemp");
            abort();
        }
    }
    return dir;
}

/* Write data to fuzz_dir()/name; returns the path (a static buffer). */
static inline const char *fuzz_write(const char *name, const uint8_t *data, size_t size)
{
    static char path[1024];
    snprintf(path, sizeof path, "%s/%s", fuzz_dir(), name);
    FILE *f = fopen(path, "wb");
    if (!f || (size && fwrite(data, 1, size, f) != size) || fclose(f) != 0) {
        perror(path);
        abort();
    }
    return path;
}

/* A refusal must say why, on one line: abort (a finding) otherwise. */
static inline void fuzz_check_err(int rc, const struct sim_err *err, const char *what)
{
    if (rc >= 0)
        return;
    if (!err->msg[0]) {
        fprintf(stderr, "fuzz: %s failed (%d) with an empty message\n", what, rc);
        abort();
    }
    for (const char *p = err->msg; *p; p++)
        if ((unsigned char)*p < 0x20) {
            fprintf(stderr, "fuzz: %s: message has a control byte: %s\n", what, err->msg);
            abort();
        }
}

#endif
