/*
 * wallclock.h - wall-clock seconds for progress lines, benchmarks and run
 * records.  Never for simulated time (sim_now): results must not depend on it.
 */
#ifndef CEPHSIM_SIM_WALLCLOCK_H
#define CEPHSIM_SIM_WALLCLOCK_H

#include <time.h>

/* Seconds on CLOCK_MONOTONIC: only differences mean something. */
static inline double wallclock_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

#endif
