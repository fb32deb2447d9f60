/*
 * test_parallel.c - workloads/parallel.c on small GPT graphs: Megatron's
 * splits and all-reduces, DDP buckets, ZeRO memory against the paper's
 * formulas, pipeline stages and the rank layout, and the refusals.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "workloads/parallel.h"

#include "core/err.h"
#include "core/workload_yaml.h"
#include "workloads/gen.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* GPT with `layers` blocks of width 128 (4 heads), batch 2, sequence 64. */
static void gpt(struct workload *w, int layers, int mb, int elem, enum train_optimizer opt)
{
    struct gen_opts o;

    gen_opts_init(&o);
    o.layers = layers;
    o.d_model = 128;
    o.heads = 4;
    o.vocab = 1000;
    o.batch = 2;
    o.seq = 64;
    o.elem_bytes = elem;
    o.train.param_elem_bytes = elem;
    o.train.micro_batches = mb;
    o.train.optimizer = opt;
    cr_assert_eq(gen_model(w, "gpt", &o, NULL), 0, "%s", err_msg());
}

static void par(struct workload *out, const struct workload *in, int dp, int tp, int pp, int zero)
{
    struct parallel_opts o;

    parallel_opts_init(&o);
    o.dp = dp;
    o.tp = tp;
    o.pp = pp;
    o.zero = zero;
    cr_assert_eq(parallel_apply(out, in, &o), 0, "%s", err_msg());
}

/* Rank r's copy of op n. */
static const struct wl_op *find(const struct workload *w, int r, const char *n)
{
    char name[512];
    int32_t i;

    snprintf(name, sizeof(name), "r%d/%s", r, n);
    i = workload_find(w, name);
    cr_assert(i >= 0, "no op '%s'", name);
    return &w->op[i];
}

/* The x-collective field `key` of op i, or NULL. */
static const char *coll(const struct workload *w, int32_t i, const char *key)
{
    const struct wl_op *op = &w->op[i];

    for (int32_t j = 0; j < op->n_ext; j++) {
        const struct wl_ext *e = &w->ext[op->ext_off + j];

        for (int32_t k = 0; strcmp(e->key, "x-collective") == 0 && k < e->val.n; k++) {
            if (strcmp(e->val.keys[k], key) == 0) {
                return e->val.items[k].scalar;
            }
        }
    }
    return NULL;
}

static const char *const split[] = {"h0/attn/qkv", "h0/attn/out", "h0/mlp/c_fc", "h0/mlp/c_proj",
                                    NULL};

Test(parallel, tp_parameters_are_one_tth_exactly)
{
    struct workload w, p;

    gpt(&w, 2, 1, 4, TRAIN_MOMENTUM);
    par(&p, &w, 1, 2, 1, 0);
    for (int i = 0; split[i]; i++) {
        const struct wl_op *f = &w.op[workload_find(&w, split[i])];
        char upd[256];

        snprintf(upd, sizeof(upd), "%s/update", split[i]);
        for (int r = 0; r < 2; r++) {
            cr_assert_eq(find(&p, r, split[i])->persistent * 2, f->persistent, "%s", split[i]);
            cr_assert_eq(find(&p, r, upd)->persistent * 2, w.op[workload_find(&w, upd)].persistent,
                         "%s", upd);
        }
    }
    /* replicated: LayerNorm parameters whole on every rank */
    cr_assert_eq(find(&p, 1, "h0/ln_1")->persistent, w.op[workload_find(&w, "h0/ln_1")].persistent);
    workload_release(&w);
    workload_release(&p);
}

