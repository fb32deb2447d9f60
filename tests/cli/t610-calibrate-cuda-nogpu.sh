#!/bin/sh
# t610: `--backend cuda` without a GPU (or in a build without CUDA) says so
# clearly and exits 2; build/baechi-cuda (from `make cuda`) is tried too
# when it was built and no GPU is present.
. "$TOP/tests/cli/lib.sh"

if [ -e /dev/nvidia0 ] && command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
    have_gpu=1
else
    have_gpu=0
fi

if [ "$have_gpu" -eq 0 ]; then
    expect_exit 2 "$BAECHI" calibrate --backend cuda --quick
    expect_grep "cuda" "$TMPDIR_TEST/err"
    expect_grep "(not in this build|no CUDA GPU)" "$TMPDIR_TEST/err"
    expect_exit 2 "$BAECHI" replay -w "$TOP/tests/data/t1.yaml" -c "$TOP/tests/data/t1-cluster.yaml" --placement given --backend cuda
    expect_grep "(not in this build|no CUDA GPU)" "$TMPDIR_TEST/err"
fi

CUDA_BIN="$(dirname "$BAECHI")/baechi-cuda"
if [ -x "$CUDA_BIN" ]; then
    # carried to GPU machines without our -dev libraries (mk/calibrate.mk):
    # nothing but glibc, libstdc++ and libgcc_s may be linked dynamically
    ldd "$CUDA_BIN" > "$TMPDIR_TEST/ldd"
    expect_grep 'libc\.so' "$TMPDIR_TEST/ldd"
    if grep -E 'yaml|glpk|sqlite|jansson|protobuf|cudart|cublas|mpi|gmp|amd' "$TMPDIR_TEST/ldd"; then
        echo "t610: $CUDA_BIN links a library a GPU machine may lack" >&2
        exit 1
    fi
    # glibc 2.34 at most (Ubuntu 22.04 has 2.35)
    if objdump -T "$CUDA_BIN" | grep -E 'GLIBC_2\.(3[5-9]|[4-9][0-9])'; then
        echo "t610: $CUDA_BIN needs a glibc newer than 2.34" >&2
        exit 1
    fi
fi
if [ -x "$CUDA_BIN" ] && [ "$have_gpu" -eq 0 ]; then
    expect_exit 2 "$CUDA_BIN" calibrate --backend cuda --quick
    expect_grep "no CUDA GPU on this machine" "$TMPDIR_TEST/err"
    # the CPU backend still works in the CUDA build
    expect_exit 0 "$CUDA_BIN" calibrate --backend cpu --quick --max-exp 8 -o "$TMPDIR_TEST/c.yaml"
    # a repeated id is a logical device on one GPU: parsed, then the same clear error
    expect_exit 2 "$CUDA_BIN" calibrate --backend cuda --quick --devices 0,0,0,0
    expect_grep "no CUDA GPU on this machine" "$TMPDIR_TEST/err"
    expect_exit 2 "$CUDA_BIN" replay -w "$TOP/tests/data/t1.yaml" -c "$TOP/tests/data/t1-cluster.yaml" \
        -p given --backend cuda --devices 0,0
    expect_grep "no CUDA GPU on this machine" "$TMPDIR_TEST/err"
fi
exit 0
