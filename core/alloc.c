/*
 * alloc.c - the one allocator of the libraries (see alloc.h).
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "core/alloc.h"

#include "core/err.h"
#include "core/units.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#ifdef BAECHI_ALLOC_FAIL
#include <stdatomic.h>

/*
 * The test build's counter (alloc.h): the one piece of mutable global state
 * of the libraries, compiled only with -DBAECHI_ALLOC_FAIL.  fail_at is read
 * from the environment once (-1: not yet read, 0: never fail).
 */
static atomic_ulong alloc_count;
static atomic_long alloc_fail_at = -1;
static atomic_int alloc_fail_every;

static void alloc_read_env(void)
{
    const char *at = getenv("BAECHI_ALLOC_FAIL_AT");
    const char *every = getenv("BAECHI_ALLOC_FAIL_EVERY");

    atomic_store(&alloc_fail_every, every && atoi(every) != 0);
    atomic_store(&alloc_fail_at, at ? strtol(at, NULL, 10) : 0);
}

/* Counts one allocation; nonzero when this one is to fail. */
static int alloc_should_fail(void)
{
    unsigned long n = atomic_fetch_add(&alloc_count, 1) + 1;
    long at;

    if (atomic_load(&alloc_fail_at) < 0) {
        alloc_read_env();
    }
    at = atomic_load(&alloc_fail_at);
    if (at <= 0) {
        return 0;
    }
    return n == (unsigned long)at || (atomic_load(&alloc_fail_every) && n > (unsigned long)at);
}

unsigned long mem_alloc_count(void)
{
    return atomic_load(&alloc_count);
}
#else
#define alloc_should_fail() 0

unsigned long mem_alloc_count(void)
{
    return 0;
}
#endif

/* Smallest block that may hold a whole 2 MB page. */
#define ALLOC_HUGE_MIN_BYTES ((size_t)2 << 20)

static void *alloc_failed(size_t bytes)
{
    char size[32];

    /* with its unit (issue 33 item 4: "out of memory (793453312 bytes)") */
    units_fmt_bytes(bytes > INT64_MAX ? INT64_MAX : (int64_t)bytes, size, sizeof(size));
    err_set(BAECHI_ENOMEM, "out of memory (a block of %s)", size);
    return NULL;
}

static int alloc_overflows(size_t n, size_t elem)
{
    if (elem != 0 && n > SIZE_MAX / elem) {
        err_set(BAECHI_ENOMEM, "out of memory (%zu x %zu bytes overflows)", n, elem);
        return 1;
    }
    return 0;
}

/*
 * 2 MB pages for a large block (MADV_HUGEPAGE; advice only, where the
 * kernel's transparent huge pages are "madvise"): one page fault per 2 MB
 * instead of 512, and no TLB miss on random access.  Loading and building
 * a 1M-op workload's graph spent a fifth of its time in 4 KB page faults
 * and TLB misses on this virtual machine.  The whole pages around the
 * block, its allocator's header included: advice on part of a mapping
 * splits it, and realloc can then no longer move it with mremap (it
 * copies).  The memory's contents and ownership do not change.
 */
static void *alloc_advise(void *p, size_t bytes)
{
#ifdef MADV_HUGEPAGE
    const uintptr_t page = 4096;

    if (p && bytes >= ALLOC_HUGE_MIN_BYTES) {
        uintptr_t lo = (uintptr_t)p & ~(page - 1);
        uintptr_t hi = ((uintptr_t)p + bytes + page - 1) & ~(page - 1);

        (void)madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
    }
#else
    (void)bytes;
#endif
    return p;
}

void *mem_alloc(size_t bytes)
{
    void *p;

    if (bytes == 0) {
        bytes = 1;
    }
    p = alloc_should_fail() ? NULL : alloc_advise(malloc(bytes), bytes);
    return p ? p : alloc_failed(bytes);
}

void *mem_calloc(size_t n, size_t elem)
{
    void *p;

    if (alloc_overflows(n, elem)) {
        return NULL;
    }
    if (n == 0 || elem == 0) {
        n = elem = 1;
    }
    p = alloc_should_fail() ? NULL : alloc_advise(calloc(n, elem), n * elem);
    return p ? p : alloc_failed(n * elem);
}

void *mem_alloc_array(size_t n, size_t elem)
{
    return alloc_overflows(n, elem) ? NULL : mem_alloc(n * elem);
}

void *mem_realloc(void *p, size_t bytes)
{
    void *q;

    if (bytes == 0) {
        bytes = 1;
    }
    q = alloc_should_fail() ? NULL : alloc_advise(realloc(p, bytes), bytes);
    return q ? q : alloc_failed(bytes);
}

void *mem_realloc_array(void *p, size_t n, size_t elem)
{
    return alloc_overflows(n, elem) ? NULL : mem_realloc(p, n * elem);
}

char *mem_strdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *p = mem_alloc(n);

    if (p) {
        memcpy(p, s, n);
    }
    return p;
}

char *mem_strndup(const char *s, size_t n)
{
    size_t len = strnlen(s, n);
    char *p = mem_alloc(len + 1);

    if (p) {
        memcpy(p, s, len);
        p[len] = '\0';
    }
    return p;
}

int mem_vasprintf(char **out, const char *fmt, va_list ap)
{
    va_list ap2;
    int n;

    *out = NULL;
    va_copy(ap2, ap);
    n = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    if (n < 0) {
        err_set(BAECHI_ENOMEM, "out of memory (formatting a string)");
        return -1;
    }
    if (!(*out = mem_alloc((size_t)n + 1))) {
        return -1;
    }
    vsnprintf(*out, (size_t)n + 1, fmt, ap);
    return n;
}

int mem_asprintf(char **out, const char *fmt, ...)
{
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = mem_vasprintf(out, fmt, ap);
    va_end(ap);
    return n;
}

FILE *mem_open_memstream(char **buf, size_t *len)
{
    FILE *f = alloc_should_fail() ? NULL : open_memstream(buf, len);

    if (!f) {
        err_set(BAECHI_ENOMEM, "out of memory (opening a string stream)");
    }
    return f;
}
