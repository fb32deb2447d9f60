/*
 * test_train.c - training-graph synthesis on a hand-made graph (every op,
 * port and size checked) and on the shipped GNMT forward profile.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "workloads/train.h"

#include "core/err.h"
#include "core/graph.h"
#include "core/workload_yaml.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* x (input) -> mm = MatMul(x, W) -> relu -> loss(relu, labels); W holds 400 bytes. */
static void tiny(struct workload *w)
{
    int32_t x, wt, mm, relu, lab, loss;

    workload_init(w);
    workload_set_name(w, "tiny");
    cr_assert_eq(workload_add_op(w, "x", "Placeholder", &x), 0);
    workload_add_output(w, 1000);
    w->op[x].time_us = 1;
    cr_assert_eq(workload_add_op(w, "W", "VariableV2", &wt), 0);
    workload_add_output(w, 400);
    w->op[wt].persistent = 400;
    w->op[wt].time_us = 2;
    cr_assert_eq(workload_add_op(w, "mm", "MatMul", &mm), 0);
    workload_add_output(w, 800);
    workload_add_input(w, x, 0, 0, 0);
    workload_add_input(w, wt, 0, 0, 0);
    w->op[mm].time_us = 10;
    w->op[mm].flops = 100;
    w->op[mm].device = 1;
    cr_assert_eq(workload_add_op(w, "relu", "Relu", &relu), 0);
    workload_add_output(w, 800);
    workload_add_input(w, mm, 0, 0, 0);
    w->op[relu].time_us = 4;
    workload_set_group(w, relu, "block");
    cr_assert_eq(workload_add_op(w, "labels", "Placeholder", &lab), 0);
    workload_add_output(w, 40);
    cr_assert_eq(workload_add_op(w, "loss", "SoftmaxCrossEntropyWithLogits", &loss), 0);
    workload_add_output(w, 4);
    workload_add_input(w, relu, 0, 0, 0);
    workload_add_input(w, lab, 0, 0, 0);
    w->op[loss].time_us = 3;
    cr_assert_eq(workload_check(w), 0, "%s", err_msg());
}

static const struct wl_input *input(const struct workload *w, int32_t op, int k)
{
    cr_assert(k < w->op[op].n_in);
    return &w->input[w->op[op].in_off + k];
}

Test(train, tiny_graph_gradients)
{
    struct workload fwd, tr;
    struct train_opts o;
    struct train_stats st;
    int32_t lg, rg, mg, wg, wu;

    tiny(&fwd);
    train_opts_init(&o);
    cr_assert_eq(train_synthesize(&tr, &fwd, &o, &st), 0, "%s", err_msg());
    cr_assert_str_eq(tr.name, "tiny_train");
    /* 6 forward ops kept, 4 gradients (loss, relu, mm, W), 1 update */
    cr_assert_eq(tr.n_ops, 6 + 4 + 1);
    cr_assert_eq(st.n_backward, 4);
    cr_assert_eq(st.n_update, 1);
    lg = workload_find(&tr, "loss/grad");
    rg = workload_find(&tr, "relu/grad");
    mg = workload_find(&tr, "mm/grad");
    wg = workload_find(&tr, "W/grad");
    wu = workload_find(&tr, "W/update");
    cr_assert(lg == 6 && rg == 7 && mg == 8 && wg == 9 && wu == 10, "reverse topological order");
    cr_assert_eq(workload_find(&tr, "x/grad"), -1, "placeholders carry no gradient");
    cr_assert_eq(workload_find(&tr, "labels/grad"), -1);

    /* the loss gradient starts from the loss and keeps relu's output alive */
    cr_assert_eq(input(&tr, lg, 0)->producer, 5);
    cr_assert_eq(input(&tr, lg, 1)->producer, 3);
    cr_assert_eq(tr.op[lg].n_out, 1); /* only relu needs a gradient, not labels */
    cr_assert_eq(tr.out_bytes[tr.op[lg].out_off], 800);
    cr_assert_float_eq(tr.op[lg].time_us, 6.0, 1e-9);

    /* relu/grad reads loss/grad:0 and relu's result (ReLU saves its
     * output), which shares mm's storage (in place: relu is mm's only
     * reader); colocated with relu's group */
    cr_assert_eq(input(&tr, rg, 0)->producer, lg);
    cr_assert_eq(input(&tr, rg, 1)->producer, 3);
    cr_assert_eq(tr.op[3].n_ext, 1);
    cr_assert_str_eq(tr.ext[tr.op[3].ext_off].key, GRAPH_ALIAS_KEY);
    cr_assert_str_eq(workload_group(&tr, rg), "block");
    cr_assert_eq(tr.op[rg].phase, PHASE_BACKWARD);

    /* mm/grad: gradient for W only (x is an input), sized like W; reads x and W */
    cr_assert_eq(tr.op[mg].n_out, 1);
    cr_assert_eq(tr.out_bytes[tr.op[mg].out_off], 400);
    cr_assert_eq(tr.op[mg].n_in, 3);
    cr_assert_eq(input(&tr, mg, 1)->producer, 0);
    cr_assert_eq(input(&tr, mg, 2)->producer, 1);
    cr_assert_float_eq(tr.op[mg].time_us, 20.0, 1e-9);
    cr_assert_float_eq(tr.op[mg].flops, 200.0, 1e-9);
    cr_assert_eq(tr.op[mg].device, 1, "colocated with its forward op");
    cr_assert_str_eq(workload_group(&tr, mg), "mm");

    /* W/grad gives the weight gradient; W/update reads it and holds momentum */
    cr_assert_eq(tr.op[wg].n_out, 1);
    cr_assert_eq(tr.out_bytes[tr.op[wg].out_off], 400);
    cr_assert_eq(input(&tr, wu, 0)->producer, wg);
    cr_assert_eq(input(&tr, wu, 0)->port, 0);
    cr_assert_str_eq(tr.op[wu].type, "ApplyMomentum");
    cr_assert_eq(tr.op[wu].persistent, 400);
    cr_assert_eq(tr.op[wu].phase, PHASE_UPDATE);
    cr_assert_eq(st.param_bytes, 400);
    cr_assert_eq(workload_check(&tr), 0, "%s", err_msg());
    workload_release(&tr);
    workload_release(&fwd);
}

