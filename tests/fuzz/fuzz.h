/*
 * fuzz.h - what the fuzz harnesses of tests/fuzz/ share (docs/fuzzing.md).
 *
 * Each harness is one fuzz_one_input over one reader of the suite.  The
 * common entry, LLVMFuzzerTestOneInput (tests/fuzz/options.c, linked into
 * every fuzz and replay binary), clears the error message and silences
 * warnings before each input, then calls it: a message left by an earlier
 * input must not hide a later rejection without one.
 * Beyond the sanitizers, a harness aborts (a finding) when
 *   - a rejected input gives a code that is not "bad input" (exit 2): an
 *     ENOMEM or EIO for a malformed file would make the program exit 1;
 *   - a rejection leaves no message;
 *   - an accepted input cannot be written back, or what was written does not
 *     read back (a file the suite writes must load again).
 *
 * Part of baechi-c; see README.md for the licence.
 */
#ifndef BAECHI_TESTS_FUZZ_H
#define BAECHI_TESTS_FUZZ_H

#include "core/err.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* The libFuzzer entry (tests/fuzz/options.c): err_clear(), err_set_quiet(1),
 * then fuzz_one_input(data, size). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* One input through one harness (tests/fuzz/fuzz_<target>.c); returns 0. */
int fuzz_one_input(const uint8_t *data, size_t size);

static inline void fuzz_fail(const char *what, int rc)
{
    fprintf(stderr, "fuzz finding: %s (code %d): %s\n", what, rc, err_msg());
    abort();
}

/* A reader's result on arbitrary input: 0, or bad input with a message.
 * On 0 the message is cleared too, so that the harness's next check does not
 * see a message the accepted call left behind (one it set and recovered
 * from). */
static inline void fuzz_check_rejection(int rc)
{
    if (rc == 0) {
        err_clear();
        return;
    }
    if (err_exit_status(rc) != EXIT_BADINPUT) {
        fuzz_fail("malformed input not reported as bad input (exit 2)", rc);
    }
    if (!err_msg()[0]) {
        fuzz_fail("rejection without a message", rc);
    }
}

/* Writes through fn(f, ctx) into memory; the text (free it) and its length. */
static inline char *fuzz_write(int (*fn)(FILE *, const void *), const void *ctx, size_t *len)
{
    char *buf = NULL;
    FILE *f = open_memstream(&buf, len);
    int rc;

    if (!f) {
        abort();
    }
    rc = fn(f, ctx);
    if (fclose(f) != 0 || rc != 0) {
        fuzz_fail("an accepted input could not be written back", rc);
    }
    return buf;
}

#endif
