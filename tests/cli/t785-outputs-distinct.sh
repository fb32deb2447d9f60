# t785-outputs-distinct.sh - every command that writes files refuses an
# output that is the same file as an input or as another output (issue 30,
# item 4), compared by device and inode (cli/cmd.c cmd_check_files): the
# same name, another spelling (./x), a hard link, a symbolic link and a
# dangling link to the other output.  Exit 2, one line naming both options
# and the file, and nothing changed.  Distinct outputs and devices still
# work.
. "$TOP/tests/cli/lib.sh"
cd "$TMPDIR_TEST"

test_expect_success 'setup: inputs, a results database, links, checksums' '
    cp "$TOP/tests/data/t1.yaml" w.yaml
    cp "$TOP/tests/data/t1-cluster.yaml" c.yaml
    cp "$TOP/data/clusters/pcie-2x4.yaml" k.yaml
    cp "$TOP/tests/data/cal-annotate.yaml" a.yaml
    cp "$TOP/tests/data/cal-trace.json" trace.json
    cp "$TOP/tests/data/onnx/resnet50.onnx" m.onnx
    expect_exit 0 "$BAECHI" workload gen gpt --layers 2 --d-model 64 --heads 4 --vocab 100 \
        -b 4 --seq 8 -o g.yaml
    expect_exit 0 "$BAECHI" place -w w.yaml -c c.yaml -p m-etf -o p.yaml
    expect_exit 0 "$BAECHI" run -w w.yaml -c c.yaml -p m-etf --db r.db
    printf "name: s\nworkloads: [w.yaml]\nclusters: [c.yaml]\nplacers: [single]\n" > s.yaml
    ln w.yaml hard.yaml
    ln -s c.yaml soft.yaml
    ln -s not-yet.yaml dangling
    cksum w.yaml c.yaml k.yaml a.yaml trace.json m.onnx g.yaml p.yaml r.db s.yaml > before
'

# Each line: a command whose outputs collide; run in a loop, every one must
# be refused before it reads or writes anything.
cat > cases <<'EOF'
place -w w.yaml -c c.yaml -p m-etf -o ./w.yaml
place -w w.yaml -c c.yaml -p m-etf -o soft.yaml
sim -w w.yaml -c c.yaml -p p.yaml --trace ./p.yaml
sim -w w.yaml -c c.yaml -p p.yaml --trace hard.yaml
run -w w.yaml -c c.yaml -p m-etf --trace r.db --db ./r.db
run -w w.yaml -c c.yaml -p m-etf --trace new.json --db ./new.json
run -w w.yaml -c c.yaml -p m-etf --db w.yaml
workload gen gpt --layers 2 --d-model 64 --heads 4 --vocab 100 -b 4 --seq 8 --device c.yaml -o c.yaml
workload gen gpt --layers 2 --d-model 64 --heads 4 --vocab 100 -b 4 --seq 8 --device soft.yaml -o ./c.yaml
workload train w.yaml -o hard.yaml
workload train w.yaml --device k.yaml -o ./k.yaml
workload import m.onnx -o ./m.onnx
workload annotate a.yaml --profile trace.json -o trace.json
workload parallelize g.yaml --dp 2 -o g.yaml
workload parallelize g.yaml --dp 2 -o x.yaml --placement-out ./x.yaml
workload parallelize g.yaml --dp 2 -o not-yet.yaml --placement-out dangling
workload parallelize g.yaml --dp 2 -o p.yaml --placement-out ./p.yaml
sweep s.yaml --db s.yaml
plot step --db r.db --csv r.db
plot step --db r.db --script ./r.db
plot step --db r.db -o r.db
plot step --db r.db --csv d.csv --script ./d.csv
replay -w w.yaml -c c.yaml -p p.yaml --db p.yaml
bench scaling --cluster c.yaml --db ./c.yaml
EOF

test_expect_success 'every command refuses colliding outputs: exit 2, one line, both options' '
    n=0
    while IFS= read -r line; do
        n=$((n + 1))
        # shellcheck disable=SC2086
        set -- $line
        set +e
        "$BAECHI" "$@" > out 2> err
        rc=$?
        set -e
        if [ $rc -ne 2 ]; then echo "exit $rc, not 2: baechi $line"; cat err; exit 1; fi
        grep -Eq "is also an input|are the same file" err ||
            { echo "no refusal: baechi $line"; cat err; exit 1; }
        [ "$(wc -l < err)" -eq 1 ] || { echo "not one line: baechi $line"; cat err; exit 1; }
    done < cases
    [ $n -eq 24 ] || { echo "ran $n cases"; exit 1; }
'

test_expect_success 'the message names both options and the file' '
    expect_exit 2 "$BAECHI" plot step --db r.db --csv r.db
    expect_grep "^baechi: output .r\.db. \(--csv\) is also an input \(--db .r\.db.\); refusing to overwrite it$" err
    expect_exit 2 "$BAECHI" workload parallelize g.yaml --dp 2 -o x.yaml --placement-out ./x.yaml
    expect_grep "^baechi: outputs -o .x\.yaml. and --placement-out .\./x\.yaml. are the same file; refusing to write both$" err
'

test_expect_success 'nothing was changed or created' '
    cksum w.yaml c.yaml k.yaml a.yaml trace.json m.onnx g.yaml p.yaml r.db s.yaml > after
    cmp before after || { echo "an input was changed"; exit 1; }
    for f in x.yaml new.json not-yet.yaml d.csv; do
        test ! -e "$f" || { echo "$f was written"; exit 1; }
    done
'

test_expect_success 'distinct outputs, a new file and devices still work' '
    expect_exit 0 "$BAECHI" workload parallelize g.yaml --dp 2 -o x.yaml --placement-out y.yaml
    test -s x.yaml && test -s y.yaml
    expect_exit 0 "$BAECHI" workload parallelize g.yaml --dp 2 -o /dev/null --placement-out /dev/null
    expect_exit 0 "$BAECHI" run -w w.yaml -c c.yaml -p m-etf --trace t.json --db r.db
    expect_exit 0 "$BAECHI" workload gen gpt --layers 2 --d-model 64 --heads 4 --vocab 100 \
        -b 4 --seq 8 --device k.yaml -o g2.yaml
    expect_exit 0 "$BAECHI" place -w w.yaml -c c.yaml -p m-etf -o p.yaml
'

test_done
