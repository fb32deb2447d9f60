#!/bin/sh
# t641-mpi-plugin.sh - Open MPI is loaded only by `sweep --mpi`: the program
# does not link it (ldd), other commands run without it, and a missing
# plugin gives the "built without MPI" message and exit 2.
. "$TOP/tests/cli/lib.sh"
cd "$TMPDIR_TEST"
cat > s.yaml <<YAML
name: mpi
workloads: ["$GNMT"]
clusters: [paper-4gpu-pcie]
placers: [m-topo]
memory_fractions: [1]
models: [baechi]
YAML

if command -v ldd > /dev/null; then
    test_expect_success 'the program links no Open MPI library' '
        ldd "$BAECHI" > ldd.txt &&
        if grep -i -E "libmpi|libopen-(pal|rte)|libpmix|libhwloc|libevent" ldd.txt; then
            echo "linked above"; exit 1
        fi
    '
else
    test_skip 'the program links no Open MPI library' 'no ldd'
fi

test_expect_success 'a missing plugin: built without MPI, exit 2' '
    (export BAECHI_MPI_PLUGIN="$TMPDIR_TEST/none.so"
     expect_exit 2 "$BAECHI" sweep --mpi s.yaml --db m.db) &&
    expect_grep "built without MPI" "$TMPDIR_TEST/err"
'

test_expect_success 'a file that is no plugin: named in the message, exit 2' '
    echo "not a library" > bad.so &&
    (export BAECHI_MPI_PLUGIN="$TMPDIR_TEST/bad.so"
     expect_exit 2 "$BAECHI" sweep --mpi s.yaml --db m.db) &&
    expect_grep "cannot load the MPI plugin .*bad.so" "$TMPDIR_TEST/err"
'

test_done
