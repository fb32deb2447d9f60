/*
 * bench_cpu.c - the CPU backend of bench.h: host threads play the devices.
 *
 * Calibration: one worker thread per "device"; a measured operation is a
 * task handed to the worker and waited for, so a copy's time includes the
 * hand-off, as the original's transfer time includes Send/Recv scheduling
 * (baechi-spec §10).  Copies are memcpy between per-device buffers done by
 * the receiving worker; GEMM is a blocked single-precision loop; memory
 * bandwidth a device-local memcpy; "launch overhead" an empty task.
 *
 * Replay: one thread per stream (3 per device), events are counters under
 * one mutex and condition variable, SPIN busy-waits on CLOCK_MONOTONIC (so
 * the spin needs no calibration), yielding the core to the copy threads
 * while it waits; ALLOC/FREE count the bytes held per device (the peak is
 * exact in time up to the lock), and a buffer's memory is malloc'd once and
 * kept for its next lifetime, as a caching allocator does (fresh pages that
 * fault in during a copy cost more than the copy in a VM: GNMT, m-ETF on 2
 * threads went from 0.87 s to 0.17 s per step).
 * A free (WAIT ... WAIT FREE on a frees stream) runs in the thread that
 * records the last event it waits for, right after the record: exactly when
 * the simulator frees, with no thread in between to lag (free_groups_build).
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "calibrate/bench.h"

#include "calibrate/fit.h"
#include "core/alloc.h"
#include "core/array.h"
#include "core/err.h"

#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CPU_DEFAULT_DEVICES 2

typedef void (*task_fn)(void *arg);

struct cpu_worker {
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    task_fn fn; /* pending task, NULL when idle */
    void *arg;
    bool done; /* the task finished */
    bool quit;
    bool started;
    void *buf_a, *buf_b; /* copy buffers of this device */
    size_t buf_bytes;
};

struct cpu_impl {
    int32_t n;
    struct cpu_worker *w;
    char cpu_model[96];
};

static void *worker_main(void *p)
{
    struct cpu_worker *w = p;

    pthread_mutex_lock(&w->mu);
    for (;;) {
        while (!w->fn && !w->quit) {
            pthread_cond_wait(&w->cv, &w->mu);
        }
        if (w->quit) {
            break;
        }
        pthread_mutex_unlock(&w->mu);
        w->fn(w->arg);
        pthread_mutex_lock(&w->mu);
        w->fn = NULL;
        w->done = true;
        pthread_cond_broadcast(&w->cv);
    }
    pthread_mutex_unlock(&w->mu);
    return NULL;
}

/* Runs fn(arg) on worker d and waits for it; returns the host-measured µs. */
static double run_on(struct cpu_impl *im, int32_t d, task_fn fn, void *arg)
{
    struct cpu_worker *w = &im->w[d];
    double t0 = bench_now_us();

    pthread_mutex_lock(&w->mu);
    w->arg = arg;
    w->done = false;
    w->fn = fn;
    pthread_cond_broadcast(&w->cv);
    while (!w->done) {
        pthread_cond_wait(&w->cv, &w->mu);
    }
    pthread_mutex_unlock(&w->mu);
    return bench_now_us() - t0;
}

static void read_cpu_model(char *buf, size_t size)
{
    FILE *f = fopen("/proc/cpuinfo", "r");
    char line[256];

    snprintf(buf, size, "host CPU");
    if (!f) {
        return;
    }
    while (fgets(line, sizeof(line), f)) {
        char *colon = strchr(line, ':');

        if (strncmp(line, "model name", 10) == 0 && colon) {
            colon++;
            while (*colon == ' ' || *colon == '\t') {
                colon++;
            }
            colon[strcspn(colon, "\n")] = '\0';
            snprintf(buf, size, "%s", colon);
            break;
        }
    }
    fclose(f);
}

