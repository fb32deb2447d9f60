/*
 * coll_cpu.c - the CPU backend's collective benchmark (bench.h,
 * bench_ops.allreduce_us): a shared-memory stand-in for NCCL.  One thread
 * per device holds a float buffer; a ring all-reduce runs as NCCL's ring
 * does: n-1 reduce-scatter steps (thread i adds chunk (i-1-s) mod n of its
 * left neighbour into its own) and n-1 all-gather steps (it copies the
 * neighbour's finished chunk), a barrier between steps as the ring's
 * per-step synchronisation.  Fitting its times to 2(n-1)/n·S/B + 2(n-1)·α
 * gives the host's "link" B and α (calibrate.c).  Beyond the original.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "calibrate/bench.h"

#include "core/alloc.h"
#include "core/err.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

struct ar_ctx {
    int32_t n;
    size_t n_floats;
    float **buf; /* per thread */
    pthread_barrier_t step;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int go;          /* 0: wait; 1: run; -1: a thread could not start, return */
    int32_t rounds;  /* warm-up + timed */
    double *t0, *t1; /* per round, set by thread 0 */
};

struct ar_thread {
    struct ar_ctx *x;
    int32_t me;
};

/* Chunk c of n over n_floats: [*lo, *hi). */
static void chunk(const struct ar_ctx *x, int32_t c, size_t *lo, size_t *hi)
{
    *lo = x->n_floats * (size_t)c / (size_t)x->n;
    *hi = x->n_floats * (size_t)(c + 1) / (size_t)x->n;
}

static void *ar_main(void *p)
{
    struct ar_thread *th = p;
    struct ar_ctx *x = th->x;
    const int32_t n = x->n, me = th->me, left = (me + n - 1) % n;
    float *mine = x->buf[me], *theirs = x->buf[left];
    int go;

    pthread_mutex_lock(&x->mu);
    while (x->go == 0) {
        pthread_cond_wait(&x->cv, &x->mu);
    }
    go = x->go;
    pthread_mutex_unlock(&x->mu);
    if (go < 0) {
        return NULL;
    }
    for (int32_t r = 0; r < x->rounds; r++) {
        pthread_barrier_wait(&x->step);
        if (me == 0) {
            x->t0[r] = bench_now_us();
        }
        for (int32_t s = 0; s < n - 1; s++) { /* reduce-scatter */
            size_t lo, hi;

            chunk(x, ((me - 1 - s) % n + n) % n, &lo, &hi);
            for (size_t i = lo; i < hi; i++) {
                mine[i] += theirs[i];
            }
            pthread_barrier_wait(&x->step);
        }
        for (int32_t s = 0; s < n - 1; s++) { /* all-gather */
            size_t lo, hi;

            chunk(x, ((me - s) % n + n) % n, &lo, &hi);
            memcpy(mine + lo, theirs + lo, (hi - lo) * sizeof(float));
            pthread_barrier_wait(&x->step);
        }
        if (me == 0) {
            x->t1[r] = bench_now_us();
        }
    }
    return NULL;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return (x > y) - (x < y);
}

int bench_cpu_allreduce_us(struct bench *b, int64_t bytes, int32_t warmup, int32_t iters,
                           double *us)
{
    struct ar_ctx x = {.n = b->n_devices, .rounds = warmup + iters};
    struct ar_thread *th = NULL;
    pthread_t *tid = NULL;
    int32_t started = 0;
    int rc = 0;

    if (x.n < 2 || iters < 1 || bytes < 0) {
        return err_set(BAECHI_EINVAL, "all-reduce benchmark: %d devices, %d iterations", x.n,
                       iters);
    }
    x.n_floats = (size_t)bytes / sizeof(float);
    if (x.n_floats < (size_t)x.n) {
        x.n_floats = (size_t)x.n; /* a chunk per thread */
    }
    x.buf = mem_calloc((size_t)x.n, sizeof(*x.buf));
    x.t0 = mem_calloc((size_t)x.rounds, sizeof(double));
    x.t1 = mem_calloc((size_t)x.rounds, sizeof(double));
    th = mem_calloc((size_t)x.n, sizeof(*th));
    tid = mem_calloc((size_t)x.n, sizeof(*tid));
    if (!x.buf || !x.t0 || !x.t1 || !th || !tid) {
        rc = BAECHI_ENOMEM;
        goto done;
    }
    for (int32_t i = 0; i < x.n; i++) {
        if (!(x.buf[i] = mem_calloc(x.n_floats, sizeof(float)))) {
            rc = BAECHI_ENOMEM;
            goto done;
        }
    }
    pthread_barrier_init(&x.step, NULL, (unsigned)x.n);
    pthread_mutex_init(&x.mu, NULL);
    pthread_cond_init(&x.cv, NULL);
    for (; started < x.n; started++) {
        th[started] = (struct ar_thread){&x, started};
        if (pthread_create(&tid[started], NULL, ar_main, &th[started]) != 0) {
            break;
        }
    }
    /* all started: run; else the started ones return before the barrier */
    pthread_mutex_lock(&x.mu);
    x.go = started == x.n ? 1 : -1;
    pthread_cond_broadcast(&x.cv);
    pthread_mutex_unlock(&x.mu);
    for (int32_t i = 0; i < started; i++) {
        pthread_join(tid[i], NULL);
    }
    pthread_barrier_destroy(&x.step);
    pthread_mutex_destroy(&x.mu);
    pthread_cond_destroy(&x.cv);
    if (started < x.n) {
        rc = err_set(BAECHI_ENOMEM, "all-reduce benchmark: cannot start thread %d of %d", started,
                     x.n);
        goto done;
    }
    for (int32_t r = 0; r < iters; r++) {
        x.t0[r] = x.t1[warmup + r] - x.t0[warmup + r];
    }
    qsort(x.t0, (size_t)iters, sizeof(double), cmp_double);
    *us = iters % 2 ? x.t0[iters / 2] : (x.t0[iters / 2 - 1] + x.t0[iters / 2]) / 2;
done:
    for (int32_t i = 0; x.buf && i < x.n; i++) {
        free(x.buf[i]);
    }
    free(x.buf);
    free(x.t0);
    free(x.t1);
    free(th);
    free(tid);
    return rc;
}
