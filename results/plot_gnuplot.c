/*
 * plot_gnuplot.c - the gnuplot side of the plots (plot_internal.h): the one
 * string quoter every name goes through, the terminals, temporary files
 * beside their targets, and gnuplot run as a child with its output captured.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "results/plot_internal.h"

#include "core/alloc.h"
#include "core/array.h"
#include "core/err.h"
#include "core/escape.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* ------------------------------------------------------------ quoting */

/* A byte that a '...' string cannot hold (see quote2). */
static bool not_single(unsigned char c)
{
    return c < 0x20 || c == 0x7f || c == '\'';
}

/*
 * The string a then b, quoted.  Why single quotes: gnuplot runs `...`
 * through the shell inside a double-quoted string (and in an -e argument)
 * before it reads any escape, so no backslash can guard a backquote there;
 * inside '...' it substitutes nothing (no backquote, no @macro, no
 * escape).  A single-quoted string cannot hold a control byte (a newline
 * would end the command), and gnuplot 5.4 misreads a quote written twice
 * ('' ) at the start of the string or after another: those bytes are
 * concatenated as "\n" or "\ooo" pieces, strings of escapes only, with
 * nothing to substitute.
 */
static void quote2(FILE *f, const char *a, const char *b)
{
    const unsigned char *part[2] = {(const unsigned char *)a, (const unsigned char *)b};
    bool pieces = false;
    char open = 0; /* the quote of the piece being written, 0 before the first */

    for (int k = 0; k < 2; k++) {
        for (const unsigned char *q = part[k]; *q && !pieces; q++) {
            pieces = not_single(*q);
        }
    }
    if (!pieces) {
        fprintf(f, "'%s%s'", a, b);
        return;
    }
    fputc('(', f);
    for (int k = 0; k < 2; k++) {
        for (const unsigned char *p = part[k]; *p; p++) {
            char want = not_single(*p) ? '"' : '\'';
            if (want != open) {
                if (open) {
                    fputc(open, f);
                    fputc('.', f);
                }
                fputc(want, f);
                open = want;
            }
            if (want == '\'') {
                fputc(*p, f);
            } else if (*p == '\n') {
                fputs("\\n", f);
            } else {
                /* three digits always: a digit after the escape stays a digit */
                fprintf(f, "\\%03o", (unsigned)*p);
            }
        }
    }
    fputc(open, f);
    fputc(')', f);
}

void plot_gp_quote(FILE *f, const char *s)
{
    quote2(f, "", s ? s : "");
}

void plot_gp_path(FILE *f, const char *path)
{
    path = path ? path : "";
    /* gnuplot reads "<cmd" as a command's output, "|cmd" as an output
     * through a command, "~/" as the home: a path it takes literally starts
     * with '/' or '.' */
    quote2(f, path[0] == '/' || path[0] == '.' ? "" : "./", path);
}

static char *to_str(void (*fn)(FILE *, const char *), const char *s)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = mem_open_memstream(&buf, &len);

    if (!f) {
        return NULL;
    }
    fn(f, s);
    if (fclose(f) != 0 || !buf) { /* !buf: fclose's realloc failed */
        free(buf);
        return NULL;
    }
    return buf;
}

char *plot_gp_quote_str(const char *s)
{
    return to_str(plot_gp_quote, s);
}

char *plot_gp_path_str(const char *path)
{
    return to_str(plot_gp_path, path);
}

void plot_gp_datum(FILE *f, const char *s)
{
    char *end = NULL;

    if (s && *s && (strtod(s, &end), *end == '\0') && !strpbrk(s, " \t\r\n\v\f")) {
        fputs(s, f);
        return;
    }
    /* data, not a command (gnuplot substitutes nothing in a data line, checked
     * by test_plot_quote.c): one double-quoted field, which has no escape */
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
        fputc(*p < 0x20 || *p == 0x7f || *p == '"' ? '?' : *p, f);
    }
    fputc('"', f);
}