Test(train, optimizer_state_sizes)
{
    struct workload fwd, tr;
    struct train_opts o;
    struct train_stats st;
    static const int64_t want[] = {0, 400, 800};
    static const char *const types[] = {"ApplyGradientDescent", "ApplyMomentum", "ApplyAdam"};

    tiny(&fwd);
    train_opts_init(&o);
    for (int k = 0; k < 3; k++) {
        o.optimizer = (enum train_optimizer)k;
        cr_assert_eq(train_synthesize(&tr, &fwd, &o, &st), 0);
        cr_assert_eq(st.optimizer_bytes, want[k]);
        cr_assert_str_eq(tr.op[workload_find(&tr, "W/update")].type, types[k]);
        workload_release(&tr);
    }
    cr_assert_eq(train_parse_optimizer("adam", &o.optimizer), 0);
    cr_assert_eq(o.optimizer, TRAIN_ADAM);
    cr_assert_eq(train_parse_optimizer("lamb", &o.optimizer), BAECHI_EINVAL);
    cr_assert(strstr(err_msg(), "lamb") != NULL);
    workload_release(&fwd);
}

Test(train, backward_factor)
{
    struct workload fwd, tr;
    struct train_opts o;

    tiny(&fwd);
    train_opts_init(&o);
    o.bwd_factor = 3;
    cr_assert_eq(train_synthesize(&tr, &fwd, &o, NULL), 0);
    cr_assert_float_eq(tr.op[workload_find(&tr, "mm/grad")].time_us, 30.0, 1e-9);
    workload_release(&tr);
    o.bwd_factor = -1;
    cr_assert_eq(train_synthesize(&tr, &fwd, &o, NULL), BAECHI_EINVAL);
    workload_release(&tr);
    workload_release(&fwd);
}

Test(train, cycle_is_an_error)
{
    struct workload fwd, tr;
    struct train_opts o;
    int32_t a, b;

    workload_init(&fwd);
    workload_add_op(&fwd, "a", "Add", &a);
    workload_add_output(&fwd, 4);
    workload_add_input(&fwd, 1, 0, 0, 0);
    workload_add_op(&fwd, "b", "Add", &b);
    workload_add_output(&fwd, 4);
    workload_add_input(&fwd, 0, 0, 0, 0);
    train_opts_init(&o);
    cr_assert_eq(train_synthesize(&tr, &fwd, &o, NULL), BAECHI_EINVAL);
    cr_assert(strstr(err_msg(), "cycle") != NULL, "%s", err_msg());
    workload_release(&tr);
    workload_release(&fwd);
}

