/*
 * replay.c - `baechi replay`: run a placed graph on real devices (or host
 * threads) and put the measured step time and peak memory beside the
 * simulator's prediction (replay.h).
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "calibrate/replay.h"
#include "cli/cmd.h"
#include "cli/commands.h"
#include "cli/inputs.h"
#include "core/err.h"
#include "core/json_out.h"
#include "core/placement.h"
#include "core/units.h"
#include "results/db.h"
#include "results/sweep.h"
#include "sim/symmetry.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const replay_usage[] = {
    "baechi replay -w <workload.yaml> -c <cluster> --placement <placement.yaml | given> "
    "[--backend cuda|cpu] [--devices 0,1,...] [--steps N] [--warmup N] [--model timed|baechi] "
    "[--json] [--db F]",
    NULL,
};

enum { OPT_STEPS = 256, OPT_WARMUP, OPT_JSON, OPT_DB };

static const struct cmd_opt replay_opts[] = {
    {"workload", 'w', "W", "the workload (YAML)"},
    {"cluster", 'c', "C",
     "a cluster file (e.g. from 'baechi calibrate') or preset name ('list' lists them)"},
    SIM_INPUTS_PLACEMENT_OPTS,
    {"backend", 'b', "<cuda|cpu>", "where to run (default cpu; cuda needs build/baechi-cuda)"},
    {"devices", 'd', "<list>",
     "device i of the cluster runs on the i-th id (default: 0,1,...); cuda: an id given again "
     "is one more logical device on that GPU, so 0,0,0,0 replays 4 devices on one GPU"},
    {"steps", OPT_STEPS, "N", "measured steps, the median is reported (default 10)"},
    {"warmup", OPT_WARMUP, "N", "unmeasured steps first (default 3)"},
    {"model", 'm', "M", "simulator model to compare with: timed (default) or baechi"},
    {"json", OPT_JSON, NULL, "one JSON object instead of text"},
    {"db", OPT_DB, "F", "store the prediction and the measurement in results database F"},
    CMD_OPT_END,
};

/*
 * Stores the simulator's prediction and the measurement as two runs of one
 * transaction: sim_model "<model>" and "replay-<backend>" (step_us = the
 * measured median, per-device peak = the measured peak), so that
 * `baechi db query` can set them side by side.
 */
static int record_replay(const char *dbpath, const char *wpath, const char *cspec,
                         const struct workload *w, const struct graph *g, const struct cluster *c,
                         const struct placement *p, const struct sim_result *sr,
                         enum sim_model model, const struct replay_compare *cmp,
                         const char *backend, double memory_fraction)
{
    struct db_run r[2];
    int rc = 0;

    db_run_init(&r[0]);
    db_run_init(&r[1]);
    for (int m = 0; m < 2; m++) {
        struct db_run *x = &r[m];

        rc |= db_run_set_origin(x, w->name, wpath, c->name, cspec, p->placer ? p->placer : "given");
        if (m == 0) {
            rc |= db_run_set(&x->sim_model, sim_model_name(model));
        } else {
            rc |= db_run_setf(&x->sim_model, "replay-%s", backend);
        }
        if (rc) {
            rc = BAECHI_ENOMEM;
            goto cleanup;
        }
        x->n_ops = g->n_ops;
        x->n_devices = c->n_devices;
        x->memory_fraction = memory_fraction; /* what the simulation's devices kept */
        x->comm_factor = 1;
        x->compute_factor = 1;
        CHECK(sweep_fill_sim(x, g, c, NULL, sr, p->device_of, m == 0));
        if (!x->status) {
            CHECK(db_run_set(&x->status, "ok"));
        }
    }
    /* The measured row: what the devices did, not what the model said. */
    r[1].step_us = (int64_t)llround(cmp->measured_step_us);
    r[1].max_peak_bytes = 0;
    for (int32_t d = 0; d < r[1].n_dev && d < cmp->n_devices; d++) {
        r[1].dev[d].peak_bytes = cmp->measured_peak[d];
        if (cmp->measured_peak[d] > r[1].max_peak_bytes) {
            r[1].max_peak_bytes = cmp->measured_peak[d];
        }
    }
    CHECK(db_run_setf(&r[1].message,
                      "measured: median of the steps; simulated %" PRId64 " µs, error %+.2f %%",
                      cmp->sim_step_us, cmp->step_err_pct));
    rc = db_store_runs(dbpath, r, 2);
cleanup:
    db_run_release(&r[0]);
    db_run_release(&r[1]);
    return rc;
}

