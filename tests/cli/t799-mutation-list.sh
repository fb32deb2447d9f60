# check: once
# t799-mutation-list.sh - the kept list of mutations (tests/mutations.txt,
# `make mutate`, issue 34 item 5) stays applicable: at least 30 entries, each
# with a unique name, its code once in its file and an existing test.  (The
# mutations themselves run under `make mutate`, a rebuild each; this is the
# cheap check that the list has not gone stale.)
. "$TOP/tests/cli/lib.sh"

test_expect_success 'every mutation applies, its test exists, 30 or more' - <<'XEOF'
python3 - "$TOP" <<'PY'
import os, sys, glob
top = sys.argv[1]
sys.path.insert(0, os.path.join(top, "scripts"))
from mutations import read
blocks = read(os.path.join(top, "tests/mutations.txt"))
bad, names = [], set()
for b in blocks:
    miss = [k for k in ("name", "file", "from", "to", "test", "why") if not b.get(k)]
    if miss:
        bad.append("%s: no %s" % (b.get("name", "?"), ", ".join(miss))); continue
    if b["name"] in names:
        bad.append("%s: name twice" % b["name"])
    names.add(b["name"])
    path = os.path.join(top, b["file"])
    n = open(path, encoding="utf-8").read().count(b["from"]) if os.path.exists(path) else -1
    if n != 1:
        bad.append("%s: its code is %s in %s" % (b["name"], "absent" if n <= 0 else "%d times" % n, b["file"]))
    if b["from"] == b["to"]:
        bad.append("%s: from and to are the same" % b["name"])
    t = b["test"]
    if t.startswith("unit:"):
        suite = t[5:].split("/")[0]
        if not any("Test(%s," % suite in open(f).read() for f in glob.glob(os.path.join(top, "tests/unit/*.c"))):
            bad.append("%s: no unit suite %s" % (b["name"], suite))
    elif not glob.glob(os.path.join(top, "tests/cli", t + "*.sh")):
        bad.append("%s: no test %s" % (b["name"], t))
print("%d mutations" % len(blocks))
for x in bad: print("stale:", x)
sys.exit(1 if bad or len(blocks) < 30 else 0)
PY
XEOF

test_done
