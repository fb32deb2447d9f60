/*
 * op_names.c - unique op names (see op_names.h).
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "workloads/op_names.h"

#include "core/array.h"
#include "core/err.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void op_names_init(struct op_names *u)
{
    memset(u, 0, sizeof(*u));
    strpool_init(&u->pool);
    strmap_init(&u->next_of);
}

void op_names_release(struct op_names *u)
{
    if (!u) {
        return;
    }
    strpool_release(&u->pool);
    strmap_release(&u->next_of);
    free(u->next);
    op_names_init(u);
}

int op_names_utf8_prefix(const char *s, size_t n)
{
    size_t len = strnlen(s, n);

    while (len > 0 && ((unsigned char)s[len] & 0xc0) == 0x80) {
        len--;
    }
    return (int)len;
}

int op_names_unique(struct op_names *u, const struct workload *w, const char *base, char *buf,
                    size_t size)
{
    int32_t slot, old;
    const char *key;
    int len, rc;

    if (size <= OP_NAMES_SUFFIX_ROOM) {
        return err_set(BAECHI_EINVAL, "op name buffer of %zu bytes leaves no room for a suffix",
                       size);
    }
    /* cut to leave room for "_N": a full buffer would never change */
    len = op_names_utf8_prefix(base, size - OP_NAMES_SUFFIX_ROOM);
    snprintf(buf, size, "%.*s", len, base);
    if (workload_find(w, buf) < 0) {
        return 0;
    }
    if ((slot = strmap_get(&u->next_of, buf, (size_t)len)) < 0) {
        if (ARRAY_RESERVE(u->next, u->alloc_next, u->n_next + 1) ||
            !(key = strpool_add(&u->pool, buf, (size_t)len))) {
            return BAECHI_ENOMEM;
        }
        slot = (int32_t)u->n_next++;
        u->next[slot] = 1;
        if ((rc = strmap_put(&u->next_of, key, slot, &old))) {
            return rc;
        }
    }
    do {
        snprintf(buf, size, "%.*s_%d", len, base, u->next[slot]++);
    } while (workload_find(w, buf) >= 0);
    return 0;
}
