/*
 * cluster_yaml_nodes.c - a cluster file's `nodes`: GPUs per node,
 * the intra-node and inter-node links (bandwidth per GPU or per node) and
 * the tiers above the nodes (leaf, pod, oversubscription); then the check
 * against `devices` and the node layout (docs/formats.md).
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "core/cluster_yaml_internal.h"

#include "core/alloc.h"
#include "core/array.h"
#include "core/err.h"
#include "core/strbuf.h"
#include "core/limits.h"
#include "core/strmap.h"
#include "core/yio.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum nodes_key {
    NK_COUNT = 1 << 0,
    NK_GPUS = 1 << 1,
    NK_INTRA = 1 << 2,
    NK_INTER = 1 << 3,
    NK_TIERS = 1 << 4,
    NK_OVERSUB = 1 << 5,
    NK_LEAF = 1 << 6,
    NK_POD = 1 << 7,
};

enum link_key {
    LK_BW = 1 << 0,
    LK_LATENCY = 1 << 1,
    LK_SLOPE = 1 << 2,
    LK_INTERCEPT = 1 << 3,
    LK_PER = 1 << 4,
    LK_EFF = 1 << 5,
};

/* ---------------------------------------------------------------- nodes */

static int link_value(void *arg, unsigned bit)
{
    struct cl_reader *rd = arg;
    struct yrd *r = &rd->r;

    switch (bit) {
    case LK_BW:
        return cluster_yaml_get_with_unit(
            rd, rd->link_ctx, bw_units, sizeof(bw_units) / sizeof(bw_units[0]),
            "expected bytes/s (e.g. 450GB/s, 400Gb/s or 50e9)", &r_bw, &rd->link_bw);
    case LK_LATENCY:
    case LK_INTERCEPT:
        return cluster_yaml_get_number(rd, rd->link_ctx, &rd->link->intercept_us, &r_icpt);
    case LK_SLOPE:
        return cluster_yaml_get_number(rd, rd->link_ctx, &rd->link->slope_us_per_byte, &r_slope);
    case LK_EFF:
        return cluster_yaml_get_number(rd, rd->link_ctx, rd->link_eff, &r_eff);
    default:
        if (yrd_is_scalar(r) && strcmp(yrd_text(r), "gpu") == 0) {
            rd->link_per_node = false;
        } else if (yrd_is_scalar(r) && strcmp(yrd_text(r), "node") == 0) {
            rd->link_per_node = true;
        } else {
            return cluster_yaml_value_err(rd, rd->link_ctx, "expected gpu or node");
        }
        return 0;
    }
}

