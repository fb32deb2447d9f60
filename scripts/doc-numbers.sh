#!/bin/sh
# doc-numbers.sh [--check] [--cheap] [--list] [BLOCK...] - writes the numbers
# the docs quote, by running the commands each doc shows, between the lines
#
#     <!-- doc-numbers NAME: begin ... -->
#     <!-- doc-numbers NAME: end -->
#
# of the doc that holds block NAME (the table below), so that a page says
# what the program computes now.  `make doc-numbers` runs it on every block;
# rerun it whenever the simulator, the generators or the placers change.
#
#   --check   write into a copy of the docs and compare: print the diff and
#             exit 1 when a block is stale (tests/cli/t830-t833)
#   --cheap   only the blocks cheap enough for `make check` (cost "cheap"
#             below; the others need auto's searches or a sweep of the paper
#             graphs, tens of seconds of CPU)
#   --doc F   only the blocks of docs/F (repeatable)
#   --list    print the blocks: name, doc, cost
#   BLOCK...  only these blocks (default: all)
#
# Environment: BAECHI (the program, default ./baechi), DEMO_DB (a `make demo`
# database for the block `results-demo`, which scripts/demo-numbers.sh
# passes; without it the block runs the two sweeps it reports into a
# scratch database), SCALING_CSV and SCALING_WHERE_LOG (a scaling.csv of
# scripts/scaling-study.py --preset doc, and the output of --preset where,
# for the blocks `scaling-table` and `scaling-where`; without them the
# blocks rerun the study).  Every block runs in a fresh
# scratch directory: nothing is cached between runs, so a block never reports
# a result of an older build.
#
# Blocks that depend on the interleaved schedule: pipelines-sweep (its
# `interleaved` rows and the line about them); on sequence parallelism:
# the scaling-* blocks (scripts/scaling-study.py generates with --sp).
# Rerun `make doc-numbers` after either changes.  Cost: the cheap blocks
# take about 60 s of CPU together (t830-t833 and t921 check them, a page
# each); the slow ones (parallel-placers, auto-bench, results-demo: auto's
# searches and the demo's sweeps) about 25 s more, and the scaling study's
# (scaling-table, scaling-where) about 15 and 4 minutes unless SCALING_CSV
# and SCALING_WHERE_LOG name earlier outputs; only `make doc-numbers`
# reruns them.
# shellcheck disable=SC2086 # $G and the like hold several options on purpose
set -eu
cd "$(dirname "$0")/.."
TOP=$(pwd)
B=${BAECHI:-./baechi}
case $B in /*) ;; *) B=$TOP/$B ;; esac

# name doc cost
BLOCKS='
parallel-medium parallel-study.md cheap
parallel-2.7b parallel-study.md cheap
parallel-why parallel-study.md cheap
parallel-notes parallel-study.md cheap
parallel-placers parallel-study.md slow
parallel-tp-weak parallel-study.md cheap
parallel-dp-weak parallel-study.md cheap
pipelines-sweep pipelines.md cheap
pipelines-saved pipelines.md cheap
pipelines-small pipelines.md cheap
pipelines-2.7b pipelines.md cheap
micro-batches-schedules micro-batches.md cheap
micro-batches-hybrid micro-batches.md cheap
micro-batches-2.7b micro-batches.md cheap
pipeline-placer-table pipeline-placer.md cheap
pipeline-placer-refusal pipeline-placer.md cheap
pipeline-placer-memory pipeline-placer.md cheap
pipeline-placer-auto pipeline-placer.md cheap
parallelism-sp parallelism.md cheap
workloads-info workloads.md cheap
workloads-inception workloads.md cheap
auto-examples auto.md cheap
auto-deadlock auto.md cheap
auto-accounting auto.md cheap
auto-bench auto.md slow
results-demo results.md slow
symmetry-scale symmetry.md slow
symmetry-sweeps symmetry.md slow
scaling-demo scaling.md cheap
scaling-buckets scaling.md cheap
scaling-table scaling.md slow
scaling-where scaling.md slow
'

check=0 cheap=0 list=0 only_docs=""
while [ $# -gt 0 ]; do
    case $1 in
    --check) check=1 ;;
    --doc)
        [ $# -ge 2 ] || {
            echo "doc-numbers.sh: --doc needs a file name (e.g. pipelines.md)" >&2
            exit 2
        }
        echo "$BLOCKS" | grep -q " $2 " || {
            echo "doc-numbers.sh: --doc $2: no block is in docs/$2" >&2
            exit 2
        }
        only_docs="$only_docs $2"
        shift
        ;;
    --cheap) cheap=1 ;;
    --list) list=1 ;;
    -h | --help)
        sed -n '2,/^set -eu/p' "$0" | sed '$d; s/^# \{0,1\}//'
        exit 0
        ;;
    -*)
        echo "doc-numbers.sh: unknown option '$1'" >&2
        exit 2
        ;;
    *) break ;;
    esac
    shift
done
if [ $list = 1 ]; then
    echo "$BLOCKS" | sed '/^$/d'
    exit 0
fi
want=$*
for w in $want; do
    echo "$BLOCKS" | grep -q "^$w " || {
        echo "doc-numbers.sh: no block '$w' (--list names them)" >&2
        exit 2
    }
done

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
mkdir -p "$tmp/docs"
# the docs written: the real ones, or copies under --check
if [ $check = 1 ]; then D=$tmp/docs; else D=$TOP/docs; fi

# ---- helpers -------------------------------------------------------------
# A helper that fails leaves $tmp/failed (set -e does not reach into the left
# side of a pipe): write_block then stops with the message.
fail() {
    echo "doc-numbers.sh: $*" >> "$tmp/failed"
    return 1
}
# gen OUT ARGS...: `workload gen ARGS -o OUT` in the scratch directory (once)
gen() {
    out=$1
    shift
    [ -f "$W/$out" ] || $B workload gen "$@" -o "$W/$out" > "$W/gen.log" 2>&1 ||
        fail "workload gen $* failed: $(tail -1 "$W/gen.log")"
}
# timed_ms RUN-ARGS...: the timed step of `baechi run`, ms
timed_ms() {
    r=$($B run "$@" 2> "$W/run.log" | awk '/^step \(timed\)/ { print $3 }')
    [ -n "$r" ] || fail "run $* gave no timed step: $(tail -1 "$W/run.log")"
    echo "$r"
}
# sweep FILE DB: run a sweep quietly
sweep() {
    case $1 in /*) f=$1 ;; *) f=$TOP/$1 ;; esac
    $B sweep "$f" --db "$2" > "$W/sweep.log" 2>&1 ||
        fail "sweep $1 failed: $(tail -1 "$W/sweep.log")"
}
# q DB SQL: CSV rows without the header
q() {
    $B db query --db "$1" --format csv "$2" > "$W/q.csv" 2> "$W/q.log" ||
        fail "db query failed: $(tail -1 "$W/q.log")"
    sed 1d "$W/q.csv"
}

# rj OUT RUN-ARGS...: `baechi run --json` into OUT (exit 3, infeasible, is a result)
rj() {
    out=$1
    shift
    $B run "$@" --json > "$out" 2> "$W/run.log" || [ $? = 3 ] ||
        fail "run $* failed: $(tail -1 "$W/run.log")"
}
# field JSON EXPR: a Python expression over d (the run's JSON object)
field() {
    python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"
}
# ---- the parallelism study (docs/parallel-study.md) ------------------------
# rows strategy,n,status,step_ms,peak_gib of the `given` runs of a sweep
given_rows() { # db
    q "$1" "SELECT substr(workload, instr(workload, ':') + 1), n_devices, status,
        printf('%.0f', step_us / 1000.0), printf('%.1f', max_peak_bytes / 1073741824.0)
        FROM runs WHERE placer = 'given' AND sim_model = 'timed' ORDER BY n_devices, step_us, workload"
}
# a table strategy x GPUs from rows strategy,n,status,step,peak; the pure
# strategies, then best-hybrid (the fastest dDtTpP that fits), the fastest
# that fits of each column in bold
strategy_table() {
    awk -F, '
    { s = $1; n = $2; st[s, n] = $3; ms[s, n] = $4; pk[s, n] = $5; ns[n] = 1
      if (s ~ /^d[0-9]+t[0-9]+p[0-9]+$/ && $3 == "ok" && (!((n) in hb) || $4 + 0 < ms[hb[n], n] + 0)) hb[n] = s }
    END {
      split("2 4 8 16", N, " ")
      split("DP DP+ZeRO-1 DP+ZeRO-3 TP PP-1F1B", S, " ")
      for (i = 1; i <= 4; i++) if (N[i] in hb) { st["best-hybrid", N[i]] = "ok"
          ms["best-hybrid", N[i]] = ms[hb[N[i]], N[i]]; pk["best-hybrid", N[i]] = pk[hb[N[i]], N[i]] }
      S[6] = "best-hybrid"
      for (i = 1; i <= 4; i++) { best[i] = ""
        for (j = 1; j <= 6; j++) if (((S[j], N[i]) in st) && st[S[j], N[i]] == "ok" && (best[i] == "" || ms[S[j], N[i]] + 0 < ms[best[i], N[i]] + 0)) best[i] = S[j] }
      print "| strategy | 2 GPUs | 4 GPUs | 8 GPUs | 16 GPUs (2 nodes) |"
      print "|---|---|---|---|---|"
      for (j = 1; j <= 6; j++) {
        line = "| " S[j]
        for (i = 1; i <= 4; i++) {
          k = S[j] SUBSEP N[i]
          if (!(k in st)) c = "–"
          else if (st[k] == "infeasible") c = "infeasible"
          else { c = (best[i] == S[j] ? "**" ms[k] "**" : ms[k]) " / " pk[k]
                 if (st[k] == "oom") c = c " oom"
                 if (S[j] == "best-hybrid") c = c " (" hb[N[i]] ")" }
          line = line " | " c
        }
        print line " |"
      }
      # the verdict per column: the fastest that fits, and the hybrid and
      # plain DP against it
      print ""
      for (i = 1; i <= 4; i++) {
        if (best[i] == "") { print "* " N[i] " GPUs: nothing fits."; continue }
        l = "* " N[i] " GPUs: fastest that fits " best[i] " (" ms[best[i], N[i]] " ms)"
        if (N[i] in hb && best[i] != "best-hybrid")
          l = l sprintf("; best-hybrid %s %.2fx", hb[N[i]], ms["best-hybrid", N[i]] / ms[best[i], N[i]])
        if (best[i] != "DP") l = l (st["DP", N[i]] == "ok" ? sprintf("; DP %.2fx", ms["DP", N[i]] / ms[best[i], N[i]]) : "; DP does not fit")
        print l "."
      }
    }'
}
parallel_given() { # sweep-file
    sweep "data/sweeps/$1" "$W/p.db"
    given_rows "$W/p.db"
}
# the given runs of one model's sweep: the strategy table, then every hybrid
# fastest first (best-hybrid is the first that fits)
parallel_block() { # sweep-file
    echo
    parallel_given "$1" > "$W/rows"
    strategy_table < "$W/rows"
    echo
    echo "Every hybrid dDtTpP, step (ms) / peak (GiB), fastest first:"
    echo
    echo "| GPUs | hybrids |"
    echo "|---|---|"
    awk -F, '$1 ~ /^d[0-9]+t[0-9]+p[0-9]+$/ { print $2, $4 + 0, $1 " " $4 " / " $5 ($3 == "ok" ? "" : " " $3) }' "$W/rows" |
        sort -k1,1n -k2,2n | awk '
        { n = $1; $1 = ""; $2 = ""; sub(/^ +/, "")
          if (!(n in c)) { c[n] = $0; o[++k] = n } else c[n] = c[n] ", " $0 }
        END { for (i = 1; i <= k; i++) print "| " o[i] " | " c[o[i]] " |" }'
    echo
}
blk_parallel_medium() { parallel_block parallel.yaml; }
blk_parallel_2_7b() { parallel_block parallel-2.7b.yaml; }
# why the hybrids lose to DP: the same graphs with communication free
# (--comm-factor 0) and the lower bound (the busiest device's compute)
blk_parallel_why() {
    G="gpt --size medium --device h100 --elem-bytes 2 --optimizer adam"
    gen dp.yaml $G -b 8 --dp 8
    gen tp.yaml $G -b 16 --micro-batches 2 --dp 4 --tp 2
    gen pp.yaml $G -b 16 --micro-batches 8 --dp 4 --pp 2
    gen z3.yaml $G -b 8 --dp 8 --zero 3
    echo
    echo "| GPT-2 medium, 8 GPUs | step (ms) | step, communication free (ms) | busiest GPU's compute (ms) |"
    echo "|---|---|---|---|"
    for w in dp:DP z3:DP+ZeRO-3 tp:d4t2p1 pp:d4t1p2; do
        f=$W/${w%%:*}.yaml
        a=$(timed_ms -w "$f" -c dgx-h100-2x8 -k 8 -p given)
        b=$(timed_ms -w "$f" -c dgx-h100-2x8 -k 8 -p given --comm-factor 0)
        lb=$($B run -w "$f" -c dgx-h100-2x8 -k 8 -p given --json 2> /dev/null |
            python3 -c 'import json, sys; print("%.1f" % (json.load(sys.stdin)["simple_lower_bound_us"] / 1000))')
        echo "| ${w#*:} | $a | $b | $lb |"
    done
    echo
}
# facts the prose rests on, each with its command: why m-ETF refuses, why
# auto refuses GPT-2.7B at 2 and 4 GPUs, what auto does with a DP graph, and
# DP against ZeRO-1 for GPT-2.7B on 8 GPUs
blk_parallel_notes() {
    G="--device h100 --elem-bytes 2 --optimizer adam"
    gen um.yaml gpt --size medium $G -b 64 --micro-batches 8
    gen u27.yaml gpt --size 2.7b $G -b 64 --micro-batches 8
    gen a2.yaml gpt --size medium -b 8 $G --dp 2
    gen d8.yaml gpt --size 2.7b $G -b 8 --dp 8
    gen z8.yaml gpt --size 2.7b $G -b 8 --dp 8 --zero 1
    echo
    rj "$W/o.json" -w "$W/um.yaml" -c dgx-h100-2x8 -k 16 -p m-etf
    echo "* m-ETF on GPT-2 medium, 16 GPUs (\`baechi run -w gpt-medium.yaml -c dgx-h100-2x8 -k 16 -p m-etf\`):"
    echo "  $(field "$W/o.json" 'd["reason"].split("; largest")[0]')."
    for mk in um:medium:2 u27:2.7b:2 u27:2.7b:4; do
        f=${mk%%:*} k=${mk##*:} m=${mk#*:}
        m=${m%:*}
        case $m in medium) label="GPT-2 medium" ;; *) label="GPT-2.7B" ;; esac
        rj "$W/o.json" -w "$W/$f.yaml" -c dgx-h100-2x8 -k $k -p m-topo --explain-memory
        echo "* m-TOPO on $label, $k GPUs (\`baechi run -w gpt-$m.yaml -c dgx-h100-2x8 -k $k -p m-topo\`):"
        echo "  $(field "$W/o.json" '"gpu0 peaks at %.1f GiB in the timed model and %.1f GiB in the baechi model (limit %.1f GiB)" % (d["memory_explain"]["timed"][0]["peak"]["total_bytes"] / 2**30, d["memory_explain"]["baechi"][0]["peak"]["total_bytes"] / 2**30, d["memory_explain"]["timed"][0]["limit_bytes"] / 2**30)')."
    done
    rj "$W/o.json" -w "$W/a2.yaml" -c dgx-h100-2x8 -k 2 -p auto
    echo "* auto on GPT-2 medium DP = 2, b 8 per replica (\`baechi run -w a2.yaml -c dgx-h100-2x8 -k 2 -p auto\`):"
    echo "  $(field "$W/o.json" '"starts from %s at %.3f ms and ends at %.3f ms, lower bound %.3f ms" % (d["placement_stats"]["start"], d["placement_stats"]["start_step_us"] / 1e3, d["sim"]["timed"]["step_us"] / 1e3, d["lower_bound_us"] / 1e3)');"
    echo "  the graph's own placement (\`-p given\`): $(timed_ms -w "$W/a2.yaml" -c dgx-h100-2x8 -k 2 -p given) ms."
    for z in d8:DP z8:DP+ZeRO-1; do
        rj "$W/o.json" -w "$W/${z%%:*}.yaml" -c dgx-h100-2x8 -k 8 -p given
        echo "* GPT-2.7B ${z#*:}, 8 GPUs, b 8 per replica: $(field "$W/o.json" '"step %.1f ms, the busiest GPU computes %.1f ms, peak %.1f GiB" % (d["sim"]["timed"]["step_us"] / 1e3, d["simple_lower_bound_us"] / 1e3, max(x["peak_bytes"] for x in d["sim"]["timed"]["devices"]) / 2**30)')."
    done
    echo
}
# the op placers on the unparallelised graphs (auto's search: the slow part)
blk_parallel_placers() {
    echo
    echo "| model | placer | 2 GPUs | 4 GPUs | 8 GPUs | 16 GPUs (2 nodes) |"
    echo "|---|---|---|---|---|---|"
    for m in parallel:GPT-2\ medium parallel-2.7b:GPT-2.7B; do
        s=${m%%:*}
        db=$W/$s-placers.db
        sweep "data/sweeps/${s%%-*}-placers${s#parallel}.yaml" "$db"
        q "$db" "SELECT placer, n_devices, status, printf('%.0f', step_us / 1000.0),
            printf('%.1f', max_peak_bytes / 1073741824.0) FROM runs
            WHERE sim_model = 'timed' ORDER BY n_devices" |
            awk -F, -v model="${m#*:}" '
            { k = $1 SUBSEP $2; c[k] = ($3 == "infeasible" ? "infeasible" : $4 " / " $5 ($3 == "ok" ? "" : " " $3)) }
            END { split("m-topo m-etf m-sct auto", P, " "); split("2 4 8 16", N, " ")
                  for (j = 1; j <= 4; j++) { l = "| " model " | " P[j]
                      for (i = 1; i <= 4; i++) l = l " | " ((P[j] SUBSEP N[i]) in c ? c[P[j], N[i]] : "–")
                      print l " |" } }'
    done
    echo
}
# Megatron TP weak scaling in one node: width grows with T
blk_parallel_tp_weak() {
    echo
    echo "| T | d | step (ms), vocab 50,257 | efficiency | step (ms), vocab 1,024 | efficiency |"
    echo "|---|---|---|---|---|---|"
    for row in 1:1024:16 2:1536:24 4:2048:32 8:3072:48; do
        t=${row%%:*} r=${row#*:}
        d=${r%%:*} h=${r#*:}
        line="| $t | $d"
        for v in 50257 1024; do
            G="gpt --layers 24 --d-model $d --heads $h --vocab $v -b 8 --device h100 --elem-bytes 2 --optimizer adam"
            # model FLOPs of the unsplit graph (the generator's summary)
            fl=$($B workload gen $G -o "$W/u.yaml" 2>&1 | sed -n 's/.*, \([0-9.e+]*\) GFLOP,.*/\1/p')
            if [ "$t" = 1 ]; then
                ms=$(timed_ms -w "$W/u.yaml" -c dgx-h100-8 -k 1 -p single)
            else
                $B workload gen $G --tp "$t" -o "$W/t.yaml" > /dev/null 2>&1
                ms=$(timed_ms -w "$W/t.yaml" -c dgx-h100-8 -k "$t" -p given)
            fi
            # efficiency: model FLOPs / step / T against T = 1's
            eff=$(awk -v f="$fl" -v ms="$ms" -v t="$t" 'BEGIN { printf "%.6g", f / ms / t }')
            if [ "$t" = 1 ]; then eval "base$v=$eff"; fi
            line="$line | $ms | $(eval awk -v e="$eff" -v b="\$base$v" "'BEGIN { printf \"%.1f %%\", 100 * e / b }'")"
        done
        echo "$line |"
    done
    echo
}
# DDP weak scaling over two nodes, b 8 per replica
blk_parallel_dp_weak() {
    echo
    echo "| D | GPT-2 medium step (ms) | efficiency | GPT-2.7B step (ms) | efficiency |"
    echo "|---|---|---|---|---|"
    for d in 1 2 4 8 16; do
        line="| $d"
        if [ $d = 16 ]; then line="$line (2 nodes)"; fi
        for s in medium 2.7b; do
            G="gpt --size $s -b 8 --device h100 --elem-bytes 2 --optimizer adam"
            if [ $d = 1 ]; then
                gen "dp-$s-1.yaml" $G
                ms=$(timed_ms -w "$W/dp-$s-1.yaml" -c dgx-h100-2x8 -k 1 -p single)
                eval "one_$(echo $s | tr . _)=$ms"
            else
                gen "dp-$s-$d.yaml" $G --dp $d
                ms=$(timed_ms -w "$W/dp-$s-$d.yaml" -c dgx-h100-2x8 -k $d -p given)
            fi
            one=$(eval echo "\$one_$(echo $s | tr . _)")
            line="$line | $ms | $(awk -v a="$one" -v b="$ms" 'BEGIN { printf "%.2f %%", 100 * a / b }')"
        done
        echo "$line |"
    done
    echo
}

