# Cluster numbers at the ends of their documented ranges (docs/limits.md)
# give sane times (issue 13, item 6): the slowest device (speed 1e-6) and the
# fastest (1e6) never print a step of 0 µs or a negative one; the values
# outside the ranges are rejected by tests/data/bad/c-*-{speed,slope,...}.yaml.
. "$TOP/tests/cli/lib.sh"

T1="$TOP/tests/data/t1.yaml"
cd "$TMPDIR_TEST"

for sp in 1e-6 1e6; do
    test_expect_success "devices of speed $sp: a step neither 0 nor negative" - <<'EOF'
cat > c.yaml <<YAML
format: 1
name: edge
devices:
  - {name: gpu, count: 2, memory: 8GiB, speed: $sp}
comm: {slope_us_per_byte: 1e6, intercept_us: 1e9}
YAML
for m in timed baechi; do
    expect_exit 0 "$BAECHI" sim -w "$T1" -c c.yaml --placement given --model $m
    expect_grep 'step time +[1-9][0-9,.]* (µs|ms|s)' "$TMPDIR_TEST/out"
    ! grep -Eq 'step time +-|step time +0 ' "$TMPDIR_TEST/out" || { cat out; exit 1; }
done
EOF
done

# Every value at its bound at once: 20 ops of 1e15 µs, 9e12-byte tensors, the
# slowest devices and links.  Sums pass int64: they saturate (never a negative
# or wrapped time; UBSan builds check the arithmetic itself).
test_expect_success 'setup: every value at its bound at once' - <<'EOF'
python3 - <<'PY'
with open("huge.yaml", "w") as f:
    f.write("format: 1\nname: huge\nops:\n")
    for i in range(20):
        inp = ', inputs: ["o%d:0"]' % (i - 1) if i else ""
        f.write("  - {name: o%d, type: Op, time_us: 1e15, outputs: [9000000000000]%s}\n" % (i, inp))
PY
cat > edge.yaml <<'YAML'
format: 1
name: edge
devices:
  - {name: gpu, count: 2, memory: 9223372036854775807, speed: 1e-6}
comm: {slope_us_per_byte: 1e6, intercept_us: 1e9}
YAML
EOF

for p in m-etf m-sct m-topo; do
    test_expect_success "$p with every value at its bound: saturated, never negative" - <<'EOF'
expect_exit 0 "$BAECHI" run -w huge.yaml -c edge.yaml -p $p
expect_grep '^step \(timed\) +[1-9]' "$TMPDIR_TEST/out"
! grep -Eq '(step|bound).* -[0-9]' "$TMPDIR_TEST/out" || { cat out; exit 1; }
EOF
done

test_done
