# t773-plot-signal-cleanup.sh - SIGTERM, SIGHUP or SIGINT while gnuplot draws
# (issue 30): the process ends by that signal, gnuplot is killed, and no
# temporary file is left, neither beside the figure, the data and the
# script nor in the plot's private directory; the figure already there
# stays as it was.
. "$TOP/tests/cli/lib.sh"
cd "$TMPDIR_TEST"

test_expect_success 'setup: a sweep, and a gnuplot that never finishes' - <<'EOF2'
cat > s.yaml <<YAML
name: sig
workloads: ["$GNMT"]
clusters: [paper-4gpu-pcie]
placers: [single, m-etf]
YAML
expect_exit 0 "$BAECHI" sweep s.yaml --db r.db -j 1 --quiet
cat > slow.sh <<'SH'
#!/bin/sh
# records its pid and arguments, starts drawing, then waits (killed by the test)
echo "$$" > gp.pid
for a in "$@"; do echo "$a"; done > gp.args
exec sleep 60
SH
chmod +x slow.sh
echo "old figure" > f.png
EOF2

# plot SIGNAL ARGS...: starts the plot with the slow gnuplot, sends SIGNAL
# once gnuplot runs; the exit status of the plot in $TMPDIR_TEST/rc
plot_killed() {
    sig=$1
    shift
    rm -f gp.pid gp.args
    # a background job of sh ignores SIGINT: env gives it back its default
    BAECHI_GNUPLOT="$PWD/slow.sh" $default_int "$BAECHI" plot step --db r.db "$@" > /dev/null 2>&1 &
    pid=$!
    n=0
    while [ ! -s gp.args ] && [ $n -lt 400 ]; do sleep 0.05; n=$((n + 1)); done
    [ -s gp.args ] || { echo "gnuplot never started"; kill -9 $pid; exit 1; }
    kill -$sig $pid
    set +e
    wait $pid
    echo $? > rc
    set -e
}

default_int=
if env --default-signal=INT true 2> /dev/null; then
    default_int="env --default-signal=INT"
fi

no_tmp() {
    if ls -a | grep -q 'tmp-'; then echo "temporary files left: $(ls -a | grep tmp-)"; exit 1; fi
    gp=$(cat gp.pid)
    if kill -0 "$gp" 2> /dev/null; then kill -9 "$gp"; echo "gnuplot still runs"; exit 1; fi
}

test_expect_success 'SIGTERM: no temporary file, gnuplot killed, the old figure kept' - <<'EOF2'
plot_killed TERM -o f.png --csv c.csv --script g.gp
test "$(cat rc)" = 143
no_tmp
test "$(cat f.png)" = "old figure"
EOF2

test_expect_success 'SIGHUP without --csv/--script: the private directory removed' - <<'EOF2'
plot_killed HUP -o f.png
test "$(cat rc)" = 129
no_tmp
# the script gnuplot was given lay in the private directory
d=$(dirname "$(grep 'plot.gp$' gp.args)")
case $d in /tmp/baechi-plot-*) ;; *) echo "unexpected script dir $d"; exit 1 ;; esac
if [ -e "$d" ]; then echo "left: $d"; ls -la "$d"; exit 1; fi
test "$(cat f.png)" = "old figure"
EOF2

if [ -n "$default_int" ]; then
    test_expect_success 'SIGINT: the same' - <<'EOF2'
plot_killed INT -o f.png --csv c.csv
test "$(cat rc)" = 130
no_tmp
test "$(cat f.png)" = "old figure"
EOF2
else
    test_skip 'SIGINT' 'env --default-signal is missing (coreutils < 8.31)'
fi

test_done
