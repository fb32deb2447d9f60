/*
 * test_placer_threads.c - the library from several threads at once
 * (include/baechi.h: different handles may be used from different threads):
 * every placer of baechi_placers() on two workloads, each placement then
 * simulated with both models, from 8 threads at once, gives what a
 * sequential run gives: the return codes, every op's device, the estimate,
 * and per model the step, the out-of-memory count and every device's peak.
 *
 * The workloads are GNMT and a random DAG whose ops are listed in shuffled
 * order, so that a topological order differs from the id order: m-TOPO once
 * sorted by topological rank through a file-level pointer, and a thread
 * sorting one workload read another's ranks (issue 20); graphs whose ids are
 * already topological hid that race.  `make tsan` runs this test under
 * ThreadSanitizer (mk/tsan.mk).
 *
 * Part of baechi-c; see README.md for the licence.
 */
#ifndef PLACER_THREADS_MAIN
#include <criterion/criterion.h>
#else
/*
 * A program of its own (mk/tsan.mk): Criterion's sandbox (BoxFort) maps an
 * arena where ThreadSanitizer keeps its shadow memory, so under TSan the
 * tests run from main() with these stand-ins for the assertions used here.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void threads_check(int ok, const char *expr, const char *file, int line, const char *fmt,
                          ...)
{
    va_list ap;

    if (ok) {
        return;
    }
    fprintf(stderr, "%s:%d: assertion failed: %s\n  ", file, line, expr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    exit(1);
}
#define cr_assert(c, ...)              threads_check(!!(c), #c, __FILE__, __LINE__, "" __VA_ARGS__)
#define cr_assert_eq(a, b, ...)        cr_assert((a) == (b), __VA_ARGS__)
#define cr_assert_gt(a, b, ...)        cr_assert((a) > (b), __VA_ARGS__)
#define cr_assert_geq(a, b, ...)       cr_assert((a) >= (b), __VA_ARGS__)
#define cr_assert_leq(a, b, ...)       cr_assert((a) <= (b), __VA_ARGS__)
#define cr_assert_arr_eq(a, b, n, ...) cr_assert(memcmp((a), (b), (n)) == 0, __VA_ARGS__)
#define cr_skip_test(...)              (printf("skipped: " __VA_ARGS__), putchar('\n'), exit(0))
#define Test(suite, name, ...)         static void suite##_##name(void)
#endif

#include "include/baechi.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GNMT_PATH "data/workloads/gnmt_v2/gnmt_v2_b128_fwd.yaml"

enum {
    N_THREADS = 8,
    N_WORKLOADS = 2,
    MAX_PLACERS = 32,
    N_MODELS = 2,
    MAX_DEVICES = 8,
    SHUFFLED_OPS = 300,
    ROUNDS = 2,      /* each (workload, placer) job this many times in the threads */
    TOPO_ROUNDS = 60 /* the same for the m-TOPO stress on small graphs */
};

static const char *const models[N_MODELS] = {"timed", "baechi"};

/* What one job gives; compared field by field with the sequential one. */
struct outcome {
    int rc;
    int32_t *dev; /* n_ops, when rc == 0 */
    int64_t estimate_us;
    int sim_rc[N_MODELS];
    int64_t step_us[N_MODELS];
    int32_t oom[N_MODELS];
    int64_t peak_bytes[N_MODELS][MAX_DEVICES];
};

struct job {
    const struct baechi_workload *w;
    const char *placer;
    int workload;
};

struct world {
    const struct baechi_cluster *c;
    const struct baechi_options *o;
    struct job jobs[N_WORKLOADS * MAX_PLACERS];
    int n_jobs;
    int rounds;
    bool place_only;     /* no simulation */
    struct outcome *par; /* n_jobs * rounds, filled by the threads */
    atomic_int next;     /* the next of n_jobs * rounds to run */
};

static void outcome_run(struct outcome *out, const struct job *j, const struct baechi_cluster *c,
                        const struct baechi_options *o, bool place_only)
{
    struct baechi_placement *p = NULL;
    int32_t n = baechi_workload_n_ops(j->w);

    memset(out, 0, sizeof(*out));
    out->rc = baechi_place(j->w, c, j->placer, o, &p);
    if (out->rc != BAECHI_SUCCESS) {
        return;
    }
    out->dev = malloc((size_t)n * sizeof(int32_t));
    for (int32_t v = 0; out->dev && v < n; v++) {
        out->dev[v] = baechi_placement_device_of(p, v);
    }
    out->estimate_us = baechi_placement_estimate_us(p);
    for (int m = 0; m < (place_only ? 0 : N_MODELS); m++) {
        struct baechi_result *r = NULL;

        out->sim_rc[m] = baechi_simulate(j->w, c, p, models[m], NULL, &r);
        if (out->sim_rc[m] == BAECHI_SUCCESS) {
            out->step_us[m] = baechi_result_step_us(r);
            out->oom[m] = baechi_result_oom(r);
            for (int32_t d = 0; d < baechi_result_n_devices(r) && d < MAX_DEVICES; d++) {
                out->peak_bytes[m][d] = baechi_result_peak_bytes(r, d);
            }
        }
        baechi_result_free(r);
    }
    baechi_placement_free(p);
}

