# check: sanitized-only
# t561-plot-figures.sh - figures say what they show and show only that: the
# memory figures of two workloads differ and each data file holds exactly
# the runs of its workload (re-queried from the database); a name that
# matches nothing is exit 2 with the names stored; a dimension that varies
# is never averaged (refused, or drawn with --x/--by); titles name
# workload, cluster, devices, memory fraction and model; scaling draws a
# line per configuration at one memory fraction; peak and gantt default to
# the paper's configuration on the first workload at full memory; the
# placer limit is drawn only for placers that have one; gantt of a
# workload whose path holds a quote.
. "$TOP/tests/cli/lib.sh"
cd "$TMPDIR_TEST"

test_expect_success 'setup: a sweep of two workloads, one in a path with a quote' - <<'EOF'
mkdir "it's"
cp "$GNMT" "it's/g.yaml"
cat > s.yaml <<YAML
name: figs
workloads: ["it's/g.yaml", "gen:transformer?forward_only=1"]
clusters: [paper-4gpu-pcie]
devices: [2, 4]
placers: [single, expert, m-etf]
groupers: [tf, coplace]
fusion: [false, true]
memory_fractions: [1, 0.1]
store_placement: true
exclude:
  - {grouper: coplace, fusion: false}
  - {grouper: tf, fusion: true}
  - {placer: single, grouper: coplace}
  - {placer: expert, grouper: coplace}
  - {workload: "gen:transformer?forward_only=1", placer: expert}
YAML
expect_exit 0 "$BAECHI" sweep s.yaml --db r.db -j 1 --quiet
EOF

W1=gnmt_v2_b128_fwd
W2=transformer-base_b64_fwd
gp=false
command -v gnuplot > /dev/null && gp=true
fig() { # fig NAME plot-args...: the figure (when gnuplot is here), its data and script
    n=$1
    shift
    if $gp; then
        expect_exit 0 "$BAECHI" plot "$@" --db r.db -o "$n.png" --csv "$n.csv" --script "$n.gp"
    else
        expect_exit 0 "$BAECHI" plot "$@" --db r.db --csv "$n.csv" --script "$n.gp"
    fi
}

# a dimension that varies and is no axis: refused, naming it and its values
test_expect_success 'a dimension that varies and is no axis: refused, naming its values' '
    expect_exit 2 "$BAECHI" plot memory --db r.db --workload $W1 --csv x.csv
    expect_grep "span 2 values of devices \(2, 4\).*--where devices=VALUE" err
'

test_expect_success 'two workloads and no axis for them: refused' '
    expect_exit 2 "$BAECHI" plot memory --db r.db --where devices=4 --csv x.csv
    expect_grep "span 2 values of workload" err
'

# names that match nothing
test_expect_success 'a workload no run has: exit 2, did you mean, the names stored' - <<'EOF'
expect_exit 2 "$BAECHI" plot memory --db r.db --workload gnmt --where devices=4 --csv x.csv
expect_grep "no run has workload 'gnmt'; did you mean '$W1'\? \(stored: $W1, $W2\)" err
EOF

test_expect_success 'a placer no run has: did you mean' - <<'EOF'
expect_exit 2 "$BAECHI" plot step --db r.db --where placer=m-eft --csv x.csv
expect_grep "did you mean 'm-etf'" err
EOF

test_expect_success 'an unknown plot kind: did you mean' - <<'EOF'
expect_exit 2 "$BAECHI" plot stpe --db r.db --csv x.csv
expect_grep "unknown plot kind 'stpe'; did you mean 'step'" err
EOF

test_expect_success 'the refused figures wrote no data' '
    test ! -e x.csv
'

# memory figures of two workloads: distinct, each with its own runs only
test_expect_success 'the memory figures of two workloads differ, each titled with its workload' '
    fig m1 memory --workload $W1 --where devices=4
    fig m2 memory --workload $W2 --where devices=4
    if cmp -s m1.csv m2.csv; then echo "m1.csv and m2.csv are identical"; exit 1; fi
    if $gp && cmp -s m1.png m2.png; then echo "m1.png and m2.png are identical"; exit 1; fi
    expect_grep "$W1 on paper-4gpu-pcie \(4 devices\), sweep figs, timed simulator" m1.gp
    expect_grep "$W2 on paper-4gpu-pcie \(4 devices\)" m2.gp
'

test_expect_success 'each memory data file holds exactly the runs of its workload' - <<'EOF'
sqlite3 -csv r.db "select workload, placer, grouper, fusion, memory_fraction, step_us, status from runs where n_devices = 4 and sim_model = 'timed'" > runs.csv
python3 - runs.csv m1.csv $W1 m2.csv $W2 <<'PY'
import csv, sys
runs = list(csv.reader(open(sys.argv[1])))
def config(p, g, f):
    return p + ("+coplace" if g == "coplace" else "") + ("+fusion" if f == "1" else "")
for data, wl in ((sys.argv[2], sys.argv[3]), (sys.argv[4], sys.argv[5])):
    want = {(config(p, g, f), float(mf)): (s, st) for w, p, g, f, mf, s, st in runs if w == wl}
    rows = list(csv.DictReader(open(data)))
    got = {(r["config"], float(r["memory_fraction"])): r for r in rows}
    assert set(got) == set(want), (data, sorted(got), sorted(want))
    for k, r in got.items():
        s, st = want[k]
        assert r["runs"] == "1", r          # nothing averaged
        assert r["status"] == st, (r, st)
        if s:
            assert abs(float(r["step_ms"]) - int(s) / 1000) < 1e-6, (r, s)
        else:
            assert r["step_ms"] == "NaN", r