Test(train, gnmt_profile_training_graph)
{
    struct workload fwd, tr;
    struct train_opts o;
    struct train_stats st;
    struct graph g0, g1;
    struct graph_mem_totals m0, m1;

    cr_assert_eq(workload_read_yaml(&fwd, "data/workloads/gnmt_v2/gnmt_v2_b128_fwd.yaml"), 0, "%s",
                 err_msg());
    train_opts_init(&o);
    o.optimizer = TRAIN_ADAM;
    cr_assert_eq(train_synthesize(&tr, &fwd, &o, &st), 0, "%s", err_msg());
    /* the 24 variables of GNMT (72.8 M parameters) each get an update */
    cr_assert_eq(st.n_update, 24);
    cr_assert_eq(st.param_bytes, (int64_t)72837632 * 4);
    cr_assert_eq(st.optimizer_bytes, 2 * st.param_bytes);
    cr_assert(st.n_backward > 1000, "%d", st.n_backward);
    /* initialisers never ran in the step: no gradient */
    cr_assert_eq(workload_find(&tr, "encoder/embedding/Initializer/random_uniform/grad"), -1);
    cr_assert(workload_find(&tr, "encoder/embedding/grad") >= 0);
    memset(&g0, 0, sizeof(g0));
    memset(&g1, 0, sizeof(g1));
    cr_assert_eq(graph_build(&g0, &fwd), 0, "%s", err_msg());
    cr_assert_eq(graph_build(&g1, &tr), 0, "%s", err_msg());
    cr_assert_eq(graph_check(&g1), 0, "%s", err_msg());
    graph_mem_totals(&g0, &m0);
    graph_mem_totals(&g1, &m1);
    cr_assert_eq(m1.persistent, m0.persistent + st.optimizer_bytes);
    cr_assert(graph_total_compute_us(&g1) > 2 * graph_total_compute_us(&g0));
    graph_release(&g0);
    graph_release(&g1);
    workload_release(&tr);
    workload_release(&fwd);
}

/* The ids of ops by name in a synthesized workload (-1 when absent). */
static int32_t op_id(const struct workload *w, const char *name)
{
    return workload_find(w, name);
}

static bool reads(const struct workload *w, int32_t op, int32_t producer, int32_t port)
{
    for (int32_t k = 0; k < w->op[op].n_in; k++) {
        const struct wl_input *in = input(w, op, k);

        if (in->producer == producer && in->port == port) {
            return true;
        }
    }
    return false;
}

static int32_t tag_of(const struct workload *w, int32_t op)
{
    for (int32_t k = 0; k < w->op[op].n_ext; k++) {
        const struct wl_ext *e = &w->ext[w->op[op].ext_off + k];

        if (strcmp(e->key, GRAPH_MICRO_BATCH_KEY) == 0) {
            return atoi(e->val.scalar);
        }
    }
    return -1;
}

