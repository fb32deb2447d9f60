/*
 * cmd.c - shared CLI machinery (see cmd.h).
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "cli/cmd.h"

#include "core/alloc.h"
#include "core/cluster.h"
#include "core/err.h"
#include "core/strdist.h"
#include "core/escape.h"
#include "core/json_out.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define CMD_MAX_OPTS 64

int cmd_getopt(struct cmd_parser *p)
{
    struct option lopts[CMD_MAX_OPTS + 2];
    char sopts[3 * CMD_MAX_OPTS + 4];
    size_t ns = 0, nl = 0;
    int c;

    sopts[ns++] = ':'; /* report a missing argument as ':'; options may follow operands */
    for (const struct cmd_opt *o = p->opts; o && o->name; o++) {
        if (nl >= CMD_MAX_OPTS) {
            BUG("too many options for '%s'", p->cmd);
        }
        lopts[nl].name = o->name;
        /* "[=WHEN]": a value only as --name=VALUE (cmd.h) */
        lopts[nl].has_arg = !o->arg            ? no_argument
                            : o->arg[0] == '[' ? optional_argument
                                               : required_argument;
        lopts[nl].flag = NULL;
        lopts[nl].val = o->val;
        nl++;
        if (o->val > 0 && o->val < 128) {
            sopts[ns++] = (char)o->val;
            if (o->arg) {
                sopts[ns++] = ':';
            }
        }
    }
    lopts[nl++] = (struct option){"help", no_argument, NULL, 'h'};
    lopts[nl] = (struct option){NULL, 0, NULL, 0};
    sopts[ns++] = 'h';
    sopts[ns] = '\0';

    opterr = 0;
    c = getopt_long(p->argc, p->argv, sopts, lopts, NULL);
    p->optarg = optarg;
    if (c == 'h') {
        cmd_help(p, stdout);
        return 'h';
    }
    if (c == '?' || c == ':') {
        const char *bad = p->argv[optind - 1];

        if (c == ':') {
            cmd_usage_error(p, "option '%s' needs a value", bad);
        } else if (optopt && optopt < 128 && bad[0] == '-' && bad[1] != '-') {
            cmd_usage_error(p, "unrecognized option '-%c'", optopt);
        } else {
            cmd_usage_error(p, "unrecognized option '%s'", bad);
        }
        return '?';
    }
    return c;
}

int cmd_optind(void)
{
    return optind;
}

void cmd_help(const struct cmd_parser *p, FILE *f)
{
    for (const char *const *u = p->usage; u && *u; u++) {
        const char *line = *u;

        /* a line that says "or:" itself keeps one */
        line += strspn(line, " ");
        if (strncmp(line, "or:", 3) == 0) {
            line += 3 + strspn(line + 3, " ");
        }
        fprintf(f, "%s %s\n", u == p->usage ? "usage:" : "   or:", line);
    }
    if (p->opts && p->opts->name) {
        fputc('\n', f);
    }
    for (const struct cmd_opt *o = p->opts; o && o->name; o++) {
        char left[96];

        if (o->val > 0 && o->val < 128) {
            snprintf(left, sizeof(left), "-%c, --%s%s%s", o->val, o->name, o->arg ? " " : "",
                     o->arg ? o->arg : "");
        } else {
            snprintf(left, sizeof(left), "    --%s%s%s", o->name, o->arg ? " " : "",
                     o->arg ? o->arg : "");
        }
        fprintf(f, "    %-30s %s\n", left, o->help);
    }
    fprintf(f, "    %-30s %s\n", "-h, --help", "show this help");
    if (p->footer) {
        fprintf(f, "\n%s\n", p->footer);
    }
}

int cmd_usage_error(const struct cmd_parser *p, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;

    /* the message quotes the user's arguments: escaped, as err_set does */
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    fprintf(stderr, "baechi %s: %s\nSee 'baechi %s --help'.\n", p->cmd, escape_tmp(msg), p->cmd);
    return EXIT_BADINPUT;
}

int cmd_fail(int code)
{
    fprintf(stderr, "baechi: %s\n", err_msg());
    return err_exit_status(code);
}

