/*
 * err.h - error reporting for input and resource errors.
 *
 * Functions that can fail on bad input return a negative errno value and fill a
 * struct sim_err with a one-line message that names the file and the JSON path
 * (or line) at fault.  Broken internal invariants are not errors: they abort
 * through SIM_ASSERT with file, line and (when known) simulated time.
 */
#ifndef CEPHSIM_SIM_ERR_H
#define CEPHSIM_SIM_ERR_H

#include <stdio.h>
#include <stdlib.h>

struct sim_err {
    int code;       /* negative errno, 0 when no error */
    char msg[512];  /* one line, no trailing newline */
};

/* Bytes of a too-long message kept before the elided middle (the file and
   JSON path); the end (the reason) fills the rest of msg. */
#define SIM_ERR_HEAD 200

/* Fill err (may be NULL) with a printf-style message; returns code (negative).
   A message longer than msg keeps its start and its end with the length of
   what was left out between them. */
int sim_errf(struct sim_err *err, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Abort with a message: the "draconian" assert for broken invariants. */
_Noreturn void sim_panic(const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#define SIM_ASSERT(cond)                                                        \
    do {                                                                        \
        if (__builtin_expect(!(cond), 0))                                       \
            sim_panic(__FILE__, __LINE__, "assertion failed: %s", #cond);       \
    } while (0)

/* Allocation that never returns NULL (aborts on out-of-memory). */
void *sim_xcalloc(size_t n, size_t size);
void *sim_xrealloc(void *p, size_t n, size_t size);
/* Zeroed, aligned to align bytes (a power of two), freed with free(): arrays
   whose elements are laid out by cache line. */
void *sim_xcalloc_aligned(size_t n, size_t size, size_t align);
char *sim_xstrdup(const char *s);

#endif