static void print_text(const struct replay_compare *cmp, const struct bench_replay_result *r,
                       const struct replay_stats *st, const struct cluster *c,
                       const struct workload *w, const char *backend, enum sim_model model)
{
    char a[48], b[48], e[48];

    printf("replay of %s on %s (%d devices), %s backend\n", w->name, c->name ? c->name : "?",
           (int)cmp->n_devices, backend);
    units_fmt_bytes(st->copy_bytes, a, sizeof(a));
    printf("program        %d ops as calibrated spins, %d tensor copies (%s)\n", (int)st->n_spins,
           (int)st->n_copies, a);
    printf("how            %s\n", r->note);
    units_fmt_us(cmp->measured_step_us, a, sizeof(a));
    units_fmt_us(cmp->min_step_us, b, sizeof(b));
    units_fmt_us(cmp->max_step_us, e, sizeof(e));
    printf("measured step  %s (median of %d steps; min %s, max %s)\n", a, (int)r->n_steps, b, e);
    units_fmt_us((double)cmp->sim_step_us, a, sizeof(a));
    printf("simulated step %s (%s model)\n", a, sim_model_name(model));
    printf("step error     %+.2f %% (simulated vs measured)\n", cmp->step_err_pct);
    printf("peak memory    %-10s %14s %14s %9s\n", "device", "measured", "simulated", "error");
    for (int32_t d = 0; d < cmp->n_devices; d++) {
        units_fmt_bytes(cmp->measured_peak[d], a, sizeof(a));
        units_fmt_bytes(cmp->sim_peak[d], b, sizeof(b));
        printf("               %-10s %14s %14s %+8.2f %%\n", c->dev[d].name, a, b,
               cmp->peak_err_pct[d]);
    }
}

static void print_json(const struct replay_compare *cmp, const struct bench_replay_result *r,
                       const struct replay_stats *st, const struct workload *w, const char *backend,
                       enum sim_model model)
{
    fputs("{\"workload\": ", stdout);
    json_out_str(stdout, w->name);
    printf(", \"backend\": \"%s\", \"model\": \"%s\", \"n_ops\": %d, "
           "\"n_copies\": %d, \"copy_bytes\": %" PRId64 ", \"n_steps\": %d, "
           "\"measured_step_us\": %.3f, \"min_step_us\": %.3f, \"max_step_us\": %.3f, "
           "\"sim_step_us\": %" PRId64 ", \"step_error_pct\": %.4f, \"devices\": [",
           backend, sim_model_name(model), (int)st->n_spins, (int)st->n_copies, st->copy_bytes,
           (int)r->n_steps, cmp->measured_step_us, cmp->min_step_us, cmp->max_step_us,
           cmp->sim_step_us, cmp->step_err_pct);
    for (int32_t d = 0; d < cmp->n_devices; d++) {
        printf("%s{\"id\": %d, \"measured_peak_bytes\": %" PRId64 ", \"sim_peak_bytes\": %" PRId64
               ", \"peak_error_pct\": %.4f}",
               d ? ", " : "", (int)d, cmp->measured_peak[d], cmp->sim_peak[d],
               cmp->peak_err_pct[d]);
    }
    printf("], \"note\": ");
    json_out_str(stdout, r->note);
    printf(", \"step_samples_us\": [");
    for (int32_t i = 0; i < r->n_steps; i++) {
        printf("%s%.3f", i ? ", " : "", r->step_us[i]);
    }
    printf("]}\n");
}

