/*
 * bench.h - the calibration and replay backends behind one interface
 * (docs/style.md §1: alternative backends in separate files, chosen at
 * build time, like redis ae.c over ae_epoll.c / ae_kqueue.c):
 *
 *   bench_cpu.c   always built: host threads play the devices (buffer copies,
 *                 a blocked CPU GEMM, a no-op task as "kernel launch"), so
 *                 that calibrate -> cluster.yaml -> sim and replay run and are
 *                 tested everywhere;
 *   bench_cuda.cu built by `make cuda` where nvcc exists (HAVE_CUDA): CUDA
 *                 events, cudaMemcpyPeerAsync, cuBLAS (or a tiled kernel),
 *                 a copy kernel, an empty kernel, cudaMemGetInfo.
 *
 * A backend measures (copy times, GEMM throughput, memory bandwidth, launch
 * overhead, usable memory) and executes a replay program (the placed graph as
 * streams of commands, see struct bench_program).  It never prints.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#ifndef BAECHI_CALIBRATE_BENCH_H
#define BAECHI_CALIBRATE_BENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define BENCH_NAME_MAX 128

struct bench_device_info {
    char name[BENCH_NAME_MAX]; /* "NVIDIA H200", "host thread 0 (AMD EPYC ...)" */
    int64_t mem_total_bytes;
    int64_t mem_usable_bytes; /* free memory at open (cudaMemGetInfo) or a host share */
};

/* ---------------------------------------------------------------------------
 * Replay programs.  The placed graph becomes one step of commands, each on a
 * stream; a device has REPLAY_STREAMS streams (compute, incoming copies,
 * frees).  Commands of one stream run in order; streams synchronise only
 * through events.  Every event is recorded exactly once per step, and the
 * program lists commands in an order where each RECORD comes before every
 * WAIT on it (CUDA's cudaStreamWaitEvent semantics: a wait refers to the
 * latest record issued before it).  A WAIT in step k waits for the k-th record.
 * ------------------------------------------------------------------------- */
enum bench_stream_role { BENCH_STREAM_COMPUTE = 0, BENCH_STREAM_COPY = 1, BENCH_STREAM_MEM = 2 };
#define BENCH_STREAMS_PER_DEVICE 3

enum bench_cmd_kind {
    BENCH_ALLOC,  /* allocate buffer `buf` on the stream's device */
    BENCH_FREE,   /* free buffer `buf` */
    BENCH_SPIN,   /* run for `us` µs (op `id`), a calibrated spin */
    BENCH_COPY,   /* copy buffer `src_buf` into `buf` (tensor `id`); src_buf -1: a control
                     tensor, only the dependency travels */
    BENCH_RECORD, /* record event `event` */
    BENCH_WAIT    /* wait for event `event` */
};

struct bench_cmd {
    uint8_t kind;    /* enum bench_cmd_kind */
    int32_t stream;  /* device * BENCH_STREAMS_PER_DEVICE + role */
    int32_t buf;     /* ALLOC, FREE, COPY (destination) */
    int32_t src_buf; /* COPY */
    int32_t event;   /* RECORD, WAIT */
    int32_t id;      /* SPIN: op id; COPY: tensor id (logs) */
    double us;       /* SPIN */
};

struct bench_program {
    int32_t n_devices;
    int32_t n_bufs;
    int32_t *buf_device; /* n_bufs */
    int64_t *buf_bytes;  /* n_bufs */
    int32_t n_events;
    struct bench_cmd *setup; /* once before the steps, in order (persistent allocations) */
    size_t n_setup, alloc_setup;
    struct bench_cmd *cmd; /* one step */
    size_t n_cmd, alloc_cmd;
    struct bench_cmd *teardown; /* once after the steps */
    size_t n_teardown, alloc_teardown;
    size_t alloc_bufs;
};

/* One executed SPIN or COPY (CPU backend logs when asked; times from step start). */
struct bench_log_entry {
    int32_t step;
    uint8_t kind; /* BENCH_SPIN or BENCH_COPY */
    int32_t stream;
    int32_t id;
    double start_us, end_us;
};

struct bench_replay_opts {
    int32_t warmup; /* steps run before the measured ones */
    int32_t steps;  /* measured steps, >= 1 */
    bool log;       /* fill bench_replay_result.log (measured steps only) */
};

struct bench_replay_result {
    int32_t n_steps;
    double *step_us; /* n_steps measured step times */
    int32_t n_devices;
    int64_t *peak_bytes; /* per device: the most allocated at once, over all steps */
    struct bench_log_entry *log;
    size_t n_log, alloc_log;
    char note[256]; /* how the backend ran it (copy path, spin calibration) */
};

