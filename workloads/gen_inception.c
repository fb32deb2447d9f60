/*
 * gen_inception.c - Inception-V3 as torchvision's Inception3 (Szegedy et
 * al. 2016; torchvision/models/inception.py): every BasicConv2d is a
 * Conv2D (no bias), a FusedBatchNorm (gamma, beta; eps 0.001) and a Relu,
 * pools and concatenations are ops of their own, then global average pool,
 * the 2048 -> 1000 classifier and a softmax cross-entropy loss.  Input
 * 299x299x3, batch 32 by default (the paper ran 32 and 64).
 *
 * Parameters: 23,834,568 without the auxiliary classifier, 27,161,264 with it
 * (torchvision's counts).  Forward: 5.7 G multiply-adds per image (conv and
 * linear layers, as torchvision's table counts).
 *
 * deviation: BatchNorm moving mean/variance (non-trainable, 2 x C floats per
 * layer, 0.1 MB in all) are not modelled; dropout is omitted (no cost).
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "workloads/gen.h"

#include "core/err.h"
#include "workloads/gen_build.h"

#include <string.h>

struct t4 {
    int32_t op;
    int64_t c, h, w;
};

struct inc {
    struct gb b;
    int64_t n;   /* batch */
    double macs; /* conv + linear multiply-adds */
};

static int64_t out_dim(int64_t in, int k, int s, int p)
{
    return (in + 2 * p - k) / s + 1;
}

/* BasicConv2d: conv (no bias) + batch norm + relu, one layer group. */
static int basic_conv(struct inc *m, const struct t4 *x, struct t4 *y, int64_t cout, int kh, int kw,
                      int sh, int sw, int ph, int pw, const char *name)
{
    int64_t ho = out_dim(x->h, kh, sh, ph), wo = out_dim(x->w, kw, sw, pw);
    int64_t elems = m->n * cout * ho * wo;
    double macs = (double)elems * (double)(x->c * kh * kw);
    int32_t conv, bn, relu;
    int rc;

    gb_group(&m->b, "%s%s%s", m->b.scope, m->b.scope[0] ? "/" : "", name);
    if ((rc = gb_op(&m->b, &conv, "Conv2D", 2 * macs, x->c * cout * kh * kw, &elems, 1,
                    &(struct gb_in){x->op, 0}, 1, "%s/conv", name)) ||
        (rc = gb_op(&m->b, &bn, "FusedBatchNorm", 5.0 * (double)elems, 2 * cout, &elems, 1,
                    &(struct gb_in){conv, 0}, 1, "%s/bn", name)) ||
        (rc = gb_op(&m->b, &relu, "Relu", (double)elems, 0, &elems, 1, &(struct gb_in){bn, 0}, 1,
                    "%s/relu", name))) {
        return rc;
    }
    m->macs += macs;
    gb_group(&m->b, "%s", "");
    *y = (struct t4){relu, cout, ho, wo};
    return 0;
}

static int conv1(struct inc *m, const struct t4 *x, struct t4 *y, int64_t cout, const char *name)
{
    return basic_conv(m, x, y, cout, 1, 1, 1, 1, 0, 0, name);
}

static int pool(struct inc *m, const struct t4 *x, struct t4 *y, const char *type, int k, int s,
                int p, const char *name)
{
    int64_t ho = out_dim(x->h, k, s, p), wo = out_dim(x->w, k, s, p);
    int64_t elems = m->n * x->c * ho * wo;
    int32_t id;
    int rc;

    if ((rc = gb_op(&m->b, &id, type, (double)elems * k * k, 0, &elems, 1,
                    &(struct gb_in){x->op, 0}, 1, "%s", name))) {
        return rc;
    }
    *y = (struct t4){id, x->c, ho, wo};
    return 0;
}

static int concat(struct inc *m, const struct t4 *parts, int n, struct t4 *y)
{
    struct gb_in in[4];
    int64_t c = 0, elems;
    int32_t id;
    int rc;

    for (int i = 0; i < n; i++) {
        in[i] = (struct gb_in){parts[i].op, 0};
        c += parts[i].c;
    }
    elems = m->n * c * parts[0].h * parts[0].w;
    if ((rc = gb_op(&m->b, &id, "ConcatV2", 0, 0, &elems, 1, in, n, "concat"))) {
        return rc;
    }
    *y = (struct t4){id, c, parts[0].h, parts[0].w};
    return 0;
}