int cmd_replay(int argc, char **argv)
{
    struct cmd_parser cp = {argc, argv, "replay", replay_usage, replay_opts, NULL, NULL};
    struct sim_inputs_args a = {NULL, NULL, NULL, NULL, 0, false};
    const char *backend = "cpu", *dbpath = NULL, *devs = NULL;
    int32_t *ids = NULL, n_ids = 0;
    struct sim_options sopt = {.model = SIM_MODEL_TIMED, .trace = NULL};
    struct bench_replay_opts ropt = {3, 10, false};
    struct sim_inputs in;
    struct sim_result sr;
    struct bench b;
    struct bench_program prog;
    struct bench_replay_result rr;
    struct replay_compare cmp;
    struct replay_stats st;
    bool json = false, have_b = false;
    long v;
    int rc = 0, status = EXIT_OK, o, r_opt;

    sim_inputs_init(&in);
    memset(&prog, 0, sizeof(prog));
    memset(&rr, 0, sizeof(rr));
    memset(&cmp, 0, sizeof(cmp));
    sim_result_init(&sr);
    while ((o = cmd_getopt(&cp)) != -1) {
        if ((r_opt = sim_inputs_option(&cp, o, &a, &sopt.model)) >= 0) {
            if (r_opt) {
                return r_opt;
            }
            continue;
        }
        switch (o) {
        case 'h':
            return EXIT_OK;
        case '?':
            return EXIT_BADINPUT;
        case 'b':
            backend = cp.optarg;
            if (strcmp(backend, "cpu") != 0 && strcmp(backend, "cuda") != 0) {
                return cmd_usage_error(&cp, "unknown backend '%s' (expected cuda or cpu)", backend);
            }
            break;
        case 'd':
            devs = cp.optarg;
            break;
        case OPT_STEPS:
        case OPT_WARMUP:
            if (cmd_parse_int(&cp, o == OPT_STEPS ? "--steps" : "--warmup", cp.optarg,
                              o == OPT_STEPS ? 1 : 0, 100000, &v)) {
                return EXIT_BADINPUT;
            }
            *(o == OPT_STEPS ? &ropt.steps : &ropt.warmup) = (int32_t)v;
            break;
        case OPT_JSON:
            json = true;
            break;
        case OPT_DB:
            dbpath = cp.optarg;
            break;
        default:
            return cmd_usage_error(&cp, "unexpected option");
        }
    }
    if ((rc = sim_inputs_finish(&cp, &a)) != 0 || a.done) {
        return rc;
    }
    {
        const struct cmd_file fin[] = {
            {a.wpath, "--workload"}, {a.cspec, "--cluster"}, {a.pspec, "--placement"}};
        const struct cmd_file fout[] = {{dbpath, "--db"}};

        CHECK(cmd_check_files(fin, CMD_N(fin), fout, CMD_N(fout)));
    }
    if (devs && bench_parse_devices(devs, &ids, &n_ids)) {
        return cmd_usage_error(&cp, "%s", err_msg());
    }
    CHECK(sim_inputs_load(&in, a.wpath, a.cspec, a.pspec, 0, a.memory_fraction));
    {
        /* a symmetric workload holds its representatives' ops alone: the
         * GPUs of the other replicas would idle, and their collectives
         * would wait for ranks that never run */
        struct sim_symmetry sym;

        CHECK(sim_symmetry_read(&in.w, &sym));
        if (sim_symmetry_on(&sym)) {
            rc = err_set(BAECHI_EINVAL,
                         "%s: workload '%s' is symmetric (replica 0 of %d, parallelize "
                         "--symmetric): replay runs every rank's ops on real devices and cannot "
                         "run a representative for the others; write the workload without "
                         "--symmetric",
                         a.wpath, in.w.name, (int)sym.replicas);
            goto cleanup;
        }
    }
    CHECK(sim_run(&in.g, &in.c, in.p.device_of, &sopt, &sr));
    CHECK(replay_build(&in.g, &in.c, in.p.device_of, &sr, &prog, &st));
    if (ids && n_ids != in.c.n_devices) {
        rc = err_set(BAECHI_EINVAL, "--devices lists %d devices; cluster '%s' has %d", (int)n_ids,
                     in.c.name ? in.c.name : a.cspec, (int)in.c.n_devices);
        goto cleanup;
    }
    CHECK(bench_open(&b, backend, ids,
                     ids                           ? n_ids
                     : strcmp(backend, "cpu") == 0 ? in.c.n_devices
                                                   : 0));
    have_b = true;
    if (b.n_devices < in.c.n_devices) {
        rc = err_set(
            BAECHI_EINVAL,
            "cluster '%s' has %d devices but the %s backend found %d; replay on a "
            "cluster cut to the devices present (baechi place ... with a smaller cluster), "
            "or share GPUs with --devices (0,0,0,0: four logical devices on GPU 0)",
            in.c.name ? in.c.name : a.cspec, (int)in.c.n_devices, backend, (int)b.n_devices);
        goto cleanup;
    }
    CHECK(b.ops->replay(&b, &prog, &ropt, &rr));
    CHECK(replay_compare(&rr, &sr, &cmp));
    if (dbpath) {
        CHECK(record_replay(dbpath, a.wpath, a.cspec, &in.w, &in.g, &in.c, &in.p, &sr, sopt.model,
                            &cmp, backend, in.memory_fraction));
    }
    if (json) {
        print_json(&cmp, &rr, &st, &in.w, backend, sopt.model);
    } else {
        print_text(&cmp, &rr, &st, &in.c, &in.w, backend, sopt.model);
        printf("warm-up        %d unmeasured step%s first\n", (int)ropt.warmup,
               ropt.warmup == 1 ? "" : "s");
        if (devs) { /* the mapping -d asked for (else 0, 1, ...) */
            printf("device ids     %s (device i of the cluster on the i-th, -d)\n", devs);
        }
    }
cleanup:
    if (rc) {
        status = cmd_fail(rc);
    }
    replay_compare_release(&cmp);
    bench_replay_result_release(&rr);
    bench_program_release(&prog);
    if (have_b) {
        bench_close(&b);
    }
    sim_result_release(&sr);
    sim_inputs_release(&in);
    free(ids);
    return status;
}
