/*
 * test_err.c - error messages (sim/err.c): one line whatever the input echoed
 * into them, and a message too long for its buffer keeps its start (the file
 * and path) and its end (the reason), saying how much was left out.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"

static void test_short_message_is_kept_whole(void **state)
{
    (void)state;
    struct sim_err e;
    assert_int_equal(sim_errf(&e, -EINVAL, "%s: %s: %d is odd", "a.json", "x.y", 3), -EINVAL);
    assert_string_equal(e.msg, "a.json: x.y: 3 is odd");
    assert_int_equal(e.code, -EINVAL);
    assert_int_equal(sim_errf(NULL, -ERANGE, "nothing to fill"), -ERANGE);
}

static void test_control_bytes_become_one_line(void **state)
{
    (void)state;
    struct sim_err e;
    sim_errf(&e, -EINVAL, "f: '%s'", "a\nb\rc\td\x01" "e\x7f");
    assert_string_equal(e.msg, "f: 'a?b?c d?e?'");
}

static void test_long_value_keeps_the_reason(void **state)
{
    (void)state;
    size_t n = 10000;
    char *v = malloc(n + 1);
    memset(v, 'x', n);
    v[n] = '\0';
    struct sim_err e;
    sim_errf(&e, -EINVAL, "%s: %s: '%s' is not one of a, b", "scenario.json", "ceph.release", v);
    size_t len = strlen(e.msg);
    assert_true(len < sizeof e.msg && len > sizeof e.msg - 40);
    assert_memory_equal(e.msg, "scenario.json: ceph.release: 'xxx", 33);
    const char *end = "xxx' is not one of a, b";
    assert_string_equal(e.msg + len - strlen(end), end);
    /* what is left out, counted: the whole length is kept + left out */
    const char *mark = strstr(e.msg, " [... ");
    assert_non_null(mark);
    size_t out = strtoul(mark + 6, NULL, 10);
    size_t full = strlen("scenario.json: ceph.release: '' is not one of a, b") + n;
    assert_int_equal(len - strlen(mark) + strlen(strstr(mark, "] ") + 2) + out, full);
    free(v);
}

static void test_long_utf8_is_not_cut_inside_a_character(void **state)
{
    (void)state;
    /* 3-byte characters: any cut at a byte boundary would land inside one */
    size_t reps = 2000;
    char *v = malloc(reps * 3 + 1);
    for (size_t i = 0; i < reps; i++)
        memcpy(v + 3 * i, "\xe2\x82\xac", 3); /* U+20AC */
    v[reps * 3] = '\0';
    struct sim_err e;
    sim_errf(&e, -EINVAL, "f: %s: reason", v);
    const char *mark = strstr(e.msg, " [... ");
    assert_non_null(mark);
    assert_int_equal((mark - e.msg - 3) % 3, 0);          /* "f: " then whole characters */
    const char *after = strstr(mark, "] ") + 2;
    assert_int_equal((strlen(after) - strlen(": reason")) % 3, 0);
    assert_int_equal((unsigned char)after[0], 0xe2);
    free(v);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_short_message_is_kept_whole),
        cmocka_unit_test(test_control_bytes_become_one_line),
        cmocka_unit_test(test_long_value_keeps_the_reason),
        cmocka_unit_test(test_long_utf8_is_not_cut_inside_a_character),
    };
    return cmocka_run_group_tests_name("err", tests, NULL, NULL);
}
