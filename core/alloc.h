/*
 * alloc.h - the one allocator of the libraries (SQLite's sqlite3Malloc is
 * the model): every allocation of core/ sim/ placers/ workloads/ calibrate/
 * results/ api/ and cli/ goes through these functions, so that
 *
 *   - a failed allocation always leaves a message: on failure each function
 *     sets err_set(BAECHI_ENOMEM, "out of memory (N bytes)") and returns NULL
 *     (or -1), so no caller can return BAECHI_ENOMEM with a stale or empty
 *     message, and a caller only has to return BAECHI_ENOMEM;
 *   - a test build can fail the N-th allocation (below).
 *
 * Memory from these functions is released with free().  Sizes are checked
 * for overflow (n * elem); a zero size allocates one byte, so NULL always
 * means failure.  scripts/check-alloc.sh checks that no raw malloc, calloc,
 * realloc, strdup, strndup, asprintf, vasprintf or open_memstream remains in
 * the libraries outside this file.
 *
 * Blocks of 2 MB and more are advised to the kernel as wanting 2 MB pages
 * (MADV_HUGEPAGE over the block's whole pages, where the kernel has
 * transparent huge pages; advice only, contents and ownership unchanged):
 * fewer page faults and TLB misses for the arrays of a large workload
 * (issue 22; docs/speed.md "Loading a large workload").
 *
 * Not covered: the third-party libraries (libyaml, SQLite, GLPK,
 * protobuf-c) and the C library's own buffers (stdio, the buffer that
 * open_memstream grows) allocate with their own malloc.
 *
 * Allocation-failure testing (docs/fuzzing.md, scripts/alloc-fail.sh).  When
 * compiled with -DBAECHI_ALLOC_FAIL (build/allocfail/, mk/allocfail.mk, and
 * only there), the functions count allocations and read, once, from the
 * environment:
 *
 *   BAECHI_ALLOC_FAIL_AT=N     the N-th allocation (1-based) fails;
 *   BAECHI_ALLOC_FAIL_EVERY=1  ... and so does every one after it
 *                              (SQLite's "persistent" mode).
 *
 * The counter is an atomic, process-wide variable: the ONE piece of mutable
 * global state of the libraries, and it exists only in that test build (in
 * every other build these functions keep no state and are thread-safe).
 *
 * Part of baechi-c; see README.md for the licence.
 */
#ifndef BAECHI_CORE_ALLOC_H
#define BAECHI_CORE_ALLOC_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

/* malloc(bytes). */
void *mem_alloc(size_t bytes);

/* calloc(n, elem), with an overflow check. */
void *mem_calloc(size_t n, size_t elem);

/* malloc(n * elem), with an overflow check. */
void *mem_alloc_array(size_t n, size_t elem);

/* realloc(p, bytes); on failure p is left as it was (still owned by the
 * caller). */
void *mem_realloc(void *p, size_t bytes);

/* realloc(p, n * elem), with an overflow check; p as for mem_realloc. */
void *mem_realloc_array(void *p, size_t n, size_t elem);

/* strdup(s). */
char *mem_strdup(const char *s);

/* strndup(s, n): at most n bytes of s, always NUL-terminated. */
char *mem_strndup(const char *s, size_t n);

/* asprintf: *out gets a new string and the length is returned; on failure
 * *out is NULL and -1 is returned (with the message). */
int mem_asprintf(char **out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int mem_vasprintf(char **out, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));

/* open_memstream(buf, len); NULL on failure (with the message).  Only the
 * stream is counted: the buffer that stdio grows is the C library's. */
FILE *mem_open_memstream(char **buf, size_t *len);

/* The number of allocations made so far (only counted in the test build;
 * 0 elsewhere): scripts/alloc-fail.sh learns how many N to try. */
unsigned long mem_alloc_count(void);

#endif
