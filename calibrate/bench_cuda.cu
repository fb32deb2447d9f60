/*
 * bench_cuda.cu - the CUDA backend of bench.h (built by `make cuda` only,
 * with HAVE_CUDA; see mk/calibrate.mk).
 *
 *   transfers   cudaMemcpyPeerAsync on a stream of the receiving device, timed
 *               by CUDA events; peer access is enabled where
 *               cudaDeviceCanAccessPeer says so ("peer (P2P)"), otherwise the
 *               driver stages the copy through host memory ("host-staged").
 *               deviation: the staging is the driver's, not our own pinned
 *               buffer; the path is reported per pair either way;
 *   GEMM        cuBLAS SGEMM, opened at run time with dlopen (so that the
 *               binary carries no link to a toolkit library and runs on a
 *               GPU machine without the toolkit's lib64 on its search path;
 *               BAECHI_CUBLAS names the library), else a 16x16 shared-memory
 *               tiled kernel; b->gemm says which ran;
 *   bandwidth   a float4 grid-stride copy kernel (bytes read + written);
 *   launch      back-to-back empty kernels, host time per launch;
 *   memory      cudaMemGetInfo (free bytes at open);
 *   all-reduce  NCCL's ncclAllReduce over every open GPU (one group, one
 *               communicator per GPU by ncclCommInitAll), opened with dlopen
 *               (BAECHI_NCCL names the library), timed by each GPU's events;
 *   logical     an id given twice is one more logical device on that GPU:
 *   devices     own streams, own memory pool, usable memory shared out; a
 *               copy between two of them is a device-to-device copy.  A
 *               one-GPU machine replays a placement on several devices this
 *               way (what it cannot measure is an interconnect);
 *   replay      3 non-blocking streams per device, one cudaEvent per program
 *               event, an explicit memory pool per (logical) device with
 *               cudaMallocFromPoolAsync / cudaFreeAsync per tensor lifetime
 *               (peak from the pool's UsedMemHigh), a spin kernel on
 *               %globaltimer for each op, calibrated by subtracting the
 *               measured duration of a zero-length spin.  Each step is held
 *               behind a gate (a spin on device 0 longer than the host's
 *               enqueue time) so the host's API calls are not timed; step time
 *               = CUDA events from the gate's end to the join of all streams.
 *
 * More streams than CUDA_DEVICE_MAX_CONNECTIONS (default 8) share hardware
 * queues and serialise falsely; cuda_open raises it to 32 unless it is set.
 * Every kernel launch is checked (cudaGetLastError): a binary without code
 * for the GPU fails loudly, not with zero-time spins.
 *
 * Compile-checked where nvcc exists; it has not run on a GPU yet (README).
 *
 * Part of baechi-c; see README.md for the licence.
 */
#ifndef _Noreturn
#define _Noreturn [[noreturn]] /* err.h is C11 */
#endif
extern "C" {
#include "calibrate/bench.h"
#include "calibrate/fit.h"
#include "core/alloc.h"
#include "core/err.h"
}

