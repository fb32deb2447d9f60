/*
 * bench_scaling.c - `baechi bench scaling`: placement time against graph
 * size, into a results database (the demo's scaling figure, `baechi plot
 * scaling --stat median`).
 *
 * Each size is a seeded synthetic DAG (workloads/gen_synthetic.h, the same
 * graph as `baechi workload gen synthetic --shape S --ops N --seed S`)
 * generated in memory: a sweep over the same graphs as YAML files spends
 * most of its time reading them (~5 s per 1M-op file).  Each placer places
 * each graph `repeats` times, one after the other in this process (no
 * parallel workers, which would time each other on a 2-core machine).
 *
 * deviation: the placement time stored (placement_ms) is the CPU time of
 * the placing thread around placer_run, as `bench placement` measures, not
 * the wall clock a sweep stores: the placers are single-threaded, so the two
 * agree on an idle machine, and the CPU time does not count the other
 * processes of a shared one.  algorithm_ms, a wall clock, is left empty
 * (NULL): next to a CPU time it would not compare.
 * Each
 * placement is simulated with the timed model, so that a row is a run like
 * a sweep's (status ok or oom, step, peak).  A repeat whose placement equals
 * the previous one reuses its simulation (the simulator is deterministic).
 *
 * Rows carry the sweep name (--sweep, default "scaling") and a key of their
 * own; a rerun skips the runs already stored, and runs again those stored
 * with status error, as a sweep does.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "cli/bench_clock.h"
#include "cli/cmd.h"
#include "cli/commands.h"
#include "core/alloc.h"
#include "core/cluster.h"
#include "core/err.h"
#include "core/graph.h"
#include "core/hash.h"
#include "core/placement.h"
#include "core/workload.h"
#include "placers/placer.h"
#include "results/db.h"
#include "results/sweep.h"
#include "sim/sim.h"
#include "workloads/gen_synthetic.h"

#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define BS_MAX_SIZES   32
#define BS_MAX_PLACERS 16

/* A placer and the largest graph it is given (0: every size). */
struct bs_placer {
    const char *name;
    long max_ops;
};

struct bs_args {
    const char *db, *cluster, *sweep;
    long sizes[BS_MAX_SIZES];
    int n_sizes;
    struct bs_placer placer[BS_MAX_PLACERS];
    int n_placers;
    long repeats, seed;
    enum synth_shape shape;
    const char *shape_name;
    double lp_time_limit_s;
};

static const long bs_default_sizes[] = {1000, 3000, 10000, 30000, 100000, 300000, 1000000};

/* m-SCT's LP grows past seconds beyond a few thousand ops (docs/speed.md);
 * auto runs every placer and simulates hundreds of candidates. */
static const struct bs_placer bs_default_placers[] = {
    {"m-topo", 0}, {"m-etf", 0}, {"paper", 0}, {"m-sct", 3000}};

static const char *const bs_usage[] = {
    "baechi bench scaling --db FILE [--sizes N,N,...] [--repeats R] [--placers P[:MAX],...] "
    "[--cluster SPEC] [--shape S] [--seed S] [--lp-time-limit S] [--sweep NAME]",
    NULL,
};

enum {
    BS_OPT_DB = 256,
    BS_OPT_SIZES,
    BS_OPT_REPEATS,
    BS_OPT_PLACERS,
    BS_OPT_CLUSTER,
    BS_OPT_SHAPE,
    BS_OPT_SEED,
    BS_OPT_LP,
    BS_OPT_SWEEP
};

static const struct cmd_opt bs_opts[] = {
    {"db", BS_OPT_DB, "FILE", "the results database (created when missing)"},
    {"sizes", BS_OPT_SIZES, "LIST",
     "graph sizes in ops (default 1000,3000,10000,30000,100000,300000,1000000)"},
    {"repeats", BS_OPT_REPEATS, "R", "placements per placer and size (default 3)"},
    {"placers", BS_OPT_PLACERS, "LIST",
     "placers, each optionally with the largest size it is given as NAME:MAX_OPS "
     "(default m-topo,m-etf,paper,m-sct:3000)"},
    {"cluster", BS_OPT_CLUSTER, "SPEC",
     "preset or file (default dgx-h100-8: memory for every size up to 1M ops)"},
    {"shape", BS_OPT_SHAPE, "S",
     "synthetic shape: layered, chain, fork-join, random (default "
     "layered)"},
    {"seed", BS_OPT_SEED, "S", "the graphs' seed (default 1)"},
    {"lp-time-limit", BS_OPT_LP, "S", "m-SCT's LP time limit in seconds (default 20; 0 = none)"},
    {"sweep", BS_OPT_SWEEP, "NAME", "the runs' sweep name (default scaling)"},
    CMD_OPT_END,
};

