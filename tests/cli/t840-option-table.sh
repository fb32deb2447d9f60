# check: slow once
# t840-option-table.sh - no option is accepted without effect (issue 33 item
# 2's target): the test walks every command's option table (as --help prints
# it, row for row) and needs, for each option, a documented help line and at
# least one passing check of tests/cli/t840-options.txt:
#
#   eff  CMD | OPTION | BASE ARGS | OPTION ARGS    the option changes the
#        output: exit status, stdout, stderr or the files written differ
#        between `baechi CMD BASE` and `baechi CMD BASE OPTION-ARGS`, and the
#        latter is no refusal (exit 0 or 3, or the base's own exit status)
#   ref  CMD | OPTION | ARGS | PATTERN             refused where it cannot act:
#        exit 2, stderr matches PATTERN (extended regex)
#   warn CMD | OPTION | ARGS | PATTERN             or one warning saying so:
#        exit 0, one stderr line "warning: ..." matching PATTERN
#
# ARGS are split on blanks; @F/ stands for the fixtures' directory (the
# setup check writes them).  A new option with no line fails here, and so
# does one whose line shows no effect (an option that does nothing).
. "$TOP/tests/cli/lib.sh"
cd "$TMPDIR_TEST"
SPEC=${T840_SPEC:-$TOP/tests/cli/t840-options.txt}

test_expect_success 'setup: fixtures (a GPT graph, its forward graph, a placement, a results db)' - <<'XEOF'
mkdir F
cd F
G="gpt --layers 2 --d-model 64 --heads 4 --vocab 100 --seq 8 -b 8"
"$BAECHI" workload gen $G -o g.yaml 2> /dev/null
"$BAECHI" workload gen $G --forward-only -o f.yaml 2> /dev/null
"$BAECHI" workload gen $G --micro-batches 4 -o mb.yaml 2> /dev/null
"$BAECHI" workload gen $G --layers 6 --vocab 20000 -o g3.yaml 2> /dev/null
"$BAECHI" bench scaling --db sc.db --sizes 100,200 --repeats 3 --placers m-topo > /dev/null
cp "$TOP/data/bench/baseline.json" base.json
"$BAECHI" workload gen synthetic --ops 40 -o syn.yaml 2> /dev/null
"$BAECHI" place -w g.yaml -c paper-4gpu-pcie -p m-etf -o p.yaml 2> /dev/null
"$BAECHI" place -w mb.yaml -c paper-4gpu-pcie -p pipeline -o pmb.yaml 2> /dev/null
"$BAECHI" workload parallelize g.yaml --dp 2 -o dp.yaml --placement-out dpx.yaml > /dev/null
"$BAECHI" place -w g.yaml -c paper-4gpu-pcie -p m-topo -o p2.yaml 2> /dev/null
cp "$TOP/tests/data/cal-annotate.yaml" "$TOP/tests/data/cal-trace.json" .
cp "$TOP/tests/data/onnx/ln_gelu.onnx" m.onnx
cp "$TOP/tests/data/t1.yaml" "$TOP/tests/data/t1-cluster.yaml" .
cat > s.yaml <<S
name: s
workloads: ["gen:gpt?layers=2&d_model=64&heads=4&vocab=100&seq=8&batch=8"]
clusters: [paper-4gpu-pcie]
devices: [2, 4]
placers: [m-topo, m-etf]
memory_fractions: [1, 0.5]
models: [timed, baechi]
S
cat > s2.yaml <<S
name: s2
workloads: ["gen:gpt?layers=1&d_model=64&heads=4&vocab=100&seq=8&batch=8"]
clusters: [paper-4gpu-pcie]
devices: [4]
placers: [m-etf]
S
"$BAECHI" sweep s.yaml --db r.db --quiet
"$BAECHI" sweep s2.yaml --db r.db --quiet
XEOF