#include <cuda_runtime.h>
#include <dlfcn.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace
{

/* The four cuBLAS v2 entry points used, by their stable C ABI (status 0 is
   CUBLAS_STATUS_SUCCESS, operation 0 is CUBLAS_OP_N). */
typedef struct blas_context *blas_handle;
typedef int (*blas_create_fn)(blas_handle *);
typedef int (*blas_destroy_fn)(blas_handle);
typedef int (*blas_set_stream_fn)(blas_handle, cudaStream_t);
typedef int (*blas_sgemm_fn)(blas_handle, int, int, int, int, int, const float *, const float *,
                             int, const float *, int, const float *, float *, int);

struct blas_lib {
    void *dl = nullptr;
    blas_create_fn create = nullptr;
    blas_destroy_fn destroy = nullptr;
    blas_set_stream_fn set_stream = nullptr;
    blas_sgemm_fn sgemm = nullptr;
};

#ifndef BAECHI_CUDA_LIBDIR
#define BAECHI_CUDA_LIBDIR "/usr/local/cuda/lib64"
#endif

/* Opens cuBLAS; false (and a reason in why) when there is none to open. */
bool blas_load(blas_lib *l, char *path, size_t path_len, char *why, size_t why_len)
{
    const char *env = getenv("BAECHI_CUBLAS");
    const char *cand[] = {env,
                          "libcublas.so.13",
                          "libcublas.so.12",
                          "libcublas.so",
                          BAECHI_CUDA_LIBDIR "/libcublas.so.13",
                          BAECHI_CUDA_LIBDIR "/libcublas.so",
                          "/usr/local/cuda/lib64/libcublas.so.13",
                          "/usr/local/cuda/lib64/libcublas.so"};

    snprintf(why, why_len, "no libcublas found");
    for (const char *c : cand) {
        if (!c || !*c) {
            continue;
        }
        l->dl = dlopen(c, RTLD_NOW | RTLD_LOCAL);
        if (!l->dl) {
            if (c == env) {
                snprintf(why, why_len, "BAECHI_CUBLAS=%s: %s", env, dlerror());
                return false;
            }
            continue;
        }
        l->create = reinterpret_cast<blas_create_fn>(dlsym(l->dl, "cublasCreate_v2"));
        l->destroy = reinterpret_cast<blas_destroy_fn>(dlsym(l->dl, "cublasDestroy_v2"));
        l->set_stream = reinterpret_cast<blas_set_stream_fn>(dlsym(l->dl, "cublasSetStream_v2"));
        l->sgemm = reinterpret_cast<blas_sgemm_fn>(dlsym(l->dl, "cublasSgemm_v2"));
        if (l->create && l->destroy && l->set_stream && l->sgemm) {
            snprintf(path, path_len, "%s", c);
            return true;
        }
        snprintf(why, why_len, "%s lacks the cuBLAS v2 entry points", c);
        dlclose(l->dl);
        *l = blas_lib();
    }
    return false;
}

/*
 * NCCL, opened at run time like cuBLAS (BAECHI_NCCL names the library), for
 * the all-reduce benchmark.  Only the entry points it uses, by NCCL's stable
 * C ABI (nccl.h: ncclSuccess 0, ncclFloat32 7, ncclSum 0; ncclComm_t is a
 * pointer).  Compile-checked; it has not run on GPUs yet (docs/calibration.md).
 */
typedef struct nccl_context *nccl_comm;
typedef int (*nccl_init_all_fn)(nccl_comm *, int, const int *);
typedef int (*nccl_destroy_fn)(nccl_comm);
typedef int (*nccl_allreduce_fn)(const void *, void *, size_t, int, int, nccl_comm, cudaStream_t);
typedef int (*nccl_group_fn)(void);
typedef const char *(*nccl_error_fn)(int);
enum { NCCL_SUCCESS = 0, NCCL_FLOAT32 = 7, NCCL_SUM = 0 };

struct nccl_lib {
    void *dl = nullptr;
    nccl_init_all_fn init_all = nullptr;
    nccl_destroy_fn destroy = nullptr;
    nccl_allreduce_fn allreduce = nullptr;
    nccl_group_fn group_start = nullptr, group_end = nullptr;
    nccl_error_fn error = nullptr;
};

/* Opens NCCL; false (and a reason in why) when there is none to open. */
bool nccl_load(nccl_lib *l, char *why, size_t why_len)
{
    const char *env = getenv("BAECHI_NCCL");
    const char *cand[] = {env, "libnccl.so.2", "libnccl.so", BAECHI_CUDA_LIBDIR "/libnccl.so.2"};

    snprintf(why, why_len, "no libnccl found (BAECHI_NCCL names it)");
    for (const char *c : cand) {
        if (!c || !*c) {
            continue;
        }
        if (!(l->dl = dlopen(c, RTLD_NOW | RTLD_LOCAL))) {
            if (c == env) {
                snprintf(why, why_len, "BAECHI_NCCL=%s: %s", env, dlerror());
                return false;
            }
            continue;
        }
        l->init_all = reinterpret_cast<nccl_init_all_fn>(dlsym(l->dl, "ncclCommInitAll"));
        l->destroy = reinterpret_cast<nccl_destroy_fn>(dlsym(l->dl, "ncclCommDestroy"));
        l->allreduce = reinterpret_cast<nccl_allreduce_fn>(dlsym(l->dl, "ncclAllReduce"));
        l->group_start = reinterpret_cast<nccl_group_fn>(dlsym(l->dl, "ncclGroupStart"));
        l->group_end = reinterpret_cast<nccl_group_fn>(dlsym(l->dl, "ncclGroupEnd"));
        l->error = reinterpret_cast<nccl_error_fn>(dlsym(l->dl, "ncclGetErrorString"));
        if (l->init_all && l->destroy && l->allreduce && l->group_start && l->group_end &&
            l->error) {
            return true;
        }
        snprintf(why, why_len, "%s lacks the NCCL entry points", c);
        dlclose(l->dl);
        *l = nccl_lib();
    }
    return false;
}

struct cuda_impl {
    int n = 0;
    std::vector<int> dev;              /* physical ids */
    std::vector<cudaStream_t> stream;  /* one per device for calibration */
    std::vector<cudaEvent_t> ev0, ev1; /* timing events per device */
    std::vector<void *> buf_a, buf_b;  /* copy buffers per device */
    std::vector<size_t> buf_bytes;
    std::vector<char> peer; /* n*n: peer access enabled */
    blas_lib blas;
    std::vector<blas_handle> blas_h; /* per device; empty: the tiled kernel */
};

#define CU(call)                                                                                   \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != cudaSuccess) {                                                                   \
            return err_set(BAECHI_EUNSUPPORTED, "%s failed: %s", #call, cudaGetErrorString(e_));   \
        }                                                                                          \
    } while (0)

/* After a <<<...>>> launch: launch errors (no code for this GPU, bad configuration). */
#define LAUNCH_ERR(kernel, e)                                                                      \
    err_set(BAECHI_EUNSUPPORTED,                                                                   \
            "launching %s failed: %s (no code for this GPU? see CUDA_ARCH in mk/calibrate.mk)",    \
            kernel, cudaGetErrorString(e))
#define CU_LAUNCHED(kernel)                                                                        \
    do {                                                                                           \
        cudaError_t e_ = cudaGetLastError();                                                       \
        if (e_ != cudaSuccess) {                                                                   \
            return LAUNCH_ERR(kernel, e_);                                                         \
        }                                                                                          \
    } while (0)

__global__ void empty_kernel()
{
}

__device__ unsigned long long global_ns()
{
    unsigned long long t;

    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

__global__ void spin_kernel(unsigned long long ns)
{
    unsigned long long t0 = global_ns();

    while (global_ns() - t0 < ns) {
    }
}

__global__ void copy_kernel(const float4 *__restrict__ src, float4 *__restrict__ dst, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        dst[i] = src[i];
    }
}

