/*
 * parallel.c - data, tensor and pipeline parallelism as a graph transform
 * (see parallel.h for the rules and docs/parallelism.md for the sources).
 *
 * One plan per pipeline stage (the ops of the stage in the input's order,
 * with the collectives inserted where they start), shared by the stage's
 * D x T ranks; every op's id in the output is base[rank] + its index in the
 * plan, so edges between stages resolve before the producer is written.
 *
 * Beyond the original: Baechi places a single-device graph's ops; replicas,
 * split layers and collectives are what this suite adds to compare with it.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "workloads/parallel.h"
#include "workloads/parallel_internal.h"

#include "core/alloc.h"
#include "core/err.h"
#include "core/strbuf.h"
#include "workloads/gen_cap.h"
#include "workloads/train.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

void parallel_opts_init(struct parallel_opts *o)
{
    o->dp = o->tp = o->pp = 1;
    o->zero = 0;
    o->bucket_mb = 25.0;
    o->mixed_precision = false;
    o->fp32_main_grads = false;
    o->sp = false;
    o->pp_by_time = false;
    o->symmetric = false;
}

int parallel_opts_check(const struct parallel_opts *o)
{
    struct parallel_opts d;

    parallel_opts_init(&d);
    if (o->zero > 0 && o->dp < 2) {
        return err_set(BAECHI_EINVAL,
                       "--zero %d shards over the data-parallel replicas and needs --dp 2 or "
                       "more (--dp %d)",
                       (int)o->zero, (int)o->dp);
    }
    if (o->bucket_mb != d.bucket_mb && o->dp < 2) {
        return err_set(BAECHI_EINVAL,
                       "--bucket-mb caps the gradient buckets that data parallelism all-reduces "
                       "and needs --dp 2 or more (--dp %d)",
                       (int)o->dp);
    }
    if (o->symmetric && o->dp < 2 && o->tp < 2) {
        return err_set(BAECHI_EINVAL,
                       "--symmetric writes one data-parallel replica and one tensor-parallel "
                       "rank for all and needs --dp 2 or --tp 2 or more (--dp %d, --tp %d)",
                       (int)o->dp, (int)o->tp);
    }
    if (o->sp && o->tp < 2) {
        return err_set(BAECHI_EINVAL,
                       "--sp splits the tensor-parallel group's LayerNorm and dropout regions "
                       "and needs --tp 2 or more (--tp %d)",
                       (int)o->tp);
    }
    if (o->pp_by_time && o->pp < 2) {
        return err_set(BAECHI_EINVAL,
                       "--pp-balance time balances pipeline stages and needs --pp 2 or more "
                       "(--pp %d)",
                       (int)o->pp);
    }
    return 0;
}

bool parallel_tp_symmetric(const struct parallel_opts *o)
{
    return o->symmetric && o->tp > 1;
}

bool parallel_rank_written(const struct parallel_opts *o, int32_t r)
{
    const int32_t t = r % o->tp, d = r / o->tp % o->dp;

    return !o->symmetric ||
           ((d == 0 || d == o->dp - 1) && (!parallel_tp_symmetric(o) || t == 0 || t == o->tp - 1));
}

int32_t parallel_ranks_written(const struct parallel_opts *o)
{
    if (!o->symmetric) {
        return o->dp * o->tp;
    }
    return (o->dp > 1 ? 2 : 1) * (!parallel_tp_symmetric(o) ? o->tp : 2);
}

bool parallel_opts_active(const struct parallel_opts *o)
{
    return o->dp * o->tp * o->pp > 1;
}

static int grow(void **p, size_t *alloc, size_t need, size_t elem)
{
    size_t n = *alloc ? *alloc : 64;
    void *q;

    if (need <= *alloc) {
        return 0;
    }
    while (n < need) {
        n *= 2;
    }
    if (!(q = mem_realloc_array(*p, n, elem))) {
        return BAECHI_ENOMEM;
    }
    *p = q;
    *alloc = n;
    return 0;
}

/* Length of the forward op's name that op name `s` derives from: without
 * "/update" or "/grad", then without "/mb<m>" (train.h). */
static size_t base_len(const char *s)
{
    size_t n = strlen(s), k;

    if (n > 7 && strcmp(s + n - 7, "/update") == 0) {
        n -= 7;
    } else if (n > 5 && strncmp(s + n - 5, "/grad", 5) == 0) {
        n -= 5;
    }
    for (k = n; k > 0 && s[k - 1] >= '0' && s[k - 1] <= '9'; k--) {
    }
    if (k < n && k >= 3 && strncmp(s + k - 3, "/mb", 3) == 0) {
        n = k - 3;
    }
    return n;
}

