/*
 * test_schema.c - scenarios/SCHEMA.md is what the parameter tables generate:
 * the documented schema cannot drift from the code.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jsonu.h"
#include "scenario.h"

static void schema_document_matches_the_tables(void **state)
{
    (void)state;
    char *gen = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&gen, &n);
    assert_non_null(f);
    scenario_print_params(f, true);
    fclose(f);
    char *doc = NULL;
    size_t len = 0;
    struct sim_err err = {0};
    assert_int_equal(jsonu_slurp("scenarios/SCHEMA.md", &doc, &len, &err), 0);
    if (len != n || memcmp(doc, gen, n) != 0)
        fail_msg("scenarios/SCHEMA.md is out of date: regenerate it with "
                 "out/bin/cephsim list-params --markdown > scenarios/SCHEMA.md");
    free(doc);
    free(gen);
}

static void schema_lists_the_paths_users_rely_on(void **state)
{
    (void)state;
    char *gen = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&gen, &n);
    scenario_print_params(f, true);
    fclose(f);
    static const char *const keys[] = {"`hosts`", "`osds_per_host`", "`max_cstate`", "`governor`", "`pg_num`",
                                       "`copied_up`", "`guard`", "`release`", "`rbd_io_scheduler`",
                                       "`osd_op_num_shards_ssd`", "`debug_osd`", "`duration_s`", "`replications`",
                                       "`write_latency_us`", "`line_rate_gbps`"};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        if (!strstr(gen, keys[i]))
            fail_msg("schema lacks %s", keys[i]);
    free(gen);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(schema_document_matches_the_tables),
        cmocka_unit_test(schema_lists_the_paths_users_rely_on),
    };
    return cmocka_run_group_tests_name("schema", tests, NULL, NULL);
}