/* the GEMM when cuBLAS cannot be opened */
#define TILE 16
__global__ void gemm_tiled(int n, const float *a, const float *b, float *c)
{
    __shared__ float as[TILE][TILE], bs[TILE][TILE];
    int row = blockIdx.y * TILE + threadIdx.y, col = blockIdx.x * TILE + threadIdx.x;
    float acc = 0;

    for (int t = 0; t < n; t += TILE) {
        as[threadIdx.y][threadIdx.x] =
            row < n && t + threadIdx.x < n ? a[(size_t)row * n + t + threadIdx.x] : 0.0f;
        bs[threadIdx.y][threadIdx.x] =
            col < n && t + threadIdx.y < n ? b[(size_t)(t + threadIdx.y) * n + col] : 0.0f;
        __syncthreads();
        for (int k = 0; k < TILE; k++) {
            acc += as[threadIdx.y][k] * bs[k][threadIdx.x];
        }
        __syncthreads();
    }
    if (row < n && col < n) {
        c[(size_t)row * n + col] = acc;
    }
}

cuda_impl *impl_of(struct bench *b)
{
    return static_cast<cuda_impl *>(b->impl);
}

void cuda_close(struct bench *b)
{
    cuda_impl *im = impl_of(b);

    if (!im) {
        return;
    }
    for (int d = 0; d < im->n; d++) {
        cudaSetDevice(im->dev[d]);
        if (im->buf_a[d]) {
            cudaFree(im->buf_a[d]);
        }
        if (im->buf_b[d]) {
            cudaFree(im->buf_b[d]);
        }
        if (im->stream[d]) {
            cudaStreamDestroy(im->stream[d]);
        }
        if (im->ev0[d]) {
            cudaEventDestroy(im->ev0[d]);
        }
        if (im->ev1[d]) {
            cudaEventDestroy(im->ev1[d]);
        }
        if (d < (int)im->blas_h.size() && im->blas_h[d]) {
            im->blas.destroy(im->blas_h[d]);
        }
    }
    if (im->blas.dl) {
        dlclose(im->blas.dl);
    }
    delete im;
    b->impl = nullptr;
}

/* cuBLAS handles on every device, or the tiled kernel (b->gemm says which). */
void open_blas(struct bench *b, cuda_impl *im)
{
    char path[256] = "", why[320] = "";

    if (!blas_load(&im->blas, path, sizeof(path), why, sizeof(why))) {
        snprintf(b->gemm, sizeof(b->gemm), "16x16 tiled kernel (%.70s)", why);
        return;
    }
    im->blas_h.assign(im->n, nullptr);
    for (int d = 0; d < im->n; d++) {
        cudaSetDevice(im->dev[d]);
        if (im->blas.create(&im->blas_h[d]) != 0 ||
            im->blas.set_stream(im->blas_h[d], im->stream[d]) != 0) {
            for (int k = 0; k <= d; k++) {
                if (im->blas_h[k]) {
                    im->blas.destroy(im->blas_h[k]);
                }
            }
            im->blas_h.clear();
            snprintf(b->gemm, sizeof(b->gemm), "16x16 tiled kernel (cublasCreate failed in %.50s)",
                     path);
            return;
        }
    }
    snprintf(b->gemm, sizeof(b->gemm), "cuBLAS SGEMM (%.80s)", path);
}

int cuda_open(struct bench *b, const int32_t *ids, int32_t n)
{
    int count = 0, drv = 0, rt = 0;
    cudaError_t e;
    cuda_impl *im;

    /* before the first CUDA call: the runtime reads it when it creates a context */
    setenv("CUDA_DEVICE_MAX_CONNECTIONS", "32", 0);
    e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess || count == 0) {
        return err_set(BAECHI_EUNSUPPORTED,
                       "no CUDA GPU on this machine (%s); the cuda backend needs one, "
                       "use --backend cpu",
                       e != cudaSuccess ? cudaGetErrorString(e) : "0 devices");
    }
    if (n == 0) {
        n = count;
    }
    for (int32_t i = 0; ids && i < n; i++) {
        if (ids[i] >= count) {
            return err_set(BAECHI_EINVAL, "GPU %d does not exist (this machine has %d)",
                           (int)ids[i], count);
        }
    }
    b->ids = static_cast<int32_t *>(mem_calloc((size_t)n, sizeof(int32_t)));
    if (!b->ids) {
        return err_set(BAECHI_ENOMEM, "out of memory opening the cuda backend");
    }
    im = new cuda_impl;
    b->impl = im;
    b->n_devices = n;
    im->n = n;
    im->dev.resize(n);
    im->stream.assign(n, nullptr);
    im->ev0.assign(n, nullptr);
    im->ev1.assign(n, nullptr);
    im->buf_a.assign(n, nullptr);
    im->buf_b.assign(n, nullptr);
    im->buf_bytes.assign(n, 0);
    im->peer.assign((size_t)n * n, 0);
    for (int d = 0; d < n; d++) {
        im->dev[d] = b->ids[d] = ids ? ids[d] : d;
    }
    for (int d = 0; d < n; d++) {
        CU(cudaSetDevice(im->dev[d]));
        CU(cudaStreamCreateWithFlags(&im->stream[d], cudaStreamNonBlocking));
        CU(cudaEventCreate(&im->ev0[d]));
        CU(cudaEventCreate(&im->ev1[d]));
        for (int s = 0; s < n; s++) {
            int can = 0;

            if (im->dev[s] == im->dev[d]) {
                continue; /* the same GPU: a device-to-device copy */
            }
            CU(cudaDeviceCanAccessPeer(&can, im->dev[d], im->dev[s]));
            if (can) {
                e = cudaDeviceEnablePeerAccess(im->dev[s], 0);
                if (e == cudaSuccess || e == cudaErrorPeerAccessAlreadyEnabled) {
                    im->peer[(size_t)s * n + d] = 1; /* d can read s: copies s -> d go direct */
                }
                cudaGetLastError();
            }
        }
    }
    open_blas(b, im);
    cudaDriverGetVersion(&drv);
    cudaRuntimeGetVersion(&rt);
    snprintf(b->driver, sizeof(b->driver), "CUDA driver %d.%d", drv / 1000, (drv % 1000) / 10);
    snprintf(b->runtime, sizeof(b->runtime), "CUDA runtime %d.%d", rt / 1000, (rt % 1000) / 10);
    return 0;
}

