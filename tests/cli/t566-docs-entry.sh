# check: once
# The maintainer's and the newcomer's entry (issues 33 item 5, 34 item 4):
# every relative link of README.md and docs/*.md resolves (file, and the
# heading for a "#anchor"), the README's first screen is for newcomers (no
# test id, issue number or CI detail in its first 40 lines; the two commands
# and the tutorial link are there), and the architecture page and the style
# guide exist in the repository.
. "$TOP/tests/cli/lib.sh"
cd "$TMPDIR_TEST"

test_expect_success 'every relative link in README.md and docs/*.md resolves' - <<'EOF2'
python3 - "$TOP" <<'PY'
import os, re, sys
top = sys.argv[1]
files = [os.path.join(top, "README.md")] + sorted(
    os.path.join(top, "docs", f) for f in os.listdir(os.path.join(top, "docs")) if f.endswith(".md"))

def slug(h):
    # GitHub's anchor of a heading: lower case, punctuation dropped, spaces to '-'
    h = re.sub(r"`", "", h.strip().lower())
    h = re.sub(r"[^\w\- ]", "", h)
    return h.replace(" ", "-")

def anchors(path):
    out, fence = set(), False
    for line in open(path, encoding="utf-8"):
        if line.startswith("```"):
            fence = not fence
        elif not fence and line.startswith("#"):
            out.add(slug(line.lstrip("#")))
    return out

bad = 0
for f in files:
    text, fence = [], False
    for line in open(f, encoding="utf-8"):
        if line.startswith("```"):
            fence = not fence
            continue
        if not fence:
            text.append(line)
    for m in re.finditer(r"\]\(([^)\s]+)\)", "".join(text)):
        link = m.group(1)
        if re.match(r"^[a-z]+:", link):
            continue
        path, _, frag = link.partition("#")
        target = os.path.normpath(os.path.join(os.path.dirname(f), path)) if path else f
        rel = os.path.relpath(f, top)
        if not os.path.exists(target):
            print(f"{rel}: broken link {link}"); bad += 1
        elif frag and target.endswith(".md") and frag not in anchors(target):
            print(f"{rel}: no heading for #{frag} in {os.path.relpath(target, top)}"); bad += 1
print(f"{len(files)} pages checked, {bad} broken links")
sys.exit(1 if bad else 0)
PY
EOF2

test_expect_success 'README: the first 40 lines name no test, issue or CI detail' '
    head -n 40 "$TOP/README.md" > first
    if grep -n -E "\bt[0-9]{3}\b|[Ii]ssue [0-9]|\.ci/|\bCI\b|check-quick|CPU.second|sanitiz|Criterion" first; then
        echo "README first screen names test internals"; exit 1
    fi
'

test_expect_success 'README: the first screen has the two commands, their times, the outputs and the tutorial' '
    head -n 40 "$TOP/README.md" > first
    grep -q "^make demo" first && grep -q "^make check" first
    grep -q "minutes" first
    grep -q "results.db" first && grep -q "plots/" first
    grep -q "docs/tutorial.md" first
    grep -q "PATH" first
'

test_expect_success 'the architecture page and the style guide are in the repository' '
    for f in docs/architecture.md docs/style.md; do
        [ -s "$TOP/$f" ] || { echo "missing $f"; exit 1; }
    done
    grep -q "docs/architecture.md" "$TOP/README.md"
    grep -q "docs/style.md" "$TOP/README.md"
    ! grep -rn "STYLE\.md\|\.\./shared" "$TOP/README.md" "$TOP/docs"/*.md
'

test_done
