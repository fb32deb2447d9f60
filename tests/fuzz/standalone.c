/*
 * standalone.c - a main for the harnesses without libFuzzer: runs
 * LLVMFuzzerTestOneInput once on each file named (or on standard input),
 * for AFL++ (afl-clang-fast, `afl-fuzz -- build/fuzz/afl-NAME @@`) and for
 * replaying saved inputs with any compiler.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "tests/fuzz/fuzz.h"

#include <stdio.h>
#include <stdlib.h>

static int run_file(FILE *f, const char *name)
{
    unsigned char *buf = NULL;
    size_t len = 0, cap = 0, n;

    for (;;) {
        if (len == cap) {
            unsigned char *nb;

            cap = cap ? 2 * cap : 1 << 16;
            if (!(nb = realloc(buf, cap))) {
                fprintf(stderr, "%s: out of memory\n", name);
                free(buf);
                return 1;
            }
            buf = nb;
        }
        if ((n = fread(buf + len, 1, cap - len, f)) == 0) {
            break;
        }
        len += n;
    }
    if (ferror(f)) {
        fprintf(stderr, "%s: read error\n", name);
        free(buf);
        return 1;
    }
    LLVMFuzzerTestOneInput(buf, len);
    free(buf);
    return 0;
}

int main(int argc, char **argv)
{
    int rc = 0;

    if (argc < 2) {
        return run_file(stdin, "<stdin>");
    }
    for (int i = 1; i < argc; i++) {
        FILE *f = fopen(argv[i], "rb");

        if (!f) {
            perror(argv[i]);
            rc = 1;
            continue;
        }
        rc |= run_file(f, argv[i]);
        fclose(f);
    }
    return rc;
}
