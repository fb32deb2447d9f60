/*
 * failalloc.c - an LD_PRELOAD shim that fails one allocation of a process:
 * the N-th call of malloc, calloc, realloc, posix_memalign, aligned_alloc
 * or strdup-through-malloc, N = $BAECHI_TEST_FAIL_ALLOC (0 or unset: none).
 * With BAECHI_TEST_FAIL_COUNT=1 it prints "failalloc: allocations: A" to
 * stderr at exit, A being the number of allocations the run made, so that
 * a sweep knows its range; with BAECHI_TEST_FAIL_SITES=FILE besides, it
 * writes to FILE the allocations worth failing (the first and the last of
 * each call stack, below).  Every allocation counts, libc's, libyaml's and
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
#include <execinfo.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);

/* A test tool's process-wide counter (not the library's code: t007 reads
 * the libraries only).  Atomic: the sweep's threads allocate too. */
static long fail_at = -1;
static unsigned long count;

/* BAECHI_TEST_FAIL_SITES=FILE (with BAECHI_TEST_FAIL_COUNT=1): the call
 * stack of every allocation (its return addresses, whole) is hashed, and
 * FILE gets at exit, one a line in increasing order, the allocation
 * numbers that are the first or the last of their stack: every distinct
 * call site, in every distinct calling context, once as it is first
 * reached and once as it is last (a loop's first and last turn).  The
 * table is shared with forked children (a sweep's workers), whose
 * allocations go on from the parent's count, as the N-th one fails in
 * them too; the process that made it writes FILE. */
#define SITE_SLOTS     (1u << 16)
#define SITE_MAX_ALLOC (1u << 22)
struct site_table {
    int lock;
    unsigned used;
    pid_t owner;
    uint64_t key[SITE_SLOTS];
    unsigned long first[SITE_SLOTS], last[SITE_SLOTS];
};
static int sites_on = -1;
static struct site_table *sites;
static char sites_path[4096];
static __thread int in_backtrace;

/* at the first allocation (before any thread): the table, shared */
static void sites_setup(void)
{
    const char *p = getenv("BAECHI_TEST_FAIL_SITES");
    void *m;

    sites_on = 0;
    if (!p || strlen(p) >= sizeof(sites_path)) {
        return;
    }
    m = mmap(NULL, sizeof(*sites), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) {
        return; /* no FILE: the sweep tries every point */
    }
    strcpy(sites_path, p);
    sites = m;
    sites->owner = getpid();
    sites_on = 1;
}

static void site_record(unsigned long n)
{
    void *bt[128];
    uint64_t h = 1469598103934665603ull;
    unsigned i;
    int k;

    in_backtrace = 1;
    k = backtrace(bt, 128);
    in_backtrace = 0;
    /* frame 0 is this shim */
    for (i = 1; i < (unsigned)k; i++) {
        h = (h ^ (uint64_t)(uintptr_t)bt[i]) * 1099511628211ull;
    }
    h |= 1; /* 0: an empty slot */
    while (__atomic_exchange_n(&sites->lock, 1, __ATOMIC_ACQUIRE)) {
    }
    for (i = (unsigned)h & (SITE_SLOTS - 1); sites->key[i] && sites->key[i] != h;
         i = (i + 1) & (SITE_SLOTS - 1)) {
    }
    if (!sites->key[i] && sites->used < SITE_SLOTS / 2) {
        sites->key[i] = h;
        sites->first[i] = n;
        sites->last[i] = n;
        sites->used++;
    }
    if (sites->key[i] == h) {
        /* processes interleave: the least and the greatest number */
        if (n < sites->first[i]) {
            sites->first[i] = n;
        }
        if (n > sites->last[i]) {
            sites->last[i] = n;
        }
    }
    __atomic_store_n(&sites->lock, 0, __ATOMIC_RELEASE);
}

/* backtrace() loads libgcc_s at its first call: here, before main, rather
 * than inside an allocation that may hold a lock of the C library.  The
 * variable goes from the environment: a program that this one executes
 * is not part of the count. */
__attribute__((constructor)) static void site_init(void)
{
    void *bt[2];

    if (getenv("BAECHI_TEST_FAIL_SITES")) {
        in_backtrace = 1;
        (void)backtrace(bt, 2);
        in_backtrace = 0;
        if (sites_on < 0) {
            sites_setup();
        }
        unsetenv("BAECHI_TEST_FAIL_SITES");
    }
}

static int fail_now(void)
{
    unsigned long n;

    /* backtrace()'s own allocations (loading libgcc_s) are not the
     * program's: not counted, so the numbers stay those of a run without
     * BAECHI_TEST_FAIL_SITES */
    if (in_backtrace) {
        return 0;
    }
    n = __atomic_add_fetch(&count, 1, __ATOMIC_RELAXED);
    if (sites_on < 0) {
        sites_setup();
    }
    if (sites_on > 0) {
        site_record(n);
    }

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

/* FILE: the first and last allocation of every stack, in order; too many
 * stacks or allocations for the tables: every allocation (nothing left
 * out).  write(2) only, no allocation. */
static void sites_write(void)
{
    static unsigned char mark[SITE_MAX_ALLOC / 8];
    unsigned long n = __atomic_load_n(&count, __ATOMIC_RELAXED), i, v;
    char buf[32];
    int fd, len, all;

    if ((fd = open(sites_path, O_WRONLY | O_CREAT | O_TRUNC, 0644)) < 0) {
        return;
    }
    all = sites->used >= SITE_SLOTS / 2 || n >= SITE_MAX_ALLOC;
    if (!all) { /* the last of this process, whatever its stack's last */
        mark[n / 8] |= (unsigned char)(1u << n % 8);
    }
    for (i = 0; !all && i < SITE_SLOTS; i++) {
        if (sites->key[i]) {
            /* a child's numbers past this process's count: never tried */
            if ((v = sites->first[i]) <= n) {
                mark[v / 8] |= (unsigned char)(1u << v % 8);
            }
            if ((v = sites->last[i]) <= n) {
                mark[v / 8] |= (unsigned char)(1u << v % 8);
            }
        }
    }
    for (i = 1; i <= n; i++) {
        if (all || mark[i / 8] & (1u << i % 8)) {
            len = snprintf(buf, sizeof(buf), "%lu\n", i);
            (void)!write(fd, buf, (size_t)len);
        }
    }
    close(fd);
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
    if (sites_on > 0 && getpid() == sites->owner) {
        sites_write();
    }
}