int cuda_device_info(struct bench *b, int32_t d, struct bench_device_info *out)
{
    cuda_impl *im = impl_of(b);
    cudaDeviceProp prop;
    size_t free_b = 0, total_b = 0;
    int share = 0, rank = 0; /* logical devices on this GPU; d's 1-based rank among them */

    memset(out, 0, sizeof(*out));
    for (int k = 0; k < im->n; k++) {
        share += im->dev[k] == im->dev[d];
        rank += im->dev[k] == im->dev[d] && k <= d;
    }
    CU(cudaGetDeviceProperties(&prop, im->dev[d]));
    CU(cudaSetDevice(im->dev[d]));
    CU(cudaMemGetInfo(&free_b, &total_b));
    if (share > 1) {
        /* logical devices share the GPU's memory out evenly */
        snprintf(out->name, sizeof(out->name), "%.90s (logical %d of %d)", prop.name, rank, share);
        free_b /= (size_t)share;
        total_b /= (size_t)share;
    } else {
        snprintf(out->name, sizeof(out->name), "%.127s", prop.name);
    }
    out->mem_total_bytes = (int64_t)total_b;
    out->mem_usable_bytes = (int64_t)free_b;
    return 0;
}

const char *cuda_copy_path(struct bench *b, int32_t src, int32_t dst)
{
    cuda_impl *im = impl_of(b);

    if (im->dev[src] == im->dev[dst]) {
        return "same GPU (device-to-device)";
    }
    return im->peer[(size_t)src * im->n + dst] ? "peer (P2P)" : "host-staged (driver)";
}

int ensure_bufs(cuda_impl *im, int d, size_t bytes)
{
    if (im->buf_bytes[d] >= bytes) {
        return 0;
    }
    CU(cudaSetDevice(im->dev[d]));
    if (im->buf_a[d]) {
        cudaFree(im->buf_a[d]);
        im->buf_a[d] = nullptr;
    }
    if (im->buf_b[d]) {
        cudaFree(im->buf_b[d]);
        im->buf_b[d] = nullptr;
    }
    im->buf_bytes[d] = 0;
    CU(cudaMalloc(&im->buf_a[d], bytes));
    CU(cudaMalloc(&im->buf_b[d], bytes));
    CU(cudaMemset(im->buf_a[d], 1, bytes));
    CU(cudaMemset(im->buf_b[d], 2, bytes));
    im->buf_bytes[d] = bytes;
    return 0;
}

int cuda_copy_us(struct bench *b, int32_t src, int32_t dst, int64_t bytes, int32_t warmup,
                 int32_t iters, double *us)
{
    cuda_impl *im = impl_of(b);
    cudaStream_t st = im->stream[dst];
    int rc;

    if ((rc = ensure_bufs(im, src, (size_t)bytes)) != 0 ||
        (rc = ensure_bufs(im, dst, (size_t)bytes)) != 0) {
        return rc;
    }
    CU(cudaSetDevice(im->dev[dst]));
    for (int32_t i = 0; i < warmup + iters; i++) {
        float ms = 0;

        CU(cudaEventRecord(im->ev0[dst], st));
        CU(cudaMemcpyPeerAsync(im->buf_b[dst], im->dev[dst], im->buf_a[src], im->dev[src],
                               (size_t)bytes, st));
        CU(cudaEventRecord(im->ev1[dst], st));
        CU(cudaEventSynchronize(im->ev1[dst]));
        CU(cudaEventElapsedTime(&ms, im->ev0[dst], im->ev1[dst]));
        if (i >= warmup) {
            us[i - warmup] = 1e3 * ms;
        }
    }
    return 0;
}

