# check: sanitized-only
# t503-sweep-mpi.sh - `mpirun --oversubscribe -np 3 baechi sweep --mpi` gives
# the same rows as a local sweep (times aside); without MPI in the build,
# --mpi says so.
. "$TOP/tests/cli/lib.sh"
cd "$TMPDIR_TEST"
cat > s.yaml <<YAML
name: mpi
workloads: ["$GNMT"]
clusters: [paper-4gpu-pcie]
placers: [m-topo, single, m-etf, expert]
memory_fractions: [1, 0.1]
models: [timed, baechi]
YAML
set +e
"$BAECHI" sweep --mpi s.yaml --db m.db > out 2> err
rc=$?
set -e

if grep -q "built without MPI" err; then
    [ $rc -eq 2 ] || { echo "--mpi without MPI: exit $rc, expected 2"; exit 1; }
    test_skip_all "this build has no MPI"
fi
command -v mpirun > /dev/null || test_skip_all "no mpirun"

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_plm=isolated \
    OMPI_MCA_btl_vader_single_copy_mechanism=none OMPI_MCA_rmaps_base_oversubscribe=1
# Open MPI's own allocations are not ours to chase
export ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0"

test_expect_success 'mpirun -np 3 sweep --mpi: 8 points run by 2 workers' '
    rm -f m.db*
    expect_exit 0 mpirun --oversubscribe -np 3 "$BAECHI" sweep --mpi s.yaml --db m.db
    expect_grep "8 points, 0 already stored, 8 run by 2 workers" out
'

test_expect_success 'setup: the same sweep, local' '
    expect_exit 0 "$BAECHI" sweep s.yaml --db l.db
'

cols="key, workload, placer, memory_fraction, sim_model, status, step_us, estimate_us, lower_bound_us, max_peak_bytes"

test_expect_success 'the same runs as the local sweep' '
    sqlite3 m.db "select $cols from runs order by key" > m.txt
    sqlite3 l.db "select $cols from runs order by key" > l.txt
    test "$(wc -l < m.txt)" = 16
    cmp m.txt l.txt
'

test_expect_success 'the same devices as the local sweep' '
    sqlite3 m.db "select d.device, d.peak_bytes, d.busy_us, r.key from devices d join runs r on r.id = d.run_id order by 4, 1" > md.txt
    sqlite3 l.db "select d.device, d.peak_bytes, d.busy_us, r.key from devices d join runs r on r.id = d.run_id order by 4, 1" > ld.txt
    cmp md.txt ld.txt
'

# resumed under MPI too
test_expect_success 'resumed under MPI too' '
    expect_exit 0 mpirun --oversubscribe -np 3 "$BAECHI" sweep --mpi s.yaml --db m.db
    expect_grep "8 points, 8 already stored, 0 run" out
'

test_done