static void cpu_close(struct bench *b)
{
    struct cpu_impl *im = b->impl;

    if (!im) {
        return;
    }
    for (int32_t d = 0; im->w && d < im->n; d++) {
        struct cpu_worker *w = &im->w[d];

        if (w->started) {
            pthread_mutex_lock(&w->mu);
            w->quit = true;
            pthread_cond_broadcast(&w->cv);
            pthread_mutex_unlock(&w->mu);
            pthread_join(w->thread, NULL);
            pthread_mutex_destroy(&w->mu);
            pthread_cond_destroy(&w->cv);
        }
        free(w->buf_a);
        free(w->buf_b);
    }
    free(im->w);
    free(im);
    b->impl = NULL;
}

static int cpu_open(struct bench *b, const int32_t *ids, int32_t n)
{
    struct cpu_impl *im;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);

    if (n == 0) {
        n = CPU_DEFAULT_DEVICES;
    }
    /* deviation: device ids of the CPU backend are just labels; any count works,
       but more devices than cores make every timing meaningless, so cap at 64 */
    if (n > 64) {
        return err_set(BAECHI_EINVAL, "the cpu backend takes at most 64 devices, got %d", (int)n);
    }
    b->ids = mem_calloc((size_t)n, sizeof(*b->ids));
    im = mem_calloc(1, sizeof(*im));
    if (!b->ids || !im) {
        free(im);
        return err_set(BAECHI_ENOMEM, "out of memory opening the cpu backend");
    }
    b->impl = im;
    b->n_devices = n;
    for (int32_t i = 0; i < n; i++) {
        b->ids[i] = ids ? ids[i] : i;
    }
    im->n = n;
    im->w = mem_calloc((size_t)n, sizeof(*im->w));
    if (!im->w) {
        cpu_close(b);
        return err_set(BAECHI_ENOMEM, "out of memory opening the cpu backend");
    }
    read_cpu_model(im->cpu_model, sizeof(im->cpu_model));
    for (int32_t d = 0; d < n; d++) {
        struct cpu_worker *w = &im->w[d];

        pthread_mutex_init(&w->mu, NULL);
        pthread_cond_init(&w->cv, NULL);
        if (pthread_create(&w->thread, NULL, worker_main, w) != 0) {
            pthread_mutex_destroy(&w->mu);
            pthread_cond_destroy(&w->cv);
            cpu_close(b);
            return err_set(BAECHI_EUNSUPPORTED, "cannot start a thread for cpu device %d", (int)d);
        }
        w->started = true;
    }
    snprintf(b->driver, sizeof(b->driver), "%ld online cores", cores);
    snprintf(b->runtime, sizeof(b->runtime), "pthreads");
    snprintf(b->gemm, sizeof(b->gemm), "blocked single-precision GEMM on one host thread");
    return 0;
}

static int cpu_device_info(struct bench *b, int32_t d, struct bench_device_info *out)
{
    struct cpu_impl *im = b->impl;
    long page = sysconf(_SC_PAGESIZE);
    long phys = sysconf(_SC_PHYS_PAGES), avail = sysconf(_SC_AVPHYS_PAGES);

    memset(out, 0, sizeof(*out));
    snprintf(out->name, sizeof(out->name), "host thread %d (%s)", (int)b->ids[d], im->cpu_model);
    out->mem_total_bytes = (int64_t)phys * page / b->n_devices;
    out->mem_usable_bytes = (int64_t)avail * page / b->n_devices;
    return 0;
}

static const char *cpu_copy_path(struct bench *b, int32_t src, int32_t dst)
{
    (void)b, (void)src, (void)dst;
    return "memcpy";
}

static int ensure_bufs(struct cpu_worker *w, size_t bytes)
{
    void *a, *c;

    if (w->buf_bytes >= bytes) {
        return 0;
    }
    a = mem_alloc(bytes);
    c = mem_alloc(bytes);
    if (!a || !c) {
        free(a);
        free(c);
        return BAECHI_ENOMEM; /* mem_alloc set the message */
    }
    memset(a, 1, bytes); /* touch the pages: first use must not pay page faults */
    memset(c, 2, bytes);
    free(w->buf_a);
    free(w->buf_b);
    w->buf_a = a;
    w->buf_b = c;
    w->buf_bytes = bytes;
    return 0;
}

