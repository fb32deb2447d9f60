/*
 * bench.c - backend selection and replay-program helpers (see bench.h).
 * Compiled twice: normally, and with -DHAVE_CUDA for build/baechi-cuda
 * (mk/calibrate.mk), where "cuda" selects bench_cuda.cu.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "calibrate/bench.h"

#include "core/alloc.h"
#include "core/array.h"
#include "core/err.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

bool bench_have_cuda(void)
{
#ifdef HAVE_CUDA
    return true;
#else
    return false;
#endif
}

int bench_open(struct bench *b, const char *name, const int32_t *ids, int32_t n)
{
    const struct bench_ops *ops = NULL;
    int rc;

    memset(b, 0, sizeof(*b));
    if (strcmp(name, "cpu") == 0) {
        ops = &bench_cpu_ops;
    } else if (strcmp(name, "cuda") == 0) {
#ifdef HAVE_CUDA
        ops = &bench_cuda_ops;
#else
        return err_set(BAECHI_EUNSUPPORTED,
                       "backend 'cuda' is not in this build of baechi; build it with 'make cuda' "
                       "(needs nvcc) and run build/baechi-cuda");
#endif
    } else {
        return err_set(BAECHI_EINVAL, "unknown backend '%s' (expected cpu or cuda)", name);
    }
    for (int32_t i = 0; ids && i < n; i++) {
        if (ids[i] < 0) {
            return err_set(BAECHI_EINVAL, "device id %d is negative", (int)ids[i]);
        }
        /* cuda: a repeated id is a logical device on the same GPU (bench.h) */
        for (int32_t j = 0; j < i && ops == &bench_cpu_ops; j++) {
            if (ids[j] == ids[i]) {
                return err_set(BAECHI_EINVAL,
                               "device %d listed twice (only the cuda backend shares a device)",
                               (int)ids[i]);
            }
        }
    }
    b->ops = ops;
    rc = ops->open(b, ids, n);
    if (rc) {
        /* the backend may have set up part of itself: undo it */
        if (b->impl) {
            ops->close(b);
        }
        free(b->ids);
        memset(b, 0, sizeof(*b));
    }
    return rc;
}

int bench_parse_devices(const char *s, int32_t **ids, int32_t *n)
{
    const char *q = s;
    int32_t k = 1;

    *n = 0;
    for (const char *c = s; *c; c++) {
        k += *c == ',';
    }
    *ids = mem_calloc((size_t)k, sizeof(**ids));
    if (!*ids) {
        return BAECHI_ENOMEM;
    }
    while (*q) {
        char *end;
        long v = strtol(q, &end, 10);

        if (end == q || v < 0 || v > 4095 || (*end && *end != ',')) {
            free(*ids);
            *ids = NULL;
            *n = 0;
            return err_set(BAECHI_EINVAL, "--devices wants ids like 0,1,2, not '%s'", s);
        }
        (*ids)[(*n)++] = (int32_t)v;
        q = *end ? end + 1 : end;
    }
    if (*n == 0) {
        free(*ids);
        *ids = NULL;
        return err_set(BAECHI_EINVAL, "--devices wants at least one id");
    }
    return 0;
}

void bench_close(struct bench *b)
{
    if (b->ops) {
        b->ops->close(b);
    }
    free(b->ids);
    memset(b, 0, sizeof(*b));
}

void bench_replay_result_release(struct bench_replay_result *r)
{
    free(r->step_us);
    free(r->peak_bytes);
    free(r->log);
    memset(r, 0, sizeof(*r));
}

int bench_program_add(struct bench_program *p, int which, const struct bench_cmd *c)
{
    struct bench_cmd **v;
    size_t *nr, *alloc;
    int rc;

    switch (which) {
    case BENCH_PART_SETUP:
        v = &p->setup, nr = &p->n_setup, alloc = &p->alloc_setup;
        break;
    case BENCH_PART_STEP:
        v = &p->cmd, nr = &p->n_cmd, alloc = &p->alloc_cmd;
        break;
    default:
        v = &p->teardown, nr = &p->n_teardown, alloc = &p->alloc_teardown;
        break;
    }
    rc = array_reserve_((void **)v, alloc, *nr + 1, sizeof(**v));
    if (rc) {
        return rc;
    }
    (*v)[(*nr)++] = *c;
    return 0;
}

int bench_program_add_buf(struct bench_program *p, int32_t d, int64_t bytes, int32_t *buf)
{
    size_t alloc = p->alloc_bufs;
    int rc;

    if (p->n_bufs == INT32_MAX) {
        return err_set(BAECHI_ENOMEM, "too many buffers in a replay program");
    }
    rc = ARRAY_RESERVE(p->buf_device, alloc, (size_t)p->n_bufs + 1);
    if (rc) {
        return rc;
    }
    if (alloc != p->alloc_bufs) {
        int64_t *nb = mem_realloc(p->buf_bytes, alloc * sizeof(*nb));

        if (!nb) {
            return err_set(BAECHI_ENOMEM, "out of memory growing replay buffers");
        }
        p->buf_bytes = nb;
        p->alloc_bufs = alloc;
    }
    p->buf_device[p->n_bufs] = d;
    p->buf_bytes[p->n_bufs] = bytes;
    *buf = p->n_bufs++;
    return 0;
}

void bench_program_release(struct bench_program *p)
{
    free(p->buf_device);
    free(p->buf_bytes);
    free(p->setup);
    free(p->cmd);
    free(p->teardown);
    memset(p, 0, sizeof(*p));
}

double bench_now_us(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}
