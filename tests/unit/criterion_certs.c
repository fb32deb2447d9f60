/*
 * criterion_certs.c - not a test: the unit-test program's own definition
 * of mbedtls_x509_crt_parse_file(), which loads nothing.
 *
 * Criterion links libgit2 (for the diffs of its string assertions), and
 * libgit2, when Criterion initialises it, parses the system's whole CA
 * bundle (about 140 certificates, base64 and ASN.1) with mbed TLS: in every
 * test's process, since Criterion runs each test in a process of its own.
 * That was a fifth of the CPU of a test's process under ASan (more heap to
 * allocate, record and scan for leaks at exit) and a tenth without: 10 s
 * of `make check` (docs/testing.md "Speed").  The tests open no TLS
 * connection, so the program's definition (exported: Makefile, $(UNIT))
 * takes the place of the library's: "loaded", with no certificate.
 */
#include <stddef.h>

int mbedtls_x509_crt_parse_file(void *chain, const char *path);

int mbedtls_x509_crt_parse_file(void *chain, const char *path)
{
    (void)chain;
    (void)path;
    return 0;
}
