# t506-plot-hostile-names.sh - names reach gnuplot quoted (issue 20): an
# output, CSV or script name with a newline cannot inject a gnuplot command,
# a device name with a newline and a quote still draws; a failing plot
# leaves the figure already there as it was, shows gnuplot's message, and
# leaves no temporary file; data files honour the umask.
. "$TOP/tests/cli/lib.sh"
cd "$TMPDIR_TEST"
nl='
'

test_expect_success 'setup: a sweep of two placers on GNMT' - <<'EOF'
cat > s.yaml <<YAML
name: hostile
workloads: ["$GNMT"]
clusters: [paper-4gpu-pcie]
placers: [single, m-etf]
store_placement: true
YAML
expect_exit 0 "$BAECHI" sweep s.yaml --db r.db -j 1 --quiet
EOF

if command -v gnuplot > /dev/null; then
    test_expect_success 'an output name with newlines injects nothing' '
        expect_exit 0 "$BAECHI" plot step --db r.db -o "e${nl}system(\"touch PWNED\")${nl}.png"
        test ! -e PWNED
        test -s "e${nl}system(\"touch PWNED\")${nl}.png"
    '

    test_expect_success 'CSV and script names with newlines and quotes inject nothing' '
        expect_exit 0 "$BAECHI" plot step --db r.db -o ok.png \
            --csv "c${nl}system(\"touch PWNED2\")${nl}.csv" --script "g'"'"'\"${nl}.gp"
        test ! -e PWNED2
        test -s ok.png
        test -s "c${nl}system(\"touch PWNED2\")${nl}.csv"
    '

    test_expect_success 'a device name with a newline and quotes: gantt and peak still draw' - <<'EOF'
cat > c.yaml <<'YAML'
format: 1
name: odd
devices:
  - name: "gpu'0\nsystem(\"touch PWNED3\")"
    memory: 6.44GiB
    speed: 1.0
  - name: gpu1
    memory: 6.44GiB
    speed: 1.0
comm:
  slope_us_per_byte: 0.0001754
  intercept_us: 134
  channel: duplex
YAML
cat > s2.yaml <<YAML
name: odd
workloads: ["$GNMT"]
clusters: [c.yaml]
placers: [m-etf]
store_placement: true
YAML
expect_exit 0 "$BAECHI" sweep s2.yaml --db r2.db -j 1 --quiet
expect_exit 0 "$BAECHI" plot gantt --db r2.db -o gantt.png --script g.gp
grep -qF "set ytics (('gpu'.\"\\047\".'0'.\"\\n\".'system(\"touch PWNED3\")') 0, 'gpu1' 1)" g.gp || { cat g.gp; exit 1; }
expect_exit 0 "$BAECHI" plot peak --db r2.db -o peak.png
test -s gantt.png
test -s peak.png
test ! -e PWNED3
EOF

    test_expect_success 'a failing gnuplot: the old figure stays, its message shown, no temporary file' - <<'EOF'
cp ok.png keep.png
cat > fail.sh <<'SH2'
#!/bin/sh
echo "line 3: some gnuplot complaint" >&2
exit 1
SH2
chmod +x fail.sh
expect_exit 2 env BAECHI_GNUPLOT="$PWD/fail.sh" "$BAECHI" plot step --db r.db -o ok.png
expect_grep "gnuplot failed.*" err
expect_grep "some gnuplot complaint" err
cmp ok.png keep.png
if ls | grep -q 'tmp-'; then
    echo "a temporary file was left: $(ls | grep tmp-)"
    exit 1
fi
EOF

    test_expect_success 'a successful gnuplot says nothing' '
        expect_exit 0 "$BAECHI" plot step --db r.db -o quiet.png
        if grep -v "^baechi: wrote" err | grep -q .; then cat err; exit 1; fi
    '
else
    test_skip 'the figures (gnuplot)' 'gnuplot is not installed'
fi

test_expect_success 'the data file honours the umask (not 0600)' '
    (umask 022 && "$BAECHI" plot step --db r.db --csv m.csv > /dev/null 2>&1)
    case $(ls -l m.csv) in
    -rw-r--r--*) ;;
    *) ls -l m.csv; exit 1 ;;
    esac
'

test_done
