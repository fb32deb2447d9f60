/*
 * baechi.h - the public C API of libbaechi: load a workload, a cluster and
 * placements; run a placer by name; simulate with either model; read the
 * metrics; write a Chrome trace; store a run in a results database.
 *
 * This header is the manual and the stable contract (README "The library").
 * Everything is reached through opaque handles that the caller frees with
 * the matching *_free function (each accepts NULL).  Fallible functions
 * return 0 (BAECHI_SUCCESS) or a code of enum baechi_code and leave one
 * message, with the file, line and values involved, for baechi_errmsg().
 * The library never prints (warnings go to stderr unless a handler is set,
 * see baechi_set_warning_handler), never exits and never parses a command
 * line.  An infeasible placement is BAECHI_ERR_INFEASIBLE, a result rather
 * than a failure; a simulated device running out of memory is a metric
 * (baechi_result_oom), not an error.
 *
 * Versioning: the soname is libbaechi.so.BAECHI_API_MAJOR.  Within one
 * major version functions are only added, never changed or removed, and the
 * handles stay opaque, so a program built against an older minor version
 * runs against a newer library.
 *
 * Threads: handles may be used from several threads as long as no two
 * threads use the same handle at once; error messages are per thread.
 *
 * Units: times in µs (int64) or ms (double, where the name says so), sizes
 * in bytes (int64).
 *
 * Part of baechi-c; see README.md for the licence.
 */
#ifndef BAECHI_H
#define BAECHI_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define BAECHI_API_MAJOR 1
#define BAECHI_API_MINOR 2

/* Return codes.  The program `baechi` maps them to exit statuses: 0; 2 for
 * INVAL, PARSE, IO, UNSUPPORTED; 3 for INFEASIBLE; 1 otherwise, and 1 for
 * an IO failure of the machine (a full disk, a read-only file system: the
 * message gives the system's reason). */
enum baechi_code {
    BAECHI_SUCCESS = 0,
    BAECHI_ERR_NOMEM = 1,      /* an allocation failed */
    BAECHI_ERR_INVAL = 2,      /* a bad argument or input value */
    BAECHI_ERR_PARSE = 3,      /* a malformed input file (file:line:col in the message) */
    BAECHI_ERR_IO = 4,         /* a file could not be read or written */
    BAECHI_ERR_INFEASIBLE = 5, /* no placement satisfies the memory limits (a result) */
    BAECHI_ERR_SOLVER = 6,     /* the LP solver failed */
    BAECHI_ERR_UNSUPPORTED = 7 /* not available in this build */
};

struct baechi_workload;  /* a workload and its op graph */
struct baechi_cluster;   /* devices, memory limits, communication model */
struct baechi_options;   /* placer and world options, by name */
struct baechi_placement; /* op -> device, with the placer's statistics */
struct baechi_result;    /* the metrics of one simulated step */
struct baechi_params;    /* generator, import and training parameters, by name (1.1) */

/* ------------------------------------------------------------ library */

/* "1.0 (<git describe>)": the API version and the build. */
const char *baechi_version(void);

/* The message of the last failure in this thread ("" when none). */
const char *baechi_errmsg(void);

/* Frees text the library returned (baechi_explain_memory,
 * baechi_report_json); NULL is fine.  Since 1.1. */
void baechi_free(void *p);

/* Warnings (e.g. an unknown key kept in a file) go to fn(message, ctx)
 * instead of stderr; NULL restores stderr.  Process-wide. */
typedef void (*baechi_warning_fn)(const char *message, void *ctx);
void baechi_set_warning_handler(baechi_warning_fn fn, void *ctx);

/* ------------------------------------------------------------ workloads */

/* Reads a workload file (YAML, README "Workload file") and builds its op
 * graph (dangling ops pruned).  *out is NULL on failure. */
int baechi_workload_load(const char *path, struct baechi_workload **out);

/* The same from a string of len bytes; `name` stands for the file in
 * messages. */
int baechi_workload_parse(const char *yaml, size_t len, const char *name,
                          struct baechi_workload **out);

void baechi_workload_free(struct baechi_workload *w);

const char *baechi_workload_name(const struct baechi_workload *w);

/* Ops of the graph (after pruning); ids are 0 .. n_ops - 1 in file order. */
int32_t baechi_workload_n_ops(const struct baechi_workload *w);

/* Name of op `op`, NULL when out of range. */
const char *baechi_workload_op_name(const struct baechi_workload *w, int32_t op);

/* Σ compute and the critical path of the graph, µs (reference device).  The
 * critical path is -1 when memory ran out (the last error says so). */
int64_t baechi_workload_total_compute_us(const struct baechi_workload *w);
int64_t baechi_workload_critical_path_us(const struct baechi_workload *w);

/* ------------------------------------------------------------ making workloads */

