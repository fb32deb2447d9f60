# check: slow
# Errors say their cause (issue 20, items 3 and 7): out of memory is exit 1
# and "out of memory", never a parse error or bad input (exit 2) and never a
# made-up number; an m-SCT whose LP could not run says that the placement is
# m-ETF's in the text, the JSON and the database; a training graph is not
# trained again; workload info names estimates and sums honestly.
#
# Allocation failures are injected with the LD_PRELOAD shim
# tests/shim/failalloc.c, which fails the N-th allocation of the process
# (BAECHI_TEST_FAIL_ALLOC=N); a sweep over N checks every allocation of a
# small run.  Skipped where no C compiler or no LD_PRELOAD (sanitizers: the
# runtime shared, or static as in make check's build/san, whose program's
# own malloc comes before any preloaded one).
. "$TOP/tests/cli/lib.sh"

cd "$TMPDIR_TEST"

cat > tiny.yaml <<'YAML'
format: 1
name: tiny
ops:
  - {name: a, type: Op, time_us: 3, outputs: [100]}
  - {name: b, type: Op, time_us: 4, outputs: [100], inputs: ["a:0"]}
  - {name: c, type: Op, time_us: 5, inputs: ["a:0", "b:0"]}
YAML

have_shim=no
if cc -shared -fPIC -o failalloc.so "$TOP/tests/shim/failalloc.c" 2> /dev/null &&
    LD_PRELOAD=$PWD/failalloc.so "$BAECHI" workload info tiny.yaml > /dev/null 2>&1 &&
    ! ldd "$BAECHI" 2> /dev/null | grep -q 'libasan\|libtsan' &&
    ! nm -D "$BAECHI" 2> /dev/null | grep -q ' __[at]san_init$'; then
    have_shim=yes
fi

# sweep N CMD...: runs CMD with its allocation number i failing, i = 1..N;
# each run either succeeds or exits 1 saying "out of memory" (nothing else)
sweep() {
    n=$1
    shift
    bad=0
    i=1
    while [ "$i" -le "$n" ]; do
        set +e
        BAECHI_TEST_FAIL_ALLOC=$i LD_PRELOAD=$TMPDIR_TEST/failalloc.so "$@" > sw.out 2> sw.err
        rc=$?
        set -e
        if [ "$rc" -ne 0 ] && { [ "$rc" -ne 1 ] || ! grep -q 'out of memory' sw.err; }; then
            echo "allocation $i failing: exit $rc: $(tail -n 1 sw.err)"
            bad=1
        fi
        # a failure must not come out as a number: "critical path -1 µs"
        if [ "$rc" -eq 0 ] && grep -q -- '-1 µs\|parallelism -' sw.out; then
            echo "allocation $i failing: exit 0 with a made-up number: $(grep -- '-1 µs' sw.out)"
            bad=1
        fi
        i=$((i + 1))
    done
    return $bad
}

if [ $have_shim = yes ]; then
    # yrd_key returned 1 (= BAECHI_ENOMEM) for the end of a mapping: the 23rd
    # allocation failing gave "missing required key 'format'", exit 2; the
    # critical path printed -1 µs, exit 0
    test_expect_success 'workload info: every allocation failing is exit 1, out of memory' '
        sweep 260 "$BAECHI" workload info tiny.yaml
    '
    # fopen's ENOMEM was "cannot open", the protobuf's failed allocation
    # "not a valid ONNX model", import's graph check "not a usable workload"
    test_expect_success 'workload import: every allocation failing is exit 1, out of memory' '
        sweep 220 "$BAECHI" workload import "$TOP/tests/data/onnx/reshape-by-data.onnx" -o imp.yaml
    '
else
    test_skip 'workload info: every allocation failing is exit 1, out of memory' 'no LD_PRELOAD shim'
    test_skip 'workload import: every allocation failing is exit 1, out of memory' 'no LD_PRELOAD shim'
fi