Test(parallel, tp_all_reduces_are_megatrons)
{
    struct workload w, p;
    const int layers = 3, T = 2;
    int n_fwd = 0, n_bwd = 0;

    gpt(&w, layers, 1, 4, TRAIN_MOMENTUM);
    par(&p, &w, 1, T, 1, 0);
    for (int32_t i = 0; i < p.n_ops; i++) {
        const char *id = coll(&p, i, "id");

        if (!id || p.op[i].device != 0) {
            continue;
        }
        cr_assert(strstr(id, "/tp/"), "%s", id);
        cr_assert_str_eq(coll(&p, i, "kind"), "all-reduce");
        if (strstr(id, "/xent")) { /* the parallel cross-entropy: 3 fp32 values per token */
            cr_assert_eq(strtoll(coll(&p, i, "bytes"), NULL, 10), 3LL * 2 * 64 * 4, "%s", id);
            continue;
        }
        /* b x s x h elements (fp32) */
        cr_assert_eq(strtoll(coll(&p, i, "bytes"), NULL, 10), 2LL * 64 * 128 * 4, "%s", id);
        n_fwd += p.op[i].phase == PHASE_FORWARD;
        n_bwd += p.op[i].phase == PHASE_BACKWARD;
    }
    /* + the vocabulary-parallel embedding's (forward) and LM head's (backward) */
    cr_assert_eq(n_fwd, 2 * layers + 1);
    cr_assert_eq(n_bwd, 2 * layers + 1);
    workload_release(&w);
    workload_release(&p);
}

/* Is op name s (without its "r<r>/" prefix) LayerNorm or residual Add:
 * replicated on every TP rank, as Megatron does. */
static bool replicated(const char *s)
{
    return strstr(s, "ln_") || strstr(s, "/add");
}

Test(parallel, tp_keeps_the_blocks_flops)
{
    struct workload w, p;
    double split_before = 0, split_after = 0, before = 0, after = 0, repl = 0;

    gpt(&w, 1, 1, 4, TRAIN_MOMENTUM);
    par(&p, &w, 1, 2, 1, 0);
    for (int32_t i = 0; i < w.n_ops; i++) {
        if (strncmp(w.op[i].name, "h0/", 3) == 0) {
            before += w.op[i].flops;
            repl += replicated(w.op[i].name) ? w.op[i].flops : 0;
            split_before += replicated(w.op[i].name) ? 0 : w.op[i].flops;
        }
    }
    for (int32_t i = 0; i < p.n_ops; i++) {
        const char *n = p.op[i].name + 3; /* after "r<r>/" */

        cr_assert(p.op[i].device == 0 || p.op[i].device == 1);
        if (strncmp(n, "h0/", 3) == 0 && !coll(&p, i, "id")) {
            after += p.op[i].flops;
            split_after += replicated(n) ? 0 : p.op[i].flops;
        }
    }
    cr_assert(split_before > 0.9 * before);
    cr_assert(fabs(split_after - split_before) <= 1e-9 * before, "%g vs %g", split_after,
              split_before);
    cr_assert(fabs(after - (before + repl)) <= 1e-9 * before, "%g vs %g + %g", after, before, repl);
    workload_release(&w);
    workload_release(&p);
}

/* ZeRO's model state per device (Rajbhandari et al. 2020, Figure 1), with
 * mixed precision: 2Ψ fp16 parameters, 2Ψ fp16 gradients, KΨ optimizer
 * state (K = 12 for Adam: fp32 parameters, momentum, variance). */
static double zero_formula(int stage, double psi, double nd)
{
    const double k = 12;

    switch (stage) {
    case 0:
        return 2 * psi + 2 * psi + k * psi;
    case 1:
        return 2 * psi + 2 * psi + k * psi / nd;
    case 2:
        return 2 * psi + (2 + k) * psi / nd;
    default:
        return (2 + 2 + k) * psi / nd;
    }
}

