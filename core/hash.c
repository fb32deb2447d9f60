/*
 * hash.c - content hashes (hash.h).
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "core/hash.h"

#include "core/alloc.h"
#include "core/cluster.h"
#include "core/err.h"
#include "core/workload_yaml.h"

#include <inttypes.h>
#include <stdlib.h>

uint64_t hash_fnv1a64(const void *p, size_t len, uint64_t h)
{
    const unsigned char *s = p;

    for (size_t i = 0; i < len; i++) {
        h ^= s[i];
        h *= 0x100000001b3ULL; /* wraps modulo 2^64: the algorithm (tests/fuzz/ubsan.supp) */
    }
    return h;
}

void hash_hex(uint64_t h, char out[HASH_HEX_SIZE])
{
    snprintf(out, HASH_HEX_SIZE, "%016" PRIx64, h);
}

int hash_written(hash_write_fn write, const void *doc, uint64_t *out)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = mem_open_memstream(&buf, &len);
    int rc;

    if (!f) {
        return err_set(BAECHI_ENOMEM, "out of memory");
    }
    rc = write(doc, f);
    /* glibc's fclose returns 0 with *buf NULL when its last realloc fails */
    if ((fclose(f) != 0 || !buf) && !rc) {
        rc = err_set(BAECHI_ENOMEM, "out of memory");
    }
    if (!rc) {
        *out = hash_fnv1a64(buf, len, HASH_FNV1A64_INIT);
    }
    free(buf);
    return rc;
}

static int write_workload(const void *doc, FILE *f)
{
    return workload_write_yaml(doc, f);
}

static int write_cluster(const void *doc, FILE *f)
{
    return cluster_write_yaml(doc, f);
}

static int hash_doc(hash_write_fn write, const void *doc, char out[HASH_HEX_SIZE])
{
    uint64_t h = 0;
    int rc = hash_written(write, doc, &h);

    if (!rc) {
        hash_hex(h, out);
    }
    return rc;
}

int hash_workload(const struct workload *w, char out[HASH_HEX_SIZE])
{
    return hash_doc(write_workload, w, out);
}

int hash_cluster(const struct cluster *c, char out[HASH_HEX_SIZE])
{
    return hash_doc(write_cluster, c, out);
}
