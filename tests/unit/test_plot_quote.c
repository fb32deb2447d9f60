/*
 * test_plot_quote.c - the one gnuplot string quoter (plot_internal.h): edge
 * cases, and a fuzz round of random byte strings, each quoted form checked
 * to be one double-quoted gnuplot token without a line break that decodes
 * (as gnuplot reads "\n", "\ooo", "\\" and "\"") to the bytes given.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "results/plot_internal.h"

#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* One token: "...", no raw control byte, every inner quote escaped; decoded into out. */
static bool decode(const char *q, char *out, size_t size)
{
    size_t n = strlen(q), k = 0;

    if (n < 2 || q[0] != '"' || q[n - 1] != '"') {
        return false;
    }
    for (size_t i = 1; i + 1 < n; i++) {
        unsigned char c = (unsigned char)q[i];
        if (c < 0x20 || c == 0x7f || c == '"') {
            return false; /* a raw control byte, or a quote that ends the token early */
        }
        if (c == '\\') {
            if (i + 2 >= n) {
                return false; /* the escape would eat the closing quote */
            }
            c = (unsigned char)q[++i];
            if (c == 'n') {
                c = '\n';
            } else if (c >= '0' && c <= '7') {
                if (i + 3 >= n || q[i + 1] < '0' || q[i + 1] > '7' || q[i + 2] < '0' ||
                    q[i + 2] > '7') {
                    return false;
                }
                c = (unsigned char)((c - '0') * 64 + (q[i + 1] - '0') * 8 + (q[i + 2] - '0'));
                i += 2;
            } else if (c != '\\' && c != '"') {
                return false;
            }
        }
        if (k + 1 >= size) {
            return false;
        }
        out[k++] = (char)c;
    }
    out[k] = '\0';
    return true;
}

static void check(const char *s)
{
    char *q = plot_gp_quote_str(s), back[1024];

    cr_assert_not_null(q);
    cr_assert(decode(q, back, sizeof(back)), "not one token: %s", q);
    cr_assert_null(strchr(q, '\n'));
    cr_assert_null(strchr(q, '\r'));
    cr_assert_str_eq(back, s, "quoted %s", q);
    free(q);
}

Test(plot_quote, edge_cases)
{
    char *q;

    check("");
    check("plain.png");
    check("it's");
    check("say \"hi\"");
    check("back\\slash\\");
    check("e\nsystem(\"touch PWNED\")\n.png");
    check("cr\rlf\r\n");
    check("\t\x01\x1b[31m\x7f");
    check("\xff\xfe not utf-8 \xc3\x28");
    check("caf\xc3\xa9");
    check("\\\"\\'");
    check("\x01"
          "7 a digit after an escape");
    q = plot_gp_quote_str("a\nb");
    cr_assert_str_eq(q, "\"a\\nb\"");
    free(q);
    q = plot_gp_quote_str("x\x01y");
    cr_assert_str_eq(q, "\"x\\001y\"");
    free(q);
    q = plot_gp_quote_str(NULL);
    cr_assert_str_eq(q, "\"\"");
    free(q);
}

Test(plot_quote, fuzz)
{
    uint64_t x = 0x9e3779b97f4a7c15u; /* fixed seed: the same strings each run */
    char s[64];
    /* 100,000 names in make check; BAECHI_QUOTE_FUZZ_N=1000000 for the round */
    const char *env = getenv("BAECHI_QUOTE_FUZZ_N");
    long n_names = env ? strtol(env, NULL, 10) : 100000;

    for (long t = 0; t < n_names; t++) {
        int n;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        n = (int)(x % 40);
        for (int i = 0; i < n; i++) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            s[i] = (char)(1 + x % 255); /* every byte but NUL */
        }
        s[n] = '\0';
        check(s);
    }
}

Test(plot_quote, datum)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);

    plot_gp_datum(f, "0.25");
    fputc(' ', f);
    plot_gp_datum(f, "1e3");
    fputc(' ', f);
    plot_gp_datum(f, "EOD\nsystem('x')");
    fputc(' ', f);
    plot_gp_datum(f, "");
    fclose(f);
    cr_assert_str_eq(buf, "0.25 1e3 \"EOD\\nsystem('x')\" \"\"");
    free(buf);
}
