/*
 * test_escape.c - control characters in names (core/escape.c) and in every
 * error message (core/err.c): issue 13, item 12.
 */
#include "core/err.h"
#include "core/escape.h"

#include <criterion/criterion.h>
#include <string.h>

Test(escape, names)
{
    char buf[64];

    cr_expect_str_eq(escape_name("plain/name:0", buf, sizeof(buf)), "plain/name:0");
    cr_expect_str_eq(escape_name("a\nb\tc\rd", buf, sizeof(buf)), "a\\nb\\tc\\rd");
    cr_expect_str_eq(escape_name("\x1b[31mred\x7f", buf, sizeof(buf)), "\\x1b[31mred\\x7f");
    cr_expect_str_eq(escape_name("\x01", buf, sizeof(buf)), "\\x01");
    /* C1 controls as UTF-8; other UTF-8 (µ is c2 b5) unchanged */
    cr_expect_str_eq(escape_name("\xc2\x9b"
                                 "2J \xc2\xb5s",
                                 buf, sizeof(buf)),
                     "\\u009b2J \xc2\xb5s");
    cr_expect_str_eq(escape_name("back\\slash", buf, sizeof(buf)), "back\\slash");
    cr_expect_str_eq(escape_name(NULL, buf, sizeof(buf)), "(null)");
    cr_expect(escape_needed("a\nb"));
    cr_expect(!escape_needed("a b"));
}

Test(escape, truncation_never_splits_an_escape)
{
    char buf[6];

    cr_expect_str_eq(escape_name("ab\x1b", buf, sizeof(buf)), "ab");
    cr_expect_str_eq(escape_name("abc\n", buf, sizeof(buf)), "abc\\n");
    cr_expect_str_eq(escape_name("abcdefgh", buf, sizeof(buf)), "abcde");
}

Test(escape, tmp_buffers_rotate)
{
    const char *a = escape_tmp("x\ny");
    const char *b = escape_tmp("\x1b");

    cr_expect_str_eq(a, "x\\ny");
    cr_expect_str_eq(b, "\\x1b");
}

Test(escape, messages_stay_one_line)
{
    err_set(BAECHI_EINVAL, "op '%s': bad", "a\nb\x1b[2J");
    cr_expect_str_eq(err_msg(), "op 'a\\nb\\x1b[2J': bad");
    /* err_set from err_msg() (the same buffer) is safe */
    err_set(BAECHI_EINVAL, "wrapped: %s", err_msg());
    cr_expect_str_eq(err_msg(), "wrapped: op 'a\\nb\\x1b[2J': bad");
    err_wrap(BAECHI_EINVAL, "file\n%s", "x");
    cr_expect_str_eq(err_msg(), "file\\nx: wrapped: op 'a\\nb\\x1b[2J': bad");
    cr_expect_null(strchr(err_msg(), '\n'));
}
