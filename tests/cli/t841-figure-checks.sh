# check: once
# t841-figure-checks.sh - the data checks of every figure (issue 33 item 3's
# target, scripts/check-figures.py; `make demo` runs them on its figures):
# each plot kind as the demo draws it, on small sweeps of the same shape
# (placers over memory fractions, the pipeline study's schedules by placer,
# parallel layouts over GPU counts), is titled, not degenerate, draws no
# line on top of another (a line equal to another is merged: "A = B"), and
# draws the memory limit where it plots memory.  Then the checker itself
# fails each kind of bad figure.
. "$TOP/tests/cli/lib.sh"
cd "$TMPDIR_TEST"
CHECK="python3 $TOP/scripts/check-figures.py"
G="gpt?layers=4&d_model=64&heads=4&vocab=1000&seq=64&batch=8&device=v100"

test_expect_success 'setup: small sweeps shaped as the demo'"'"'s' - <<EOF
cat > paper.yaml <<S
name: paper
workloads: ["gen:$G&forward_only=1&name=gpt-fwd", "gen:$G&name=gpt-train"]
clusters: [paper-4gpu-pcie]
placers: [single, m-topo, m-etf, m-sct, paper]
memory_fractions: [1, 0.001, 0.0003, 0.0001]
S
{
    echo "name: pipeline"
    echo "workloads:"
    for m in 1 2 4; do
        echo "  - \"gen:$G&micro_batches=\$m&schedule=gpipe&name=gpt_mb\${m}_gpipe\""
        echo "  - \"gen:$G&micro_batches=\$m&schedule=1f1b&name=gpt_mb\${m}_1f1b\""
        echo "  - \"gen:$G&micro_batches=\$m&schedule=interleaved&virtual_stages=2&name=gpt_mb\${m}_interleaved2\""
    done
    echo "clusters: [paper-4gpu-pcie]"
    echo "devices: [4]"
    echo "placers: [m-topo, pipeline]"
} > pipeline.yaml
{
    echo "name: parallel"
    echo "workloads:"
    for d in 2 4; do
        echo "  - \"gen:$G&dp=\$d&name=gpt-\$d:DP\""
        echo "  - \"gen:$G&dp=\$d&zero=1&name=gpt-\$d:DP+ZeRO-1\""
        echo "  - \"gen:$G&tp=\$d&name=gpt-\$d:TP\""
        echo "  - \"gen:$G&pp=\$d&micro_batches=4&name=gpt-\$d:PP-1F1B\""
    done
    echo "clusters: [paper-4gpu-pcie]"
    echo "placers: [given]"
} > parallel.yaml
for s in paper pipeline parallel; do "\$BAECHI" sweep \$s.yaml --db r.db --quiet; done
"\$BAECHI" bench scaling --db r.db --sizes 100,300,1000 --repeats 3 --placers m-topo,m-etf \
    --sweep scaling > /dev/null
EOF

# the demo's plot commands (scripts/demo.sh), each with its data and script
plot() { # NAME KIND OPTIONS...
    n=$1
    shift
    "$BAECHI" plot "$@" --db r.db --csv "figs/$n.csv" --script "figs/$n.gp" 2> /dev/null
}
PL="--where sweep=pipeline --x micro_batches --lines pipeline --by placer"
PA="--where sweep=parallel --x devices --lines strategy"

test_expect_success 'every kind, drawn as the demo draws it, passes the checks' - <<'EOF'
mkdir figs
plot step step --where sweep=paper --where memory_fraction=1
plot placement-time placement-time --where sweep=paper --where memory_fraction=1
plot peak peak --where sweep=paper --where memory_fraction=1
plot gantt gantt --where sweep=paper --where memory_fraction=1
plot memory memory --where sweep=paper --workload gpt-train
plot memory-timeline memory-timeline --where sweep=paper --where memory_fraction=1 \
    --where placer=m-topo --where workload=gpt-train
plot pipeline-step line $PL --y step
plot pipeline-peak0 line $PL --y peak0
plot parallel-step line $PA --y step
plot parallel-peak line $PA --y peak
plot scaling scaling --where sweep=scaling --stat median
ls figs
$CHECK figs
EOF

test_expect_success 'coinciding lines: interleaved with one chunk a device is 1F1B, merged' - <<'EOF'
# m-topo gives each device one chunk: interleaving runs as 1F1B (t795), the
# same points, one line named for both; the pipeline placer interleaves
grep "title '1f1b = interleaved" figs/pipeline-step.gp
[ "$(grep -c "title '1f1b = interleaved" figs/pipeline-step.gp)" = 1 ]
grep "title 'interleaved:2'\|title 'interleaved" figs/pipeline-step.gp | grep -v "1f1b ="
EOF

test_expect_success 'memory figures: the limit drawn, in the CSV too' - <<'EOF'
tr -d '\\\n' < figs/parallel-peak.gp | grep -q '\$L_0 using 1:2 with lines [^,]* title .device memory (limit).'
head -1 figs/parallel-peak.csv | grep -q ',limit_gib$'
head -1 figs/pipeline-peak0.csv | grep -q ',limit_gib$'
EOF

test_expect_success 'the parallel layouts keep their palette colours and markers' - <<'EOF'
grep -q "pt 5 .* lc rgb '#ff7f0e' title 'DP'" figs/parallel-step.gp
grep -q "pt 13 .* lc rgb '#7b4173' title 'TP'" figs/parallel-step.gp
EOF

# the checker fails each bad figure: a line drawn twice, no limit, no title,
# every value equal
test_expect_success 'the checker: each kind of bad figure fails, naming why' - <<'EOF'
mkdir bad
# a second line with the same points as the first
sed -n '1,/^\$D_0_1 << EOD/p' figs/memory.gp > /dev/null
python3 - figs bad <<'PY'
import re, shutil, sys
src, dst = sys.argv[1:]
gp = open(src + "/memory.gp").read()
b0 = re.search(r"^\$D_0_0 << EOD\n(.*?)^EOD$", gp, re.M | re.S).group(1)
gp2 = re.sub(r"(^\$D_0_1 << EOD\n)(.*?)(^EOD$)", lambda m: m.group(1) + b0 + m.group(3), gp,
             count=1, flags=re.M | re.S)
open(dst + "/twin.gp", "w").write(gp2)
shutil.copy(src + "/memory.csv", dst + "/twin.csv")
pk = open(src + "/parallel-peak.gp").read()
open(dst + "/nolimit.gp", "w").write(re.sub(r", \\\n +\$L_0 using[^\n]*", "", pk))
shutil.copy(src + "/parallel-peak.csv", dst + "/nolimit.csv")
open(dst + "/notitle.gp", "w").write(re.sub(r"^set title .*$", "set title ''", gp, flags=re.M))
shutil.copy(src + "/memory.csv", dst + "/notitle.csv")
open(dst + "/flat.gp", "w").write(gp)
rows = open(src + "/memory.csv").read().splitlines()
open(dst + "/flat.csv", "w").write("\n".join([rows[0]] + [
    ",".join(r.split(",")[:2] + ["7"] + r.split(",")[3:]) for r in rows[1:]]) + "\n")
PY
set +e
$CHECK bad > out
rc=$?
set -e
cat out
[ $rc = 1 ]
grep -q "^FAIL twin (memory): \$D_0_1 draws the same points as \$D_0_0" out
grep -q "^FAIL nolimit (line): memory without its limit line" out
grep -q "^FAIL notitle (memory): no title" out
grep -q "^FAIL flat (memory): degenerate: every value is 7" out
EOF

test_done
