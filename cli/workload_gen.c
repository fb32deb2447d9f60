/*
 * workload_gen.c - `baechi workload gen` (model generators and
 * synthetic DAGs) and `baechi workload train` (training-graph synthesis).
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "cli/cmd.h"
#include "cli/workload.h"
#include "core/err.h"
#include "core/units.h"
#include "core/workload.h"
#include "core/workload_yaml.h"
#include "workloads/costmodel.h"
#include "workloads/gen.h"
#include "workloads/gen_synthetic.h"
#include "workloads/parallel.h"
#include "workloads/train.h"

#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
    OPT_SEQ = 256,
    OPT_SIZE,
    OPT_LAYERS,
    OPT_DMODEL,
    OPT_HEADS,
    OPT_FFN,
    OPT_VOCAB,
    OPT_AUX,
    OPT_FWD,
    OPT_NO_GROUPS,
    OPT_DEVICE,
    OPT_ELEM,
    OPT_SHAPE,
    OPT_OPS,
    OPT_SEED,
    OPT_FANIN,
    OPT_WIDTH,
    OPT_DEPTH,
    OPT_WINDOW,
    OPT_GROUP_SIZE,
    OPT_OVERRIDE,
    OPT_NAME,
    OPT_DROPOUT,
};

static const char *const gen_usage[] = {
    "baechi workload gen <model> [options] [-o <out.yaml>]",
    "baechi workload gen synthetic --shape layered|chain|fork-join|random --ops N [--seed S] "
    "[-o <out.yaml>]",
    NULL,
};

static const struct cmd_opt gen_opts_table[] = {
    {"output", 'o', "FILE", "write the workload here (default: standard output)"},
    {"name", OPT_NAME, "NAME",
     "the workload's name (default: generated, with a suffix per non-default option; "
     "docs/workloads.md)"},
    {"batch", 'b', "N", "batch size (inception-v3 32, gnmt 128, transformer 64/8, gpt 8)"},
    {"seq", OPT_SEQ, "N", "sequence length (gnmt 40, transformer 40/30, gpt 1024)"},
    {"size", OPT_SIZE, "NAME", "size preset: transformer base|big; gpt small..6.7b"},
    {"layers", OPT_LAYERS, "N", "transformer/gpt: number of layers (overrides the preset)"},
    {"d-model", OPT_DMODEL, "N", "transformer/gpt: model width"},
    {"heads", OPT_HEADS, "N", "transformer/gpt: attention heads"},
    {"ffn", OPT_FFN, "N", "transformer: feed-forward width"},
    {"vocab", OPT_VOCAB, "N", "vocabulary size"},
    {"aux", OPT_AUX, NULL, "inception-v3: include the auxiliary classifier"},
    {"forward-only", OPT_FWD, NULL, "no backward and update ops"},
    {"no-groups", OPT_NO_GROUPS, NULL, "no layer-level colocation groups"},
    {"device", OPT_DEVICE, "KIND",
     "cost model for time_us: a preset (rtx2080 p100 v100 a100 a100-pcie h100 h200), a "
     "cluster file[:N] whose device N was measured by 'baechi calibrate', or none (default "
     "v100); a suffix :fp32|tf32|fp16|bf16|fp8 sets the GEMMs' data type (docs/devices.md)"},
    WORKLOAD_TRAIN_OPTS,
    {"elem-bytes", OPT_ELEM, "N", "bytes per element: 4 fp32 (default), 2 fp16/bf16"},
    {"dropout", OPT_DROPOUT, "P",
     "transformer/gpt: dropout probability on the attention probabilities, the attention "
     "output and the MLP output (masks kept for backward); default 0.1 as GPT-2, Megatron-LM "
     "and the Transformer base trained; 0 none"},
    WORKLOAD_PARALLEL_OPTS,
    {"shape", OPT_SHAPE, "SHAPE", "synthetic: layered | chain | fork-join | random"},
    {"ops", OPT_OPS, "N", "synthetic: number of ops (up to 1,000,000)"},
    {"seed", OPT_SEED, "S", "synthetic: random seed (default 1)"},
    {"fan-in", OPT_FANIN, "N", "synthetic: inputs per op"},
    {"width", OPT_WIDTH, "N", "synthetic: ops per layer / branches"},
    {"depth", OPT_DEPTH, "N", "synthetic: ops per fork-join branch"},
    {"window", OPT_WINDOW, "N", "synthetic: how far back random inputs reach"},
    {"group-size", OPT_GROUP_SIZE, "N", "synthetic: consecutive ops per colocation group"},
    CMD_OPT_END,
};

/* Writes w to `path` ("-" = stdout) and prints a one-line summary. */
static int write_out(const struct workload *w, const char *path, int64_t params)
{
    FILE *msg = strcmp(path, "-") == 0 ? stderr : stdout;
    int32_t ph[3] = {0, 0, 0};
    int64_t persist = 0;
    double flops = 0, time_us = 0;
    char b1[32], b2[32];
    int rc;

    if ((rc = workload_cli_write(w, path)) != 0) {
        return rc;
    }
    for (int32_t i = 0; i < w->n_ops; i++) {
        ph[w->op[i].phase < 3 ? w->op[i].phase : 0]++;
        persist += w->op[i].persistent;
        flops += isfinite(w->op[i].flops) ? w->op[i].flops : 0;
        time_us += isfinite(w->op[i].time_us) ? w->op[i].time_us : 0;
    }
    units_fmt_bytes(persist, b1, sizeof(b1));
    units_fmt_us(time_us, b2, sizeof(b2));
    fprintf(msg, "%s: %s: %d ops (%d forward, %d backward, %d update)", path, w->name, w->n_ops,
            ph[0], ph[1], ph[2]);
    if (params >= 0) {
        fprintf(msg, ", %.2f M parameters", (double)params / 1e6);
    }
    fprintf(msg, ", persistent %s, %.4g GFLOP, Σ time %s\n", b1, flops / 1e9, b2);
    return 0;
}

