# check: fast
# BAECHI_LP_WRITE_MPS=FILE (issue 32 item 4): m-SCT's LP, as GLPK is about
# to solve it, written in free MPS so that scripts/lp-probe/ can measure
# other solvers and methods on exactly that LP (docs/limits.md "m-SCT's
# LP"); the placement is the same as without it; a file that cannot be
# written is an error naming the file and the variable.
. "$TOP/tests/cli/lib.sh"
cd "$TMPDIR_TEST"

test_expect_success 'setup: a layered graph of 300 ops' '
    "$BAECHI" workload gen synthetic --shape layered --ops 300 --seed 42 --fan-in 3 -o l.yaml
'

test_expect_success 'the file holds the LP that was solved: its rows, columns, non-zeros' '
    BAECHI_LP_WRITE_MPS=$PWD/l.mps "$BAECHI" run -w l.yaml -c paper-4gpu-pcie -p m-sct \
        --lp-solver glpk --json > r.json &&
    rows=$(tr "," "\n" < r.json | sed -n "s/^ *\"rows\": *//p") &&
    cols=$(tr "," "\n" < r.json | sed -n "s/^ *\"cols\": *//p") &&
    nnz=$(tr "," "\n" < r.json | sed -n "s/^ *\"nonzeros\": *\([0-9]*\).*/\1/p") &&
    test -n "$rows" && test "$rows" -gt 0 &&
    grep -q "^\* Rows: *$rows\$" l.mps &&
    grep -q "^\* Columns: *$cols\$" l.mps &&
    grep -q "^\* Non-zeros: *$nnz\$" l.mps &&
    grep -q "^ENDATA" l.mps
'

test_expect_success 'the placement is the same as without the variable' '
    BAECHI_LP_WRITE_MPS=$PWD/m.mps "$BAECHI" place -w l.yaml -c paper-4gpu-pcie -p m-sct \
        --lp-solver glpk -o a.yaml &&
    "$BAECHI" place -w l.yaml -c paper-4gpu-pcie -p m-sct --lp-solver glpk -o b.yaml &&
    sed "/_ms:/d" a.yaml > a.txt && sed "/_ms:/d" b.yaml > b.txt && cmp a.txt b.txt &&
    cmp l.mps m.mps
'

test_expect_success 'a file that cannot be written: exit 2, naming it and the variable' '
    BAECHI_LP_WRITE_MPS=$PWD/no/such/dir/x.mps expect_exit 2 "$BAECHI" place -w l.yaml \
        -c paper-4gpu-pcie -p m-sct --lp-solver glpk -o c.yaml &&
    expect_grep "cannot write the favourite-child LP to .*no/such/dir/x.mps. \(BAECHI_LP_WRITE_MPS\): No such file" \
        "$TMPDIR_TEST/err"
'

test_done
