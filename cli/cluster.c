/*
 * cluster.c - `baechi cluster <verb>`: the verb table, and `list` (the
 * presets; see cluster.h).
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "cli/cluster.h"

#include "cli/cmd.h"
#include "cli/commands.h"
#include "core/cluster.h"
#include "core/err.h"
#include "core/escape.h"
#include "core/json_out.h"
#include "core/units.h"

#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

/* A preset's numbers are from a datasheet when its description or source
 * says so (the H100/H200 presets); otherwise they were measured (the paper's
 * machine: the memory TensorFlow reported, the authors' fitted comm model). */
static const char *numbers_origin(const struct cluster *c)
{
    const char *t[2] = {c->description, c->source};

    for (int i = 0; i < 2; i++) {
        for (const char *s = t[i]; s && *s; s++) {
            if (strncasecmp(s, "datasheet", 9) == 0) {
                return "datasheet";
            }
        }
    }
    return "measured";
}

/* The kind all devices share, "mixed" when they differ, NULL when none has one. */
static const char *common_kind(const struct cluster *c)
{
    const char *k = c->n_devices > 0 ? c->dev[0].kind : NULL;

    for (int32_t d = 1; d < c->n_devices; d++) {
        const char *o = c->dev[d].kind;

        if ((k == NULL) != (o == NULL) || (k && strcmp(k, o) != 0)) {
            return "mixed";
        }
    }
    return k;
}

/* The smallest device memory: what a placement must fit on every device. */
static int64_t min_mem_bytes(const struct cluster *c)
{
    int64_t m = c->n_devices > 0 ? c->dev[0].mem_bytes : 0;

    for (int32_t d = 1; d < c->n_devices; d++) {
        if (c->dev[d].mem_bytes < m) {
            m = c->dev[d].mem_bytes;
        }
    }
    return m;
}

/* Whole decimal gigabytes as datasheets write them ("80 GB"), else binary units. */
static void fmt_mem(int64_t bytes, char *buf, size_t size)
{
    if (bytes > 0 && bytes % 1000000000 == 0) {
        snprintf(buf, size, "%" PRId64 " GB", bytes / 1000000000);
    } else {
        units_fmt_bytes(bytes, buf, size);
    }
}

static void print_one_text(FILE *f, const struct cluster *c)
{
    const char *kind = common_kind(c);
    char mem[32], bw[32];
    double slope = c->comm.slope_us_per_byte;

    fmt_mem(min_mem_bytes(c), mem, sizeof(mem));
    if (slope > 0) {
        snprintf(bw, sizeof(bw), "%.3g GB/s", 1e6 / slope / 1e9);
    } else {
        snprintf(bw, sizeof(bw), "unlimited");
    }
    fprintf(f, "  %-22s %7d  %-16s %10s  %11s %6g µs  %-7s %s%s", escape_tmp(c->name), c->n_devices,
            kind ? escape_tmp(kind) : "-", mem, bw, c->comm.intercept_us,
            cluster_channel_name(c->channel), numbers_origin(c),
            c->pair && c->nodes.gpus_per_node == 0 ? " (+ pair overrides)" : "");
    if (c->nodes.gpus_per_node > 0) {
        double s = c->nodes.inter.slope_us_per_byte;

        fprintf(f, " (%d nodes x %d", cluster_n_nodes(c), c->nodes.gpus_per_node);
        if (!isnan(s) && s > 0) {
            fprintf(f, ", %.3g GB/s per GPU between nodes", 1e6 / s / 1e9);
        }
        fputs(")", f);
    }
    fputs("\n", f);
}

/* A number, or null for NAN (an absent model). */
static void json_num_or_null(FILE *f, double x)
{
    if (isnan(x)) {
        fputs("null", f);
    } else {
        fprintf(f, "%.17g", x);
    }
}

static void print_nodes_json(FILE *f, const struct cluster *c)
{
    const struct cluster_nodes *nd = &c->nodes;
    double si = nd->intra.slope_us_per_byte, se = nd->inter.slope_us_per_byte;

    if (nd->gpus_per_node <= 0) {
        fputs("null", f);
        return;
    }
    fprintf(f, "{\"count\": %d, \"gpus_per_node\": %d, \"intra_bandwidth_bytes_per_s\": ",
            cluster_n_nodes(c), nd->gpus_per_node);
    json_num_or_null(f, si > 0 ? 1e6 / si : NAN);
    fputs(", \"inter_bandwidth_bytes_per_s\": ", f);
    json_num_or_null(f, se > 0 ? 1e6 / se : NAN);
    fputs(", \"inter_latency_us\": ", f);
    json_num_or_null(f, nd->inter.intercept_us);
    fprintf(f, ", \"tiers\": %d, \"oversubscription\": %.17g, \"nodes_per_leaf\": ", nd->tiers,
            nd->oversubscription);
    json_num_or_null(f, nd->tiers >= 2 ? (double)nd->nodes_per_leaf : NAN);
    fputs(", \"nodes_per_pod\": ", f);
    json_num_or_null(f, nd->tiers >= 3 ? (double)nd->nodes_per_pod : NAN);
    fputs("}", f);
}