Test(train, micro_batches_share_variables)
{
    struct workload fwd, tr, one, dflt;
    struct train_opts o;
    struct train_stats st;
    struct graph g;
    int32_t wg, wu;

    tiny(&fwd);
    train_opts_init(&o);
    cr_assert_eq(o.micro_batches, 1);
    o.micro_batches = 3;
    cr_assert_eq(train_synthesize(&tr, &fwd, &o, &st), 0, "%s", err_msg());
    /* x, mm, relu, labels, loss per micro-batch; W once */
    cr_assert_eq(tr.n_ops, 1 + 5 * 3 + 3 * 3 + 1 + 1);
    cr_assert_eq(st.n_backward, 3 * 3 + 1);
    cr_assert_eq(st.n_update, 1);
    cr_assert_eq(st.param_bytes, 400, "parameters counted once");
    cr_assert_eq(op_id(&tr, "mm"), -1);
    for (int m = 0; m < 3; m++) {
        char name[64];
        int32_t mm, g_mm;

        snprintf(name, sizeof(name), "mm/mb%d", m);
        cr_assert_geq(mm = op_id(&tr, name), 0, "%s", name);
        cr_assert_float_eq(tr.op[mm].time_us, 10.0 / 3, 1e-9);
        cr_assert_eq(tr.out_bytes[tr.op[mm].out_off], 267, "800 B / 3, rounded up");
        cr_assert_str_eq(workload_group(&tr, mm), "mm", "copies share the op's group");
        cr_assert_eq(tag_of(&tr, mm), m);
        cr_assert_eq(tr.op[mm].device, 1);
        snprintf(name, sizeof(name), "mm/mb%d/grad", m);
        cr_assert_geq(g_mm = op_id(&tr, name), 0, "%s", name);
        cr_assert_eq(tag_of(&tr, g_mm), m);
        cr_assert_float_eq(tr.op[g_mm].time_us, 20.0 / 3, 1e-9);
        snprintf(name, sizeof(name), "relu/mb%d", m);
        cr_assert_str_eq(workload_group(&tr, op_id(&tr, name)), "block");
    }
    /* the shared variable: one op; its gradient accumulated on the consumer's
     * side, micro-batch after micro-batch, and read once, the last sum */
    cr_assert_geq(op_id(&tr, "W"), 0);
    cr_assert_eq(tag_of(&tr, op_id(&tr, "W")), -1);
    wg = op_id(&tr, "W/grad");
    cr_assert_geq(wg, 0);
    for (int m = 0; m < 3; m++) {
        char name[64], prev[64];
        int32_t port = 0;

        snprintf(name, sizeof(name), "mm/mb%d/grad", m);
        cr_assert_eq(reads(&tr, wg, op_id(&tr, name), port), m == 2, "W/grad reads %s: %d", name,
                     m == 2);
        if (m > 0) {
            snprintf(prev, sizeof(prev), "mm/mb%d/grad", m - 1);
            cr_assert(reads(&tr, op_id(&tr, name), op_id(&tr, prev), port), "%s adds to %s", name,
                      prev);
        }
    }
    wu = op_id(&tr, "W/update");
    cr_assert(reads(&tr, wu, wg, 0));
    cr_assert_eq(tr.op[wu].persistent, 400, "momentum: one buffer");
    cr_assert_eq(graph_build(&g, &tr), 0, "%s", err_msg());
    cr_assert_not_null(g.micro_batch);
    cr_assert_eq(g.micro_batch[graph_find(&g, "mm/mb2")], 2);
    cr_assert_eq(g.micro_batch[graph_find(&g, "W")], -1);
    graph_release(&g);

    /* one micro-batch is the plain training graph */
    o.micro_batches = 1;
    cr_assert_eq(train_synthesize(&one, &fwd, &o, NULL), 0);
    train_opts_init(&o);
    cr_assert_eq(train_synthesize(&dflt, &fwd, &o, NULL), 0);
    cr_assert_eq(one.n_ops, dflt.n_ops);
    for (int32_t i = 0; i < one.n_ops; i++) {
        cr_assert_str_eq(one.op[i].name, dflt.op[i].name);
        cr_assert_eq(tag_of(&one, i), -1);
    }
    workload_release(&one);
    o.micro_batches = TRAIN_MAX_MICRO_BATCHES + 1;
    err_set_quiet(1);
    cr_assert_eq(train_synthesize(&one, &fwd, &o, NULL), BAECHI_EINVAL);
    cr_assert(strstr(err_msg(), "micro-batches") != NULL, "%s", err_msg());
    workload_release(&dflt);
    workload_release(&tr);
    workload_release(&fwd);
}