static void *worker(void *arg)
{
    struct world *wd = arg;
    int k;

    while ((k = atomic_fetch_add(&wd->next, 1)) < wd->n_jobs * wd->rounds) {
        /* interleaved: neighbouring threads run different jobs */
        outcome_run(&wd->par[k], &wd->jobs[k % wd->n_jobs], wd->c, wd->o, wd->place_only);
    }
    return NULL;
}

/*
 * A random DAG of n ops listed in shuffled order: the op of topological
 * rank r is listed at position pos[r], reads one to three ops of lower
 * rank, and carries a device field (for `given` and `expert`).
 */
static char *shuffled_yaml(int n, unsigned seed)
{
    int *pos = malloc((size_t)n * sizeof(int)), *rank = malloc((size_t)n * sizeof(int));
    size_t cap = (size_t)n * 160 + 64, len = 0;
    char *s = malloc(cap);

    cr_assert(pos && rank && s);
    for (int r = 0; r < n; r++) {
        pos[r] = r;
    }
    for (int r = n - 1; r > 0; r--) {
        int k = (int)(rand_r(&seed) % (unsigned)(r + 1)), t = pos[r];

        pos[r] = pos[k];
        pos[k] = t;
    }
    for (int r = 0; r < n; r++) {
        rank[pos[r]] = r;
    }
    len += (size_t)snprintf(s + len, cap - len, "format: 1\nname: shuffled\nops:\n");
    for (int i = 0; i < n; i++) {
        int r = rank[i], n_in = r == 0 ? 0 : 1 + (int)(rand_r(&seed) % 3);

        len += (size_t)snprintf(s + len, cap - len,
                                "  - {name: r%d, type: Op, time_us: %u, outputs: [%u],"
                                " persistent: %u, device: %d, inputs: [",
                                r, 10 + rand_r(&seed) % 200, 1000 + rand_r(&seed) % 4000000,
                                rand_r(&seed) % 2000000, r % 4);
        for (int k = 0; k < n_in; k++) {
            /* mostly recent ranks: a deep graph, not a fan */
            int from = r - 1 - (int)(rand_r(&seed) % (unsigned)(r < 8 ? r : 8));

            len += (size_t)snprintf(s + len, cap - len, "%sr%d", k ? ", " : "", from);
        }
        len += (size_t)snprintf(s + len, cap - len, "]}\n");
        cr_assert(len < cap);
    }
    free(pos);
    free(rank);
    return s;
}

static void outcome_expect(const struct outcome *b, const struct outcome *a, const struct job *j,
                           int32_t n_ops, int round)
{
    const char *what = j->placer;
    int wl = j->workload;

    cr_assert_eq(b->rc, a->rc, "%s on workload %d, round %d: rc %d, sequential %d", what, wl, round,
                 b->rc, a->rc);
    if (a->rc != BAECHI_SUCCESS) {
        return;
    }
    cr_assert(a->dev && b->dev);
    for (int32_t v = 0; v < n_ops; v++) {
        cr_assert_eq(b->dev[v], a->dev[v],
                     "%s on workload %d, round %d: op %d on %d, sequential %d", what, wl, round, v,
                     b->dev[v], a->dev[v]);
    }
    cr_assert_eq(b->estimate_us, a->estimate_us, "%s on workload %d: estimate", what, wl);
    for (int m = 0; m < N_MODELS; m++) {
        cr_assert_eq(b->sim_rc[m], a->sim_rc[m], "%s/%s on workload %d: rc", what, models[m], wl);
        cr_assert_eq(b->step_us[m], a->step_us[m], "%s/%s on workload %d, round %d: step", what,
                     models[m], wl, round);
        cr_assert_eq(b->oom[m], a->oom[m], "%s/%s on workload %d: oom", what, models[m], wl);
        cr_assert_arr_eq(b->peak_bytes[m], a->peak_bytes[m], sizeof(a->peak_bytes[m]),
                         "%s/%s on workload %d, round %d: peaks", what, models[m], wl, round);
    }
}

/* Runs every job of wd once in this thread, then wd->rounds times from
 * N_THREADS threads at once, and compares. */
static void world_run(struct world *wd, int rounds)
{
    struct outcome seq[N_WORKLOADS * MAX_PLACERS];
    pthread_t th[N_THREADS];

    wd->rounds = rounds;
    for (int k = 0; k < wd->n_jobs; k++) {
        outcome_run(&seq[k], &wd->jobs[k], wd->c, wd->o, wd->place_only);
    }
    wd->par = calloc((size_t)wd->n_jobs * (size_t)rounds, sizeof(*wd->par));
    cr_assert(wd->par);
    atomic_init(&wd->next, 0);
    for (int t = 0; t < N_THREADS; t++) {
        cr_assert_eq(pthread_create(&th[t], NULL, worker, wd), 0);
    }
    for (int t = 0; t < N_THREADS; t++) {
        cr_assert_eq(pthread_join(th[t], NULL), 0);
    }
    for (int k = 0; k < wd->n_jobs * rounds; k++) {
        const struct job *j = &wd->jobs[k % wd->n_jobs];

        outcome_expect(&wd->par[k], &seq[k % wd->n_jobs], j, baechi_workload_n_ops(j->w),
                       k / wd->n_jobs);
        free(wd->par[k].dev);
    }
    for (int k = 0; k < wd->n_jobs; k++) {
        free(seq[k].dev);
    }
    free(wd->par);
    wd->par = NULL;
}