struct copy_task {
    void *dst;
    const void *src;
    size_t bytes;
};

static void copy_task_fn(void *p)
{
    struct copy_task *t = p;

    memcpy(t->dst, t->src, t->bytes);
}

static int cpu_copy_us(struct bench *b, int32_t src, int32_t dst, int64_t bytes, int32_t warmup,
                       int32_t iters, double *us)
{
    struct cpu_impl *im = b->impl;
    struct copy_task t;
    int rc;

    if (bytes < 0 || src == dst) {
        return err_set(BAECHI_EINVAL, "bad copy %d -> %d of %lld bytes", (int)src, (int)dst,
                       (long long)bytes);
    }
    if ((rc = ensure_bufs(&im->w[src], (size_t)bytes)) != 0 ||
        (rc = ensure_bufs(&im->w[dst], (size_t)bytes)) != 0) {
        return rc;
    }
    t.src = im->w[src].buf_a;
    t.dst = im->w[dst].buf_b;
    t.bytes = (size_t)bytes;
    for (int32_t i = 0; i < warmup; i++) {
        run_on(im, dst, copy_task_fn, &t);
    }
    for (int32_t i = 0; i < iters; i++) {
        us[i] = run_on(im, dst, copy_task_fn, &t);
    }
    return 0;
}

struct gemm_task {
    int32_t n;
    const float *a, *bm;
    float *c;
};

/* C = A * B, n x n, row-major, blocked i-k-j loops. */
static void gemm_task_fn(void *p)
{
    struct gemm_task *t = p;
    const int32_t n = t->n, bs = 64;

    memset(t->c, 0, (size_t)n * (size_t)n * sizeof(float));
    for (int32_t ii = 0; ii < n; ii += bs) {
        for (int32_t kk = 0; kk < n; kk += bs) {
            for (int32_t i = ii; i < ii + bs && i < n; i++) {
                for (int32_t k = kk; k < kk + bs && k < n; k++) {
                    float aik = t->a[(size_t)i * n + k];
                    const float *brow = t->bm + (size_t)k * n;
                    float *crow = t->c + (size_t)i * n;

                    for (int32_t j = 0; j < n; j++) {
                        crow[j] += aik * brow[j];
                    }
                }
            }
        }
    }
}

static int cpu_gemm_flops(struct bench *b, int32_t d, int32_t n, int32_t iters, double *flops)
{
    struct cpu_impl *im = b->impl;
    size_t nn = (size_t)n * (size_t)n;
    float *a = mem_alloc_array(nn, sizeof(float)), *bm = mem_alloc_array(nn, sizeof(float));
    float *c = mem_alloc_array(nn, sizeof(float));
    double *t = mem_alloc_array((size_t)(iters > 0 ? iters : 1), sizeof(double));
    struct gemm_task task;
    int rc = 0;

    if (!a || !bm || !c || !t || n <= 0 || iters <= 0) {
        rc = err_set(n <= 0 || iters <= 0 ? BAECHI_EINVAL : BAECHI_ENOMEM,
                     "cannot run a %d x %d GEMM", (int)n, (int)n);
        goto cleanup;
    }
    for (size_t i = 0; i < nn; i++) {
        a[i] = (float)(i % 7) * 0.25f;
        bm[i] = (float)(i % 5) * 0.5f;
    }
    task = (struct gemm_task){n, a, bm, c};
    run_on(im, d, gemm_task_fn, &task); /* warm-up */
    for (int32_t i = 0; i < iters; i++) {
        t[i] = run_on(im, d, gemm_task_fn, &task);
    }
    *flops = 2.0 * (double)n * (double)n * (double)n / (fit_median(t, iters) * 1e-6);
cleanup:
    free(a);
    free(bm);
    free(c);
    free(t);
    return rc;
}