Test(train, micro_batches_accumulate_weight_gradients)
{
    struct workload fwd, tr;
    struct train_opts o;
    int32_t x, conv, loss, c0, c1, g0, g1, u;

    /* x -> conv (weights in the op: 400 B) -> loss, as the generators write */
    workload_init(&fwd);
    workload_set_name(&fwd, "conv");
    cr_assert_eq(workload_add_op(&fwd, "x", "Placeholder", &x), 0);
    workload_add_output(&fwd, 1000);
    cr_assert_eq(workload_add_op(&fwd, "conv", "Conv2D", &conv), 0);
    workload_add_output(&fwd, 2000);
    workload_add_input(&fwd, x, 0, 0, 0);
    fwd.op[conv].persistent = 400;
    fwd.op[conv].time_us = 12;
    cr_assert_eq(workload_add_op(&fwd, "loss", "Loss", &loss), 0);
    workload_add_output(&fwd, 4);
    workload_add_input(&fwd, conv, 0, 0, 0);
    fwd.op[loss].time_us = 2;
    cr_assert_eq(workload_check(&fwd), 0, "%s", err_msg());
    train_opts_init(&o);
    o.micro_batches = 2;
    cr_assert_eq(train_synthesize(&tr, &fwd, &o, NULL), 0, "%s", err_msg());
    c0 = op_id(&tr, "conv/mb0");
    c1 = op_id(&tr, "conv/mb1");
    g0 = op_id(&tr, "conv/mb0/grad");
    g1 = op_id(&tr, "conv/mb1/grad");
    u = op_id(&tr, "conv/update");
    cr_assert(c0 >= 0 && c1 >= 0 && g0 >= 0 && g1 >= 0 && u >= 0);
    cr_assert_eq(tr.op[c0].persistent, 400, "parameters held by micro-batch 0's copy");
    cr_assert_eq(tr.op[c1].persistent, 0);
    cr_assert_eq(tr.out_bytes[tr.op[g0].out_off], 400, "weight gradient, full size");
    cr_assert(reads(&tr, g1, g0, 0), "micro-batch 1 adds to micro-batch 0's gradient");
    cr_assert(!reads(&tr, g0, g1, 0));
    cr_assert(reads(&tr, u, g1, 0), "the update follows the last micro-batch");
    cr_assert(reads(&tr, g1, c1 - 1 >= 0 ? op_id(&tr, "x/mb1") : -1, 0), "its own input");
    workload_release(&tr);
    workload_release(&fwd);
}

/* Every op of the first kind the memory model knows, in a chain. */
static const char chain_yaml[] =
    "format: 1\nname: chain\nops:\n"
    "  - {name: x, type: Placeholder, outputs: [4000]}\n"
    "  - {name: conv, type: Conv2D, time_us: 10, outputs: [8000], persistent: 100, inputs: [x]}\n"
    "  - {name: bn, type: FusedBatchNorm, time_us: 2, outputs: [8000], persistent: 8,"
    " inputs: [conv]}\n"
    "  - {name: relu, type: Relu, time_us: 1, outputs: [8000], inputs: [bn]}\n"
    "  - {name: pool, type: MaxPool, time_us: 1, outputs: [2000], inputs: [relu]}\n"
    "  - {name: flat, type: Reshape, time_us: 1, outputs: [2000], inputs: [pool]}\n"
    "  - {name: W, type: VariableV2, outputs: [400], persistent: 400}\n"
    "  - {name: fc, type: MatMul, time_us: 3, outputs: [40], inputs: [flat, W]}\n"
    "  - {name: sm, type: Softmax, time_us: 1, outputs: [40], inputs: [fc]}\n"
    "  - {name: add, type: Add, time_us: 1, outputs: [40], inputs: [sm, fc]}\n"
    "  - {name: loss, type: Loss, time_us: 1, outputs: [4], inputs: [add]}\n";

/* The names of what op `name` of tr reads, "a:0 b:1". */
static void reads_of(const struct workload *tr, const char *name, char *buf, size_t size)
{
    int32_t v = workload_find(tr, name);
    size_t n = 0;

    cr_assert_geq(v, 0, "%s", name);
    buf[0] = '\0';
    for (int32_t k = 0; k < tr->op[v].n_in; k++) {
        const struct wl_input *in = &tr->input[tr->op[v].in_off + k];

        n += (size_t)snprintf(buf + n, size - n, "%s%s:%d", k ? " " : "", tr->op[in->producer].name,
                              (int)in->port);
    }
}

static bool has_alias(const struct workload *w, const char *name)
{
    int32_t v = workload_find(w, name);

    for (int32_t k = 0; k < w->op[v].n_ext; k++) {
        if (strcmp(w->ext[w->op[v].ext_off + k].key, GRAPH_ALIAS_KEY) == 0) {
            return true;
        }
    }
    return false;
}

