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

int cmd_workload_gen(int argc, char **argv);    /* cli/workload_gen.c */
int cmd_workload_train(int argc, char **argv);  /* cli/workload_gen.c */
int cmd_workload_import(int argc, char **argv); /* cli/workload_import.c */
int cmd_workload_ops(int argc, char **argv);    /* cli/workload_ops.c */

/*
 * What gen, train and import share: the training options (one row each in
 * their option tables, one parser) and writing the workload they made.
 */
enum {
    WORKLOAD_OPT_OPTIMIZER = 600,
    WORKLOAD_OPT_BWD,
    WORKLOAD_OPT_MICRO,
    WORKLOAD_OPT_SAVE_ALL,
    WORKLOAD_OPT_RECOMPUTE
};
/* the pipeline schedule written with --micro-batches (core/pipeline.h) */
enum { WORKLOAD_OPT_SCHEDULE = 620, WORKLOAD_OPT_VSTAGES };

#define WORKLOAD_TRAIN_OPTS                                                                        \
    {"optimizer", WORKLOAD_OPT_OPTIMIZER, "NAME", "sgd | momentum | adam (default momentum)"},     \
        {"bwd-factor", WORKLOAD_OPT_BWD, "F",                                                      \
         "backward time, FLOPs and bytes = F x forward (default 2)"},                              \
        {"save-all-inputs", WORKLOAD_OPT_SAVE_ALL, NULL,                                           \
         "backward keeps every forward input, no shared storage (the rule before the memory "      \
         "model)"},                                                                                \
        {"micro-batches", WORKLOAD_OPT_MICRO, "M",                                                 \
         "M micro-batches of batch/M sharing the parameters, gradients accumulated, one "          \
         "update (GPipe-style pipelining; default 1)"},                                            \
        {"schedule", WORKLOAD_OPT_SCHEDULE, "S",                                                   \
         "with --micro-batches: the pipeline schedule the simulators run, gpipe | 1f1b | "         \
         "interleaved (default 1f1b; x-pipeline in the file)"},                                    \
        {"recompute", WORKLOAD_OPT_RECOMPUTE, "MODE",                                              \
         "none | full (re-run each layer inside backward, keeping its input) | selective "         \
         "(attention's scores and softmax only); default none"},                                   \
    {                                                                                              \
        "virtual-stages", WORKLOAD_OPT_VSTAGES, "V",                                               \
            "interleaved schedule: V chunks of layers per device (default 1)"                      \
    }

/* Handles option c when it is one of WORKLOAD_TRAIN_OPTS: 0 done, 2 a bad
 * value (the message printed), -1 not one of them. */
int workload_cli_train_option(struct cmd_parser *p, int c, struct train_opts *o);

/* Writes w to `path` ("-" = stdout): 0, or the exit status after printing
 * the message. */
int workload_cli_write(const struct workload *w, const char *path);

/*
 * After the options of `workload train` and `workload import`: exactly one
 * operand, the input (else "expected one <what> file"); the cost model of
 * `device` (when not NULL) into *cm (its kind text in kind[]); and `out`
 * distinct from the input ("the <what>") and the device file.  0, or the
 * exit status with the message printed.
 */
struct costmodel;
int workload_cli_finish(struct cmd_parser *p, const char *what, const char *out, const char *device,
                        struct costmodel *cm, char *kind, size_t kind_size);

#endif
