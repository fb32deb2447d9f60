/*
 * strmap.c - string map and string pool (see strmap.h).
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "core/strmap.h"

#include "core/alloc.h"
#include "core/array.h"
#include "core/err.h"

#include <stdlib.h>
#include <string.h>

#define STRPOOL_CHUNK     (64 * 1024)
#define STRPOOL_CHUNK_MAX (4 * 1024 * 1024)

void strpool_init(struct strpool *p)
{
    memset(p, 0, sizeof(*p));
}

void strpool_release(struct strpool *p)
{
    for (size_t i = 0; i < p->nr_chunk; i++) {
        free(p->chunk[i]);
    }
    free(p->chunk);
    strpool_init(p);
}

char *strpool_add(struct strpool *p, const char *s, size_t len)
{
    char *dst;

    if (p->nr_chunk == 0 || p->cap - p->used < len + 1) {
        /* chunks double up to 4 MB: a 1M-op workload's 10 MB of names
         * came in 160 chunks of fresh 4 KB pages, each a page fault; from
         * 2 MB on the allocator asks for 2 MB pages */
        size_t grow = p->nr_chunk == 0 ? STRPOOL_CHUNK : p->cap * 2;
        size_t cap = grow > STRPOOL_CHUNK_MAX ? STRPOOL_CHUNK_MAX : grow;
        char *c;

        if (cap < len + 1) {
            cap = len + 1;
        }
        if (ARRAY_RESERVE(p->chunk, p->alloc_chunk, p->nr_chunk + 1)) {
            return NULL;
        }
        c = mem_alloc_array(cap, 1);
        if (!c) {
            return NULL;
        }
        p->chunk[p->nr_chunk++] = c;
        p->used = 0;
        p->cap = cap;
    }
    dst = p->chunk[p->nr_chunk - 1] + p->used;
    memcpy(dst, s, len);
    dst[len] = '\0';
    p->used += len + 1;
    return dst;
}

/* FNV-1a: simple, deterministic, good enough for op names. */
static uint32_t strmap_hash(const char *s, size_t len)
{
    uint32_t h = 2166136261u;

    for (size_t i = 0; i < len; i++) {
        h ^= (unsigned char)s[i];
        h *= 16777619u;
    }
    return h;
}

void strmap_init(struct strmap *m)
{
    memset(m, 0, sizeof(*m));
}

void strmap_release(struct strmap *m)
{
    free(m->slot);
    strmap_init(m);
}

static int strmap_rehash(struct strmap *m, size_t cap)
{
    struct strmap_slot *slot = mem_calloc(cap, sizeof(*slot));

    if (!slot) {
        return BAECHI_ENOMEM;
    }
    for (size_t i = 0; i < m->cap; i++) {
        size_t j;

        if (!m->slot[i].key) {
            continue;
        }
        j = m->slot[i].hash & (cap - 1);
        while (slot[j].key) {
            j = (j + 1) & (cap - 1);
        }
        slot[j] = m->slot[i];
    }
    free(m->slot);
    m->slot = slot;
    m->cap = cap;
    return 0;
}

int strmap_reserve(struct strmap *m, size_t n)
{
    size_t cap = 16;

    while (cap / 4 * 3 < n + 1) {
        cap *= 2;
    }
    if (cap <= m->cap) {
        return 0;
    }
    return strmap_rehash(m, cap);
}

void strmap_prefetch(const struct strmap *m, const char *s, size_t len)
{
    if (m->cap > 0) {
        __builtin_prefetch(&m->slot[strmap_hash(s, len) & (m->cap - 1)]);
    }
}

int32_t strmap_get(const struct strmap *m, const char *s, size_t len)
{
    uint32_t h;
    size_t j;

    if (m->cap == 0) {
        return -1;
    }
    h = strmap_hash(s, len);
    j = h & (m->cap - 1);
    while (m->slot[j].key) {
        const struct strmap_slot *e = &m->slot[j];

        if (e->hash == h && strncmp(e->key, s, len) == 0 && e->key[len] == '\0') {
            return e->val;
        }
        j = (j + 1) & (m->cap - 1);
    }
    return -1;
}

int strmap_put(struct strmap *m, const char *key, int32_t val, int32_t *old)
{
    size_t len = strlen(key);
    uint32_t h = strmap_hash(key, len);
    size_t j;

    /* at most three quarters full: linear probes stay short, and a 1M-op
     * workload's map is 32 MB, not 64 (its pages were a tenth of the load) */
    if (m->nr + 1 > m->cap / 4 * 3) {
        int rc = strmap_rehash(m, m->cap ? 2 * m->cap : 16);

        if (rc) {
            return rc;
        }
    }
    j = h & (m->cap - 1);
    while (m->slot[j].key) {
        if (m->slot[j].hash == h && strcmp(m->slot[j].key, key) == 0) {
            if (old) {
                *old = m->slot[j].val;
            }
            return 0;
        }
        j = (j + 1) & (m->cap - 1);
    }
    m->slot[j].key = key;
    m->slot[j].hash = h;
    m->slot[j].val = val;
    m->nr++;
    if (old) {
        *old = -1;
    }
    return 0;
}