int cmd_parse_int(const struct cmd_parser *p, const char *what, const char *s, long lo, long hi,
                  long *out)
{
    char *end;
    long v;

    errno = 0;
    v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi) {
        return cmd_usage_error(p, "%s must be an integer in %ld..%ld, not '%s'", what, lo, hi, s);
    }
    *out = v;
    return 0;
}

int cmd_parse_double(const struct cmd_parser *p, const char *what, const char *s, double lo,
                     double hi, double *out)
{
    char *end;
    double v;

    errno = 0;
    v = strtod(s, &end);
    if (errno || end == s || *end || !isfinite(v) || v < lo || v > hi) {
        return cmd_usage_error(p, "%s must be a number in %g..%g, not '%s'", what, lo, hi, s);
    }
    *out = v;
    return 0;
}

FILE *cmd_open_out(const char *path)
{
    FILE *f;

    if (strcmp(path, "-") == 0) {
        return stdout;
    }
    f = fopen(path, "w");
    if (!f) {
        err_set_io(errno, "cannot open '%s' for writing", path);
    }
    return f;
}

int cmd_close_out(FILE *f, const char *path)
{
    int bad;

    if (!f) {
        return 0;
    }
    errno = 0;
    bad = fflush(f) != 0 || ferror(f);
    if (f != stdout) {
        bad |= fclose(f) != 0;
    }
    if (bad) {
        return err_set_io(errno, "error writing '%s'", path);
    }
    return 0;
}

int cmd_write_file(const char *path, cmd_write_fn fn, void *ctx)
{
    return file_write_atomic(path, fn, ctx);
}

/*
 * Where a path's writes land, as (device, inode): of the file when it
 * exists, else of its directory together with the name in it, a dangling
 * symbolic link followed to its target first (fopen creates the target).
 * `known` is false when not even the directory exists: the write fails
 * anyway, and the spelling is all there is to compare.
 */
struct file_key {
    bool exists, regular, known;
    dev_t dev;
    ino_t ino;
    char name[PATH_MAX]; /* the name in the directory, when !exists */
};

static void file_key_of(const char *path, struct file_key *k)
{
    char cur[PATH_MAX], link[PATH_MAX], dir[PATH_MAX];
    struct stat st;
    const char *slash;

    memset(k, 0, sizeof(*k));
    if (stat(path, &st) == 0) {
        k->exists = k->known = true;
        k->regular = S_ISREG(st.st_mode);
        k->dev = st.st_dev;
        k->ino = st.st_ino;
        return;
    }
    if (strlen(path) >= sizeof(cur)) {
        return;
    }
    strcpy(cur, path);
    /* a dangling link: where the write would create the file (bounded: a loop stays unknown) */
    for (int hops = 0; lstat(cur, &st) == 0 && S_ISLNK(st.st_mode); hops++) {
        ssize_t n = readlink(cur, link, sizeof(link) - 1);

        if (hops >= 16 || n <= 0) {
            return;
        }
        link[n] = '\0';
        slash = strrchr(cur, '/');
        if (link[0] != '/' && slash) {
            if (snprintf(dir, sizeof(dir), "%.*s/%s", (int)(slash - cur), cur, link) >=
                (int)sizeof(dir)) {
                return;
            }
            strcpy(cur, dir);
        } else {
            strcpy(cur, link);
        }
    }
    slash = strrchr(cur, '/');
    if (!slash) {
        strcpy(dir, ".");
    } else {
        snprintf(dir, sizeof(dir), "%.*s", slash == cur ? 1 : (int)(slash - cur), cur);
    }
    if (stat(dir, &st) != 0) {
        return;
    }
    k->known = true;
    k->dev = st.st_dev;
    k->ino = st.st_ino;
    snprintf(k->name, sizeof(k->name), "%s", slash ? slash + 1 : cur);
}

/* Written through the file system: not "-", not a device or a pipe (written as they are). */
static bool file_key_counts(const struct cmd_file *f, const struct file_key *k)
{
    return f->path && strcmp(f->path, "-") != 0 && (!k->exists || k->regular);
}

static bool file_key_same(const struct cmd_file *a, const struct file_key *ka,
                          const struct cmd_file *b, const struct file_key *kb)
{
    if (ka->known != kb->known || ka->exists != kb->exists) {
        return !ka->known && !kb->known && strcmp(a->path, b->path) == 0;
    }
    if (!ka->known) {
        return strcmp(a->path, b->path) == 0;
    }
    return ka->dev == kb->dev && ka->ino == kb->ino &&
           (ka->exists || strcmp(ka->name, kb->name) == 0);
}

