# Names holding control characters (issue 13, item 12) are printed escaped:
# "a\nb" as 'a\nb', ESC as \x1b, in error messages (one line) and in text
# reports (workload info, run, sim); nothing raw reaches the terminal.
. "$TOP/tests/cli/lib.sh"

cd "$TMPDIR_TEST"

test_expect_success 'setup: names with control characters' - <<'EOF'
cat > esc.yaml <<'YAML'
format: 1
name: "esc\nape\e[31m"
ops:
  - {name: "a\nb", type: Op, time_us: 3, outputs: [100]}
  - {name: "\e[31mred", type: "T\tab", time_us: 3, outputs: [100], inputs: ["a\nb:0"]}
  - {name: c, type: Op, time_us: 3, inputs: ["\e[31mred:0"]}
YAML
cat > huge.yaml <<'YAML'
format: 1
name: huge
ops:
  - {name: "a\nb", type: Op, time_us: 3, outputs: [100]}
  - {name: "\e[31mred", type: Op, time_us: 3, inputs: ["a\nb:0"], temp: 100000000000}
YAML
cat > dup.yaml <<'YAML'
format: 1
name: dup
ops:
  - {name: "a\nb", type: Op, outputs: [1]}
  - {name: "a\nb", type: Op, inputs: ["a\nb:0"]}
YAML
cat > cl.yaml <<'YAML'
format: 1
name: "cl\r\e[2J"
devices:
  - {name: "gpu\e[0m", count: 2, memory: 16GiB}
YAML
EOF

esc=$(printf '\033')
raw() { # no ESC, CR or TAB byte in the file
    if grep -q "[$esc$(printf '\r\t')]" "$1"; then echo "raw control character in $1:"; cat -A "$1"; exit 1; fi
}
one() { [ "$(wc -l < "$1")" -eq 1 ] || { echo "expected one line in $1:"; cat -A "$1"; exit 1; }; }

test_expect_success 'workload info: the names escaped' - <<'EOF'
expect_exit 0 "$BAECHI" workload info esc.yaml
expect_grep '^workload esc\\nape\\x1b\[31m ' "$TMPDIR_TEST/out"
raw "$TMPDIR_TEST/out"
EOF

test_expect_success 'm-etf infeasible: the op escaped, one line' - <<'EOF'
expect_exit 3 "$BAECHI" place -w huge.yaml -c paper-4gpu-pcie -p m-etf
expect_grep "'\\\\x1b\[31mred' needs" "$TMPDIR_TEST/err"
one "$TMPDIR_TEST/err"; raw "$TMPDIR_TEST/err"
EOF

test_expect_success 'm-topo-nonuniform infeasible: one line, nothing raw' '
    expect_exit 3 "$BAECHI" place -w huge.yaml -c paper-4gpu-pcie -p m-topo-nonuniform
    one "$TMPDIR_TEST/err"; raw "$TMPDIR_TEST/err"
'

test_expect_success 'a duplicate name: escaped, one line' - <<'EOF'
expect_exit 2 "$BAECHI" workload info dup.yaml
expect_grep "dup.yaml:5:[0-9]+: duplicate op name 'a\\\\nb'" "$TMPDIR_TEST/err"
one "$TMPDIR_TEST/err"
EOF

test_expect_success 'run: the device names escaped' - <<'EOF'
expect_exit 0 "$BAECHI" run -w esc.yaml -c cl.yaml -p m-etf
expect_grep 'gpu\\x1b\[0m' "$TMPDIR_TEST/out"
raw "$TMPDIR_TEST/out"; raw "$TMPDIR_TEST/err"
EOF

for m in timed baechi; do
    test_expect_success "sim --model $m: the cluster name escaped" - <<'EOF'
expect_exit 0 "$BAECHI" sim -w esc.yaml -c cl.yaml --placement given --model $m
expect_grep 'cluster cl\\r\\x1b\[2J' "$TMPDIR_TEST/out"
raw "$TMPDIR_TEST/out"; raw "$TMPDIR_TEST/err"
EOF
done

# the user's own arguments, quoted in usage errors, are escaped too
test_expect_success 'a command named by the user: escaped' - <<'EOF'
expect_exit 2 "$BAECHI" "$(printf 'x\033[31m')"
expect_grep "'x\\\\x1b\[31m' is not a baechi command" "$TMPDIR_TEST/err"
EOF

test_expect_success 'a value given by the user: escaped' - <<'EOF'
expect_exit 2 "$BAECHI" place --devices "$(printf '1\n2')"
expect_grep "not '1\\\\n2'" "$TMPDIR_TEST/err"
raw "$TMPDIR_TEST/err"
EOF

test_done
