/*
 * workload_gen.c - `baechi workload gen` (model generators and
 * synthetic DAGs) and `baechi workload train` (training-graph synthesis).
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "cli/cmd.h"
#include "cli/workload.h"
#include "core/alloc.h"
#include "core/err.h"
#include "core/strbuf.h"
#include "core/units.h"
#include "core/workload.h"
#include "core/workload_yaml.h"
#include "workloads/costmodel.h"
#include "workloads/gen.h"
#include "workloads/gen_params.h"
#include "workloads/parallel.h"
#include "workloads/train.h"

#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* `workload train`'s own options; `workload gen`'s come from the parameter
 * table (workloads/gen_params.c): row i is option OPT_PARAM + i. */
enum { OPT_DEVICE = 256, OPT_OVERRIDE, OPT_LIST_PARAMS, OPT_PARAM = 512 };

static const char *const gen_usage[] = {
    "baechi workload gen <model> [options] [-o <out.yaml>]",
    "baechi workload gen synthetic --shape layered|chain|fork-join|random --ops N [--seed S] "
    "[-o <out.yaml>]",
    "baechi workload gen --list-params",
    NULL,
};

/* Fills t (GEN_PARAMS_MAX + 3 rows) with -o, --list-params and the
 * parameters of a model or synthetic: the one table's names, placeholders
 * and help lines. */
static void gen_option_table(struct cmd_opt *t)
{
    const struct gen_param *rows = gen_params();
    int n = 0;

    t[n++] = (struct cmd_opt){"output", 'o', "FILE",
                              "write the workload here (default: standard output)"};
    for (int i = 0; rows[i].name; i++) {
        if (rows[i].uses & (GEN_FOR_MODEL | GEN_FOR_SYNTH)) {
            int val = strcmp(rows[i].name, "batch") == 0 ? 'b' : OPT_PARAM + i;

            t[n++] = (struct cmd_opt){rows[i].name, val, rows[i].arg, rows[i].help};
        }
    }
    t[n++] = (struct cmd_opt){"list-params", OPT_LIST_PARAMS, NULL,
                              "print the parameter table (name, type, bounds, default, for) and "
                              "exit"};
    t[n] = (struct cmd_opt)CMD_OPT_END;
}

/* --list-params: the table as the CLI, the C API and sweeps read it. */
static void gen_list_params(FILE *f)
{
    static const char *const types[] = {"int", "number", "flag", "word"};

    fprintf(f, "# name\ttype\tmin\tmax\tdefault\tfor\n");
    for (const struct gen_param *p = gen_params(); p->name; p++) {
        bool num = p->type == GEN_PARAM_INT || p->type == GEN_PARAM_NUMBER;

        fprintf(f, "%s\t%s\t", p->name, types[p->type]);
        if (num) {
            fprintf(f, "%s%.17g\t%.17g\t", p->uses & GEN_PARAM_MIN_OPEN ? ">" : "", p->min, p->max);
        } else {
            fprintf(f, "-\t-\t");
        }
        fprintf(f, "%s\t%s%s%s%s\n", p->def, p->uses & GEN_FOR_MODEL ? "model," : "",
                p->uses & GEN_FOR_SYNTH ? "synthetic," : "",
                p->uses & GEN_FOR_IMPORT ? "import," : "",
                p->uses & GEN_PARAM_TRAINING ? "training" : "");
    }
}

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

/* gen_spec_build's failure: bad options are a usage error (exit 2), out of
 * memory is exit 1 (issue 30 item 7: it was a usage error too). */
static int gen_failed(const struct cmd_parser *p, int rc)
{
    if (err_exit_status(rc) == EXIT_BADINPUT) {
        return cmd_usage_error(p, "%s", err_msg());
    }
    return cmd_fail(rc);
}

/* One option given: its row of the table and its value ("true" for a flag). */
struct gen_arg {
    const struct gen_param *row;
    const char *val;
};

/* The options, in their order, into the spec of the model named by the one
 * operand (the table's rules and bounds: gen_spec_set); then the files. */
static int gen_apply(const struct cmd_parser *p, const struct gen_arg *args, int n,
                     struct gen_spec *spec, const char *out)
{
    const char *model;

    if (cmd_optind() != p->argc - 1) {
        return cmd_usage_error(p, "expected one model name (inception-v3, gnmt, transformer, "
                                  "gpt, synthetic)");
    }
    model = p->argv[cmd_optind()];
    gen_spec_init(spec, strcmp(model, "synthetic") == 0 ? GEN_SOURCE_SYNTHETIC : GEN_SOURCE_MODEL,
                  model);
    for (int i = 0; i < n; i++) {
        if (gen_spec_set(spec, args[i].row->name, args[i].val)) {
            return cmd_usage_error(p, "--%s: %s", args[i].row->name, err_msg());
        }
    }
    if (gen_spec_check(spec)) {
        return cmd_usage_error(p, "%s", err_msg());
    }
    /* --device may name a cluster file: it is read, never overwritten by -o */
    const struct cmd_file in[] = {
        {spec->source == GEN_SOURCE_MODEL ? spec->gen.device : NULL, "--device"}};
    const struct cmd_file outs[] = {{out, "-o"}};
    int rc = cmd_check_files(in, CMD_N(in), outs, CMD_N(outs));

    return rc ? cmd_fail(rc) : 0;
}

