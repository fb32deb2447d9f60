# check: once
# t798-placement-repeats.sh - `placement_repeats: N` in a sweep file (issue
# 33 item 3: placement time after a warm-up and as a median): parsed with
# file:line:col errors, and the placements and simulated numbers are those
# of one placement (only the timing is repeated).
. "$TOP/tests/cli/lib.sh"
cd "$TMPDIR_TEST"

sweep() {
    cat > "$1.yaml" <<S
name: $1
workloads: ["$TOP/data/workloads/gnmt_v2/gnmt_v2_b128_fwd.yaml", "gen:transformer?forward_only=1"]
clusters: [paper-4gpu-pcie]
placers: [single, m-topo, m-etf, m-sct, random]
memory_fractions: [1, 0.3]
$2
S
}

test_expect_success 'bad values: out of range, not an integer; file:line:col' - <<'XEOF'
for v in 0 101 x 2.5; do
    sweep bad "placement_repeats: $v"
    expect_exit 2 "$BAECHI" sweep bad.yaml --db b.db --dry-run
    expect_grep "bad.yaml:6:20: placement_repeats: .$v. (is out of range|expected an integer|must be an integer)" "$TMPDIR_TEST/err"
done
XEOF

test_expect_success 'repeats 3: the same placements and steps as one placement' - <<'XEOF'
sweep one ""
sweep three "placement_repeats: 3"
expect_exit 0 "$BAECHI" sweep one.yaml --db r.db --quiet
expect_exit 0 "$BAECHI" sweep three.yaml --db r3.db --quiet
q="select workload, placer, memory_fraction, status, step_us, max_peak_bytes from runs where sweep = '%s' order by 1, 2, 3"
sqlite3 r.db "$(printf "$q" one)" > one.txt
sqlite3 r3.db "$(printf "$q" three)" > three.txt
[ "$(wc -l < one.txt)" = 20 ] && cmp one.txt three.txt
[ "$(sqlite3 r3.db "select count(*) from runs where sweep = 'three' and status = 'ok' and placement_ms > 0")" = 20 ]
XEOF

test_done
