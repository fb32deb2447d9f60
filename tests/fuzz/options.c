/*
 * options.c - what every fuzz binary links besides its harness: the
 * sanitizer options, and the common entry LLVMFuzzerTestOneInput.
 *
 * The sanitizer options make build/fuzz/fuzz-* and replay-* run alone
 * behave as under run.sh: stop at the first UBSan report, except the
 * intended wraps of tests/fuzz/ubsan.supp (FUZZ_UBSAN_SUPP, an absolute path
 * set by mk/fuzz.mk).  UBSAN_OPTIONS in the environment still overrides.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "tests/fuzz/fuzz.h"

const char *__ubsan_default_options(void);

const char *__ubsan_default_options(void)
{
    return "print_stacktrace=1:halt_on_error=1:suppressions=" FUZZ_UBSAN_SUPP;
}

/* The one place every input goes through.  Without err_clear() the check
 * "rejection without a message" (fuzz.h) could fire at most once per
 * process: the first rejection's message would still be there for every
 * later one. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    err_clear();
    err_set_quiet(1);
    return fuzz_one_input(data, size);
}
