/*
 * test_strbuf.c - the printf appender (sim/strbuf.c): a growable buffer holds
 * exactly what snprintf into one big buffer would; a fixed buffer cuts off as
 * snprintf does and never writes past its storage.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strbuf.h"

static void test_growable_matches_one_snprintf(void **state)
{
    (void)state;
    struct strbuf b = STRBUF_INIT;
    size_t cap = 200000;
    char *ref = calloc(cap, 1);
    size_t used = 0;
    for (int i = 0; i < 5000; i++) {
        strbuf_printf(&b, "%d:%s;", i, i % 7 ? "x" : "longer piece of text");
        used += (size_t)snprintf(ref + used, cap - used, "%d:%s;", i, i % 7 ? "x" : "longer piece of text");
        assert_int_equal(b.len, used);
    }
    assert_string_equal(b.s, ref);
    assert_int_equal(strlen(b.s), b.len);
    free(ref);
    free(b.s);
}

static void test_growable_empty_append_gives_empty_string(void **state)
{
    (void)state;
    struct strbuf b = STRBUF_INIT;
    assert_null(b.s);
    strbuf_printf(&b, "%s", "");
    assert_non_null(b.s);
    assert_string_equal(b.s, "");
    assert_int_equal(b.len, 0);
    free(b.s);
}

static void test_fixed_cuts_off_like_snprintf(void **state)
{
    (void)state;
    for (size_t n = 1; n < 31; n++) { /* cut off, then fitting (26 characters) */
        const char *full = "osd_op(client.4100 [write]";
        char buf[32], ref[32];
        memset(buf, '#', sizeof buf);
        struct strbuf b;
        strbuf_fixed(&b, buf, n);
        strbuf_printf(&b, "osd_op(%s", "client.4100");
        strbuf_printf(&b, " [%s]", "write");
        /* what snprintf(ref, n, ...) keeps: the first n - 1 bytes */
        size_t keep = n - 1 < strlen(full) ? n - 1 : strlen(full);
        memcpy(ref, full, keep);
        ref[keep] = '\0';
        assert_string_equal(buf, ref);
        assert_int_equal(b.len, strlen(ref));
        assert_int_equal(buf[n], '#'); /* nothing written past the storage */
    }
}

static void test_fixed_zero_size_writes_nothing(void **state)
{
    (void)state;
    char buf[4] = "abc";
    struct strbuf b;
    strbuf_fixed(&b, buf, 0);
    strbuf_printf(&b, "%s", "xyz");
    assert_string_equal(buf, "abc");
    assert_int_equal(b.len, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_growable_matches_one_snprintf),
        cmocka_unit_test(test_growable_empty_append_gives_empty_string),
        cmocka_unit_test(test_fixed_cuts_off_like_snprintf),
        cmocka_unit_test(test_fixed_zero_size_writes_nothing),
    };
    return cmocka_run_group_tests_name("strbuf", tests, NULL, NULL);
}
