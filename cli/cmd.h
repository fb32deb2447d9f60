/*
 * cmd.h - what every `baechi` subcommand shares: the handler type, one
 * option table that drives both getopt_long and --help (git parse-options,
 * lua.c print_usage), number parsing with clear messages, and opening
 * output files.
 *
 * A handler is `int cmd_<name>(int argc, char **argv)`: argv[0] is the
 * command's name ("sim", "workload info"); it returns the exit status
 * (0 ok, 2 bad input or usage, 3 infeasible placement; see err.h).
 *
 * Part of baechi-c; see README.md for the licence.
 */
#ifndef BAECHI_CLI_CMD_H
#define BAECHI_CLI_CMD_H

#include "core/file_out.h"
#include "core/placement.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef int (*cmd_fn)(int argc, char **argv);

struct cmd_struct {
    const char *name;
    cmd_fn fn;
    const char *summary; /* one line for `baechi --help` */
};

/* One option: long name, short letter (0 for none), argument placeholder
 * (NULL for a flag; "[=WHEN]" for an optional value, given only as
 * --name=VALUE, optarg NULL without) and the help line. */
struct cmd_opt {
    const char *name;
    int val; /* returned by cmd_getopt; a letter, or a value >= 256 */
    const char *arg;
    const char *help;
};

#define CMD_OPT_END                                                                                \
    {                                                                                              \
        NULL, 0, NULL, NULL                                                                        \
    }

struct cmd_parser {
    int argc;
    char **argv;
    const char *cmd;            /* "sim", "workload info" */
    const char *const *usage;   /* NULL-terminated usage lines */
    const struct cmd_opt *opts; /* ends with CMD_OPT_END; -h/--help is implicit */
    const char *optarg;         /* argument of the last option */
    const char *footer;         /* printed after the options (NULL: nothing) */
};

/*
 * Next option: its val, or -1 when options end (then argv[optind..] are the
 * operands; see cmd_operands), 'h' after printing help to stdout for -h /
 * --help, or '?' after printing "unrecognized option" to stderr.
 * Callers return 0 on 'h' and 2 on '?'.
 */
int cmd_getopt(struct cmd_parser *p);

/* Index of the first operand after cmd_getopt returned -1. */
int cmd_optind(void);

/* Prints the usage lines and the option table. */
void cmd_help(const struct cmd_parser *p, FILE *f);

/* "baechi <cmd>: <msg>" + "See 'baechi <cmd> --help'." on stderr; returns 2. */
int cmd_usage_error(const struct cmd_parser *p, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Prints "baechi: <err_msg()>" and returns the exit status for `code`. */
int cmd_fail(int code);

/* Strict number parsing of option values (whole string, range checked). */
int cmd_parse_int(const struct cmd_parser *p, const char *what, const char *s, long lo, long hi,
                  long *out);
int cmd_parse_double(const struct cmd_parser *p, const char *what, const char *s, double lo,
                     double hi, double *out);

/* Opens `path` for writing ("-" = stdout); message on failure, NULL. */
FILE *cmd_open_out(const char *path);
/* Closes what cmd_open_out returned; reports write errors (BAECHI_EIO). */
int cmd_close_out(FILE *f, const char *path);

/* Writes an output file whole or not at all: file_write_atomic (core/file_out.h). */
typedef file_write_fn cmd_write_fn;
int cmd_write_file(const char *path, cmd_write_fn fn, void *ctx);

/*
 * The one check of every command that writes files, before anything is
 * read or written: refuses an output that is the same file as an input, or
 * the same file as another output (a write would replace the other).  A
 * file is what stat() says, (st_dev, st_ino), not its spelling: "./w.yaml",
 * a hard or a symbolic link are the file they name.  An output that does
 * not exist yet is none of the inputs; two that do not exist yet are the
 * same when they name one entry of one directory (a dangling link is
 * followed to the file it would create).  NULL paths (absent options) and
 * "-" are skipped, and so is an output that exists and is no regular file
 * (/dev/null, a FIFO, /dev/stdout: written as they are).  An input that
 * does not exist (a cluster preset's name) is no file.  0, or
 * BAECHI_EINVAL with a message naming both options and the file ("output
 * 'r.db' (--csv) is also an input (--db 'r.db'); refusing to overwrite
 * it", "outputs -o 'p.yaml' and --placement-out './p.yaml' are the same
 * file; refusing to write both"), or BAECHI_ENOMEM.
 */
struct cmd_file {
    const char *path; /* NULL: absent, skipped */
    const char *what; /* the option: "--workload", "-o" */
};
int cmd_check_files(const struct cmd_file *in, size_t n_in, const struct cmd_file *out,
                    size_t n_out);
#define CMD_N(a) (sizeof(a) / sizeof((a)[0]))

/*
 * Writes a placement's options or stats (string pairs in the file) as one
 * JSON object of docs/json.md: "true"/"false" as booleans, numbers as
 * numbers, the rest as strings; counts take the JSON contract's names
 * (devices -> n_devices, nodes -> n_nodes, groups -> n_groups,
 * favourite_children -> n_favourite_children).
 */
void cmd_json_kv(FILE *f, const struct placement_kv *kv, int32_t n);

/* The head every placement result's JSON object starts with, on stdout:
 * `{"workload": W, "cluster": C, "placer": P` (the caller goes on with ", ..."). */
void cmd_json_placement_head(const char *workload, const char *cluster, const char *placer);

/*
 * The candidate closest to `word` by edit distance (insertions, deletions,
 * substitutions and swaps of neighbours, git's help.c), or NULL when none is
 * close enough to be a likely typo.  `candidates` ends with NULL.
 */
const char *cmd_did_you_mean(const char *word, const char *const *candidates);

/*
 * Prints "\nThe most similar <what> is\n\t<name>\n" to f when a candidate
 * is close to `word` (git's help.c wording); nothing otherwise.
 */
void cmd_print_suggestion(FILE *f, const char *what, const char *word,
                          const char *const *candidates);

/*
 * A cluster given on the command line: an existing file or a preset name.
 * Anything else is a usage error naming the closest preset; returns 0 or 2
 * (message printed).
 */
int cmd_check_cluster(const struct cmd_parser *p, const char *spec);

/*
 * A data file shipped with baechi, `rel` under data/ ("workloads/gnmt_v2/
 * gnmt_v2_b128_fwd.yaml"): data/<rel> when the current directory is a source
 * tree, else <datadir>/<rel> where datadir is $BAECHI_DATADIR or the
 * installed share/baechi.  Writes the path into buf and returns it.
 */
const char *cmd_data_path(const char *rel, char *buf, size_t size);

/* Dispatches argv[1] through a table of nested verbs ("workload info"). */
int cmd_dispatch(const char *group, const struct cmd_struct *verbs, int argc, char **argv);

#endif