static int cpu_mem_bw(struct bench *b, int32_t d, int64_t bytes, int32_t iters, double *bytes_per_s)
{
    struct cpu_impl *im = b->impl;
    struct copy_task task;
    double *t;
    int rc;

    if (iters <= 0 || bytes <= 0) {
        return err_set(BAECHI_EINVAL, "bad memory bandwidth run (%lld bytes, %d iterations)",
                       (long long)bytes, (int)iters);
    }
    if ((rc = ensure_bufs(&im->w[d], (size_t)bytes)) != 0) {
        return rc;
    }
    t = mem_alloc_array((size_t)iters, sizeof(double));
    if (!t) {
        return BAECHI_ENOMEM;
    }
    task = (struct copy_task){im->w[d].buf_b, im->w[d].buf_a, (size_t)bytes};
    run_on(im, d, copy_task_fn, &task);
    for (int32_t i = 0; i < iters; i++) {
        t[i] = run_on(im, d, copy_task_fn, &task);
    }
    *bytes_per_s = 2.0 * (double)bytes / (fit_median(t, iters) * 1e-6);
    free(t);
    return 0;
}

static void noop_task_fn(void *p)
{
    (void)p;
}

static int cpu_launch_us(struct bench *b, int32_t d, int32_t iters, double *us)
{
    struct cpu_impl *im = b->impl;
    double *t;

    if (iters <= 0) {
        return err_set(BAECHI_EINVAL, "launch overhead needs >= 1 iteration");
    }
    t = mem_alloc_array((size_t)iters, sizeof(double));
    if (!t) {
        return BAECHI_ENOMEM;
    }
    run_on(im, d, noop_task_fn, NULL);
    for (int32_t i = 0; i < iters; i++) {
        t[i] = run_on(im, d, noop_task_fn, NULL);
    }
    *us = fit_median(t, iters);
    free(t);
    return 0;
}

/* ------------------------------------------------------------------------
 * Replay.
 * ---------------------------------------------------------------------- */
struct replay_ctx;

struct replay_stream {
    struct replay_ctx *ctx;
    pthread_t thread;
    int32_t id;
    const struct bench_cmd **cmd; /* this stream's commands of one step, in order */
    size_t n_cmd;
};

struct replay_ctx {
    const struct bench_program *p;
    const struct bench_replay_opts *opt;
    struct bench_replay_result *r;
    struct replay_stream *s;
    int32_t n_streams;
    void **ptr;         /* per buffer: its memory, kept across steps */
    uint8_t *held;      /* per buffer: allocated now (its bytes count) */
    int64_t *cur_bytes; /* per device */
    pthread_mutex_t mem_mu;
    pthread_mutex_t ev_mu;
    pthread_cond_t ev_cv;
    int64_t *ev_count; /* records so far, per event */
    pthread_barrier_t start, end;
    int32_t step; /* index over warm-up + measured steps */
    bool quit;
    double t0_us; /* host time at the step's start */
    int failed;   /* an allocation failed (BAECHI_ENOMEM) */
    pthread_mutex_t log_mu;
    /* frees fired by the last of their events (free_groups_build); under ev_mu */
    bool inline_frees;
    int32_t n_groups;
    int32_t *grp_buf;   /* per group: the buffer to free */
    int32_t *grp_waits; /* per group: its number of waits */
    int32_t *grp_left;  /* per group: waits outstanding in this step */
    int32_t *ev_start;  /* n_events + 1: groups of event e = ev_grp[ev_start[e] .. ev_start[e+1]) */
    int32_t *ev_grp;
};

