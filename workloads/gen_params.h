/*
 * gen_params.h - the parameters of a generated or imported workload, by the
 * names of `baechi workload gen` and `baechi workload import` options, in one
 * table (name, type, bounds, default, help) that every front end reads:
 * `workload gen`'s options and --help (cli/workload_gen.c), the C API's
 * baechi_workload_generate() and friends (api/workload_make.c), and a
 * sweep's gen:MODEL?key=value and import:FILE?key=value (docs/sweeps.md).
 * A bound is written here once; tests/cli/t810-gen-params-one-table.sh
 * checks each front end against it at every bound.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#ifndef BAECHI_WORKLOADS_GEN_PARAMS_H
#define BAECHI_WORKLOADS_GEN_PARAMS_H

#include "core/workload.h"
#include "workloads/gen.h"
#include "workloads/gen_synthetic.h"
#include "workloads/onnx_import.h"
#include "workloads/parallel.h"

#include <stdbool.h>

enum gen_source {
    GEN_SOURCE_MODEL,     /* gen_model(): inception-v3, gnmt, transformer, gpt */
    GEN_SOURCE_SYNTHETIC, /* gen_synthetic() */
    GEN_SOURCE_IMPORT,    /* onnx_import(), then the training graph and times */
};

/* Which sources a parameter is for, and what it is about (gen_param.uses). */
enum {
    GEN_FOR_MODEL = 1 << GEN_SOURCE_MODEL,
    GEN_FOR_SYNTH = 1 << GEN_SOURCE_SYNTHETIC,
    GEN_FOR_IMPORT = 1 << GEN_SOURCE_IMPORT,
    GEN_PARAM_TRAINING = 1 << 4,  /* about the training graph (refused with forward-only) */
    GEN_PARAM_MIN_OPEN = 1 << 5,  /* a number > min, not >= min */
    GEN_PARAM_SYNTHESIS = 1 << 6, /* a field of struct train_opts (`workload train` takes it) */
    GEN_PARAM_PARALLEL = 1 << 7,  /* a field of struct parallel_opts (`workload parallelize`) */
};

enum gen_param_type {
    GEN_PARAM_INT,    /* an integer in min..max */
    GEN_PARAM_NUMBER, /* a number in min..max (GEN_PARAM_MIN_OPEN: (min, max]) */
    GEN_PARAM_FLAG,   /* true or false; on the command line, present or not */
    GEN_PARAM_WORD,   /* one of a list (help names it), or free text */
};

/* One row of the table: what the CLI, the API and the sweeps accept. */
struct gen_param {
    const char *name; /* the CLI's long option; the API's and sweeps' key with '_' for '-' */
    enum gen_param_type type;
    const char *arg;  /* --help's placeholder ("N"); NULL for a flag */
    double min, max;  /* GEN_PARAM_INT, GEN_PARAM_NUMBER: the accepted range */
    const char *def;  /* the default, as text ("model" when the model's own) */
    const char *help; /* --help's line */
    unsigned uses;    /* GEN_FOR_* | GEN_PARAM_* */
    int kind;         /* how gen_spec_set() stores it (gen_params.c) */
    size_t offset;
};

/* The table, ending with a row whose name is NULL; at most GEN_PARAMS_MAX rows. */
#define GEN_PARAMS_MAX 64
const struct gen_param *gen_params(void);

/* The row of `key` ('-' or '_' alike), or NULL. */
const struct gen_param *gen_param_find(const char *key);

/* What one gen:/import: spec asks for; the strings point into the caller's text. */
struct gen_spec {
    enum gen_source source;
    const char *model; /* the model name, or the ONNX file of an import */
    struct gen_opts gen;
    struct synth_opts synth;
    struct onnx_import_opts import;
    bool train;               /* import: add the training graph (--train) */
    const char *device;       /* import: cost model spec; NULL = none (default "v100") */
    const char *name;         /* the workload's name (--name); NULL = the generator's */
    struct parallel_opts par; /* --dp, --tp, --pp, --zero, ... (workloads/parallel.h) */
    const char *training;     /* the first parameter set that is about the training graph */
    long global_batch;        /* --global-batch B (Megatron's): B / dp per replica; 0 = not given */
};

/* Defaults of the CLI: gen_opts_init(), synth_opts_init(), device v100. */
void gen_spec_init(struct gen_spec *s, enum gen_source source, const char *model);

/*
 * Sets parameter `key` (an option's long name, '-' or '_' alike: "d-model",
 * "d_model") to `val` with the bounds of the option (a flag takes true or
 * false).  val is kept (not copied).  0, or BAECHI_EINVAL with err_msg()
 * saying why (an unknown key, a value out of range, a parameter of another
 * source).
 */
int gen_spec_set(struct gen_spec *s, const char *key, const char *val);

/*
 * After the last gen_spec_set(): the rules between parameters (forward-only
 * with a training parameter, the global batch).  0 when fine, else
 * BAECHI_EINVAL with why as the message (err_msg(); no static text).
 */
int gen_spec_check(const struct gen_spec *s);

/* The keys gen_spec_set() accepts for `source`, comma-separated (static). */
const char *gen_spec_keys(enum gen_source source);

/*
 * Builds the workload s describes into `out` (initialised here, released on
 * failure), as `baechi workload gen` / `workload import` would write it.
 * 0 or the error of the generator, the importer or the cost model.
 */
int gen_spec_build(const struct gen_spec *s, struct workload *out);

/*
 * The batch of one replica that s asks for: B / dp with --global-batch B
 * (then dp x micro-batches must divide B, as Megatron requires), else the
 * batch given (0: the model's default).  -1 with the reason as the message
 * (BAECHI_EINVAL, err_msg()) when the parameters disagree.
 */
long gen_spec_replica_batch(const struct gen_spec *s);

/* gen_spec_build() that also reports the generator's gen_info (a model;
 * NULL allowed): what `workload gen` prints. */
int gen_spec_build_info(const struct gen_spec *s, struct workload *out, struct gen_info *info);

#endif
