/*
 * main.c - `baechi`: dispatches to the subcommands (git git.c); nothing else
 * lives here.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "cli/cmd.h"
#include "cli/commands.h"
#include "core/alloc.h"
#include "core/err.h"
#include "core/escape.h"
#include "core/file_out.h"
#include "core/version.h"
#include "results/db.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct cmd_struct commands[] = {
    {"workload", cmd_workload, "info, gen, train, import, annotate: inspect, generate, convert"},
    {"cluster", cmd_cluster, "list: the built-in cluster presets (devices, memory, links)"},
    {"place", cmd_place, "place a workload on a cluster (m-etf, m-sct, m-topo, ...)"},
    {"sim", cmd_sim, "simulate one step of a placed graph (--placement FILE)"},
    {"run", cmd_run, "place, then simulate with both models: one summary"},
    {"calibrate", cmd_calibrate, "measure the machine: fitted cluster file (cuda or cpu)"},
    {"replay", cmd_replay, "run a placed graph for real (CPU or CUDA), compare with the simulator"},
    {"sweep", cmd_sweep, "run a parameter sweep into a results database (-j, --mpi)"},
    {"report", cmd_report, "paper-style tables from a results database"},
    {"db", cmd_db, "schema, query, check: the results database"},
    {"plot", cmd_plot, "paper-style figures from a results database (gnuplot)"},
    {"validate", cmd_validate, "the suite against published references (ZeRO, Megatron, NCCL)"},
    {"bench", cmd_bench, "measure the suite's own speed (placers, simulator, sweeps)"},
    {NULL, NULL, NULL},
};

static void print_usage(FILE *f)
{
    fputs("usage: baechi [--version] [--help] <command> [<args>]\n\n"
          "Device placement of ML graphs on memory-limited GPUs (Baechi, SoCC 2020).\n\n"
          "commands:\n",
          f);
    for (const struct cmd_struct *c = commands; c->name; c++) {
        fprintf(f, "    %-10s %s\n", c->name, c->summary);
    }
    fputs("\nSee 'baechi <command> --help' for a command's options.\n"
          "Exit codes: 0 success, 1 internal error (out of memory, a failed write:\n"
          "full disk, read-only file system), 2 bad input or usage, 3 infeasible\n"
          "placement (a result).\n",
          f);
}

/*
 * Output to standard output is buffered: a full disk or /dev/full shows only
 * when the buffer is flushed, after the command has returned.  Flush and
 * close it here, once for every command, and turn a failure into a message
 * and exit 1 (git's check_write in git.c).  A closed pipe (EPIPE) is the
 * reader's choice, not an error: stay quiet, as git does.
 */
static int check_stdout(int status)
{
    int bad, e = 0;

    errno = 0;
    bad = fflush(stdout) != 0;
    e = errno;
    bad |= ferror(stdout) != 0;
    if (fclose(stdout) != 0) {
        bad = 1;
        e = errno ? errno : e;
    }
    if (!bad || e == EPIPE) {
        return status;
    }
    fprintf(stderr, "baechi: write error on standard output: %s\n", strerror(e ? e : EIO));
    return status ? status : EXIT_INTERNAL;
}

static int run_command(int argc, char **argv)
{
    /* Past a file-size limit, a write fails with EFBIG and the output is
     * abandoned cleanly (cmd_write_file) instead of the process being killed
     * with a temporary file left behind. */
    signal(SIGXFSZ, SIG_IGN);
    /* SIGTERM, SIGINT or SIGHUP during a write removes its temporary file
     * (core/file_out.h), then ends the process by that signal. */
    file_out_signals_install();
    if (argc < 2) {
        print_usage(stderr);
        return EXIT_BADINPUT;
    }
    if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0 ||
        strcmp(argv[1], "help") == 0) {
        print_usage(stdout);
        return EXIT_OK;
    }
    if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "version") == 0) {
        printf("baechi %s (%s)\n", BAECHI_VERSION, db_tool_version());
        return EXIT_OK;
    }
    for (const struct cmd_struct *c = commands; c->name; c++) {
        if (strcmp(c->name, argv[1]) == 0) {
            return c->fn(argc - 1, argv + 1);
        }
    }
    {
        const char *names[sizeof(commands) / sizeof(commands[0])];
        size_t n = 0;

        for (const struct cmd_struct *c = commands; c->name; c++) {
            names[n++] = c->name;
        }
        names[n] = NULL;
        fprintf(stderr, "baechi: '%s' is not a baechi command. See 'baechi --help'.\n",
                escape_tmp(argv[1]));
        cmd_print_suggestion(stderr, "command", argv[1], names);
    }
    return EXIT_BADINPUT;
}

#ifdef BAECHI_ALLOC_FAIL
/* The allocation-failure test build (core/alloc.h): scripts/alloc-fail.sh
 * learns from this line how many allocations an unfailed run makes. */
static void print_alloc_count(void)
{
    fprintf(stderr, "baechi: allocations: %lu\n", mem_alloc_count());
}
#endif

int main(int argc, char **argv)
{
#ifdef BAECHI_ALLOC_FAIL
    if (getenv("BAECHI_ALLOC_COUNT")) {
        atexit(print_alloc_count);
    }
#endif
    return check_stdout(run_command(argc, argv));
}