Test(parallel, zero_memory_per_device_is_the_papers)
{
    struct workload w, p;
    struct parallel_opts o;
    struct parallel_device dev[4];
    const int D = 4;
    double psi = 0;

    gpt(&w, 2, 1, 2, TRAIN_ADAM); /* fp16 parameters */
    for (int32_t i = 0; i < w.n_ops; i++) {
        psi += w.op[i].phase == PHASE_FORWARD ? (double)w.op[i].persistent / 2 : 0;
    }
    for (int z = 0; z <= 3; z++) {
        parallel_opts_init(&o);
        o.dp = D;
        o.zero = z;
        o.mixed_precision = true;
        cr_assert_eq(parallel_apply(&p, &w, &o), 0, "%s", err_msg());
        parallel_summarize(&p, D, dev);
        for (int r = 0; r < D; r++) {
            double m = (double)(dev[r].param_bytes + dev[r].grad_bytes + dev[r].optimizer_bytes);
            double f = zero_formula(z, psi, D);

            cr_assert(fabs(m - f) <= 0.01 * f, "stage %d device %d: %.0f bytes, formula %.0f", z, r,
                      m, f);
        }
        workload_release(&p);
    }
    workload_release(&w);
}

Test(parallel, ddp_buckets_reverse_order_and_cap)
{
    struct workload w, p;
    struct parallel_opts o;
    int32_t last = -1, n_buckets = 0, n_big = 0;
    char first_layer = 0;
    const int64_t cap = 262144; /* 0.25 MiB */

    gpt(&w, 3, 1, 4, TRAIN_MOMENTUM);
    parallel_opts_init(&o);
    o.dp = 2;
    o.bucket_mb = 0.25;
    cr_assert_eq(parallel_apply(&p, &w, &o), 0, "%s", err_msg());
    for (int32_t i = 0; i < p.n_ops; i++) {
        const struct wl_op *op = &p.op[i];
        const char *id = coll(&p, i, "id");
        int64_t bytes = 0;

        if (!id || op->device != 0) {
            continue;
        }
        cr_assert(strstr(id, "/ddp/b"), "%s", id);
        cr_assert_str_eq(coll(&p, i, "kind"), "all-reduce");
        for (int32_t k = 0; k < op->n_in; k++) {
            const struct wl_input *in = &p.input[op->in_off + k];
            const struct wl_op *g = &p.op[in->producer];

            /* the order backward makes gradients in: later layers first */
            cr_assert(in->producer > last, "%s after op %d", g->name, (int)last);
            cr_assert(i > in->producer, "bucket %s before its gradient %s", id, g->name);
            last = in->producer;
            bytes += p.out_bytes[g->out_off + in->port];
        }
        for (int32_t k = 0; k < op->n_in && !first_layer; k++) {
            const char *h = strstr(p.op[p.input[op->in_off + k].producer].name, "/h");

            first_layer = h ? h[2] : 0; /* the first layer with a gradient in a bucket */
        }
        cr_assert_eq(bytes, strtoll(coll(&p, i, "bytes"), NULL, 10));
        cr_assert(bytes <= cap || op->n_in == 1, "bucket %s: %lld bytes in %d gradients", id,
                  (long long)bytes, (int)op->n_in);
        n_big += bytes > cap;
        n_buckets++;
    }
    cr_assert(n_buckets >= 4, "%d buckets", (int)n_buckets);
    cr_assert_eq(first_layer, '2'); /* reverse layer order: the last layer first */
    cr_assert(n_big >= 1);          /* the embedding's gradient: alone */
    /* every update reads the all-reduce of its bucket */
    for (int32_t i = 0; i < p.n_ops; i++) {
        if (p.op[i].phase == PHASE_UPDATE) {
            const struct wl_input *in = &p.input[p.op[i].in_off];

            cr_assert_str_eq(p.op[in->producer].type, "AllReduce", "%s", p.op[i].name);
            cr_assert_eq(p.op[in->producer].device, p.op[i].device);
        }
    }
    workload_release(&w);
    workload_release(&p);
}