# GLPK's memory limited to 1 MB (the documented test hook): GLPK fails
# through its error hook, m-SCT falls back and says so everywhere
test_expect_success 'm-sct with GLPK out of memory: the fallback in the text' - <<'EOF'
BAECHI_GLPK_MEM_LIMIT_MB=1 "$BAECHI" place -w "$GNMT" -c paper-4gpu-pcie -p m-sct -o p.yaml \
    2> place.err
expect_grep "warning: m-sct: GLPK failed .*memory.*the placement is m-ETF's" place.err
expect_grep "with m-sct \(fallback: m-etf \(out of memory\): m-ETF's placement\) in " place.err
expect_grep "lp_status: 'fallback: m-etf \(out of memory\)'" p.yaml
BAECHI_GLPK_MEM_LIMIT_MB=1 "$BAECHI" run -w "$GNMT" -c paper-4gpu-pcie -p m-sct > run.txt 2> run.err
expect_grep "^LP +none: fallback: m-etf \(out of memory\), the placement is m-ETF's" run.txt
expect_grep "warning: m-sct: .*the placement is m-ETF's" run.err
"$BAECHI" place -w "$GNMT" -c paper-4gpu-pcie -p m-etf -o etf.yaml 2> /dev/null
sed -n '/^devices:/,$p' p.yaml > a
sed -n '/^devices:/,$p' etf.yaml > b
cmp a b
EOF

test_expect_success 'm-sct with GLPK out of memory: the fallback in the JSON and the database' - <<'EOF'
BAECHI_GLPK_MEM_LIMIT_MB=1 "$BAECHI" run -w "$GNMT" -c paper-4gpu-pcie -p m-sct --json \
    --db r.db > run.json 2> /dev/null
python3 - <<'PY'
import json, sqlite3
r = json.load(open("run.json"))
assert r["placement_stats"]["lp_status"] == "fallback: m-etf (out of memory)", r["placement_stats"]
assert "lp" not in r, "an lp object without an LP"
rows = sqlite3.connect("r.db").execute("select placer, lp_status from runs").fetchall()
assert rows and all(row == ("m-sct", "fallback: m-etf (out of memory)") for row in rows), rows
PY
EOF

test_expect_success 'm-sct with the default memory limit: the LP is solved' - <<'EOF'
"$BAECHI" place -w "$GNMT" -c paper-4gpu-pcie -p m-sct -o p.yaml 2> /dev/null
expect_grep "lp_status: optimal" p.yaml
EOF

test_expect_success 'workload train of a training graph: exit 2, the file and the reason' - <<'EOF'
"$BAECHI" workload gen inception-v3 -o inc.yaml 2> /dev/null
expect_exit 2 "$BAECHI" workload train inc.yaml -o twice.yaml
expect_grep "^baechi: inc\.yaml: already a training graph: op '[^']+' \(type [A-Za-z]+\) is a backward op" \
    "$TMPDIR_TEST/err"
[ ! -e twice.yaml ]
"$BAECHI" workload gen inception-v3 --forward-only -o fwd.yaml 2> /dev/null
expect_exit 0 "$BAECHI" workload train fwd.yaml -o once.yaml
EOF

test_expect_success 'workload train: an older file is recognised by its gradient ops' - <<'EOF'
cat > old.yaml <<'YAML'
format: 1
name: old
ops:
  - {name: x, type: MatMul, time_us: 3, outputs: [100], persistent: 400}
  - {name: x/grad, type: MatMulGrad, time_us: 6, outputs: [100], inputs: ["x:0"]}
YAML
expect_exit 2 "$BAECHI" workload train old.yaml -o t.yaml
expect_grep "old\.yaml: already a training graph: op 'x/grad' \(type MatMulGrad\)" "$TMPDIR_TEST/err"
EOF

test_expect_success 'workload info: estimates are not called measured, the output sum not a size' - <<'EOF'
"$BAECHI" workload info tiny.yaml > info.txt
if grep -q ' ms measured' info.txt; then echo "times called measured"; exit 1; fi
expect_grep 'Σ time_us .*estimates unless measured' info.txt
expect_grep 'sum of op outputs .* \(not a peak\)' info.txt
EOF

test_done
