/*
 * test_fiojob.c - fio job-file parser: real-world job files (tests/data/fio/),
 * fio's unit rules, inheritance, includes, ${VAR}, error messages, --set,
 * the normalized text and the "job options" of the real lab captures.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fiojob.h"
#include "fioopts.h"
#include "jsonu.h"

#define DATA "tests/data/fio/"
#define LAB "../shared/data/lab"
#define GIB (1024ULL * 1024 * 1024)
#define SEC 1000000000ULL

/* The "job options" (as given) of a job of jf: kept beside the jobs, per job. */
#define OPTIONS_OF(jf, job) ((jf).job_options[(job) - (jf).jobs])

static struct workload_job *job_named(struct fio_jobfile *jf, const char *name)
{
    for (int i = 0; i < jf->n_jobs; i++)
        if (!strcmp(jf->jobs[i].name, name))
            return &jf->jobs[i];
    fail_msg("no job named '%s'", name);
    return NULL;
}

static const char *opt_str(const cJSON *obj, const char *key)
{
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(obj, key);
    return cJSON_IsString(it) ? it->valuestring : NULL;
}

static bool is_ignored(const struct fio_jobfile *jf, const char *name)
{
    int found = 0;
    for (int i = 0; i < jf->n_ignored; i++)
        found += !strcmp(jf->ignored[i], name);
    assert_true(found <= 1); /* listed once */
    return found == 1;
}

static void parse_ok(const char *path, struct fio_jobfile *jf)
{
    struct sim_err err = { 0 };
    int rc = fiojob_parse_file(path, NULL, jf, &err);
    if (rc)
        fail_msg("%s: unexpected error: %s", path, err.msg);
}

/* Parses text and returns the error (rc < 0 expected); msg copied to err. */
static int parse_str_err(const char *text, struct sim_err *err)
{
    struct fio_jobfile jf;
    memset(err, 0, sizeof *err);
    int rc = fiojob_parse_string(text, "t.fio", NULL, NULL, &jf, err);
    assert_true(rc < 0);
    assert_int_equal(jf.n_jobs, 0); /* nothing left behind */
    assert_null(jf.jobs);
    return rc;
}

static void parse_str_ok(const char *text, struct fio_jobfile *jf)
{
    struct sim_err err = { 0 };
    int rc = fiojob_parse_string(text, "t.fio", NULL, NULL, jf, &err);
    if (rc)
        fail_msg("unexpected error: %s", err.msg);
}

/* ---- real-world files ----------------------------------------------------- */

static void test_rbd_example(void **state)
{
    struct fio_jobfile jf;
    parse_ok(DATA "rbd.fio", &jf);
    assert_int_equal(jf.n_jobs, 1);
    struct workload_job *j = &jf.jobs[0];
    assert_string_equal(j->name, "rbd_iodepth32");
    assert_string_equal(j->ioengine, "rbd");
    assert_string_equal(j->clientname, "admin");
    assert_string_equal(j->pool, "rbd");
    assert_string_equal(j->rbdname, "fio_test");
    assert_int_equal(j->rw, FIO_RW_RANDWRITE);
    assert_int_equal(j->bs[FIO_DDIR_READ], 4096);
    assert_int_equal(j->bs[FIO_DDIR_WRITE], 4096);
    assert_int_equal(j->iodepth, 32);
    /* fio defaults for what the file leaves out */
    assert_int_equal(j->numjobs, 1);
    assert_int_equal(j->rwmixread, 50);
    assert_int_equal(j->rw_seq_nr, 1);
    assert_int_equal(j->thinktime_blocks, 1);
    assert_true(j->randrepeat);
    assert_int_equal(j->randseed, 0x89);
    assert_false(j->time_based);
    assert_int_equal(j->runtime_ns, 0);
    assert_int_equal(j->n_percentiles, 17);
    assert_true(fabs(j->percentile_list[0] - 1.0) < 1e-12);
    assert_true(fabs(j->percentile_list[13] - 99.5) < 1e-12);
    assert_true(fabs(j->percentile_list[16] - 99.99) < 1e-12);
    assert_true(j->clat_percentiles);
    assert_false(j->lat_percentiles);
    assert_int_equal(j->random_distribution, FIO_DIST_RANDOM);
    assert_int_equal(j->groupid, 0);
    /* fio's JSON: the job's own options, and the [global] ones separately */
    assert_int_equal(cJSON_GetArraySize(OPTIONS_OF(jf, j)), 1);
    assert_string_equal(opt_str(OPTIONS_OF(jf, j), "iodepth"), "32");
    assert_int_equal(cJSON_GetArraySize(jf.global_options), 6);
    assert_string_equal(opt_str(jf.global_options, "bs"), "4k");
    assert_string_equal(opt_str(jf.global_options, "rw"), "randwrite");
    /* the cluster's and client's names: the scenario's, no effect (listed) */
    assert_int_equal(jf.n_ignored, 2);
    assert_true(is_ignored(&jf, "clientname"));
    assert_true(is_ignored(&jf, "pool"));
    fiojob_free(&jf);
    assert_null(jf.jobs);
}

static void test_seed_report_job(void **state)
{
    struct fio_jobfile jf;
    parse_ok(DATA "seed_seqwrite.fio", &jf);
    assert_int_equal(jf.n_jobs, 1);
    struct workload_job *j = &jf.jobs[0];
    assert_string_equal(j->name, "Rand_Write_Testing");
    assert_true(j->direct);
    assert_int_equal(j->iodepth, 128);
    assert_int_equal(j->rw, FIO_RW_WRITE);
    assert_int_equal(j->rw_seq_add, 4096); /* rw=write:4k skips 4k after each write */
    assert_int_equal(j->bs[FIO_DDIR_WRITE], 4096);
    assert_int_equal(j->numjobs, 1);
    assert_int_equal(j->number_ios, 1);
    assert_int_equal(j->size, GIB);
    assert_true(j->size_pct == 0);
    assert_string_equal(j->pool, "PoolName");
    assert_string_equal(j->rbdname, "ClonedImage");
    assert_string_equal(j->clientname, "admin");
    assert_true(j->group_reporting);
    assert_string_equal(opt_str(OPTIONS_OF(jf, j), "group_reporting"), ""); /* bare, as fio */
    assert_string_equal(opt_str(OPTIONS_OF(jf, j), "rw"), "write:4k");
    assert_true(is_ignored(&jf, "direct"));
    assert_true(is_ignored(&jf, "pool"));
    assert_true(is_ignored(&jf, "clientname"));
    assert_int_equal(jf.n_ignored, 3);
    assert_int_equal(cJSON_GetArraySize(jf.global_options), 0);
    fiojob_free(&jf);
}

static void test_includes_nested(void **state)
{
    struct fio_jobfile jf;
    setenv("FIOJOB_TEST_IMAGE", "img_from_env", 1);
    parse_ok(DATA "include_main.fio", &jf);
    unsetenv("FIOJOB_TEST_IMAGE");
    assert_int_equal(jf.n_jobs, 2);
    struct workload_job *s = job_named(&jf, "small"), *l = job_named(&jf, "large");
    /* [global] include -> common.fio -> engine.fio (relative to common.fio) */
    for (int i = 0; i < 2; i++) {
        struct workload_job *j = i ? l : s;
        assert_string_equal(j->ioengine, "rbd");
        assert_string_equal(j->pool, "rbd");
        assert_string_equal(j->rbdname, "img_from_env");
        assert_true(j->time_based);
        assert_int_equal(j->runtime_ns, 30 * SEC);
        assert_int_equal(j->rw, FIO_RW_RANDWRITE);
    }
    /* a job's include applies to that job only */
    assert_int_equal(s->iodepth, 16);
    assert_int_equal(l->iodepth, 1);
    assert_int_equal(s->bs[FIO_DDIR_WRITE], 4096);
    assert_int_equal(l->bs[FIO_DDIR_WRITE], 65536);
    assert_string_equal(opt_str(OPTIONS_OF(jf, s), "iodepth"), "16");
    assert_null(opt_str(OPTIONS_OF(jf, l), "iodepth"));
    assert_string_equal(opt_str(jf.global_options, "rbdname"), "img_from_env");
    assert_string_equal(opt_str(jf.global_options, "time_based"), "");
    fiojob_free(&jf);
}

