/*
 * test_strbuf.c - the growable string (core/strbuf.c): issue 34 item 3,
 * which replaces the fixed char[N] buffers where a name or a message is
 * built.  Long strings (the old buffers truncated or failed at N) and
 * allocation failures (the string is left as it was, the message is set).
 */
#include "core/err.h"
#include "core/strbuf.h"

#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#ifndef __has_feature
#define __has_feature(x) 0
#endif
#if defined(__SANITIZE_ADDRESS__) || __has_feature(address_sanitizer)
#define STRBUF_TEST_ASAN 1
#else
#define STRBUF_TEST_ASAN 0
#endif

Test(strbuf, starts_empty_and_allocates_nothing)
{
    struct strbuf a = STRBUF_INIT;
    struct strbuf b;

    strbuf_init(&b);
    cr_expect_str_eq(a.buf, "");
    cr_expect_eq(a.len, 0);
    cr_expect_eq(a.alloc, 0);
    cr_expect_eq(b.buf, strbuf_empty);
    strbuf_reset(&a); /* never writes strbuf_empty */
    strbuf_release(&a);
    strbuf_release(&b);
    strbuf_release(NULL);
    cr_expect_eq(a.buf, strbuf_empty);
}

Test(strbuf, appends)
{
    struct strbuf sb = STRBUF_INIT;

    cr_assert_eq(strbuf_addstr(&sb, "layer"), 0);
    cr_assert_eq(strbuf_addch(&sb, '/'), 0);
    cr_assert_eq(strbuf_addf(&sb, "%s_%d", "grad", 7), 0);
    cr_assert_eq(strbuf_add(&sb, ":0xyz", 2), 0);
    cr_expect_str_eq(sb.buf, "layer/grad_7:0");
    cr_expect_eq(sb.len, strlen("layer/grad_7:0"));
    cr_assert_eq(strbuf_addf(&sb, "%s", ""), 0);
    cr_expect_eq(sb.len, strlen("layer/grad_7:0"));
    strbuf_setlen(&sb, 5);
    cr_expect_str_eq(sb.buf, "layer");
    cr_assert_eq(strbuf_setf(&sb, "op%03d", 12), 0);
    cr_expect_str_eq(sb.buf, "op012");
    strbuf_release(&sb);
}

Test(strbuf, bytes_with_nul)
{
    struct strbuf sb = STRBUF_INIT;

    cr_assert_eq(strbuf_add(&sb, "a\0b", 3), 0);
    cr_expect_eq(sb.len, 3);
    cr_expect_eq(memcmp(sb.buf, "a\0b", 4), 0);
    strbuf_release(&sb);
}

Test(strbuf, reset_keeps_the_buffer)
{
    struct strbuf sb = STRBUF_INIT;
    char *p;
    size_t alloc;

    cr_assert_eq(strbuf_addstr(&sb, "some name"), 0);
    p = sb.buf;
    alloc = sb.alloc;
    strbuf_reset(&sb);
    cr_expect_str_eq(sb.buf, "");
    cr_expect_eq(sb.len, 0);
    cr_assert_eq(strbuf_addf(&sb, "%d", 42), 0);
    cr_expect_eq(sb.buf, p);
    cr_expect_eq(sb.alloc, alloc);
    cr_expect_str_eq(sb.buf, "42");
    strbuf_release(&sb);
}

/* The old buffers: char name[1024] truncated an op name at 1,023 bytes,
 * char sql[2048] refused a longer statement.  Any length works now, in one
 * addf and in many small appends (each growth keeps what was there). */
Test(strbuf, very_long_strings)
{
    struct strbuf sb = STRBUF_INIT;
    size_t n = 1 << 20, i;
    char *big = malloc(n + 1);

    cr_assert(big);
    memset(big, 'x', n);
    big[n] = '\0';
    cr_assert_eq(strbuf_addf(&sb, "[%s]", big), 0);
    cr_expect_eq(sb.len, n + 2);
    cr_expect_eq(sb.buf[0], '[');
    cr_expect_eq(sb.buf[n + 1], ']');
    cr_expect_eq(sb.buf[n + 2], '\0');
    strbuf_reset(&sb);
    for (i = 0; i < 100000; i++) {
        cr_assert_eq(strbuf_addf(&sb, "%zu,", i % 10), 0);
    }
    cr_expect_eq(sb.len, 200000);
    cr_expect_eq(strlen(sb.buf), 200000);
    cr_expect_eq(sb.buf[199998], '9');
    /* a reused buffer, the formatted text longer than its room */
    strbuf_reset(&sb);
    cr_assert_eq(strbuf_addstr(&sb, "ab"), 0);
    cr_assert_eq(strbuf_addf(&sb, "%s%s", big, big), 0);
    cr_expect_eq(sb.len, 2 * n + 2);
    cr_expect_eq(strlen(sb.buf), 2 * n + 2);
    free(big);
    strbuf_release(&sb);
}

