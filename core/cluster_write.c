/*
 * cluster_write.c - writes a cluster file (cluster.h cluster_write_yaml):
 * what cluster_read_yaml() (cluster_yaml.c) reads back identically.  Pairs
 * that the nodes section expands to are left to it.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "core/cluster.h"

#include "core/yio.h"

#include <math.h>
#include <stdbool.h>

/* Whether pair s -> d holds what the nodes section expands to (not written). */
static bool from_nodes(const struct cluster *c, int32_t s, int32_t d, const struct comm_model *m)
{
    const struct comm_model *from;

    if (c->nodes.gpus_per_node <= 0 || c->n_devices % c->nodes.gpus_per_node != 0) {
        return false;
    }
    from = cluster_node_of(c, s) == cluster_node_of(c, d) ? &c->nodes.intra : &c->nodes.inter;
    return m->slope_us_per_byte == from->slope_us_per_byte && m->intercept_us == from->intercept_us;
}

static void write_link(struct ywr *y, const char *key, const struct comm_model *m, double eff)
{
    if (isnan(m->slope_us_per_byte)) {
        return;
    }
    ywr_scalar(y, key, YWR_PLAIN);
    ywr_map_start(y, true);
    ywr_scalar(y, "slope_us_per_byte", YWR_PLAIN);
    ywr_double(y, m->slope_us_per_byte);
    ywr_scalar(y, "intercept_us", YWR_PLAIN);
    ywr_double(y, m->intercept_us);
    if (!isnan(eff)) {
        ywr_scalar(y, "coll_efficiency", YWR_PLAIN);
        ywr_double(y, eff);
    }
    ywr_map_end(y);
}

int cluster_write_yaml(const struct cluster *c, FILE *f)
{
    struct ywr y;
    int32_t n = c->n_devices;

    if (ywr_open(&y, f)) {
        return ywr_close(&y);
    }
    ywr_map_start(&y, false);
    ywr_scalar(&y, "format", YWR_PLAIN);
    ywr_int(&y, CLUSTER_FORMAT);
    ywr_scalar(&y, "name", YWR_PLAIN);
    ywr_scalar(&y, c->name ? c->name : "unnamed", YWR_ANY);
    if (c->description) {
        ywr_scalar(&y, "description", YWR_PLAIN);
        ywr_scalar(&y, c->description, YWR_LITERAL);
    }
    if (c->source) {
        ywr_scalar(&y, "source", YWR_PLAIN);
        ywr_scalar(&y, c->source, YWR_LITERAL);
    }
    ywr_scalar(&y, "devices", YWR_PLAIN);
    ywr_seq_start(&y, false);
    for (int32_t i = 0; i < n; i++) {
        const struct cluster_device *d = &c->dev[i];

        ywr_map_start(&y, true);
        ywr_scalar(&y, "name", YWR_PLAIN);
        ywr_scalar(&y, d->name, YWR_ANY);
        if (d->kind) {
            ywr_scalar(&y, "kind", YWR_PLAIN);
            ywr_scalar(&y, d->kind, YWR_ANY);
        }
        ywr_scalar(&y, "memory", YWR_PLAIN);
        ywr_int(&y, d->mem_bytes);
        ywr_scalar(&y, "speed", YWR_PLAIN);
        ywr_double(&y, d->speed);
        if (!isnan(d->peak_flops)) {
            ywr_scalar(&y, "peak_flops", YWR_PLAIN);
            ywr_double(&y, d->peak_flops);
        }
        if (!isnan(d->mem_bw_bytes_per_s)) {
            ywr_scalar(&y, "memory_bandwidth", YWR_PLAIN);
            ywr_double(&y, d->mem_bw_bytes_per_s);
        }
        if (!isnan(d->launch_us)) {
            ywr_scalar(&y, "launch_us", YWR_PLAIN);
            ywr_double(&y, d->launch_us);
        }
        ywr_map_end(&y);
    }
    ywr_seq_end(&y);
    ywr_scalar(&y, "comm", YWR_PLAIN);
    ywr_map_start(&y, false);
    ywr_scalar(&y, "slope_us_per_byte", YWR_PLAIN);
    ywr_double(&y, c->comm.slope_us_per_byte);
    ywr_scalar(&y, "intercept_us", YWR_PLAIN);
    ywr_double(&y, c->comm.intercept_us);
    ywr_scalar(&y, "channel", YWR_PLAIN);
    ywr_scalar(&y, cluster_channel_name(c->channel), YWR_PLAIN);
    if (c->coll_efficiency != 1.0) {
        ywr_scalar(&y, "coll_efficiency", YWR_PLAIN);
        ywr_double(&y, c->coll_efficiency);
    }
    if (c->pair) {
        ywr_scalar(&y, "pairs", YWR_PLAIN);
        ywr_seq_start(&y, false);
        for (int32_t s = 0; s < n; s++) {
            for (int32_t d = 0; d < n; d++) {
                const struct comm_model *m = &c->pair[(size_t)s * (size_t)n + (size_t)d];

                if (isnan(m->slope_us_per_byte) || from_nodes(c, s, d, m)) {
                    continue;
                }
                ywr_map_start(&y, true);
                ywr_scalar(&y, "src", YWR_PLAIN);
                ywr_int(&y, s);
                ywr_scalar(&y, "dst", YWR_PLAIN);
                ywr_int(&y, d);
                ywr_scalar(&y, "slope_us_per_byte", YWR_PLAIN);
                ywr_double(&y, m->slope_us_per_byte);
                ywr_scalar(&y, "intercept_us", YWR_PLAIN);
                ywr_double(&y, m->intercept_us);
                ywr_map_end(&y);
            }
        }
        ywr_seq_end(&y);
    }
    ywr_map_end(&y);
    if (c->nodes.gpus_per_node > 0 && n % c->nodes.gpus_per_node == 0) {
        ywr_scalar(&y, "nodes", YWR_PLAIN);
        ywr_map_start(&y, false);
        ywr_scalar(&y, "gpus_per_node", YWR_PLAIN);
        ywr_int(&y, c->nodes.gpus_per_node);
        write_link(&y, "intra_node", &c->nodes.intra, c->nodes.intra_coll_efficiency);
        write_link(&y, "inter_node", &c->nodes.inter, c->nodes.inter_coll_efficiency);
        if (c->nodes.tiers >= 2) {
            ywr_scalar(&y, "tiers", YWR_PLAIN);
            ywr_int(&y, c->nodes.tiers);
            ywr_scalar(&y, "oversubscription", YWR_PLAIN);
            ywr_double(&y, c->nodes.oversubscription);
            ywr_scalar(&y, "nodes_per_leaf", YWR_PLAIN);
            ywr_int(&y, c->nodes.nodes_per_leaf);
        }
        if (c->nodes.tiers >= 3) {
            ywr_scalar(&y, "nodes_per_pod", YWR_PLAIN);
            ywr_int(&y, c->nodes.nodes_per_pod);
        }
        ywr_map_end(&y);
    }
    ywr_map_end(&y);
    return ywr_close(&y);
}