static void test_bare_flags_and_comments(void **state)
{
    struct fio_jobfile jf;
    parse_ok(DATA "flags_comments.fio", &jf);
    assert_int_equal(jf.n_jobs, 2);
    struct workload_job *a = job_named(&jf, "a"), *b = job_named(&jf, "b");
    assert_string_equal(a->ioengine, "rbd"); /* inline comment cut */
    assert_string_equal(a->pool, "rbd");     /* spaces around '=' */
    assert_true(a->time_based);
    assert_true(a->direct);
    assert_true(a->group_reporting);
    assert_true(a->norandommap);
    assert_int_equal(a->runtime_ns, 10 * SEC);
    assert_int_equal(a->rw, FIO_RW_RANDREAD);
    assert_int_equal(b->rw, FIO_RW_READ);
    assert_true(is_ignored(&jf, "thread")); /* given three times, listed once */
    assert_true(is_ignored(&jf, "direct"));
    assert_true(is_ignored(&jf, "pool"));
    assert_int_equal(jf.n_ignored, 3);
    fiojob_free(&jf);

    parse_ok(DATA "crlf.fio", &jf);
    assert_string_equal(jf.jobs[0].name, "crlf");
    assert_int_equal(jf.jobs[0].rw, FIO_RW_WRITE);
    assert_int_equal(jf.jobs[0].iodepth, 8);
    fiojob_free(&jf);
}

static void test_units(void **state)
{
    struct fio_jobfile jf;
    parse_ok(DATA "units.fio", &jf);
    struct workload_job *a = job_named(&jf, "sizes");
    assert_int_equal(a->bs[FIO_DDIR_READ], 4096);
    assert_int_equal(a->size, GIB);
    assert_int_equal(a->offset, 4096);            /* 0x1000 */
    assert_int_equal(a->io_size, 1048576);        /* 1m */
    assert_int_equal(a->number_ios, 1024);        /* ints take suffixes too */
    assert_int_equal(a->rw_seq_add, 4000);        /* 4KiB with kb_base=1024 */
    assert_int_equal(a->runtime_ns, 120 * SEC);   /* m = minutes for times */
    assert_int_equal(a->ramp_time_ns, 10000000);  /* 10ms */
    assert_int_equal(a->thinktime_ns, 500000);    /* 500us */
    assert_int_equal(a->startdelay_ns, 5 * SEC);  /* range given reversed: swapped */
    assert_int_equal(a->startdelay_max_ns, 10 * SEC);

    /* HOWTO: with kb_base=1024, ki/mi/... and KiB/MiB/... are the decimal units */
    struct workload_job *d = job_named(&jf, "decimal_units");
    assert_int_equal(d->bs[FIO_DDIR_WRITE], 4000);
    assert_int_equal(d->size, 1000000);
    assert_int_equal(d->offset, 4096);            /* 4096b */
    assert_int_equal(d->io_size, 1099511627776ULL); /* io_limit=1t */
    assert_int_equal(d->runtime_ns, 3600 * SEC);
    assert_int_equal(d->ramp_time_ns, 30 * SEC);  /* seconds by default */
    assert_int_equal(d->thinktime_ns, 250000);    /* thinktime: microseconds by default */
    assert_int_equal(d->startdelay_ns, 86400 * SEC);
    assert_int_equal(d->startdelay_max_ns, 86400 * SEC);
    assert_string_equal(opt_str(OPTIONS_OF(jf, d), "io_size"), "1t"); /* canonical name */

    /* kb_base=1000 applies to the whole section even after bs=, as fio's prio */
    struct workload_job *k = job_named(&jf, "kb_base_1000");
    assert_int_equal(k->kb_base, 1000);
    assert_int_equal(k->bs[FIO_DDIR_READ], 4000);
    assert_int_equal(k->bs[FIO_DDIR_WRITE], 8192);
    assert_int_equal(k->size, GIB);
    assert_string_equal(OPTIONS_OF(jf, k)->child->string, "kb_base");
    fiojob_free(&jf);
}

