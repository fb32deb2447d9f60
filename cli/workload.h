/*
 * workload.h - handlers of the `baechi workload` verbs that live in
 * their own files (one line each; rows go in workload_verbs[] of
 * cmd_workload.c).
 *
 * Part of baechi-c; see README.md for the licence.
 */
#ifndef BAECHI_CLI_WORKLOAD_H
#define BAECHI_CLI_WORKLOAD_H

#include "cli/cmd.h"
#include "core/workload.h"
#include "workloads/train.h"

#include <stdio.h>

int cmd_workload_gen(int argc, char **argv);         /* cli/workload_gen.c */
int cmd_workload_train(int argc, char **argv);       /* cli/workload_gen.c */
int cmd_workload_import(int argc, char **argv);      /* cli/workload_import.c */
int cmd_workload_ops(int argc, char **argv);         /* cli/workload_ops.c */
int cmd_workload_parallelize(int argc, char **argv); /* cli/workload_parallelize.c */

/*
 * What gen, train, import and parallelize share: the options of the one
 * parameter table (workloads/gen_params.c), their names, placeholders and
 * help lines taken from it (issue 34 item 1: written once), one parser; and
 * writing the workload they made.  Row i of the table is option
 * WORKLOAD_OPT_TABLE + i.
 */
enum { WORKLOAD_OPT_TABLE = 1000 };

/*
 * Appends to t[*n], ... one option per row of the parameter table that has
 * every bit of `uses` (GEN_PARAM_SYNTHESIS: the training options of
 * `workload train` and `import --train`; GEN_PARAM_PARALLEL: the
 * parallelism options of `workload parallelize`), in the table's order, and
 * adds their count to *n.  t has room for GEN_PARAMS_MAX more rows.
 */
void workload_cli_table_opts(struct cmd_opt *t, int *n, unsigned uses);

/* Option `flag` ("--micro-batches") with p->optarg (NULL: a flag, "true")
 * into spec through the one parameter table (workloads/gen_params.c: its
 * bounds and words, gen_spec_set): 0, or 2 with the message printed. */
struct gen_spec;
int workload_cli_table_option(struct cmd_parser *p, const char *flag, struct gen_spec *spec);

/* Handles option c when it is one of the training options
 * (workload_cli_table_opts(.., GEN_PARAM_SYNTHESIS)): 0 done, 2 a bad value
 * (the message printed), -1 not one of them. */
int workload_cli_train_option(struct cmd_parser *p, int c, struct train_opts *o);

/* Refuses (exit 2, the message printed) a training option that cannot act
 * under the others: a --schedule other than the default with fewer than 2
 * micro-batches (one micro-batch runs the same under every schedule; issue
 * 33 item 2).  0 when they all take effect. */
int workload_cli_train_check(struct cmd_parser *p, const struct train_opts *o);

/* "--optimizer", ... for option c of the training options (the first
 * training option given names the conflict with --train); NULL for another c. */
const char *workload_cli_train_flag(int c);

/* Handles option c when it is one of the parallelism options
 * (workload_cli_table_opts(.., GEN_PARAM_PARALLEL)): 0 done, 2 a bad value
 * (the message printed), -1 not one of them. */
struct parallel_opts;
int workload_cli_parallel_option(struct cmd_parser *p, int c, struct parallel_opts *o);

/* Refuses (exit 2, the message printed) a parallelism option that cannot
 * act without its degree: --zero or --bucket-mb without --dp 2 or more, --sp
 * without --tp 2 or more, --pp-balance time without --pp 2 or more (issue 33
 * item 2: before, `gen --zero 1` wrote the graph of plain DDP, silently).
 * 0 when they all take effect. */
int workload_cli_parallel_check(struct cmd_parser *p, const struct parallel_opts *o);

/* Prints the per-device model state and collectives of a parallelised w to
 * f; 0 or the exit status. */
int workload_cli_parallel_summary(const struct workload *w, const struct parallel_opts *o, FILE *f);

/* Writes w to `path` ("-" = stdout): 0, or the exit status after printing
 * the message. */
int workload_cli_write(const struct workload *w, const char *path);

/*
 * After the options of `workload train` and `workload import`: exactly one
 * operand, the input (else "expected one <what> file"); the cost model of
 * `device` (when not NULL) into *cm (the text of a cluster device's kind in
 * the caller's strbuf kind: costmodel_from_spec); and `out` distinct from
 * the input ("the <what>") and the device file.  0, or the exit status with
 * the message printed.
 */
struct costmodel;
struct strbuf;
int workload_cli_finish(struct cmd_parser *p, const char *what, const char *out, const char *device,
                        struct costmodel *cm, struct strbuf *kind);

#endif
