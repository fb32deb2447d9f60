# check: fast
# GPT models of 1B parameters and more, trained at fp16 on one H100 or A100
# preset, reach a model FLOPs utilisation between 30 and 65 % (issue 31,
# target): the GEMM-like ops run at the tensor-core rate of the device table
# (docs/devices.md), not at the FP32 rate (about 4 % before).  MFU = model
# FLOPs of a step, 72 B s l h^2 (1 + s/6h + V/16lh) (Narayanan et al., SC'21,
# without recomputation), over the step on one GPU (the sum of the op times)
# times the dense fp16 peak.
. "$TOP/tests/cli/lib.sh"
cd "$TMPDIR_TEST"

# mfu DEVICE PEAK H L A S B: prints the MFU in percent
mfu() {
    "$BAECHI" workload gen gpt --d-model "$3" --layers "$4" --heads "$5" --seq "$6" -b "$7" \
        --elem-bytes 2 --device "$1" -o w.yaml > gen.err 2>&1 || { cat gen.err; return 1; }
    t=$(sed -n 's/.*Σ time \([0-9.]*\) \(m*s\)$/\1 \2/p' gen.err)
    test -n "$t" || { cat gen.err; return 1; }
    echo "$t" | awk -v pk="$2" -v h="$3" -v l="$4" -v s="$6" -v b="$7" '{
        sec = $2 == "ms" ? $1 / 1e3 : $1; V = 50257
        F = 72 * b * s * l * h * h * (1 + s / (6 * h) + V / (16 * l * h))
        printf "%.1f\n", 100 * F / (sec * pk) }'
}

in_band() {
    awk -v m="$1" 'BEGIN { exit !(m >= 30 && m <= 65) }' || { echo "MFU $1 % out of 30..65"; return 1; }
}

# in_doc MODEL H100 A100: docs/devices.md quotes these
in_doc() {
    grep -q "^| $1 | .* | $2 % | $3 % |$" "$TOP/docs/devices.md" ||
        { echo "docs/devices.md does not quote $1: $2 % / $3 %"; return 1; }
}

test_expect_success 'GPT 1.3B (h 2048, l 24, s 2048, b 8) fp16 on h100 and a100: MFU 30-65 %' '
    m=$(mfu h100 989.4e12 2048 24 16 2048 8) && echo "h100 $m" && in_band "$m" &&
    n=$(mfu a100 312e12 2048 24 16 2048 8) && echo "a100 $n" && in_band "$n" &&
    in_doc "GPT 1.3B" "$m" "$n"
'

test_expect_success 'GPT 2.7B (h 2560, l 32, s 2048, b 8) fp16 on h100 and a100: MFU 30-65 %' '
    m=$(mfu h100 989.4e12 2560 32 32 2048 8) && echo "h100 $m" && in_band "$m" &&
    n=$(mfu a100 312e12 2560 32 32 2048 8) && echo "a100 $n" && in_band "$n" &&
    in_doc "GPT 2.7B" "$m" "$n"
'

test_done