static int gen_synth(const struct synth_opts *so, const char *name, const char *out)
{
    struct workload w;
    int rc;

    workload_init(&w);
    if ((rc = gen_synthetic(&w, so)) || (name && (rc = workload_set_name(&w, name)))) {
        workload_release(&w);
        return cmd_fail(rc);
    }
    rc = write_out(&w, out, -1);
    workload_release(&w);
    return rc;
}

/* --dp/--tp/--pp: *w becomes its parallelised step (released on failure);
 * 0 or the exit status. */
static int gen_parallelize(struct workload *w, const struct parallel_opts *par)
{
    struct workload pw;
    int rc;

    if (!parallel_opts_active(par)) { /* one GPU: only the precision options apply */
        if ((rc = parallel_precision_apply(w, par))) {
            workload_release(w);
            return cmd_fail(rc);
        }
        return 0;
    }
    rc = parallel_apply(&pw, w, par);
    workload_release(w);
    if (rc) {
        return cmd_fail(rc);
    }
    *w = pw;
    return 0;
}

/* gen_model's failure: bad options are a usage error (exit 2), out of
 * memory is exit 1 (issue 30 item 7: it was a usage error too). */
static int gen_failed(const struct cmd_parser *p, int rc)
{
    if (err_exit_status(rc) == EXIT_BADINPUT) {
        return cmd_usage_error(p, "%s", err_msg());
    }
    return cmd_fail(rc);
}

static int parse_count(struct cmd_parser *p, const char *what, long hi, int *out)
{
    long v;

    if (cmd_parse_int(p, what, p->optarg, 1, hi, &v)) {
        return -1;
    }
    *out = (int)v;
    return 0;
}