static int inception_a(struct inc *m, struct t4 *x, int64_t pool_features, const char *name)
{
    struct t4 br[4], t;
    int rc;

    gb_scope(&m->b, "%s", name);
    if ((rc = conv1(m, x, &br[0], 64, "branch1x1")) || (rc = conv1(m, x, &t, 48, "branch5x5_1")) ||
        (rc = basic_conv(m, &t, &br[1], 64, 5, 5, 1, 1, 2, 2, "branch5x5_2")) ||
        (rc = conv1(m, x, &t, 64, "branch3x3dbl_1")) ||
        (rc = basic_conv(m, &t, &t, 96, 3, 3, 1, 1, 1, 1, "branch3x3dbl_2")) ||
        (rc = basic_conv(m, &t, &br[2], 96, 3, 3, 1, 1, 1, 1, "branch3x3dbl_3")) ||
        (rc = pool(m, x, &t, "AvgPool", 3, 1, 1, "branch_pool_avg")) ||
        (rc = conv1(m, &t, &br[3], pool_features, "branch_pool")) || (rc = concat(m, br, 4, x))) {
        return rc;
    }
    return 0;
}

static int inception_b(struct inc *m, struct t4 *x, const char *name)
{
    struct t4 br[3], t;
    int rc;

    gb_scope(&m->b, "%s", name);
    if ((rc = basic_conv(m, x, &br[0], 384, 3, 3, 2, 2, 0, 0, "branch3x3")) ||
        (rc = conv1(m, x, &t, 64, "branch3x3dbl_1")) ||
        (rc = basic_conv(m, &t, &t, 96, 3, 3, 1, 1, 1, 1, "branch3x3dbl_2")) ||
        (rc = basic_conv(m, &t, &br[1], 96, 3, 3, 2, 2, 0, 0, "branch3x3dbl_3")) ||
        (rc = pool(m, x, &br[2], "MaxPool", 3, 2, 0, "branch_pool")) ||
        (rc = concat(m, br, 3, x))) {
        return rc;
    }
    return 0;
}

static int inception_c(struct inc *m, struct t4 *x, int64_t c7, const char *name)
{
    struct t4 br[4], t;
    int rc;

    gb_scope(&m->b, "%s", name);
    if ((rc = conv1(m, x, &br[0], 192, "branch1x1")) || (rc = conv1(m, x, &t, c7, "branch7x7_1")) ||
        (rc = basic_conv(m, &t, &t, c7, 1, 7, 1, 1, 0, 3, "branch7x7_2")) ||
        (rc = basic_conv(m, &t, &br[1], 192, 7, 1, 1, 1, 3, 0, "branch7x7_3")) ||
        (rc = conv1(m, x, &t, c7, "branch7x7dbl_1")) ||
        (rc = basic_conv(m, &t, &t, c7, 7, 1, 1, 1, 3, 0, "branch7x7dbl_2")) ||
        (rc = basic_conv(m, &t, &t, c7, 1, 7, 1, 1, 0, 3, "branch7x7dbl_3")) ||
        (rc = basic_conv(m, &t, &t, c7, 7, 1, 1, 1, 3, 0, "branch7x7dbl_4")) ||
        (rc = basic_conv(m, &t, &br[2], 192, 1, 7, 1, 1, 0, 3, "branch7x7dbl_5")) ||
        (rc = pool(m, x, &t, "AvgPool", 3, 1, 1, "branch_pool_avg")) ||
        (rc = conv1(m, &t, &br[3], 192, "branch_pool")) || (rc = concat(m, br, 4, x))) {
        return rc;
    }
    return 0;
}

