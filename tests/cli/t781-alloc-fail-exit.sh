# check: slow once
# Out of memory is exit 1, never exit 2 (the bad-input code), in `workload
# gen` and where SQLite runs out (issue 30 item 7): every allocation site
# of `workload gen gpt` and of `report` on a small results database (the
# first and the last allocation of each call stack: 2,780 runs for 7,488
# allocations and the sweep's last 800, 12 s of CPU instead of 37) failed
# in turn with the LD_PRELOAD shim tests/shim/failalloc.c and checked by
# tests/shim/alloc-sweep.sh (exit 0 with the clean run's output, or exit 1
# saying "out of memory").  gen called every failure of its generator a
# usage error (exit 2 in 90 of 91 points of the test build); SQLite's
# SQLITE_NOMEM was "cannot open database", "cannot read the schema
# version" or a bad query, exit 2.  Skipped where the shim cannot be built
# or preloaded (sanitized builds).
. "$TOP/tests/cli/lib.sh"

cd "$TMPDIR_TEST"
. "$TOP/tests/shim/alloc-lib.sh"

alloc_shim_or_skip "$BAECHI" cluster list

cat > spec.yaml <<YAML
name: tiny
workloads: ["$TOP/tests/data/t1.yaml"]
clusters: ["$TOP/tests/data/t1-cluster.yaml"]
placers: [single, m-etf]
memory_fractions: [1]
models: [timed, baechi]
YAML
"$BAECHI" sweep spec.yaml --db fixture.db -j 1 > /dev/null 2>&1

test_expect_success 'workload gen gpt: every allocation site failing is exit 1 or the clean output' '
    sweep gen out.yaml workload gen gpt --layers 1 --d-model 64 --heads 4 --vocab 100 \
        -b 4 --seq 8 -o out.yaml
    expect_grep "^[0-9]+ points, [0-9]+ runs, 0 failures$" gen.res
    about gen.res 1600
'

test_expect_success 'workload gen gpt --dp 2 --device a100: every allocation site failing' '
    sweep gen-syn out.yaml workload gen gpt --layers 1 --d-model 32 --heads 2 --vocab 50 \
        -b 2 --seq 4 --dp 2 --device a100 -o out.yaml
    expect_grep "^[0-9]+ points, [0-9]+ runs, 0 failures$" gen-syn.res
    about gen-syn.res 2200
'

# SQLite allocates through malloc: the shim fails its allocations too
test_expect_success 'report: SQLite out of memory is exit 1, out of memory' '
    sweep report - report --db ../fixture.db
    expect_grep "^[0-9]+ points, [0-9]+ runs, 0 failures$" report.res
    about report.res 2400
'

test_expect_success 'db query: SQLite out of memory is exit 1, out of memory' '
    sweep query - db query --db ../fixture.db "select placer, sim_model, step_us, workload from runs order by id"
    expect_grep "^[0-9]+ points, [0-9]+ runs, 0 failures$" query.res
    about query.res 540
'

# the last 800 allocations of a sweep: its workers' start and the runs' storing.
# An allocation failing before the first worker made the cleanup close
# stdin and kill(0, SIGKILL): the process group, the caller's shell too
# (hence a session of its own for each run here).
test_expect_success 'sweep: the allocation sites among the last 800 failing' - <<'EOF2'
if ! command -v setsid > /dev/null; then
    echo "no setsid: not run"
    exit 0
fi
mkdir -p sw
cp spec.yaml sw/
cd sw
set +e
SWEEP_LAST=800 SWEEP_SETSID=1 SWEEP_RM="run.db run.db-wal run.db-shm" \
    SWEEP_SED='s/ in [0-9.]* s ([^)]*)/ in T/; s/, [0-9.]* points\/s/, R points\/s/' \
    sh "$SWEEP" "$SHIM" - "$BAECHI" sweep spec.yaml --db run.db -j 1 > ../sweep.res 2>&1
rc=$?
set -e
cd ..
cat sweep.res
[ "$rc" -eq 0 ]
expect_grep "^[0-9]+ points, [0-9]+ runs, 0 failures$" sweep.res
about sweep.res 9100
EOF2

test_done