Test(placer_threads, every_placer_and_model_concurrent_equals_sequential, .timeout = 300)
{
    struct baechi_workload *w[N_WORKLOADS] = {NULL, NULL};
    struct baechi_cluster *c = NULL;
    struct baechi_options *o = baechi_options_new();
    struct world wd;
    const char *const *placers = baechi_placers();
    char *yaml = shuffled_yaml(SHUFFLED_OPS, 7);
    int n_placers = 0;

    cr_assert(o);
    baechi_set_warning_handler(NULL, NULL);
    if (baechi_workload_load(GNMT_PATH, &w[0]) == BAECHI_ERR_IO) {
        cr_skip_test("%s not found (run from the repository root)", GNMT_PATH);
    }
    cr_assert(w[0], "%s", baechi_errmsg());
    cr_assert_eq(baechi_workload_parse(yaml, strlen(yaml), "shuffled.yaml", &w[1]), 0, "%s",
                 baechi_errmsg());
    free(yaml);
    cr_assert_eq(baechi_cluster_load("paper-4gpu-pcie", &c), 0, "%s", baechi_errmsg());
    cr_assert_leq(baechi_cluster_n_devices(c), MAX_DEVICES);
    /* auto: a short search (counted in simulated work, so still deterministic) */
    cr_assert_eq(baechi_options_set(o, "budget_ms", "5"), 0, "%s", baechi_errmsg());
    /* the shuffled graph: ops in file order are not in topological order */
    {
        int moved = 0;

        for (int32_t v = 0; v < baechi_workload_n_ops(w[1]); v++) {
            moved += atoi(baechi_workload_op_name(w[1], v) + 1) != v;
        }
        cr_assert_gt(moved, SHUFFLED_OPS / 2, "only %d ops out of topological order", moved);
    }

    memset(&wd, 0, sizeof(wd));
    wd.c = c;
    wd.o = o;
    for (int p = 0; placers[p]; p++) {
        n_placers++;
    }
    cr_assert_geq(n_placers, 13, "baechi_placers() lists %d", n_placers);
    cr_assert_leq(n_placers, MAX_PLACERS);
    /* one placer on both workloads in neighbouring jobs, so that the
     * threads run it on different graphs at the same time */
    for (int p = 0; p < n_placers; p++) {
        for (int i = 0; i < N_WORKLOADS; i++) {
            wd.jobs[wd.n_jobs++] = (struct job){w[i], placers[p], i};
        }
    }
    world_run(&wd, ROUNDS);
    baechi_options_free(o);
    baechi_cluster_free(c);
    baechi_workload_free(w[0]);
    baechi_workload_free(w[1]);
}

/*
 * m-TOPO and m-TOPO-nonuniform only, many times on two small shuffled
 * graphs of different sizes: the sort by topological rank runs in many
 * threads at once (the old file-level pointer made this fail most runs).
 */
Test(placer_threads, m_topo_on_shuffled_graphs, .timeout = 300)
{
    static const char *const topo_placers[] = {"m-topo", "m-topo-nonuniform"};
    struct baechi_workload *w[N_WORKLOADS] = {NULL, NULL};
    struct baechi_cluster *c = NULL;
    struct world wd;

    baechi_set_warning_handler(NULL, NULL);
    for (int i = 0; i < N_WORKLOADS; i++) {
        char *yaml = shuffled_yaml(i ? 1000 : 1500, 11 + (unsigned)i);

        cr_assert_eq(baechi_workload_parse(yaml, strlen(yaml), "shuffled.yaml", &w[i]), 0, "%s",
                     baechi_errmsg());
        free(yaml);
    }
    cr_assert_eq(baechi_cluster_load("paper-4gpu-pcie", &c), 0, "%s", baechi_errmsg());
    memset(&wd, 0, sizeof(wd));
    wd.c = c;
    wd.place_only = true;
    for (int p = 0; p < 2; p++) {
        for (int i = 0; i < N_WORKLOADS; i++) {
            wd.jobs[wd.n_jobs++] = (struct job){w[i], topo_placers[p], i};
        }
    }
    world_run(&wd, TOPO_ROUNDS);
    baechi_cluster_free(c);
    baechi_workload_free(w[0]);
    baechi_workload_free(w[1]);
}

#ifdef PLACER_THREADS_MAIN
int main(void)
{
    placer_threads_every_placer_and_model_concurrent_equals_sequential();
    placer_threads_m_topo_on_shuffled_graphs();
    puts("placer_threads: 2 passed");
    return 0;
}
#endif