static void test_size_suffix_table(void **state)
{
    static const struct { const char *v; uint32_t bs; } cases[] = {
        { "4096", 4096 }, { "4k", 4096 }, { "4K", 4096 }, { "4kb", 4096 }, { "4KB", 4096 },
        { "4kB", 4096 }, { "4ki", 4000 }, { "4KiB", 4000 }, { "4kib", 4000 }, { "1m", 1048576 },
        { "1M", 1048576 }, { "1mi", 1000000 }, { "1MiB", 1000000 }, { "1024k", 1048576 },
        { "1000ki", 1000000 }, { "0x1000", 4096 }, { "0X10", 16 }, { "512b", 512 },
        { "512B", 512 }, { "1g", 1073741824 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char text[128];
        struct fio_jobfile jf;
        snprintf(text, sizeof text, "[j]\nbs=%s\n", cases[i].v);
        parse_str_ok(text, &jf);
        if (jf.jobs[0].bs[FIO_DDIR_WRITE] != cases[i].bs)
            fail_msg("bs=%s gave %u, want %u", cases[i].v, jf.jobs[0].bs[FIO_DDIR_WRITE],
                     cases[i].bs);
        fiojob_free(&jf);
    }
}

static void test_multiple_globals(void **state)
{
    struct fio_jobfile jf;
    parse_ok(DATA "multi_global.fio", &jf);
    assert_int_equal(jf.n_jobs, 3);
    struct workload_job *b = job_named(&jf, "before"), *a = job_named(&jf, "after"),
                   *o = job_named(&jf, "after_override");
    /* the second [global] does not reach the job above it */
    assert_int_equal(b->iodepth, 4);
    assert_int_equal(b->rw, FIO_RW_READ);
    assert_int_equal(b->bs[FIO_DDIR_WRITE], 4096);
    /* below it, both [global]s apply, the later one winning */
    assert_int_equal(a->iodepth, 64);
    assert_int_equal(a->rw, FIO_RW_RANDWRITE);
    assert_int_equal(a->bs[FIO_DDIR_WRITE], 16384);
    assert_string_equal(a->pool, "rbd");
    assert_int_equal(o->iodepth, 2);
    assert_int_equal(cJSON_GetArraySize(OPTIONS_OF(jf, a)), 0);
    assert_string_equal(opt_str(jf.global_options, "iodepth"), "64");
    fiojob_free(&jf);
}

static void test_bssplit(void **state)
{
    struct fio_jobfile jf;
    parse_ok(DATA "bssplit.fio", &jf);
    struct workload_job *e = job_named(&jf, "even");
    for (int d = 0; d < 2; d++) {
        assert_int_equal(e->n_bssplit[d], 2);
        assert_int_equal(e->bssplit[d][0].bs, 4096);
        assert_int_equal(e->bssplit[d][0].pct, 50);
        assert_int_equal(e->bssplit[d][1].bs, 65536);
        assert_int_equal(e->bssplit[d][1].pct, 50);
    }
    struct workload_job *p = job_named(&jf, "per_dir");
    assert_int_equal(p->rwmixread, 70);
    assert_int_equal(p->n_bssplit[FIO_DDIR_READ], 2);
    assert_int_equal(p->bssplit[FIO_DDIR_READ][0].bs, 2048);
    assert_int_equal(p->n_bssplit[FIO_DDIR_WRITE], 2);
    assert_int_equal(p->bssplit[FIO_DDIR_WRITE][0].bs, 4096);
    assert_int_equal(p->bssplit[FIO_DDIR_WRITE][0].pct, 90);
    assert_int_equal(p->bssplit[FIO_DDIR_WRITE][1].bs, 8192);
    assert_int_equal(p->bssplit[FIO_DDIR_WRITE][1].pct, 10);
    /* HOWTO: 4k/50:1k/:32k/ is 50% 4k and 25% each for 1k and 32k */
    struct workload_job *b = job_named(&jf, "blanks");
    assert_int_equal(b->n_bssplit[FIO_DDIR_WRITE], 3);
    assert_int_equal(b->bssplit[FIO_DDIR_WRITE][1].bs, 1024);
    assert_int_equal(b->bssplit[FIO_DDIR_WRITE][1].pct, 25);
    assert_int_equal(b->bssplit[FIO_DDIR_WRITE][2].pct, 25);
    /* three blanks: the remainder of 100/3 goes to the first, sum stays 100 */
    struct workload_job *t = job_named(&jf, "thirds");
    assert_int_equal(t->bssplit[FIO_DDIR_WRITE][0].pct, 34);
    assert_int_equal(t->bssplit[FIO_DDIR_WRITE][1].pct, 33);
    assert_int_equal(t->bssplit[FIO_DDIR_WRITE][2].pct, 33);
    fiojob_free(&jf);

    struct sim_err err;
    parse_str_err("[j]\nbssplit=4k/60:8k/50\n", &err);
    assert_string_equal(err.msg, "t.fio:2: bssplit: percentages add up to 110%, more than 100%");
    parse_str_err("[j]\nbssplit=4k/60:8k/30\n", &err);
    assert_string_equal(err.msg, "t.fio:2: bssplit: percentages add up to 90%, not 100%");
    parse_str_err("[j]\nbssplit=4k/160\n", &err);
    assert_non_null(strstr(err.msg, "out of range [0, 100]"));
}

static const char *test_lookup(void *ctx, const char *name)
{
    (*(int *)ctx)++;
    if (!strcmp(name, "DEPTH"))
        return "24";
    if (!strcmp(name, "KEY"))
        return "iodepth";
    return NULL;
}

static void test_var_expansion(void **state)
{
    int calls = 0;
    struct fiojob_vars vars = { .lookup = test_lookup, .ctx = &calls };
    struct fio_jobfile jf;
    struct sim_err err = { 0 };
    int rc = fiojob_parse_string("[j]\nnumjobs=${DEPTH}\n${KEY}=${DEPTH}\n"
                                 "description=a${UNSET}b${}c\nbs=${UNSET}4k\n",
                                 "vars.fio", NULL, &vars, &jf, &err);
    assert_int_equal(rc, 0);
    assert_int_equal(calls, 5);
    assert_int_equal(jf.jobs[0].numjobs, 24);
    assert_int_equal(jf.jobs[0].iodepth, 24); /* substitution covers the key too, as fio */
    assert_string_equal(jf.jobs[0].description, "abc"); /* unset -> "" */
    assert_int_equal(jf.jobs[0].bs[FIO_DDIR_WRITE], 4096);
    assert_string_equal(opt_str(jf.job_options[0], "iodepth"), "24");
    fiojob_free(&jf);

    /* default lookup is the environment; unset expands to empty -> missing value */
    unsetenv("FIOJOB_TEST_UNSET");
    parse_str_err("[j]\niodepth=${FIOJOB_TEST_UNSET}\n", &err);
    assert_string_equal(err.msg, "t.fio:2: iodepth: missing value (${FIOJOB_TEST_UNSET} is not set: fio substitutes "
                                 "an empty value)");
}

static void test_rw_modes(void **state)
{
    struct fio_jobfile jf;
    parse_str_ok("[a]\nrw=randwrite:8\n[b]\nreadwrite=randrw\n[c]\nrw=readwrite\n"
                 "[d]\nrw=read:64k\nrw_sequencer=identical\n",
                 &jf);
    assert_int_equal(jf.jobs[0].rw, FIO_RW_RANDWRITE);
    assert_int_equal(jf.jobs[0].rw_seq_nr, 8);
    assert_int_equal(jf.jobs[0].rw_seq_add, 0);
    assert_int_equal(jf.jobs[1].rw, FIO_RW_RANDRW);
    assert_string_equal(opt_str(jf.job_options[1], "rw"), "randrw"); /* alias -> name */
    assert_int_equal(jf.jobs[2].rw, FIO_RW_RW);
    assert_int_equal(jf.jobs[3].rw, FIO_RW_READ);
    assert_int_equal(jf.jobs[3].rw_seq_add, 65536);
    assert_int_equal(jf.jobs[3].rw_sequencer, FIO_RWSEQ_IDENTICAL);
    fiojob_free(&jf);

    struct sim_err err;
    int rc = parse_str_err("[j]\nrw=randtrim\n", &err);
    assert_int_equal(rc, -ENOTSUP);
    assert_string_equal(err.msg,
                        "t.fio:2: rw: 'randtrim' is not supported (cephsim models reads and writes only)");
    parse_str_err("[j]\nrw=randwirte\n", &err);
    assert_non_null(strstr(err.msg, "t.fio:2: rw: unknown mode 'randwirte' (did you mean 'randwrite'?)"));
    parse_str_err("[j]\nrw=randread:0\n", &err);
    assert_non_null(strstr(err.msg, "out of range"));
}

static void test_rwmix_consistent(void **state)
{
    struct fio_jobfile jf;
    parse_str_ok("[a]\nrw=randrw\nrwmixwrite=30\n[b]\nrwmixwrite=30\nrwmixread=90\n"
                 "[c]\nrwmixread=0\n",
                 &jf);
    assert_int_equal(jf.jobs[0].rwmixread, 70);
    assert_int_equal(jf.jobs[1].rwmixread, 90); /* the last one given wins */
    assert_int_equal(jf.jobs[2].rwmixread, 0);
    fiojob_free(&jf);
}

static void test_percentiles_and_distribution(void **state)
{
    struct fio_jobfile jf;
    parse_str_ok("[a]\npercentile_list=50:99:99.9:99.99\nrandom_distribution=zipf:1.2\n"
                 "[b]\nrandom_distribution=pareto\nlat_percentiles=1\n"
                 "[c]\nrandom_distribution=normal:5:0.5\n",
                 &jf);
    assert_int_equal(jf.jobs[0].n_percentiles, 4);
    assert_true(fabs(jf.jobs[0].percentile_list[3] - 99.99) < 1e-12);
    assert_int_equal(jf.jobs[0].random_distribution, FIO_DIST_ZIPF);
    assert_true(fabs(jf.jobs[0].dist_param - 1.2) < 1e-12);
    assert_int_equal(jf.jobs[1].random_distribution, FIO_DIST_PARETO);
    assert_true(fabs(jf.jobs[1].dist_param - 0.2) < 1e-12); /* FIO_DEF_PARETO */
    assert_true(jf.jobs[1].lat_percentiles);
    assert_int_equal(jf.jobs[2].random_distribution, FIO_DIST_NORMAL);
    assert_true(fabs(jf.jobs[2].dist_param - 5) < 1e-12);
    assert_true(fabs(jf.jobs[2].dist_center - 0.5) < 1e-12);
    fiojob_free(&jf);

    struct sim_err err;
    parse_str_err("[j]\npercentile_list=1:2:3:4:5:6:7:8:9:10:11:12:13:14:15:16:17:18:19:20:21\n",
                  &err);
    assert_string_equal(err.msg, "t.fio:2: percentile_list: more than 20 percentiles");
    parse_str_err("[j]\npercentile_list=0:50\n", &err);
    assert_non_null(strstr(err.msg, "percentile '0' out of range (0, 100]"));
    parse_str_err("[j]\nrandom_distribution=zipf:1\n", &err);
    assert_non_null(strstr(err.msg, "different from 1"));
    assert_int_equal(parse_str_err("[j]\nrandom_distribution=sequence\n", &err), -ENOTSUP);

    /* zoned (options.c zone_split_ddir): access%/size%, one list for both directions */
    parse_str_ok("[z]\nrandom_distribution=zoned:60/10:30/20:10/70\n"
                 "[m]\nrandom_distribution=zoned:50/:50/\n"
                 "[a]\nrandom_distribution=zoned_abs:60/20g:30/100g:10/500g,100/1m\n"
                 "[o]\nrandom_distribution=zoned:100/50\nrandom_distribution=zipf:0.9\n",
                 &jf);
    const struct workload_job *z = &jf.jobs[0];
    assert_int_equal(z->random_distribution, FIO_DIST_ZONED);
    for (int d = 0; d < 2; d++) {
        assert_int_equal(z->n_zones[d], 3);
        assert_int_equal(z->zones[d][0].access_pct, 60);
        assert_int_equal(z->zones[d][0].size_pct, 10);
        assert_int_equal(z->zones[d][2].access_pct, 10);
        assert_int_equal(z->zones[d][2].size_pct, 70);
    }
    assert_int_equal(jf.jobs[1].zones[0][1].size_pct, 50); /* blank sizes share the rest */
    const struct workload_job *a = &jf.jobs[2];
    assert_int_equal(a->random_distribution, FIO_DIST_ZONED_ABS);
    assert_int_equal(a->n_zones[FIO_DDIR_READ], 3);
    assert_int_equal(a->zones[FIO_DDIR_READ][1].size, 100ull << 30);
    assert_int_equal(a->n_zones[FIO_DDIR_WRITE], 1);
    assert_int_equal(a->zones[FIO_DDIR_WRITE][0].size, 1ull << 20);
    assert_int_equal(jf.jobs[3].random_distribution, FIO_DIST_ZIPF);
    assert_int_equal(jf.jobs[3].n_zones[0], 0);
    fiojob_free(&jf);
    parse_str_err("[j]\nrandom_distribution=zoned:60/10:30/20\n", &err);
    assert_non_null(strstr(err.msg, "access percentages add up to 90%, not 100%"));
    parse_str_err("[j]\nrandom_distribution=zoned:50/60:50/60\n", &err);
    assert_non_null(strstr(err.msg, "zone sizes add up to 120%"));
    parse_str_err("[j]\nrandom_distribution=zoned\n", &err);
    assert_non_null(strstr(err.msg, "needs its zones"));
}

static void test_groups(void **state)
{
    struct fio_jobfile jf;
    parse_ok(DATA "groups.fio", &jf);
    assert_int_equal(jf.n_jobs, 5);
    static const int want[] = { 0, 0, 1, 1, 2 };
    for (int i = 0; i < 5; i++)
        assert_int_equal(jf.jobs[i].groupid, want[i]);
    fiojob_free(&jf);

    /* stonewall in [global]: every job but the first opens a group (fio add_job) */
    parse_str_ok("[global]\nstonewall\n[a]\n[b]\n[c]\n", &jf);
    assert_int_equal(jf.jobs[0].groupid, 0);
    assert_int_equal(jf.jobs[1].groupid, 1);
    assert_int_equal(jf.jobs[2].groupid, 2);
    fiojob_free(&jf);
}

static void test_size_percent(void **state)
{
    struct fio_jobfile jf;
    parse_str_ok("[j]\nsize=50%\noffset=12.5%\nio_limit=2g\nfileoffset=10%\n", &jf);
    assert_int_equal(jf.jobs[0].size, 0);
    assert_true(fabs(jf.jobs[0].size_pct - 50) < 1e-12);
    assert_true(fabs(jf.jobs[0].offset_pct - 10) < 1e-12); /* alias, last wins */
    assert_int_equal(jf.jobs[0].io_size, 2 * GIB);
    fiojob_free(&jf);

    struct sim_err err;
    parse_str_err("[j]\nsize=150%\n", &err);
    assert_string_equal(err.msg, "t.fio:2: size: percentage '150%' out of range (0, 100]");
    parse_str_err("[j]\niodepth=50%\n", &err);
    assert_non_null(strstr(err.msg, "a percentage is not allowed here"));
}

static void test_misc_options(void **state)
{
    struct fio_jobfile jf;
    parse_ok(DATA "misc.fio", &jf);
    struct workload_job *p = job_named(&jf, "paced"), *r = job_named(&jf, "replay");
    assert_string_equal(p->clustername, "ceph");
    assert_string_equal(p->description, "mixed pacing test");
    assert_int_equal(p->rw, FIO_RW_RANDRW);
    assert_int_equal(p->rw_seq_nr, 4);
    assert_int_equal(p->rwmixread, 25);
    assert_int_equal(p->bsrange[FIO_DDIR_READ][0], 1024);
    assert_int_equal(p->bsrange[FIO_DDIR_READ][1], 4096);
    assert_int_equal(p->bsrange[FIO_DDIR_WRITE][0], 2048); /* 8k:2k swapped */
    assert_int_equal(p->bsrange[FIO_DDIR_WRITE][1], 8192);
    assert_int_equal(p->rate_iops[FIO_DDIR_READ], 100);
    assert_int_equal(p->rate_iops[FIO_DDIR_WRITE], 0); /* "100,," leaves writes alone */
    assert_int_equal(p->thinktime_ns, 2000000);
    assert_int_equal(p->thinktime_blocks, 8);
    assert_true(p->thinktime_blocks_set);
    assert_false(r->thinktime_blocks_set);
    assert_true(p->randseed_set);
    assert_false(r->randseed_set);
    assert_int_equal(p->thinktime_spin_ns, 500000);      /* microseconds by default */
    assert_int_equal(p->thinktime_iotime_ns, 2000000000); /* seconds by default (is_seconds) */
    assert_int_equal(p->thinktime_blocks_type, FIO_THINKTIME_ISSUE);
    assert_int_equal(r->thinktime_blocks_type, FIO_THINKTIME_COMPLETE);
    assert_int_equal(r->random_generator, FIO_RAND_GEN_LFSR);
    assert_int_equal(p->random_generator, FIO_RAND_GEN_TAUSWORTHE);
    const struct workload_job *zn = job_named(&jf, "zones");
    assert_int_equal(zn->random_distribution, FIO_DIST_ZONED);
    assert_int_equal(zn->n_zones[FIO_DDIR_READ], 3);
    assert_int_equal(zn->n_zones[FIO_DDIR_WRITE], 1);
    assert_int_equal(zn->zones[FIO_DDIR_WRITE][0].size_pct, 50);
    assert_int_equal(p->random_distribution, FIO_DIST_ZIPF);
    assert_true(fabs(p->dist_param - 0.8) < 1e-12);
    assert_true(p->dist_center < 0);
    assert_int_equal(p->randseed, 0x1234);
    assert_false(p->randrepeat);
    assert_true(p->write_lat_log);
    assert_string_equal(p->lat_log, "paced");
    assert_true(p->write_iops_log);
    assert_string_equal(p->iops_log, "");
    assert_false(p->write_bw_log);
    assert_int_equal(p->log_avg_msec, 500);
    assert_string_equal(p->write_iolog, "paced.iolog");
    assert_true(p->slat_percentiles);
    assert_int_equal(r->rate_iops[FIO_DDIR_READ], 0);
    assert_int_equal(r->rate_iops[FIO_DDIR_WRITE], 250);
    assert_int_equal(r->random_distribution, FIO_DIST_PARETO);
    assert_true(fabs(r->dist_param - 0.3) < 1e-12);
    assert_true(fabs(r->dist_center - 0.25) < 1e-12);
    assert_false(r->write_lat_log);
    /* no-effect options from [global], each listed once */
    assert_int_equal(jf.n_ignored, 7);
    assert_true(is_ignored(&jf, "clustername"));
    assert_true(is_ignored(&jf, "clientname"));
    assert_true(is_ignored(&jf, "pool"));
    assert_true(is_ignored(&jf, "description"));
    assert_true(is_ignored(&jf, "invalidate"));
    assert_true(is_ignored(&jf, "busy_poll"));
    assert_true(is_ignored(&jf, "verify"));
    fiojob_free(&jf);
}

/* ---- malformed files ------------------------------------------------------ */

static void test_err_unknown_option(void **state)
{
    struct fio_jobfile jf;
    struct sim_err err = { 0 };
    int rc = fiojob_parse_file(DATA "bad_unknown.fio", NULL, &jf, &err);
    assert_int_equal(rc, -EINVAL);
    assert_string_equal(err.msg,
                        "tests/data/fio/bad_unknown.fio:5: unknown option 'iodepht': fio has no such option "
                        "(did you mean 'iodepth'?)");
    assert_int_equal(jf.n_jobs, 0);
    assert_null(jf.global_options);

    parse_str_err("[j]\nfrobnicate=1\n", &err);
    assert_string_equal(err.msg, "t.fio:2: unknown option 'frobnicate': fio has no such option");
}

static void test_err_bad_values(void **state)
{
    static const struct { const char *text, *msg; } cases[] = {
        { "[j]\niodepth=0\n", "t.fio:2: iodepth: value '0' out of range [1, 65536]" },
        { "[j]\nrwmixread=150\n", "t.fio:2: rwmixread: value '150' out of range [0, 100]" },
        { "[j]\nsize=-1g\n", "t.fio:2: size: value '-1g' must not be negative" },
        { "[j]\nbs=4x\n", "t.fio:2: bs: unknown unit 'x' in '4x' (use k/m/g/t/p, ki/mi/..., b or %)" },
        { "[j]\nbs=1.5k\n", "t.fio:2: bs: bad number '1.5k' (fractional sizes are not supported)" },
        { "[j]\nbs=0x10k\n", "t.fio:2: bs: bad number '0x10k' (hexadecimal values take no suffix)" },
        { "[j]\nruntime=5y\n", "t.fio:2: runtime: unknown time unit 'y' in '5y' (use d/h/m/s/ms/us)" },
        { "[j]\nnumjobs=abc\n", "t.fio:2: numjobs: bad number 'abc'" },
        { "[j]\ndirect=2\n", "t.fio:2: direct: bad boolean '2' (use 0/1 or true/false)" },
        { "[j]\niodepth\n", "t.fio:2: iodepth: requires a value (iodepth=...)" },
        { "[j]\nkb_base=512\n", "t.fio:2: kb_base: value '512' must be 1000 or 1024" },
        { "[j]\nsize=99999999999999999999\n", "t.fio:2: size: value '99999999999999999999' too large" },
        { "[j]\nsize=20000000p\n", "t.fio:2: size: value '20000000p' too large" },
        { "[j]\nloops=2\n", "t.fio:2: fio option loops is not modelled by cephsim (it would change: the job "
                             "repeated that many times)" },
        { "[j]\nverify=md5\n", "t.fio:2: fio option verify is not modelled by cephsim (it would change: the "
                               "written blocks read back and checked; only verify=0 or none is accepted)" },
        { "[j]\nread_iolog=x.log\n", "t.fio:2: fio option read_iolog is not modelled by cephsim (it would change: "
                                     "the I/Os issued, taken from the log instead of rw= and bs=: replay a log with "
                                     "`cephsim replay LOG --scenario SCENARIO --mode closed --iodepth N`)" },
        { "[j]\nbs=1k,2k,3k,4k\n", "t.fio:2: bs: more than three comma-separated values" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct sim_err err;
        parse_str_err(cases[i].text, &err);
        if (strcmp(err.msg, cases[i].msg))
            fail_msg("case %zu: got \"%s\", want \"%s\"", i, err.msg, cases[i].msg);
    }
}

static void test_err_include_cycle(void **state)
{
    struct fio_jobfile jf;
    struct sim_err err = { 0 };
    int rc = fiojob_parse_file(DATA "bad_include_cycle.fio", NULL, &jf, &err);
    assert_int_equal(rc, -ELOOP);
    assert_string_equal(err.msg, "tests/data/fio/inc/cycle_b.fio:2: include cycle: "
                                 "'tests/data/fio/inc/cycle_a.fio' is already being read");
    assert_int_equal(jf.n_jobs, 0);

    /* a file including itself */
    char dir[] = "/tmp/fiojob_test_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[256];
    snprintf(path, sizeof path, "%s/self.fio", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("[j]\ninclude self.fio\n", f);
    fclose(f);
    rc = fiojob_parse_file(path, NULL, &jf, &err);
    assert_int_equal(rc, -ELOOP);
    assert_non_null(strstr(err.msg, "self.fio:2: include cycle"));
    remove(path);
    rmdir(dir);
}

static void test_err_include_missing_and_nested(void **state)
{
    struct fio_jobfile jf;
    struct sim_err err = { 0 };
    int rc = fiojob_parse_file(DATA "bad_include_missing.fio", NULL, &jf, &err);
    assert_int_equal(rc, -ENOENT);
    assert_string_equal(err.msg, "tests/data/fio/bad_include_missing.fio:3: include "
                                 "'inc/does_not_exist.fio': cannot open "
                                 "'tests/data/fio/inc/does_not_exist.fio': No such file or directory");
    /* a bad value inside an included file names that file and its line */
    rc = fiojob_parse_file(DATA "bad_include_value.fio", NULL, &jf, &err);
    assert_int_equal(rc, -EINVAL);
    assert_string_equal(err.msg, "tests/data/fio/inc/bad_value.fio:3: rwmixread: value '150' "
                                 "out of range [0, 100]");
    /* the job file itself missing */
    rc = fiojob_parse_file(DATA "nope.fio", NULL, &jf, &err);
    assert_int_equal(rc, -ENOENT);
    assert_non_null(strstr(err.msg, "tests/data/fio/nope.fio: cannot read job file"));
}

static void test_err_structure(void **state)
{
    struct sim_err err;
    parse_str_err("; leading comment\nbs=4k\n[j]\n", &err);
    assert_string_equal(err.msg, "t.fio:2: option 'bs' outside of a [] job section");
    parse_str_err("[j]\nrw=write\n[unterminated\niodepth=2\n", &err);
    assert_string_equal(err.msg, "t.fio:3: unterminated section header '[unterminated'");
    parse_str_err("[j] x\n", &err);
    assert_string_equal(err.msg, "t.fio:1: unexpected text after ']' in '[j] x'");
    parse_str_err("[]\n", &err);
    assert_string_equal(err.msg, "t.fio:1: empty section name");
    parse_str_err("include x.fio\n[j]\n", &err);
    assert_string_equal(err.msg, "t.fio:1: include outside of a [] job section");
    parse_str_err("[global]\nbs=4k\n", &err);
    assert_string_equal(err.msg, "t.fio: no job sections (only [global] or nothing)");
    parse_str_err("", &err);
    /* included files cannot open sections (fio: "No new sections in included files") */
    parse_str_err("[j]\ninclude tests/data/fio/rbd.fio\n", &err);
    assert_string_equal(err.msg,
                        "tests/data/fio/rbd.fio:5: no [] sections allowed in an included file");
}

/* ---- string input, --set, text -------------------------------------------- */

static void test_parse_string_base_dir(void **state)
{
    struct fio_jobfile jf;
    struct sim_err err = { 0 };
    int rc = fiojob_parse_string("[global]\ninclude inc/engine.fio\n[inline]\ninclude deep.fio\n",
                                 "scen.json:workload.fio", DATA, NULL, &jf, &err);
    assert_int_equal(rc, -ENOENT); /* deep.fio is under inc/, not base_dir */
    assert_non_null(strstr(err.msg, "scen.json:workload.fio:4: include 'deep.fio'"));
    rc = fiojob_parse_string("[global]\ninclude inc/engine.fio\n[inline]\ninclude inc/deep.fio\n",
                             "scen.json:workload.fio", DATA, NULL, &jf, &err);
    assert_int_equal(rc, 0);
    assert_string_equal(jf.jobs[0].ioengine, "rbd");
    assert_int_equal(jf.jobs[0].iodepth, 16);
    fiojob_free(&jf);
}

static void test_set_override(void **state)
{
    struct fio_jobfile jf;
    struct sim_err err = { 0 };
    parse_ok(DATA "multi_global.fio", &jf);
    assert_int_equal(fiojob_set(&jf, "iodepth", "128", &err), 0);
    for (int i = 0; i < jf.n_jobs; i++) {
        assert_int_equal(jf.jobs[i].iodepth, 128);
        assert_string_equal(opt_str(jf.job_options[i], "iodepth"), "128");
    }
    assert_int_equal(fiojob_set(&jf, "runtime", "2m", &err), 0);
    assert_int_equal(jf.jobs[2].runtime_ns, 120 * SEC);
    assert_int_equal(fiojob_set(&jf, "time_based", NULL, &err), 0);
    assert_true(jf.jobs[1].time_based);
    assert_int_equal(fiojob_set(&jf, "thread", NULL, &err), 0);
    assert_true(is_ignored(&jf, "thread"));
    assert_int_equal(fiojob_set(&jf, "new_group", "1", &err), 0);
    assert_int_equal(jf.jobs[2].groupid, 2);

    /* errors name --set fio.<key> and leave the jobs untouched */
    assert_int_equal(fiojob_set(&jf, "iodepth", "0", &err), -EINVAL);
    assert_string_equal(err.msg, "--set fio.iodepth: value '0' out of range [1, 65536]");
    assert_int_equal(jf.jobs[0].iodepth, 128);
    assert_int_equal(fiojob_set(&jf, "iodeph", "4", &err), -EINVAL);
    assert_string_equal(err.msg, "--set fio.iodeph: unknown option 'iodeph': fio has no such option (did you mean "
                                 "'iodepth'?)");
    char *huge = calloc(5000, 1);
    memset(huge, '7', 4999);
    assert_int_equal(fiojob_set(&jf, "description", huge, &err), -EINVAL);
    assert_string_equal(err.msg, "--set fio.description: value longer than 4095 characters");
    free(huge);
    assert_int_equal(fiojob_set(&jf, "rw", "trim", &err), -ENOTSUP);
    assert_non_null(strstr(err.msg, "--set fio.rw: 'trim' is not supported"));
    assert_int_equal(jf.jobs[0].rw, FIO_RW_READ);
    fiojob_free(&jf);
}

static void test_to_text_roundtrip(void **state)
{
    static const char *files[] = { "rbd.fio",          "seed_seqwrite.fio", "units.fio",
                                   "multi_global.fio", "bssplit.fio",       "groups.fio",
                                   "flags_comments.fio", "misc.fio" };
    for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
        char path[256];
        struct fio_jobfile a, b;
        struct sim_err err = { 0 };
        snprintf(path, sizeof path, DATA "%s", files[f]);
        parse_ok(path, &a);
        assert_int_equal(fiojob_set(&a, "percentile_list", "50:99.5:99.99", &err), 0);
        char *t1 = fiojob_to_text(&a);
        int rc = fiojob_parse_string(t1, "normalized.fio", NULL, NULL, &b, &err);
        if (rc)
            fail_msg("%s: normalized text does not parse: %s\n%s", files[f], err.msg, t1);
        char *t2 = fiojob_to_text(&b);
        /* a fixpoint (the ignored-options comment before the first job is not re-created) */
        assert_non_null(strstr(t1, "\n["));
        assert_non_null(strstr(t2, "\n["));
        assert_string_equal(strstr(t1, "\n["), strstr(t2, "\n["));
        assert_int_equal(a.n_jobs, b.n_jobs);
        for (int i = 0; i < a.n_jobs; i++) {
            struct workload_job *x = &a.jobs[i], *y = &b.jobs[i];
            assert_string_equal(x->name, y->name);
            assert_int_equal(x->rw, y->rw);
            assert_int_equal(x->rw_seq_add, y->rw_seq_add);
            assert_int_equal(x->bs[0], y->bs[0]);
            assert_int_equal(x->bs[1], y->bs[1]);
            assert_int_equal(x->iodepth, y->iodepth);
            assert_int_equal(x->size, y->size);
            assert_int_equal(x->runtime_ns, y->runtime_ns);
            assert_int_equal(x->thinktime_ns, y->thinktime_ns);
            assert_int_equal(x->thinktime_blocks, y->thinktime_blocks);
            assert_int_equal(x->thinktime_blocks_set, y->thinktime_blocks_set);
            assert_int_equal(x->thinktime_blocks_type, y->thinktime_blocks_type);
            assert_int_equal(x->thinktime_spin_ns, y->thinktime_spin_ns);
            assert_int_equal(x->thinktime_iotime_ns, y->thinktime_iotime_ns);
            assert_int_equal(x->random_distribution, y->random_distribution);
            assert_memory_equal(x->n_zones, y->n_zones, sizeof x->n_zones);
            assert_memory_equal(x->zones, y->zones, sizeof x->zones);
            assert_int_equal(x->random_generator, y->random_generator);
            assert_int_equal(x->randseed_set, y->randseed_set);
            if (x->randseed_set)
                assert_int_equal(x->randseed, y->randseed);
            assert_int_equal(x->randrepeat, y->randrepeat);
            assert_int_equal(x->norandommap, y->norandommap);
            assert_int_equal(x->startdelay_max_ns, y->startdelay_max_ns);
            assert_int_equal(x->groupid, y->groupid);
            assert_int_equal(x->n_bssplit[1], y->n_bssplit[1]);
            assert_memory_equal(x->bssplit, y->bssplit, sizeof x->bssplit);
            assert_int_equal(x->n_percentiles, 3);
            assert_int_equal(y->n_percentiles, 3);
        }
        free(t1);
        free(t2);
        fiojob_free(&a);
        fiojob_free(&b);
    }
}

static void test_to_text_content(void **state)
{
    struct fio_jobfile jf;
    parse_ok(DATA "rbd.fio", &jf);
    char *t = fiojob_to_text(&jf);
    assert_non_null(strstr(t, "\n[rbd_iodepth32]\n"));
    assert_non_null(strstr(t, "\nioengine=rbd\n"));
    assert_non_null(strstr(t, "\nrw=randwrite\n"));
    assert_non_null(strstr(t, "\nbs=4k,4k\n"));
    assert_non_null(strstr(t, "\niodepth=32\n"));
    assert_null(strstr(t, "[global]"));
    free(t);
    fiojob_free(&jf);
}

/* ---- real captures: fio command lines and fio's own "job options" -------- */

/* fio --name=x --k=v ... -> "[x]\nname=x\nk=v\n" (command-line only options dropped). */
static char *cmdline_to_jobfile(const char *cmd)
{
    char *copy = strdup(cmd), *save = NULL;
    size_t cap = strlen(cmd) * 2 + 64, len = 0;
    char *out = calloc(cap, 1);
    bool after_fio = false;
    for (char *tok = strtok_r(copy, " \t\n", &save); tok; tok = strtok_r(NULL, " \t\n", &save)) {
        if (!after_fio) {
            after_fio = !strcmp(tok, "fio");
            continue;
        }
        if (strncmp(tok, "--", 2))
            continue;
        tok += 2;
        if (!strncmp(tok, "output", 6))
            continue; /* --output, --output-format */
        char *eq = strchr(tok, '=');
        if (!strncmp(tok, "name=", 5))
            len += (size_t)snprintf(out + len, cap - len, "[%s]\n", eq + 1);
        len += (size_t)snprintf(out + len, cap - len, "%s\n", tok);
    }
    free(copy);
    return out;
}

static void test_lab_captures(void **state)
{
    DIR *d = opendir(LAB);
    if (!d)
        skip();
    int checked = 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        char cmdp[512], jsonp[512];
        snprintf(cmdp, sizeof cmdp, LAB "/%s/fio_cmd.txt", de->d_name);
        snprintf(jsonp, sizeof jsonp, LAB "/%s/fio.json", de->d_name);
        struct stat st;
        if (stat(cmdp, &st) || stat(jsonp, &st))
            continue;
        char *cmd = NULL;
        size_t len;
        struct sim_err err = { 0 };
        assert_int_equal(jsonu_slurp(cmdp, &cmd, &len, &err), 0);
        char *text = cmdline_to_jobfile(cmd);
        struct fio_jobfile jf;
        if (fiojob_parse_string(text, cmdp, NULL, NULL, &jf, &err))
            fail_msg("%s: %s", cmdp, err.msg);
        char *json_text = NULL;
        assert_int_equal(jsonu_slurp(jsonp, &json_text, &len, &err), 0);
        cJSON *fio = cJSON_Parse(json_text);
        free(json_text);
        assert_non_null(fio);
        const cJSON *jobs = cJSON_GetObjectItemCaseSensitive(fio, "jobs");
        assert_int_equal(cJSON_GetArraySize(jobs), jf.n_jobs);
        const cJSON *j0 = cJSON_GetArrayItem(jobs, 0);
        const cJSON *opts = cJSON_GetObjectItemCaseSensitive(j0, "job options");
        if (!cJSON_Compare(opts, jf.job_options[0], true)) {
            char *a = cJSON_PrintUnformatted(opts), *b = cJSON_PrintUnformatted(jf.job_options[0]);
            print_error("%s: job options differ:\nfio:  %s\nours: %s\n", de->d_name, a, b);
            fail();
        }
        assert_string_equal(jf.jobs[0].name,
                            cJSON_GetObjectItemCaseSensitive(j0, "jobname")->valuestring);
        assert_int_equal(jf.jobs[0].groupid,
                         cJSON_GetObjectItemCaseSensitive(j0, "groupid")->valueint);
        assert_string_equal(jf.jobs[0].ioengine, "rbd");
        assert_int_equal(jf.jobs[0].runtime_ns, 20 * SEC);
        assert_true(jf.jobs[0].time_based);
        assert_true(jf.jobs[0].iodepth == 1 || jf.jobs[0].iodepth == 128);
        assert_true(jf.jobs[0].rw == FIO_RW_WRITE || jf.jobs[0].rw == FIO_RW_RANDWRITE);
        assert_true(is_ignored(&jf, "invalidate"));
        cJSON_Delete(fio);
        fiojob_free(&jf);
        free(text);
        free(cmd);
        checked++;
    }
    closedir(d);
    if (!checked)
        skip();
}

/* ---- fio's vocabulary ------------------------------------------------------ */

static const char *no_vars(void *ctx, const char *name)
{
    return NULL;
}

/* Every name fio 3.33 has is known: never "unknown option", for general
   options and for engine options under their own engine. */
static void test_every_fio_option_known(void **state)
{
    int unknown = 0;
    for (int i = 0; i < fio_optinfo_count; i++) {
        const struct fio_optinfo *o = &fio_optinfo_table[i];
        char text[512], eng[64] = "";
        if (o->engines)
            snprintf(eng, sizeof eng, "ioengine=%.*s\n", (int)strcspn(o->engines, ","), o->engines);
        snprintf(text, sizeof text, "[j]\n%s%s=1\n", eng, o->name);
        struct fio_jobfile jf;
        struct sim_err err = { 0 };
        if (fiojob_parse_string(text, "t.fio", NULL, NULL, &jf, &err) == 0) {
            fiojob_free(&jf);
            continue;
        }
        if (strstr(err.msg, "unknown option")) {
            print_error("%s\n", err.msg);
            unknown++;
        }
    }
    assert_int_equal(unknown, 0);
    assert_true(fio_optinfo_count > 300);
}

static void test_vocabulary_messages(void **state)
{
    static const struct { const char *text, *msg; } cases[] = {
        /* fio has it: not modelled, with what it would change */
        { "[j]\nsync=1\n", "t.fio:2: fio option sync is not modelled by cephsim (it would change: O_SYNC writes: "
                           "a cache flush or FUA with every write)" },
        { "[j]\nrate=10m\n", "t.fio:2: fio option rate is not modelled by cephsim (it would change: a bandwidth "
                             "cap; cephsim paces by rate_iops only)" },
        /* fio's own help when no reason is written down */
        { "[j]\ncreate_on_open=1\nfadvise_hint=1\n",
          "t.fio:3: fio option fadvise_hint is not modelled by cephsim (it would change: Use fadvise() to advise the "
          "kernel on IO pattern)" },
        /* an engine's option, named as that engine's, whatever the order */
        { "[j]\nport=8080\nioengine=net\n", "t.fio:2: ioengine=net is not modelled by cephsim (fio's rbd engine and "
                                           "block engines on a mapped /dev/rbdN are), nor its option port" },
        { "[j]\nioengine=rbd\nport=8080\n", "t.fio:3: option 'port' belongs to fio's libhdfs,librpma_apm_client,"
                                           "librpma_apm_server,librpma_gpspm_client,librpma_gpspm_server,net,netsplice,"
                                           "rdma engines, not to ioengine=rbd (fio itself would refuse it: \"Bad option\")" },
        { "[j]\npool=rbd\nioengine=libaio\n", "t.fio:2: option 'pool' belongs to fio's dfs,rados,rbd engines, not "
                                             "to ioengine=libaio (fio itself would refuse it: \"Bad option\")" },
        { "[j]\nioengine=libaio\nuserspace_reap\n", "t.fio:3: fio's libaio engine option userspace_reap is not "
                                                   "modelled by cephsim (it would change: Use alternative user-space "
                                                   "reap implementation)" },
        { "[j]\nioengine=rbd\nbusy_poll=1\n", "t.fio:3: fio's rbd engine option busy_poll=1 is not modelled by "
                                             "cephsim (fio would spin on rbd_poll_io_events instead of sleeping until "
                                             "a completion)" },
        /* fio does not have it: did-you-means from fio's names */
        { "[j]\nthreads=1\n", "t.fio:2: unknown option 'threads': fio has no such option (did you mean 'thread'?)" },
        { "[j]\nfdp=1\n", "t.fio:2: unknown option 'fdp': fio-3.42-135-gf5344384 has it, fio-3.33 (Debian 12's fio, "
                          "which cephsim follows) does not" },
        /* values */
        { "[j]\nrw=randread:-8\n", "t.fio:2: rw: value '-8' must not be negative" },
        { "[j]\nrw=${FIO_RW}\n", "t.fio:2: rw: missing value (read, write, randread, randwrite, rw, randrw) "
                                 "(${FIO_RW} is not set: fio substitutes an empty value)" },
        { "[j]\nsize=5*1024*$mb_memory\n", "t.fio:2: size: '5*1024*$mb_memory': fio's arithmetic expressions are "
                                            "not supported by cephsim (give the value)" },
        { "[j]\nrandom_distribution=sequence:2,0,1\n", "t.fio:2: random_distribution: 'sequence' is not a "
                                                       "distribution of fio-3.33 (Debian 12's fio, which cephsim "
                                                       "follows; a later fio added it): random, zipf, pareto, normal, "
                                                       "zoned, zoned_abs" },
        { "[j]\niodepth_batch=8\nioengine=libaio\n", "t.fio:2: fio option iodepth_batch is not modelled by cephsim "
                                                 "for ioengine=libaio (its commit would hold I/Os until 8 are queued); "
                                                 "only the rbd engine, which has each I/O in flight when queued, takes it" },
        { "[j]\niodepth_low=4\n", "t.fio:2: fio option iodepth_low is not modelled by cephsim (fio would let the "
                                  "queue drain to iodepth_low before refilling it); only iodepth_low=0, fio's default, "
                                  "is accepted" },
    };
    struct fiojob_vars vars = { no_vars, NULL };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct fio_jobfile jf;
        struct sim_err err = { 0 };
        assert_true(fiojob_parse_string(cases[i].text, "t.fio", NULL, &vars, &jf, &err) < 0);
        if (strcmp(err.msg, cases[i].msg))
            fail_msg("case %zu: got \"%s\", want \"%s\"", i, err.msg, cases[i].msg);
    }
    /* harmless ones are accepted and listed as ignored; zoned distributions parse */
    struct fio_jobfile jf;
    parse_str_ok("[j]\nioengine=rbd\nbusy_poll=0\nnumjobs=1\nthread\nbuffer_pattern=0xdeadbeef\niodepth_batch=16\n"
                 "random_distribution=zoned:50/5:30/15:20/\n", &jf);
    assert_true(is_ignored(&jf, "busy_poll"));
    assert_true(is_ignored(&jf, "buffer_pattern"));
    assert_int_equal(jf.jobs[0].n_zones[0], 3);
    assert_int_equal(jf.jobs[0].zones[0][2].size_pct, 80);
    fiojob_free(&jf);
    /* fio's backwards read: a negative sequential skip, written back as given */
    parse_str_ok("[j]\nrw=read:-8k\n", &jf);
    assert_int_equal(jf.jobs[0].rw_seq_add, -8192);
    char *t = fiojob_to_text(&jf);
    assert_non_null(strstr(t, "\nrw=read:-8k\n"));
    free(t);
    fiojob_free(&jf);
}