PY
EOF

# titles of the bar figures; expert normalisation keeps workloads with an expert only
test_expect_success 'step: the title names cluster, devices, fraction and model' '
    fig step step --where devices=4
    expect_grep "paper-4gpu-pcie \(4 devices\), memory fraction 1 \(the largest stored\), sweep figs, timed simulator" step.gp
    expect_grep "^workload,single,expert,m-etf,m-etf\+coplace\+fusion$" step.csv
    test "$(grep -c . step.csv)" = 3
'

test_expect_success 'step --normalise expert keeps the workloads with an expert only' '
    fig sve step --where devices=4 --normalise expert
    test "$(grep -c . sve.csv)" = 2
    expect_grep "^$W1,[0-9.]+,1,[0-9.]+,[0-9.]+$" sve.csv
    expect_grep "left out, no reference run: $W2" sve.gp
'

# scaling: one memory fraction (named), a non-empty line per configuration
test_expect_success 'scaling: one memory fraction, named' - <<'EOF'
fig sc scaling --where devices=4
expect_grep "memory fraction 1 \(the largest stored\)" sc.gp
python3 - sc.csv <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert rows and all(r["runs"] == "1" for r in rows), rows
PY
EOF

test_expect_success 'scaling: a non-empty line per configuration' - <<'EOF'
for k in 0 1 2 3; do
    awk -v b="\$D_0_$k << EOD" '$0 == b { getline; print }' sc.gp | grep -Eq '^[0-9]+ [0-9.e-]+$'
    grep -q "^plot .*\$D_0_$k using\|^ *\$D_0_$k using" sc.gp
done
EOF

# step vs devices, a panel per memory fraction, for one workload
test_expect_success 'line: step vs devices, a panel per memory fraction' '
    fig ln line --workload $W1 --x devices --y step --by memory_fraction
    expect_grep "^memory_fraction,config,devices,step_ms,status,runs$" ln.csv
    expect_grep "^1,m-etf\+coplace\+fusion,2,[0-9.]+,ok,1$" ln.csv
    expect_grep "set multiplot layout 1,2" ln.gp
'

test_expect_success 'line --y bound_ratio' '
    fig br line --workload $W1 --where memory_fraction=1 --x devices --y bound_ratio
    expect_grep "step time / lower bound \(x\)" br.gp
'

test_expect_success 'line: an unknown --y, exit 2' - <<'EOF'
expect_exit 2 "$BAECHI" plot line --db r.db --workload $W1 --x devices --y speed --csv x.csv
expect_grep "unknown --y 'speed'" err
EOF

# peak and gantt default: the paper's configuration, first workload, full memory
test_expect_success 'peak: the paper configuration by default, with the placer limit' '
    fig pk peak --where devices=4
    expect_grep "run [0-9]+: m-etf\+coplace\+fusion on $W1, paper-4gpu-pcie \(4 devices\), memory fraction 1" pk.gp
    expect_grep "placer limit" pk.gp
    expect_grep "^device,peak_gib,limit_gib,placer_limit_gib$" pk.csv
'

# The placer limit is the simulator's limit (memory fraction x memory) for
# the memory-aware placers: one bar, not two of the same height.
test_expect_success 'peak: a placer limit equal to the memory limit is one bar' - <<'EOF'
expect_grep "title .memory limit \(memory fraction x memory, = placer limit\).$" pk.gp
if grep -q "using 4" pk.gp; then echo "pk.gp draws the placer limit twice"; exit 1; fi
low=$(sqlite3 r.db "select id from runs where placer = 'm-etf' and memory_fraction < 1 and status = 'ok' and n_devices = 4 limit 1")
[ -n "$low" ] || { echo "no m-etf run below memory fraction 1"; exit 1; }
fig pkl peak --run "$low"
expect_grep "memory fraction 0[.][0-9]+" pkl.gp
expect_grep "= placer limit" pkl.gp
EOF

test_expect_success 'peak of a single-GPU run: no placer limit' - <<'EOF'
single=$(sqlite3 r.db "select id from runs where placer = 'single' and status = 'ok' limit 1")
fig pks peak --run "$single"
expect_grep "^device,peak_gib,limit_gib$" pks.csv
if grep -q "placer limit" pks.gp; then echo "pks.gp draws a placer limit for a single-GPU run"; exit 1; fi
EOF

test_expect_success 'gantt: the paper configuration by default' '
    fig gt gantt --where devices=4
    expect_grep "m-etf\+coplace\+fusion on $W1" gt.gp
    expect_grep "^compute,[0-3]," gt.csv
'

# data to a pipe (or /dev/stdout) is written through, not renamed over it
test_expect_success 'data to a pipe is written through, not renamed over it' '
    mkfifo pipe
    cat pipe > piped.csv &
    expect_exit 0 "$BAECHI" plot step --db r.db --where devices=4 --csv pipe
    wait
    test -p pipe
    expect_grep "^workload,single,expert,m-etf,m-etf\+coplace\+fusion$" piped.csv
'

test_done