Test(train, memory_model_saved_tensors_views_in_place)
{
    struct workload fwd, tr, old;
    struct train_opts o;
    char r[256];
    int32_t pool;

    err_set_quiet(1);
    cr_assert_eq(workload_read_yaml_string(&fwd, chain_yaml, strlen(chain_yaml), "chain.yaml"), 0,
                 "%s", err_msg());
    train_opts_init(&o);
    cr_assert_eq(train_synthesize(&tr, &fwd, &o, NULL), 0, "%s", err_msg());
    reads_of(&tr, "conv/grad", r, sizeof(r));
    cr_assert_str_eq(r, "bn/grad:0 x:0", "convolution: its input (weights are its own)");
    reads_of(&tr, "bn/grad", r, sizeof(r));
    cr_assert_str_eq(r, "relu/grad:0 conv:0", "batch norm: its input");
    reads_of(&tr, "relu/grad", r, sizeof(r));
    cr_assert_str_eq(r, "pool/grad:0 relu:0", "ReLU: its result");
    reads_of(&tr, "pool/grad", r, sizeof(r));
    cr_assert_str_eq(r, "flat/grad:0 relu:0 pool:1", "max pooling: input and indices");
    reads_of(&tr, "flat/grad", r, sizeof(r));
    cr_assert_str_eq(r, "fc/grad:0", "a view: nothing");
    reads_of(&tr, "fc/grad", r, sizeof(r));
    cr_assert_str_eq(r, "sm/grad:0 add/grad:1 flat:0 W:0", "matmul: both operands");
    reads_of(&tr, "sm/grad", r, sizeof(r));
    cr_assert_str_eq(r, "add/grad:0 sm:0", "softmax: its result");
    reads_of(&tr, "add/grad", r, sizeof(r));
    cr_assert_str_eq(r, "loss/grad:0", "add: nothing");
    /* max pooling's indices: 8 bytes per output element (2000 B / 4 B) */
    pool = workload_find(&tr, "pool");
    cr_assert_eq(tr.op[pool].n_out, 2);
    cr_assert_eq(tr.out_bytes[tr.op[pool].out_off + 1], 4000);
    /* views and in-place ops share storage; relu only where nothing else reads bn */
    cr_assert(has_alias(&tr, "flat"));
    cr_assert(has_alias(&tr, "relu"));
    cr_assert(!has_alias(&tr, "bn"));
    cr_assert(!has_alias(&tr, "sm"));
    cr_assert_eq(workload_check(&tr), 0, "%s", err_msg());

    /* the earlier rule: every input, no views, no extra buffers */
    o.save_all_inputs = true;
    cr_assert_eq(train_synthesize(&old, &fwd, &o, NULL), 0, "%s", err_msg());
    reads_of(&old, "relu/grad", r, sizeof(r));
    cr_assert_str_eq(r, "pool/grad:0 bn:0");
    reads_of(&old, "add/grad", r, sizeof(r));
    cr_assert_str_eq(r, "loss/grad:0 sm:0 fc:0");
    cr_assert(!has_alias(&old, "flat") && !has_alias(&old, "relu"));
    cr_assert_eq(old.op[workload_find(&old, "pool")].n_out, 1);
    workload_release(&old);
    workload_release(&tr);
    workload_release(&fwd);
}

/* Two layers of a scores -> softmax -> context attention and a residual,
 * then a loss in its own layer (workloads/recompute.h). */
static const char layers_yaml[] =
    "format: 1\nname: layers\nops:\n"
    "  - {name: x, type: Placeholder, outputs: [400]}\n"
    "  - {name: l0/q, type: MatMul, time_us: 1, outputs: [400], persistent: 40,"
    " inputs: [x], group: l0/a}\n"
    "  - {name: l0/s, type: BatchMatMul, time_us: 2, outputs: [900], inputs: [l0/q, l0/q],"
    " group: l0/a}\n"
    "  - {name: l0/p, type: Softmax, time_us: 3, outputs: [900], inputs: [l0/s], group: l0/a}\n"
    "  - {name: l0/c, type: BatchMatMul, time_us: 4, outputs: [400], inputs: [l0/p, l0/q],"
    " group: l0/a}\n"
    "  - {name: l0/o, type: Add, time_us: 5, outputs: [400], inputs: [l0/c, x], group: l0/b}\n"
    "  - {name: l1/q, type: MatMul, time_us: 1, outputs: [400], persistent: 40,"
    " inputs: [l0/o], group: l1/a}\n"
    "  - {name: l1/s, type: BatchMatMul, time_us: 2, outputs: [900], inputs: [l1/q, l1/q],"
    " group: l1/a}\n"
    "  - {name: l1/p, type: Softmax, time_us: 3, outputs: [900], inputs: [l1/s], group: l1/a}\n"
    "  - {name: l1/c, type: BatchMatMul, time_us: 4, outputs: [400], inputs: [l1/p, l1/q],"
    " group: l1/a}\n"
    "  - {name: l1/o, type: Add, time_us: 5, outputs: [400], inputs: [l1/c, l0/o], group: l1/b}\n"
    "  - {name: loss, type: SoftmaxCrossEntropyWithLogits, time_us: 1, outputs: [4],"
    " inputs: [l1/o], group: head}\n";

