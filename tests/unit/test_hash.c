/*
 * test_hash.c - content hashes (core/hash.c): FNV-1a 64 against the
 * published vectors, and the canonical form: reformatting a workload or a
 * cluster keeps its hash, a change of content changes it (issue 19).
 */
#include "core/cluster.h"
#include "core/hash.h"
#include "core/workload.h"
#include "core/workload_yaml.h"

#include <criterion/criterion.h>
#include <string.h>

static uint64_t fnv(const char *s)
{
    return hash_fnv1a64(s, strlen(s), HASH_FNV1A64_INIT);
}

Test(hash, fnv1a64_vectors)
{
    char hex[HASH_HEX_SIZE];

    /* the FNV reference vectors (draft-eastlake-fnv, isthe.com/chongo/tech/comp/fnv) */
    cr_expect_eq(fnv(""), 0xcbf29ce484222325ULL);
    cr_expect_eq(fnv("a"), 0xaf63dc4c8601ec8cULL);
    cr_expect_eq(fnv("foobar"), 0x85944171f73967e8ULL);
    /* continuing a hash is hashing the concatenation */
    cr_expect_eq(hash_fnv1a64("bar", 3, fnv("foo")), fnv("foobar"));
    hash_hex(0x85944171f73967e8ULL, hex);
    cr_expect_str_eq(hex, "85944171f73967e8");
    hash_hex(1, hex);
    cr_expect_str_eq(hex, "0000000000000001");
}

static void workload_hash_of(const char *text, char out[HASH_HEX_SIZE])
{
    struct workload w;

    cr_assert_eq(workload_read_yaml_string(&w, text, strlen(text), "t.yaml"), 0);
    cr_assert_eq(hash_workload(&w, out), 0);
    workload_release(&w);
}

Test(hash, workload_canonical)
{
    static const char block[] =
        "format: 1\n"
        "name: t1\n"
        "ops:\n"
        "  - {name: A, type: Op, time_us: 10, outputs: [100], temp: 50}\n"
        "  - {name: B, type: Op, time_us: 5, outputs: [20], inputs: [\"A:0\"]}\n";
    /* the same workload: comments, block style, other key order, 1e1 for 10 */
    static const char reformatted[] = "# a comment\n"
                                      "name: t1\n"
                                      "format: 1\n"
                                      "ops:\n"
                                      "- name: A\n"
                                      "  time_us: 1e1\n"
                                      "  type: Op\n"
                                      "  temp: 50\n"
                                      "  outputs:\n"
                                      "  - 100\n"
                                      "- {inputs: ['A:0'], name: B, outputs: [20], type: Op, "
                                      "time_us: 5}\n";
    static const char changed[] =
        "format: 1\n"
        "name: t1\n"
        "ops:\n"
        "  - {name: A, type: Op, time_us: 11, outputs: [100], temp: 50}\n"
        "  - {name: B, type: Op, time_us: 5, outputs: [20], inputs: [\"A:0\"]}\n";
    char a[HASH_HEX_SIZE], b[HASH_HEX_SIZE], c[HASH_HEX_SIZE];

    workload_hash_of(block, a);
    workload_hash_of(reformatted, b);
    workload_hash_of(changed, c);
    cr_expect_str_eq(a, b);
    cr_expect_str_neq(a, c);
    cr_expect_eq(strlen(a), 16);
}

static void cluster_hash_of(const char *text, char out[HASH_HEX_SIZE])
{
    struct cluster c;

    cr_assert_eq(cluster_read_yaml_string(&c, text, strlen(text), "c.yaml"), 0);
    cr_assert_eq(hash_cluster(&c, out), 0);
    cluster_release(&c);
}

Test(hash, cluster_canonical)
{
    static const char a_text[] =
        "format: 1\nname: two\ndevices:\n  - name: gpu\n    count: 2\n    memory: 1MiB\n"
        "    speed: 1.0\ncomm:\n  slope_us_per_byte: 0.0375\n  intercept_us: 3.25\n"
        "  channel: shared\n";
    static const char b_text[] = "name: two\nformat: 1\ncomm: {channel: shared, intercept_us: "
                                 "3.25, slope_us_per_byte: 0.0375}\n"
                                 "devices: [{name: gpu, count: 2, memory: 1048576, speed: 1}]\n";
    static const char c_text[] =
        "format: 1\nname: two\ndevices:\n  - name: gpu\n    count: 2\n    memory: 2MiB\n"
        "    speed: 1.0\ncomm:\n  slope_us_per_byte: 0.0375\n  intercept_us: 3.25\n"
        "  channel: shared\n";
    char a[HASH_HEX_SIZE], b[HASH_HEX_SIZE], c[HASH_HEX_SIZE];

    cluster_hash_of(a_text, a);
    cluster_hash_of(b_text, b);
    cluster_hash_of(c_text, c);
    cr_expect_str_eq(a, b);
    cr_expect_str_neq(a, c);
}
