/*
 * devices.c - the datasheet table of GPU kinds (see devices.h and
 * docs/devices.md, which cites the same documents row by row).
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "workloads/devices.h"

#include <string.h>
#include <strings.h>

#define T 1e12

/*
 * Every number is a datasheet number of the board, not a measurement
 * (docs/devices.md gives the same table with its sources).  Tensor-core
 * figures are dense: the datasheets of A100, H100 and H200 print the 2:4
 * sparsity figure with an asterisk, twice the dense one, which is the one
 * here.  Columns: FP32 (CUDA cores), TF32, FP16, BF16, FP8 (tensor cores);
 * 0 where the kind has no such unit.
 *
 * - rtx2080: NVIDIA Turing GPU Architecture whitepaper (WP-09183-001),
 *   Appendix A, GeForce RTX 2080 at the reference boost clock 1,710 MHz:
 *   FP32 10.07 TFLOP/s (2,944 cores x 2 x 1.71 GHz), FP16 tensor with FP32
 *   accumulate 40.3 TFLOP/s (GeForce parts run it at half the FP16-accumulate
 *   rate of 80.5; training accumulates in FP32), 448 GB/s GDDR6.
 * - p100: NVIDIA Tesla P100 datasheet, SXM2 (NVLink) column: FP32 10.6,
 *   FP16 21.2 TFLOP/s (packed half2 on the CUDA cores: no tensor cores),
 *   732 GB/s HBM2.
 * - v100: NVIDIA Tesla V100 datasheet, SXM2 column: FP32 15.7, Tensor
 *   Performance 125 TFLOP/s (FP16 products, FP32 accumulate), 900 GB/s.
 * - a100: NVIDIA A100 Tensor Core GPU datasheet, A100 80GB SXM column:
 *   FP32 19.5, TF32 156, BF16 312, FP16 312 TFLOP/s, 2,039 GB/s HBM2e.
 * - a100-pcie: the same datasheet, A100 40GB PCIe column: the same rates,
 *   1,555 GB/s HBM2.
 * - h100: NVIDIA H100 Tensor Core GPU datasheet, H100 SXM column: FP32 67,
 *   TF32 989*, BF16 1,979*, FP16 1,979*, FP8 3,958* TFLOP/s with sparsity,
 *   i.e. dense 494.7, 989.4, 989.4, 1,978.9 (NVIDIA H100 Tensor Core GPU
 *   Architecture whitepaper, table 3, H100 SXM5), 3.35 TB/s HBM3.
 * - h200: NVIDIA H200 Tensor Core GPU datasheet, H200 SXM column: the same
 *   compute as H100 SXM (FP32 67, TF32 989*, BF16/FP16 1,979*, FP8 3,958*),
 *   4.8 TB/s HBM3e.
 */
static const struct devices_kind kinds[] = {
    {"rtx2080",
     "GeForce RTX 2080",
     "NVIDIA Turing GPU Architecture whitepaper, appendix A",
     {10.07 * T, 0, 40.3 * T, 0, 0},
     448e9,
     1},
    {"p100",
     "Tesla P100 SXM2",
     "NVIDIA Tesla P100 datasheet",
     {10.6 * T, 0, 21.2 * T, 0, 0},
     732e9,
     0},
    {"v100",
     "Tesla V100 SXM2",
     "NVIDIA Tesla V100 datasheet",
     {15.7 * T, 0, 125 * T, 0, 0},
     900e9,
     1},
    {"a100",
     "A100 80GB SXM",
     "NVIDIA A100 Tensor Core GPU datasheet",
     {19.5 * T, 156 * T, 312 * T, 312 * T, 0},
     2039e9,
     1},
    {"a100-pcie",
     "A100 40GB PCIe",
     "NVIDIA A100 Tensor Core GPU datasheet",
     {19.5 * T, 156 * T, 312 * T, 312 * T, 0},
     1555e9,
     1},
    {"h100",
     "H100 SXM5 80GB",
     "NVIDIA H100 Tensor Core GPU datasheet and architecture whitepaper",
     {67 * T, 494.7 * T, 989.4 * T, 989.4 * T, 1978.9 * T},
     3.35e12,
     1},
    {"h200",
     "H200 SXM 141GB",
     "NVIDIA H200 Tensor Core GPU datasheet",
     {67 * T, 494.7 * T, 989.4 * T, 989.4 * T, 1978.9 * T},
     4.8e12,
     1},
};

static const char *const names[] = {"rtx2080",   "p100", "v100", "a100",
                                    "a100-pcie", "h100", "h200", NULL};

_Static_assert(sizeof(kinds) / sizeof(kinds[0]) == sizeof(names) / sizeof(names[0]) - 1,
               "one name per kind");

static const char *const dtype_names[DEVICES_N_DTYPES] = {"fp32", "tf32", "fp16", "bf16", "fp8"};

const char *const *devices_names(void)
{
    return names;
}

const struct devices_kind *devices_find(const char *kind)
{
    const struct devices_kind *best = NULL;
    size_t best_len = 0;

    if (!kind) {
        return NULL;
    }
    for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
        size_t n = strlen(kinds[i].name);

        if (strncasecmp(kinds[i].name, kind, n) != 0 || (kind[n] != '\0' && kind[n] != '-')) {
            continue;
        }
        if (kind[n] == '\0') {
            return &kinds[i]; /* exact */
        }
        if (n > best_len) {
            best = &kinds[i];
            best_len = n;
        }
    }
    return best;
}

const char *devices_dtype_name(enum devices_dtype t)
{
    return (unsigned)t < DEVICES_N_DTYPES ? dtype_names[t] : "?";
}

int devices_dtype_parse(const char *name)
{
    for (int i = 0; name && i < DEVICES_N_DTYPES; i++) {
        if (strcasecmp(dtype_names[i], name) == 0) {
            return i;
        }
    }
    return -1;
}

enum devices_dtype devices_dtype_of_elem(int elem_bytes)
{
    return elem_bytes == 1 ? DEVICES_FP8 : elem_bytes == 2 ? DEVICES_FP16 : DEVICES_FP32;
}