/*
 * Since 1.1.  Parameters of the workload makers below, set by name with the
 * value as text ('-' or '_' alike), the options of `baechi workload gen`,
 * `import` and `train` without their dashes.  Setting a name again replaces
 * its value.  Set takes any name: the maker that is given the parameters
 * checks names and values (an unknown name, a bad value, a value out of the
 * command line's range: BAECHI_ERR_INVAL naming it) and leaves *out NULL.
 * Booleans: true/false, 1/0, yes/no, on/off.
 */
struct baechi_params *baechi_params_new(void);
void baechi_params_free(struct baechi_params *p);
int baechi_params_set(struct baechi_params *p, const char *name, const char *value);

/*
 * Since 1.1.  Generates model `model` as `baechi workload gen <model>`:
 * "inception-v3", "gnmt", "transformer", "gpt" or "synthetic".  Parameters
 * (params may be NULL: the defaults):
 *   batch, seq, size (transformer base|big; gpt small..6.7b), layers,
 *   d_model, heads, ffn, vocab, aux B, forward_only B, no_groups B,
 *   elem_bytes, device (a cost-model preset, a cluster file[:N], or none;
 *   default v100), and the training ones: optimizer (sgd|momentum|adam),
 *   bwd_factor, save_all_inputs B, micro_batches, and since 1.2
 *   recompute (none|full|selective), schedule (gpipe|1f1b|interleaved),
 *   virtual_stages (1..64; the x-pipeline written);
 *   synthetic only: shape (layered|chain|fork-join|random), ops, seed,
 *   fan_in, width, depth, window, group_size (BAECHI_ERR_INVAL for another
 *   model, and since 1.3 a model parameter for synthetic);
 *   name: the workload's name instead of the generator's; since 1.3 every
 *   row of baechi_params_table() marked "generate" (global_batch, dp, tp,
 *   pp, zero, ..., and gpt's kv_heads, mlp, norm, pos, embeddings, bias),
 *   with the command line's bounds and rules from that one table.
 * The workload goes through its YAML text once, so that it is, number for
 * number, the file the command writes.  An unknown model is
 * BAECHI_ERR_INVAL naming the models.
 */
int baechi_workload_generate(const char *model, const struct baechi_params *params,
                             struct baechi_workload **out);

/*
 * Since 1.1.  Imports the ONNX model at `path` as `baechi workload import`.
 * Parameters: train B (add backward and update ops), batch, device (as
 * above, default v100; none leaves time_us unset), and with train the
 * training ones (optimizer, bwd_factor, save_all_inputs, micro_batches;
 * since 1.2 recompute, schedule, virtual_stages).
 * BAECHI_ERR_PARSE for a file that is not a usable model, BAECHI_ERR_IO
 * for one that cannot be read.
 */
int baechi_workload_import_onnx(const char *path, const struct baechi_params *params,
                                struct baechi_workload **out);

/*
 * Since 1.1.  The training graph of forward workload fwd, as `baechi
 * workload train`: parameters optimizer, bwd_factor, save_all_inputs,
 * micro_batches (since 1.2 recompute, schedule, virtual_stages), device
 * (default fwd's reference device when a preset,
 * else v100; none: untimed update ops), override B (time every op from the
 * cost model).  fwd is not changed.
 */
int baechi_workload_train(const struct baechi_workload *fwd, const struct baechi_params *params,
                          struct baechi_workload **out);

/*
 * The step of training workload `train` over dp x tp x pp
 * devices, as `baechi workload parallelize` (docs/parallelism.md):
 * parameters dp, tp, pp (default 1 each), zero (0..3), bucket_mb (default
 * 25), mixed_precision B, pp_balance (layers | time).  Every op of the result has its rank's device.
 * BAECHI_ERR_INVAL for a forward graph, a graph tensor parallelism does not
 * recognise, or a bad parameter.  train is not changed.
 */
int baechi_workload_parallelize(const struct baechi_workload *train,
                                const struct baechi_params *params, struct baechi_workload **out);

/*
 * The parameter table of the makers above: the one table that `baechi
 * workload gen` reads too (`--list-params`; workloads/gen_params.c).  One
 * line per parameter, tab-separated: its name ('_' spelling), its type
 * (int, number, flag, word), min and max ("-" for a flag or word; a min
 * written ">x" excludes x), its default, and the makers that take it,
 * comma-separated (generate, synthetic, import_onnx, train, parallelize).
 * Text of this thread, valid until its next call.
 */
const char *baechi_params_table(void);

/* ------------------------------------------------------------ clusters */

/* A cluster file, or a preset name ("paper-4gpu-pcie", "dgx-h100-8"; see
 * baechi_cluster_presets).  The option "devices" keeps the first K. */
int baechi_cluster_load(const char *spec, struct baechi_cluster **out);