/* Base ops, their roles and updates; the TP checks. */
static int index_bases(struct ctx *x)
{
    const struct workload *w = x->w;
    int32_t n_split = 0;
    int rc;

    for (int32_t i = 0; i < x->n; i++) {
        const char *s = w->op[i].name;
        size_t n = base_len(s);
        int32_t b = strmap_get(&x->names, s, n);

        if (b < 0) {
            char *key = strpool_add(&x->pool, s, n);

            if (!key || (rc = strmap_put(&x->names, key, i, NULL))) {
                return BAECHI_ENOMEM;
            }
            b = i;
            x->role[b] = x->o->tp > 1 ? parallel_tp_role(s, n) : TP_NONE;
            n_split += x->role[b] != TP_NONE;
        }
        x->base[i] = b;
        if (w->op[i].phase == PHASE_UPDATE) {
            x->upd[b] = i;
        }
    }
    if (x->o->tp > 1 && (rc = parallel_tp_find_vocab(x))) {
        return rc;
    }
    if (x->o->tp > 1) {
        parallel_tp_propagate(x);
    }
    if (x->o->sp && (rc = parallel_tp_sequence(x))) {
        return rc;
    }
    return parallel_tp_check_roles(x, n_split);
}

int parallel_push_item(struct ctx *x, int32_t src, int32_t coll)
{
    if (grow((void **)&x->plan, &x->alloc_plan, x->n_plan + 1, sizeof(*x->plan))) {
        return BAECHI_ENOMEM;
    }
    if (src >= 0) {
        x->item_of[src] = (int32_t)x->n_plan - x->plan_off[x->stage[src]];
    }
    x->plan[x->n_plan++] = (struct item){src, coll};
    return 0;
}

/* Adds a collective to the plan of stage p; *at its index in the plan. */
int parallel_push_coll(struct ctx *x, int32_t p, const struct coll *c, int32_t *at)
{
    if (grow((void **)&x->coll, &x->alloc_coll, x->n_coll + 1, sizeof(*x->coll))) {
        return BAECHI_ENOMEM;
    }
    x->coll[x->n_coll] = *c;
    *at = (int32_t)x->n_plan - x->plan_off[p];
    return parallel_push_item(x, -1, (int32_t)x->n_coll++);
}

int parallel_coll_id(struct ctx *x, struct coll *c, const char *fmt, ...)
{
    struct strbuf sb = STRBUF_INIT;
    va_list ap;
    int rc;

    va_start(ap, fmt);
    rc = strbuf_vaddf(&sb, fmt, ap);
    va_end(ap);
    if (!rc) {
        const char *id = strpool_add(&x->pool, sb.buf, sb.len);

        rc = id ? 0 : BAECHI_ENOMEM;
        c->id = id ? id : c->id;
    }
    strbuf_release(&sb);
    return rc;
}

int parallel_add_cin(struct ctx *x, int32_t op, int32_t port)
{
    if (grow((void **)&x->cin, &x->alloc_cin, x->n_cin + 1, sizeof(*x->cin))) {
        return BAECHI_ENOMEM;
    }
    x->cin[x->n_cin++] = (struct wl_input){op, port, 0, 0};
    return 0;
}

/* The plans of all stages: each stage's ops in input order, collectives
 * where they start. */
