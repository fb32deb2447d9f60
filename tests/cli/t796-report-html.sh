# check: once
# t796-report-html.sh - `baechi report --html DIR` (issue 33 item 6): one
# static page per results database with the paper-style tables and every
# figure of each sweep, every run's identity one click away (<details>), no
# script and nothing from the network; names from the database escaped.
# Checked in headless Chromium: the page renders, every image loads, no
# console error (skipped, with the reason, where Chromium is absent).
. "$TOP/tests/cli/lib.sh"
cd "$TMPDIR_TEST"

test_expect_success 'setup: a sweep with a hostile name, and --html' - <<'XEOF'
cat > s.yaml <<S
name: "demo <b>&'x"
workloads:
  - $TOP/data/workloads/gnmt_v2/gnmt_v2_b128_fwd.yaml
  - "gen:transformer?forward_only=1"
clusters: [paper-4gpu-pcie]
placers: [single, m-topo, m-etf]
memory_fractions: [1, 0.3]
S
expect_exit 0 "$BAECHI" sweep s.yaml --db r.db --quiet
expect_exit 0 "$BAECHI" report --db r.db --html page
[ -s page/index.html ]
XEOF

test_expect_success 'the tables, a section per sweep, a details element per run' - <<'XEOF'
expect_grep "<h4>Step time \(ms\), timed simulator" page/index.html
expect_grep "<h4>Peak memory, largest device \(GiB\)</h4>" page/index.html
expect_grep "<td class=t>gnmt_v2_b128_fwd</td><td>1</td><td>" page/index.html
n=$(sqlite3 r.db "select count(*) from runs")
[ "$(grep -c '<details id="run-' page/index.html)" = "$n" ]
h=$(sqlite3 r.db "select workload_hash from runs limit 1")
expect_grep "<dt>workload hash</dt><dd>$h</dd>" page/index.html
XEOF

test_expect_success 'names from the database are escaped, no script, no network' - <<'XEOF'
expect_grep "Sweep demo &lt;b&gt;&amp;&#39;x</h2>" page/index.html
if grep -q "<b>\|<script\|http://\|https://" page/index.html; then
    echo "raw markup, a script or a network address in the page"; exit 1
fi
XEOF

test_expect_success 'every figure: a PNG beside the page, and its data' - <<'XEOF'
imgs=$(sed -n 's/.*<img src="\([^"]*\)".*/\1/p' page/index.html)
[ "$(echo "$imgs" | wc -l)" -ge 6 ]   # step, placement-time, peak, gantt, memory x 2
for i in $imgs; do
    head -c 8 "page/$i" | od -An -c | grep -q "P   N   G" || { echo "not a PNG: $i"; exit 1; }
    [ -s "page/${i%.png}.csv" ] || { echo "no data beside $i"; exit 1; }
done
if grep -q "not drawn" page/index.html; then grep "not drawn" page/index.html; exit 1; fi
XEOF

test_expect_success 'bad uses: --html with --format, no runs, exit 2' - <<'XEOF'
expect_exit 2 "$BAECHI" report --db r.db --html o2 --format csv
expect_grep "takes no --format" "$TMPDIR_TEST/err"
expect_exit 2 "$BAECHI" report --db r.db --html o3 --where placer=m-sct
expect_grep "no runs match the --where conditions" "$TMPDIR_TEST/err"
: > afile
expect_exit 2 "$BAECHI" report --db r.db --html afile
expect_grep "html 'afile': exists and is not a directory" "$TMPDIR_TEST/err"
XEOF

chrome=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$chrome" ]; then
    test_skip "the page in Chromium" "no chromium in PATH (scripts/deps/results.txt installs it)"
else
    test_expect_success 'Chromium: the page renders, every image loads, no console error' - <<'XEOF'
# a copy with a check appended: the page itself has no script
cp page/index.html page/check.html
cat >> page/check.html <<'H'
<script>
window.onload = function () {
    var bad = [];
    for (var i = 0; i < document.images.length; i++) {
        var m = document.images[i];
        if (!m.complete || m.naturalWidth === 0) bad.push(m.getAttribute('src'));
    }
    document.body.setAttribute('data-check',
        bad.length ? 'broken ' + bad.join(' ') : 'images-ok ' + document.images.length);
};
</script>
H
HOME=$TMPDIR_TEST timeout 60 "$chrome" --headless --no-sandbox --disable-gpu --enable-logging=stderr \
    --v=0 --virtual-time-budget=5000 --dump-dom "file://$TMPDIR_TEST/page/check.html" \
    > dom.html 2> chrome.err || { tail -5 chrome.err; exit 1; }
grep -o 'data-check="[^"]*"' dom.html
grep -q 'data-check="images-ok [1-9][0-9]*"' dom.html
if grep -i "CONSOLE.*\(error\|uncaught\)\|Failed to load resource" chrome.err; then exit 1; fi
XEOF
fi

test_done