/* The synthetic generator's counts (each implies `synthetic`). */
static const struct synth_count_opt {
    int opt;
    const char *name;
    long hi;
    size_t offset;
} synth_count_opts[] = {
    {OPT_FANIN, "--fan-in", 1000, offsetof(struct synth_opts, fan_in)},
    {OPT_WIDTH, "--width", 1000000, offsetof(struct synth_opts, width)},
    {OPT_DEPTH, "--depth", 1000000, offsetof(struct synth_opts, depth)},
    {OPT_WINDOW, "--window", 1000000, offsetof(struct synth_opts, window)},
    {OPT_GROUP_SIZE, "--group-size", 1000000, offsetof(struct synth_opts, group_size)},
};

/* Option c when it is one of synth_count_opts: 1 (*bad set), else 0. */
static int synth_count_option(struct cmd_parser *p, int c, struct synth_opts *so, int *bad)
{
    for (size_t i = 0; i < sizeof(synth_count_opts) / sizeof(synth_count_opts[0]); i++) {
        const struct synth_count_opt *d = &synth_count_opts[i];

        if (d->opt == c) {
            *bad = parse_count(p, d->name, d->hi, (int *)((char *)so + d->offset));
            return 1;
        }
    }
    return 0;
}

/* One model name; --device may name a cluster file: it is read, never overwritten by -o. */
static int gen_check_args(const struct cmd_parser *p, const char *device, const char *out)
{
    if (cmd_optind() != p->argc - 1) {
        return cmd_usage_error(p, "expected one model name (inception-v3, gnmt, transformer, "
                                  "gpt, synthetic)");
    }
    const struct cmd_file in[] = {{device, "--device"}};
    const struct cmd_file outs[] = {{out, "-o"}};
    int rc = cmd_check_files(in, CMD_N(in), outs, CMD_N(outs));

    return rc ? cmd_fail(rc) : 0;
}

/* The generators that read each model option: another generator refuses it
 * instead of ignoring it (issue 33 item 2: `gen inception-v3 --seq 4` wrote
 * the default graph). */
static const struct model_opt_use {
    int opt;
    const char *models; /* each name between spaces */
} model_opt_uses[] = {
    {OPT_SEQ, " gnmt transformer gpt "},    {OPT_SIZE, " transformer gpt "},
    {OPT_LAYERS, " gnmt transformer gpt "}, {OPT_DMODEL, " transformer gpt "},
    {OPT_HEADS, " transformer gpt "},       {OPT_FFN, " transformer "},
    {OPT_VOCAB, " gnmt transformer gpt "},  {OPT_AUX, " inception-v3 "},
    {OPT_DROPOUT, " transformer gpt "},
};

/* An option given (given[i]: row i of gen_opts_table) that `model` never
 * reads: exit 2 with its name, else 0.  'synthetic' reads -o, --name and its
 * own options; a model generator reads every other row but those of
 * model_opt_uses that do not list it. */
static int gen_check_model_opts(const struct cmd_parser *p, const char *model, const bool *given)
{
    char key[64];
    bool synth = strcmp(model, "synthetic") == 0;

    snprintf(key, sizeof(key), " %s ", model);
    for (size_t i = 0; gen_opts_table[i].name; i++) {
        int v = gen_opts_table[i].val;
        bool synth_row = v == OPT_SHAPE || v == OPT_OPS || v == OPT_SEED;

        for (size_t k = 0; k < CMD_N(synth_count_opts); k++) {
            synth_row = synth_row || synth_count_opts[k].opt == v;
        }
        if (!given[i] || v == 'o' || v == OPT_NAME || synth_row) {
            continue; /* the synthetic options on a model: gen's own message */
        }
        if (synth) {
            return cmd_usage_error(p,
                                   "--%s is for the model generators (inception-v3, gnmt, "
                                   "transformer, gpt), not 'synthetic'",
                                   gen_opts_table[i].name);
        }
        for (size_t k = 0; k < CMD_N(model_opt_uses); k++) {
            if (model_opt_uses[k].opt == v && !strstr(model_opt_uses[k].models, key)) {
                const char *m = model_opt_uses[k].models + 1;

                return cmd_usage_error(p, "--%s is not read by the '%s' generator (only by: %.*s)",
                                       gen_opts_table[i].name, model, (int)strlen(m) - 1, m);
            }
        }
    }
    return 0;
}

