/*
 * commands.h - the handlers of `baechi`'s subcommands, one per line.  Each
 * lives with its part (../shared/STYLE.md §6).  To add a command: write
 * cmd_<name>() in your part's cmd_<name>.c, declare it here and add a row to
 * the commands[] table in main.c (and a CLI test, tests/cli/).
 *
 * Part of baechi-c; see README.md for the licence.
 */
#ifndef BAECHI_COMMANDS_H
#define BAECHI_COMMANDS_H

int cmd_workload(int argc, char **argv);          /* workloads/cmd_workload.c */
int cmd_sim(int argc, char **argv);               /* sim/cmd_sim.c */
int cmd_place(int argc, char **argv);             /* placers/cmd_place.c */
int cmd_run(int argc, char **argv);               /* placers/cmd_run.c */
int cmd_bench(int argc, char **argv);             /* bench.c */
int cmd_calibrate(int argc, char **argv);         /* calibrate/cmd_calibrate.c */
int cmd_replay(int argc, char **argv);            /* calibrate/cmd_replay.c */
int cmd_sweep(int argc, char **argv);             /* results/cmd_sweep.c */
int cmd_db(int argc, char **argv);                /* results/cmd_db.c */
int cmd_report(int argc, char **argv);            /* results/cmd_report.c */
int cmd_plot(int argc, char **argv);              /* results/cmd_plot.c */
int cmd_workload_annotate(int argc, char **argv); /* calibrate/annotate.c (workload verb) */

#endif