static int inception_d(struct inc *m, struct t4 *x, const char *name)
{
    struct t4 br[3], t;
    int rc;

    gb_scope(&m->b, "%s", name);
    if ((rc = conv1(m, x, &t, 192, "branch3x3_1")) ||
        (rc = basic_conv(m, &t, &br[0], 320, 3, 3, 2, 2, 0, 0, "branch3x3_2")) ||
        (rc = conv1(m, x, &t, 192, "branch7x7x3_1")) ||
        (rc = basic_conv(m, &t, &t, 192, 1, 7, 1, 1, 0, 3, "branch7x7x3_2")) ||
        (rc = basic_conv(m, &t, &t, 192, 7, 1, 1, 1, 3, 0, "branch7x7x3_3")) ||
        (rc = basic_conv(m, &t, &br[1], 192, 3, 3, 2, 2, 0, 0, "branch7x7x3_4")) ||
        (rc = pool(m, x, &br[2], "MaxPool", 3, 2, 0, "branch_pool")) ||
        (rc = concat(m, br, 3, x))) {
        return rc;
    }
    return 0;
}

static int inception_e(struct inc *m, struct t4 *x, const char *name)
{
    struct t4 br[4], t, u, ab[2];
    int rc;

    gb_scope(&m->b, "%s", name);
    if ((rc = conv1(m, x, &br[0], 320, "branch1x1")) ||
        (rc = conv1(m, x, &t, 384, "branch3x3_1")) ||
        (rc = basic_conv(m, &t, &ab[0], 384, 1, 3, 1, 1, 0, 1, "branch3x3_2a")) ||
        (rc = basic_conv(m, &t, &ab[1], 384, 3, 1, 1, 1, 1, 0, "branch3x3_2b"))) {
        return rc;
    }
    gb_scope(&m->b, "%s/branch3x3", name);
    if ((rc = concat(m, ab, 2, &br[1]))) {
        return rc;
    }
    gb_scope(&m->b, "%s", name);
    if ((rc = conv1(m, x, &t, 448, "branch3x3dbl_1")) ||
        (rc = basic_conv(m, &t, &u, 384, 3, 3, 1, 1, 1, 1, "branch3x3dbl_2")) ||
        (rc = basic_conv(m, &u, &ab[0], 384, 1, 3, 1, 1, 0, 1, "branch3x3dbl_3a")) ||
        (rc = basic_conv(m, &u, &ab[1], 384, 3, 1, 1, 1, 1, 0, "branch3x3dbl_3b"))) {
        return rc;
    }
    gb_scope(&m->b, "%s/branch3x3dbl", name);
    if ((rc = concat(m, ab, 2, &br[2]))) {
        return rc;
    }
    gb_scope(&m->b, "%s", name);
    if ((rc = pool(m, x, &t, "AvgPool", 3, 1, 1, "branch_pool_avg")) ||
        (rc = conv1(m, &t, &br[3], 192, "branch_pool")) || (rc = concat(m, br, 4, x))) {
        return rc;
    }
    return 0;
}

/* Global average pool, then the classifier (MatMul with bias) -> logits. */
static int classifier(struct inc *m, const struct t4 *x, int32_t *logits, const char *name)
{
    int64_t pooled = m->n * x->c, out = m->n * 1000;
    double macs = (double)m->n * (double)x->c * 1000.0;
    int32_t avg;
    int rc;

    gb_group(&m->b, "%s/fc", name);
    if ((rc = gb_op(&m->b, &avg, "Mean", (double)(m->n * x->c * x->h * x->w), 0, &pooled, 1,
                    &(struct gb_in){x->op, 0}, 1, "%s/avgpool", name)) ||
        (rc = gb_op(&m->b, logits, "MatMul", 2 * macs + (double)out, x->c * 1000 + 1000, &out, 1,
                    &(struct gb_in){avg, 0}, 1, "%s/fc", name))) {
        return rc;
    }
    gb_group(&m->b, "%s", "");
    m->macs += macs;
    return 0;
}

static int aux_head(struct inc *m, const struct t4 *x, int32_t *logits)
{
    struct t4 t;
    int rc;

    gb_scope(&m->b, "AuxLogits");
    if ((rc = pool(m, x, &t, "AvgPool", 5, 3, 0, "pool_5x5")) ||
        (rc = conv1(m, &t, &t, 128, "conv0")) ||
        (rc = basic_conv(m, &t, &t, 768, 5, 5, 1, 1, 0, 0, "conv1"))) {
        return rc;
    }
    gb_scope(&m->b, "%s", "");
    return classifier(m, &t, logits, "AuxLogits");
}