int cmd_check_files(const struct cmd_file *in, size_t n_in, const struct cmd_file *out,
                    size_t n_out)
{
    struct file_key *ko = NULL, ki;
    int rc = 0;

    if (n_out == 0) {
        return 0;
    }
    if (!(ko = mem_calloc(n_out, sizeof(*ko)))) {
        return err_set(BAECHI_ENOMEM, "out of memory");
    }
    for (size_t i = 0; i < n_out; i++) {
        if (out[i].path) {
            file_key_of(out[i].path, &ko[i]);
        }
    }
    for (size_t i = 0; i < n_out && !rc; i++) {
        if (!file_key_counts(&out[i], &ko[i])) {
            continue;
        }
        /* an input is a file that exists; an output that does not exist yet is none of them */
        for (size_t j = 0; j < n_in && ko[i].exists && !rc; j++) {
            if (!in[j].path || strcmp(in[j].path, "-") == 0) {
                continue;
            }
            file_key_of(in[j].path, &ki);
            if (ki.exists && ki.dev == ko[i].dev && ki.ino == ko[i].ino) {
                rc = err_set(BAECHI_EINVAL,
                             "output '%s' (%s) is also an input (%s '%s'); refusing to "
                             "overwrite it",
                             out[i].path, out[i].what, in[j].what, in[j].path);
            }
        }
        for (size_t j = i + 1; j < n_out && !rc; j++) {
            if (file_key_counts(&out[j], &ko[j]) &&
                file_key_same(&out[i], &ko[i], &out[j], &ko[j])) {
                rc = err_set(BAECHI_EINVAL,
                             "outputs %s '%s' and %s '%s' are the same file; refusing to "
                             "write both",
                             out[i].what, out[i].path, out[j].what, out[j].path);
            }
        }
    }
    free(ko);
    return rc;
}

int cmd_dispatch(const char *group, const struct cmd_struct *verbs, int argc, char **argv)
{
    char name[128];

    if (argc < 2 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
        FILE *f = argc < 2 ? stderr : stdout;

        fprintf(f, "usage: baechi %s <verb> [<args>]\n\nverbs:\n", group);
        for (const struct cmd_struct *v = verbs; v->name; v++) {
            fprintf(f, "    %-12s %s\n", v->name, v->summary);
        }
        fprintf(f, "\nSee 'baechi %s <verb> --help'.\n", group);
        return argc < 2 ? EXIT_BADINPUT : EXIT_OK;
    }
    for (const struct cmd_struct *v = verbs; v->name; v++) {
        if (strcmp(v->name, argv[1]) == 0) {
            snprintf(name, sizeof(name), "%s %s", group, v->name);
            argv[1] = name;
            optind = 1;
            return v->fn(argc - 1, argv + 1);
        }
    }
    {
        const char *names[64];
        size_t n = 0;

        for (const struct cmd_struct *v = verbs; v->name && n + 1 < 64; v++) {
            names[n++] = v->name;
        }
        names[n] = NULL;
        fprintf(stderr, "baechi %s: '%s' is not a verb of '%s'. See 'baechi %s --help'.\n", group,
                escape_tmp(argv[1]), group, group);
        cmd_print_suggestion(stderr, "verb", argv[1], names);
    }
    return EXIT_BADINPUT;
}

/* JSON's number grammar: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? */
static bool json_number(const char *s)
{
    if (*s == '-') {
        s++;
    }
    if (*s == '0') {
        s++;
    } else if (isdigit((unsigned char)*s)) {
        while (isdigit((unsigned char)*s)) {
            s++;
        }
    } else {
        return false;
    }
    if (*s == '.') {
        s++;
        if (!isdigit((unsigned char)*s)) {
            return false;
        }
        while (isdigit((unsigned char)*s)) {
            s++;
        }
    }
    if (*s == 'e' || *s == 'E') {
        s++;
        if (*s == '+' || *s == '-') {
            s++;
        }
        if (!isdigit((unsigned char)*s)) {
            return false;
        }
        while (isdigit((unsigned char)*s)) {
            s++;
        }
    }
    return *s == '\0';
}