int cuda_gemm_flops(struct bench *b, int32_t d, int32_t n, int32_t iters, double *flops)
{
    cuda_impl *im = impl_of(b);
    size_t nn = (size_t)n * n;
    float *a = nullptr, *bm = nullptr, *c = nullptr;
    std::vector<double> t(iters > 0 ? iters : 1);
    const float one = 1.0f, zero = 0.0f;
    int rc = 0;
    cudaError_t e;

    if (n <= 0 || iters <= 0) {
        return err_set(BAECHI_EINVAL, "bad GEMM size %d or iterations %d", (int)n, (int)iters);
    }
    CU(cudaSetDevice(im->dev[d]));
    if ((e = cudaMalloc(&a, nn * sizeof(float))) != cudaSuccess ||
        (e = cudaMalloc(&bm, nn * sizeof(float))) != cudaSuccess ||
        (e = cudaMalloc(&c, nn * sizeof(float))) != cudaSuccess) {
        rc = err_set(BAECHI_ENOMEM, "cannot allocate a %d x %d GEMM on GPU %d: %s", (int)n, (int)n,
                     im->dev[d], cudaGetErrorString(e));
        goto cleanup;
    }
    cudaMemset(a, 0, nn * sizeof(float));
    cudaMemset(bm, 0, nn * sizeof(float));
    for (int32_t i = -1; i < iters; i++) { /* i == -1: warm-up */
        float ms = 0;

        cudaEventRecord(im->ev0[d], im->stream[d]);
        if (!im->blas_h.empty()) {
            if (im->blas.sgemm(im->blas_h[d], 0, 0, n, n, n, &one, a, n, bm, n, &zero, c, n) != 0) {
                rc = err_set(BAECHI_EUNSUPPORTED, "cublasSgemm (n = %d) failed on GPU %d", (int)n,
                             im->dev[d]);
                goto cleanup;
            }
        } else {
            gemm_tiled<<<dim3((n + TILE - 1) / TILE, (n + TILE - 1) / TILE), dim3(TILE, TILE), 0,
                         im->stream[d]>>>(n, a, bm, c);
            if ((e = cudaGetLastError()) != cudaSuccess) {
                rc = LAUNCH_ERR("gemm_tiled", e);
                goto cleanup;
            }
        }
        cudaEventRecord(im->ev1[d], im->stream[d]);
        if ((e = cudaEventSynchronize(im->ev1[d])) != cudaSuccess) {
            rc = err_set(BAECHI_EUNSUPPORTED, "GEMM on GPU %d failed: %s", im->dev[d],
                         cudaGetErrorString(e));
            goto cleanup;
        }
        cudaEventElapsedTime(&ms, im->ev0[d], im->ev1[d]);
        if (i >= 0) {
            t[i] = 1e3 * ms;
        }
    }
    *flops = 2.0 * n * (double)n * n / (fit_median(t.data(), iters) * 1e-6);
cleanup:
    cudaFree(a);
    cudaFree(bm);
    cudaFree(c);
    return rc;
}

int cuda_mem_bw(struct bench *b, int32_t d, int64_t bytes, int32_t iters, double *bytes_per_s)
{
    cuda_impl *im = impl_of(b);
    size_t n4 = (size_t)bytes / sizeof(float4);
    std::vector<double> t(iters > 0 ? iters : 1);
    int rc;

    if (iters <= 0 || n4 == 0) {
        return err_set(BAECHI_EINVAL, "bad bandwidth run (%lld bytes)", (long long)bytes);
    }
    if ((rc = ensure_bufs(im, d, n4 * sizeof(float4))) != 0) {
        return rc;
    }
    CU(cudaSetDevice(im->dev[d]));
    for (int32_t i = -1; i < iters; i++) {
        float ms = 0;

        CU(cudaEventRecord(im->ev0[d], im->stream[d]));
        copy_kernel<<<1024, 256, 0, im->stream[d]>>>(static_cast<const float4 *>(im->buf_a[d]),
                                                     static_cast<float4 *>(im->buf_b[d]), n4);
        CU_LAUNCHED("copy_kernel");
        CU(cudaEventRecord(im->ev1[d], im->stream[d]));
        CU(cudaEventSynchronize(im->ev1[d]));
        CU(cudaEventElapsedTime(&ms, im->ev0[d], im->ev1[d]));
        if (i >= 0) {
            t[i] = 1e3 * ms;
        }
    }
    *bytes_per_s = 2.0 * (double)(n4 * sizeof(float4)) / (fit_median(t.data(), iters) * 1e-6);
    return 0;
}

int cuda_launch_us(struct bench *b, int32_t d, int32_t iters, double *us)
{
    cuda_impl *im = impl_of(b);
    const int batch = 5;
    std::vector<double> t(batch);

    if (iters <= 0) {
        return err_set(BAECHI_EINVAL, "launch overhead needs >= 1 iteration");
    }
    CU(cudaSetDevice(im->dev[d]));
    empty_kernel<<<1, 1, 0, im->stream[d]>>>();
    CU_LAUNCHED("empty_kernel");
    CU(cudaStreamSynchronize(im->stream[d]));
    for (int k = 0; k < batch; k++) {
        double t0 = bench_now_us();

        for (int32_t i = 0; i < iters; i++) {
            empty_kernel<<<1, 1, 0, im->stream[d]>>>();
        }
        CU_LAUNCHED("empty_kernel");
        CU(cudaStreamSynchronize(im->stream[d]));
        t[k] = (bench_now_us() - t0) / iters;
    }
    *us = fit_median(t.data(), batch);
    return 0;
}

/* ------------------------------------------------------------------------
 * Replay.
 * ---------------------------------------------------------------------- */
struct replay_state {
    std::vector<cudaStream_t> stream; /* n_devices * 3 */
    std::vector<cudaEvent_t> event;   /* program events */
    std::vector<cudaEvent_t> join;    /* one per stream */
    std::vector<void *> ptr;          /* buffers */
    std::vector<cudaMemPool_t> pool;  /* one per (logical) device */
    cudaEvent_t gate = nullptr, start = nullptr, stop = nullptr;
};