static void rp_alloc(struct replay_ctx *x, int32_t buf)
{
    const struct bench_program *p = x->p;
    int32_t d = p->buf_device[buf];
    int64_t bytes = p->buf_bytes[buf];

    if (x->held[buf]) {
        return; /* already held (a program bug would double count otherwise) */
    }
    /* the memory of a buffer is kept for its next lifetime (the next step),
       as a caching allocator or a GPU pool keeps it: fresh pages would fault
       in during the copy that fills them, which dominated a step */
    if (!x->ptr[buf]) {
        x->ptr[buf] = mem_alloc(bytes > 0 ? (size_t)bytes : 1);
    }
    pthread_mutex_lock(&x->mem_mu);
    if (!x->ptr[buf]) {
        x->failed = BAECHI_ENOMEM;
        pthread_mutex_unlock(&x->mem_mu);
        return;
    }
    x->held[buf] = 1;
    x->cur_bytes[d] += bytes;
    if (x->cur_bytes[d] > x->r->peak_bytes[d]) {
        x->r->peak_bytes[d] = x->cur_bytes[d];
    }
    pthread_mutex_unlock(&x->mem_mu);
}

static void rp_free(struct replay_ctx *x, int32_t buf)
{
    const struct bench_program *p = x->p;

    if (!x->held[buf]) {
        return;
    }
    x->held[buf] = 0; /* the bytes stop counting; the memory stays for the next step */
    pthread_mutex_lock(&x->mem_mu);
    x->cur_bytes[p->buf_device[buf]] -= p->buf_bytes[buf];
    pthread_mutex_unlock(&x->mem_mu);
}

static void rp_log(struct replay_ctx *x, const struct bench_cmd *c, double start, double end)
{
    struct bench_replay_result *r = x->r;

    if (!x->opt->log || x->step < x->opt->warmup) {
        return;
    }
    pthread_mutex_lock(&x->log_mu);
    if (ARRAY_RESERVE(r->log, r->alloc_log, r->n_log + 1) == 0) {
        r->log[r->n_log++] = (struct bench_log_entry){
            x->step - x->opt->warmup, c->kind, c->stream, c->id, start - x->t0_us, end - x->t0_us};
    } else {
        pthread_mutex_lock(&x->mem_mu);
        x->failed = BAECHI_ENOMEM;
        pthread_mutex_unlock(&x->mem_mu);
    }
    pthread_mutex_unlock(&x->log_mu);
}

static void rp_exec(struct replay_ctx *x, const struct bench_cmd *c)
{
    double t0, t1;

    switch (c->kind) {
    case BENCH_ALLOC:
        rp_alloc(x, c->buf);
        break;
    case BENCH_FREE:
        rp_free(x, c->buf);
        break;
    case BENCH_SPIN:
        t0 = bench_now_us();
        t1 = t0;
        while (t1 - t0 < c->us) {
            sched_yield();
            t1 = bench_now_us();
        }
        rp_log(x, c, t0, t1);
        break;
    case BENCH_COPY:
        t0 = bench_now_us();
        /* a control tensor has no source buffer (src_buf -1): only the signal travels */
        if (c->src_buf >= 0 && x->held[c->buf] && x->held[c->src_buf]) {
            int64_t n = x->p->buf_bytes[c->buf];

            if (x->p->buf_bytes[c->src_buf] < n) {
                n = x->p->buf_bytes[c->src_buf];
            }
            memcpy(x->ptr[c->buf], x->ptr[c->src_buf], (size_t)n);
        }
        rp_log(x, c, t0, bench_now_us());
        break;
    case BENCH_RECORD:
        pthread_mutex_lock(&x->ev_mu);
        x->ev_count[c->event]++;
        if (x->inline_frees) {
            for (int32_t k = x->ev_start[c->event]; k < x->ev_start[c->event + 1]; k++) {
                int32_t g = x->ev_grp[k];

                if (--x->grp_left[g] == 0) {
                    rp_free(x, x->grp_buf[g]); /* lock order: ev_mu, then mem_mu */
                }
            }
        }
        pthread_cond_broadcast(&x->ev_cv);
        pthread_mutex_unlock(&x->ev_mu);
        break;
    case BENCH_WAIT:
        pthread_mutex_lock(&x->ev_mu);
        while (x->ev_count[c->event] < x->step + 1) {
            pthread_cond_wait(&x->ev_cv, &x->ev_mu);
        }
        pthread_mutex_unlock(&x->ev_mu);
        break;
    default:
        break;
    }
}

