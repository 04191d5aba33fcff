/*
 * test_idmap.c - ids to lazily created entries (sim/idmap.c): created once,
 * zeroed, found again at the same address through every growth of the
 * table, absent ids stay absent, memory follows the ids touched.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "idmap.h"
#include "sim.h"

struct entry {
    uint64_t id;
    uint32_t touched;
    char pad[20];
};

static void idmap_creates_once_and_keeps_addresses(void **state)
{
    struct idmap m;
    idmap_init(&m, sizeof(struct entry), 64);
    assert_null(idmap_find(&m, 7));
    enum { N = 5000 };
    static struct entry *at[N];
    for (uint64_t i = 0; i < N; i++) {
        uint64_t id = sim_fmix64(i) >> (i % 40); /* spread and clustered ids, 0 included */
        if (i == 0)
            id = 0;
        bool created;
        struct entry *e = idmap_get(&m, id, &created);
        if (!created) { /* a hash collision of the generator: same entry */
            assert_int_equal(e->id, id);
            at[i] = e;
            continue;
        }
        assert_int_equal(e->touched, 0);
        e->id = id;
        e->touched = 1;
        at[i] = e;
    }
    uint64_t n = idmap_count(&m);
    assert_true(n > N - 10 && n <= N);
    /* every entry found again, at its first address, through the table's growth */
    for (uint64_t i = 0; i < N; i++) {
        uint64_t id = i ? sim_fmix64(i) >> (i % 40) : 0;
        assert_ptr_equal(idmap_find(&m, id), at[i]);
        bool created = true;
        assert_ptr_equal(idmap_get(&m, id, &created), at[i]);
        assert_false(created);
        at[i]->touched++;
    }
    assert_int_equal(idmap_count(&m), n);
    assert_null(idmap_find(&m, 0xdeadbeefcafef00dull));
    idmap_fini(&m);
}

static void count_entry(void *ctx, uint64_t id, void *entry)
{
    uint64_t *sum = ctx;
    assert_int_equal(((struct entry *)entry)->id, id);
    *sum += id;
}

static void idmap_memory_follows_ids_touched(void **state)
{
    /* the same 100 ids, out of a space of 2^26 or 2^40: the same bytes */
    struct idmap a, b;
    idmap_init(&a, sizeof(struct entry), 64);
    idmap_init(&b, sizeof(struct entry), 64);
    uint64_t want = 0;
    for (uint64_t i = 0; i < 100; i++) {
        struct entry *x = idmap_get(&a, i * 37 % (1ull << 26), NULL);
        struct entry *y = idmap_get(&b, (i * 37 % (1ull << 26)) << 14, NULL);
        x->id = i * 37 % (1ull << 26);
        y->id = x->id << 14;
        want += x->id;
    }
    assert_int_equal(idmap_bytes(&a), idmap_bytes(&b));
    assert_true(idmap_bytes(&a) < 16384);
    uint64_t sum = 0;
    idmap_each(&a, count_entry, &sum);
    assert_int_equal(sum, want);
    idmap_fini(&a);
    idmap_fini(&b);
    /* an empty map costs nothing but its header */
    idmap_init(&a, sizeof(struct entry), 64);
    assert_int_equal(idmap_bytes(&a), 0);
    assert_int_equal(idmap_count(&a), 0);
    idmap_fini(&a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(idmap_creates_once_and_keeps_addresses),
        cmocka_unit_test(idmap_memory_follows_ids_touched),
    };
    return cmocka_run_group_tests_name("idmap", tests, NULL, NULL);
}