# sig NAME CMD ARGS: runs `baechi CMD ARGS` (ARGS as the shell reads them:
# quotes group) in a directory of its own; run/NAME.sig holds the exit
# status, stdout, stderr and the files written (a database by its name only:
# it holds times), with the directory's name taken out and what varies from
# run to run (wall-clock and measured times) taken out by filter CMD.
# (Few forks: a fork is about 1 ms of CPU here, and the script's own forks,
# not the program, were half of its 26 s of CPU.)
sig() {
    n=$1
    c=$2
    d=$TMPDIR_TEST/run/$n
    if [ -e "$d" ]; then
        rm -rf "$d"
    fi
    mkdir -p "$d"
    ln -s "$TOP/data" "$d/data" # bench placement reads data/workloads/
    set +e
    (cd "$d" && eval "\"\$BAECHI\" $c $3" > "$d.out" 2> "$d.err" < /dev/null)
    echo "exit $?" > "$d.sig"
    set -e
    # the files written, when the directory holds more than data
    : > "$d.files"
    case $- in *f*) noglob=1 ;; *) noglob=0 ;; esac
    set +f
    for e in "$d"/* "$d"/.[!.]* "$d"/..?*; do
        if [ "$e" != "$d/data" ] && { [ -e "$e" ] || [ -L "$e" ]; }; then
            (cd "$d" && find . -type f | LC_ALL=C sort | while read -r f; do
                case $f in
                *.db) echo "file $f" ;;
                *) echo "file $f $(cksum < "$f")" ;;
                esac
            done) > "$d.files"
            break
        fi
    done
    [ $noglob = 0 ] || set -f
    filter "$c" "s#$d#RUN#g; s#$TMPDIR_TEST/F#F#g" "$d.out" "$d.err" "$d.files" >> "$d.sig"
}

# filter CMD SED FILE...: FILEs through the sed script SED (the run's
# paths), then without what varies between two runs of the same command line
T='[0-9][0-9.]*\(e[-+]*[0-9]*\)\{0,1\} \{0,1\}\(µs\|ms\|s\)'
filter() {
    fc=$1
    fpre=$2
    shift 2
    case $fc in
    calibrate* | replay* | bench*)
        # measurements go (decimals, and numbers with a unit of time,
        # bandwidth or rate), and so does the fit's quality (warned about
        # when poor); counts, sizes and the files' names stay
        sed -E -e "$fpre" -e 's/[0-9]+(\.[0-9]+)?(e[-+]?[0-9]+)? ?(µs|ms|s|GB\/s|GFLOP\/s|M events\/s|µs\/B|%)\b/N \3/g
            s/memory: [0-9]+/memory: N/; s/[0-9]+(\.[0-9]+)? MiB/N MiB/g; s/[0-9T:-]{19}Z/DATE/; /\{src:/d
            s/[0-9]+\.[0-9]+(e[-+]?[0-9]+)?/N/g; s/  +/ /g; s/^(file [^ ]*) .*/\1/
            s/N (µs|ms|s)\b/N T/g
            s/(slope_us_per_byte|intercept_us|launch_us|peak_flops|memory_bandwidth): [-0-9.e+]+/\1: N/g
            /R²|R\^2|is poor|worst error|calibrated:|measured by|pairs:/d' "$@" ;;
    sweep*)
        sed -e "$fpre" -e "s/ in $T/ in T/g; s/[0-9.]* points\/s/R points\/s/g" "$@" ;;
    *)
        sed -e "$fpre" -e "s/ in $T/ in T/g; s/^placement  *$T (algorithm $T)/placement T/;
            s/solved in $T/solved in T/; s/\"\([a-z_]*_ms\)\": [0-9.e+-]*/\"\1\": T/g;
            s/ ([0-9.]* points\/s[^)]*)//; s/in [0-9.]* s (/in T (/" "$@" ;;
    esac
}

# args_to VAR STRING: VAR = STRING with the fixtures' and the models'
# shorthands (sed only where there is one)
args_to() {
    case $2 in
    *@*) eval "$1=\$(args \"\$2\")" ;;
    *) eval "$1=\$2" ;;
    esac
}
# squeeze VAR: VAR's words joined by one blank, as $(echo $VAR) (set -f)
squeeze() {
    sq_var=$1
    eval "set -- \$$1"
    eval "$sq_var=\$*"
}

# args STRING: STRING with the fixtures' and the models' shorthands
args() {
    echo "$1" | sed "s#@F/#$TMPDIR_TEST/F/#g;
        s#@GPT#gpt --layers 2 --d-model 64 --heads 4 --vocab 100 --seq 8 -b 8#g;
        s#@TR#transformer --layers 1 --d-model 32 --heads 2 --ffn 64 --vocab 50 --seq 8 -b 2#g;
        s#@RUN#-w @F/g.yaml -c paper-4gpu-pcie -p m-etf#g;
        s#@SIM#-w @F/g.yaml -c paper-4gpu-pcie --placement @F/p.yaml#g;
        s#@REP#-w @F/g.yaml -c paper-4gpu-pcie --placement @F/p.yaml --steps 1 --warmup 0#g;
        s#@F/#$TMPDIR_TEST/F/#g"
}