/* Builds and writes what spec describes. */
static int gen_write(const struct cmd_parser *p, const struct gen_spec *spec, const char *out)
{
    struct gen_info info = {.params = -1};
    struct workload w;
    int rc;

    if ((rc = gen_spec_build_info(spec, &w, &info))) {
        return gen_failed(p, rc);
    }
    rc = write_out(&w, out, spec->source == GEN_SOURCE_MODEL ? info.params : -1);
    if (!rc && spec->global_batch) { /* what --global-batch became: the batch of each replica */
        long m = spec->gen.train.micro_batches, b = spec->global_batch / spec->par.dp;

        fprintf(strcmp(out, "-") == 0 ? stderr : stdout,
                "global batch %ld = %d replica%s x batch %ld (%ld micro-batch%s of %ld)\n",
                spec->global_batch, (int)spec->par.dp, spec->par.dp > 1 ? "s" : "", b, m,
                m > 1 ? "es" : "", b / m);
    }
    if (!rc && spec->source == GEN_SOURCE_MODEL && parallel_opts_active(&spec->par)) {
        rc = workload_cli_parallel_summary(&w, &spec->par, strcmp(out, "-") == 0 ? stderr : stdout);
    }
    workload_release(&w);
    return rc;
}

int cmd_workload_gen(int argc, char **argv)
{
    struct cmd_opt table[GEN_PARAMS_MAX + 3];
    struct cmd_parser p = {
        .argc = argc,
        .argv = argv,
        .cmd = argv[0],
        .usage = gen_usage,
        .opts = table,
        .footer = "models: inception-v3, gnmt, transformer (--size base|big), gpt (--size "
                  "small..6.7b, gpt3-small..gpt3-175b, llama2-7b|13b|70b), synthetic; parameters, "
                  "bounds and "
                  "defaults: --list-params (docs/workloads.md)"};
    const struct gen_param *rows = gen_params();
    struct gen_spec spec;
    struct gen_arg *args;
    const char *out = "-";
    bool list = false;
    int c, n = 0, rc = 0;

    gen_option_table(table);
    if (!(args = mem_calloc((size_t)argc + 1, sizeof(*args)))) {
        return cmd_fail(err_set(BAECHI_ENOMEM, "out of memory"));
    }
    while (rc == 0 && (c = cmd_getopt(&p)) != -1) {
        if (c == 'h') {
            free(args);
            return 0;
        } else if (c == 'o') {
            out = p.optarg;
        } else if (c == OPT_LIST_PARAMS) {
            list = true;
        } else if (c == 'b' || (c >= OPT_PARAM && c < OPT_PARAM + GEN_PARAMS_MAX)) {
            args[n].row = c == 'b' ? gen_param_find("batch") : &rows[c - OPT_PARAM];
            args[n].val = args[n].row->type == GEN_PARAM_FLAG ? "true" : p.optarg;
            n++;
        } else {
            rc = EXIT_BADINPUT;
        }
    }
    if (rc == 0 && list) {
        gen_list_params(stdout);
    } else if (rc == 0 && (rc = gen_apply(&p, args, n, &spec, out)) == 0 &&
               (rc = workload_cli_train_check(&p, &spec.gen.train)) == 0) {
        rc = gen_write(&p, &spec, out);
    }
    free(args);
    return rc;
}

static const char *const train_usage[] = {
    "baechi workload train <forward.yaml> [-o <train.yaml>] [--optimizer sgd|momentum|adam] "
    "[--bwd-factor F] [--device KIND|CLUSTER[:N]|none]",
    NULL,
};

/* Fills t (GEN_PARAMS_MAX + 4 rows): -o, the training options of the
 * parameter table (their help written there once), --device, --override. */
static void train_opts_table(struct cmd_opt *t)
{
    int n = 0;

    t[n++] = (struct cmd_opt){"output", 'o', "FILE",
                              "write the training workload here (default: standard output)"};
    workload_cli_table_opts(t, &n, GEN_PARAM_SYNTHESIS);
    t[n++] = (struct cmd_opt){
        "device", OPT_DEVICE, "KIND",
        "cost model that times ops without time_us (update ops): a preset, a cluster file[:N] "
        "(calibrated), default the workload's reference_device when it is a preset, else v100; "
        "none = leave them untimed"};
    t[n++] = (struct cmd_opt){"override", OPT_OVERRIDE, NULL,
                              "time every op from the cost model (measured times too)"};
    t[n] = (struct cmd_opt)CMD_OPT_END;
}

/* `workload train`, the text of a --device cluster's kind in kind (cm.kind) */
static int workload_train(int argc, char **argv, struct strbuf *kind)
{
    struct cmd_opt table[GEN_PARAMS_MAX + 4];
    struct cmd_parser p = {argc, argv, argv[0], train_usage, table, NULL, NULL};
    struct train_opts o;
    struct train_stats st;
    struct workload fwd, tr;
    struct costmodel cm;
    const char *out = "-", *device = NULL;
    bool no_device = false, override = false;
    int c, rc;

    train_opts_table(table);
    train_opts_init(&o);
    while ((c = cmd_getopt(&p)) != -1) {
        switch (c) {
        case 'h':
            return 0;
        case 'o':
            out = p.optarg;
            break;
        case OPT_DEVICE:
            no_device = strcmp(p.optarg, "none") == 0;
            device = no_device ? NULL : p.optarg;
            break;
        case OPT_OVERRIDE:
            override = true;
            break;
        default: /* the training options of the table, else a bad option */
            if (workload_cli_train_option(&p, c, &o)) {
                return EXIT_BADINPUT;
            }
            break;
        }
    }
    if ((rc = workload_cli_train_check(&p, &o)) != 0 ||
        (rc = workload_cli_finish(&p, "workload", out, device, &cm, kind)) != 0) {
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

int cmd_workload_train(int argc, char **argv)
{
    struct strbuf kind = STRBUF_INIT; /* whole at any length (a char[128] cut it) */
    int rc = workload_train(argc, argv, &kind);

    strbuf_release(&kind);
    return rc;
}
