# check: once
# Issue 32's GPT-3 175B layouts (items 2 and 3, docs/symmetry.md "Scale") at
# a reduced depth: GPT-3 175B's widths (d 12,288, 96 heads, sequence 2,048,
# vocabulary 50,257) with 8 layers (one a stage) and 8 micro-batches of 1 a
# replica, TP 8 x PP 8, written --symmetric as four ranks a stage (TP ranks
# 0 and 7 of replicas 0 and D-1), on dgx-h100-superpod-1k (DP 16) and
# dgx-h100-superpod-16k (DP 256, the issue's 16,384-GPU smoke case): the
# same generator, symmetry check, collective plans over 16 and 256 replicas
# and expansion to every device as at full depth, in under a second.  The
# full depth (96 layers, 96 micro-batches: 1,042,600 ops, seconds of CPU)
# is `make doc-numbers`' block symmetry-scale and `make bench`'s
# (scripts/bench-symmetry.py); here the caps of the generator at full
# depth, which it refuses before building anything.
. "$TOP/tests/cli/lib.sh"

cd "$TMPDIR_TEST"

g="workload gen gpt --size gpt3-175b --layers 8 --micro-batches 8 --device h100:bf16 --elem-bytes 2 --optimizer adam --mixed-precision --dropout 0 --tp 8 --pp 8 --symmetric"

# sim_rss W C: `sim -w W -c C --placement given` into sim.txt, its peak
# resident set checked where GNU time is there
sim_rss() {
    if [ -x /usr/bin/time ] && /usr/bin/time -f %M true > /dev/null 2>&1; then
        /usr/bin/time -f 'rss_kb %M' -o rss.txt "$BAECHI" sim -w "$1" -c "$2" --placement given > sim.txt
        kb=$(sed -n 's/^rss_kb //p' rss.txt)
        echo "max RSS $kb KB"
        test "$kb" -lt 262144
    else
        "$BAECHI" sim -w "$1" -c "$2" --placement given > sim.txt
    fi
}

test_expect_success 'DP 16 on 1,024 H100s: 8,072 ops, step 276.392 ms' - <<EOF2
"\$BAECHI" $g --dp 16 --global-batch 128 -o g1k.yaml > gen.txt 2>&1
grep -q '^global batch 128 = 16 replicas x batch 8 (8 micro-batches of 1)' gen.txt
sim_rss g1k.yaml dgx-h100-superpod-1k
expect_grep '^workload .*: 8072 ops,' sim.txt
expect_grep '^step time +276.392 ms \(276392 µs\)' sim.txt
expect_grep '^symmetric +4 of 128 ranks a stage simulated \(replicas 0 and 15 of 16' sim.txt
EOF2

test_expect_success 'DP 256 on 16,384 H100s: step 391.964 ms' - <<EOF2
"\$BAECHI" $g --dp 256 --global-batch 2048 -o g16k.yaml > /dev/null 2>&1
sim_rss g16k.yaml dgx-h100-superpod-16k
expect_grep '^workload .*: 8072 ops,' sim.txt
expect_grep '^step time +391.964 ms \(391964 µs\)' sim.txt
expect_grep '^symmetric +4 of 2048 ranks a stage simulated \(replicas 0 and 255 of 256' sim.txt
EOF2

# full depth: 96 layers; the caps count the ops written (estimated first)
f="workload gen gpt --size gpt3-175b --device h100:bf16 --elem-bytes 2 --optimizer adam --mixed-precision --dropout 0 --tp 8 --pp 8 --dp 16"
test_expect_success 'full depth: without --symmetric over the 1,000,000 cap, refused' - <<EOF2
expect_exit 2 "\$BAECHI" $f --micro-batches 96 --global-batch 1536 -o x.yaml
expect_grep 'more than the 1000000 a generated graph may have' "\$TMPDIR_TEST/err"
EOF2

test_expect_success 'full depth: --symmetric with 192 micro-batches over the 2,000,000 cap, refused' - <<EOF2
expect_exit 2 "\$BAECHI" $f --micro-batches 192 --global-batch 3072 --symmetric -o x.yaml
expect_grep 'more than the 2000000 a generated graph may have' "\$TMPDIR_TEST/err"
EOF2

test_done
