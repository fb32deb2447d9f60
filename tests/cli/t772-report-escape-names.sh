# t772-report-escape-names.sh - report and db query print names holding a
# newline, ESC, a tab or '|' escaped in text output (issue 30, item 7): each row
# one line, no raw control byte reaches the terminal ("\n", "\x1b"; in
# Markdown '|' as "\|"); CSV and JSON keep the bytes by their own rules
# (RFC 4180 quoting, JSON escapes), read back exactly.
. "$TOP/tests/cli/lib.sh"
cd "$TMPDIR_TEST"

test_expect_success 'setup: a sweep whose workload and device names hold control characters' - <<'EOF'
cat > w.yaml <<'YAML'
format: 1
name: "w\nx\e[31m|y,\"z\r\tq"
ops:
  - {name: a, type: Op, time_us: 30, outputs: [1000]}
  - {name: b, type: Op, time_us: 30, inputs: ["a:0"]}
YAML
cat > c.yaml <<'YAML'
format: 1
name: "c\e]0;title\a\r"
devices:
  - {name: "g\n\e[2J", count: 2, memory: 16GiB}
YAML
cat > s.yaml <<'YAML'
name: esc
workloads: [w.yaml]
clusters: [c.yaml]
placers: [single, m-etf]
YAML
expect_exit 0 "$BAECHI" sweep s.yaml --db r.db -j 1 --quiet
EOF

esc=$(printf '\033')
# no ESC, BEL or CR byte in the file
raw() {
    if grep -q "[$esc$(printf '\a\r')]" "$1"; then
        echo "raw control character in $1:"; cat -A "$1"; exit 1
    fi
}

test_expect_success 'report (table): the names escaped, each row one line' - <<'EOF'
expect_exit 0 "$BAECHI" report --db r.db
raw out
expect_grep '^w\\nx\\x1b\[31m\|y,"z\\r\\tq +[0-9.]+ +[0-9.]+ *$' out
EOF

test_expect_success 'report --format markdown: escaped, | as \|' - <<'EOF'
expect_exit 0 "$BAECHI" report --db r.db --format markdown
raw out
expect_grep '^\| w\\nx\\x1b\[31m\\\|y,"z\\r\\tq +\| +[0-9.]+ +\| +[0-9.]+ +\|$' out
EOF

test_expect_success 'db query (table and markdown): escaped' - <<'EOF'
q='select workload, cluster, (select name from devices where run_id = runs.id and device = 0) as dev from runs limit 1'
expect_exit 0 "$BAECHI" db query --db r.db "$q"
raw out
expect_grep '^w\\nx\\x1b\[31m\|y,"z\\r\\tq +c\\x1b\]0;title\\x07\\r +g\\n\\x1b\[2J0$' out
expect_exit 0 "$BAECHI" db query --db r.db --format markdown "$q"
raw out
expect_grep '^\| w\\nx\\x1b\[31m\\\|y,"z\\r\\tq +\| c\\x1b\]0;title\\x07\\r +\| g\\n\\x1b\[2J0 +\|$' out
EOF

if command -v python3 > /dev/null; then
    test_expect_success 'CSV and JSON: the bytes kept, read back exactly' - <<'EOF'
q='select workload, cluster, (select name from devices where run_id = runs.id and device = 0) as dev from runs limit 1'
expect_exit 0 "$BAECHI" db query --db r.db --format csv "$q"
cp out q.csv
expect_exit 0 "$BAECHI" db query --db r.db --format json "$q"
cp out q.json
expect_exit 0 "$BAECHI" report --db r.db --format csv
cp out r.csv
python3 - <<'PY'
import csv, json
w, c, g = 'w\nx\x1b[31m|y,"z\r\tq', 'c\x1b]0;title\x07\r', 'g\n\x1b[2J0'
rows = list(csv.reader(open('q.csv', newline='')))
assert rows == [['workload', 'cluster', 'dev'], [w, c, g]], rows
j = json.load(open('q.json'))
assert j['rows'] == [{'workload': w, 'cluster': c, 'dev': g}], j
rows = list(csv.DictReader(open('r.csv', newline='')))
assert len(rows) == 2 and all(r['workload'] == w and r['cluster'] == c for r in rows), rows
PY
EOF
else
    test_skip 'CSV and JSON read back' 'python3 is not installed'
fi

test_done
