# check: once
# t797-plot-device-oom.sh - a per-device metric (`plot line --y peak0`,
# device 0's peak) circles a point as out of memory only when that device is
# over its memory (issue 33 item 3: pipeline-peak0 circled 5.68 GiB under a
# 6.44 GiB limit because another stage ran out); the run-wide `peak` still
# circles every oom run.
. "$TOP/tests/cli/lib.sh"
cd "$TMPDIR_TEST"

test_expect_success 'setup: oom runs whose small second device is over, the first not' - <<'XEOF'
cat > c.yaml <<'C'
format: 1
name: uneven
devices:
  - {name: big, memory: 8GiB, speed: 1.0}
  - {name: small, memory: 0.2GiB, speed: 1.0}
comm: {slope_us_per_byte: 0.0001754, intercept_us: 134}
C
cat > s.yaml <<'S'
name: oomdev
workloads: ["gen:transformer?forward_only=1"]
clusters: [c.yaml]
placers: [round-robin]
memory_fractions: [1, 0.9]
S
expect_exit 0 "$BAECHI" sweep s.yaml --db r.db --quiet
[ "$(sqlite3 r.db "select group_concat(d.device || ':' || d.oom) from runs r join devices d on d.run_id = r.id where r.status = 'oom'")" = "0:0,1:1,0:0,1:1" ]
XEOF

test_expect_success 'peak0: not circled, status oom-elsewhere; peak: circled' - <<'XEOF'
"$BAECHI" plot line --db r.db --x memory_fraction --y peak0 --csv p0.csv --script p0.gp 2> /dev/null
expect_grep "^round-robin,1(\.0)?,[0-9.]+,oom-elsewhere,1,8(\.0)?$" p0.csv
if grep -q "circled" p0.gp; then echo "peak0 circles a device that fits"; exit 1; fi
expect_grep "some runs out of memory on another device" p0.gp
"$BAECHI" plot line --db r.db --x memory_fraction --y peak --csv p.csv --script p.gp 2> /dev/null
expect_grep "^round-robin,1(\.0)?,[0-9.]+,oom,1,[0-9.]+$" p.csv
expect_grep "circled: out of memory" p.gp
XEOF

test_done