static int32_t count_recomputed(const struct workload *w)
{
    int32_t n = 0;

    for (int32_t i = 0; i < w->n_ops; i++) {
        n += strstr(w->op[i].name, "/recompute") != NULL;
    }
    return n;
}

Test(train, recompute_full_keeps_layer_inputs)
{
    struct workload fwd, tr, none;
    struct train_opts o;
    enum train_recompute mode;
    char r[256];
    int32_t q;

    err_set_quiet(1);
    cr_assert_eq(workload_read_yaml_string(&fwd, layers_yaml, strlen(layers_yaml), "l.yaml"), 0,
                 "%s", err_msg());
    train_opts_init(&o);
    cr_assert_eq(train_synthesize(&none, &fwd, &o, NULL), 0, "%s", err_msg());
    cr_assert_eq(count_recomputed(&none), 0);
    reads_of(&none, "l0/p/grad", r, sizeof(r));
    cr_assert_str_eq(r, "l0/c/grad:0 l0/p:0");

    cr_assert_eq(train_parse_recompute("full", &mode), 0);
    o.recompute = mode;
    cr_assert_eq(train_synthesize(&tr, &fwd, &o, NULL), 0, "%s", err_msg());
    /* what the layer's gradients read, recomputed; the context and the
     * residual sum are read by no gradient op of their layer */
    cr_assert_eq(count_recomputed(&tr), 6);
    cr_assert(workload_find(&tr, "l0/recompute/c") < 0 && workload_find(&tr, "l0/recompute/o") < 0);
    reads_of(&tr, "l0/p/grad", r, sizeof(r));
    cr_assert_str_eq(r, "l0/c/grad:0 l0/recompute/p:0");
    reads_of(&tr, "l0/c/grad", r, sizeof(r));
    cr_assert_str_eq(r, "l0/o/grad:0 l0/recompute/p:0 l0/recompute/q:0");
    reads_of(&tr, "l0/recompute/s", r, sizeof(r));
    cr_assert_str_eq(r, "l0/recompute/q:0 l0/recompute/q:0");
    /* the layer's input (x) and the parameters: read where they are; the
     * first copy waits for the gradients that l1 sends back */
    q = workload_find(&tr, "l0/recompute/q");
    reads_of(&tr, "l0/recompute/q", r, sizeof(r));
    cr_assert(strncmp(r, "x:0 ", 4) == 0, "%s", r);
    cr_assert(strstr(r, "l1/q/grad") && strstr(r, "l1/o/grad"), "%s", r);
    cr_assert_eq(tr.op[q].phase, PHASE_BACKWARD);
    cr_assert_str_eq(tr.op[q].group, "l0/a");
    cr_assert_eq(tr.op[q].persistent, 0);
    cr_assert_eq(tr.op[q].time_us, 1);
    cr_assert_lt(q, workload_find(&tr, "l0/c/grad"), "before the layer's gradients");
    cr_assert_gt(q, workload_find(&tr, "l1/q/grad"), "after the next layer's");
    /* the loss's layer: nothing enters it, so nothing is recomputed */
    cr_assert_eq(workload_find(&tr, "head/recompute"), -1);
    cr_assert_eq(workload_find(&tr, "loss/recompute"), -1);
    cr_assert_eq(workload_check(&tr), 0, "%s", err_msg());
    workload_release(&tr);

    /* selective: the scores and the softmax only, Q kept */
    cr_assert_eq(train_parse_recompute("selective", &o.recompute), 0);
    cr_assert_eq(train_synthesize(&tr, &fwd, &o, NULL), 0, "%s", err_msg());
    cr_assert_eq(count_recomputed(&tr), 4);
    cr_assert(workload_find(&tr, "l1/recompute/s") >= 0 &&
              workload_find(&tr, "l1/recompute/p") >= 0);
    reads_of(&tr, "l1/c/grad", r, sizeof(r));
    cr_assert_str_eq(r, "l1/o/grad:0 l1/recompute/p:0 l1/q:0");
    workload_release(&tr);

    cr_assert_neq(train_parse_recompute("partial", &mode), 0);
    cr_assert(strstr(err_msg(), "'partial'"));
    cr_assert_str_eq(train_recompute_name(TRAIN_RECOMPUTE_SELECTIVE), "selective");
    workload_release(&none);
    workload_release(&fwd);
}