/* The synthetic shapes that read each count: another shape refuses it
 * (issue 33 item 2: `--shape chain --width 4` wrote the plain chain). */
static const struct shape_opt_use {
    int opt;
    unsigned shapes;     /* 1 << enum synth_shape */
    const char *readers; /* the same, in words */
} shape_opt_uses[] = {
    {OPT_FANIN, 1u << SYNTH_LAYERED | 1u << SYNTH_RANDOM, "layered and random"},
    {OPT_WIDTH, 1u << SYNTH_LAYERED | 1u << SYNTH_FORK_JOIN, "layered and fork-join"},
    {OPT_DEPTH, 1u << SYNTH_FORK_JOIN, "fork-join"},
    {OPT_WINDOW, 1u << SYNTH_RANDOM, "random"},
};

/* A count given (given[i]: row i of gen_opts_table) that so->shape never
 * reads: exit 2 with its name, else 0. */
static int gen_check_shape_opts(const struct cmd_parser *p, const struct synth_opts *so,
                                const bool *given)
{
    static const char *const shape_words[] = {"layered", "chain", "fork-join", "random"};

    for (size_t i = 0; gen_opts_table[i].name; i++) {
        for (size_t k = 0; given[i] && k < CMD_N(shape_opt_uses); k++) {
            if (shape_opt_uses[k].opt == gen_opts_table[i].val &&
                !(shape_opt_uses[k].shapes & (1u << so->shape))) {
                return cmd_usage_error(p, "--%s is not read by the %s shape (read by: %s)",
                                       gen_opts_table[i].name, shape_words[so->shape],
                                       shape_opt_uses[k].readers);
            }
        }
    }
    return 0;
}

/* The model options that set one field of o: true when c is one (*bad set
 * on a bad value). */
static bool model_flag_option(struct cmd_parser *p, int c, struct gen_opts *o, int *bad)
{
    switch (c) {
    case OPT_AUX:
        o->aux = true;
        return true;
    case OPT_FWD:
        o->forward_only = true;
        return true;
    case OPT_NO_GROUPS:
        o->groups = false;
        return true;
    case OPT_DROPOUT:
        *bad = cmd_parse_double(p, "--dropout", p->optarg, 0, 0.999, &o->dropout);
        return true;
    default:
        return false;
    }
}

/* given[i] becomes true when option c is row i of gen_opts_table. */
static void gen_mark_given(bool *given, int c)
{
    for (size_t i = 0; gen_opts_table[i].name; i++) {
        given[i] = given[i] || gen_opts_table[i].val == c;
    }
}

