/*
 * test_param.c - declarative parameter tables (sim/param.c): defaults, strict
 * JSON binding (unknown keys with did-you-mean, type and range errors naming
 * the file and JSON path, enum choices), --set text for every type, and the
 * resolved-parameter JSON round trip.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>

#include "param.h"
#include "paramjson.h"

struct osd_cfg {
    int64_t shards;
    double latency_us;
    bool sync_submit;
    char device[PARAM_STR_MAX];
    int queue;
    int64_t msg_cap;
};

static const char *const queue_choices[] = {"wpq", "mclock_scheduler", NULL};

static const struct param_def osd_params[] = {
    {.name = "osd_op_num_shards", .type = PARAM_INT, .offset = offsetof(struct osd_cfg, shards),
     .min = 1, .max = 64, .def = 8, .unit = "count", .help = "op shards (osd_op_num_shards_ssd)"},
    {.name = "ms_latency", .type = PARAM_DOUBLE, .offset = offsetof(struct osd_cfg, latency_us),
     .min = 0, .max = 1e6, .def = 12.5, .unit = "us", .help = "messenger latency"},
    {.name = "bluestore_sync_submit_transaction", .type = PARAM_BOOL,
     .offset = offsetof(struct osd_cfg, sync_submit), .def = 0, .help = "submit kv inline"},
    {.name = "device", .type = PARAM_STRING, .offset = offsetof(struct osd_cfg, device),
     .def_str = "nvme0n1", .help = "block device name"},
    {.name = "osd_op_queue", .type = PARAM_ENUM, .offset = offsetof(struct osd_cfg, queue),
     .choices = queue_choices, .def = 1, .help = "op scheduler"},
    {.name = "osd_client_message_cap", .type = PARAM_INT, .offset = offsetof(struct osd_cfg, msg_cap),
     .min = 0, .max = 1e9, .def = 256, .unit = "count", .help = "client messages in flight"},
    PARAM_END,
};

#define FILE_ "osd.json"
#define PATH "profile.osd"

static void defaults(struct osd_cfg *c)
{
    memset(c, 0xa5, sizeof *c); /* garbage everywhere first */
    param_set_defaults(osd_params, c);
}

/* Bind JSON text; returns rc with err filled. */
static int bind_text(struct osd_cfg *c, const char *text, const char *const *extra, struct sim_err *err)
{
    cJSON *j = cJSON_Parse(text);
    if (!j)
        fail_msg("test JSON does not parse: %s", text);
    memset(err, 0, sizeof *err);
    int rc = paramjson_bind(osd_params, c, j, extra, FILE_, PATH, err);
    cJSON_Delete(j);
    return rc;
}

/* rc must be want_rc and the message exactly want (one line, names file and path). */
static void expect_bind_error(const char *text, int want_rc, const char *want)
{
    struct osd_cfg c;
    struct sim_err err;
    defaults(&c);
    int rc = bind_text(&c, text, NULL, &err);
    if (rc != want_rc || strcmp(err.msg, want))
        fail_msg("%s: got %d '%s', want %d '%s'", text, rc, err.msg, want_rc, want);
    assert_int_equal(err.code, rc);
}

static void test_param_count_and_find(void **state)
{
    assert_int_equal(param_count(osd_params), 6);
    assert_ptr_equal(param_find(osd_params, "osd_op_queue"), &osd_params[4]);
    assert_null(param_find(osd_params, "osd_op_queu"));
    assert_null(param_find(osd_params, ""));
}

static void test_param_defaults_set_every_type(void **state)
{
    struct osd_cfg c;
    defaults(&c);
    assert_int_equal(c.shards, 8);
    assert_true(c.latency_us == 12.5);
    assert_false(c.sync_submit);
    assert_string_equal(c.device, "nvme0n1");
    assert_int_equal(c.queue, 1);
    assert_int_equal(c.msg_cap, 256);
}

