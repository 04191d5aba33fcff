/*
 * test_yaml.c - the YAML subset reader: structure, PyYAML's (YAML 1.1)
 * scalar types, comments, and one-line refusals with the line number.
 * Expectations are what PyYAML's yaml.safe_load gives for the same text
 * (cbt reads its files with it).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "yaml.h"

static cJSON *parse_ok(const char *text)
{
    struct sim_err err = {0};
    cJSON *j = yaml_parse(text, strlen(text), "t.yaml", &err);
    if (!j)
        fail_msg("yaml_parse: %s", err.msg);
    return j;
}

static void parse_fails(const char *text, const char *expect)
{
    struct sim_err err = {0};
    cJSON *j = yaml_parse(text, strlen(text), "t.yaml", &err);
    if (j) {
        char *s = cJSON_PrintUnformatted(j);
        fail_msg("expected an error '%s', parsed: %s", expect, s);
    }
    if (!strstr(err.msg, expect))
        fail_msg("expected '%s' in: %s", expect, err.msg);
    assert_null(strchr(err.msg, '\n'));
}

/* The parse, printed as JSON, equals want (PyYAML's json.dumps of the same text). */
static void same_as(const char *text, const char *want)
{
    cJSON *j = parse_ok(text);
    cJSON *w = cJSON_Parse(want);
    assert_non_null(w);
    if (!cJSON_Compare(j, w, true)) {
        char *s = cJSON_PrintUnformatted(j);
        fail_msg("got %s\nwant %s", s, want);
    }
    cJSON_Delete(j);
    cJSON_Delete(w);
}

static void block_structure(void **state)
{
    (void)state;
    same_as("cluster:\n"
            "  user: 'root'\n"
            "  osds_per_node: 4 \n"
            "    #head: \"ceph3\"   (a comment indented deeper)\n"
            "  clients: [\"a\", 'b']\n"
            "  pool_profiles:\n"
            "    rbd:\n"
            "      pg_size: 256\n"
            "\n"
            "# a comment at column 0\n"
            "benchmarks:\n"
            "  librbdfio:\n"
            "    iodepth: [1, 4 ,16]   # trailing comment\n"
            "    mode: ['read', 'write']\n"
            "    empty:\n"
            "    list:\n"
            "    - 1\n"
            "    - two\n"
            "    items:\n"
            "      - name: x\n"
            "        size: 2\n"
            "      - [1, [2, 3]]\n"
            "      - {a: 1, b: [x, y]}\n",
            "{\"cluster\": {\"user\": \"root\", \"osds_per_node\": 4, \"clients\": [\"a\", \"b\"],"
            " \"pool_profiles\": {\"rbd\": {\"pg_size\": 256}}},"
            " \"benchmarks\": {\"librbdfio\": {\"iodepth\": [1, 4, 16], \"mode\": [\"read\", \"write\"],"
            " \"empty\": null, \"list\": [1, \"two\"],"
            " \"items\": [{\"name\": \"x\", \"size\": 2}, [1, [2, 3]], {\"a\": 1, \"b\": [\"x\", \"y\"]}]}}}");
}

static void scalars_as_pyyaml(void **state)
{
    (void)state;
    same_as("a: True\nb: no\nc: OFF\nd: ~\ne: null\nf: 010\ng: 0x1f\nh: 1_000\ni: 1.5\nj: 1e5\nk: -3\n"
            "l: '4M'\nm: \"x # not a comment\"\nn: it's\no: 'don''t'\np: /tmp/cbt\nq: a:b\nr: \"tab\\tx\"\n"
            "s: 3.\nt: .5\n",
            "{\"a\": true, \"b\": false, \"c\": false, \"d\": null, \"e\": null, \"f\": 8, \"g\": 31,"
            " \"h\": 1000, \"i\": 1.5, \"j\": \"1e5\", \"k\": -3, \"l\": \"4M\", \"m\": \"x # not a comment\","
            " \"n\": \"it's\", \"o\": \"don't\", \"p\": \"/tmp/cbt\", \"q\": \"a:b\", \"r\": \"tab\\tx\","
            " \"s\": 3.0, \"t\": 0.5}");
    same_as("---\n- 1\n- x\n...\nignored: after the end marker\n", "[1, \"x\"]");
    same_as("# only comments\n\n", "null");
    same_as("top:\n- a\n- b\nnext: 1\n", "{\"top\": [\"a\", \"b\"], \"next\": 1}");
}

