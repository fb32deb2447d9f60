/*
 * workload_import.c - `baechi workload import model.onnx`: ONNX model
 * -> workload, optionally with the training graph, timed by the cost model.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "cli/cmd.h"
#include "cli/workload.h"
#include "core/err.h"
#include "core/strbuf.h"
#include "core/graph.h"
#include "core/workload.h"
#include "core/workload_yaml.h"
#include "workloads/costmodel.h"
#include "workloads/gen.h"
#include "workloads/gen_params.h"
#include "workloads/onnx_import.h"
#include "workloads/train.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

enum { OPT_TRAIN = 256, OPT_DEVICE, OPT_NAME, OPT_LOSS };

static const char *const import_usage[] = {
    "baechi workload import <model.onnx> [--train [--loss cross-entropy|mse|none]] [--batch N] "
    "[--device KIND|CLUSTER[:N]|none] [-o <out.yaml>]",
    NULL,
};

/* Fills t (GEN_PARAMS_MAX + 7 rows): import's own options, the training
 * options of the parameter table (with --train) and its --device (their
 * help written there once). */
static void import_opts(struct cmd_opt *t)
{
    const struct gen_param *device = gen_param_find("device");
    int n = 0;

    t[n++] = (struct cmd_opt){"output", 'o', "FILE",
                              "write the workload here (default: standard output)"};
    t[n++] = (struct cmd_opt){"name", OPT_NAME, "NAME",
                              "the workload's name (default: the model file's, with a suffix per "
                              "non-default option; docs/workloads.md)"};
    t[n++] = (struct cmd_opt){"batch", 'b', "N",
                              "batch size: activations and FLOPs scaled from the exported batch"};
    t[n++] = (struct cmd_opt){"train", OPT_TRAIN, NULL,
                              "add the training graph (backward and update ops)"};
    t[n++] = (struct cmd_opt){
        "loss", OPT_LOSS, "LOSS",
        "with --train, the loss after the model's first output: cross-entropy, mse or none "
        "(default: cross-entropy when a linear layer makes the output and it is [N, C] class "
        "logits, or [B, S, V] logits of a model reading integer token ids; mse for another "
        "output of a linear layer; none for hidden states; docs/onnx-import.md)"};
    workload_cli_table_opts(t, &n, GEN_PARAM_SYNTHESIS);
    t[n++] = (struct cmd_opt){device->name, OPT_DEVICE, device->arg, device->help};
    t[n] = (struct cmd_opt)CMD_OPT_END;
}