static void test_param_bind_json_sets_values(void **state)
{
    struct osd_cfg c;
    struct sim_err err;
    defaults(&c);
    const char *text = "{\"osd_op_num_shards\": 16, \"ms_latency\": 0.25, "
                       "\"bluestore_sync_submit_transaction\": true, \"device\": \"sdb\", "
                       "\"osd_op_queue\": \"wpq\"}";
    assert_int_equal(bind_text(&c, text, NULL, &err), 0);
    assert_int_equal(c.shards, 16);
    assert_true(c.latency_us == 0.25);
    assert_true(c.sync_submit);
    assert_string_equal(c.device, "sdb");
    assert_int_equal(c.queue, 0);
    assert_int_equal(c.msg_cap, 256); /* absent: default kept */
    /* range bounds are inclusive */
    assert_int_equal(bind_text(&c, "{\"osd_op_num_shards\": 1, \"ms_latency\": 1e6}", NULL, &err), 0);
    assert_int_equal(c.shards, 1);
    assert_int_equal(bind_text(&c, "{\"osd_op_num_shards\": 64, \"ms_latency\": 0}", NULL, &err), 0);
    assert_int_equal(c.shards, 64);
    assert_true(c.latency_us == 0);
    /* an integral number written as a float is an integer */
    assert_int_equal(bind_text(&c, "{\"osd_op_num_shards\": 32.0}", NULL, &err), 0);
    assert_int_equal(c.shards, 32);
}

static void test_param_bind_unknown_key_did_you_mean(void **state)
{
    expect_bind_error("{\"osd_op_num_shard\": 4}", -EINVAL,
                      FILE_ ": " PATH ".osd_op_num_shard: unknown key (did you mean 'osd_op_num_shards'?)");
    expect_bind_error("{\"osd_op_num_shards\": 4, \"zzz\": 1}", -EINVAL,
                      FILE_ ": " PATH ".zzz: unknown key");
    /* extra keys are skipped, and count as candidates for the suggestion */
    struct osd_cfg c;
    struct sim_err err;
    defaults(&c);
    const char *const extra[] = {"hw_profile", NULL};
    assert_int_equal(bind_text(&c, "{\"hw_profile\": {\"x\": 1}, \"osd_op_num_shards\": 2}", extra, &err), 0);
    assert_int_equal(c.shards, 2);
    assert_int_equal(bind_text(&c, "{\"hw_profil\": 1}", extra, &err), -EINVAL);
    assert_string_equal(err.msg, FILE_ ": " PATH ".hw_profil: unknown key (did you mean 'hw_profile'?)");
    /* at the top of a file the path is the key alone */
    cJSON *j = cJSON_Parse("{\"devise\": \"sda\"}");
    assert_int_equal(paramjson_bind(osd_params, &c, j, NULL, "x.json", "", &err), -EINVAL);
    assert_string_equal(err.msg, "x.json: devise: unknown key (did you mean 'device'?)");
    cJSON_Delete(j);
}

static void test_param_bind_type_errors(void **state)
{
    expect_bind_error("{\"osd_op_num_shards\": 2.5}", -EINVAL,
                      FILE_ ": " PATH ".osd_op_num_shards: expected an integer");
    expect_bind_error("{\"osd_op_num_shards\": \"4\"}", -EINVAL,
                      FILE_ ": " PATH ".osd_op_num_shards: expected an integer");
    expect_bind_error("{\"ms_latency\": \"fast\"}", -EINVAL, FILE_ ": " PATH ".ms_latency: expected a number");
    expect_bind_error("{\"ms_latency\": null}", -EINVAL, FILE_ ": " PATH ".ms_latency: expected a number");
    expect_bind_error("{\"bluestore_sync_submit_transaction\": 1}", -EINVAL,
                      FILE_ ": " PATH ".bluestore_sync_submit_transaction: expected true or false");
    expect_bind_error("{\"device\": 5}", -EINVAL, FILE_ ": " PATH ".device: expected a string");
    expect_bind_error("{\"osd_op_queue\": 0}", -EINVAL, FILE_ ": " PATH ".osd_op_queue: expected a string");
    expect_bind_error("[1, 2]", -EINVAL, FILE_ ": " PATH ": expected an object");
    char text[256];
    snprintf(text, sizeof text, "{\"device\": \"%064d\"}", 0); /* 64 characters: one too many */
    expect_bind_error(text, -EINVAL, FILE_ ": " PATH ".device: string too long (at most 63 characters)");
    /* 63 characters fit */
    struct osd_cfg c;
    struct sim_err err;
    defaults(&c);
    snprintf(text, sizeof text, "{\"device\": \"%063d\"}", 0);
    assert_int_equal(bind_text(&c, text, NULL, &err), 0);
    assert_int_equal(strlen(c.device), 63);
}