static void *stream_main(void *arg)
{
    struct replay_stream *s = arg;
    struct replay_ctx *x = s->ctx;

    for (;;) {
        pthread_barrier_wait(&x->start);
        if (x->quit) {
            break;
        }
        for (size_t i = 0; i < s->n_cmd; i++) {
            rp_exec(x, s->cmd[i]);
        }
        pthread_barrier_wait(&x->end);
    }
    return NULL;
}

/*
 * When every frees stream is WAIT ... WAIT FREE groups (replay.c builds them
 * so), index the groups by event: the RECORD that brings a group's count of
 * outstanding waits to 0 frees its buffer.  Otherwise the frees streams run
 * their commands in order (inline_frees stays false).
 */
static int free_groups_build(struct replay_ctx *x, const struct bench_program *p)
{
    int32_t g = 0, k;

    for (size_t i = 0; i < p->n_cmd; i++) {
        const struct bench_cmd *c = &p->cmd[i];

        if (c->stream % BENCH_STREAMS_PER_DEVICE != BENCH_STREAM_MEM) {
            continue;
        }
        if (c->kind != BENCH_WAIT && c->kind != BENCH_FREE) {
            return 0;
        }
        x->n_groups += c->kind == BENCH_FREE;
    }
    x->grp_buf = mem_calloc((size_t)x->n_groups + 1, sizeof(int32_t));
    x->grp_waits = mem_calloc((size_t)x->n_groups + 1, sizeof(int32_t));
    x->grp_left = mem_calloc((size_t)x->n_groups + 1, sizeof(int32_t));
    x->ev_start = mem_calloc((size_t)p->n_events + 2, sizeof(int32_t));
    if (!x->grp_buf || !x->grp_waits || !x->grp_left || !x->ev_start) {
        return BAECHI_ENOMEM;
    }
    /* pass 1: waits per group and per event; the commands of one frees stream
       are contiguous per group because a stream's commands keep their order */
    for (int32_t st = 0; st < x->n_streams; st++) {
        const struct replay_stream *s = &x->s[st];

        if (st % BENCH_STREAMS_PER_DEVICE != BENCH_STREAM_MEM) {
            continue;
        }
        for (size_t i = 0; i < s->n_cmd; i++) {
            if (s->cmd[i]->kind == BENCH_WAIT) {
                x->grp_waits[g]++;
                x->ev_start[s->cmd[i]->event + 1]++;
            } else {
                x->grp_buf[g++] = s->cmd[i]->buf;
            }
        }
        if (s->n_cmd > 0 && s->cmd[s->n_cmd - 1]->kind != BENCH_FREE) {
            return 0; /* trailing waits: keep the plain stream */
        }
    }
    for (int32_t e = 0; e < p->n_events; e++) {
        x->ev_start[e + 1] += x->ev_start[e];
    }
    x->ev_grp = mem_calloc((size_t)x->ev_start[p->n_events] + 1, sizeof(int32_t));
    if (!x->ev_grp) {
        return BAECHI_ENOMEM;
    }
    g = 0;
    for (int32_t st = 0; st < x->n_streams; st++) {
        struct replay_stream *s = &x->s[st];

        if (st % BENCH_STREAMS_PER_DEVICE != BENCH_STREAM_MEM) {
            continue;
        }
        for (size_t i = 0; i < s->n_cmd; i++) {
            if (s->cmd[i]->kind == BENCH_WAIT) {
                k = x->ev_start[s->cmd[i]->event]++;
                x->ev_grp[k] = g;
            } else {
                g++;
            }
        }
        s->n_cmd = 0; /* the records do this stream's work */
    }
    for (int32_t e = p->n_events; e > 0; e--) { /* undo the fill's shift */
        x->ev_start[e] = x->ev_start[e - 1];
    }
    x->ev_start[0] = 0;
    x->inline_frees = true;
    return 0;
}