static void print_one_json(FILE *f, const struct cluster *c)
{
    const char *kind = common_kind(c);
    double slope = c->comm.slope_us_per_byte;

    fputs("{\"name\": ", f);
    json_out_str(f, c->name);
    fprintf(f, ", \"n_devices\": %d, \"device_kind\": ", c->n_devices);
    if (kind) {
        json_out_str(f, kind);
    } else {
        fputs("null", f);
    }
    fprintf(f,
            ", \"mem_bytes_per_device\": %" PRId64 ", \"comm\": {\"slope_us_per_byte\": %.17g, "
            "\"intercept_us\": %.17g, \"bandwidth_bytes_per_s\": ",
            min_mem_bytes(c), slope, c->comm.intercept_us);
    if (slope > 0) {
        fprintf(f, "%.17g", 1e6 / slope);
    } else {
        fputs("null", f);
    }
    fprintf(f, ", \"channel\": \"%s\", \"pair_overrides\": %s}, \"numbers\": \"%s\"",
            cluster_channel_name(c->channel),
            /* nodes: pairs on their node's models, with or without the table */
            c->pair || c->nodes.gpus_per_node > 0 ? "true" : "false", numbers_origin(c));
    fputs(", \"nodes\": ", f);
    print_nodes_json(f, c);
    fputs(", \"description\": ", f);
    if (c->description) {
        json_out_str(f, c->description);
    } else {
        fputs("null", f);
    }
    fputs("}", f);
}

int cluster_cli_print_list(FILE *f, bool json)
{
    bool first = true;

    if (json) {
        fputs("{\"clusters\": [", f);
    } else {
        fprintf(f,
                "cluster presets (-c NAME; a cluster file instead: docs/formats.md):\n"
                "  %-22s %7s  %-16s %10s  %11s %9s  %-7s %s\n",
                "name", "devices", "kind", "memory", "link", "latency", "channel", "numbers");
    }
    for (const char *const *n = cluster_preset_names(); *n; n++) {
        struct cluster c;
        int rc;

        if ((rc = cluster_load(&c, *n)) != 0) {
            return cmd_fail(rc);
        }
        if (json) {
            fputs(first ? "" : ", ", f);
            print_one_json(f, &c);
        } else {
            print_one_text(f, &c);
        }
        first = false;
        cluster_release(&c);
    }
    if (json) {
        fputs("]}\n", f);
    } else {
        fputs("memory is per device; link = 1 / slope and latency = intercept of the comm model\n"
              "time_us = slope * bytes + intercept; 'datasheet' numbers are not measurements:\n"
              "'baechi calibrate' measures a machine.\n",
              f);
    }
    return 0;
}

static const char *const list_usage[] = {
    "baechi cluster list [--json]",
    NULL,
};

enum { OPT_JSON = 256 };

static const struct cmd_opt list_opts[] = {
    {"json", OPT_JSON, NULL, "one JSON object instead of the table (docs/json.md)"},
    CMD_OPT_END,
};

static int cmd_cluster_list(int argc, char **argv)
{
    struct cmd_parser p = {argc, argv, argv[0], list_usage, list_opts, NULL, NULL};
    bool json = false;
    int c;

    while ((c = cmd_getopt(&p)) != -1) {
        switch (c) {
        case 'h':
            return EXIT_OK;
        case OPT_JSON:
            json = true;
            break;
        default:
            return EXIT_BADINPUT;
        }
    }
    if (cmd_optind() < argc) {
        return cmd_usage_error(&p, "unexpected argument '%s'", argv[cmd_optind()]);
    }
    return cluster_cli_print_list(stdout, json);
}

static const struct cmd_struct cluster_verbs[] = {
    {"list", cmd_cluster_list, "the built-in presets: devices, memory, links, datasheet/measured"},
    {"gen", cluster_cli_gen, "write a cluster file: nodes x GPUs, NICs, fat-tree tiers"},
    {NULL, NULL, NULL},
};

int cmd_cluster(int argc, char **argv)
{
    return cmd_dispatch("cluster", cluster_verbs, argc, argv);
}