int cmd_workload_gen(int argc, char **argv)
{
    struct cmd_parser p = {
        .argc = argc,
        .argv = argv,
        .cmd = argv[0],
        .usage = gen_usage,
        .opts = gen_opts_table,
        .footer = "models: inception-v3, gnmt, transformer (--size base|big), gpt (--size "
                  "small|medium|large|xl|2.7b|6.7b), synthetic"};
    struct gen_opts o;
    struct synth_opts so;
    struct gen_info info;
    struct parallel_opts par;
    struct workload w;
    const char *out = "-", *model, *train_flag = NULL;
    bool synth_only = false, given[CMD_N(gen_opts_table)] = {false};
    long v;
    int c, bad = 0, rc;

    gen_opts_init(&o);
    synth_opts_init(&so);
    parallel_opts_init(&par);
    while (!bad && (c = cmd_getopt(&p)) != -1) {
        gen_mark_given(given, c);
        if (synth_count_option(&p, c, &so, &bad)) {
            synth_only = true;
            continue;
        }
        if (model_flag_option(&p, c, &o, &bad)) {
            continue;
        }
        switch (c) {
        case 'h':
            return 0;
        case 'o':
            out = p.optarg;
            break;
        case 'b':
            bad = parse_count(&p, "--batch", 1 << 20, &o.batch);
            break;
        case OPT_SEQ:
            bad = parse_count(&p, "--seq", 1 << 20, &o.seq);
            break;
        case OPT_SIZE:
            o.size = p.optarg;
            break;
        case OPT_LAYERS:
            bad = parse_count(&p, "--layers", 10000, &o.layers);
            break;
        case OPT_DMODEL:
            bad = parse_count(&p, "--d-model", 1 << 20, &o.d_model);
            break;
        case OPT_HEADS:
            bad = parse_count(&p, "--heads", 1 << 16, &o.heads);
            break;
        case OPT_FFN:
            bad = parse_count(&p, "--ffn", 1 << 22, &o.ffn);
            break;
        case OPT_VOCAB:
            bad = parse_count(&p, "--vocab", 1 << 24, &o.vocab);
            break;
        case OPT_NAME:
            if (!p.optarg[0]) {
                return cmd_usage_error(&p, "--name must not be empty");
            }
            o.name = p.optarg;
            break;
        case OPT_DEVICE:
            o.device = strcmp(p.optarg, "none") == 0 ? NULL : p.optarg;
            break;
        case WORKLOAD_OPT_OPTIMIZER:
        case WORKLOAD_OPT_BWD:
        case WORKLOAD_OPT_MICRO:
        case WORKLOAD_OPT_SAVE_ALL:
        case WORKLOAD_OPT_RECOMPUTE:
        case WORKLOAD_OPT_SCHEDULE:
        case WORKLOAD_OPT_VSTAGES:
            if (workload_cli_train_option(&p, c, &o.train)) {
                return EXIT_BADINPUT;
            }
            train_flag = workload_cli_train_flag(c);
            break;
        case OPT_ELEM:
            bad = parse_count(&p, "--elem-bytes", 16, &o.elem_bytes);
            o.train.param_elem_bytes = o.elem_bytes;
            break;
        case OPT_SHAPE:
            if (synth_shape_parse(p.optarg, &so.shape)) {
                return cmd_usage_error(&p, "%s", err_msg());
            }
            synth_only = true;
            break;
        case OPT_OPS:
            bad = cmd_parse_int(&p, "--ops", p.optarg, 2, 1000000, &v);
            so.n_ops = (int32_t)v;
            synth_only = true;
            break;
        case OPT_SEED:
            bad = cmd_parse_int(&p, "--seed", p.optarg, 0, INT32_MAX, &v);
            so.seed = (uint64_t)v;
            synth_only = true;
            break;
        default:
            if (workload_cli_parallel_option(&p, c, &par) != 0) {
                return EXIT_BADINPUT;
            }
            break;
        }
    }
    if (bad || (rc = gen_check_args(&p, o.device, out)) != 0) {
        return bad ? EXIT_BADINPUT : rc;
    }
    model = argv[cmd_optind()];
    if ((rc = gen_check_model_opts(&p, model, given)) ||
        (rc = workload_cli_train_check(&p, &o.train)) ||
        (rc = workload_cli_parallel_check(&p, &par))) {
        return rc;
    }
    if (strcmp(model, "synthetic") == 0) {
        if ((rc = gen_check_shape_opts(&p, &so, given)) != 0) {
            return rc;
        }
        return gen_synth(&so, o.name, out);
    }
    if (synth_only) {
        return cmd_usage_error(&p, "--shape, --ops, --seed, --fan-in, --width, --depth, "
                                   "--window and --group-size are for 'synthetic' only");
    }
    if (!train_flag && parallel_opts_active(&par)) {
        train_flag = "--dp, --tp or --pp";
    }
    if (o.forward_only && train_flag) {
        return cmd_usage_error(&p, "%s is about the training graph, and --forward-only makes none",
                               train_flag);
    }
    if ((rc = gen_model(&w, model, &o, &info))) {
        return gen_failed(&p, rc);
    }
    if ((rc = gen_parallelize(&w, &par))) {
        return rc;
    }
    rc = write_out(&w, out, info.params);
    if (!rc && parallel_opts_active(&par)) {
        rc = workload_cli_parallel_summary(&w, &par, strcmp(out, "-") == 0 ? stderr : stdout);
    }
    workload_release(&w);
    return rc;
}