static int loss(struct inc *m, int32_t logits, int32_t labels, int32_t *out, const char *name)
{
    int64_t one = 1;

    return gb_op(&m->b, out, "SoftmaxCrossEntropyWithLogits", 5.0 * (double)(m->n * 1000), 0, &one,
                 1, (struct gb_in[]){{logits, 0}, {labels, 0}}, 2, "%s", name);
}

int gen_inception_v3(struct workload *w, const struct gen_opts *o, struct gen_info *info)
{
    struct inc m;
    struct t4 x;
    int64_t n = o->batch > 0 ? o->batch : 32;
    int64_t img = n * 3 * 299 * 299, lab = n;
    int32_t images, labels, logits, aux_logits = -1, l_main, l_aux, total;
    int rc;

    memset(&m, 0, sizeof(m));
    gb_init(&m.b, w, o->elem_bytes, o->groups);
    m.n = n;
    if ((rc = gb_op(&m.b, &images, "Placeholder", 0, 0, &img, 1, NULL, 0, "images")) ||
        (rc = gb_op(&m.b, &labels, "Placeholder", 0, 0, &lab, 1, NULL, 0, "labels"))) {
        return rc;
    }
    x = (struct t4){images, 3, 299, 299};
    if ((rc = basic_conv(&m, &x, &x, 32, 3, 3, 2, 2, 0, 0, "Conv2d_1a_3x3")) ||
        (rc = basic_conv(&m, &x, &x, 32, 3, 3, 1, 1, 0, 0, "Conv2d_2a_3x3")) ||
        (rc = basic_conv(&m, &x, &x, 64, 3, 3, 1, 1, 1, 1, "Conv2d_2b_3x3")) ||
        (rc = pool(&m, &x, &x, "MaxPool", 3, 2, 0, "maxpool1")) ||
        (rc = conv1(&m, &x, &x, 80, "Conv2d_3b_1x1")) ||
        (rc = basic_conv(&m, &x, &x, 192, 3, 3, 1, 1, 0, 0, "Conv2d_4a_3x3")) ||
        (rc = pool(&m, &x, &x, "MaxPool", 3, 2, 0, "maxpool2")) ||
        (rc = inception_a(&m, &x, 32, "Mixed_5b")) || (rc = inception_a(&m, &x, 64, "Mixed_5c")) ||
        (rc = inception_a(&m, &x, 64, "Mixed_5d")) || (rc = inception_b(&m, &x, "Mixed_6a")) ||
        (rc = inception_c(&m, &x, 128, "Mixed_6b")) ||
        (rc = inception_c(&m, &x, 160, "Mixed_6c")) ||
        (rc = inception_c(&m, &x, 160, "Mixed_6d")) ||
        (rc = inception_c(&m, &x, 192, "Mixed_6e"))) {
        return rc;
    }
    if (o->aux && (rc = aux_head(&m, &x, &aux_logits))) {
        return rc;
    }
    if ((rc = inception_d(&m, &x, "Mixed_7a")) || (rc = inception_e(&m, &x, "Mixed_7b")) ||
        (rc = inception_e(&m, &x, "Mixed_7c"))) {
        return rc;
    }
    gb_scope(&m.b, "%s", "");
    if ((rc = classifier(&m, &x, &logits, "Logits")) ||
        (rc = loss(&m, logits, labels, &l_main, "loss"))) {
        return rc;
    }
    if (o->aux) {
        int64_t one = 1;

        if ((rc = loss(&m, aux_logits, labels, &l_aux, "aux_loss")) ||
            (rc = gb_op(&m.b, &total, "AddN", 2, 0, &one, 1,
                        (struct gb_in[]){{l_main, 0}, {l_aux, 0}}, 2, "total_loss"))) {
            return rc;
        }
    }
    gb_info(&m.b, info, n, 1, m.macs);
    return 0;
}