static int build_plans(struct ctx *x)
{
    const struct workload *w = x->w;
    const struct parallel_opts *o = x->o;
    int32_t *ord = NULL, *after_grad = NULL, *after_upd = NULL, *bk_start = NULL;
    int32_t *next_member = NULL, *head = NULL, n_bk = 0;
    int rc = BAECHI_ENOMEM;

    if (!(ord = mem_calloc((size_t)x->n + 1, sizeof(*ord))) ||
        !(after_grad = mem_alloc_array((size_t)x->n + 1, sizeof(*after_grad))) ||
        !(after_upd = mem_alloc_array((size_t)x->n + 1, sizeof(*after_upd))) ||
        !(bk_start = mem_calloc((size_t)x->n + 2, sizeof(*bk_start))) ||
        !(next_member = mem_alloc_array((size_t)x->n + 1, sizeof(*next_member))) ||
        !(head = mem_alloc_array(w->n_out_bytes + 1, sizeof(*head)))) {
        goto done;
    }
    for (int32_t i = 0; i <= x->n; i++) {
        after_grad[i] = after_upd[i] = next_member[i] = -1;
    }
    for (size_t k = 0; k <= w->n_out_bytes; k++) {
        head[k] = -1;
    }
    if (o->dp > 1 &&
        (rc = parallel_dp_plan_buckets(x, ord, after_grad, after_upd, bk_start, &n_bk))) {
        goto done;
    }
    for (int32_t i = 0; i < x->n; i++) { /* TP groups: the chain of entry gradients per key */
        int32_t key = o->tp > 1 ? parallel_tp_key(x, i) : -1;

        if (key >= 0) {
            next_member[i] = head[key];
            head[key] = i;
        }
    }
    for (int32_t p = 0; p < o->pp; p++) {
        x->plan_off[p] = (int32_t)x->n_plan;
        for (int32_t i = 0; i < x->n; i++) {
            const struct wl_op *op = &w->op[i];
            int32_t key = o->tp > 1 ? parallel_tp_key(x, i) : -1;

            if (x->stage[i] != p) {
                continue;
            }
            if (o->zero >= 3 && o->dp > 1 && op->phase != PHASE_UPDATE && x->upd[x->base[i]] >= 0 &&
                (rc = parallel_dp_plan_gather(x, i))) {
                goto done;
            }
            if (o->tp > 1 && op->phase == PHASE_FORWARD && x->role[x->base[i]] == TP_XENT &&
                x->extra_in[i] < 0 && (rc = parallel_tp_plan_xent(x, i, p))) {
                goto done;
            }
            if (o->sp && op->phase != PHASE_UPDATE && (rc = parallel_tp_plan_gathers(x, i, p))) {
                goto done;
            }
            if ((rc = parallel_push_item(x, i, -1))) {
                goto done;
            }
            if (o->tp > 1 && op->phase == PHASE_FORWARD && x->role[x->base[i]] == TP_EXIT &&
                (rc = parallel_tp_plan_forward(x, i, p))) {
                goto done;
            }
            if (key >= 0 && head[key] == i && (rc = parallel_tp_plan_backward(x, i, next_member))) {
                goto done;
            }
            if (after_grad[i] >= 0 &&
                (rc = parallel_dp_plan_bucket(x, after_grad[i], ord, bk_start, false))) {
                goto done;
            }
            if (after_upd[i] >= 0 && o->zero >= 1 && o->zero <= 2 &&
                (rc = parallel_dp_plan_bucket(x, after_upd[i], ord, bk_start, true))) {
                goto done;
            }
        }
    }
    x->plan_off[o->pp] = (int32_t)x->n_plan;
    rc = 0;
done:
    free(ord);
    free(after_grad);
    free(after_upd);
    free(bk_start);
    free(next_member);
    free(head);
    return rc;
}

/* Whether op i is what parallel_apply writes: 2 a collective rank op, 1 a
 * rank copy ("r<r>/..." pinned to a device), 0 neither. */
static int is_rank_op(const struct workload *w, int32_t i)
{
    const struct wl_op *op = &w->op[i];
    const char *s = op->name;

    for (int32_t j = 0; j < op->n_ext; j++) {
        if (strcmp(w->ext[op->ext_off + j].key, "x-collective") == 0) {
            return 2;
        }
    }
    if (op->device < 0 || s[0] != 'r' || s[1] < '0' || s[1] > '9') {
        return 0;
    }
    for (s++; *s >= '0' && *s <= '9'; s++) {
    }
    return *s == '/';
}

static int check_opts(const struct workload *in, const struct parallel_opts *o)
{
    int32_t op, n_rank = 0, first = -1, coll = -1;

    const int32_t max = o->symmetric ? PARALLEL_MAX_SYMMETRIC_DEVICES : PARALLEL_MAX_DEVICES;

    if (o->dp < 1 || o->tp < 1 || o->pp < 1 || (int64_t)o->dp * o->tp * o->pp > max) {
        return err_set(BAECHI_EINVAL, "parallelize: --dp %d x --tp %d x --pp %d must be 1..%d%s",
                       (int)o->dp, (int)o->tp, (int)o->pp, (int)max,
                       o->symmetric ? "" : " (up to 16384 with --symmetric)");
    }
    if (o->zero < 0 || o->zero > 3 || !(o->bucket_mb > 0)) {
        return err_set(BAECHI_EINVAL, "parallelize: --zero %d must be 0..3 and --bucket-mb > 0",
                       (int)o->zero);
    }
    if (!train_is_training_graph(in, &op)) {
        return err_set(BAECHI_EINVAL,
                       "parallelize: '%s' is a forward graph; parallelise a training graph "
                       "(`baechi workload train` or `workload gen` without --forward-only)",
                       in->name);
    }
    if (parallel_opts_check(o)) { /* options that cannot act */
        return err_wrap(BAECHI_EINVAL, "parallelize");
    }
    if (o->fp32_main_grads && !o->mixed_precision) {
        return err_set(BAECHI_EINVAL, "parallelize: --fp32-main-grads keeps fp32 gradients of "
                                      "fp16 parameters and needs --mixed-precision");
    }
    /* A graph this transform wrote (collectives, or every op a rank copy):
     * parallelising it again multiplies the ranks of a step that is already
     * split, and its collectives would be copied as ops. */
    for (int32_t i = 0; i < in->n_ops; i++) {
        int k = is_rank_op(in, i);

        first = k && first < 0 ? i : first;
        coll = k == 2 && coll < 0 ? i : coll;
        n_rank += k > 0;
    }
    if (coll >= 0 || (first >= 0 && n_rank == in->n_ops)) {
        first = coll >= 0 ? coll : first;
        return workload_fail(in, in->op[first].line, in->op[first].col, BAECHI_EINVAL,
                             "op '%s': '%s' is already parallelised (a rank op of `workload "
                             "parallelize`); parallelise the single-device training graph it "
                             "came from",
                             in->op[first].name, in->name);
    }
    return 0;
}