static const char *const train_usage[] = {
    "baechi workload train <forward.yaml> [-o <train.yaml>] [--optimizer sgd|momentum|adam] "
    "[--bwd-factor F] [--device KIND|CLUSTER[:N]|none]",
    NULL,
};

static const struct cmd_opt train_opts_table[] = {
    {"output", 'o', "FILE", "write the training workload here (default: standard output)"},
    WORKLOAD_TRAIN_OPTS,
    {"device", OPT_DEVICE, "KIND",
     "cost model that times ops without time_us (update ops): a preset, a cluster file[:N] "
     "(calibrated), default the workload's reference_device when it is a preset, else v100; "
     "none = leave them untimed"},
    {"override", OPT_OVERRIDE, NULL, "time every op from the cost model (measured times too)"},
    CMD_OPT_END,
};

int cmd_workload_train(int argc, char **argv)
{
    struct cmd_parser p = {argc, argv, argv[0], train_usage, train_opts_table, NULL, NULL};
    struct train_opts o;
    struct train_stats st;
    struct workload fwd, tr;
    struct costmodel cm;
    char kind[128]; /* cm.kind when --device names a cluster */
    const char *out = "-", *device = NULL;
    bool no_device = false, override = false;
    int c, rc;

    train_opts_init(&o);
    while ((c = cmd_getopt(&p)) != -1) {
        switch (c) {
        case 'h':
            return 0;
        case 'o':
            out = p.optarg;
            break;
        case WORKLOAD_OPT_OPTIMIZER:
        case WORKLOAD_OPT_BWD:
        case WORKLOAD_OPT_MICRO:
        case WORKLOAD_OPT_SAVE_ALL:
        case WORKLOAD_OPT_SCHEDULE:
        case WORKLOAD_OPT_VSTAGES:
        case WORKLOAD_OPT_RECOMPUTE:
            if (workload_cli_train_option(&p, c, &o)) {
                return EXIT_BADINPUT;
            }
            break;
        case OPT_DEVICE:
            no_device = strcmp(p.optarg, "none") == 0;
            device = no_device ? NULL : p.optarg;
            break;
        case OPT_OVERRIDE:
            override = true;
            break;
        default:
            return EXIT_BADINPUT;
        }
    }
    if ((rc = workload_cli_train_check(&p, &o)) != 0 ||
        (rc = workload_cli_finish(&p, "workload", out, device, &cm, kind, sizeof(kind))) != 0) {
        return rc;
    }
    if ((rc = workload_read_yaml(&fwd, argv[cmd_optind()]))) {
        workload_release(&fwd);
        return cmd_fail(rc);
    }
    if (!device && !no_device) {
        if (!fwd.reference_device || costmodel_preset(&cm, fwd.reference_device)) {
            costmodel_preset(&cm, "v100");
        }
        err_clear();
    }
    if ((rc = train_synthesize(&tr, &fwd, &o, &st)) == BAECHI_EINVAL &&
        train_is_training_graph(&fwd, &(int32_t){0})) {
        rc = err_wrap(rc, "%s", argv[cmd_optind()]); /* the refusal names the file */
    }
    if (rc ||
        (!no_device && (rc = costmodel_apply(&cm, &tr, override ? COSTMODEL_OVERRIDE : 0, NULL)))) {
        workload_release(&fwd);
        workload_release(&tr);
        return cmd_fail(rc);
    }
    rc = write_out(&tr, out, st.param_bytes / (o.param_elem_bytes > 0 ? o.param_elem_bytes : 4));
    workload_release(&fwd);
    workload_release(&tr);
    return rc;
}