/* Output of exactly the room left, and one byte less: the NUL needs a byte
 * of its own. */
Test(strbuf, exact_room)
{
    struct strbuf sb = STRBUF_INIT;
    char fill[512];
    size_t room, k;

    for (k = 0; k < 2; k++) {
        strbuf_release(&sb);
        cr_assert_eq(strbuf_addstr(&sb, "ab"), 0);
        room = sb.alloc - sb.len;
        cr_assert(room - k < sizeof(fill));
        memset(fill, 'y', room - k);
        fill[room - k] = '\0';
        cr_assert_eq(strbuf_addf(&sb, "%s", fill), 0);
        cr_expect_eq(sb.len, 2 + room - k);
        cr_expect_eq(strlen(sb.buf), sb.len);
        cr_expect_eq(sb.buf[sb.len - 1], 'y');
        cr_expect(sb.alloc > sb.len);
    }
    strbuf_release(&sb);
}

Test(strbuf, detach)
{
    struct strbuf sb = STRBUF_INIT;
    size_t len = 99;
    char *s;

    s = strbuf_detach(&sb, &len); /* unallocated: a new "" all the same */
    cr_assert(s);
    cr_expect_str_eq(s, "");
    cr_expect_eq(len, 0);
    free(s);
    cr_assert_eq(strbuf_addstr(&sb, "kept"), 0);
    s = strbuf_detach(&sb, NULL);
    cr_expect_str_eq(s, "kept");
    cr_expect_eq(sb.buf, strbuf_empty);
    cr_expect_eq(sb.alloc, 0);
    free(s);
    strbuf_release(&sb);
}

/* A size past SIZE_MAX is refused before any allocation: ENOMEM, the
 * message set, the string unchanged. */
Test(strbuf, overflowing_size_is_enomem)
{
    struct strbuf sb = STRBUF_INIT;

    cr_assert_eq(strbuf_addstr(&sb, "abc"), 0);
    err_clear();
    cr_expect_eq(strbuf_grow(&sb, SIZE_MAX - 2), BAECHI_ENOMEM);
    cr_expect(strstr(err_msg(), "out of memory"), "message: %s", err_msg());
    cr_expect_str_eq(sb.buf, "abc");
    cr_expect_eq(sb.len, 3);
    err_clear();
    cr_expect_eq(strbuf_add(&sb, "x", SIZE_MAX), BAECHI_ENOMEM);
    cr_expect(strstr(err_msg(), "overflows"), "message: %s", err_msg());
    cr_expect_str_eq(sb.buf, "abc");
    strbuf_release(&sb);
}

/* The process's address space at its current size plus 16 MB (Criterion
 * runs each test in its own process): a 128 MB string then fails in malloc
 * itself, through core/alloc.c.  Not under AddressSanitizer, whose shadow
 * memory needs the address space. */
static int limit_address_space(void)
{
    unsigned long pages = 0;
    struct rlimit rl;
    FILE *f = fopen("/proc/self/statm", "r");

    if (!f) {
        return -1;
    }
    if (fscanf(f, "%lu", &pages) != 1) {
        fclose(f);
        return -1;
    }
    fclose(f);
    if (getrlimit(RLIMIT_AS, &rl) != 0) {
        return -1;
    }
    rl.rlim_cur = (rlim_t)pages * 4096 + ((rlim_t)16 << 20);
    return setrlimit(RLIMIT_AS, &rl);
}

Test(strbuf, allocation_failure_leaves_the_string)
{
    struct strbuf sb = STRBUF_INIT;
    size_t big = (size_t)128 << 20;
    int rc;

    if (STRBUF_TEST_ASAN) {
        cr_skip_test("AddressSanitizer needs the address space");
    }
    cr_assert_eq(strbuf_addf(&sb, "name_%d", 1), 0);
    cr_assert_eq(limit_address_space(), 0);
    err_clear();
    rc = strbuf_grow(&sb, big);
    cr_expect_eq(rc, BAECHI_ENOMEM);
    cr_expect(strstr(err_msg(), "out of memory ("), "message: %s", err_msg());
    cr_expect_str_eq(sb.buf, "name_1");
    err_clear();
    /* addf of a long output, past the room a first try had */
    rc = strbuf_addf(&sb, "%*s", (int)big, "");
    cr_expect_eq(rc, BAECHI_ENOMEM);
    cr_expect(strstr(err_msg(), "out of memory ("), "message: %s", err_msg());
    cr_expect_str_eq(sb.buf, "name_1");
    cr_expect_eq(sb.len, 6);
    cr_assert_eq(strbuf_addstr(&sb, "/ok"), 0); /* still usable */
    cr_expect_str_eq(sb.buf, "name_1/ok");
    strbuf_release(&sb);
}
