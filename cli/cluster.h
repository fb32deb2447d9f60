/*
 * cluster.h - the cluster presets as `baechi cluster list` prints them,
 * shared with the `-c list` of the commands that take a cluster (place, run,
 * sim, replay).
 *
 * Part of baechi-c; see README.md for the licence.
 */
#ifndef BAECHI_CLI_CLUSTER_H
#define BAECHI_CLI_CLUSTER_H

#include <stdbool.h>
#include <stdio.h>

/* The value of -c / --cluster that lists the presets instead of naming one. */
#define CLUSTER_CLI_LIST "list"

/*
 * Prints every built-in preset (data/clusters/NAME.yaml, embedded): name,
 * device count, device kind, memory per device, the communication model
 * (link bandwidth = 1 / slope, latency = intercept, channel) and whether its
 * numbers are datasheet numbers or measured; as a table, or with `json` as
 * one object of docs/schema/cluster-list.json.  0, or the exit status of a
 * preset that does not load (message printed: a build error).
 */
int cluster_cli_print_list(FILE *f, bool json);

/* `baechi cluster gen` (cli/cluster_gen.c): writes a cluster file of nodes x
 * GPUs with a fat tree between the nodes; exit status. */
int cluster_cli_gen(int argc, char **argv);

#endif
