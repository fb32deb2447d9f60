# check: once
# A results database is one file after a clean exit (issue 33 item 4): no
# -wal or -shm file is left beside it by `run --db`, `report`, `db query`,
# `db schema`, `plot` or the Python module; a reader still writes nothing.
. "$TOP/tests/cli/lib.sh"
cd "$TMPDIR_TEST"
W="$TOP/tests/data/t1.yaml"
C="$TOP/tests/data/t1-cluster.yaml"

no_sidecars() {
    if ls r.db-wal r.db-shm 2> /dev/null; then
        echo "left beside r.db after: $*"
        exit 1
    fi
}

test_expect_success 'setup: a database with two runs' '
    "$BAECHI" run -w "$W" -c "$C" -p m-etf --db r.db > /dev/null
    no_sidecars run --db
'

test_expect_success 'report, db query, db schema leave no -wal/-shm' '
    "$BAECHI" report --db r.db > /dev/null
    no_sidecars report
    "$BAECHI" db query --db r.db "select count(*) from runs" > /dev/null
    no_sidecars db query
    "$BAECHI" db schema --db r.db > /dev/null 2>&1 || "$BAECHI" db schema > /dev/null
    no_sidecars db schema
'

test_expect_success 'plot leaves no -wal/-shm' '
    if command -v gnuplot > /dev/null; then
        "$BAECHI" plot step --db r.db --normalise none -o s.png > /dev/null
    else
        "$BAECHI" plot step --db r.db --normalise none --csv s.csv > /dev/null
    fi
    no_sidecars plot
'

test_expect_success 'the Python module (report) leaves no -wal/-shm' '
    BAECHI_LIB="$(dirname "$BAECHI")/libbaechi.so" PYTHONPATH="$TOP/python" python3 -c "
import baechi
baechi.report(\"r.db\") if hasattr(baechi, \"report\") else None
" > /dev/null
    no_sidecars python
'

test_expect_success 'a reader still writes nothing: db query of a DELETE is refused, rows kept' '
    expect_exit 2 "$BAECHI" db query --db r.db "delete from runs"
    expect_grep "readonly" "$TMPDIR_TEST/err"
    "$BAECHI" db query --db r.db "select count(*) from runs" > n
    grep -q "^ *2$" n
    no_sidecars db query delete
'

test_done