/* Sets up x for program p: buffers, per-stream command lists, free groups. */
static int replay_ctx_setup(struct replay_ctx *x, const struct bench_program *p,
                            const struct bench_replay_opts *opt, struct bench_replay_result *r)
{
    x->p = p;
    x->opt = opt;
    x->r = r;
    x->n_streams = p->n_devices * BENCH_STREAMS_PER_DEVICE;
    r->n_steps = opt->steps;
    r->n_devices = p->n_devices;
    r->step_us = mem_calloc((size_t)opt->steps, sizeof(double));
    r->peak_bytes = mem_calloc((size_t)p->n_devices, sizeof(int64_t));
    x->cur_bytes = mem_calloc((size_t)p->n_devices, sizeof(int64_t));
    x->ptr = mem_calloc((size_t)p->n_bufs + 1, sizeof(void *));
    x->held = mem_calloc((size_t)p->n_bufs + 1, 1);
    x->ev_count = mem_calloc((size_t)p->n_events + 1, sizeof(int64_t));
    x->s = mem_calloc((size_t)x->n_streams, sizeof(*x->s));
    if (!r->step_us || !r->peak_bytes || !x->cur_bytes || !x->ptr || !x->held || !x->ev_count ||
        !x->s) {
        return BAECHI_ENOMEM;
    }
    for (int32_t i = 0; i < x->n_streams; i++) {
        x->s[i].ctx = x;
        x->s[i].id = i;
    }
    for (size_t i = 0; i < p->n_cmd; i++) {
        int32_t st = p->cmd[i].stream;

        if (st < 0 || st >= x->n_streams) {
            return err_set(BAECHI_EINVAL, "replay command %zu names stream %d of %d", i, (int)st,
                           (int)x->n_streams);
        }
        x->s[st].n_cmd++;
    }
    for (int32_t i = 0; i < x->n_streams; i++) {
        x->s[i].cmd = mem_calloc(x->s[i].n_cmd + 1, sizeof(*x->s[i].cmd));
        if (!x->s[i].cmd) {
            return BAECHI_ENOMEM;
        }
        x->s[i].n_cmd = 0;
    }
    for (size_t i = 0; i < p->n_cmd; i++) {
        struct replay_stream *s = &x->s[p->cmd[i].stream];

        s->cmd[s->n_cmd++] = &p->cmd[i];
    }
    return free_groups_build(x, p);
}

/* Frees what replay_ctx_setup and the run made (`barriers`: the sync objects exist). */
static void replay_ctx_release(struct replay_ctx *x, const struct bench_program *p, bool barriers)
{
    if (x->ptr) {
        for (int32_t i = 0; i < p->n_bufs; i++) {
            free(x->ptr[i]);
        }
    }
    if (barriers) {
        pthread_barrier_destroy(&x->start);
        pthread_barrier_destroy(&x->end);
        pthread_mutex_destroy(&x->mem_mu);
        pthread_mutex_destroy(&x->ev_mu);
        pthread_mutex_destroy(&x->log_mu);
        pthread_cond_destroy(&x->ev_cv);
    }
    if (x->s) {
        for (int32_t i = 0; i < x->n_streams; i++) {
            free(x->s[i].cmd);
        }
    }
    free(x->s);
    free(x->grp_buf);
    free(x->grp_waits);
    free(x->grp_left);
    free(x->ev_start);
    free(x->ev_grp);
    free(x->ptr);
    free(x->held);
    free(x->cur_bytes);
    free(x->ev_count);
}

