/*
 * fuzz_sweep.c - sweep file (results/sweep_file.c, sweep_spec_parse).  The
 * workloads and clusters it names are looked up relative to a directory
 * that does not exist, so only presets and gen: models resolve.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "tests/fuzz/fuzz.h"

#include "results/sweep.h"

int fuzz_one_input(const uint8_t *data, size_t size)
{
    struct sweep_spec s;
    int rc;

    rc = sweep_spec_parse(&s, (const char *)data, size, "/nonexistent-baechi-fuzz/sweep.yaml");
    fuzz_check_rejection(rc);
    if (rc == 0) {
        sweep_spec_release(&s);
    }
    return 0;
}