int rs_exec(cuda_impl *im, const struct bench_program *p, replay_state &s,
            const struct bench_cmd &c, double spin_overhead_us)
{
    cudaStream_t st = s.stream[c.stream];
    int dev = im->dev[c.stream / BENCH_STREAMS_PER_DEVICE];
    double us;

    CU(cudaSetDevice(dev));
    switch (c.kind) {
    case BENCH_ALLOC:
        if (!s.ptr[c.buf] && p->buf_bytes[c.buf] > 0) {
            /* the buffer's own device's pool, whichever stream orders it */
            CU(cudaMallocFromPoolAsync(&s.ptr[c.buf], (size_t)p->buf_bytes[c.buf],
                                       s.pool[p->buf_device[c.buf]], st));
        }
        break;
    case BENCH_FREE:
        if (s.ptr[c.buf]) {
            CU(cudaFreeAsync(s.ptr[c.buf], st));
            s.ptr[c.buf] = nullptr;
        }
        break;
    case BENCH_SPIN:
        us = std::max(0.0, c.us - spin_overhead_us);
        spin_kernel<<<1, 1, 0, st>>>((unsigned long long)(us * 1e3));
        CU_LAUNCHED("spin_kernel");
        break;
    case BENCH_COPY:
        if (c.src_buf >= 0 && s.ptr[c.buf] && s.ptr[c.src_buf]) {
            size_t n = (size_t)std::min(p->buf_bytes[c.buf], p->buf_bytes[c.src_buf]);

            CU(cudaMemcpyPeerAsync(s.ptr[c.buf], dev, s.ptr[c.src_buf],
                                   im->dev[p->buf_device[c.src_buf]], n, st));
        }
        break;
    case BENCH_RECORD:
        CU(cudaEventRecord(s.event[c.event], st));
        break;
    case BENCH_WAIT:
        CU(cudaStreamWaitEvent(st, s.event[c.event], 0));
        break;
    default:
        break;
    }
    return 0;
}

/* A pool per (logical) device, readable by the GPUs with peer access to it. */
int make_pools(cuda_impl *im, int32_t n_devices, replay_state &s)
{
    uint64_t keep = UINT64_MAX;

    s.pool.assign(n_devices, nullptr);
    for (int32_t d = 0; d < n_devices; d++) {
        cudaMemPoolProps props;

        memset(&props, 0, sizeof(props));
        props.allocType = cudaMemAllocationTypePinned;
        props.location.type = cudaMemLocationTypeDevice;
        props.location.id = im->dev[d];
        CU(cudaSetDevice(im->dev[d]));
        CU(cudaMemPoolCreate(&s.pool[d], &props));
        /* keep freed memory in the pool: no OS round trip per step */
        CU(cudaMemPoolSetAttribute(s.pool[d], cudaMemPoolAttrReleaseThreshold, &keep));
        for (int32_t k = 0; k < n_devices; k++) {
            cudaMemAccessDesc acc;

            if (im->dev[k] == im->dev[d] || !im->peer[(size_t)d * im->n + k]) {
                continue;
            }
            /* pool memory ignores cudaDeviceEnablePeerAccess: grant it per pool */
            memset(&acc, 0, sizeof(acc));
            acc.location.type = cudaMemLocationTypeDevice;
            acc.location.id = im->dev[k];
            acc.flags = cudaMemAccessFlagsProtReadWrite;
            CU(cudaMemPoolSetAccess(s.pool[d], &acc, 1));
        }
    }
    return 0;
}

int cuda_replay(struct bench *b, const struct bench_program *p, const struct bench_replay_opts *opt,
                struct bench_replay_result *r)
{
    cuda_impl *im = impl_of(b);
    replay_state s;
    int32_t n_streams = p->n_devices * BENCH_STREAMS_PER_DEVICE, total;
    std::vector<int> event_dev(p->n_events, -1);
    double spin_overhead_us = 0, gate_us = 2000, enqueue_us = 0, median_us;
    cudaStream_t origin;
    int rc = 0;

