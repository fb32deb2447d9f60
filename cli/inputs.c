/*
 * inputs.c - loading the inputs of a simulation (see inputs.h).
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "cli/inputs.h"

#include "cli/cmd.h"
#include "sim/trace.h"

#include "core/err.h"
#include "core/workload_yaml.h"
#include "placers/placer.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

void sim_inputs_init(struct sim_inputs *in)
{
    memset(in, 0, sizeof(*in));
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

int sim_inputs_load(struct sim_inputs *in, const char *wpath, const char *cspec, const char *pspec,
                    int32_t k)
{
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
    if (k > 0 && k != in->c.n_devices) {
        if (k > in->c.n_devices) {
            return err_set(BAECHI_EINVAL, "--devices %d: cluster '%s' has only %d devices", k,
                           in->c.name ? in->c.name : cspec, in->c.n_devices);
        }
        if ((rc = cluster_truncate(&in->c, k))) {
            return rc;
        }
    }
    if (strcmp(pspec, "given") == 0) {
        if ((rc = placement_init(&in->p, in->g.n_ops)) ||
            (rc = placement_from_given(&in->p, &in->g))) {
            return rc;
        }
    } else if ((rc = placement_read_yaml_workload(&in->p, &in->g, &in->w, pspec))) {
        return rc;
    }
    return placement_check(&in->p, &in->g, &in->c);
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
