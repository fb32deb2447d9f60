/*
 * inputs.c - loading the inputs of a simulation (see inputs.h).
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "cli/inputs.h"

#include "cli/cluster.h"
#include "cli/cmd.h"
#include "sim/trace.h"

#include "core/err.h"
#include "core/hash.h"
#include "core/limits.h"
#include "core/workload_yaml.h"
#include "placers/placer.h"
#include "workloads/costmodel.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

void sim_inputs_init(struct sim_inputs *in)
{
    memset(in, 0, sizeof(*in));
    in->memory_fraction = 1;
    workload_init(&in->w);
    cluster_init(&in->c);
}

void sim_inputs_release(struct sim_inputs *in)
{
    placement_release(&in->p);
    cluster_release(&in->c);
    graph_release(&in->g);
    workload_release(&in->w);
}

void inputs_warn_times(const struct workload *w, const struct cluster *c)
{
    costmodel_warn_times(w, c->name, c->n_devices > 0 ? c->dev[0].kind : NULL);
}

/* Warns when the cluster or its device count differ from what p was made for. */
static void warn_made_for(const struct placement *p, const struct cluster *c, const char *hex)
{
    if (p->cluster_hash && hex && strcmp(p->cluster_hash, hex) != 0) {
        err_warn("the placement was made for cluster '%s' (hash %s), this is '%s' (hash %s)",
                 p->cluster ? p->cluster : "?", p->cluster_hash, c->name ? c->name : "?", hex);
    } else if (!p->cluster_hash && p->cluster && c->name && strcmp(p->cluster, c->name) != 0) {
        err_warn("the placement was made for cluster '%s', this is '%s'", p->cluster, c->name);
    }
    if (p->n_devices > 0 && p->n_devices != c->n_devices) {
        err_warn("the placement was made for %d device%s, the cluster has %d here", p->n_devices,
                 p->n_devices == 1 ? "" : "s", c->n_devices);
    }
}

int sim_inputs_load(struct sim_inputs *in, const char *wpath, const char *cspec, const char *pspec,
                    int32_t k, double memory_fraction)
{
    struct placer_options world;
    char hex[HASH_HEX_SIZE];
    double made_for;
    int rc;

    /* The reader initialises the workload and leaves it empty on failure. */
    workload_release(&in->w);
    if ((rc = workload_read_yaml(&in->w, wpath))) {
        workload_init(&in->w);
        return rc;
    }
    if ((rc = graph_build(&in->g, &in->w))) {
        return rc;
    }
    cluster_release(&in->c);
    if ((rc = cluster_load(&in->c, cspec))) {
        cluster_init(&in->c);
        return rc;
    }
    if ((rc = hash_cluster(&in->c, hex))) {
        return rc;
    }
    if (k > in->c.n_devices) {
        return err_set(BAECHI_EINVAL, "--devices %d: cluster '%s' has only %d devices", k,
                       in->c.name ? in->c.name : cspec, in->c.n_devices);
    }
    if (strcmp(pspec, "given") == 0) {
        if ((rc = placement_init(&in->p, in->g.n_ops)) ||
            (rc = placement_from_given(&in->p, &in->g))) {
            return rc;
        }
    } else if ((rc = placement_read_yaml_workload(&in->p, &in->g, &in->w, pspec))) {
        return rc;
    }
    made_for = placement_memory_fraction(&in->p);
    in->memory_fraction = memory_fraction > 0 ? memory_fraction : made_for > 0 ? made_for : 1;
    /* the world `run` simulates, by its one route: the first k devices,
     * each with the memory fraction's share */
    placer_options_init(&world);
    world.n_devices = k;
    world.memory_fraction = in->memory_fraction;
    if ((rc = placer_world(&in->c, &world)) || (rc = placement_check(&in->p, &in->g, &in->c))) {
        return rc;
    }
    warn_made_for(&in->p, &in->c, hex);
    inputs_warn_times(&in->w, &in->c);
    if (memory_fraction > 0 && made_for > 0 && memory_fraction != made_for) {
        err_warn("--memory-fraction %g overrides the %g the placement was made for",
                 memory_fraction, made_for);
    }
    return 0;
}