# ---- pipelines (docs/pipelines.md, micro-batches.md, pipeline-placer.md) ----
# the pipeline sweep: per cluster a step table and a device-0 peak table,
# a row per placer and schedule (+full: with recomputation)
blk_pipelines_sweep() {
    sweep data/sweeps/pipeline.yaml "$W/p.db"
    q "$W/p.db" "SELECT r.cluster, r.placer, r.workload, r.status,
        printf('%.1f', r.step_us / 1000.0), printf('%.2f', d.peak_bytes / 1073741824.0)
        FROM runs r LEFT JOIN devices d ON d.run_id = r.id AND d.device = 0
        WHERE r.sim_model = 'timed' ORDER BY r.cluster, r.placer, r.workload" > "$W/rows"
    for c in dgx-h100-8:"dgx-h100-8, 4 GPUs" paper-4gpu-pcie:paper-4gpu-pcie; do
        for y in step:"step (ms)" peak0:"device 0's peak (GiB)"; do
            echo
            echo "### ${c#*:}: ${y#*:}"
            echo
            echo "| placer | schedule | M = 1 | M = 2 | M = 4 | M = 8 |"
            echo "|---|---|---|---|---|---|"
            awk -F, -v c="${c%%:*}" -v y="${y%%:*}" '
                $1 == c { split($3, w, "_"); m = substr(w[3], 3); s = w[4]
                  sub(/^interleaved2$/, "interleaved V=2", s); if ($3 ~ /_rcfull$/) s = s "+full"
                  k = $2 SUBSEP s; if (!(k in seen)) { seen[k] = 1; o[++n] = k }
                  v = (y == "step" ? $5 : $6)
                  c2[k, m] = ($4 == "infeasible" ? "– infeasible" : v ($4 == "oom" ? " oom" : "")) }
                END { for (i = 1; i <= n; i++) { split(o[i], a, SUBSEP); l = "| " a[1] " | " a[2]
                        for (m = 1; m <= 8; m *= 2) l = l " | " c2[o[i], m]
                        print l " |" } }' "$W/rows"
        done
    done
    echo
    echo "In numbers (the tables above):"
    echo
    python3 - "$W/rows" << 'PY'
import csv, sys
r = {}
for c, p, w, st, ms, pk in csv.reader(open(sys.argv[1])):
    part = w.split("_")
    r[c, p, part[3] + ("+full" if w.endswith("_rcfull") else ""), int(part[2][2:])] = (st, float(ms or 0), float(pk or 0))
D = "dgx-h100-8"
for p in ("m-topo", "pipeline"):
    print("* %s, 1f1b, dgx-h100-8: %.1f ms at M = 1, %.1f ms at M = 8 (%.2fx faster)." % (p, r[D, p, "1f1b", 1][1], r[D, p, "1f1b", 8][1], r[D, p, "1f1b", 1][1] / r[D, p, "1f1b", 8][1]))
cost = [r[D, p, s + "+full", m][1] / r[D, p, s, m][1] - 1 for p in ("m-topo", "pipeline") for s in ("gpipe", "1f1b") for m in (1, 2, 4, 8)]
print("* Full recomputation costs %.0f-%.0f %% of the step on dgx-h100-8 (gpipe and 1f1b, both placers, every M)." % (100 * min(cost), 100 * max(cost)))
print("* Stage 0's peak at M = 8, m-TOPO: %.2f GiB under 1f1b, %.2f GiB under gpipe; %.2f GiB at M = 1; %.2f GiB with full recomputation (1f1b, M = 8)." % (r[D, "m-topo", "1f1b", 8][2], r[D, "m-topo", "gpipe", 8][2], r[D, "m-topo", "1f1b", 1][2], r[D, "m-topo", "1f1b+full", 8][2]))
i, o = r[D, "pipeline", "interleaved2", 8][1], r[D, "pipeline", "1f1b", 8][1]
print("* Interleaved V = 2 with the pipeline placer at M = 8: %.1f ms, %.0f %% under its 1f1b (%.1f ms); with m-TOPO (one chunk a device) it is 1f1b: %.1f ms both." % (i, 100 * (1 - i / o), o, r[D, "m-topo", "interleaved2", 8][1]))
P = "paper-4gpu-pcie"
fit = ["%s %s M = %d (%.2f GiB)" % (p, s, m, v[2]) for (c, p, s, m), v in sorted(r.items()) if c == P and "+full" not in s and v[0] == "ok"]
print("* paper-4gpu-pcie without recomputation, what fits: %s." % (", ".join(fit) if fit else "nothing"))
full = [v for (c, p, s, m), v in r.items() if c == P and "+full" in s]
print("* paper-4gpu-pcie with full recomputation: %d of %d configurations fit, stage 0 at most %.2f GiB; at M = 8 %.1f-%.1f ms." % (
    sum(v[0] == "ok" for v in full), len(full), max(v[2] for v in full),
    min(v[1] for (c, p, s, m), v in r.items() if c == P and "+full" in s and m == 8),
    max(v[1] for (c, p, s, m), v in r.items() if c == P and "+full" in s and m == 8)))
PY
    echo
}
# target 1: stage 0's saved activations under 1F1B, M = 8 against M = 1
# sequence parallelism: GPT-medium at --tp 4 on dgx-h100-8, with and without --sp
blk_parallelism_sp() {
    for sp in "" --sp; do
        gen sp$sp.yaml gpt --size medium -b 8 --seq 1024 --elem-bytes 2 --optimizer adam \
            --device h100 --tp 4 $sp
        $B sim -w "$W/sp$sp.yaml" -c dgx-h100-8 --placement given --json > "$W/sp$sp.json" \
            2> /dev/null || fail "sim sp$sp.yaml failed"
    done
    python3 - "$W/sp.json" "$W/sp--sp.json" << 'PY'
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:])
pk = lambda j: j["devices"][0]["peak_bytes"] / 2**30
print()
print("On GPT-medium (b 8, s 1024, fp16, Adam, H100 times) at `--tp 4` on `dgx-h100-8`, gpu0's")
print("peak goes from %.2f to %.2f GiB and the step from %.1f to %.1f ms with `--sp` (the timed"
      % (pk(a), pk(b), a["step_us"] / 1000, b["step_us"] / 1000))