/* A block engine on a mapped RBD device is the kernel client; anything else is not. */
static void test_kernel_client(void **state)
{
    static const struct { const char *text; bool krbd; } cases[] = {
        { "[j]\nioengine=libaio\nfilename=/dev/rbd0\n", true },
        { "[j]\nioengine=io_uring\nfilename=/dev/rbd/rbd/vol1\n", true },
        { "[j]\nioengine=psync\nfilename=/dev/rbd12\n", true },
        { "[j]\nioengine=libaio\nfilename=/dev/rbd0p1x\n", false },
        { "[j]\nioengine=libaio\nfilename=/dev/nvme0n1\n", false },
        { "[j]\nioengine=rbd\nfilename=/dev/rbd0\n", false },
        { "[j]\nioengine=libaio\nfilename=/dev/rbd0:/dev/rbd1\n", false },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct fio_jobfile jf;
        parse_str_ok(cases[i].text, &jf);
        if (jf.jobs[0].kernel_client != cases[i].krbd)
            fail_msg("case %zu: kernel_client %d", i, jf.jobs[0].kernel_client);
        fiojob_free(&jf);
    }
    struct fio_jobfile jf;
    struct sim_err err = { 0 };
    parse_str_ok("[j]\nioengine=libaio\nfilename=/dev/rbd0\n", &jf);
    assert_int_equal(fiojob_set(&jf, "ioengine", "rbd", &err), 0);
    assert_false(jf.jobs[0].kernel_client);
    fiojob_free(&jf);
}

