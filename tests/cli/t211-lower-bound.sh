# check: sanitized-only
#!/bin/sh
# t211: the certified lower bound (placers/bound.h) in `run` (text and
# JSON) and in the results database: a chain whose persistent bytes do not
# fit one device must cross a link, so the bound is the critical path plus
# the cheapest forced transfer ("memory"); the old bound stays beside it.
. "$TOP/tests/cli/lib.sh"

test_expect_success 'setup: a chain of four 400 kB ops, three 1 MiB devices' - <<'EOF2'
cat > "$TMPDIR_TEST/chain.yaml" <<'YAML'
format: 1
name: chain4
ops:
  - {name: A, type: Op, time_us: 10, outputs: [100], persistent: 400000}
  - {name: B, type: Op, time_us: 10, outputs: [1000], persistent: 400000, inputs: ["A:0"]}
  - {name: C, type: Op, time_us: 10, outputs: [100], persistent: 400000, inputs: ["B:0"]}
  - {name: D, type: Op, time_us: 10, persistent: 400000, inputs: ["C:0"]}
YAML
cat > "$TMPDIR_TEST/three.yaml" <<'YAML'
format: 1
name: three
devices:
  - name: gpu
    count: 3
    memory: 1MiB
comm:
  slope_us_per_byte: 0.0375
  intercept_us: 3.25
  channel: shared
YAML
sed "s/1MiB/4MiB/; s/name: three/name: roomy/" "$TMPDIR_TEST/three.yaml" > "$TMPDIR_TEST/roomy.yaml"
EOF2

# A B C and B C D (1.2 MB) fit no 1 MiB device: a cut inside each, either
# B->C (1,000 B = 41 µs) or A->B and C->D (100 B = 7 µs each): 40 + 14 µs,
# which auto reaches (A D | B C), so the bound proves it optimal
test_expect_success 'run --json: the memory bound, its parts and the old bound' - <<'EOF2'
expect_exit 0 "$BAECHI" run -w "$TMPDIR_TEST/chain.yaml" -c "$TMPDIR_TEST/three.yaml" -p auto --json
python3 - "$TMPDIR_TEST/out" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert r["lower_bound_us"] == 54 and r["lower_bound_kind"] == "memory", r
assert r["simple_lower_bound_us"] == 40, r["simple_lower_bound_us"]
b = r["bound"]
assert b["simple_us"] == 40 and b["memory_us"] == 54, b
assert b["min_devices"] == 2 and b["forced_cuts"] == 2, b
assert b["lp_status"] == "optimal" and b["lp_us"] <= 54, b
step = r["sim"]["timed"]["step_us"]
assert step == 54, step
assert r["bound_ratio"] == 1, r["bound_ratio"]
PY
EOF2

test_expect_success 'run: the text names the bound and its kind' '
    expect_exit 0 "$BAECHI" run -w "$TMPDIR_TEST/chain.yaml" -c "$TMPDIR_TEST/three.yaml" -p m-etf &&
    expect_grep "^lower bound    54 µs \(memory; simple 40 µs, critical path 40 µs\)" "$TMPDIR_TEST/out"
'

# enough memory on one device: the simple bound, and the LP is not tried
test_expect_success 'run --json: memory to spare gives the simple bound' - <<'EOF2'
expect_exit 0 "$BAECHI" run -w "$TMPDIR_TEST/chain.yaml" -c "$TMPDIR_TEST/roomy.yaml" -p m-etf --json
python3 - "$TMPDIR_TEST/out" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert r["lower_bound_us"] == 40 and r["lower_bound_kind"] == "simple", r
assert r["bound"]["lp_us"] is None and r["bound"]["lp_status"].startswith("skipped"), r["bound"]
PY
EOF2

test_expect_success 'run --db: both models store the bound, its kind and the old bound' - <<'EOF2'
expect_exit 0 "$BAECHI" run -w "$TMPDIR_TEST/chain.yaml" -c "$TMPDIR_TEST/three.yaml" -p m-etf \
    --db "$TMPDIR_TEST/r.db"
test "$(sqlite3 "$TMPDIR_TEST/r.db" "select group_concat(sim_model || ':' || lower_bound_us || ':' || lower_bound_kind || ':' || simple_lower_bound_us, ' ') from (select * from runs order by sim_model)")" = "baechi:54:memory:40 timed:54:memory:40"
EOF2

test_expect_success 'a schema 3 database gets the columns; old rows keep NULL' - <<'EOF2'
"$BAECHI" db schema | sed '/^-- version 4/,$d' > "$TMPDIR_TEST/v3.sql"
sqlite3 "$TMPDIR_TEST/old.db" < "$TMPDIR_TEST/v3.sql"
sqlite3 "$TMPDIR_TEST/old.db" "PRAGMA user_version = 3; INSERT INTO runs (time, tool_version, workload, cluster, placer, status, step_us, sim_model) VALUES ('2024-01-01T00:00:00.000Z', 'old', 'x', 'y', 'single', 'ok', 1000, 'timed')"
expect_exit 0 "$BAECHI" run -w "$TMPDIR_TEST/chain.yaml" -c "$TMPDIR_TEST/three.yaml" -p m-etf \
    --db "$TMPDIR_TEST/old.db"
expect_exit 0 "$BAECHI" db check --db "$TMPDIR_TEST/old.db"
expect_grep "schema version 5, integrity ok" "$TMPDIR_TEST/out"
test "$(sqlite3 "$TMPDIR_TEST/old.db" "select count(*) from runs where lower_bound_kind is null and simple_lower_bound_us is null")" = 1
test "$(sqlite3 "$TMPDIR_TEST/old.db" "select count(*) from runs where lower_bound_kind = 'memory'")" = 2
EOF2

test_done
