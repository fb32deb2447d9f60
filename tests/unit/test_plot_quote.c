/*
 * test_plot_quote.c - the one gnuplot string quoter (plot_internal.h): edge
 * cases; a fuzz round of 100,000 names, each quoted form checked against
 * the grammar of what gnuplot leaves alone (single-quoted pieces, and
 * pieces of escapes only) and decoded to the bytes given; and the same
 * names, made of backquotes, $(...), @macros, quotes and newlines, fed
 * through one real gnuplot process (when installed), which must print each
 * back byte for byte and run nothing.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "results/plot_internal.h"

#include "core/alloc.h"

#include <criterion/criterion.h>
#include <dirent.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A '...' piece at q[*i] (no control byte; no quote inside, since gnuplot
 * 5.4 misreads '' in some places) appended to out. */
static bool single_piece(const char *q, size_t n, size_t *i, char *out, size_t *k, size_t size)
{
    if (q[*i] != '\'') {
        return false;
    }
    for ((*i)++; *i < n; (*i)++) {
        unsigned char c = (unsigned char)q[*i];
        if (c == '\'') {
            (*i)++;
            return true;
        }
        if (c < 0x20 || c == 0x7f) {
            return false;
        }
        if (*k + 1 >= size) {
            return false;
        }
        out[(*k)++] = (char)c;
    }
    return false; /* not closed */
}

/* A "..." piece of escapes only (\n, \ooo): nothing gnuplot could substitute. */
static bool escape_piece(const char *q, size_t n, size_t *i, char *out, size_t *k, size_t size)
{
    if (q[*i] != '"') {
        return false;
    }
    for ((*i)++; *i < n && q[*i] != '"'; (*i)++) {
        unsigned char c;
        if (q[*i] != '\\' || *i + 1 >= n) {
            return false;
        }
        (*i)++;
        if (q[*i] == 'n') {
            c = '\n';
        } else if (*i + 2 < n && q[*i] >= '0' && q[*i] <= '3' && q[*i + 1] >= '0' &&
                   q[*i + 1] <= '7' && q[*i + 2] >= '0' && q[*i + 2] <= '7') {
            c = (unsigned char)((q[*i] - '0') * 64 + (q[*i + 1] - '0') * 8 + (q[*i + 2] - '0'));
            *i += 2;
        } else {
            return false;
        }
        if (*k + 1 >= size) {
            return false;
        }
        out[(*k)++] = (char)c;
    }
    if (*i >= n) {
        return false;
    }
    (*i)++;
    return true;
}

/*
 * The grammar: '...' alone, or ( piece . piece ... ) where a piece is
 * '...' or "escapes"; decoded into out.  Whatever else a quoted form holds
 * (a double-quoted backquote, @, $, a raw line break) fails here.
 */
static bool decode(const char *q, char *out, size_t size)
{
    size_t n = strlen(q), i = 0, k = 0;

    if (n > 0 && q[0] == '\'') {
        if (!single_piece(q, n, &i, out, &k, size) || i != n) {
            return false;
        }
        out[k] = '\0';
        return true;
    }
    if (n < 2 || q[0] != '(' || q[n - 1] != ')') {
        return false;
    }
    for (i = 1;;) {
        if (!single_piece(q, n - 1, &i, out, &k, size) &&
            !escape_piece(q, n - 1, &i, out, &k, size)) {
            return false;
        }
        if (i == n - 1) {
            break;
        }
        if (q[i++] != '.') {
            return false;
        }
    }
    out[k] = '\0';
    return true;
}

static void check(const char *s)
{
    char *q = plot_gp_quote_str(s), back[1024];

    cr_assert_not_null(q);
    cr_assert(decode(q, back, sizeof(back)), "not gnuplot-inert: %s", q);
    cr_assert_null(strchr(q, '\n'));
    cr_assert_null(strchr(q, '\r'));
    cr_assert_str_eq(back, s, "quoted %s", q);
    free(q);
}

static void expect_quoted(const char *s, const char *want)
{
    char *q = plot_gp_quote_str(s);

    cr_assert_str_eq(q, want);
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
    check("w`touch X`");
    check("$(touch X) @M ''");
    expect_quoted("w`touch X`", "'w`touch X`'");
    expect_quoted("it's", "('it'.\"\\047\".'s')");
    expect_quoted("a\nb", "('a'.\"\\n\".'b')");
    expect_quoted("\n\n'", "(\"\\n\\n\\047\")");
    expect_quoted("x\x01", "('x'.\"\\001\")");
    expect_quoted(NULL, "''");
    expect_quoted("", "''");
    /* paths: "./" before a name gnuplot would take for a command or the home */
    q = plot_gp_path_str("<touch X.csv");
    cr_assert_str_eq(q, "'./<touch X.csv'");
    free(q);
    q = plot_gp_path_str("|touch X.png");
    cr_assert_str_eq(q, "'./|touch X.png'");
    free(q);
    q = plot_gp_path_str("~/a\n.png");
    cr_assert_str_eq(q, "('./~/a'.\"\\n\".'.png')");
    free(q);
    q = plot_gp_path_str("/tmp/a.png");
    cr_assert_str_eq(q, "'/tmp/a.png'");
    free(q);
    q = plot_gp_path_str("../a.png");
    cr_assert_str_eq(q, "'../a.png'");
    free(q);
}

/* xorshift64: the same names each run */
static uint64_t next(uint64_t *x)
{
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    return *x;
}

/*
 * The i-th fuzzed name into s (size 128): hostile fragments (a command in
 * backquotes or $(), an @macro, both quotes, a backslash, a newline, a
 * system() call, a data block's end) mixed with random bytes.
 */