struct trace_out {
    const struct trace *t;
    const struct graph *g;
    const struct cluster *c;
};

static int write_trace(FILE *f, void *ctx)
{
    const struct trace_out *o = ctx;

    return trace_write_chrome(o->t, o->g, o->c, f);
}

int sim_inputs_write_trace(const struct trace *t, const struct graph *g, const struct cluster *c,
                           const char *path)
{
    struct trace_out o = {t, g, c};

    return cmd_write_file(path, write_trace, &o);
}

int sim_inputs_placement_arg(const struct cmd_parser *cp, const char *pl, const char *placer,
                             const char **pspec)
{
    struct stat st;

    if (pl && placer) {
        return cmd_usage_error(cp, "give --placement or -p, not both");
    }
    if (pl || !placer) {
        *pspec = pl;
        return 0;
    }
    if (strcmp(placer, "given") == 0) {
        *pspec = "given";
        return 0;
    }
    if (placer_find(placer)) {
        return cmd_usage_error(cp,
                               "'%s' is a placer, and %s needs a placement: place and simulate "
                               "with 'baechi run -p %s ...', or write a placement with 'baechi "
                               "place -p %s -o p.yaml' and give it as --placement p.yaml",
                               placer, cp->cmd, placer, placer);
    }
    if (stat(placer, &st) == 0 && !S_ISDIR(st.st_mode)) {
        *pspec = placer;
        return 0;
    }
    {
        const char *names[64];
        size_t n = 0;

        for (const struct placer_desc *d = placer_list(); d->name && n + 1 < 64; d++) {
            names[n++] = d->name;
        }
        names[n] = NULL;
        fprintf(stderr,
                "baechi %s: -p names a placer, and '%s' is neither a placer nor a file "
                "(the placement file is --placement FILE)\n",
                cp->cmd, placer);
        cmd_print_suggestion(stderr, "placer", placer, names);
        fprintf(stderr, "See 'baechi %s --help'.\n", cp->cmd);
    }
    return EXIT_BADINPUT;
}

int sim_inputs_option(struct cmd_parser *cp, int c, struct sim_inputs_args *a,
                      enum sim_model *model)
{
    switch (c) {
    case 'w':
        a->wpath = cp->optarg;
        return 0;
    case 'c':
        a->cspec = cp->optarg;
        return 0;
    case 'p':
        a->placer = cp->optarg;
        return 0;
    case SIM_INPUTS_OPT_PLACEMENT:
        a->pspec = cp->optarg;
        return 0;
    case SIM_INPUTS_OPT_MEMFRAC:
        return cmd_parse_double(cp, "--memory-fraction", cp->optarg, LIMIT_FRACTION_MIN,
                                LIMIT_FRACTION_MAX, &a->memory_fraction)
                   ? EXIT_BADINPUT
                   : 0;
    case 'm':
        if (sim_model_parse(cp->optarg, model)) {
            return cmd_usage_error(cp, "%s", err_msg());
        }
        return 0;
    default:
        return -1;
    }
}

int sim_inputs_finish(struct cmd_parser *cp, struct sim_inputs_args *a)
{
    if (cmd_optind() < cp->argc) {
        return cmd_usage_error(cp, "unexpected argument '%s'", cp->argv[cmd_optind()]);
    }
    if (a->cspec && strcmp(a->cspec, CLUSTER_CLI_LIST) == 0) {
        a->done = true;
        return cluster_cli_print_list(stdout, false);
    }
    if (sim_inputs_placement_arg(cp, a->pspec, a->placer, &a->pspec)) {
        return EXIT_BADINPUT;
    }
    if (!a->wpath || !a->cspec || !a->pspec) {
        return cmd_usage_error(cp, "%s is required",
                               !a->wpath   ? "--workload"
                               : !a->cspec ? "--cluster"
                                           : "--placement");
    }
    return 0;
}
