/*
 * failalloc.c - an LD_PRELOAD shim that fails one allocation of a process:
 * the N-th call of malloc, calloc, realloc, posix_memalign, aligned_alloc
 * or strdup-through-malloc, N = $BAECHI_TEST_FAIL_ALLOC (0 or unset: none).
 * With BAECHI_TEST_FAIL_COUNT=1 it prints "failalloc: allocations: A" to
 * stderr at exit, A being the number of allocations the run made, so that
 * a sweep knows its range.  Every allocation counts, libc's, libyaml's and
 * SQLite's included, unlike the test build's counter (core/alloc.c, make
 * allocfail) that sees only the project's own allocator.
 *
 * Used by tests/cli/t770, t780 and scripts/alloc-sweep.sh; built with
 * `cc -shared -fPIC -o failalloc.so failalloc.c`.  Not for sanitized
 * builds (their runtime's malloc comes first).
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);

/* A test tool's process-wide counter (not the library's code: t007 reads
 * the libraries only).  Atomic: the sweep's threads allocate too. */
static long fail_at = -1;
static unsigned long count;

static int fail_now(void)
{
    unsigned long n = __atomic_add_fetch(&count, 1, __ATOMIC_RELAXED);

    if (__atomic_load_n(&fail_at, __ATOMIC_RELAXED) < 0) {
        const char *s = getenv("BAECHI_TEST_FAIL_ALLOC");

        __atomic_store_n(&fail_at, s ? atol(s) : 0, __ATOMIC_RELAXED);
    }
    return fail_at > 0 && n == (unsigned long)fail_at;
}

void *malloc(size_t n)
{
    if (fail_now()) {
        errno = ENOMEM;
        return NULL;
    }
    return __libc_malloc(n);
}

void *calloc(size_t a, size_t b)
{
    if (fail_now()) {
        errno = ENOMEM;
        return NULL;
    }
    return __libc_calloc(a, b);
}

void *realloc(void *p, size_t n)
{
    if (fail_now()) {
        errno = ENOMEM;
        return NULL;
    }
    return __libc_realloc(p, n);
}

int posix_memalign(void **p, size_t align, size_t n)
{
    void *q;

    if (fail_now()) {
        return ENOMEM;
    }
    if (!(q = __libc_memalign(align, n))) {
        return ENOMEM;
    }
    *p = q;
    return 0;
}

void *aligned_alloc(size_t align, size_t n)
{
    if (fail_now()) {
        errno = ENOMEM;
        return NULL;
    }
    return __libc_memalign(align, n);
}

/* The count at exit, for BAECHI_TEST_FAIL_COUNT=1 (written with write(2):
 * stdio may be gone, and must not allocate). */
__attribute__((destructor)) static void failalloc_report(void)
{
    const char *s = getenv("BAECHI_TEST_FAIL_COUNT");
    char buf[64];
    int len;

    if (s && strcmp(s, "1") == 0) {
        len = snprintf(buf, sizeof(buf), "failalloc: allocations: %lu\n",
                       __atomic_load_n(&count, __ATOMIC_RELAXED));
        if (len > 0) {
            (void)!write(2, buf, (size_t)len);
        }
    }
}