static void fuzz_name(uint64_t *x, char *s)
{
    static const char *const frag[] = {"`touch PWNED_BQ`",
                                       "$(touch PWNED_DS)",
                                       "@M",
                                       "@M ",
                                       "'",
                                       "''",
                                       "\"",
                                       "\\",
                                       "\n",
                                       "\r",
                                       "\t",
                                       "\x1b[31m",
                                       ";",
                                       "#",
                                       "|",
                                       "<",
                                       "~/",
                                       "system('touch PWNED_SY')",
                                       "\";system(\"touch PWNED_D\");\"",
                                       "';system('touch PWNED_S');'",
                                       "EOD",
                                       "\nEOD\n",
                                       "\\`",
                                       ".",
                                       "(",
                                       ")",
                                       "\xc3\xa9"};
    size_t nf = sizeof(frag) / sizeof(frag[0]), k = 0;
    int parts = (int)(next(x) % 6);

    for (int p = 0; p < parts; p++) {
        uint64_t r = next(x);
        if (r % 3 == 0) {
            s[k++] = (char)(1 + (r >> 8) % 255); /* any byte but NUL */
        } else {
            const char *f = frag[(r >> 8) % nf];
            size_t n = strlen(f);
            if (k + n < 120) {
                memcpy(s + k, f, n);
                k += n;
            }
        }
    }
    s[k] = '\0';
}

static long fuzz_count(void)
{
    /* 100,000 names in make check; BAECHI_QUOTE_FUZZ_N=1000000 for a longer round */
    const char *env = getenv("BAECHI_QUOTE_FUZZ_N");
    return env ? strtol(env, NULL, 10) : 100000;
}

Test(plot_quote, fuzz)
{
    uint64_t x = 0x9e3779b97f4a7c15u;
    char s[128];
    long n_names = fuzz_count();

    for (long t = 0; t < n_names; t++) {
        fuzz_name(&x, s);
        check(s);
    }
}

/* Files in dir other than the two the test wrote. */
static int stray_files(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int n = 0;

    cr_assert_not_null(d);
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") && strcmp(e->d_name, "t.gp") &&
            strcmp(e->d_name, "printed")) {
            cr_log_error("gnuplot made '%s'", e->d_name);
            n++;
        }
    }
    closedir(d);
    return n;
}

/*
 * The same names through one real gnuplot: each printed back, byte for
 * byte, and nothing run (a backquote, $(), system() or @M that gnuplot
 * obeyed would make a PWNED_* file or change what is printed).  Also the
 * names as values of an inline data block drawn with xtic labels (data:
 * gnuplot must not run them either).
 */
Test(plot_quote, through_gnuplot)
{
    char dir[] = "/tmp/baechi-quote-XXXXXX", *gnuplot = plot_find_gnuplot(), *cmd = NULL;
    char path[64], s[128], *want = NULL, *got = NULL;
    size_t nwant = 0, ngot = 0, cap = 0;
    uint64_t x = 0x9e3779b97f4a7c15u;
    long n_names = fuzz_count();
    FILE *gp, *w;

    if (!gnuplot) {
        cr_skip_test("gnuplot is not installed");
    }
    cr_assert_not_null(mkdtemp(dir));
    snprintf(path, sizeof(path), "%s/t.gp", dir);
    gp = fopen(path, "w");
    w = open_memstream(&want, &nwant);
    cr_assert(gp && w);
    fputs("M = 'print system(''touch PWNED_M'')'\nset print 'printed'\n", gp);
    for (long t = 0; t < n_names; t++) {
        fuzz_name(&x, s);
        fputs("print ", gp);
        plot_gp_quote(gp, s);
        fputc('\n', gp);
        fprintf(w, "%s\n", s);
    }
    fputs("unset print\n$d << EOD\n", gp);
    x = 0x9e3779b97f4a7c15u;
    for (long t = 0; t < 2000 && t < n_names; t++) {
        fuzz_name(&x, s);
        plot_gp_datum(gp, s);
        fprintf(gp, " %ld\n", t);
    }
    fputs("EOD\nset terminal dumb\nset output '/dev/null'\n"
          "plot $d using 0:2:xtic(1) with points title columnheader(1)\n",
          gp);
    cr_assert_eq(fclose(gp), 0);
    cr_assert_eq(fclose(w), 0);
    cr_assert_geq(mem_asprintf(&cmd, "cd '%s' && '%s' t.gp > /dev/null 2>&1", dir, gnuplot), 0);
    cr_assert_eq(system(cmd), 0, "gnuplot failed on %s", path);
    cr_assert_eq(stray_files(dir), 0, "gnuplot ran a command from a name");
    snprintf(path, sizeof(path), "%s/printed", dir);
    gp = fopen(path, "rb");
    cr_assert_not_null(gp);
    got = malloc(nwant + 2);
    cap = nwant + 2;
    ngot = fread(got, 1, cap, gp);
    fclose(gp);
    cr_assert_eq(ngot, nwant, "printed %zu bytes, expected %zu", ngot, nwant);
    cr_assert(memcmp(got, want, nwant) == 0, "a name printed differently");
    unlink(path);
    snprintf(path, sizeof(path), "%s/t.gp", dir);
    unlink(path);
    rmdir(dir);
    free(cmd);
    free(got);
    free(want);
    free(gnuplot);
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
    plot_gp_datum(f, "a\"`b`");
    fputc(' ', f);
    plot_gp_datum(f, "");
    fclose(f);
    cr_assert_str_eq(buf, "0.25 1e3 \"EOD?system('x')\" \"a?`b`\" \"\"");
    free(buf);
}