/* Starts one thread per stream, runs `total` steps (timing those after the warm-up), joins. */
static void replay_run_steps(struct replay_ctx *x, int32_t total)
{
    const struct bench_replay_opts *opt = x->opt;
    int32_t n_started = 0;

    for (int32_t i = 0; i < x->n_streams; i++) {
        if (pthread_create(&x->s[i].thread, NULL, stream_main, &x->s[i]) != 0) {
            /* deviation-free shutdown: threads started wait on `start`, which needs all
               participants; there is no safe way out but to fail loudly */
            BUG("replay thread creation failed after %d threads", (int)n_started);
        }
        n_started++;
    }
    for (int32_t k = 0; k < total; k++) {
        double t1;

        x->step = k;
        if (x->inline_frees) {
            memcpy(x->grp_left, x->grp_waits, (size_t)x->n_groups * sizeof(int32_t));
            for (int32_t g = 0; g < x->n_groups; g++) {
                if (x->grp_waits[g] == 0) {
                    rp_free(x, x->grp_buf[g]);
                }
            }
        }
        x->t0_us = bench_now_us();
        pthread_barrier_wait(&x->start);
        pthread_barrier_wait(&x->end);
        t1 = bench_now_us();
        if (k >= opt->warmup) {
            x->r->step_us[k - opt->warmup] = t1 - x->t0_us;
        }
    }
    x->quit = true;
    pthread_barrier_wait(&x->start);
    for (int32_t i = 0; i < n_started; i++) {
        pthread_join(x->s[i].thread, NULL);
    }
}

static int cpu_replay(struct bench *b, const struct bench_program *p,
                      const struct bench_replay_opts *opt, struct bench_replay_result *r)
{
    struct replay_ctx x;
    int rc = 0;
    bool barriers = false;

    memset(r, 0, sizeof(*r));
    memset(&x, 0, sizeof(x));
    if (p->n_devices > b->n_devices) {
        return err_set(BAECHI_EINVAL, "the program needs %d devices, the backend has %d",
                       (int)p->n_devices, (int)b->n_devices);
    }
    if (opt->steps < 1 || opt->warmup < 0) {
        return err_set(BAECHI_EINVAL, "replay needs >= 1 measured step");
    }
    CHECK(replay_ctx_setup(&x, p, opt, r));
    pthread_mutex_init(&x.mem_mu, NULL);
    pthread_mutex_init(&x.ev_mu, NULL);
    pthread_mutex_init(&x.log_mu, NULL);
    pthread_cond_init(&x.ev_cv, NULL);
    pthread_barrier_init(&x.start, NULL, (unsigned)x.n_streams + 1);
    pthread_barrier_init(&x.end, NULL, (unsigned)x.n_streams + 1);
    barriers = true;
    for (size_t i = 0; i < p->n_setup; i++) {
        rp_exec(&x, &p->setup[i]);
    }
    replay_run_steps(&x, opt->warmup + opt->steps);
    for (size_t i = 0; i < p->n_teardown; i++) {
        rp_exec(&x, &p->teardown[i]);
    }
    if (x.failed) {
        rc = err_set(x.failed, "replay ran out of host memory");
    }
    snprintf(r->note, sizeof(r->note),
             "cpu backend: %d threads per device (compute, copies, frees), spins on "
             "CLOCK_MONOTONIC, copies by memcpy",
             BENCH_STREAMS_PER_DEVICE);
cleanup:
    replay_ctx_release(&x, p, barriers);
    if (rc) {
        bench_replay_result_release(r);
    }
    return rc;
}

const struct bench_ops bench_cpu_ops = {
    .name = "cpu",
    .open = cpu_open,
    .close = cpu_close,
    .device_info = cpu_device_info,
    .copy_path = cpu_copy_path,
    .copy_us = cpu_copy_us,
    .gemm_flops = cpu_gemm_flops,
    .mem_bw = cpu_mem_bw,
    .launch_us = cpu_launch_us,
    .replay = cpu_replay,
    .allreduce_us = bench_cpu_allreduce_us,
};
