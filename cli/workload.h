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

/* Option `flag` ("--micro-batches") with p->optarg (NULL: a flag, "true")
 * into spec through the one parameter table (workloads/gen_params.c: its
 * bounds and words, gen_spec_set): 0, or 2 with the message printed. */
struct gen_spec;
int workload_cli_table_option(struct cmd_parser *p, const char *flag, struct gen_spec *spec);

/* Handles option c when it is one of WORKLOAD_TRAIN_OPTS: 0 done, 2 a bad
 * value (the message printed), -1 not one of them. */
int workload_cli_train_option(struct cmd_parser *p, int c, struct train_opts *o);

/* Refuses (exit 2, the message printed) a training option that cannot act
 * under the others: a --schedule other than the default with fewer than 2
 * micro-batches (one micro-batch runs the same under every schedule; issue
 * 33 item 2).  0 when they all take effect. */
int workload_cli_train_check(struct cmd_parser *p, const struct train_opts *o);

/* "--optimizer", ... for option c of WORKLOAD_TRAIN_OPTS (the first training
 * flag given names the conflict with --forward-only); NULL for another c. */
const char *workload_cli_train_flag(int c);

/*
 * The parallelism options of `workload parallelize` and `workload gen` (one
 * row each in their option tables, one parser: cli/workload_parallelize.c).
 */
enum {
    WORKLOAD_OPT_DP = 650,
    WORKLOAD_OPT_TP,
    WORKLOAD_OPT_PP,
    WORKLOAD_OPT_ZERO,
    WORKLOAD_OPT_BUCKET,
    WORKLOAD_OPT_MIXED,
    WORKLOAD_OPT_PP_BALANCE,
    WORKLOAD_OPT_FP32_GRADS,
    WORKLOAD_OPT_SP,
    WORKLOAD_OPT_SYMMETRIC
};

#define WORKLOAD_PARALLEL_OPTS                                                                     \
    {"dp", WORKLOAD_OPT_DP, "D",                                                                   \
     "data parallelism: D replicas, DDP bucket all-reduces (default 1)"},                          \
        {"tp", WORKLOAD_OPT_TP, "T",                                                               \
         "Megatron tensor parallelism over T GPUs (GPT and Transformer blocks; default 1)"},       \
        {"sp", WORKLOAD_OPT_SP, NULL,                                                              \
         "with --tp: Megatron sequence parallelism (LayerNorm and dropout regions split along "    \
         "the sequence; all-gather + reduce-scatter instead of the all-reduces)"},                 \
        {"pp", WORKLOAD_OPT_PP, "P",                                                               \
         "pipeline parallelism: P stages of equal layer counts (default 1)"},                      \
        {"zero", WORKLOAD_OPT_ZERO, "Z",                                                           \
         "ZeRO stage: 1 optimizer state, 2 + gradients, 3 + parameters sharded over the D "        \
         "replicas (default 0)"},                                                                  \
        {"pp-balance", WORKLOAD_OPT_PP_BALANCE, "HOW",                                             \
         "layers (equal layer counts, default) | time (equal forward time)"},                      \
        {"bucket-mb", WORKLOAD_OPT_BUCKET, "MB", "DDP gradient bucket cap in MiB (default 25)"},   \
        {"mixed-precision", WORKLOAD_OPT_MIXED, NULL,                                              \
         "optimizer state = K x parameters, K = 4 + 4 x states (an fp32 master copy and "          \
         "states of fp16 parameters: 12 for Adam; generate with --elem-bytes 2; also on one "      \
         "GPU)"},                                                                                  \
        {"fp32-main-grads", WORKLOAD_OPT_FP32_GRADS, NULL,                                         \
         "with --mixed-precision: Megatron's fp32 main gradients, 4 more bytes per parameter "     \
         "held all step (Adam: 18), and DDP reduces them"},                                        \
    {                                                                                              \
        "symmetric", WORKLOAD_OPT_SYMMETRIC, NULL,                                                 \
            "write one DP replica (its collectives costed over all D; up to 16384 devices; "       \
            "docs/symmetry.md)"                                                                    \
    }

/* Handles option c when it is one of WORKLOAD_PARALLEL_OPTS: 0 done, 2 a bad
 * value (the message printed), -1 not one of them. */
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
 * `device` (when not NULL) into *cm (its kind text in kind[]); and `out`
 * distinct from the input ("the <what>") and the device file.  0, or the
 * exit status with the message printed.
 */
struct costmodel;
int workload_cli_finish(struct cmd_parser *p, const char *what, const char *out, const char *device,
                        struct costmodel *cm, char *kind, size_t kind_size);

#endif