/* intra_node / inter_node: {bandwidth, latency_us} or {slope_us_per_byte, intercept_us}. */
static int read_link(struct cl_reader *rd, struct comm_model *m, double *eff, bool inter)
{
    static const struct yrd_key keys[] = {{"bandwidth", LK_BW, NULL},
                                          {"latency_us", LK_LATENCY, NULL},
                                          {"slope_us_per_byte", LK_SLOPE, NULL},
                                          {"intercept_us", LK_INTERCEPT, NULL},
                                          {"coll_efficiency", LK_EFF, NULL},
                                          {"per", LK_PER, NULL}};
    struct yrd_map map = {
        .keys = keys,
        .n_keys = sizeof(keys) / sizeof(keys[0]) - (inter ? 0 : 1),
        .unknown_hint = inter ? " (allowed: bandwidth, per, latency_us, slope_us_per_byte, "
                                "intercept_us, coll_efficiency; extensions start with 'x-')"
                              : " (allowed: bandwidth, latency_us, slope_us_per_byte, "
                                "intercept_us, coll_efficiency; extensions start with 'x-')",
        .value = link_value,
        .ctx = inter ? "nodes: inter_node" : "nodes: intra_node",
    };
    struct yrd *r = &rd->r;
    int32_t line = yrd_line(r), col = yrd_col(r);
    unsigned seen = 0;
    int rc;

    if (r->ev.type != YAML_MAPPING_START_EVENT) {
        return cluster_yaml_value_err(rd, "nodes",
                                      "expected a mapping ({bandwidth: 450GB/s, latency_us: 5})");
    }
    rd->link = m;
    rd->link_eff = eff;
    rd->link_ctx = map.ctx;
    rd->link_bw = NAN;
    rd->link_per_node = false;
    if ((rc = yrd_map_read(r, &map, rd, &seen))) {
        return rc;
    }
    if ((seen & LK_BW) && (seen & LK_SLOPE)) {
        return yrd_err(r, line, col, "%s: give bandwidth or slope_us_per_byte, not both", map.ctx);
    }
    if ((seen & LK_LATENCY) && (seen & LK_INTERCEPT)) {
        return yrd_err(r, line, col, "%s: give latency_us or intercept_us, not both", map.ctx);
    }
    if (!(seen & (LK_BW | LK_SLOPE))) {
        return yrd_err(r, line, col, "%s: missing required key 'bandwidth' (or slope_us_per_byte)",
                       map.ctx);
    }
    if ((seen & LK_PER) && !(seen & LK_BW)) {
        return yrd_err(r, line, col, "%s: 'per' goes with 'bandwidth'", map.ctx);
    }
    if (seen & LK_BW) {
        m->slope_us_per_byte = 1e6 / rd->link_bw;
        rd->inter_per_node = inter && rd->link_per_node;
    }
    return 0;
}

static int nodes_value(void *arg, unsigned bit)
{
    struct cl_reader *rd = arg;
    struct yrd *r = &rd->r;
    struct cluster *c = rd->c;
    int64_t v;

    switch (bit) {
    case NK_COUNT:
    case NK_GPUS:
        if (!yrd_is_scalar(r) || !yrd_plain(r) || yio_parse_size(yrd_text(r), &v) || v < 1 ||
            v > CLUSTER_MAX_DEVICES) {
            return cluster_yaml_value_err(rd, "nodes", "expected a count in 1..16384");
        }
        if (bit == NK_COUNT) {
            rd->n_nodes = v;
        } else {
            c->nodes.gpus_per_node = (int32_t)v;
        }
        return 0;
    case NK_TIERS:
        if (!yrd_is_scalar(r) || !yrd_plain(r) || yio_parse_size(yrd_text(r), &v) ||
            (v != 2 && v != 3)) {
            return cluster_yaml_value_err(rd, "nodes: tiers", "expected 2 or 3 (fat-tree tiers)");
        }
        c->nodes.tiers = (int32_t)v;
        return 0;
    case NK_LEAF:
    case NK_POD:
        if (!yrd_is_scalar(r) || !yrd_plain(r) || yio_parse_size(yrd_text(r), &v) || v < 1 ||
            v > CLUSTER_MAX_DEVICES) {
            return cluster_yaml_value_err(
                rd, bit == NK_LEAF ? "nodes: nodes_per_leaf" : "nodes: nodes_per_pod",
                "expected a count in 1..16384");
        }
        *(bit == NK_LEAF ? &c->nodes.nodes_per_leaf : &c->nodes.nodes_per_pod) = (int32_t)v;
        return 0;
    case NK_OVERSUB:
        return cluster_yaml_get_number(rd, "nodes: oversubscription", &c->nodes.oversubscription,
                                       &r_oversub);
    case NK_INTRA:
        return read_link(rd, &c->nodes.intra, &c->nodes.intra_coll_efficiency, false);
    default:
        return read_link(rd, &c->nodes.inter, &c->nodes.inter_coll_efficiency, true);
    }
}

