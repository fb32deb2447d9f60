/*
 * test_gen_cap.c - the op count of a generated graph before it is built
 * (workloads/gen_cap.h) equals the count of the graph built, for every
 * model and the options it grows with (issue 30 item 6).
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include <criterion/criterion.h>

#include "core/err.h"
#include "workloads/gen_cap.h"

struct cap_case {
    const char *model;
    int layers, seq, micro, batch;
    bool forward_only;
    enum train_recompute recompute;
};

static const struct cap_case cases[] = {
    {"gpt", 7, 16, 5, 10, false, TRAIN_RECOMPUTE_NONE},
    {"gpt", 11, 8, 1, 8, false, TRAIN_RECOMPUTE_NONE},
    {"gpt", 4, 9, 6, 6, false, TRAIN_RECOMPUTE_FULL},
    {"gpt", 6, 5, 1, 4, true, TRAIN_RECOMPUTE_NONE},
    {"transformer", 5, 7, 4, 8, false, TRAIN_RECOMPUTE_SELECTIVE},
    {"transformer", 9, 6, 1, 4, false, TRAIN_RECOMPUTE_NONE},
    {"gnmt", 0, 13, 4, 8, false, TRAIN_RECOMPUTE_NONE},
    {"gnmt", 0, 21, 1, 8, true, TRAIN_RECOMPUTE_NONE},
    {"inception-v3", 0, 0, 4, 8, false, TRAIN_RECOMPUTE_NONE},
};

Test(gen_cap, count_before_equals_count_built)
{
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const struct cap_case *k = &cases[i];
        struct gen_opts o;
        struct workload w;
        int64_t ops;

        gen_opts_init(&o);
        o.device = NULL;
        o.layers = k->layers;
        o.seq = k->seq;
        o.batch = k->batch;
        /* only what the model reads: gen_model refuses the rest */
        o.d_model = k->model[0] == 'i' || k->model[1] == 'n' ? 0 : 64;
        o.heads = k->model[0] == 'i' || k->model[1] == 'n' ? 0 : 4;
        o.vocab = k->model[0] == 'i' ? 0 : 100;
        o.forward_only = k->forward_only;
        o.train.micro_batches = k->micro;
        o.train.recompute = k->recompute;
        cr_assert_eq(gen_cap_ops(k->model, &o, &ops), 0, "%s", err_msg());
        cr_assert_eq(gen_model(&w, k->model, &o, NULL), 0, "case %zu: %s", i, err_msg());
        if (ops >= 0) {
            cr_expect_eq(ops, w.n_ops, "case %zu (%s): %lld before, %d built", i, k->model,
                         (long long)ops, (int)w.n_ops);
        } else {
            cr_expect(k->layers <= 3 && k->seq <= 3 && k->micro <= 3, "case %zu: no count", i);
        }
        workload_release(&w);
    }
}

Test(gen_cap, refused_above_the_cap)
{
    struct gen_opts o;
    struct workload w;

    gen_opts_init(&o);
    o.device = NULL;
    o.layers = 10000;
    o.train.micro_batches = 1024;
    o.batch = 1024;
    cr_assert_eq(gen_model(&w, "gpt", &o, NULL), BAECHI_EINVAL);
    cr_expect(strstr(err_msg(), "--layers 10000 --micro-batches 1024 would have 266314343 ops"),
              "%s", err_msg());
}
