#!/usr/bin/env python3
"""check-figures.py DIR... - the data checks of every figure `baechi plot`
(or scripts/scaling-study.py) wrote into DIR (issue 33 item 3): each NAME.csv (the plotted data, --csv)
with its gnuplot script NAME.gp (--script; in DIR or DIR/work) is

  titled         the script sets a title that is not empty;
  non-degenerate the figure has values, and not all of them are equal;
  distinct       no two lines of a panel draw the same points (a series
                 equal to another is merged into its legend, "A = B");
  limited        a figure of memory draws the memory limit (line --y
                 peak/peak0: the $L_ series; peak and memory-timeline: the
                 limit bars or line).

Prints one line per figure ("ok NAME" or "FAIL NAME: why") and exits 1
when one fails, 2 when DIR holds no figure.  Used by scripts/demo.sh (every
figure of `make demo`) and tests/cli/t841-figure-checks.sh.
"""
import csv
import math
import os
import re
import sys


def script_of(d, name):
    for p in (os.path.join(d, name + ".gp"), os.path.join(d, "work", name + ".gp")):
        if os.path.exists(p):
            return open(p, encoding="utf-8", errors="replace").read()
    return None


def numbers(rows, cols):
    out = []
    for r in rows:
        for c in cols:
            try:
                v = float(r[c])
            except (ValueError, IndexError, KeyError):
                continue
            if math.isfinite(v):
                out.append(v)
    return out


def datablocks(gp):
    """{name: body} of the script's inline data blocks ($D_0_1 << EOD ... EOD)."""
    return {m.group(1): m.group(2)
            for m in re.finditer(r"^(\$\w+) << EOD\n(.*?)^EOD$", gp, re.M | re.S)}


def plot_commands(gp):
    """The plot commands, continuation lines joined."""
    return re.findall(r"^plot (.*?)(?<!\\)$", gp.replace("\\\n", " "), re.M)


def check(kind, rows, header, gp):
    """The reasons the figure fails, [] when it passes."""
    bad = []
    titles = re.findall(r"^set (?:title|multiplot .*? title) (.*)$", gp, re.M)
    if not any(t.strip() not in ("''", '""') for t in titles):
        bad.append("no title")
    if not rows:
        return bad + ["no data"]
    if kind in ("line", "memory", "scaling", "scaling-study"):
        ycol = [i for i, h in enumerate(header) if h.endswith(("_ms", "_gib", "bound", "_per_gpu"))
                and h != "limit_gib"][:1]
        vals = numbers(rows, ycol)
        blocks = datablocks(gp)
        for cmd in plot_commands(gp):
            drawn = re.findall(r"(\$D_\d+_\d+) using", cmd)
            seen = {}
            for b in drawn:
                body = blocks.get(b, "")
                if body.strip() and body in seen:
                    bad.append("%s draws the same points as %s (merge them: A = B)"
                               % (b, seen[body]))
                seen.setdefault(body, b)
            if header and header[ycol[0] if ycol else 0] in ("peak_gib", "peak0_gib") \
                    and "$L_" not in cmd:
                bad.append("memory without its limit line")
    elif kind in ("step", "placement-time"):
        vals = numbers(rows, range(1, len(header)))
    elif kind == "peak":
        vals = numbers(rows, [1])
        if not any("limit" in c for c in plot_commands(gp)):
            bad.append("memory without its limit")
        if vals and max(vals) == 0:
            bad.append("every peak is 0")
    elif kind == "gantt":
        vals = numbers(rows, [2, 3])
    elif kind == "memory-timeline":
        vals = numbers(rows, range(2, len(header)))
        if "limit" not in gp:
            bad.append("memory without its limit")
    else:
        return bad + ["unknown kind '%s'" % kind]
    if not vals:
        bad.append("no finite value")
    elif min(vals) == max(vals):
        bad.append("degenerate: every value is %g" % vals[0])
    return bad


def main(dirs):
    n = failed = 0
    for d in dirs:
        for f in sorted(os.listdir(d)):
            if not f.endswith(".csv"):
                continue
            name = f[:-4]
            gp = script_of(d, name)
            if gp is None:
                continue
            # `baechi plot` writes "# baechi plot KIND"; the figures of
            # scripts/scaling-study.py "# figure scaling-study"
            m = re.match(r"# (?:baechi plot|figure) (\S+)", gp)
            kind = m.group(1) if m else "?"
            with open(os.path.join(d, f), newline="", encoding="utf-8") as fh:
                table = list(csv.reader(fh))
            header, rows = (table[0], table[1:]) if table else ([], [])
            bad = check(kind, rows, header, gp)
            n += 1
            if bad:
                failed += 1
                print("FAIL %s (%s): %s" % (name, kind, "; ".join(bad)))
            else:
                print("ok   %s (%s)" % (name, kind))
    if n == 0:
        print("no figure (NAME.csv with NAME.gp) in " + " ".join(dirs))
        return 2
    print("%d figures, %d failed" % (n, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:] or ["plots"]))