/* `workload import`, the text of a --device cluster's kind in kind (cm.kind) */
static int workload_import(int argc, char **argv, struct strbuf *kind)
{
    struct cmd_opt table[GEN_PARAMS_MAX + 7];
    struct cmd_parser p = {argc, argv, argv[0], import_usage, table, NULL, NULL};
    struct onnx_import_opts io = {0};
    struct onnx_import_stats st;
    struct train_opts to;
    struct costmodel cm;
    struct workload w, tr;
    const char *out = "-", *device = GEN_DEFAULT_DEVICE, *name = NULL, *train_flag = NULL;
    enum onnx_loss loss = ONNX_LOSS_DEFAULT;
    bool train = false, loss_flag = false;
    FILE *msg;
    int c, rc;

    import_opts(table);
    train_opts_init(&to);
    while ((c = cmd_getopt(&p)) != -1) {
        switch (c) {
        case 'h':
            return 0;
        case 'o':
            out = p.optarg;
            break;
        case 'b': { /* the bounds of the one parameter table (workloads/gen_params.c) */
            struct gen_spec spec;

            gen_spec_init(&spec, GEN_SOURCE_IMPORT, "");
            if (workload_cli_table_option(&p, "--batch", &spec)) {
                return EXIT_BADINPUT;
            }
            io.batch = spec.import.batch;
            break;
        }
        case OPT_TRAIN:
            train = true;
            break;
        case OPT_LOSS:
            if (onnx_parse_loss(p.optarg, &loss)) {
                return cmd_usage_error(&p, "--loss: %s", err_msg());
            }
            loss_flag = true;
            break;
        case OPT_NAME:
            if (!p.optarg[0]) {
                return cmd_usage_error(&p, "--name must not be empty");
            }
            name = p.optarg;
            break;
        case OPT_DEVICE:
            device = strcmp(p.optarg, "none") == 0 ? NULL : p.optarg;
            break;
        default: /* the training options of the table, else a bad option */
            if (workload_cli_train_option(&p, c, &to)) {
                return EXIT_BADINPUT;
            }
            train_flag = workload_cli_train_flag(c);
            break;
        }
    }
    if (loss_flag && !train) {
        train_flag = "loss";
    }
    if (train_flag && !train) {
        return cmd_usage_error(&p, "--%s is about the training graph: add --train", train_flag);
    }
    if ((rc = workload_cli_train_check(&p, &to)) != 0) {
        return rc;
    }
    io.loss = train ? loss : ONNX_LOSS_NONE;
    if ((rc = workload_cli_finish(&p, "ONNX model", out, device, &cm, kind)) != 0) {
        return rc;
    }
    if ((rc = onnx_import(&w, argv[cmd_optind()], &io, &st))) {
        return cmd_fail(rc);
    }
    if (train) {
        if ((rc = train_synthesize(&tr, &w, &to, NULL))) {
            workload_release(&w);
            return cmd_fail(rc);
        }
        workload_release(&w);
        w = tr;
    }
    if (device && (rc = costmodel_apply(&cm, &w, 0, NULL))) {
        workload_release(&w);
        return cmd_fail(rc);
    }
    {
        /* the name says every non-default option (docs/workloads.md, "Names") */
        struct strbuf wname = STRBUF_INIT; /* whole at any length (a char[512] cut it) */

        if (name) {
            rc = strbuf_addstr(&wname, name);
        } else if ((rc = gen_import_name(&wname, w.name, io.batch, train ? &to : NULL,
                                         device ? cm.kind : NULL, !device)) == 0 &&
                   train) {
            rc = onnx_loss_name_suffix(&wname, &st);
        }
        rc = rc ? rc : workload_set_name(&w, wname.buf);
        strbuf_release(&wname);
        if (rc) {
            workload_release(&w);
            return cmd_fail(rc);
        }
    }
    /* What `workload info`, `place` and `sim` would reject (every op
     * dangling, a time out of range) is not written: the same rule, the
     * graph builder's. */
    {
        struct graph g;

        if ((rc = graph_build(&g, &w)) == BAECHI_ENOMEM) {
            workload_release(&w);
            return cmd_fail(rc); /* out of memory, not a property of the model */
        }
        if (rc != 0) {
            char why[1024];

            snprintf(why, sizeof(why), "%s", err_msg());
            err_set(BAECHI_EPARSE, "%s: the imported model is not a usable workload: %s",
                    argv[cmd_optind()], why);
            workload_release(&w);
            return cmd_fail(BAECHI_EPARSE);
        }
        graph_release(&g);
    }
    if ((rc = workload_cli_write(&w, out)) != 0) {
        workload_release(&w);
        return rc;
    }
    msg = strcmp(out, "-") == 0 ? stderr : stdout;
    fprintf(msg,
            "%s: %s: %d ops from %d nodes, %.2f M parameters, %.4g GFLOP forward, "
            "%d of unknown operators, %d outputs sized from value_info%s%s%s\n",
            out, w.name, w.n_ops, st.n_nodes, (double)st.params / 1e6, st.flops / 1e9, st.n_unknown,
            st.n_from_value_info, train ? ", loss " : "", train ? onnx_loss_name(st.loss) : "",
            train && st.loss == st.loss_default ? " (the default)" : "");
    workload_release(&w);
    return 0;
}

int cmd_workload_import(int argc, char **argv)
{
    struct strbuf kind = STRBUF_INIT; /* whole at any length (a char[128] cut it) */
    int rc = workload_import(argc, argv, &kind);

    strbuf_release(&kind);
    return rc;
}