static int parse_sizes(struct cmd_parser *p, const char *s, struct bs_args *a)
{
    char buf[512];
    char *save = NULL;

    if (strlen(s) >= sizeof(buf)) {
        return cmd_usage_error(p, "--sizes: list too long");
    }
    strcpy(buf, s);
    a->n_sizes = 0;
    for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        if (a->n_sizes == BS_MAX_SIZES) {
            return cmd_usage_error(p, "--sizes: at most %d values", BS_MAX_SIZES);
        }
        /* gen_synthetic's bound: ops are int32 */
        if (cmd_parse_int(p, "--sizes", tok, 2, 100000000L, &a->sizes[a->n_sizes])) {
            return EXIT_BADINPUT;
        }
        a->n_sizes++;
    }
    return a->n_sizes ? 0 : cmd_usage_error(p, "--sizes: empty list");
}

/* NAME[:MAX_OPS],...: the names point into `s` (argv, cut here). */
static int parse_placers(struct cmd_parser *p, char *s, struct bs_args *a)
{
    char *save = NULL;

    a->n_placers = 0;
    for (char *tok = strtok_r(s, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        char *colon = strchr(tok, ':');

        if (a->n_placers == BS_MAX_PLACERS) {
            return cmd_usage_error(p, "--placers: at most %d", BS_MAX_PLACERS);
        }
        a->placer[a->n_placers].max_ops = 0;
        if (colon) {
            *colon = '\0';
            if (cmd_parse_int(p, "--placers", colon + 1, 2, 100000000L,
                              &a->placer[a->n_placers].max_ops)) {
                return EXIT_BADINPUT;
            }
        }
        if (!placer_find(tok)) {
            return cmd_usage_error(p, "--placers: unknown placer '%s' (see 'baechi place --help')",
                                   tok);
        }
        a->placer[a->n_placers++].name = tok;
    }
    return a->n_placers ? 0 : cmd_usage_error(p, "--placers: empty list");
}

/* The options into a; *stop when the command ends here (help, usage error). */
static int bs_parse(struct cmd_parser *p, struct bs_args *a, bool *stop)
{
    double v;
    int o, rc;

    memset(a, 0, sizeof(*a));
    a->cluster = "dgx-h100-8";
    a->sweep = "scaling";
    a->n_sizes = (int)(sizeof(bs_default_sizes) / sizeof(bs_default_sizes[0]));
    memcpy(a->sizes, bs_default_sizes, sizeof(bs_default_sizes));
    a->n_placers = (int)(sizeof(bs_default_placers) / sizeof(bs_default_placers[0]));
    memcpy(a->placer, bs_default_placers, sizeof(bs_default_placers));
    a->repeats = 3;
    a->seed = 1;
    a->shape = SYNTH_LAYERED;
    a->shape_name = "layered";
    a->lp_time_limit_s = 20;
    *stop = true;
    while ((o = cmd_getopt(p)) != -1) {
        switch (o) {
        case 'h':
            return 0;
        case BS_OPT_DB:
            a->db = p->optarg;
            break;
        case BS_OPT_SIZES:
            if ((rc = parse_sizes(p, p->optarg, a)) != 0) {
                return rc;
            }
            break;
        case BS_OPT_REPEATS:
            if (cmd_parse_int(p, "--repeats", p->optarg, 1, 1000, &a->repeats)) {
                return EXIT_BADINPUT;
            }
            break;
        case BS_OPT_PLACERS:
            /* cut in place: the names live as long as argv */
            if ((rc = parse_placers(p, (char *)p->optarg, a)) != 0) {
                return rc;
            }
            break;
        case BS_OPT_CLUSTER:
            if ((rc = cmd_check_cluster(p, p->optarg)) != 0) {
                return rc;
            }
            a->cluster = p->optarg;
            break;
        case BS_OPT_SHAPE:
            if (synth_shape_parse(p->optarg, &a->shape)) {
                return cmd_usage_error(p,
                                       "--shape: expected layered, chain, fork-join or "
                                       "random, not '%s'",
                                       p->optarg);
            }
            a->shape_name = p->optarg;
            break;
        case BS_OPT_SEED:
            if (cmd_parse_int(p, "--seed", p->optarg, 0, 2147483647L, &a->seed)) {
                return EXIT_BADINPUT;
            }
            break;
        case BS_OPT_LP:
            if (cmd_parse_double(p, "--lp-time-limit", p->optarg, 0, 86400, &v)) {
                return EXIT_BADINPUT;
            }
            a->lp_time_limit_s = v;
            break;
        case BS_OPT_SWEEP:
            a->sweep = p->optarg;
            break;
        default:
            return EXIT_BADINPUT;
        }
    }
    if (cmd_optind() < p->argc) {
        return cmd_usage_error(p, "unexpected argument '%s'", p->argv[cmd_optind()]);
    }
    if (!a->db) {
        return cmd_usage_error(p, "--db FILE is required");
    }
    *stop = false;
    return 0;
}

/* What every run of one graph shares. */
struct bs_graph {
    const struct bs_args *a;
    struct db *db;
    struct workload w;
    struct graph g;
    struct cluster c;  /* the placer's */
    struct cluster cw; /* the simulator's world (placer_world) */
    char wl_hash[HASH_HEX_SIZE], cl_hash[HASH_HEX_SIZE];
    char host[64];
};

static int status_of(void *ctx, int ncol, const char *const *names, const char *const *vals)
{
    char *st = ctx;

    (void)names;
    snprintf(st, 16, "%s", ncol > 0 && vals[0] ? vals[0] : "");
    return 0;
}

/* Whether the run `key` is stored (not as an error, which is deleted to run again). */
static int bs_stored(struct db *db, const char *key, bool *stored)
{
    char st[16] = "";
    int rc = db_query1(db, "SELECT status FROM runs WHERE key = ?1", key, status_of, st);

    *stored = false;
    if (rc) {
        return rc;
    }
    if (strcmp(st, "error") == 0) {
        return db_delete_key(db, key);
    }
    *stored = st[0] != '\0';
    return 0;
}

/* The columns a sweep's run_common sets (results/sweep.c). */
static int bs_run_common(const struct bs_graph *G, const char *placer,
                         const struct placer_options *opt, long repeat, const char *key,
                         struct db_run *r)
{
    char now[40];
    int rc = 0;

    db_run_init(r);
    db_now_iso(now, sizeof(now));
    rc |= db_run_set(&r->key, key);
    rc |= db_run_set(&r->sweep, G->a->sweep);
    rc |= db_run_set(&r->time, now);
    rc |= db_run_set(&r->tool_version, db_tool_version());
    rc |= db_run_set(&r->host, G->host);
    rc |= db_run_set(&r->workload, G->w.name);
    rc |= db_run_setf(&r->workload_spec, "gen:synthetic?shape=%s&ops=%d&seed=%ld", G->a->shape_name,
                      G->w.n_ops, G->a->seed);
    rc |= db_run_set(&r->workload_hash, G->wl_hash);
    r->n_ops = G->g.n_ops;
    rc |= db_run_set(&r->cluster, G->c.name ? G->c.name : G->a->cluster);
    rc |= db_run_set(&r->cluster_spec, G->a->cluster);
    rc |= db_run_set(&r->cluster_hash, G->cl_hash);
    r->n_devices = opt->n_devices;
    rc |= db_run_set(&r->placer, placer);
    /* as sweep_record_run: `paper` fixes its grouper and fusion */
    rc |= db_run_set(&r->grouper, placer_grouper_name(strcmp(placer, PLACER_PAPER_NAME) == 0
                                                          ? PLACER_GROUPER_COPLACE
                                                          : opt->grouper));
    r->fusion = strcmp(placer, PLACER_PAPER_NAME) == 0 || opt->fusion;
    r->memory_fraction = opt->memory_fraction;
    r->comm_factor = opt->comm_factor;
    r->compute_factor = opt->compute_factor;
    r->sct_threshold = opt->sct_threshold;
    r->seed = (int64_t)opt->seed;
    sweep_fill_options(r, opt);
    r->repeat = repeat;
    rc |= db_run_set(&r->sim_model, sim_model_name(SIM_MODEL_TIMED));
    rc |= db_run_set(&r->status, "error");
    return rc ? BAECHI_ENOMEM : 0;
}

/* Stores one run in its own transaction (a killed bench keeps what it measured). */
static int bs_store(struct db *db, const struct db_run *r)
{
    bool inserted;
    int rc = db_begin(db);

    if (rc) {
        return rc;
    }
    if ((rc = db_insert_run(db, r, &inserted, NULL)) != 0) {
        db_rollback(db);
        return rc;
    }
    return db_commit(db);
}

/* CPU time of this thread: the placers use one core, and the machine may be
 * shared (as bench placement measures). */
static double thread_cpu_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/*
 * Places G's graph with `pl` `repeats` times, simulating each placement
 * (or reusing the previous repeat's simulation of the same placement), and
 * stores the runs not yet stored.  Prints the median placement time.
 */
static int bs_placer(struct bs_graph *G, const struct bs_placer *pl)
{
    const struct bs_args *a = G->a;
    struct placer_options opt;
    struct sim_result res;
    int32_t *prev = NULL; /* the placement res simulated */
    double t_ms[1000];
    int n_t = 0, n_stored = 0, n_inf = 0, n_oom = 0;
    int rc = 0;

    sim_result_init(&res);
    placer_options_init(&opt);
    opt.n_devices = G->c.n_devices;
    opt.lp_time_limit_s = a->lp_time_limit_s;
    for (long rep = 0; rep < a->repeats && !rc; rep++) {
        struct db_run r;
        struct placement p;
        struct placer_stats st;
        bool stored, have_p = false;
        char *key = NULL;
        double t0, cpu_ms;

        if (mem_asprintf(&key,
                         "bench-scaling|sweep=%s|workload=%s|cluster=%s|placer=%s|lp=%g|repeat=%ld"
                         "|model=timed",
                         a->sweep, G->wl_hash, G->cl_hash, pl->name, a->lp_time_limit_s, rep) < 0) {
            rc = err_set(BAECHI_ENOMEM, "out of memory");
            break;
        }
        if ((rc = bs_stored(G->db, key, &stored)) != 0 || stored) {
            n_stored += stored;
            free(key);
            continue;
        }
        placer_stats_init(&st);
        if ((rc = bs_run_common(G, pl->name, &opt, rep, key, &r)) != 0) {
            goto next;
        }
        err_clear();
        t0 = thread_cpu_ms();
        rc = placer_run(pl->name, &G->g, &G->c, &opt, G->w.name, &p, &st);
        cpu_ms = thread_cpu_ms() - t0;
        have_p = rc == 0;
        if (rc == BAECHI_ENOMEM) {
            goto next;
        }
        if (rc) {
            /* a result of the setting, stored as a sweep stores it */
            n_inf += rc == BAECHI_EINFEASIBLE;
            rc = db_run_set(&r.status, rc == BAECHI_EINFEASIBLE ? "infeasible" : "error");
            rc = rc ? rc : db_run_set(&r.message, err_msg());
            r.placement_ms = cpu_ms;
        } else {
            t_ms[n_t++] = cpu_ms;
            if ((rc = sweep_fill_placer(&r, &p, &st)) != 0) {
                goto next;
            }
            r.placement_ms = cpu_ms;
            r.algorithm_ms = NAN; /* the placer's wall clock: not comparable */
            if (!prev || memcmp(prev, p.device_of, sizeof(*prev) * (size_t)G->g.n_ops) != 0) {
                struct sim_options so = {.model = SIM_MODEL_TIMED, .trace = NULL};

                free(prev);
                sim_result_release(&res);
                sim_result_init(&res);
                if (!(prev = mem_alloc(sizeof(*prev) * (size_t)G->g.n_ops))) {
                    rc = err_set(BAECHI_ENOMEM, "out of memory");
                    goto next;
                }
                memcpy(prev, p.device_of, sizeof(*prev) * (size_t)G->g.n_ops);
                if ((rc = sim_run(&G->g, &G->cw, p.device_of, &so, &res)) != 0) {
                    free(prev);
                    prev = NULL;
                    goto next;
                }
            }
            if ((rc = sweep_fill_sim(&r, &G->g, &G->cw, &st, &res, p.device_of, false)) != 0) {
                goto next;
            }
            n_oom += strcmp(r.status, "oom") == 0;
        }
        rc = rc ? rc : bs_store(G->db, &r);
    next:
        db_run_release(&r);
        if (have_p) {
            placement_release(&p);
        }
        placer_stats_release(&st);
        free(key);
    }
    free(prev);
    sim_result_release(&res);
    if (rc) {
        return rc;
    }
    printf("  %-8d ops  %-14s", G->g.n_ops, pl->name);
    if (n_t > 0) {
        qsort(t_ms, (size_t)n_t, sizeof(*t_ms), bench_cmp_double);
        printf(" median %10.3f ms  (min %.3f, max %.3f, %d runs)",
               n_t % 2 ? t_ms[n_t / 2] : (t_ms[n_t / 2 - 1] + t_ms[n_t / 2]) / 2, t_ms[0],
               t_ms[n_t - 1], n_t);
    }
    if (n_inf) {
        printf(" %d infeasible", n_inf);
    }
    if (n_oom) {
        printf(" %d out of memory", n_oom);
    }
    if (n_stored) {
        printf(" %d already stored", n_stored);
    }
    printf("\n");
    return 0;
}

/* Generates the graph of `n` ops and runs every placer given graphs that
 * large, after one untimed placement each when `warm_up`. */
static int bs_size(struct bs_graph *G, long n, bool warm_up)
{
    const struct bs_args *a = G->a;
    struct synth_opts o;
    int rc;

    synth_opts_init(&o);
    o.shape = a->shape;
    o.n_ops = (int32_t)n;
    o.seed = (uint64_t)a->seed;
    workload_init(&G->w);
    if ((rc = gen_synthetic(&G->w, &o)) != 0 || (rc = hash_workload(&G->w, G->wl_hash)) != 0) {
        workload_release(&G->w);
        return rc;
    }
    if ((rc = graph_build(&G->g, &G->w)) != 0) {
        workload_release(&G->w);
        return rc;
    }
    for (int i = 0; warm_up && i < a->n_placers && !rc; i++) {
        /* untimed: the process's first placements pay for its cold caches
         * and first page faults (a 1k-op m-TOPO took twice its 3k-op time) */
        struct placer_options opt;
        struct placement p;
        struct placer_stats st;

        placer_options_init(&opt);
        opt.n_devices = G->c.n_devices;
        opt.lp_time_limit_s = a->lp_time_limit_s;
        placer_stats_init(&st);
        if (a->placer[i].max_ops == 0 || n <= a->placer[i].max_ops) {
            rc = placer_run(a->placer[i].name, &G->g, &G->c, &opt, G->w.name, &p, &st);
            if (rc == 0) {
                placement_release(&p);
            }
            rc = rc == BAECHI_ENOMEM ? rc : 0; /* the timed runs store the outcome */
        }
        placer_stats_release(&st);
    }
    for (int i = 0; i < a->n_placers && !rc; i++) {
        if (a->placer[i].max_ops == 0 || n <= a->placer[i].max_ops) {
            rc = bs_placer(G, &a->placer[i]);
        }
    }
    graph_release(&G->g);
    workload_release(&G->w);
    return rc;
}

int cmd_bench_scaling(int argc, char **argv)
{
    struct cmd_parser p = {argc, argv, "bench scaling", bs_usage, bs_opts, NULL, NULL};
    struct bs_args a;
    struct bs_graph G;
    struct placer_options wopt;
    bool stop, have_c = false, have_cw = false;
    int rc;

    rc = bs_parse(&p, &a, &stop);
    if (stop) {
        return rc;
    }
    memset(&G, 0, sizeof(G));
    G.a = &a;
    if (gethostname(G.host, sizeof(G.host)) != 0) {
        snprintf(G.host, sizeof(G.host), "unknown");
    }
    G.host[sizeof(G.host) - 1] = '\0';
    if ((rc = cluster_load(&G.c, a.cluster)) != 0) {
        goto done;
    }
    have_c = true;
    if ((rc = cluster_load(&G.cw, a.cluster)) != 0) {
        goto done;
    }
    have_cw = true;
    placer_options_init(&wopt);
    if ((rc = hash_cluster(&G.c, G.cl_hash)) != 0 || (rc = placer_world(&G.cw, &wopt)) != 0) {
        goto done;
    }
    {
        const struct cmd_file in[] = {{a.cluster, "--cluster"}};
        const struct cmd_file out[] = {{a.db, "--db"}};

        if ((rc = cmd_check_files(in, CMD_N(in), out, CMD_N(out))) != 0 ||
            (rc = db_open(&G.db, a.db, 0)) != 0) {
            goto done;
        }
    }
    setvbuf(stdout, NULL, _IOLBF, 0); /* progress shows while it runs */
    printf("baechi bench scaling: placement time of synthetic %s graphs (seed %ld) on %s, "
           "%ld repeats, into %s (sweep %s)\n",
           a.shape_name, a.seed, a.cluster, a.repeats, a.db, a.sweep);
    for (int i = 0; i < a.n_sizes && !rc; i++) {
        rc = bs_size(&G, a.sizes[i], i == 0);
    }
done:
    if (G.db) {
        db_close(G.db);
    }
    if (have_c) {
        cluster_release(&G.c);
    }
    if (have_cw) {
        cluster_release(&G.cw);
    }
    return rc ? cmd_fail(rc) : 0;
}