void plot_csv_name(FILE *f, const char *s)
{
    const unsigned char *p = (const unsigned char *)(s ? s : "");
    bool quoted = strpbrk((const char *)p, ",\"") != NULL;

    /* a name on one line: gnuplot reads a row per line, a quoted field
     * across lines breaks the table */
    if (quoted) {
        fputc('"', f);
    }
    for (; *p; p++) {
        char one[3] = {(char)p[0], 0, 0}, buf[16];
        if (*p == '"') {
            fputs("\"\"", f);
            continue;
        }
        if (p[0] == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f) {
            one[1] = (char)*++p; /* a C1 control: two bytes */
        }
        fputs(escape_name(one, buf, sizeof(buf)), f);
    }
    if (quoted) {
        fputc('"', f);
    }
}

/* ------------------------------------------------------------ palette */

/* A configuration keeps its colour and marker across figures, so that the
 * reader learns them once (issue 19): a table keyed by the name, not the
 * order in which a figure happens to meet the configurations. */
static const struct {
    const char *config, *rgb;
    int pt;
    int dt; /* dash type; 0: the rule (dashed past a '+') */
} palette[] = {
    {"single", "#000000", 5, 0},
    {"expert", "#7f7f7f", 13, 0},
    {"auto", "#e6ab02", 15, 0},
    {"m-topo", "#1f77b4", 7, 0},
    {"m-topo+coplace+fusion", "#6baed6", 6, 0},
    {"m-topo+fusion", "#9ecae1", 4, 0},
    {"m-topo-nonuniform", "#08306b", 8, 0},
    {"m-etf", "#d62728", 11, 0},
    {"m-etf+coplace+fusion", "#ff9896", 10, 0},
    {"m-etf+fusion", "#e377c2", 12, 0},
    {"m-etf-reserve", "#67000d", 3, 0},
    {"paper", "#8c564b", 14, 0},
    {"m-sct", "#2ca02c", 9, 0},
    {"m-sct+coplace+fusion", "#98df8a", 8, 0},
    {"m-sct+fusion", "#bcbd22", 2, 0},
    {"m-sct-reserve", "#00441b", 1, 0},
    {"round-robin", "#9467bd", 4, 0},
    {"random", "#17becf", 2, 0},
    /* the parallel layouts of `workload parallelize` (the strategy
     * dimension): their own hues, solid lines, so that a figure mixing
     * them with the op placers reads with the same legend as every other */
    {"DP", "#ff7f0e", 5, 1},
    {"DP+ZeRO-1", "#fdae6b", 7, 1},
    {"DP+ZeRO-2", "#e6550d", 9, 1},
    {"DP+ZeRO-3", "#a63603", 11, 1},
    {"TP", "#7b4173", 13, 1},
    {"PP-GPipe", "#393b79", 6, 1},
    {"PP-1F1B", "#5254a3", 4, 1},
    {"best-hybrid", "#e7298a", 15, 1},
    /* the pipeline schedules (the pipeline dimension): hues of their own,
     * far apart, none of a placer's, dashed with recomputation
     * ("1f1b+full"), and no circle for a marker (a ring says out of
     * memory): a figure of schedules in panels per placer reads the
     * placers from the panels' titles only */
    {"gpipe", "#393b79", 4, 0},
    {"1f1b", "#008080", 8, 0},
    {"interleaved V=2", "#b15928", 12, 0},
};

void plot_config_style(const char *config, const char **rgb, int *pt, int *dt)
{
    const char *plus = config ? strchr(config, '+') : NULL;
    size_t n = sizeof(palette) / sizeof(palette[0]), base = plus ? (size_t)(plus - config) : 0;
    unsigned long h = 5381;

    config = config ? config : "";
    *dt = plus ? 2 : 1;
    for (size_t i = 0; i < n; i++) {
        if (strcmp(palette[i].config, config) == 0) {
            *rgb = palette[i].rgb;
            *pt = palette[i].pt;
            *dt = palette[i].dt ? palette[i].dt : *dt;
            return;
        }
    }
    for (const char *p = config; *p; p++) {
        h = h * 33 + (unsigned char)*p;
    }
    *pt = 1 + (int)(h % 15);
    for (size_t i = 0; plus && i < n; i++) {
        if (strlen(palette[i].config) == base && strncmp(palette[i].config, config, base) == 0) {
            /* a variant of a known name ("1f1b+full"): its colour and
             * marker, dashed */
            *rgb = palette[i].rgb;
            *pt = palette[i].pt;
            return;
        }
    }
    *rgb = palette[h % n].rgb;
}