static void refusals_name_the_line(void **state)
{
    (void)state;
    parse_fails("a: 1\n\tb: 2\n", "t.yaml:2: a tab");
    parse_fails("a: &x 1\nb: *x\n", "t.yaml:1: YAML anchors");
    parse_fails("a: 1\nb: *x\n", "t.yaml:2: YAML aliases");
    parse_fails("a: |\n  text\n", "t.yaml:1: YAML block scalars");
    parse_fails("a: !!str 1\n", "t.yaml:1: YAML tags");
    parse_fails("a: 1\nb: 2\na: 3\n", "t.yaml:3: duplicate key 'a'");
    parse_fails("a: 1\n  b: 2\n", "t.yaml:2: unexpected indentation");
    parse_fails("a: [1, 2\n", "t.yaml:1: unterminated flow sequence");
    parse_fails("a: {x: 1\n", "t.yaml:1: unterminated flow mapping");
    parse_fails("a: 'open\n", "t.yaml:1: unterminated quoted string");
    parse_fails("a:\n  b: 1\n c: 2\n", "t.yaml:3:");
    parse_fails("a: 1\njust text\n", "t.yaml:2: expected 'key: value'");
    parse_fails("a: 1\n---\nb: 2\n", "t.yaml:2: a second YAML document");
    parse_fails("a: [1, 2] x\n", "t.yaml:1: unexpected text after the value");
    parse_fails("- 1\nb: 2\n", "t.yaml:2:");
}

static void cbt_examples_parse(void **state)
{
    (void)state;
    static const char *const files[] = {"tests/data/cbt/rbd_fio_test.yml", "tests/data/cbt/runtests.xfs.yaml",
                                        "tests/data/cbt/runtests.bluestore_example.yaml"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        struct sim_err err = {0};
        cJSON *j = yaml_load_file(files[i], &err);
        if (!j)
            fail_msg("%s", err.msg);
        const cJSON *lib = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(j, "benchmarks"),
                                                            "librbdfio");
        assert_true(cJSON_IsObject(lib));
        assert_non_null(cJSON_GetObjectItemCaseSensitive(j, "cluster"));
        cJSON_Delete(j);
    }
    /* spot values of rbd_fio_test.yml (PyYAML: iodepth [1, 4, 16], use_existing True, vol_size 1024) */
    struct sim_err err = {0};
    cJSON *j = yaml_load_file(files[0], &err);
    const cJSON *lib = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(j, "benchmarks"), "librbdfio");
    cJSON *want = cJSON_Parse("[1, 4, 16]");
    assert_true(cJSON_Compare(cJSON_GetObjectItemCaseSensitive(lib, "iodepth"), want, true));
    assert_true(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(j, "cluster"),
                                                              "use_existing")));
    assert_int_equal(cJSON_GetObjectItemCaseSensitive(lib, "vol_size")->valueint, 1024);
    const cJSON *wl = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(lib, "workloads"), "test1");
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(wl, "mode")->valuestring, "randread");
    cJSON_Delete(want);
    cJSON_Delete(j);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(block_structure),
        cmocka_unit_test(scalars_as_pyyaml),
        cmocka_unit_test(refusals_name_the_line),
        cmocka_unit_test(cbt_examples_parse),
    };
    return cmocka_run_group_tests_name("yaml", tests, NULL, NULL);
}
