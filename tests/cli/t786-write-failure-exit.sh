# t786-write-failure-exit.sh - an output that the machine cannot take (a
# full device, a read-only file system, a file size limit) is a failure of
# the system, not bad input (issue 30 item 7): every command that writes
# exits 1, not 2, with the system's reason ("No space left on device",
# "Read-only file system", "File too large"), never "No such file or
# directory"; a missing directory stays bad input (exit 2).
. "$TOP/tests/cli/lib.sh"
cd "$TMPDIR_TEST"

test_expect_success 'setup: inputs and a results database' '
    cp "$TOP/tests/data/t1.yaml" w.yaml
    cp "$TOP/tests/data/t1-cluster.yaml" c.yaml
    cp "$TOP/tests/data/cal-annotate.yaml" a.yaml
    cp "$TOP/tests/data/cal-trace.json" trace.json
    cp "$TOP/tests/data/onnx/resnet50.onnx" m.onnx
    expect_exit 0 "$BAECHI" workload gen gpt --layers 2 --d-model 64 --heads 4 --vocab 100 \
        -b 4 --seq 8 -o g.yaml
    expect_exit 0 "$BAECHI" place -w w.yaml -c c.yaml -p m-etf -o p.yaml
    printf "name: s\nworkloads: [w.yaml]\nclusters: [c.yaml]\nplacers: [single, m-etf]\n" > s.yaml
    expect_exit 0 "$BAECHI" sweep s.yaml --db r.db --quiet
'

# Every command with an output; @ stands for the output file.
cat > files <<'EOF'
place -w w.yaml -c c.yaml -p m-etf -o @
sim -w w.yaml -c c.yaml -p p.yaml --trace @
run -w w.yaml -c c.yaml -p m-etf --trace @
workload gen gpt --layers 2 --d-model 64 --heads 4 --vocab 100 -b 4 --seq 8 -o @
workload train w.yaml -o @
workload import m.onnx -o @
workload annotate a.yaml --profile trace.json -o @
workload parallelize g.yaml --dp 2 -o @
workload parallelize g.yaml --dp 2 -o /dev/null --placement-out @
plot step --db r.db --csv @
plot step --db r.db --csv /dev/null --script @
EOF
# Commands that write a results database.
cat > dbs <<'EOF'
run -w w.yaml -c c.yaml -p m-etf --db @
sweep s.yaml --db @ --quiet
EOF

# fails_with CODE REASON OUT LIST: every line of LIST, @ replaced by OUT,
# exits CODE with REASON in its one-line message.
fails_with() {
    code=$1 reason=$2 out=$3 list=$4
    n=0
    while IFS= read -r line; do
        n=$((n + 1))
        cmd=$(printf '%s\n' "$line" | sed "s|@|$out|")
        # shellcheck disable=SC2086
        set -- $cmd
        set +e
        "$BAECHI" "$@" > out 2> err
        rc=$?
        set -e
        [ $rc -eq "$code" ] || { echo "exit $rc, not $code: baechi $cmd"; cat err; exit 1; }
        grep -q "$reason" err || { echo "no '$reason': baechi $cmd"; cat err; exit 1; }
        if grep -q "No such file or directory" err && [ "$reason" != "No such file or directory" ]; then
            echo "a wrong reason: baechi $cmd"; cat err; exit 1
        fi
    done < "$list"
    [ $n -gt 0 ]
}

if [ -w /dev/full ]; then
    test_expect_success '/dev/full: exit 1, "No space left on device", every command' '
        fails_with 1 "No space left on device" /dev/full files
    '
    test_expect_success 'standard output on /dev/full: exit 1 with the reason' '
        set +e
        "$BAECHI" workload gen gpt --layers 2 --d-model 64 --heads 4 --vocab 100 -b 4 --seq 8 \
            > /dev/full 2> err
        rc=$?
        set -e
        [ $rc -eq 1 ] || { echo "exit $rc"; cat err; exit 1; }
        expect_grep "^baechi: error writing standard output: No space left on device$" err
    '
else
    test_skip '/dev/full' 'no writable /dev/full here'
fi

test_expect_success 'a file size limit: exit 1, "File too large" (a database included)' '
    printf "x" > big
    (ulimit -f 1; exec "$BAECHI" workload gen synthetic --ops 5000 -o big.yaml) > out 2> err &&
        { echo "exit 0"; exit 1; } || rc=$?
    [ "$rc" -eq 1 ] || { echo "exit $rc"; cat err; exit 1; }
    expect_grep "^baechi: error writing .big\.yaml.: File too large$" err
    printf "name: f\nworkloads: [\"%s\"]\nclusters: [paper-4gpu-pcie]\nplacers: [single, m-etf, m-topo]\nrepeats: 20\nstore_placement: true\n" "$GNMT" > f.yaml
    expect_exit 1 sh -c "ulimit -f 100; exec \"\$@\"" sh "$BAECHI" sweep f.yaml --db f.db --quiet
    expect_grep "database or disk is full|disk I/O error" err
'

test_expect_success 'a missing directory is bad input: exit 2, "No such file or directory"' '
    fails_with 2 "No such file or directory" nodir/x files
    fails_with 2 "No such file or directory" nodir/r.db dbs
'

# A read-only file system: a tmpfs mounted read-only where this user may
# mount (root ignores a directory without write permission, so chmod would
# not do).
mkdir ro
if mount -t tmpfs -o ro,size=1m tmpfs ro 2> /dev/null; then
    # unmounted after each check, whatever its outcome
    test_expect_success 'a read-only file system: exit 1, "Read-only file system", every command' '
        fails_with 1 "Read-only file system" ro/x files
        fails_with 1 "Read-only file system" ro/r.db dbs
    '
    umount ro
    mkdir rw
    if mount -t tmpfs -o size=1m tmpfs rw 2> /dev/null; then
        cp r.db rw/r.db
        mount -o remount,ro rw
        test_expect_success 'an existing database on a read-only file system: exit 1, the reason' '
            fails_with 1 "Read-only file system" rw/r.db dbs
            expect_exit 0 "$BAECHI" report --db rw/r.db
        '
        umount rw
    fi
else
    test_skip 'a read-only file system' 'cannot mount a read-only tmpfs here (not root, or no mount namespace)'
fi

test_done
