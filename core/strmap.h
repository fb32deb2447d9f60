/*
 * strmap.h - a string -> int32 map (open addressing, linear probing) and a
 * string pool.  Names map to ids only while loading (docs/style.md §5);
 * everything after that works on ids.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#ifndef BAECHI_CORE_STRMAP_H
#define BAECHI_CORE_STRMAP_H

#include <stddef.h>
#include <stdint.h>

/*
 * A pool of NUL-terminated strings in large chunks: one allocation per 64 KiB
 * instead of one per name.  Pointers stay valid until strpool_release().
 */
struct strpool {
    char **chunk;
    size_t nr_chunk, alloc_chunk;
    size_t used; /* bytes used in the last chunk */
    size_t cap;  /* size of the last chunk */
};

void strpool_init(struct strpool *p);
void strpool_release(struct strpool *p);

/* Copies s[0..len) plus a NUL into the pool; NULL (ENOMEM message) on failure. */
char *strpool_add(struct strpool *p, const char *s, size_t len);

/*
 * The map does not own its keys: they must outlive it (typically they live
 * in a strpool).  Values are int32 ids >= 0.
 */
struct strmap_slot {
    const char *key; /* NULL: empty */
    uint32_t hash;
    int32_t val;
};

/* One array of slots: a probe touches one cache line, not three (the key,
 * hash and value arrays were a quarter of loading a 1M-op workload). */
struct strmap {
    struct strmap_slot *slot;
    size_t cap; /* power of two, 0 when empty */
    size_t nr;
};

void strmap_init(struct strmap *m);
void strmap_release(struct strmap *m);

/* Value for key s[0..len), or -1 when absent. */
int32_t strmap_get(const struct strmap *m, const char *s, size_t len);

/*
 * Starts loading the slot where key s[0..len) is or would go, so that a
 * strmap_get or strmap_put of it soon after finds it in the cache: a
 * reader that knows a line's keys before it looks them up lets their
 * cache misses overlap (each probe of a map of a million names is one
 * miss, a fifth of loading such a workload).  A hint only: no effect on
 * any result.
 */
void strmap_prefetch(const struct strmap *m, const char *s, size_t len);

/*
 * Inserts key -> val.  If the key exists, leaves the map unchanged and stores
 * the existing value in *old (when old is not NULL) and returns 0; *old is -1
 * after a fresh insert.  Returns BAECHI_ENOMEM on allocation failure.
 */
int strmap_put(struct strmap *m, const char *key, int32_t val, int32_t *old);

/* Reserves room for n keys (avoids rehashing while loading). */
int strmap_reserve(struct strmap *m, size_t n);

#endif