void cmd_json_placement_head(const char *workload, const char *cluster, const char *placer)
{
    fputs("{\"workload\": ", stdout);
    json_out_str(stdout, workload);
    fputs(", \"cluster\": ", stdout);
    json_out_str(stdout, cluster);
    fputs(", \"placer\": ", stdout);
    json_out_str(stdout, placer);
}

void cmd_json_kv(FILE *f, const struct placement_kv *kv, int32_t n)
{
    static const char *const renames[][2] = {
        {"devices", "n_devices"},
        {"nodes", "n_nodes"},
        {"groups", "n_groups"},
        {"favourite_children", "n_favourite_children"},
    };

    fputc('{', f);
    for (int32_t i = 0; i < n; i++) {
        const char *key = kv[i].key, *v = kv[i].value ? kv[i].value : "";

        for (size_t r = 0; r < sizeof(renames) / sizeof(renames[0]); r++) {
            if (strcmp(key, renames[r][0]) == 0) {
                key = renames[r][1];
            }
        }
        fputs(i ? ", " : "", f);
        json_out_str(f, key);
        fputs(": ", f);
        if (strcmp(v, "true") == 0 || strcmp(v, "false") == 0 || json_number(v)) {
            fputs(v, f);
        } else {
            json_out_str(f, v);
        }
    }
    fputc('}', f);
}

/* strdist, but words past 64 characters are never a typo of a name. */
static size_t edit_distance(const char *a, const char *b)
{
    return strlen(a) > 64 || strlen(b) > 64 ? (size_t)-1 : strdist(a, b);
}

const char *cmd_did_you_mean(const char *word, const char *const *candidates)
{
    const char *best = NULL;
    size_t best_d = (size_t)-1, n = strlen(word);

    for (const char *const *c = candidates; c && *c; c++) {
        size_t d = edit_distance(word, *c);

        /* a prefix ("paper-4gpu" for "paper-4gpu-pcie") is as likely as a typo */
        if (n >= 3 && strncmp(word, *c, n) == 0) {
            d = 1;
        }
        if (d < best_d) {
            best_d = d;
            best = *c;
        }
    }
    /* git's help.c accepts a distance that is small next to the word */
    if (!best || best_d == 0 || best_d > 2 + n / 4 || best_d >= n) {
        return best_d == 0 ? best : NULL;
    }
    return best;
}

void cmd_print_suggestion(FILE *f, const char *what, const char *word,
                          const char *const *candidates)
{
    const char *best = cmd_did_you_mean(word, candidates);

    if (best) {
        fprintf(f, "\nThe most similar %s is\n\t%s\n", what, best);
    }
}

int cmd_check_cluster(const struct cmd_parser *p, const char *spec)
{
    const char *const *names = cluster_preset_names();
    struct stat st;

    /* a path is the loader's to report ("cannot open ...") */
    if ((stat(spec, &st) == 0 && !S_ISDIR(st.st_mode)) || strchr(spec, '/') ||
        strstr(spec, ".yaml") || strstr(spec, ".yml")) {
        return 0;
    }
    for (const char *const *n = names; *n; n++) {
        if (strcmp(*n, spec) == 0) {
            return 0;
        }
    }
    fprintf(stderr, "baechi %s: no cluster file or preset named '%s'\n", p->cmd, spec);
    cmd_print_suggestion(stderr, "preset", spec, names);
    fputs("\npresets:", stderr);
    for (const char *const *n = names; *n; n++) {
        fprintf(stderr, " %s", *n);
    }
    fprintf(stderr, "\nSee 'baechi %s --help'.\n", p->cmd);
    return EXIT_BADINPUT;
}

#ifndef BAECHI_DATADIR
#define BAECHI_DATADIR "/usr/local/share/baechi"
#endif

const char *cmd_data_path(const char *rel, char *buf, size_t size)
{
    const char *dir = getenv("BAECHI_DATADIR");

    snprintf(buf, size, "data/%s", rel);
    if (access(buf, R_OK) == 0) {
        return buf;
    }
    snprintf(buf, size, "%s/%s", dir && *dir ? dir : BAECHI_DATADIR, rel);
    return buf;
}
