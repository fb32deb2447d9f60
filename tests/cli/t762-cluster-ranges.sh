# Cluster numbers at the ends of their documented ranges (docs/limits.md)
# give sane times (issue 13, item 6): the slowest device (speed 1e-6) and the
# fastest (1e6) never print a step of 0 µs or a negative one; the values
# outside the ranges are rejected by tests/data/bad/c-*-{speed,slope,...}.yaml.
. "$TOP/tests/cli/lib.sh"

T1="$TOP/tests/data/t1.yaml"
cd "$TMPDIR_TEST"
for sp in 1e-6 1e6; do
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
done