    memset(r, 0, sizeof(*r));
    if (p->n_devices > b->n_devices) {
        return err_set(BAECHI_EINVAL, "the program needs %d GPUs, %d are open", (int)p->n_devices,
                       (int)b->n_devices);
    }
    if (opt->steps < 1 || opt->warmup < 0) {
        return err_set(BAECHI_EINVAL, "replay needs >= 1 measured step");
    }
    total = opt->warmup + opt->steps;
    r->n_steps = opt->steps;
    r->n_devices = p->n_devices;
    r->step_us = static_cast<double *>(mem_calloc((size_t)opt->steps, sizeof(double)));
    r->peak_bytes = static_cast<int64_t *>(mem_calloc((size_t)p->n_devices, sizeof(int64_t)));
    if (!r->step_us || !r->peak_bytes) {
        bench_replay_result_release(r);
        return err_set(BAECHI_ENOMEM, "out of memory");
    }
    for (size_t i = 0; i < p->n_cmd; i++) {
        if (p->cmd[i].kind == BENCH_RECORD) {
            event_dev[p->cmd[i].event] = p->cmd[i].stream / BENCH_STREAMS_PER_DEVICE;
        }
    }
    s.stream.assign(n_streams, nullptr);
    s.join.assign(n_streams, nullptr);
    s.event.assign(p->n_events, nullptr);
    s.ptr.assign(p->n_bufs, nullptr);
#define RCU(call)                                                                                  \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != cudaSuccess) {                                                                   \
            rc = err_set(BAECHI_EUNSUPPORTED, "%s failed: %s", #call, cudaGetErrorString(e_));     \
            goto cleanup;                                                                          \
        }                                                                                          \
    } while (0)
    for (int32_t i = 0; i < n_streams; i++) {
        RCU(cudaSetDevice(im->dev[i / BENCH_STREAMS_PER_DEVICE]));
        RCU(cudaStreamCreateWithFlags(&s.stream[i], cudaStreamNonBlocking));
        RCU(cudaEventCreateWithFlags(&s.join[i], cudaEventDisableTiming));
    }
    for (int32_t e = 0; e < p->n_events; e++) {
        RCU(cudaSetDevice(im->dev[event_dev[e] >= 0 ? event_dev[e] : 0]));
        RCU(cudaEventCreateWithFlags(&s.event[e], cudaEventDisableTiming));
    }
    /* fresh pools: their high-water marks cover this replay only, persistent
       memory and every step (as the cpu backend counts) */
    if ((rc = make_pools(im, p->n_devices, s)) != 0) {
        goto cleanup;
    }
    origin = s.stream[0];
    RCU(cudaSetDevice(im->dev[0]));
    RCU(cudaEventCreateWithFlags(&s.gate, cudaEventDisableTiming));
    RCU(cudaEventCreate(&s.start));
    RCU(cudaEventCreate(&s.stop));
    /* spin calibration: what a zero-length spin costs in a busy stream */
    {
        float ms = 0;

        spin_kernel<<<1, 1, 0, origin>>>(0);
        RCU(cudaGetLastError());
        RCU(cudaEventRecord(s.start, origin));
        for (int i = 0; i < 100; i++) {
            spin_kernel<<<1, 1, 0, origin>>>(0);
        }
        RCU(cudaGetLastError());
        RCU(cudaEventRecord(s.stop, origin));
        RCU(cudaEventSynchronize(s.stop));
        RCU(cudaEventElapsedTime(&ms, s.start, s.stop));
        spin_overhead_us = 1e3 * ms / 100;
    }
    for (size_t i = 0; i < p->n_setup; i++) {
        if ((rc = rs_exec(im, p, s, p->setup[i], spin_overhead_us)) != 0) {
            goto cleanup;
        }
    }
    for (int32_t k = 0; k < total; k++) {
        double t0, t_enq;
        float ms = 0;

        RCU(cudaSetDevice(im->dev[0]));
        spin_kernel<<<1, 1, 0, origin>>>((unsigned long long)(gate_us * 1e3));
        RCU(cudaGetLastError());
        RCU(cudaEventRecord(s.gate, origin));
        RCU(cudaEventRecord(s.start, origin));
        t0 = bench_now_us();
        for (int32_t i = 1; i < n_streams; i++) {
            RCU(cudaStreamWaitEvent(s.stream[i], s.gate, 0));
        }
        for (size_t i = 0; i < p->n_cmd; i++) {
            if ((rc = rs_exec(im, p, s, p->cmd[i], spin_overhead_us)) != 0) {
                goto cleanup;
            }
        }
        for (int32_t i = 1; i < n_streams; i++) {
            RCU(cudaSetDevice(im->dev[i / BENCH_STREAMS_PER_DEVICE]));
            RCU(cudaEventRecord(s.join[i], s.stream[i]));
            RCU(cudaSetDevice(im->dev[0]));
            RCU(cudaStreamWaitEvent(origin, s.join[i], 0));
        }
        RCU(cudaSetDevice(im->dev[0]));
        RCU(cudaEventRecord(s.stop, origin));
        t_enq = bench_now_us() - t0;
        /* The next gate covers the host's enqueue time with a margin, so that
           the GPU does not wait for the host at the start of a step.  Where
           the driver's launch queue is shorter than a step (thousands of
           commands), the host blocks in it until the gate opens and enqueues
           the rest while the GPU runs; it stays ahead as long as enqueueing
           is faster than running, which enqueue_us / step_us tells. */
        gate_us = std::min(std::max(gate_us, 2.0 * t_enq + 500.0), 1e6);
        RCU(cudaEventSynchronize(s.stop));
        RCU(cudaEventElapsedTime(&ms, s.start, s.stop));
        if (k >= opt->warmup) {
            r->step_us[k - opt->warmup] = 1e3 * ms;
            enqueue_us = std::max(enqueue_us, t_enq);
        }
    }
    for (int32_t d = 0; d < p->n_devices; d++) {
        uint64_t high = 0;

        RCU(cudaSetDevice(im->dev[d]));
        RCU(cudaDeviceSynchronize());
        RCU(cudaMemPoolGetAttribute(s.pool[d], cudaMemPoolAttrUsedMemHigh, &high));
        r->peak_bytes[d] = (int64_t)high;
    }
    for (size_t i = 0; i < p->n_teardown; i++) {
        if ((rc = rs_exec(im, p, s, p->teardown[i], spin_overhead_us)) != 0) {
            goto cleanup;
        }
    }
    median_us = fit_median(r->step_us, r->n_steps);
    snprintf(r->note, sizeof(r->note),
             "cuda backend: spin kernels on %%globaltimer minus %.2f us overhead, "
             "cudaMemcpyPeerAsync, a memory pool per device (peaks at pool granularity), "
             "gate %.0f us, host enqueue <= %.0f us per step (%.0f %% of the median step)",
             spin_overhead_us, gate_us, enqueue_us,
             median_us > 0 ? 100.0 * enqueue_us / median_us : 0.0);
    if (enqueue_us > 0.5 * median_us) {
        err_warn("the host needed %.0f us to enqueue a step the GPU ran in %.0f us: the "
                 "measured step may include time the GPU waited for the host",
                 enqueue_us, median_us);
    }
