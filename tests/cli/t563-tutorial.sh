# check: slow once
# docs/tutorial.md runs as written: its ```sh blocks in order, then its
# ```python blocks, in an empty directory with `baechi` on PATH, and the
# numbers the text quotes (in **bold**) are what the commands print.
. "$TOP/tests/cli/lib.sh"
DOC="$TOP/docs/tutorial.md"
D="$TMPDIR_TEST/tutorial"
LIB=$(dirname "$BAECHI")/libbaechi.so

test_expect_success 'setup: extract the sh and python blocks' - <<'EOF2'
mkdir -p "$D/bin"
ln -s "$BAECHI" "$D/bin/baechi"
python3 - "$DOC" "$D" <<'PY'
import re, sys
t = open(sys.argv[1]).read()
sh = re.findall(r"^```sh\n(.*?)^```", t, re.M | re.S)
py = re.findall(r"^```python\n(.*?)^```", t, re.M | re.S)
assert len(sh) >= 5 and py, (len(sh), len(py))
open(sys.argv[2] + "/tutorial.sh", "w").write("set -eu\n" + "\n".join(sh))
open(sys.argv[2] + "/tutorial.py", "w").write("\n".join(py))
PY
# without gnuplot the figure cannot be drawn: everything else still runs
if ! command -v gnuplot >/dev/null 2>&1; then
    sed -i '/^baechi plot /d' "$D/tutorial.sh"
fi
EOF2

test_expect_success 'the shell blocks run' '
    (cd "$D" && PATH="$D/bin:$PATH" sh tutorial.sh > sh.out 2>&1) || { cat "$D/sh.out"; exit 1; }
'

test_expect_success 'GPT: m-topo runs out of memory at 0.09 where auto fits; the quoted numbers' - <<'EOF2'
step=$(sed -n 's/^step (timed) *\([0-9.]* ms\).*/\1/p' "$D/topo.txt")
test "$step" = "583.647 ms"
grep -q "\*\*$step\*\*" "$DOC"
n=$(grep -c "OUT OF MEMORY" "$D/topo.txt")
grep -q "on \*\*$n\*\* of the 8 GPUs" "$DOC"
test "$n" -gt 0
if grep -q "OUT OF MEMORY" "$D/auto.txt"; then echo "auto: out of memory"; exit 1; fi
expect_grep "by kind: .*saved" "$D/auto.txt"
if grep -q "OUT OF MEMORY" "$D/mb4.txt"; then echo "mb4: out of memory"; exit 1; fi
mb=$(sed -n 's/^step (timed) .*(\([0-9]*\) µs).*/\1/p' "$D/mb4.txt")
one=$(sed -n 's/^step (timed) .*(\([0-9]*\) µs).*/\1/p' "$D/auto.txt")
test "$mb" -lt "$one"
expect_grep "^gpt-medium_b8_h100 +0.09 +583.647 \(oom\) +[0-9.]+$" "$D/report.txt"
grep -q "583.647 ms turns \`(oom)\` at 0.09" "$DOC"
# fit.svg's story (issue 33 item 3: the figure was flat): auto fits down to
# 0.09 and not at 0.06, m-topo out of memory there, micro-batches faster
expect_grep "^gpt-medium_b8_h100 +0.06 +583.647 \(oom\) +infeasible$" "$D/report.txt"
expect_grep "^gpt-medium_b8_mb4_h100 +0.06 +[0-9.]+ \(oom\) +infeasible$" "$D/report.txt"
expect_grep "^gpt-medium_b8_mb4_h100 +0.09 +[0-9.]+ \(oom\) +[0-9.]+$" "$D/report.txt"
grep -q "fits down to 0.09" "$DOC" && grep -q "no placement at 0.06" "$DOC"
EOF2

test_expect_success 'CNN: the quoted m-topo step, auto faster' - <<'EOF2'
step=$(sed -n 's/^step (timed) *\([0-9.]* ms\).*/\1/p' "$D/inc-topo.txt")
grep -q "\*\*$step\*\*" "$DOC"
a=$(sed -n 's/^step (timed) .*(\([0-9]*\) µs).*/\1/p' "$D/inc-auto.txt")
t=$(sed -n 's/^step (timed) .*(\([0-9]*\) µs).*/\1/p' "$D/inc-topo.txt")
test "$a" -lt "$t"
EOF2

if command -v gnuplot >/dev/null 2>&1; then
    test_expect_success 'the figure' 'test -s "$D/fit.svg"'
else
    test_skip 'the figure' 'no gnuplot'
fi

test_expect_success 'the python block: m-topo out of memory at 0.02, auto fits; 0.01 infeasible' - <<'EOF2'
(cd "$D" && PYTHONPATH="$TOP/python" BAECHI_LIB="$LIB" python3 tutorial.py > py.out 2>&1) ||
    { cat "$D/py.out"; exit 1; }
python3 - "$D/py.out" <<'PY'
import ast, sys
rows = {(r["placer"], r["memory_fraction"]): r for r in map(ast.literal_eval, open(sys.argv[1]))}
assert rows[("m-topo", 0.02)]["oom"] is True, rows
assert rows[("auto", 0.02)]["oom"] is False, rows
assert rows[("auto", 0.01)]["step_ms"] is None and "no placement fits" in rows[("auto", 0.01)]["reason"]
assert rows[("m-topo", 0.05)]["step_ms"] == 73.65, rows
PY
EOF2

test_done
