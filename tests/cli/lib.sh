# lib.sh - helpers for CLI tests; source it: . "$TOP/tests/cli/lib.sh"
#
# A test script is a list of named checks (git t/test-lib.sh):
#
#     test_expect_success 'NAME' 'BODY'
#     test_expect_success 'NAME' - <<'EOF'
#     BODY (may hold single quotes and here-documents)
#     EOF
#     ...
#     test_done
#
# Each BODY is eval'd in a subshell with `set -e`, so the first failing
# command fails that check only, and the script goes on to the next one.  A
# check prints "ok N - NAME", or "not ok N - NAME" and then its output,
# indented.  Shell variables, functions and `cd` set in a body do not reach
# later checks; files written under $TMPDIR_TEST do.  Define what several
# checks share outside them, and name setup checks "setup: ...".
#
# test_skip 'NAME' 'REASON' reports a check that cannot run here as
# "ok N # skip NAME (REASON)" (TAP's form), counted apart.
# test_done prints "# N checks, M failed" (", K skipped" when some were) and
# exits 1 if one failed, else 0.
# test_skip_all 'REASON' prints "skipped: REASON" and exits 77, which the
# runner counts as skipped, not passed: for a script none of whose checks
# can run here.
set -eu

test_count=0
test_failed=0
test_skipped=0

# test_expect_success NAME BODY | NAME - : runs BODY (from stdin when "-").
test_expect_success() {
    test_count=$((test_count + 1))
    if [ "$2" = - ]; then
        test_body=$(cat)
    else
        test_body=$2
    fi
    # Not in an if/||/&& context: there `set -e` would be ignored in the
    # subshell, and a failing command would not end the body.
    set +e
    (
        set -e
        eval "$test_body"
    ) > "$TMPDIR_TEST/.check-output" 2>&1 < /dev/null
    test_rc=$?
    set -e
    if [ "$test_rc" -eq 0 ]; then
        printf 'ok %d - %s\n' "$test_count" "$1"
    else
        test_failed=$((test_failed + 1))
        printf 'not ok %d - %s\n' "$test_count" "$1"
        sed 's/^/    /' "$TMPDIR_TEST/.check-output"
    fi
}

# test_skip NAME REASON: a check that cannot run here (no GPU, ...).
test_skip() {
    test_count=$((test_count + 1))
    test_skipped=$((test_skipped + 1))
    printf 'ok %d # skip %s (%s)\n' "$test_count" "$1" "$2"
}

# test_done: the closing line; the script's exit status.
test_done() {
    if [ "$test_skipped" -eq 0 ]; then
        echo "# $test_count checks, $test_failed failed"
    else
        echo "# $test_count checks, $test_failed failed, $test_skipped skipped"
    fi
    [ "$test_failed" -eq 0 ] || exit 1
    exit 0
}

# test_skip_all REASON: the script cannot run here (no MPI, no GPU, ...).
test_skip_all() {
    printf 'skipped: %s\n' "$1"
    exit 77
}

# expect_exit CODE cmd... : runs cmd, fails unless it exits with CODE.
# Its stdout/stderr are kept in $TMPDIR_TEST/out and $TMPDIR_TEST/err.
expect_exit() {
    want=$1
    shift
    set +e
    "$@" > "$TMPDIR_TEST/out" 2> "$TMPDIR_TEST/err"
    got=$?
    set -e
    if [ "$got" -ne "$want" ]; then
        echo "expected exit $want, got $got: $*"
        echo "--- stdout"; cat "$TMPDIR_TEST/out"
        echo "--- stderr"; cat "$TMPDIR_TEST/err"
        exit 1
    fi
}

# expect_grep PATTERN FILE : fails unless FILE matches the extended regex.
expect_grep() {
    if ! grep -Eq -- "$1" "$2"; then
        echo "expected /$1/ in $2:"
        cat "$2"
        exit 1
    fi
}

GNMT="$TOP/data/workloads/gnmt_v2/gnmt_v2_b128_fwd.yaml"

# nodes_cluster N [NAME]: N H100s in nodes of 8 with a DGX's links (450 GB/s
# coll_wl KIND BYTES DEV...: one collective over the devices, as a workload
# on stdout: p<i> (100 µs) -> c@r<i> (the collective) -> u<i> (10 µs) on
# each device, so the step is 110 µs + the collective; $ALGO (e.g.
# ", algo: tree") is appended to its x-collective.
coll_wl() {
    kind=$1 bytes=$2
    shift 2
    printf 'format: 1\nname: %s\nops:\n' "$kind"
    i=0
    for d in "$@"; do
        printf '  - {name: p%d, type: Grad, time_us: 100, outputs: [%s], device: %d}\n' $i "$bytes" "$d"
        printf '  - {name: c@r%d, type: Coll, time_us: 0, outputs: [%s], inputs: ["p%d:0"], device: %d, x-collective: {id: c0, kind: %s, bytes: %s%s}}\n' $i "$bytes" $i "$d" "$kind" "$bytes" "${ALGO:-}"
        printf '  - {name: u%d, type: Update, time_us: 10, inputs: ["c@r%d:0"], device: %d}\n' $i $i "$d"
        i=$((i + 1))
    done
}