cleanup:
#undef RCU
    for (int32_t d = 0; d < p->n_devices; d++) {
        cudaSetDevice(im->dev[d]);
        cudaDeviceSynchronize();
    }
    for (size_t i = 0; i < s.ptr.size(); i++) {
        if (s.ptr[i]) {
            cudaSetDevice(im->dev[p->buf_device[i]]);
            cudaFree(s.ptr[i]);
        }
    }
    for (size_t i = 0; i < s.stream.size(); i++) {
        if (s.stream[i]) {
            cudaStreamDestroy(s.stream[i]);
        }
        if (s.join[i]) {
            cudaEventDestroy(s.join[i]);
        }
    }
    for (cudaEvent_t e : s.event) {
        if (e) {
            cudaEventDestroy(e);
        }
    }
    for (cudaMemPool_t pl : s.pool) {
        if (pl) {
            cudaMemPoolDestroy(pl);
        }
    }
    if (s.gate) {
        cudaEventDestroy(s.gate);
    }
    if (s.start) {
        cudaEventDestroy(s.start);
    }
    if (s.stop) {
        cudaEventDestroy(s.stop);
    }
    if (rc) {
        bench_replay_result_release(r);
    }
    return rc;
}

/* One all-reduce of `count` floats on every device's stream, as one NCCL
 * group; the time is the slowest device's, by its own events. */
int nccl_round(cuda_impl *im, nccl_lib *l, std::vector<nccl_comm> &comm, size_t count, double *ms)
{
    int r;

    for (int d = 0; d < im->n; d++) {
        CU(cudaSetDevice(im->dev[d]));
        CU(cudaEventRecord(im->ev0[d], im->stream[d]));
    }
    if ((r = l->group_start()) != NCCL_SUCCESS) {
        return err_set(BAECHI_EUNSUPPORTED, "ncclGroupStart: %s", l->error(r));
    }
    for (int d = 0; d < im->n; d++) {
        cudaSetDevice(im->dev[d]);
        r = l->allreduce(im->buf_a[d], im->buf_b[d], count, NCCL_FLOAT32, NCCL_SUM, comm[d],
                         im->stream[d]);
        if (r != NCCL_SUCCESS) {
            l->group_end();
            return err_set(BAECHI_EUNSUPPORTED, "ncclAllReduce on GPU %d: %s", im->dev[d],
                           l->error(r));
        }
    }
    if ((r = l->group_end()) != NCCL_SUCCESS) {
        return err_set(BAECHI_EUNSUPPORTED, "ncclGroupEnd: %s", l->error(r));
    }
    *ms = 0;
    for (int d = 0; d < im->n; d++) {
        float t;

        CU(cudaSetDevice(im->dev[d]));
        CU(cudaEventRecord(im->ev1[d], im->stream[d]));
        CU(cudaEventSynchronize(im->ev1[d]));
        CU(cudaEventElapsedTime(&t, im->ev0[d], im->ev1[d]));
        *ms = std::max(*ms, (double)t);
    }
    return 0;
}

/*
 * bench_ops.allreduce_us: NCCL's all-reduce (its own choice of ring or tree)
 * of `bytes` over every open device, median of `iters` after `warmup`.
 * NCCL needs distinct GPUs: logical devices sharing one are refused.
 */
int cuda_allreduce_us(struct bench *b, int64_t bytes, int32_t warmup, int32_t iters, double *us)
{
    cuda_impl *im = static_cast<cuda_impl *>(b->impl);
    size_t count = bytes > 4 ? (size_t)bytes / sizeof(float) : 1;
    std::vector<nccl_comm> comm;
    std::vector<double> t;
    nccl_lib l;
    char why[256];
    int rc = 0, r;

    if (im->n < 2 || iters < 1 || bytes < 0) {
        return err_set(BAECHI_EINVAL, "all-reduce benchmark: %d devices, %d iterations", im->n,
                       iters);
    }
    for (int d = 0; d < im->n; d++) {
        for (int e = 0; e < d; e++) {
            if (im->dev[d] == im->dev[e]) {
                return err_set(BAECHI_EUNSUPPORTED,
                               "all-reduce: NCCL needs distinct GPUs, GPU %d is given twice",
                               im->dev[d]);
            }
        }
        if ((rc = ensure_bufs(im, d, count * sizeof(float))) != 0) {
            return rc;
        }
    }
    if (!nccl_load(&l, why, sizeof(why))) {
        return err_set(BAECHI_EUNSUPPORTED, "all-reduce: %s", why);
    }
    comm.assign((size_t)im->n, nullptr);
    if ((r = l.init_all(comm.data(), im->n, im->dev.data())) != NCCL_SUCCESS) {
        rc = err_set(BAECHI_EUNSUPPORTED, "ncclCommInitAll over %d GPUs: %s", im->n, l.error(r));
        comm.clear();
    }
    for (int32_t k = 0; !rc && k < warmup + iters; k++) {
        double ms;

        if ((rc = nccl_round(im, &l, comm, count, &ms)) == 0 && k >= warmup) {
            t.push_back(ms * 1e3);
        }
    }
    for (nccl_comm c : comm) {
        if (c) {
            l.destroy(c);
        }
    }
    dlclose(l.dl);
    if (rc) {
        return rc;
    }
    std::sort(t.begin(), t.end());
    *us = t.size() % 2 ? t[t.size() / 2] : (t[t.size() / 2 - 1] + t[t.size() / 2]) / 2;
    return 0;
}

} /* namespace */

extern "C" const struct bench_ops bench_cuda_ops = {
    "cuda",       cuda_open,       cuda_close,  cuda_device_info, cuda_copy_path,
    cuda_copy_us, cuda_gemm_flops, cuda_mem_bw, cuda_launch_us,   cuda_replay,
    cuda_allreduce_us,
};
