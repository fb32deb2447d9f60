/*
 * devices.h - the one table of GPU kinds the cost model knows: per kind the
 * datasheet peak rates per data type (FP32 on the CUDA cores; TF32,
 * FP16/BF16 and FP8 on the tensor cores, dense, i.e. without the 2:4
 * sparsity figures) and the memory bandwidth.  The `--device` presets and the
 * cluster kinds (`kind: h100-sxm5-80gb` in data/clusters/) both read it;
 * every number is cited in devices.c and docs/devices.md.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#ifndef BAECHI_WORKLOADS_DEVICES_H
#define BAECHI_WORKLOADS_DEVICES_H

#include <stddef.h>

/* The data types an op's arithmetic runs in. */
enum devices_dtype {
    DEVICES_FP32 = 0, /* IEEE single precision on the CUDA cores */
    DEVICES_TF32,     /* fp32 data, tensor-core products with a 10-bit mantissa */
    DEVICES_FP16,     /* half precision on the tensor cores */
    DEVICES_BF16,     /* bfloat16 on the tensor cores */
    DEVICES_FP8,      /* E4M3/E5M2 on the tensor cores (Hopper) */
};
#define DEVICES_N_DTYPES (DEVICES_FP8 + 1)

struct devices_kind {
    const char *name;               /* "h100": the preset name, and the stem of cluster kinds */
    const char *product;            /* the product the numbers are for ("H100 SXM5 80GB") */
    const char *source;             /* the datasheet the numbers come from */
    double flops[DEVICES_N_DTYPES]; /* peak FLOP/s per data type, dense; 0 = no such unit */
    double mem_bw_bytes_per_s;      /* memory bandwidth of the board, bytes/s */
    int tensor_cores;               /* 1: non-FP32 products run on tensor cores */
};

/* NULL-terminated list of the kinds' names, table order. */
const char *const *devices_names(void);

/*
 * The kind `kind` names, case-insensitive: an exact name ("a100-pcie"), else
 * the longest name that `kind` starts with followed by '-' ("a100-pcie-40gb"
 * is a100-pcie, "h100-sxm5-80gb" h100).  NULL when none.  O(kinds).
 */
const struct devices_kind *devices_find(const char *kind);

/* "fp32", "tf32", "fp16", "bf16", "fp8". */
const char *devices_dtype_name(enum devices_dtype t);

/* The data type named `name` (case-insensitive); -1 when none. */
int devices_dtype_parse(const char *name);

/*
 * The data type of data `elem_bytes` wide: 1 fp8, 2 fp16 (bf16 runs at the
 * same rate on every kind that has it), anything else fp32.
 */
enum devices_dtype devices_dtype_of_elem(int elem_bytes);

#endif
