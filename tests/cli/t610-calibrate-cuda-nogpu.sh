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
CUDA_BIN="$(dirname "$BAECHI")/baechi-cuda"
if [ "$have_gpu" -eq 1 ] && ! [ -x "$CUDA_BIN" ]; then
    test_skip_all "a CUDA GPU is here and build/baechi-cuda is not built"
fi

if [ "$have_gpu" -eq 0 ]; then
    test_expect_success 'calibrate --backend cuda without a GPU: exit 2, said clearly' '
        expect_exit 2 "$BAECHI" calibrate --backend cuda --quick
        expect_grep "cuda" "$TMPDIR_TEST/err"
        expect_grep "(not in this build|no CUDA GPU)" "$TMPDIR_TEST/err"
    '
    test_expect_success 'replay --backend cuda without a GPU: exit 2, said clearly' '
        expect_exit 2 "$BAECHI" replay -w "$TOP/tests/data/t1.yaml" -c "$TOP/tests/data/t1-cluster.yaml" --placement given --backend cuda
        expect_grep "(not in this build|no CUDA GPU)" "$TMPDIR_TEST/err"
    '
else
    test_skip 'the messages without a GPU' 'a CUDA GPU is here'
fi

if [ -x "$CUDA_BIN" ]; then
    # carried to GPU machines without our -dev libraries (mk/calibrate.mk):
    # nothing but glibc, libstdc++ and libgcc_s may be linked dynamically
    test_expect_success 'baechi-cuda links nothing a GPU machine may lack' - <<'EOF'
ldd "$CUDA_BIN" > "$TMPDIR_TEST/ldd"
expect_grep 'libc\.so' "$TMPDIR_TEST/ldd"
if grep -E 'yaml|glpk|sqlite|jansson|protobuf|cudart|cublas|mpi|gmp|amd' "$TMPDIR_TEST/ldd"; then
    echo "t610: $CUDA_BIN links a library a GPU machine may lack" >&2
    exit 1
fi
EOF
    # glibc 2.34 at most (Ubuntu 22.04 has 2.35)
    test_expect_success 'baechi-cuda needs glibc 2.34 at most' - <<'EOF'
if objdump -T "$CUDA_BIN" | grep -E 'GLIBC_2\.(3[5-9]|[4-9][0-9])'; then
    echo "t610: $CUDA_BIN needs a glibc newer than 2.34" >&2
    exit 1
fi
EOF
else
    test_skip 'build/baechi-cuda' 'not built: make cuda'
fi
if [ -x "$CUDA_BIN" ] && [ "$have_gpu" -eq 0 ]; then
    test_expect_success 'baechi-cuda calibrate --backend cuda without a GPU: exit 2, said clearly' '
        expect_exit 2 "$CUDA_BIN" calibrate --backend cuda --quick
        expect_grep "no CUDA GPU on this machine" "$TMPDIR_TEST/err"
    '
    # the CPU backend still works in the CUDA build
    test_expect_success 'baechi-cuda calibrate --backend cpu' '
        expect_exit 0 "$CUDA_BIN" calibrate --backend cpu --quick --max-exp 8 -o "$TMPDIR_TEST/c.yaml"
    '
    # a repeated id is a logical device on one GPU: parsed, then the same clear error
    test_expect_success 'baechi-cuda --devices 0,0,0,0 without a GPU: the same clear error' '
        expect_exit 2 "$CUDA_BIN" calibrate --backend cuda --quick --devices 0,0,0,0
        expect_grep "no CUDA GPU on this machine" "$TMPDIR_TEST/err"
    '
    test_expect_success 'baechi-cuda replay --backend cuda without a GPU: exit 2, said clearly' '
        expect_exit 2 "$CUDA_BIN" replay -w "$TOP/tests/data/t1.yaml" -c "$TOP/tests/data/t1-cluster.yaml" \
            -p given --backend cuda --devices 0,0
        expect_grep "no CUDA GPU on this machine" "$TMPDIR_TEST/err"
    '
fi

test_done