# coll_check KIND DEVS EXPECTED_US: coll_wl's collective of 400 MB over
# DEVS on dgx-h100-superpod-1k takes EXPECTED_US, within 1 µs.
coll_check() {
    coll_wl "$1" 400000000 $2 > w.yaml
    expect_exit 0 "$BAECHI" sim -w w.yaml -c dgx-h100-superpod-1k --placement given --json
    python3 - "$TMPDIR_TEST/out" "$3" "$1" <<'PY'
import json, sys
got = json.load(open(sys.argv[1]))["step_us"] - 110
want = float(sys.argv[2])
assert abs(got - want) <= 1, (sys.argv[3], got, want)
PY
}

# inside, 50 GB/s a GPU between), as a cluster file on stdout (t790, t791).
nodes_cluster() {
    cat <<YAML
format: 1
name: ${2:-dgx-$1}
devices:
  - name: gpu
    count: $1
    kind: h100
    memory: 80GB
comm:
  slope_us_per_byte: 2.2222222222222222e-6
  intercept_us: 10
  channel: duplex
nodes:
  gpus_per_node: 8
  intra_node: {bandwidth: 450GB/s, latency_us: 10}
  inter_node: {bandwidth: 400Gb/s, per: gpu, latency_us: 5}
YAML
}

# --- helpers of the reference checks (t320-t350, tests/ref/) ---

# ref_ctl_yaml OUT [OPS [SEED]]: a random DAG with control dependencies
# (repeated, and next to data inputs from the same op) and colocation groups.
ref_ctl_yaml() {
    "$BAECHI" workload gen synthetic --shape random --ops "${2:-300}" --seed "${3:-5}" \
        -o "$TMPDIR_TEST/syn.yaml" > /dev/null
    python3 - "$TMPDIR_TEST/syn.yaml" "$1" <<'PY'
import sys, yaml
w = yaml.safe_load(open(sys.argv[1]))
for i, op in enumerate(w["ops"]):
    if i >= 5 and i % 3 == 0:
        op.setdefault("inputs", []).extend(["^op%d" % (i - 5), "^op%d" % (i - 5), "^op%d" % (i - 1)])
    if i % 5 == 0:
        op["group"] = "g%d" % (i // 25)
yaml.safe_dump(w, open(sys.argv[2], "w"), default_flow_style=None, width=1000)
PY
}

# ref_compare PLACEMENT.yaml REF.json EXIT WHAT: the placement `baechi place`
# wrote (with exit status EXIT) equals the reference's: both infeasible, or
# the same device for every op and (when the reference has one) the same
# estimate (tests/ref/compare.py).
ref_compare() {
    python3 "$TOP/tests/ref/compare.py" "$@"
}

# Recorded verdicts.  The Python transcriptions take nearly all of a
# reference check's time (tests/ref/m_etf.py recomputes every schedule time
# before each decision: 6 s of CPU on GNMT, against 0.2 s for the sanitized
# C placer), and they are pure functions of their sources and inputs.  A
# passed check is recorded in tests/ref/verified/<script>.txt as the SHA-256
# of everything its verdict depends on: the reference's sources
# (tests/ref/*.py, the comparison among them), the test script, the
# versions of Python and PyYAML, the machine's architecture, the check's
# arguments and baechi's exit status, and the contents of its input files
# and of baechi's outputs.  When the digest is listed, running the
# reference again would give the verdict it gave then, so it is not run:
# baechi itself still runs (under the sanitizers in `make check`) and its
# outputs must be byte for byte those the reference accepted.  Any other
# output, input or source runs the reference.  REF_FULL=1 always runs it;
# REF_RECORD=1 runs it and records every check that passes
# (scripts/ref-record.sh rewrites the records).

# ref_digest WHAT FILE...: the digest of a check (a missing FILE counts as
# missing; WHAT's paths count from $TOP).
ref_digest() {
    if [ ! -s "$TMPDIR_TEST/.ref-env" ]; then
        {
            uname -m
            python3 -c 'import sys, yaml; print(sys.version, yaml.__version__)'
        } > "$TMPDIR_TEST/.ref-env"
    fi
    # the same in every checkout: paths inside it are relative
    ref_w=$1
    while :; do
        case $ref_w in
        *"$TOP/"*) ref_w=${ref_w%%"$TOP/"*}${ref_w#*"$TOP/"} ;;
        *) break ;;
        esac
    done
    {
        cat "$TOP"/tests/ref/*.py "$TOP/tests/cli/$(basename "$0")" "$TMPDIR_TEST/.ref-env"
        printf '%s\n' "$ref_w"
        shift
        for f in "$@"; do
            printf '\n--- %s\n' "$(basename "$f")"
            cat "$f" 2> /dev/null || echo "(missing)"
        done
    } | sha256sum | cut -d ' ' -f 1
}

# ref_known WHAT FILE...: succeeds when this check passed when recorded.
ref_known() {
    [ -z "${REF_FULL:-}${REF_RECORD:-}" ] || return 1
    ref_d=$(ref_digest "$@")
    grep -qx "$ref_d" "$TOP/tests/ref/verified/$(basename "$0" .sh).txt" 2> /dev/null
}

# ref_passed WHAT FILE...: records the check just passed (REF_RECORD=1).
ref_passed() {
    [ -n "${REF_RECORD:-}" ] || return 0
    mkdir -p "$TOP/tests/ref/verified"
    ref_digest "$@" >> "$TOP/tests/ref/verified/$(basename "$0" .sh).txt"
}