bool plot_config_known(const char *config)
{
    const char *plus = config ? strchr(config, '+') : NULL;

    for (size_t i = 0; config && i < sizeof(palette) / sizeof(palette[0]); i++) {
        /* the name, or what precedes its '+' when that is no layout's
         * name ("1f1b+full" is 1f1b's, dashed; "DP+ZeRO-1" is its own) */
        if (strcmp(palette[i].config, config) == 0 ||
            (plus && strlen(palette[i].config) == (size_t)(plus - config) &&
             strncmp(palette[i].config, config, (size_t)(plus - config)) == 0 &&
             strncmp(config, "DP+", 3) != 0)) {
            return true;
        }
    }
    return false;
}

void plot_series_style(int i, const char **rgb, int *pt)
{
    /* the palette's distinct hues first (its lighter variants last) */
    static const char *const hues[] = {
        "#1f77b4", "#d62728", "#2ca02c", "#e6ab02", "#8c564b", "#7f7f7f", "#e377c2", "#000000",
        "#6baed6", "#ff9896", "#98df8a", "#bcbd22", "#08306b", "#67000d", "#00441b", "#9ecae1"};
    size_t n = sizeof(hues) / sizeof(hues[0]);

    i = i < 0 ? 0 : i;
    *rgb = hues[(size_t)i % n];
    *pt = 1 + i % 15;
}

/* ------------------------------------------------------------ terminals */

const char *plot_terminal_for(const char *out)
{
    const char *dot = strrchr(out, '.');

    if (!dot) {
        return NULL;
    }
    if (strcmp(dot, ".png") == 0) {
        return "pngcairo size 1100,600 noenhanced font ',10'";
    }
    if (strcmp(dot, ".svg") == 0) {
        return "svg size 1100,600 noenhanced font ',10'";
    }
    if (strcmp(dot, ".pdf") == 0) {
        return "pdfcairo size 11in,6in noenhanced font ',10'";
    }
    return NULL;
}

void plot_gp_terminal_height(FILE *gp, const char *out, int height_px)
{
    const char *dot = out ? strrchr(out, '.') : NULL;

    if (!dot) {
        return;
    }
    if (strcmp(dot, ".png") == 0) {
        fprintf(gp, "set terminal pngcairo size 1100,%d noenhanced font ',10'\n", height_px);
    } else if (strcmp(dot, ".svg") == 0) {
        fprintf(gp, "set terminal svg size 1100,%d noenhanced font ',10'\n", height_px);
    } else if (strcmp(dot, ".pdf") == 0) {
        fprintf(gp, "set terminal pdfcairo size 11in,%.2fin noenhanced font ',10'\n",
                height_px / 100.0);
    } else {
        return;
    }
    /* a new terminal closes the output: open it again */
    fputs("set output OUT\n", gp);
}

/* ------------------------------------------------------------ files */

int plot_make_tmp(const char *path, char **tmp)
{
    /* per thread (no shared state): a name two threads draw alike is only
     * a retry, O_EXCL below tells */
    static _Thread_local unsigned counter;
    struct stat sb;
    struct timespec ts;
    int fd = -1;

    *tmp = NULL;
    if (stat(path, &sb) == 0 && !S_ISREG(sb.st_mode)) {
        return 0;
    }
    clock_gettime(CLOCK_REALTIME, &ts);
    /* O_EXCL with mode 0666: the umask applies as to any new file (mkstemp makes 0600) */
    for (int attempt = 0; attempt < 100 && fd < 0; attempt++) {
        unsigned long x = (unsigned long)ts.tv_nsec * 2654435761u +
                          (unsigned long)getpid() * 40503u + counter++ * 7919u;
        free(*tmp);
        if (mem_asprintf(tmp, "%s.tmp-%06lx", path, x & 0xffffff) < 0) {
            *tmp = NULL;
            return err_set(BAECHI_ENOMEM, "out of memory");
        }
        fd = open(*tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd < 0 && errno != EEXIST) {
            break;
        }
    }
    if (fd < 0) {
        int e = errno;
        free(*tmp);
        *tmp = NULL;
        return err_set_io(e, "cannot write '%s'", path);
    }
    close(fd);
    return 0;
}