Test(parallel, pipeline_stages_and_rank_layout)
{
    struct workload w, p;
    const int D = 2, T = 2, P = 2;

    gpt(&w, 4, 2, 4, TRAIN_MOMENTUM);
    par(&p, &w, D, T, P, 1);
    for (int32_t i = 0; i < p.n_ops; i++) {
        const struct wl_op *op = &p.op[i];
        int r, stage;
        char rest[256];

        cr_assert_eq(sscanf(op->name, "r%d/%255s", &r, rest), 2, "%s", op->name);
        cr_assert_eq(op->device, r, "%s", op->name);
        stage = r / (T * D);
        if (strncmp(rest, "h0/", 3) == 0 || strncmp(rest, "h1/", 3) == 0 ||
            strncmp(rest, "embed", 5) == 0 || strncmp(rest, "wte", 3) == 0) {
            cr_assert_eq(stage, 0, "%s", op->name);
        }
        if (strncmp(rest, "h2/", 3) == 0 || strncmp(rest, "h3/", 3) == 0 ||
            strncmp(rest, "ln_f", 4) == 0 || strncmp(rest, "loss", 4) == 0) {
            cr_assert_eq(stage, 1, "%s", op->name);
        }
        if (coll(&p, i, "id") && strstr(coll(&p, i, "id"), "/tp/")) {
            /* a TP group: T consecutive ranks; its op reads its own rank's */
            cr_assert_eq(p.op[p.input[op->in_off].producer].device, r);
        }
    }
    /* rank 5 = t 1 + T x (d 0 + D x p 1) */
    cr_assert_eq(find(&p, 5, "h3/mlp/c_fc/mb1")->device, 5);
    workload_release(&w);
    workload_release(&p);
}

Test(parallel, refusals_name_the_problem)
{
    struct workload w, p;
    struct gen_opts o;
    struct parallel_opts po;

    gen_opts_init(&o);
    o.forward_only = true;
    o.layers = 1;
    cr_assert_eq(gen_model(&w, "gpt", &o, NULL), 0);
    parallel_opts_init(&po);
    po.dp = 2;
    cr_assert_eq(parallel_apply(&p, &w, &po), BAECHI_EINVAL);
    cr_assert(strstr(err_msg(), "forward graph"), "%s", err_msg());
    workload_release(&w);

    gpt(&w, 1, 1, 4, TRAIN_MOMENTUM);
    po.dp = 1;
    po.tp = 3; /* the widths do not divide by 3 */
    cr_assert_eq(parallel_apply(&p, &w, &po), BAECHI_EINVAL);
    cr_assert(strstr(err_msg(), "h0/attn/"), "%s", err_msg());
    po.tp = 1;
    po.pp = 4; /* one layer */
    cr_assert_eq(parallel_apply(&p, &w, &po), BAECHI_EINVAL);
    cr_assert(strstr(err_msg(), "only 1 layers"), "%s", err_msg());
    workload_release(&w);

    gen_opts_init(&o);
    o.batch = 4;
    cr_assert_eq(gen_model(&w, "gnmt", &o, NULL), 0);
    po.pp = 1;
    po.tp = 2;
    cr_assert_eq(parallel_apply(&p, &w, &po), BAECHI_EINVAL);
    cr_assert(strstr(err_msg(), "is not in an attention or MLP block"), "%s", err_msg());
    workload_release(&w);
}

/* The largest Σ forward time of a device of p. */
static double max_stage_forward_us(const struct workload *p, int n_dev)
{
    double t[8] = {0}, m = 0;

    for (int32_t i = 0; i < p->n_ops; i++) {
        if (p->op[i].phase == PHASE_FORWARD && p->op[i].device < n_dev) {
            t[p->op[i].device] += p->op[i].time_us;
        }
    }
    for (int d = 0; d < n_dev; d++) {
        m = t[d] > m ? t[d] : m;
    }
    return m;
}

