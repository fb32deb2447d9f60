# tests/shim/alloc-lib.sh - what the allocation-failure sweeps t780 and t781
# share, sourced after tests/cli/lib.sh in $TMPDIR_TEST: the LD_PRELOAD shim
# (tests/shim/failalloc.c) built into $SHIM, the sweep (alloc-sweep.sh) run
# in a directory of its own, and the check of its point count.

SHIM=$TMPDIR_TEST/failalloc.so
SWEEP=$TOP/tests/shim/alloc-sweep.sh

# alloc_shim_or_skip CMD...: builds the shim; skips the whole test where it
# cannot be built or preloaded into CMD (no C compiler; sanitized builds,
# whose runtime must come first)
alloc_shim_or_skip() {
    if ! cc -shared -fPIC -o "$SHIM" "$TOP/tests/shim/failalloc.c" 2> /dev/null ||
        ! LD_PRELOAD=$SHIM "$@" > /dev/null 2>&1 ||
        ldd "$BAECHI" 2> /dev/null | grep -q 'libasan\|libtsan' ||
        nm -D "$BAECHI" 2> /dev/null | grep -q ' __[at]san_init$'; then
        test_skip_all "no LD_PRELOAD allocation-failure shim (no C compiler, or a sanitized build)"
    fi
}

# sweep NAME OUT ARGS...: the sweep in its own directory, its summary in
# NAME.res; fails with the failing points
sweep() {
    name=$1
    out=$2
    shift 2
    mkdir -p "$name"
    cd "$name"
    set +e
    sh "$SWEEP" "$SHIM" "$out" "$BAECHI" "$@" > "../$name.res" 2>&1
    rc=$?
    set -e
    cd ..
    cat "$name.res"
    [ "$rc" -eq 0 ]
}

# about RES N: the sweep in RES had between N/2 and 2N points (the counts
# docs/testing.md quotes; they move with the C library and libyaml)
about() {
    a=$(sed -n 's/^\([0-9]*\) points, .*/\1/p' "$1")
    if [ "$a" -lt $(($2 / 2)) ] || [ "$a" -gt $(($2 * 2)) ]; then
        echo "$1: $a points, docs/testing.md says about $2"
        return 1
    fi
}