/* Job names that cannot be a section header survive fiojob_to_text. */
static void test_to_text_names(void **state)
{
    static const char *const names[] = { "", "global-ish", "a]b", "plain" };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char text[128];
        snprintf(text, sizeof text, "[j]\nname=%s\n", names[i]);
        struct fio_jobfile a, b;
        struct sim_err err = { 0 };
        parse_str_ok(text, &a);
        char *t = fiojob_to_text(&a);
        if (fiojob_parse_string(t, "n.fio", NULL, NULL, &b, &err))
            fail_msg("name '%s': %s\n%s", names[i], err.msg, t);
        assert_int_equal(b.n_jobs, 1);
        assert_string_equal(b.jobs[0].name, names[i]);
        free(t);
        fiojob_free(&a);
        fiojob_free(&b);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rbd_example),
        cmocka_unit_test(test_seed_report_job),
        cmocka_unit_test(test_includes_nested),
        cmocka_unit_test(test_bare_flags_and_comments),
        cmocka_unit_test(test_units),
        cmocka_unit_test(test_size_suffix_table),
        cmocka_unit_test(test_multiple_globals),
        cmocka_unit_test(test_bssplit),
        cmocka_unit_test(test_var_expansion),
        cmocka_unit_test(test_rw_modes),
        cmocka_unit_test(test_rwmix_consistent),
        cmocka_unit_test(test_percentiles_and_distribution),
        cmocka_unit_test(test_groups),
        cmocka_unit_test(test_size_percent),
        cmocka_unit_test(test_misc_options),
        cmocka_unit_test(test_err_unknown_option),
        cmocka_unit_test(test_err_bad_values),
        cmocka_unit_test(test_err_include_cycle),
        cmocka_unit_test(test_err_include_missing_and_nested),
        cmocka_unit_test(test_err_structure),
        cmocka_unit_test(test_parse_string_base_dir),
        cmocka_unit_test(test_set_override),
        cmocka_unit_test(test_to_text_roundtrip),
        cmocka_unit_test(test_every_fio_option_known),
        cmocka_unit_test(test_vocabulary_messages),
        cmocka_unit_test(test_kernel_client),
        cmocka_unit_test(test_to_text_names),
        cmocka_unit_test(test_to_text_content),
        cmocka_unit_test(test_lab_captures),
    };
    return cmocka_run_group_tests_name("fiojob", tests, NULL, NULL);
}