Test(parallel, pipeline_balanced_by_time)
{
    struct workload w, byl, byt;
    struct gen_opts o;
    struct parallel_opts po;

    gen_opts_init(&o);
    o.layers = 8;
    o.d_model = 128;
    o.heads = 4;
    o.vocab = 50000; /* the LM head weighs 3 layers or so: equal counts overload the last stage */
    o.batch = 2;
    o.seq = 64;
    cr_assert_eq(gen_model(&w, "gpt", &o, NULL), 0, "%s", err_msg());
    parallel_opts_init(&po);
    po.pp = 4;
    cr_assert_eq(parallel_apply(&byl, &w, &po), 0, "%s", err_msg());
    po.pp_by_time = true;
    cr_assert_eq(parallel_apply(&byt, &w, &po), 0, "%s", err_msg());
    cr_assert(max_stage_forward_us(&byt, 4) < 0.9 * max_stage_forward_us(&byl, 4), "%g vs %g",
              max_stage_forward_us(&byt, 4), max_stage_forward_us(&byl, 4));
    workload_release(&w);
    workload_release(&byl);
    workload_release(&byt);
}

Test(parallel, tp_transformer_blocks)
{
    struct workload w, p;
    struct gen_opts o;
    int n_fwd = 0, n_bwd = 0;

    gen_opts_init(&o);
    o.layers = 1;
    o.batch = 4;
    o.seq = 16;
    cr_assert_eq(gen_model(&w, "transformer", &o, NULL), 0, "%s", err_msg());
    par(&p, &w, 1, 2, 1, 0);
    for (int32_t i = 0; i < p.n_ops; i++) {
        if (p.op[i].device == 0 && coll(&p, i, "id") && !strstr(coll(&p, i, "id"), "/xent")) {
            cr_assert_eq(strtoll(coll(&p, i, "bytes"), NULL, 10), 4LL * 16 * 512 * 4, "%s",
                         p.op[i].name);
            n_fwd += p.op[i].phase == PHASE_FORWARD;
            n_bwd += p.op[i].phase == PHASE_BACKWARD;
        }
    }
    /* forward: encoder attention + FFN, decoder self, cross attention + FFN;
     * backward: the inputs of those blocks, the cross attention's two (the
     * decoder's for Q, the encoder output for K and V: Q, K, V of one input
     * are one all-reduce); + the vocabulary-parallel lookups of the shared
     * table (source and target, forward) and the output projection's input
     * (backward) */
    cr_assert_eq(n_fwd, 2 + 3 + 2);
    cr_assert_eq(n_bwd, 2 + 4 + 1);
    workload_release(&w);
    workload_release(&p);
}

/* Collectives follow their replicas: a rank op with inputs is in the
 * colocation group of its first input's producer (the replica's op), so a
 * placer keeping groups puts it there; one without inputs keeps its own. */
Test(parallel, rank_ops_join_their_replicas_group)
{
    struct workload w, p;
    int n_joined = 0, n_own = 0;

    gpt(&w, 2, 1, 2, TRAIN_ADAM);
    par(&p, &w, 2, 2, 1, 3);
    for (int32_t i = 0; i < p.n_ops; i++) {
        const struct wl_op *op = &p.op[i];

        if (!coll(&p, i, "id")) {
            continue;
        }
        const char *z = strstr(op->name, "/zero3/");

        if (z) { /* a parameter gather: its reader's group, r<r>/<reader> */
            char reader[512];
            int32_t k;

            snprintf(reader, sizeof(reader), "%.*s/%.*s", (int)strcspn(op->name, "/"), op->name,
                     (int)(strlen(z + 7) - 3), z + 7);
            k = workload_find(&p, reader);
            cr_assert(k >= 0, "no reader '%s'", reader);
            cr_expect_str_eq(workload_group(&p, i), workload_group(&p, k), "%s", op->name);
            n_own++;
        } else {
            cr_assert_gt(op->n_in, 0, "%s", op->name);
            cr_expect_str_eq(workload_group(&p, i),
                             workload_group(&p, p.input[op->in_off].producer), "%s", op->name);
            n_joined++;
        }
    }
    cr_expect_gt(n_joined, 8);
    cr_expect_gt(n_own, 0, "ZeRO-3's parameter gathers join their readers' groups");
    workload_release(&p);
    workload_release(&w);
}

/* The GPT graph with every name holding "h0/mlp/c_fc" prefixed by `pad`
 * bytes of 'n' (each name and its references alike). */