void bench_replay_result_release(struct bench_replay_result *r);

/* ---------------------------------------------------------------------------
 * The backend.
 * ------------------------------------------------------------------------- */
struct bench;

struct bench_ops {
    const char *name; /* "cpu", "cuda" */
    /* Opens devices ids[0..n) (physical ids); sets b->impl and b->info. */
    int (*open)(struct bench *b, const int32_t *ids, int32_t n);
    void (*close)(struct bench *b);
    int (*device_info)(struct bench *b, int32_t d, struct bench_device_info *out);
    /* How a copy src -> dst travels: "peer (P2P)", "host-staged (driver)", "memcpy". */
    const char *(*copy_path)(struct bench *b, int32_t src, int32_t dst);
    /* `iters` timed copies of `bytes` from src to dst after `warmup` untimed ones (µs each). */
    int (*copy_us)(struct bench *b, int32_t src, int32_t dst, int64_t bytes, int32_t warmup,
                   int32_t iters, double *us);
    /* FLOP/s of an n x n x n single-precision GEMM (median of iters). */
    int (*gemm_flops)(struct bench *b, int32_t d, int32_t n, int32_t iters, double *flops);
    /* Bytes read + written per second by a device-local copy of `bytes`. */
    int (*mem_bw)(struct bench *b, int32_t d, int64_t bytes, int32_t iters, double *bytes_per_s);
    /* Overhead of launching an empty kernel / task and waiting for it (µs, median). */
    int (*launch_us)(struct bench *b, int32_t d, int32_t iters, double *us);
    /* Executes a replay program; fills r (initialised here). */
    int (*replay)(struct bench *b, const struct bench_program *p,
                  const struct bench_replay_opts *opt, struct bench_replay_result *r);
    /* Optional (NULL: not measured; the last member, so backends that do not
     * name it leave it NULL): a ring all-reduce of `bytes` over every open
     * device, median µs of `iters` after `warmup`.  CPU: coll_cpu.c, threads
     * over shared memory.  CUDA: NCCL's all-reduce (dlopen; bench_cuda.cu). */
    int (*allreduce_us)(struct bench *b, int64_t bytes, int32_t warmup, int32_t iters, double *us);
};

struct bench {
    const struct bench_ops *ops;
    void *impl;
    int32_t n_devices;
    int32_t *ids;     /* physical device ids, n_devices */
    char driver[64];  /* "CUDA driver 13.0", "" */
    char runtime[64]; /* "CUDA runtime 13.0", "pthreads" */
    char gemm[96];    /* what gemm_flops runs: "cuBLAS SGEMM (libcublas.so.13)", ... */
};

/*
 * Opens backend `name` ("cpu" or "cuda") on devices ids[0..n); n == 0 means
 * the default set (cpu: 2 host threads; cuda: every GPU).  The cuda backend
 * takes an id more than once: logical devices that share one GPU, each with
 * its own streams and memory pool (how a one-GPU machine replays a placement
 * on several devices).  Errors: BAECHI_EINVAL for an unknown name or device
 * id, BAECHI_EUNSUPPORTED when the backend is not in this build (cuda without
 * `make cuda`) or no GPU is present (the message says which).
 */
int bench_open(struct bench *b, const char *name, const int32_t *ids, int32_t n);

/* Parses a --devices list ("0,1,2", "0,0,0,0") into a new array; BAECHI_EINVAL
   with a message naming the list when it is not one. */
int bench_parse_devices(const char *s, int32_t **ids, int32_t *n);
void bench_close(struct bench *b);

/* The CPU backend's all-reduce (coll_cpu.c). */
int bench_cpu_allreduce_us(struct bench *b, int64_t bytes, int32_t warmup, int32_t iters,
                           double *us);

/* True when this build has the CUDA backend (built by `make cuda`). */
bool bench_have_cuda(void);

/* The backends (bench_cuda_ops only with HAVE_CUDA). */
extern const struct bench_ops bench_cpu_ops;
extern const struct bench_ops bench_cuda_ops;

/* Program building helpers (replay.c and tests): append a command; returns 0 or ENOMEM. */
int bench_program_add(struct bench_program *p, int which, const struct bench_cmd *c);
enum { BENCH_PART_SETUP = 0, BENCH_PART_STEP = 1, BENCH_PART_TEARDOWN = 2 };
/* Adds a buffer of `bytes` on device d; its id in *buf. */
int bench_program_add_buf(struct bench_program *p, int32_t d, int64_t bytes, int32_t *buf);
void bench_program_release(struct bench_program *p);

/* Monotonic clock in µs (CLOCK_MONOTONIC). */
double bench_now_us(void);

#endif