/* A cluster file's text; `name` stands for the file in messages. */
int baechi_cluster_parse(const char *yaml, size_t len, const char *name,
                         struct baechi_cluster **out);

void baechi_cluster_free(struct baechi_cluster *c);

/* The preset names, NULL-terminated (static storage). */
const char *const *baechi_cluster_presets(void);

const char *baechi_cluster_name(const struct baechi_cluster *c);
int32_t baechi_cluster_n_devices(const struct baechi_cluster *c);
/* NULL / -1 when d is out of range. */
const char *baechi_cluster_device_name(const struct baechi_cluster *c, int32_t d);
int64_t baechi_cluster_device_memory_bytes(const struct baechi_cluster *c, int32_t d);

/* ------------------------------------------------------------ options */

/*
 * Options of placement and simulation, set by name with the value as text
 * (the names are those of `baechi place --help`, with '_' or '-'):
 *
 *   memory_fraction F   devices hold F x their memory (placer and simulators); 1
 *   comm_factor F       communication costs x F; 1
 *   compute_factor F    compute times x F; 1
 *   devices K           use the first K devices; all
 *   grouper G           colocation grouper: tf or coplace; tf
 *   fusion B            operator fusion (true/false, 1/0, yes/no); false
 *   fusion_check_disjoint B
 *   threshold T         m-SCT rounding threshold; 0.1
 *   lp_time_limit S     m-SCT GLPK wall-time limit in s (0 = none; reached: m-ETF); 0
 *   lp_iteration_limit N  m-SCT simplex iterations (work, deterministic; 0 = none); 0
 *   lp_solver S         m-SCT's and the bound's LP: glpk, clp, flow (m-SCT's only)
 *                       or auto (GLPK up to 100,000 non-zeros, CLP above within an
 *                       iteration budget, then flow); auto
 *   seed S              seed of the random and auto placers; 1
 *   persistent_at_place B
 *   refine B            then auto's local search on the placement (not for auto); false
 *   budget_ms N         auto's search budget, in simulated work, not wall time; 800
 *   trace B             baechi_simulate records a trace (baechi_result_write_trace)
 *   schedule S          since 1.2: the pipeline schedule of a micro-batched
 *                       workload, gpipe, 1f1b or interleaved, instead of its
 *                       x-pipeline (default 1f1b), for the `pipeline` placer
 *                       and the timed model, as `run --schedule`; one
 *                       virtual stage unless virtual_stages is set
 *   virtual_stages V    since 1.2: chunks per device of interleaved, 1..64
 *                       (above 1 only with interleaved: BAECHI_ERR_INVAL
 *                       when placing or simulating).  Both are ignored for
 *                       a workload without micro-batches, as by the CLI
 *
 * The same ranges as the command line apply.  Unknown names and bad values
 * are BAECHI_ERR_INVAL, and the options are left as they were.
 */
struct baechi_options *baechi_options_new(void);
void baechi_options_free(struct baechi_options *o);
int baechi_options_set(struct baechi_options *o, const char *name, const char *value);

/* ------------------------------------------------------------ placement */

/* The placer names, NULL-terminated (static storage), as `place --list`. */
const char *const *baechi_placers(void);

/*
 * Runs placer `placer` ("m-etf", "m-sct", "m-topo", "paper", ...) on w and c
 * with options o (NULL: defaults).  BAECHI_ERR_INFEASIBLE when the placer
 * finds no placement within the memory limits (the message names the op and
 * the bytes missing).  The placement keeps a copy of o: baechi_simulate and
 * baechi_db_store use it when given no options.
 */
int baechi_place(const struct baechi_workload *w, const struct baechi_cluster *c,
                 const char *placer, const struct baechi_options *o, struct baechi_placement **out);

/* A placement file (or its text) for workload w (README "Placement file"). */
int baechi_placement_load(const struct baechi_workload *w, const char *path,
                          struct baechi_placement **out);
int baechi_placement_parse(const struct baechi_workload *w, const char *yaml, size_t len,
                           const char *name, struct baechi_placement **out);

/* Writes the placement file of p for workload w ("-" or NULL = stdout); a
 * file is replaced whole or left as it was (core/file_out.h). */
int baechi_placement_write(const struct baechi_placement *p, const struct baechi_workload *w,
                           const char *path);

void baechi_placement_free(struct baechi_placement *p);

int32_t baechi_placement_n_ops(const struct baechi_placement *p);
/* Device of op `op`; -1 when out of range. */
int32_t baechi_placement_device_of(const struct baechi_placement *p, int32_t op);
/* Who made it ("m-etf", "given", ...; NULL when unknown). */
const char *baechi_placement_placer(const struct baechi_placement *p);
/* Wall-clock placement time, ms; 0 for a loaded placement. */
double baechi_placement_time_ms(const struct baechi_placement *p);
/* The placer's own makespan estimate, µs; -1 when it makes none. */
int64_t baechi_placement_estimate_us(const struct baechi_placement *p);