int parallel_apply(struct workload *out, const struct workload *in, const struct parallel_opts *o)
{
    struct ctx x;
    size_t n = (size_t)in->n_ops + 1;
    int rc;

    workload_init(out);
    memset(&x, 0, sizeof(x));
    x.w = in;
    x.o = o;
    x.n = in->n_ops;
    x.n_dev = o->dp * o->tp * o->pp;
    strpool_init(&x.pool);
    strmap_init(&x.names);
    if ((rc = check_opts(in, o)) || (rc = gen_cap_parallel(in, o))) {
        goto done; /* gen_cap_parallel: the size before building it (gen_cap.h) */
    }
    rc = BAECHI_ENOMEM;
    if (!(x.stage = mem_calloc(n, sizeof(*x.stage))) ||
        !(x.base = mem_calloc(n, sizeof(*x.base))) ||
        !(x.upd = mem_alloc_array(n, sizeof(*x.upd))) ||
        !(x.role = mem_calloc(n, sizeof(*x.role))) ||
        !(x.vocab = mem_calloc(n, sizeof(*x.vocab))) ||
        !(x.item_of = mem_calloc(n, sizeof(*x.item_of))) ||
        !(x.extra_in = mem_alloc_array(n, sizeof(*x.extra_in))) ||
        !(x.redirect = mem_alloc_array(in->n_out_bytes + 1, sizeof(*x.redirect))) ||
        !(x.in_redirect = mem_alloc_array(in->n_input + 1, sizeof(*x.in_redirect))) ||
        !(x.seq_port = mem_calloc(in->n_out_bytes + 1, sizeof(*x.seq_port))) ||
        !(x.ag_at = mem_alloc_array(2 * in->n_out_bytes + 2, sizeof(*x.ag_at))) ||
        !(x.ag_stage = mem_calloc(2 * in->n_out_bytes + 2, sizeof(*x.ag_stage))) ||
        !(x.first_id = mem_calloc((size_t)x.n_dev, sizeof(*x.first_id))) ||
        !(x.plan_off = mem_calloc((size_t)o->pp + 1, sizeof(*x.plan_off)))) {
        goto done;
    }
    for (size_t i = 0; i < n; i++) {
        x.upd[i] = x.extra_in[i] = -1;
    }
    for (size_t i = 0; i <= in->n_out_bytes; i++) {
        x.redirect[i] = x.ag_at[2 * i] = x.ag_at[2 * i + 1] = -1;
    }
    for (size_t i = 0; i <= in->n_input; i++) {
        x.in_redirect[i] = -1;
    }
    if ((rc = index_bases(&x)) || (rc = parallel_tp_check_split(&x)) ||
        (rc = parallel_pp_assign_stages(&x)) || (rc = build_plans(&x)) ||
        (rc = parallel_copy_header(out, in, o)) || (rc = parallel_emit(out, &x))) {
        goto done;
    }
    rc = workload_check(out);
done:
    if (rc) {
        workload_release(out);
        workload_init(out);
    }
    strmap_release(&x.names);
    strpool_release(&x.pool);
    free(x.stage);
    free(x.base);
    free(x.upd);
    free(x.role);
    free(x.vocab);
    free(x.item_of);
    free(x.extra_in);
    free(x.redirect);
    free(x.in_redirect);
    free(x.seq_port);
    free(x.ag_at);
    free(x.ag_stage);
    free(x.first_id);
    free(x.plan_off);
    free(x.plan);
    free(x.coll);
    free(x.cin);
    return rc;
}
