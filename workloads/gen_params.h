/*
 * gen_params.h - the parameters of a generated or imported workload, by the
 * names of `baechi workload gen` and `baechi workload import` options, in one
 * table that a sweep's gen:MODEL?key=value and import:FILE?key=value read
 * (docs/sweeps.md), so that a sweep expresses every workload the CLI does.
 * The CLI's own option tables (cli/workload_gen.c, cli/workload_import.c)
 * name the same options; tests/cli/t509-sweep-expresses-cli.sh checks that
 * every option in their --help is accepted here.
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
};

/* Defaults of the CLI: gen_opts_init(), synth_opts_init(), device v100. */
void gen_spec_init(struct gen_spec *s, enum gen_source source, const char *model);

/*
 * Sets parameter `key` (an option's long name, '-' or '_' alike: "d-model",
 * "d_model") to `val` with the bounds of the option (a flag takes true or
 * false).  val is kept (not copied).  NULL when fine, else why in static
 * text (an unknown key, a value out of range, a parameter of another
 * source).  Not thread-safe (the static text).
 */
const char *gen_spec_set(struct gen_spec *s, const char *key, const char *val);

/* The keys gen_spec_set() accepts for `source`, comma-separated (static). */
const char *gen_spec_keys(enum gen_source source);

/*
 * Builds the workload s describes into `out` (initialised here, released on
 * failure), as `baechi workload gen` / `workload import` would write it.
 * 0 or the error of the generator, the importer or the cost model.
 */
int gen_spec_build(const struct gen_spec *s, struct workload *out);

#endif