static void test_param_bind_range_errors_name_file_and_path(void **state)
{
    expect_bind_error("{\"osd_op_num_shards\": 0}", -ERANGE,
                      FILE_ ": " PATH ".osd_op_num_shards: 0 is out of range [1, 64] count");
    expect_bind_error("{\"osd_op_num_shards\": 65}", -ERANGE,
                      FILE_ ": " PATH ".osd_op_num_shards: 65 is out of range [1, 64] count");
    expect_bind_error("{\"ms_latency\": -0.5}", -ERANGE,
                      FILE_ ": " PATH ".ms_latency: -0.5 is out of range [0, 1000000] us");
    /* the first bad key fails the bind */
    struct osd_cfg c;
    struct sim_err err;
    defaults(&c);
    assert_int_equal(bind_text(&c, "{\"osd_op_num_shards\": 100, \"ms_latency\": 1}", NULL, &err), -ERANGE);
    assert_int_equal(c.shards, 8); /* the rejected value was not stored */
}

static void test_param_enum_bad_value_lists_choices(void **state)
{
    expect_bind_error("{\"osd_op_queue\": \"wqp\"}", -EINVAL,
                      FILE_ ": " PATH ".osd_op_queue: 'wqp' is not one of wpq, mclock_scheduler "
                      "(did you mean 'wpq'?)");
    expect_bind_error("{\"osd_op_queue\": \"fifo\"}", -EINVAL,
                      FILE_ ": " PATH ".osd_op_queue: 'fifo' is not one of wpq, mclock_scheduler");
}

/* --set: text forms of every type, checked like JSON. */
static void test_param_set_text_each_type(void **state)
{
    struct osd_cfg c;
    struct sim_err err = {0};
    defaults(&c);
    const struct param_def *shards = param_find(osd_params, "osd_op_num_shards");
    const struct param_def *lat = param_find(osd_params, "ms_latency");
    const struct param_def *sync = param_find(osd_params, "bluestore_sync_submit_transaction");
    const struct param_def *dev = param_find(osd_params, "device");
    const struct param_def *q = param_find(osd_params, "osd_op_queue");
    const struct param_def *cap = param_find(osd_params, "osd_client_message_cap");
    const char *file = "--set";

    assert_int_equal(param_set_text(shards, &c, "16", file, "osd.osd_op_num_shards", &err), 0);
    assert_int_equal(c.shards, 16);
    assert_int_equal(param_set_text(cap, &c, "1e6", file, "osd.osd_client_message_cap", &err), 0);
    assert_int_equal(c.msg_cap, 1000000);
    assert_int_equal(param_set_text(shards, &c, "1.5", file, "osd.osd_op_num_shards", &err), -EINVAL);
    assert_string_equal(err.msg, "--set: osd.osd_op_num_shards: expected an integer");
    assert_int_equal(param_set_text(shards, &c, "abc", file, "osd.osd_op_num_shards", &err), -EINVAL);
    assert_string_equal(err.msg, "--set: osd.osd_op_num_shards: 'abc' is not a number");
    assert_int_equal(param_set_text(shards, &c, "4x", file, "osd.osd_op_num_shards", &err), -EINVAL);
    assert_int_equal(param_set_text(shards, &c, "", file, "osd.osd_op_num_shards", &err), -EINVAL);
    assert_int_equal(param_set_text(shards, &c, "100", file, "osd.osd_op_num_shards", &err), -ERANGE);
    assert_string_equal(err.msg, "--set: osd.osd_op_num_shards: 100 is out of range [1, 64] count");
    assert_int_equal(c.shards, 16);

    assert_int_equal(param_set_text(lat, &c, "0.75", file, "osd.ms_latency", &err), 0);
    assert_true(c.latency_us == 0.75);
    assert_int_equal(param_set_text(lat, &c, "nan", file, "osd.ms_latency", &err), -ERANGE);
    assert_int_equal(param_set_text(lat, &c, "inf", file, "osd.ms_latency", &err), -ERANGE);
    assert_true(c.latency_us == 0.75);

    const char *const yes[] = {"true", "1"}, *const no[] = {"false", "0"};
    for (int i = 0; i < 2; i++) {
        assert_int_equal(param_set_text(sync, &c, yes[i], file, "osd.sync", &err), 0);
        assert_true(c.sync_submit);
        assert_int_equal(param_set_text(sync, &c, no[i], file, "osd.sync", &err), 0);
        assert_false(c.sync_submit);
    }
    assert_int_equal(param_set_text(sync, &c, "yes", file, "osd.sync", &err), -EINVAL);
    assert_string_equal(err.msg, "--set: osd.sync: 'yes' is not true or false");

    assert_int_equal(param_set_text(dev, &c, "nvme1n1", file, "osd.device", &err), 0);
    assert_string_equal(c.device, "nvme1n1");
    char longname[80];
    memset(longname, 'x', 70);
    longname[70] = '\0';
    assert_int_equal(param_set_text(dev, &c, longname, file, "osd.device", &err), -EINVAL);
    assert_string_equal(c.device, "nvme1n1");

    assert_int_equal(param_set_text(q, &c, "wpq", file, "osd.osd_op_queue", &err), 0);
    assert_int_equal(c.queue, 0);
    assert_int_equal(param_set_text(q, &c, "mclock", file, "osd.osd_op_queue", &err), -EINVAL);
    assert_non_null(strstr(err.msg, "'mclock' is not one of wpq, mclock_scheduler"));
    assert_int_equal(c.queue, 0);
}

