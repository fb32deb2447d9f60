/*
 * fuzz_cluster.c - cluster YAML (core/cluster_yaml.c): read, write back,
 * read again.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "tests/fuzz/fuzz.h"

#include "core/cluster.h"

static int write_c(FILE *f, const void *c)
{
    return cluster_write_yaml(c, f);
}

int fuzz_one_input(const uint8_t *data, size_t size)
{
    struct cluster c, c2;
    char *text;
    size_t len;
    int rc;

    rc = cluster_read_yaml_string(&c, (const char *)data, size, "fuzz.yaml");
    fuzz_check_rejection(rc);
    if (rc) {
        return 0;
    }
    text = fuzz_write(write_c, &c, &len);
    if ((rc = cluster_read_yaml_string(&c2, text, len, "fuzz-written.yaml"))) {
        fuzz_fail("a cluster written by the suite does not read back", rc);
    }
    cluster_release(&c2);
    free(text);
    cluster_release(&c);
    return 0;
}