test_expect_success 'every option of every table: documented, and takes effect, is refused or warns' - <<'XEOF'
set -f
i=0
: > covered
: > failed
grep -v '^ *#' "$SPEC" | grep -v '^ *$' > spec
while IFS='|' read -r kind opt a b; do
    i=$((i + 1))
    squeeze kind
    cmd=${kind#* }
    kind=${kind%% *}
    squeeze opt
    args_to a "$a"
    b=${b#"${b%%[! ]*}"}
    b=${b%"${b##*[! ]}"}
    squeeze cmd
    case $kind in
    eff)
        args_to b "$b"
        k=$(echo "$cmd $a" | cksum)
        base=base.${k%% *}_${k#* }
        if [ ! -e "run/$base.sig" ]; then
            sig "$base" "$cmd" "$a"
            sig "$base.again" "$cmd" "$a"
            if ! cmp -s "run/$base.sig" "run/$base.again.sig"; then
                echo "$cmd $opt: 'baechi $cmd $a' differs between two runs: filter what varies" >> failed
                diff "run/$base.sig" "run/$base.again.sig" | head -5 >> failed
                continue
            fi
        fi
        sig "$i.opt" "$cmd" "$a $b"
        read -r opt_exit < "run/$i.opt.sig"
        read -r base_exit < "run/$base.sig"
        if ! grep -Eq '^exit (0|3)$' "run/$i.opt.sig" && [ "$opt_exit" != "$base_exit" ]; then
            echo "$cmd $opt: 'baechi $cmd $a $b' $(head -1 run/$i.opt.sig): $(head -3 run/$i.opt.err)" >> failed
            continue
        fi
        if cmp -s "run/$base.sig" "run/$i.opt.sig"; then
            echo "$cmd $opt: 'baechi $cmd $a $b' changes nothing against 'baechi $cmd $a'" >> failed
            continue
        fi ;;
    ref)
        sig "$i" "$cmd" "$a"
        if ! grep -q '^exit 2$' "run/$i.sig" || ! grep -Eq -- "$b" "run/$i.err"; then
            echo "$cmd $opt: 'baechi $cmd $a' is not refused with /$b/: $(head -1 run/$i.sig) $(head -3 run/$i.err)" >> failed
            continue
        fi ;;
    warn)
        sig "$i" "$cmd" "$a"
        if ! grep -q '^exit 0$' "run/$i.sig" || [ "$(grep -c 'warning: ' "run/$i.err")" != 1 ] ||
            ! grep 'warning: ' "run/$i.err" | grep -Eq -- "$b"; then
            echo "$cmd $opt: 'baechi $cmd $a' gives no one warning /$b/: $(head -1 run/$i.sig) $(head -3 run/$i.err)" >> failed
            continue
        fi ;;
    *)
        echo "spec line $i: unknown kind '$kind'" >> failed
        continue ;;
    esac
    echo "$cmd $opt" >> covered
done < spec

# the tables, as --help prints them: the commands of `baechi --help`, their
# verbs ("verbs:" sections) and the forms of "or: baechi CMD VERB" lines
"$BAECHI" --help | sed -n '/^commands:/,/^$/s/^    \([a-z]*\) .*/\1/p' > cmds
while read -r c; do
    echo "$c"
    "$BAECHI" $c --help | sed -n "/^verbs:/,/^\$/s/^    \\([a-z]*\\) .*/$c \\1/p;
        s/^ *or: baechi $c \\([a-z]*\\) .*/$c \\1/p"
done < cmds | sort -u > tables
n=0
while read -r t; do
    "$BAECHI" $t --help > help
    # a form of another table's command ("or: baechi plot line"): the same table
    if [ "${t#* }" != "$t" ] && "$BAECHI" ${t%% *} --help | cmp -s - help; then
        continue
    fi
    sed -n 's/^ *\(-[a-zA-Z], \)\{0,1\}\(--[a-z0-9-]*\).*/\2/p' help | grep -vx -- --help > opts || true
    while read -r o; do
        n=$((n + 1))
        line=$(grep -E -- "^ *(-[a-zA-Z], )?$o( |$)" help)
        if [ -z "$(echo "$line" | sed -E 's/^ *(-[a-zA-Z], )?--[a-z0-9-]+( [^ ]+)? *//')" ]; then
            echo "$t $o: no help line" >> failed
        fi
        grep -qx -- "$t $o" covered ||
            echo "$t $o: in the option table, but no line of t840-options.txt shows that it takes effect, is refused or warns" >> failed
    done < opts
done < tables
echo "$n options in $(wc -l < tables) tables, $(sort -u covered | wc -l) covered by $i checks"
if [ -s failed ]; then
    cat failed
    exit 1
fi
[ "$n" -gt 150 ]
XEOF

test_done
