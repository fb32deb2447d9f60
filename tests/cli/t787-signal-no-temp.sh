# t787-signal-no-temp.sh - SIGTERM, SIGINT or SIGHUP while an output is
# being written (issue 30 item 7): the process ends by that signal, its
# temporary file "FILE.tmpXXXXXX" is removed (core/file_out.c, installed by
# cli/main.c), and the file that was there stays as it was.  The write is
# a 300,000-op workload (about 37 MB): the signal is sent once its
# temporary file exists.
. "$TOP/tests/cli/lib.sh"
cd "$TMPDIR_TEST"

default_int=
if env --default-signal=INT true 2> /dev/null; then
    default_int="env --default-signal=INT"
fi

# killed_in_write SIG: starts the write, sends SIG once the temporary file
# exists; the exit status in ./rc
killed_in_write() {
    sig=$1
    rm -f rc
    # a background job of sh ignores SIGINT: env gives it back its default
    $default_int "$BAECHI" workload gen synthetic --ops 300000 -o big.yaml > /dev/null 2> err &
    pid=$!
    n=0
    while ! ls | grep -q '^big\.yaml\.tmp' && [ $n -lt 1200 ]; do sleep 0.02; n=$((n + 1)); done
    ls | grep -q '^big\.yaml\.tmp' || { echo "the write never started"; kill -9 $pid; exit 1; }
    kill -"$sig" $pid
    set +e
    wait $pid
    echo $? > rc
    set -e
}

no_tmp() {
    if ls -a | grep -q 'tmp'; then echo "temporary files left: $(ls -a | grep tmp)"; exit 1; fi
    test "$(cat big.yaml)" = "old" || { echo "the old file was changed"; exit 1; }
}

test_expect_success 'setup: the file there before' '
    echo old > big.yaml
'

test_expect_success 'SIGTERM during the write: exit 143, no temporary file, the old file kept' '
    killed_in_write TERM
    test "$(cat rc)" = 143 || { echo "exit $(cat rc)"; cat err; exit 1; }
    no_tmp
'

test_expect_success 'SIGHUP: the same, exit 129' '
    killed_in_write HUP
    test "$(cat rc)" = 129 || { echo "exit $(cat rc)"; cat err; exit 1; }
    no_tmp
'

if [ -n "$default_int" ]; then
    test_expect_success 'SIGINT: the same, exit 130' '
        killed_in_write INT
        test "$(cat rc)" = 130 || { echo "exit $(cat rc)"; cat err; exit 1; }
        no_tmp
    '
fi

test_expect_success 'a signal ignored stays ignored: the write completes' '
    (trap "" TERM; exec "$BAECHI" workload gen synthetic --ops 20000 -o ign.yaml) > /dev/null 2>&1 &
    pid=$!
    n=0
    while ! ls | grep -q "^ign\.yaml\.tmp" && [ $n -lt 1200 ] && kill -0 $pid 2> /dev/null; do
        sleep 0.01
        n=$((n + 1))
    done
    kill -TERM $pid 2> /dev/null || true
    wait $pid
    expect_exit 0 "$BAECHI" workload info ign.yaml
'

test_done
