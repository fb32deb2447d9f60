# check: once
# t834-gen-spec-elem-bytes.sh - a sweep's `gen:` spec with elem_bytes gives
# the graph `workload gen --elem-bytes` writes: the same step and peak.
# Before, the spec set only the generator's element size, not the training
# synthesis's, so the dropout masks it keeps for backward (1 byte per
# element) came out as a quarter of an fp32 element's bytes over the fp16
# output, half their size: GPT-small b8 fp16 peaked 6 % under the file's, and
# the fp16 parallelism study's DP on GPT-2.7B at 8 GPUs fitted in the sweep
# and not from the command line (docs/parallel-study.md).
. "$TOP/tests/cli/lib.sh"

test_expect_success 'gen: spec and workload gen agree at elem_bytes 2' - <<'XEOF'
cd "$TMPDIR_TEST"
"$BAECHI" workload gen gpt --layers 2 --d-model 256 --heads 4 --seq 128 -b 4 --elem-bytes 2 --device h100 \
    --name file -o g.yaml 2> /dev/null
cat > s.yaml <<'YAML'
name: t834
workloads:
  - g.yaml
  - "gen:gpt?layers=2&d_model=256&heads=4&seq=128&batch=4&elem_bytes=2&device=h100&name=spec"
clusters: [dgx-h100-8]
devices: [1]
placers: [single]
models: [timed]
YAML
"$BAECHI" sweep s.yaml --db r.db --quiet
"$BAECHI" db query --db r.db --format csv \
    "SELECT workload, step_us, max_peak_bytes FROM runs ORDER BY workload" > rows
cat rows
[ "$(sed -n 2p rows | cut -d, -f2-)" = "$(sed -n 3p rows | cut -d, -f2-)" ]
XEOF

test_done