/* Resolved parameters: to JSON text and back gives the same struct. */
static void test_param_to_json_round_trip(void **state)
{
    struct osd_cfg a, b;
    struct sim_err err = {0};
    defaults(&a);
    a.shards = 24;
    a.latency_us = 1234.5;
    a.sync_submit = true;
    snprintf(a.device, sizeof a.device, "%s", "dev-\"quoted\"\\");
    a.queue = 0;
    a.msg_cap = 1000000000;
    cJSON *j = cJSON_CreateObject();
    paramjson_write(osd_params, &a, j);
    /* values appear typed: enum by name, bool as bool */
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(j, "osd_op_queue")->valuestring, "wpq");
    assert_true(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(j, "bluestore_sync_submit_transaction")));
    assert_int_equal(cJSON_GetArraySize(j), param_count(osd_params));
    char *text = cJSON_PrintUnformatted(j);
    cJSON_Delete(j);
    cJSON *back = cJSON_Parse(text);
    free(text);
    assert_non_null(back);
    defaults(&b);
    assert_int_equal(paramjson_bind(osd_params, &b, back, NULL, "resolved.json", "", &err), 0);
    cJSON_Delete(back);
    assert_int_equal(b.shards, a.shards);
    assert_true(b.latency_us == a.latency_us);
    assert_int_equal(b.sync_submit, a.sync_submit);
    assert_string_equal(b.device, a.device);
    assert_int_equal(b.queue, a.queue);
    assert_int_equal(b.msg_cap, a.msg_cap);
}

/*
 * Doubles computed rather than typed (a sweep's 3 * 0.1, 1/3, 2^-30 + 1) must
 * come back bit for bit from the printed resolved parameters, or re-running a
 * run from its own record is not the same run.
 */
static void test_param_to_json_round_trip_doubles_within_print_precision(void **state)
{
    const double vals[] = {3 * 0.1, 1.0 / 3, 1 + 0x1p-30, 12.5, 1e-7 * 7};
    for (int i = 0; i < 5; i++) {
        struct osd_cfg a, b;
        struct sim_err err = {0};
        defaults(&a);
        a.latency_us = vals[i];
        cJSON *j = cJSON_CreateObject();
        paramjson_write(osd_params, &a, j);
        char *text = cJSON_PrintUnformatted(j), shown[512];
        cJSON_Delete(j);
        cJSON *back = cJSON_Parse(text);
        snprintf(shown, sizeof shown, "%s", text);
        free(text);
        defaults(&b);
        int rc = paramjson_bind(osd_params, &b, back, NULL, "resolved.json", "", &err);
        cJSON_Delete(back);
        /* cJSON prints %.15g whenever that reads back within its epsilon, so
           the round trip is exact to print precision (documented in param.h) */
        if (rc || fabs(b.latency_us - a.latency_us) > 1e-14 * fabs(a.latency_us))
            fail_msg("%.17g printed as %s reads back as %.17g", a.latency_us, shown, b.latency_us);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_param_count_and_find),
        cmocka_unit_test(test_param_defaults_set_every_type),
        cmocka_unit_test(test_param_bind_json_sets_values),
        cmocka_unit_test(test_param_bind_unknown_key_did_you_mean),
        cmocka_unit_test(test_param_bind_type_errors),
        cmocka_unit_test(test_param_bind_range_errors_name_file_and_path),
        cmocka_unit_test(test_param_enum_bad_value_lists_choices),
        cmocka_unit_test(test_param_set_text_each_type),
        cmocka_unit_test(test_param_to_json_round_trip),
        cmocka_unit_test(test_param_to_json_round_trip_doubles_within_print_precision),
    };
    return cmocka_run_group_tests_name("param", tests, NULL, NULL);
}