int plot_open_tmp(const char *path, char **tmp, FILE **f)
{
    int rc = plot_make_tmp(path, tmp);

    if (rc) {
        return rc;
    }
    if (!(*f = fopen(*tmp ? *tmp : path, "w"))) {
        int e = errno;
        if (*tmp) {
            unlink(*tmp);
            FREE_AND_NULL(*tmp);
        }
        return err_set_io(e, "cannot write '%s'", path);
    }
    return 0;
}

/* ------------------------------------------------------------ gnuplot */

char *plot_find_gnuplot(void)
{
    const char *env = getenv("BAECHI_GNUPLOT"), *path = getenv("PATH");
    char *buf = NULL;

    if (env && *env) {
        return access(env, X_OK) == 0 ? mem_strdup(env) : NULL;
    }
    while (path && *path) {
        const char *end = strchr(path, ':');
        size_t n = end ? (size_t)(end - path) : strlen(path);
        if (mem_asprintf(&buf, "%.*s/gnuplot", (int)n, n ? path : ".") < 0) {
            return NULL;
        }
        if (access(buf, X_OK) == 0) {
            return buf;
        }
        free(buf);
        buf = NULL;
        path = end ? end + 1 : NULL;
    }
    return NULL;
}

/* The last lines of the log (at most size - 1 bytes), without the final newline. */
static void log_tail(const char *log, char *buf, size_t size)
{
    FILE *f = fopen(log, "r");
    long n = 0;
    size_t got;

    buf[0] = '\0';
    if (!f) {
        return;
    }
    if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) > (long)size - 1) {
        fseek(f, n - (long)size + 1, SEEK_SET);
    } else {
        fseek(f, 0, SEEK_SET);
    }
    got = fread(buf, 1, size - 1, f);
    buf[got] = '\0';
    fclose(f);
    while (got > 0 && (buf[got - 1] == '\n' || buf[got - 1] == '\r')) {
        buf[--got] = '\0';
    }
    /* one line of message: gnuplot's lines joined */
    for (char *p = buf; *p; p++) {
        *p = *p == '\n' ? '|' : *p == '\r' ? ' ' : *p;
    }
}

int plot_run_gnuplot(const char *gnuplot, const char *script, const char *out, const char *log)
{
    char *set_out = NULL, *q = plot_gp_path_str(out), *arg = NULL, tail[1024];
    sigset_t mask;
    pid_t pid;
    int st = 0, rc = 0;

    /* the script as an argument: "./" before a relative name, which
     * gnuplot would take for an option ("-e") or stdin ("-") */
    if (!q || mem_asprintf(&set_out, "OUT = %s", q) < 0 ||
        mem_asprintf(&arg, "%s%s", script[0] == '/' ? "" : "./", script) < 0) {
        free(q);
        free(set_out);
        return err_set(BAECHI_ENOMEM, "out of memory");
    }
    free(q);
    fflush(NULL);
    /* no signal between the fork and gnuplot's pid set for the cleanup */
    plot_guard_hold(&mask);
    pid = fork();
    if (pid < 0) {
        plot_guard_release(&mask);
        rc = err_set(BAECHI_EIO, "cannot start gnuplot: %s", strerror(errno));
        goto cleanup;
    }
    if (pid == 0) {
        int fd;
        plot_guard_child_reset();
        plot_guard_release(&mask);
        fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (fd >= 0) {
            dup2(fd, 1);
            dup2(fd, 2);
            close(fd);
        }
        execl(gnuplot, "gnuplot", "-e", set_out, arg, (char *)NULL);
        _exit(127);
    }
    plot_guard_child(pid);
    plot_guard_release(&mask);
    while (waitpid(pid, &st, 0) < 0) {
        if (errno != EINTR) {
            plot_guard_child(0);
            rc = err_set(BAECHI_EIO, "waiting for gnuplot: %s", strerror(errno));
            goto cleanup;
        }
    }
    plot_guard_child(0);
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        log_tail(log, tail, sizeof(tail));
        rc = err_set(BAECHI_EIO, "gnuplot failed (%s %d) on script '%s'%s%s",
                     WIFEXITED(st) ? "exit status" : "signal",
                     WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st), script,
                     *tail ? "; gnuplot said: " : "", tail);
    }
cleanup:
    free(set_out);
    free(arg);
    return rc;
}