print("model, `baechi sim --placement given`).")
print()
PY
}
blk_pipelines_saved() {
    echo
    echo "| M | saved (GiB), gpu0 | gradients | parameters + optimizer | saved, gpu3 |"
    echo "|---|---|---|---|---|"
    for m in 1 8; do
        gen gm$m.yaml gpt --size medium -b 8 --device h100 --micro-batches $m --schedule 1f1b
        $B run -w "$W/gm$m.yaml" -c dgx-h100-8 -k 4 -p m-topo --explain-memory --json > "$W/gm$m.json" 2> /dev/null ||
            fail "run gm$m.yaml failed"
        python3 - "$W/gm$m.json" $m << 'PY'
import json, sys
t = json.load(open(sys.argv[1]))["memory_explain"]["timed"]
g = lambda d, k: d["peak"]["by_kind"][k] / 2**30
m = sys.argv[2]
print("| %s | %.2f | %.2f | %.2f | %.2f |" % (m + (" (1F1B)" if m != "1" else ""), g(t[0], "saved"),
      g(t[0], "gradients"), g(t[0], "parameters") + g(t[0], "optimizer"), g(t[3], "saved")))
PY
    done
    python3 - "$W/gm1.json" "$W/gm8.json" << 'PY'
import json, sys
s = [json.load(open(f))["memory_explain"]["timed"][0]["peak"]["by_kind"]["saved"] / 2**30 for f in sys.argv[1:]]
print()
print("%.2f / %.2f = **%.2f**" % (s[1], s[0], s[1] / s[0]))
PY
    echo
}
# target 2: GPT-small, seq 512, on the PCIe machine, M = 1..8
blk_pipelines_small() {
    echo
    l1="| M" l2="| step (ms), m-TOPO"
    for m in 1 2 4 8; do
        gen s$m.yaml gpt --size small -b 8 --seq 512 --micro-batches $m
        l1="$l1 | $m" l2="$l2 | $(timed_ms -w "$W/s$m.yaml" -c paper-4gpu-pcie -p m-topo)"
    done
    echo "$l1 |"
    echo "|---|---|---|---|---|"
    echo "$l2 |"
    echo
}
# target 3: GPT-2.7B b8 on 4 GPUs of dgx-h100-8 at memory fraction 0.3
blk_pipelines_2_7b() {
    echo
    echo "| recompute | M | placer | step | gpu0 peak, baechi / timed model (GiB) | fits |"
    echo "|---|---|---|---|---|---|"
    for row in none:1:m-topo none:1:pipeline none:8:m-topo none:8:pipeline selective:1:m-topo \
        selective:8:m-topo full:1:m-topo full:1:pipeline full:8:m-topo full:8:pipeline; do
        r=${row%%:*} x=${row#*:}
        m=${x%%:*} p=${x#*:}
        gen g-$r-$m.yaml gpt --size 2.7b -b 8 --device h100 --micro-batches $m --recompute $r
        rj "$W/o.json" -w "$W/g-$r-$m.yaml" -c dgx-h100-8 -k 4 -p $p --memory-fraction 0.3 --explain-memory
        python3 - "$W/o.json" "$r" "$m" "$p" << 'PY'
import json, sys
d = json.load(open(sys.argv[1]))
r, m, p = sys.argv[2:5]
if not d["feasible"]:
    print("| %s | %s | %s | – | – | no: infeasible (%s) |" % (r, m, p, d["reason"].split(": ", 1)[1].split(" fits")[0] + " fits"))
    sys.exit()
b = d["memory_explain"]["baechi"][0]["peak"]["total_bytes"] / 2**30
t = d["memory_explain"]["timed"][0]["peak"]["total_bytes"] / 2**30
lim = d["memory_explain"]["timed"][0]["limit_bytes"] / 2**30
fits = t <= lim and b <= lim
why = "**yes**" if fits else "no (%s)" % ("out of memory" if t > lim else "the baechi model's peak is over")
print("| %s | %s | %s | %.3f s | %.2f / %.2f | %s |" % (r, m, p, d["sim"]["timed"]["step_us"] / 1e6, b, t, why))
PY
    done
    echo
}
# micro-batches.md: GPT-medium b8 on 4 stages, per schedule and M
blk_micro_batches_schedules() {
    echo
    echo "| schedule | M | step ms | stage 0 saved / peak | last stage saved / peak |"
    echo "|---|---|---|---|---|"
    for s in gpipe 1f1b; do
        for m in 1 2 4 8; do
            gen gm$m.yaml gpt --size medium -b 8 --device h100 --micro-batches $m
            rj "$W/o.json" -w "$W/gm$m.yaml" -c dgx-h100-8 -k 4 -p m-topo --schedule $s --explain-memory
            python3 - "$W/o.json" $s $m << 'PY'
import json, sys
d = json.load(open(sys.argv[1]))
t = d["memory_explain"]["timed"]
g = lambda i, k: (t[i]["peak"]["by_kind"][k] if k else t[i]["peak"]["total_bytes"]) / 2**30
print("| %s | %s | %.1f | %.2f / %.2f | %.2f / %.2f |" % (sys.argv[2], sys.argv[3], d["sim"]["timed"]["step_us"] / 1e3,
      g(0, "saved"), g(0, None), g(3, "saved"), g(3, None)))
PY
        done
    done
    echo
}
# micro-batches.md: a DP x TP hybrid without pipeline stages, both schedules
blk_micro_batches_hybrid() {
    gen h16.yaml gpt --size medium -b 16 --micro-batches 2 --device h100
    $B workload parallelize "$W/h16.yaml" --dp 2 --tp 2 -o "$W/h16p.yaml" > /dev/null 2>&1 ||
        fail "workload parallelize failed"
    echo
    for sc in 1f1b gpipe; do
        ms=$($B sim -w "$W/h16p.yaml" -c dgx-h100-8 --placement given --schedule $sc 2> /dev/null |
            awk '/^step time/ { print $3 }')
        [ -n "$ms" ] || fail "sim --schedule $sc gave no step"
        echo "* \`--schedule $sc\`: step $ms ms"
    done
    echo
}
# micro-batches.md: GPT-2.7B, 8 micro-batches, the placers at half the memory
blk_micro_batches_2_7b() {
    gen g27.yaml gpt --size 2.7b -b 8 --micro-batches 8 --device h100
    echo
    c=$($B workload info "$W/g27.yaml" --json | python3 -c 'import json, sys; print("%.1f" % (json.load(sys.stdin)["total_compute_us"] / 1e3))')
    for p in m-topo m-etf paper; do
        rj "$W/o.json" -w "$W/g27.yaml" -c dgx-h100-8 -p $p --memory-fraction 0.5
        echo "* $p: $(field "$W/o.json" '("timed step %.1f ms (%s), %.2fx faster than the %s ms of compute on one device" % (d["sim"]["timed"]["step_us"] / 1e3, "out of memory" if d["sim"]["timed"]["oom"] else "fits", '"$c"' / (d["sim"]["timed"]["step_us"] / 1e3), "'"$c"'")) if d["feasible"] else "infeasible: " + d["reason"].split(" not scheduled")[0] + " not scheduled"')"
    done
    echo
}
# pipeline-placer.md: the placers on GPT small and medium, M = 1, 4, 8
blk_pipeline_placer_table() {
    echo
    echo "| model | M | cluster | pipeline | m-topo | m-etf |"
    echo "|---|---|---|---|---|---|"
    for sz in small medium; do
        for c in paper-4gpu-pcie dgx-h100-8; do
            for m in 1 4 8; do
                if [ $c = dgx-h100-8 ]; then
                    gen $sz-$m-h.yaml gpt --size $sz -b 8 --micro-batches $m --device h100
                    w=$W/$sz-$m-h.yaml k="-k 4" cn="dgx-h100-8 -k 4"
                else
                    gen $sz-$m.yaml gpt --size $sz -b 8 --micro-batches $m
                    w=$W/$sz-$m.yaml k="" cn=$c
                fi
                l="| $sz | $m | $cn"
                for p in pipeline m-topo m-etf; do
                    # shellcheck disable=SC2086 # k is empty or "-k 4"
                    rj "$W/o.json" -w "$w" -c $c $k -p $p
                    l="$l | $(field "$W/o.json" '("%.1f" % (d["sim"]["timed"]["step_us"] / 1e3) + (" OOM" if d["sim"]["timed"]["oom"] else "")) if d["feasible"] else "infeasible"')"
                done
                echo "$l |"
            done
        done
    done
    echo
}
# the placer's refusal, as it words it
blk_pipeline_placer_refusal() {
    gen mg8.yaml gpt --size medium -b 8 --micro-batches 8 --schedule gpipe
    rj "$W/o.json" -w "$W/mg8.yaml" -c paper-4gpu-pcie -p pipeline
    echo
    echo '```'
    # the message as `run` prints it, folded as the page shows it
    echo "baechi: $(field "$W/o.json" 'd["reason"]')" | fold -s -w 80 | sed 's/ $//'
    echo '```'
    echo
}
# the placer's memory accounting against the timed peaks (GPipe: the two agree)
blk_pipeline_placer_memory() {
    gen pg4.yaml gpt --size small -b 8 --micro-batches 4 --schedule gpipe
    rj "$W/o.json" -w "$W/pg4.yaml" -c paper-4gpu-pcie -p pipeline
    echo
    field "$W/o.json" '"\n".join(["| device | planned (GiB) | timed peak (GiB) |", "|---|---|---|"] + ["| gpu%d | %.2f | %.2f |" % (i, p["peak_bytes"] / 2**30, t["peak_bytes"] / 2**30) for i, (p, t) in enumerate(zip(d["placer_memory"], d["sim"]["timed"]["devices"]))])'
    echo
}
# auto's start and end on pipelined GPT-small
blk_pipeline_placer_auto() {
    echo
    echo "| case | pipeline | m-topo | auto: start | auto: end |"
    echo "|---|---|---|---|---|"
    gen a8.yaml gpt --size small -b 8 --micro-batches 8 --device h100
    gen a4.yaml gpt --size small -b 8 --micro-batches 4
    for c in "a8.yaml:GPT-small b8 M = 8, h100, dgx-h100-8 -k 4:-c dgx-h100-8 -k 4" \
        "a4.yaml:GPT-small b8 M = 4, paper-4gpu-pcie:-c paper-4gpu-pcie"; do
        f=${c%%:*} r=${c#*:}
        name=${r%%:*} args=${r#*:}
        # shellcheck disable=SC2086 # args are options
        l="| $name | $(timed_ms -w "$W/$f" $args -p pipeline) | $(timed_ms -w "$W/$f" $args -p m-topo)"
        # shellcheck disable=SC2086
        rj "$W/o.json" -w "$W/$f" $args -p auto
        echo "$l | $(field "$W/o.json" '"%s %.3f" % (d["placement_stats"]["start"], d["placement_stats"]["start_step_us"] / 1e3)') | $(field "$W/o.json" '"%.3f" % (d["sim"]["timed"]["step_us"] / 1e3)') |"
    done
    echo
}
# ---- workloads (docs/workloads.md): `workload info` of the shipped and
# generated workloads
blk_workloads_info() {
    echo
    echo "| workload | command | ops (fwd/bwd/upd) | parameters | Σ compute | critical path | persistent | Σ outputs |"
    echo "|---|---|---|---|---|---|---|---|"
    n=0
    while IFS='|' read -r shown args; do
        n=$((n + 1))
        # shellcheck disable=SC2086 # args are the command's words
        set -- $args
        cmd=$1
        shift
        (cd "$TOP" && $B workload "$cmd" "$@" -o "$W/w$n.yaml") > "$W/w$n.txt" 2>&1 || fail "workload $args failed"
        $B workload info "$W/w$n.yaml" --json > "$W/w$n.json"
        python3 - "$W/w$n.json" "$W/w$n.txt" "$shown" << 'PY'
import json, re, sys
d = json.load(open(sys.argv[1]))
# the generator's, importer's or trainer's summary: "23.83 M parameters"
params = float(re.search(r"([0-9.]+) M parameters", open(sys.argv[2]).read()).group(1)) * 1e6
def ms(us):
    return "{:,.1f} ms".format(us / 1000)
def size(b):
    return "%.2f GiB" % (b / 2**30) if b >= 2**30 else "%.1f MiB" % (b / 2**20)
ph = d["phases"]
ops = "%d (%d/%d/%d)%s" % (d["n_ops"], ph["forward"], ph["backward"], ph["update"], "*" if d["n_pruned"] else "")
print("| %s | %s | %s | %s M | %s | %s | %s | %s |" % (d["workload"], sys.argv[3], ops, "{:,.2f}".format(params / 1e6),
      ms(d["total_compute_us"]), ms(d["critical_path_us"]), size(d["persistent_bytes"]), size(d["output_bytes"])))
PY
    done << 'ROWS'
`gen inception-v3`|gen inception-v3
`gen inception-v3 -b 64`|gen inception-v3 -b 64
`gen gnmt`|gen gnmt
`gen transformer`|gen transformer
`gen transformer --size big`|gen transformer --size big
`gen gpt` (seq 1024)|gen gpt
`gen gpt --size xl -b 1`|gen gpt --size xl -b 1
`train data/workloads/gnmt_v2/gnmt_v2_b128_fwd.yaml`|train data/workloads/gnmt_v2/gnmt_v2_b128_fwd.yaml
`import tests/data/onnx/resnet50.onnx --train -b 32` (with its default cross-entropy loss)|import tests/data/onnx/resnet50.onnx --train -b 32
`import tests/data/onnx/inception_v3.onnx --train -b 32` (likewise)|import tests/data/onnx/inception_v3.onnx --train -b 32
ROWS
    echo
    # the pruned count of the one row that has a star
    python3 - "$W"/w*.json << 'PY'
import json, sys
for f in sys.argv[1:]:
    d = json.load(open(f))
    if d["n_pruned"]:
        print("\\* after pruning {:,} dangling forward ops ({:,} ops in the file).".format(d["n_pruned"], d["n_ops_in_file"]))
PY
    echo
}
# workloads.md: Inception-V3 b32 on the paper's machine, every placer
blk_workloads_inception() {
    gen i32.yaml inception-v3
    echo
    echo "| placer | single | m-etf | m-sct | paper | m-topo |"
    echo "|---|---|---|---|---|---|"
    for m in baechi timed; do
        l="| step (ms), $m model"
        for p in single m-etf m-sct paper m-topo; do
            l="$l | $($B run -w "$W/i32.yaml" -c paper-4gpu-pcie -p $p 2> /dev/null | awk -v m="($m)" '$1 == "step" && $2 == m { print $3 }')"
        done
        echo "$l |"
    done
    echo
}
# ---- auto.md -----------------------------------------------------------
# place_says ARGS...: the first line `baechi place` prints (placed, or why
# not), without the list of the largest tensors
place_says() {
    $B place "$@" -o /dev/null 2>&1 | head -1 | sed 's/; largest there:.*//; s/ in [0-9.]* [mµ]*s;/;/'
}
# the original's placers on training graphs: what each command answers
blk_auto_deadlock() {
    gen inception.yaml inception-v3 -b 64 --device rtx2080
    gen gpt27.yaml gpt --size 2.7b -b 8 --device h100
    gen gptm.yaml gpt --size medium -b 8 --device h100
    echo
    echo '```'
    echo "baechi workload gen inception-v3 -b 64 --device rtx2080 -o inception.yaml"
    for p in m-etf m-sct m-etf-reserve paper; do
        echo "baechi place -w inception.yaml -c paper-4gpu-pcie -p $p -o /dev/null"
        place_says -w "$W/inception.yaml" -c paper-4gpu-pcie -p $p | fold -s -w 76 | sed 's/^/  /; s/ $//'
    done
    echo "baechi workload gen gpt --size 2.7b -b 8 --device h100 -o gpt27.yaml"
    echo "baechi place -w gpt27.yaml -c dgx-h100-8 --memory-fraction 0.5 -p m-etf -o /dev/null"
    place_says -w "$W/gpt27.yaml" -c dgx-h100-8 --memory-fraction 0.5 -p m-etf | fold -s -w 76 | sed 's/^/  /; s/ $//'
    echo "baechi workload gen gpt --size medium -b 8 --device h100 -o gptm.yaml"
    echo "baechi place -w gptm.yaml -c dgx-h100-8 --memory-fraction 0.5 -p m-etf -o /dev/null"
    place_says -w "$W/gptm.yaml" -c dgx-h100-8 --memory-fraction 0.5 -p m-etf | fold -s -w 76 | sed 's/^/  /; s/ $//'
    echo '```'
    echo
    echo "GPT-medium at a memory fraction of 0.1 (\`baechi run -w gptm.yaml -c dgx-h100-8 --memory-fraction 0.1 -p P\`, timed model):"
    echo
    for p in m-topo auto; do
        rj "$W/o.json" -w "$W/gptm.yaml" -c dgx-h100-8 --memory-fraction 0.1 -p $p
        echo "* $p: $(field "$W/o.json" '("%.1f ms, %s, lower bound %.1f ms" % (d["sim"]["timed"]["step_us"] / 1e3, "fits" if d["verdict"]["fits"] else "out of memory", d["lower_bound_us"] / 1e3)) if d["feasible"] else "infeasible"')"
    done
    echo
}
# where the placers' accounting and the two models disagree
blk_auto_accounting() {
    gen gptm.yaml gpt --size medium -b 8 --device h100
    (cd "$TOP" && $B workload import tests/data/onnx/resnet50.onnx --train -b 32 -o "$W/resnet50.yaml") > /dev/null 2>&1 ||
        fail "import resnet50 failed"
    gen transformer.yaml transformer --size base -b 64
    echo
    echo "| command | placer's count | baechi model | timed model | limit | auto (timed) |"
    echo "|---|--:|--:|--:|--:|--:|"
    for c in "gptm.yaml:dgx-h100-8:0.1:m-topo" "resnet50.yaml:paper-4gpu-pcie:0.5:m-etf" \
        "transformer.yaml:paper-4gpu-pcie:0.2:m-etf"; do
        IFS=: read -r w cl mf p << EOF
$c
EOF
        rj "$W/o.json" -w "$W/$w" -c $cl --memory-fraction $mf -p $p --explain-memory
        rj "$W/a.json" -w "$W/$w" -c $cl --memory-fraction $mf -p auto
        a=$(field "$W/a.json" '("%.1f ms" % (d["sim"]["timed"]["step_us"] / 1e3)) if d["feasible"] else "infeasible"')
        if [ "$(field "$W/o.json" 'd["feasible"]')" = False ]; then
            echo "| \`run -w $w -c $cl --memory-fraction $mf -p $p\` | infeasible | | | | $a |"
            continue
        fi
        field "$W/o.json" '"| `run -w '"$w"' -c '"$cl"' --memory-fraction '"$mf"' -p '"$p"'` (gpu%d) | %.2f GiB | %.2f GiB | %.2f GiB%s | %.2f GiB | '"$a"' |" % ((lambda i: (i, d["placer_memory"][i]["peak_bytes"] / 2**30, d["sim"]["baechi"]["devices"][i]["peak_bytes"] / 2**30, d["sim"]["timed"]["devices"][i]["peak_bytes"] / 2**30, ", OOM" if d["sim"]["timed"]["devices"][i]["oom"] else "", d["sim"]["timed"]["devices"][i]["limit_bytes"] / 2**30))(max(range(len(d["sim"]["timed"]["devices"])), key=lambda i: d["sim"]["timed"]["devices"][i]["peak_bytes"])))' |
            sed 's/) | 0\.00 GiB |/) | – (none) |/'
    done
    echo
}
# the examples: MobileNet-V2's zero-cost sources and GNMT forward
blk_auto_examples() {
    (cd "$TOP" && $B workload import tests/data/onnx/mobilenet_v2.onnx --train -b 32 -o "$W/mbv2.yaml") > /dev/null 2>&1 ||
        fail "import mobilenet_v2 failed"
    echo
    echo '```'
    echo "/usr/bin/python3 scripts/export-onnx.py   # or use the committed tests/data/onnx/mobilenet_v2.onnx"
    echo "baechi workload import tests/data/onnx/mobilenet_v2.onnx --train -b 32 -o mbv2.yaml"
    for p in m-etf single auto; do
        echo "baechi run -w mbv2.yaml -c paper-4gpu-pcie -p $p    # $(timed_ms -w "$W/mbv2.yaml" -c paper-4gpu-pcie -p $p) ms (timed)"
    done
    echo '```'
    echo
    echo '```'
    echo "W=data/workloads/gnmt_v2/gnmt_v2_b128_fwd.yaml"
    for p in expert single paper m-etf; do
        echo "baechi run -w \$W -c paper-4gpu-pcie -p $p    # $(timed_ms -w "$TOP/data/workloads/gnmt_v2/gnmt_v2_b128_fwd.yaml" -c paper-4gpu-pcie -p $p) ms"
    done
    rj "$W/o.json" -w "$TOP/data/workloads/gnmt_v2/gnmt_v2_b128_fwd.yaml" -c paper-4gpu-pcie -p auto
    echo "baechi run -w \$W -c paper-4gpu-pcie -p auto     # $(field "$W/o.json" '"%.3f ms, bound ratio %.3f (lower bound %.3f ms), started from %s at %.3f ms" % (d["sim"]["timed"]["step_us"] / 1e3, d["bound_ratio"], d["lower_bound_us"] / 1e3, d["placement_stats"]["start"], d["placement_stats"]["start_step_us"] / 1e3)')"
    echo '```'
    echo
}
# the placement benchmark, without its CPU-time column and line (this
# machine's clock, not the program's answer)
blk_auto_bench() {
    $B bench placement --markdown > "$W/bench.md" 2> "$W/bench.err" || fail "bench placement failed: $(tail -1 "$W/bench.err")"
    echo
    awk -F'|' '
        /^\| workload / { for (i = 1; i <= NF; i++) if ($i ~ /auto cpu s/) drop = i }
        /^\|/ && drop { l = ""; for (i = 1; i < NF; i++) if (i != drop) l = l $i "|"; print l; next }
        /longest placement/ { next }
        NR > 2 { print }' "$W/bench.md"
    echo
}
# ---- results.md: the numbers of `make demo` (scripts/demo-numbers.sh DB
# passes its database as DEMO_DB; without one the block runs the two sweeps
# it reports)
blk_results_demo() {
    db=${DEMO_DB:-}
    if [ -z "$db" ]; then
        db=$W/demo.db
        sweep data/sweeps/paper.yaml "$db"
        sweep data/sweeps/paper-train.yaml "$db"
    fi
    echo
    echo "Forward graphs (sweep \`paper\`), memory fraction 1:"
    echo
    # the step tables only: placement times are this machine's wall clock
    $B report --db "$db" --where sweep=paper --where memory_fraction=1 --format markdown 2> /dev/null |
        awk '/^### / && ++n > 2 { exit } { print }'
    echo
    echo "Training graphs (sweep \`paper-train\`), step time (ms) by memory fraction:"
    echo
    $B report --db "$db" --where sweep=paper-train --where grouper=tf --format markdown 2> /dev/null |
        awk '/^### / && ++n > 1 { exit } { print }'
    echo
}
# ---- symmetry.md: GPT-3 175B at full depth written --symmetric (seconds of
# CPU and about 1 GB a run; the reduced depth is tests/cli/t891) and the
# agreement sweeps against the exact graph (minutes of CPU; short sweeps of
# each form are tests/cli/t863)
blk_symmetry_scale() {
    g="workload gen gpt --size gpt3-175b --micro-batches 96 --device h100:bf16 --elem-bytes 2"
    g="$g --optimizer adam --mixed-precision --dropout 0 --tp 8 --pp 8 --symmetric"
    echo
    echo "| layout | ops written | step (timed) |"
    echo "|---|---|---|"
    for row in "16 1536 dgx-h100-superpod-1k 1,024" "256 24576 dgx-h100-superpod-16k 16,384"; do
        set -- $row
        $B $g --dp "$1" --global-batch "$2" -o "$W/g.yaml" > "$W/gen.log" 2>&1 ||
            fail "workload gen --dp $1 failed: $(tail -1 "$W/gen.log")"
        $B sim -w "$W/g.yaml" -c "$3" --placement given > "$W/sim.txt" 2> "$W/sim.log" ||
            fail "sim on $3 failed: $(tail -1 "$W/sim.log")"
        ops=$(sed -n 's/^workload .*: \([0-9]*\) ops,.*/\1/p' "$W/sim.txt")
        step=$(sed -n 's/^step time  *\(.*\) (\([0-9]*\) µs)$/\1 (\2 µs)/p' "$W/sim.txt")
        if [ -z "$ops" ] || [ -z "$step" ]; then fail "sim on $3 gave no op count or step"; fi
        echo "| TP 8 × PP 8 × DP $1, $4 H100s, global batch $2 | $ops | $step |"
        rm -f "$W/g.yaml"
    done
    echo
}
blk_symmetry_sweeps() {
    echo
    echo '```'
    for a in "1 100" "3 40 wd tp-min=2 dp-min=1" "11 40 wd zero=3 sp=0 tp-min=2" \
        "13 20 wd zero=3 sp=1 tp-min=2" "5 8 wd wide=1" "1 24 wd wide=1" "2 24 wd wide=1" \
        "3 24 wd wide=1" "4 24 wd wide=1" "5 24 wd wide=1" "6 24 wd wide=1" "7 24 wd wide=1" \
        "8 24 wd wide=1" "9 24 wd wide=1" "10 24 wd wide=1" "11 24 wd wide=1" "12 24 wd wide=1"; do
        set -- $a
        mkdir -p "$W/wd"
        seed=$1 n=$2
        shift 2
        [ $# = 0 ] || shift
        # exit 1 (a layout above 0.5 %) is a result the doc states
        python3 "$TOP/scripts/symmetry-sweep.py" "$B" "$seed" "$n" "$W/wd" "$@" > "$W/sweep.txt" 2>&1 ||
            [ $? = 1 ] || fail "symmetry-sweep.py $a failed: $(tail -1 "$W/sweep.txt")"
        echo "\$ python3 scripts/symmetry-sweep.py build/baechi $a"
        tail -1 "$W/sweep.txt"
    done
    echo '```'
}
# ---- scaling.md: scripts/scaling-study.py (the study's table and the
# sentences under it; SCALING_CSV: a scaling.csv of `--preset doc` to
# report instead of rerunning the study, about 15 minutes of CPU;
# SCALING_WHERE_LOG: the output of `--preset where`, about 4 minutes)
scaling_block() { # preset [csv]
    csv=${2:-}
    if [ -z "$csv" ]; then
        python3 "$TOP/scripts/scaling-study.py" --baechi "$B" --preset "$1" --out "$W/s" \
            --no-plot > "$W/study.log" 2>&1 ||
            fail "scaling-study.py --preset $1 failed: $(tail -1 "$W/study.log")"
        csv=$W/s/scaling.csv
    fi
    echo
    python3 "$TOP/scripts/scaling-study.py" --table "$csv" || fail "scaling-study.py --table $csv failed"
    echo
}
blk_scaling_demo() { scaling_block demo; }
blk_scaling_table() { scaling_block doc "${SCALING_CSV:-}"; }
# GPT-3 175B on 16,384 GPUs with 25 MiB DDP buckets and with one bucket
blk_scaling_buckets() {
    echo
    echo "| GPT-3 175B at the depth of the tables, TP 8 x PP 8 x DP 256, 16,384 GPUs | step (s) | exposed comm |"
    echo "|---|---|---|"
    for mb in 25 1000000; do
        python3 "$TOP/scripts/scaling-study.py" --baechi "$B" --preset doc --models gpt3-175b \
            --gpus 16384 --layouts 8x8 --bucket-mb $mb --out "$W/b$mb" --no-plot \
            > "$W/study.log" 2>&1 || fail "scaling-study.py --bucket-mb $mb failed: $(tail -1 "$W/study.log")"
        awk -F, -v mb=$mb 'NR == 2 { printf "| `--bucket-mb %s`%s | %s | %.1f %% |\n", mb,
            mb == 25 ? " (the default)" : " (one bucket a stage)", $12, 100 * $19 }' "$W/b$mb/scaling.csv"
    done
    echo
}
# where the exposed communication goes: NVLink or the NICs made free
blk_scaling_where() {
    if [ -n "${SCALING_WHERE_LOG:-}" ]; then
        cp "$SCALING_WHERE_LOG" "$W/study.out"
    else
        python3 "$TOP/scripts/scaling-study.py" --baechi "$B" --preset where --out "$W/s" \
            --no-plot > "$W/study.out" 2> "$W/study.log" ||
            fail "scaling-study.py --preset where failed: $(tail -1 "$W/study.log")"
    fi
    echo
    grep '^|' "$W/study.out"
    echo
}
# ---- the mechanism ---------------------------------------------------------
# replace block NAME of DOC (under $D) by the output of blk_NAME
write_block() { # name doc
    f=$D/$2
    n=$(grep -c "^<!-- doc-numbers $1: begin" "$f" || true)
    e=$(grep -c "^<!-- doc-numbers $1: end -->" "$f" || true)
    if [ "$n" != 1 ] || [ "$e" != 1 ]; then
        echo "doc-numbers.sh: docs/$2 must hold the lines '<!-- doc-numbers $1: begin ... -->'" \
            "and '<!-- doc-numbers $1: end -->' once each (found $n and $e)" >&2
        exit 2
    fi
    W=$tmp/work-$1
    rm -rf "$W"
    mkdir -p "$W"
    fn=blk_$(echo "$1" | tr .- __)
    rm -f "$tmp/failed"
    # set -e inside the subshell (an `if` would turn it off)
    set +e
    (
        set -e
        cd "$W"
        $fn
    ) > "$tmp/block"
    rc=$?
    set -e
    if [ $rc != 0 ] || [ -f "$tmp/failed" ]; then
        cat "$tmp/failed" >&2 2> /dev/null || true
        echo "doc-numbers.sh: block $1 (docs/$2) failed; the doc is unchanged" >&2
        exit 1
    fi
    awk -v name="$1" -v blk="$tmp/block" '
        index($0, "<!-- doc-numbers " name ": begin") == 1 {
            print; while ((getline l < blk) > 0) print l; skip = 1; next }
        $0 == "<!-- doc-numbers " name ": end -->" { skip = 0 }
        !skip { print }' "$f" > "$tmp/doc"
    cat "$tmp/doc" > "$f"
}

# every marker in the docs names a known block
for f in docs/*.md; do
    # shellcheck disable=SC2013 # a block name is one word
    for name in $(sed -n 's/^<!-- doc-numbers \([^ :]*\): begin.*/\1/p' "$f"); do
        echo "$BLOCKS" | grep -q "^$name " || {
            echo "doc-numbers.sh: $f: unknown block '$name'" >&2
            exit 2
        }
    done
done
docs=$(echo "$BLOCKS" | awk 'NF { print $2 }' | sort -u)
for doc in $docs; do cp "docs/$doc" "$tmp/docs/$doc"; done
while read -r name doc cost; do
    [ -n "$name" ] || continue
    if [ -n "$want" ]; then
        case " $want " in *" $name "*) ;; *) continue ;; esac
    fi
    if [ -n "$only_docs" ]; then
        case "$only_docs " in *" $doc "*) ;; *) continue ;; esac
    fi
    if [ $cheap = 1 ] && [ "$cost" != cheap ]; then
        echo "doc-numbers.sh: skipped $name (docs/$doc): $cost, not with --cheap" >&2
        continue
    fi
    write_block "$name" "$doc"
done << EOF
$BLOCKS
EOF
[ $check = 1 ] || exit 0
stale=0
for doc in $docs; do
    if ! diff -u "docs/$doc" "$tmp/docs/$doc" > "$tmp/diff"; then
        sed "s|$tmp/||" "$tmp/diff"
        stale=1
    fi
done
if [ $stale = 1 ]; then
    echo "doc-numbers.sh: the docs above quote numbers the program no longer gives;" \
        "run 'make doc-numbers' (or scripts/doc-numbers.sh BLOCK) and reread the prose around them" >&2
    exit 1
fi
