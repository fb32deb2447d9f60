/*
 * calibrate.c - `baechi calibrate`: measure the machine and write a
 * cluster file with the fitted model (calibrate.h).
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "calibrate/calibrate.h"
#include "cli/cmd.h"
#include "cli/commands.h"
#include "core/err.h"

#include <stdlib.h>
#include <string.h>

static const char *const calibrate_usage[] = {
    "baechi calibrate [--backend cuda|cpu] [--devices 0,1,...] [-o cluster.yaml] [--quick]",
    NULL,
};

enum { OPT_QUICK = 256, OPT_MIN_EXP, OPT_MAX_EXP, OPT_ITERS, OPT_WARMUP, OPT_NAME, OPT_JSON };

static const struct cmd_opt calibrate_opts[] = {
    {"backend", 'b', "<cuda|cpu>", "where to measure (default cpu; cuda needs build/baechi-cuda)"},
    {"devices", 'd', "<list>",
     "device ids, comma separated (default: all GPUs / 2 host threads); cuda: an id given "
     "again is one more logical device on that GPU (0,0,0,0: four on GPU 0)"},
    {"output", 'o', "<file>", "cluster YAML to write (default '-': stdout)"},
    {"quick", OPT_QUICK, NULL, "small sizes and few iterations (tests; seconds)"},
    {"min-exp", OPT_MIN_EXP, "<k>", "smallest transfer 2^k bytes (default 0)"},
    {"max-exp", OPT_MAX_EXP, "<k>", "largest transfer 2^k bytes (default 29 cuda, 26 cpu)"},
    {"iters", OPT_ITERS, "<n>", "timed copies per size (default 20)"},
    {"warmup", OPT_WARMUP, "<n>", "untimed copies per size first (default 5)"},
    {"name", OPT_NAME, "<name>", "cluster name (default calibrated-<backend>-<n>)"},
    {"json", OPT_JSON, NULL, "print the measurements as JSON on stdout"},
    CMD_OPT_END,
};

struct calib_out {
    const struct calib_result *r;
    const struct cluster *c;
};

static int write_cluster(FILE *f, void *ctx)
{
    const struct calib_out *co = ctx;

    return calibrate_write_yaml(co->r, co->c, f);
}

int cmd_calibrate(int argc, char **argv)
{
    struct cmd_parser p = {argc, argv, "calibrate", calibrate_usage, calibrate_opts, NULL, NULL};
    const char *backend = "cpu", *out = "-", *name = NULL, *devs = NULL;
    long min_exp = -1, max_exp = -1, iters = -1, warmup = -1, v;
    bool quick = false, json = false;
    int32_t *ids = NULL, n_ids = 0;
    struct bench b;
    struct calib_options o;
    struct calib_result r;
    struct cluster c;
    char cname[64], command[1024];
    size_t off = 0;
    FILE *info;
    int c_opt, rc = 0, status = EXIT_OK;
    bool opened = false, have_r = false, have_c = false;

    memset(&r, 0, sizeof(r));
    while ((c_opt = cmd_getopt(&p)) != -1) {
        switch (c_opt) {
        case 'h':
            return EXIT_OK;
        case '?':
            return EXIT_BADINPUT;
        case 'b':
            backend = p.optarg;
            break;
        case 'd':
            devs = p.optarg;
            break;
        case 'o':
            out = p.optarg;
            break;
        case OPT_QUICK:
            quick = true;
            break;
        case OPT_JSON:
            json = true;
            break;
        case OPT_NAME:
            name = p.optarg;
            break;
        case OPT_MIN_EXP:
        case OPT_MAX_EXP:
        case OPT_ITERS:
        case OPT_WARMUP:
            if (cmd_parse_int(&p, "the value", p.optarg, c_opt == OPT_ITERS ? 1 : 0,
                              c_opt == OPT_ITERS || c_opt == OPT_WARMUP ? 100000 : 34, &v)) {
                return EXIT_BADINPUT;
            }
            *(c_opt == OPT_MIN_EXP   ? &min_exp
              : c_opt == OPT_MAX_EXP ? &max_exp
              : c_opt == OPT_ITERS   ? &iters
                                     : &warmup) = v;
            break;
        default:
            return EXIT_BADINPUT;
        }
    }
    if (cmd_optind() < argc) {
        return cmd_usage_error(&p, "unexpected argument '%s'", argv[cmd_optind()]);
    }
    if (strcmp(backend, "cpu") != 0 && strcmp(backend, "cuda") != 0) {
        return cmd_usage_error(&p, "unknown backend '%s' (expected cuda or cpu)", backend);
    }
    if (json && strcmp(out, "-") == 0) {
        return cmd_usage_error(&p, "--json prints on stdout: write the cluster with -o <file>");
    }
    if (devs && bench_parse_devices(devs, &ids, &n_ids)) {
        return cmd_usage_error(&p, "%s", err_msg());
    }
    calib_options_default(&o, backend, quick);
    o.min_exp = min_exp >= 0 ? (int32_t)min_exp : o.min_exp;
    o.max_exp = max_exp >= 0 ? (int32_t)max_exp : o.max_exp;
    o.iters = iters >= 0 ? (int32_t)iters : o.iters;
    o.warmup = warmup >= 0 ? (int32_t)warmup : o.warmup;
    if (o.min_exp >= o.max_exp) {
        free(ids);
        return cmd_usage_error(&p, "--min-exp %d must be below --max-exp %d", (int)o.min_exp,
                               (int)o.max_exp);
    }
    command[0] = '\0';
    for (int i = 0; i < argc && off < sizeof(command); i++) {
        off += (size_t)snprintf(command + off, sizeof(command) - off, "%s%s", i ? " " : "baechi ",
                                argv[i]);
    }

    CHECK(bench_open(&b, backend, ids, n_ids));
    opened = true;
    CHECK(calibrate_run(&b, &o, &r));
    have_r = true;
    snprintf(cname, sizeof(cname), "calibrated-%s-%d", backend, (int)r.n_devices);
    CHECK(calibrate_to_cluster(&r, name ? name : cname, command, &c));
    have_c = true;
    {
        struct calib_out co = {&r, &c};

        CHECK(cmd_write_file(out, write_cluster, &co));
    }
    info = strcmp(out, "-") == 0 ? stderr : stdout;
    if (json) {
        calibrate_print_json(&r, stdout);
    } else {
        calibrate_print_summary(&r, info);
        if (strcmp(out, "-") != 0) {
            fprintf(info, "wrote %s\n", out);
        }
    }
cleanup:
    if (rc) {
        status = cmd_fail(rc);
    }
    if (have_c) {
        cluster_release(&c);
    }
    if (have_r) {
        calib_result_release(&r);
    }
    if (opened) {
        bench_close(&b);
    }
    free(ids);
    return status;
}
