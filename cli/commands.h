/*
 * commands.h - the handlers of `baechi`'s subcommands, one per line (git's
 * builtin.h).  Each is one file in cli/ that parses its options, calls the
 * libraries below it and prints.  To add a command: write cmd_<name>() in
 * cli/<name>.c, declare it here, add a row to the commands[] table in
 * cli/main.c, and a CLI test in tests/cli/.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#ifndef BAECHI_CLI_COMMANDS_H
#define BAECHI_CLI_COMMANDS_H

int cmd_workload(int argc, char **argv);          /* cli/workload.c */
int cmd_sim(int argc, char **argv);               /* cli/sim.c */
int cmd_place(int argc, char **argv);             /* cli/place.c */
int cmd_run(int argc, char **argv);               /* cli/run.c */
int cmd_bench(int argc, char **argv);             /* cli/bench.c */
int cmd_bench_placement(int argc, char **argv);   /* cli/bench_placement.c */
int cmd_bench_scaling(int argc, char **argv);     /* cli/bench_scaling.c */
int cmd_bench_sim(int argc, char **argv);         /* cli/bench_sim.c */
int cmd_bench_scale(int argc, char **argv);       /* cli/bench_scale.c */
int cmd_calibrate(int argc, char **argv);         /* cli/calibrate.c */
int cmd_replay(int argc, char **argv);            /* cli/replay.c */
int cmd_sweep(int argc, char **argv);             /* cli/sweep.c */
int cmd_db(int argc, char **argv);                /* cli/db.c */
int cmd_report(int argc, char **argv);            /* cli/db.c */
int cmd_plot(int argc, char **argv);              /* cli/plot.c */
int cmd_workload_annotate(int argc, char **argv); /* cli/workload_annotate.c */
int cmd_cluster(int argc, char **argv);           /* cli/cluster.c */
int cmd_validate(int argc, char **argv);          /* cli/validate.c */

#endif