int cluster_yaml_read_nodes(struct cl_reader *rd)
{
    static const struct yrd_key keys[] = {{"gpus_per_node", NK_GPUS, " (e.g. 8)"},
                                          {"count", NK_COUNT, NULL},
                                          {"intra_node", NK_INTRA, NULL},
                                          {"inter_node", NK_INTER, NULL},
                                          {"tiers", NK_TIERS, NULL},
                                          {"oversubscription", NK_OVERSUB, NULL},
                                          {"nodes_per_leaf", NK_LEAF, NULL},
                                          {"nodes_per_pod", NK_POD, NULL}};
    static const struct yrd_map map = {
        .keys = keys,
        .n_keys = sizeof(keys) / sizeof(keys[0]),
        .unknown_hint = " (allowed: gpus_per_node, count, intra_node, inter_node, tiers, "
                        "oversubscription, nodes_per_leaf, nodes_per_pod; extensions start "
                        "with 'x-')",
        .value = nodes_value,
        .ctx = "nodes",
    };
    unsigned seen = 0;

    rd->nodes_line = yrd_line(&rd->r);
    rd->nodes_col = yrd_col(&rd->r);
    if (rd->r.ev.type != YAML_MAPPING_START_EVENT) {
        return cluster_yaml_value_err(rd, NULL,
                                      "expected a mapping (gpus_per_node, count, intra_node, ...)");
    }
    return yrd_map_read(&rd->r, &map, rd, &seen);
}

/* The node section against the devices; then its per-pair models. */
int cluster_yaml_finish_nodes(struct cl_reader *rd)
{
    struct cluster *c = rd->c;
    int32_t g = c->nodes.gpus_per_node;
    struct comm_model *m[2] = {&c->nodes.intra, &c->nodes.inter};

    if (g == 0) {
        return 0;
    }
    if (c->n_devices % g != 0) {
        return yrd_err(&rd->r, rd->nodes_line, rd->nodes_col,
                       "nodes: %d device%s do not split into nodes of gpus_per_node = %d",
                       c->n_devices, c->n_devices == 1 ? "" : "s", g);
    }
    if (rd->n_nodes > 0 && rd->n_nodes * g != c->n_devices) {
        return yrd_err(&rd->r, rd->nodes_line, rd->nodes_col,
                       "nodes: count %lld x gpus_per_node %d = %lld devices, but the cluster "
                       "has %d",
                       (long long)rd->n_nodes, g, (long long)rd->n_nodes * g, c->n_devices);
    }
    if (rd->inter_per_node) {
        /* the node's NICs are shared by its GPUs: each gets 1/g of them */
        c->nodes.inter.slope_us_per_byte *= (double)g;
    }
    for (int i = 0; i < 2; i++) {
        if (!isnan(m[i]->slope_us_per_byte) && isnan(m[i]->intercept_us)) {
            m[i]->intercept_us = c->comm.intercept_us;
        }
    }
    if (c->nodes.tiers >= 2 && c->nodes.nodes_per_leaf == 0) {
        c->nodes.nodes_per_leaf = 32; /* a DGX SuperPOD scalable unit */
    }
    if (c->nodes.tiers >= 3 && c->nodes.nodes_per_pod == 0) {
        c->nodes.nodes_per_pod =
            8 * c->nodes.nodes_per_leaf; /* 8 SUs: the largest two-tier block */
    }
    if (c->nodes.tiers >= 3 && c->nodes.nodes_per_pod % c->nodes.nodes_per_leaf != 0) {
        return yrd_err(&rd->r, rd->nodes_line, rd->nodes_col,
                       "nodes: nodes_per_pod %d is not a multiple of nodes_per_leaf %d",
                       c->nodes.nodes_per_pod, c->nodes.nodes_per_leaf);
    }
    if (c->nodes.tiers == 0 &&
        (c->nodes.nodes_per_leaf || c->nodes.nodes_per_pod || c->nodes.oversubscription != 1.0)) {
        return yrd_err(&rd->r, rd->nodes_line, rd->nodes_col,
                       "nodes: nodes_per_leaf, nodes_per_pod and oversubscription need 'tiers'");
    }
    /* large clusters: pair models on demand (cluster_comm_model), no n*n table */
    return c->n_devices <= CLUSTER_EXPAND_MAX_DEVICES ? cluster_expand_nodes(c) : 0;
}
