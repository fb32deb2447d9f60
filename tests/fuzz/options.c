/*
 * options.c - the sanitizer options compiled into every fuzz binary, so that
 * build/fuzz/fuzz-* and replay-* run alone behave as under run.sh: stop at
 * the first UBSan report, except the intended wraps of tests/fuzz/ubsan.supp
 * (FUZZ_UBSAN_SUPP, an absolute path set by mk/fuzz.mk).  UBSAN_OPTIONS in
 * the environment still overrides.
 *
 * Part of baechi-c; see README.md for the licence.
 */
const char *__ubsan_default_options(void);

const char *__ubsan_default_options(void)
{
    return "print_stacktrace=1:halt_on_error=1:suppressions=" FUZZ_UBSAN_SUPP;
}
