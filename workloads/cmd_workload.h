/*
 * cmd_workload.h - handlers of the `baechi workload` verbs that live in
 * their own files (one line each; rows go in workload_verbs[] of
 * cmd_workload.c).
 *
 * Part of baechi-c; see README.md for the licence.
 */
#ifndef BAECHI_WORKLOADS_CMD_WORKLOAD_H
#define BAECHI_WORKLOADS_CMD_WORKLOAD_H

int cmd_workload_gen(int argc, char **argv);    /* workloads/cmd_workload_gen.c */
int cmd_workload_train(int argc, char **argv);  /* workloads/cmd_workload_gen.c */
int cmd_workload_import(int argc, char **argv); /* workloads/cmd_workload_import.c */

#endif
