/*
 * place_and_simulate.c - a program over the installed libbaechi: places a
 * workload on a cluster and simulates one step with both models.
 *
 *   cc place_and_simulate.c $(pkg-config --cflags --libs baechi) -o place_and_simulate
 *   ./place_and_simulate gnmt_v2_b128_fwd.yaml paper-4gpu-pcie m-etf [memory_fraction]
 *
 * Prints one line per model: "<model> step_us=<n> oom=<0|1> peak_bytes=<d0>,<d1>,...",
 * the numbers of `baechi run --json` (tests/cli/t020 compares them).
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include <baechi.h>

#include <inttypes.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    struct baechi_workload *w = NULL;
    struct baechi_cluster *c = NULL;
    struct baechi_options *o = NULL;
    struct baechi_placement *p = NULL;
    static const char *const models[] = {"timed", "baechi"};
    int rc, status = 0;

    if (argc < 4) {
        fprintf(stderr, "usage: %s <workload.yaml> <cluster> <placer> [memory_fraction]\n",
                argv[0]);
        return 2;
    }
    if ((rc = baechi_workload_load(argv[1], &w)) || (rc = baechi_cluster_load(argv[2], &c))) {
        goto fail;
    }
    if (!(o = baechi_options_new())) {
        rc = BAECHI_ERR_NOMEM;
        goto fail;
    }
    if (argc > 4 && (rc = baechi_options_set(o, "memory_fraction", argv[4]))) {
        goto fail;
    }
    if ((rc = baechi_place(w, c, argv[3], o, &p))) {
        goto fail;
    }
    printf("%s %s %s %d ops placed in %.3f ms\n", baechi_workload_name(w), baechi_cluster_name(c),
           baechi_placement_placer(p), baechi_placement_n_ops(p), baechi_placement_time_ms(p));
    for (int m = 0; m < 2; m++) {
        struct baechi_result *r = NULL;

        if ((rc = baechi_simulate(w, c, p, models[m], NULL, &r))) {
            goto fail;
        }
        printf("%s step_us=%" PRId64 " oom=%d peak_bytes=", baechi_result_model(r),
               baechi_result_step_us(r), baechi_result_oom(r) > 0);
        for (int32_t d = 0; d < baechi_result_n_devices(r); d++) {
            printf("%s%" PRId64, d ? "," : "", baechi_result_peak_bytes(r, d));
        }
        putchar('\n');
        baechi_result_free(r);
    }
    goto done;
fail:
    fprintf(stderr, "place_and_simulate: %s\n", baechi_errmsg());
    status = rc == BAECHI_ERR_INFEASIBLE ? 3 : rc == BAECHI_ERR_NOMEM ? 1 : 2;
done:
    baechi_placement_free(p);
    baechi_options_free(o);
    baechi_cluster_free(c);
    baechi_workload_free(w);
    return status;
}