static void gpt_long_names(struct workload *w, size_t pad)
{
    const char *key = "h0/mlp/c_fc";
    struct workload g;
    char *text = NULL, *out, *p, *q, *long_name;
    size_t len = 0, n = 0;
    FILE *f;

    gpt(&g, 2, 1, 4, TRAIN_MOMENTUM);
    cr_assert((f = open_memstream(&text, &len)) != NULL);
    cr_assert_eq(workload_write_yaml(&g, f), 0, "%s", err_msg());
    fclose(f);
    for (p = text; (p = strstr(p, key)) != NULL; p++) {
        n++;
    }
    cr_assert(n > 0);
    cr_assert((long_name = malloc(pad + strlen(key) + 1)) != NULL);
    memset(long_name, 'n', pad);
    strcpy(long_name + pad, key);
    cr_assert((out = malloc(len + n * pad + 1)) != NULL);
    for (p = text, q = out; *p;) {
        if (strncmp(p, key, strlen(key)) == 0) {
            q = stpcpy(q, long_name);
            p += strlen(key);
        } else {
            *q++ = *p++;
        }
    }
    *q = '\0';
    cr_assert_eq(workload_read_yaml_string(w, out, strlen(out), "long.yaml"), 0, "%s", err_msg());
    free(out);
    free(text);
    free(long_name);
    workload_release(&g);
}

/* Op names past the old name buffers (char[1024] for a rank's copy, and
 * the collectives' ids and groups): each rank's copy keeps the whole name
 * (issue 34 item 3; they were cut at 1,023 bytes). */
Test(parallel, names_longer_than_the_old_buffers)
{
    struct workload in, out;
    char *want;
    size_t pad = 1500;
    int32_t i;

    gpt_long_names(&in, pad);
    par(&out, &in, 2, 2, 1, 0);
    cr_assert((want = malloc(pad + 64)) != NULL);
    strcpy(want, "r3/");
    memset(want + 3, 'n', pad);
    strcpy(want + 3 + pad, "h0/mlp/c_fc");
    i = workload_find(&out, want);
    cr_assert(i >= 0, "no op r3/<%zu x n>h0/mlp/c_fc", pad);
    cr_expect_str_eq(out.op[i].type, in.op[workload_find(&in, want + 3)].type);
    free(want);
    workload_release(&out);
    workload_release(&in);
}

/* Issue 34 item 3: the TP group of an entry gradient and the sequence split
 * of a backward op were found by the forward op's name copied into a
 * char[1024]; a longer name was cut, the forward op not found, and the
 * gradient left out of its TP all-reduce.  A long-named GPT under --tp 2
 * --sp must parallelize to the same ops, types and collectives as the
 * short-named one. */
Test(parallel, tp_keys_of_names_longer_than_the_old_buffers)
{
    struct workload in_short, in_long, out_short, out_long;
    struct parallel_opts o;
    size_t pad = 1500;

    gpt_long_names(&in_short, 0);
    gpt_long_names(&in_long, pad);
    parallel_opts_init(&o);
    o.tp = 2;
    o.sp = true;
    cr_assert_eq(parallel_apply(&out_short, &in_short, &o), 0, "%s", err_msg());
    cr_assert_eq(parallel_apply(&out_long, &in_long, &o), 0, "%s", err_msg());
    cr_assert_eq(out_long.n_ops, out_short.n_ops);
    for (int32_t i = 0; i < out_short.n_ops; i++) {
        const struct wl_op *a = &out_short.op[i], *b = &out_long.op[i];

        cr_assert_str_eq(b->type, a->type, "op %d ('%s')", (int)i, a->name);
        cr_assert_eq(b->n_in, a->n_in, "op %d ('%s')", (int)i, a->name);
        cr_assert_eq(b->n_out, a->n_out, "op %d ('%s')", (int)i, a->name);
    }
    workload_release(&out_long);
    workload_release(&out_short);
    workload_release(&in_long);
    workload_release(&in_short);
}
