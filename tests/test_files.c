/*
 * test_files.c - the shared file-system chores (sim/files.c).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "files.h"

static void dir_of_and_join(void **state)
{
    (void)state;
    char out[64];
    assert_int_equal(files_dir_of("a/b/c.json", out, sizeof out), 0);
    assert_string_equal(out, "a/b");
    assert_int_equal(files_dir_of("c.json", out, sizeof out), 0);
    assert_string_equal(out, ".");
    assert_int_equal(files_dir_of("/c.json", out, sizeof out), 0);
    assert_string_equal(out, "/");
    assert_int_equal(files_join("a/b", "../x.json", out, sizeof out), 0);
    assert_string_equal(out, "a/b/../x.json");
    assert_int_equal(files_join("a/b", "/abs", out, sizeof out), 0);
    assert_string_equal(out, "/abs");
    assert_int_equal(files_join(".", "x", out, sizeof out), 0);
    assert_string_equal(out, "x");
    char tiny[4];
    assert_int_equal(files_join("abc", "def", tiny, sizeof tiny), -ENAMETOOLONG);
}

/* files_relative_to, checked by joining its answer back and comparing real paths */
static void relative_paths_round_trip(void **state)
{
    (void)state;
    char top[] = "/tmp/cephsim_test_files.XXXXXX";
    assert_non_null(mkdtemp(top));
    const char *dirs[] = {"a", "a/b", "a/b/c", "d", "d/e"};
    char p[512], q[512], rel[512], back[1024], r1[4096], r2[4096];
    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
        snprintf(p, sizeof p, "%s/%s", top, dirs[i]);
        assert_int_equal(mkdir(p, 0777), 0);
    }
    snprintf(p, sizeof p, "%s/d/e/target.json", top);
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fclose(f);
    struct {
        const char *from, *want;
    } cases[] = {{"a/b/c", "../../../d/e/target.json"}, {"d/e", "target.json"}, {"d", "e/target.json"},
                 {"a", "../d/e/target.json"}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        snprintf(q, sizeof q, "%s/%s", top, cases[i].from);
        assert_int_equal(files_relative_to(p, q, rel, sizeof rel), 0);
        assert_string_equal(rel, cases[i].want);
        assert_int_equal(files_join(q, rel, back, sizeof back), 0);
        assert_non_null(realpath(back, r1));
        assert_non_null(realpath(p, r2));
        assert_string_equal(r1, r2);
    }
    assert_int_equal(files_relative_to(p, "/", rel, sizeof rel), 0);
    assert_int_equal(rel[0] == '/', 0);
    snprintf(q, sizeof q, "%s/absent", top);
    assert_int_equal(files_relative_to(q, top, rel, sizeof rel), -ENOENT);
    assert_int_equal(files_rm_tree(top), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(dir_of_and_join),
        cmocka_unit_test(relative_paths_round_trip),
    };
    return cmocka_run_group_tests_name("files", tests, NULL, NULL);
}