/* ------------------------------------------------------------ simulation */

/*
 * Simulates one step of p on w and c with model "timed" (the time-accurate
 * default, NULL) or "baechi" (the original's virtual scheduler).  The
 * options (NULL: those p was placed with, else defaults) set the world:
 * devices, memory fraction, comm and compute factors, as `baechi run`.
 */
int baechi_simulate(const struct baechi_workload *w, const struct baechi_cluster *c,
                    const struct baechi_placement *p, const char *model,
                    const struct baechi_options *o, struct baechi_result **out);

void baechi_result_free(struct baechi_result *r);

/* "timed" or "baechi". */
const char *baechi_result_model(const struct baechi_result *r);
int64_t baechi_result_step_us(const struct baechi_result *r);
/* Devices that ran out of memory (0: it fits). */
int32_t baechi_result_oom(const struct baechi_result *r);
int32_t baechi_result_n_devices(const struct baechi_result *r);
/* max(critical path, Σ compute / devices), its parts, µs. */
int64_t baechi_result_lower_bound_us(const struct baechi_result *r);
int64_t baechi_result_critical_path_us(const struct baechi_result *r);
int64_t baechi_result_total_compute_us(const struct baechi_result *r);

/* Per device d (-1 when out of range): the peak and limit of memory, bytes
 * still allocated at the end, compute time run there, ops, out of memory
 * (1/0). */
int64_t baechi_result_peak_bytes(const struct baechi_result *r, int32_t d);
int64_t baechi_result_limit_bytes(const struct baechi_result *r, int32_t d);
int64_t baechi_result_final_bytes(const struct baechi_result *r, int32_t d);
int64_t baechi_result_busy_us(const struct baechi_result *r, int32_t d);
int32_t baechi_result_n_ops(const struct baechi_result *r, int32_t d);
int32_t baechi_result_device_oom(const struct baechi_result *r, int32_t d);

/* Bytes and number of tensor transfers from device src to dst. */
int64_t baechi_result_link_bytes(const struct baechi_result *r, int32_t src, int32_t dst);
int64_t baechi_result_link_transfers(const struct baechi_result *r, int32_t src, int32_t dst);

/* Start and end of op `op`, µs from the step's start; -1 when out of range. */
int64_t baechi_result_op_start_us(const struct baechi_result *r, int32_t op);
int64_t baechi_result_op_end_us(const struct baechi_result *r, int32_t op);

/* Writes the Chrome trace (Perfetto) of a simulation run with the option
 * "trace" set, for the same w and c.  BAECHI_ERR_INVAL when none was
 * recorded. */
int baechi_result_write_trace(const struct baechi_result *r, const struct baechi_workload *w,
                              const struct baechi_cluster *c, const char *path);

/*
 * Since 1.1.  What is live at each device's peak (and at its first
 * over-limit allocation): a simulation as baechi_simulate's, explained as
 * `baechi sim --explain-memory --json` does, and *json (free with
 * baechi_free) the text of that output's "memory_explain" value: an array,
 * one object per device {id, name, limit_bytes, peak, oom}, each snapshot
 * {time_us, at_op, total_bytes, n_live, by_kind: {kind: bytes}, top: the 20
 * largest [{op, tensor, kind, bytes, since_us}]}, oom null when the device
 * fit (docs/explain-memory.md).  *json NULL on failure.
 */
int baechi_explain_memory(const struct baechi_workload *w, const struct baechi_cluster *c,
                          const struct baechi_placement *p, const char *model,
                          const struct baechi_options *o, char **json);

/* ------------------------------------------------------------ results */

/*
 * Simulates p with both models and stores the two runs in results database
 * `db_path` (created when missing), in one transaction, as `baechi run
 * --db` does.  The options as in baechi_simulate.
 */
int baechi_db_store(const char *db_path, const struct baechi_workload *w,
                    const struct baechi_cluster *c, const struct baechi_placement *p,
                    const struct baechi_options *o);

/*
 * Since 1.1.  The tidy table of results database `db_path` (opened read
 * only; a missing file is BAECHI_ERR_IO), one row per run, as `baechi report
 * --format json [--model M] [--where W]...`: *json (free with baechi_free)
 * is {"columns": [...], "rows": [{column: value}]}.  where: NULL or a
 * NULL-terminated array of --where conditions ("placer=m-etf,m-sct",
 * "memory_fraction<0.5"; ANDed; a bad one is BAECHI_ERR_INVAL naming it);
 * model: NULL (both), "timed" or "baechi".
 */
int baechi_report_json(const char *db_path, const char *const *where, const char *model,
                       char **json);

#ifdef __cplusplus
}
#endif

#endif
