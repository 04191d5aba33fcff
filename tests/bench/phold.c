/*
 * phold.c - PHOLD on the engine's own event queue, exactly as
 * ../shared/docs/phold.md defines it: splitmix64 stream per LP, the same draw
 * order, ties FIFO, 1 time unit = 1e9 ns with each delta rounded to the
 * nearest ns.  Config A: 1,000 LPs x 1 event, T_end 10,000; config B: 10,000
 * LPs x 10, T_end 100.  Prints committed events, the sum of their LP ids
 * (the conformance checksum) and events per wall-clock second of the loop.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <getopt.h>

#include "sim.h"
#include "wallclock.h"

struct phold {
    uint64_t *rng;  /* one splitmix64 state per LP */
    uint32_t n_lp;
    double p_remote, lookahead, mean_x;
    sim_time_t t_end;
    uint64_t committed, checksum;
};

static uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static double unif(uint64_t *s)
{
    *s += 0x9E3779B97F4A7C15ULL;
    return (double)(mix64(*s) >> 11) * 0x1.0p-53;
}

static sim_time_t draw_delta(struct phold *p, uint64_t *s)
{
    double d = p->lookahead + -p->mean_x * log(1.0 - unif(s));
    return (sim_time_t)llround(d * 1e9);
}

static void phold_event(struct sim *s, void *obj, uint64_t lp)
{
    struct phold *p = obj;
    uint64_t *r = &p->rng[lp];
    p->committed++;
    p->checksum += lp;
    uint32_t dest = (uint32_t)lp;
    if (unif(r) < p->p_remote)
        dest = (uint32_t)(unif(r) * (double)p->n_lp);
    sim_time_t t = sim_now(s) + draw_delta(p, r);
    if (t < p->t_end)
        sim_schedule_at(s, t, phold_event, p, dest);
}

int main(int argc, char **argv)
{
    uint32_t n = 1000, e = 1;
    double t_end = 10000;
    const char *config = "A";
    if (optind < argc && argv[1][0] != '-') {
        config = argv[1];
        optind = 2;
    }
    if (!strcmp(config, "B")) {
        n = 10000;
        e = 10;
        t_end = 100;
    } else if (strcmp(config, "A")) {
        fprintf(stderr, "usage: phold [A|B] [-n LPS] [-e EVENTS_PER_LP] [-T END]\n");
        return 2;
    }
    int c;
    while ((c = getopt(argc, argv, "n:e:T:")) != -1) {
        switch (c) {
        case 'n': n = (uint32_t)strtoul(optarg, NULL, 10); break;
        case 'e': e = (uint32_t)strtoul(optarg, NULL, 10); break;
        case 'T': t_end = strtod(optarg, NULL); break;
        default:
            fprintf(stderr, "usage: phold [A|B] [-n LPS] [-e EVENTS_PER_LP] [-T END]\n");
            return 2;
        }
    }
    struct phold p = {.n_lp = n, .p_remote = 0.25, .lookahead = 0.1, .mean_x = 0.9,
                      .t_end = (sim_time_t)llround(t_end * 1e9)};
    p.rng = calloc(n, sizeof *p.rng);
    struct sim *s = sim_create(1);
    for (uint32_t i = 0; i < n; i++)
        p.rng[i] = mix64(1 ^ ((uint64_t)i * 0xD1B54A32D192ED03ULL));
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t k = 0; k < e; k++) {
            sim_time_t t = draw_delta(&p, &p.rng[i]);
            if (t < p.t_end)
                sim_schedule_at(s, t, phold_event, &p, i);
        }
    double t0 = wallclock_s();
    sim_run(s, SIM_TIME_MAX);
    double t1 = wallclock_s();
    printf("phold config=%s lps=%u epl=%u events=%llu checksum=%llu run_s=%.4f events_per_s=%.0f\n",
           config, n, e, (unsigned long long)p.committed, (unsigned long long)p.checksum, t1 - t0,
           (double)p.committed / (t1 - t0));
    sim_destroy(s);
    free(p.rng);
    return 0;
}
