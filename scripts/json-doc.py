#!/usr/bin/env python3
"""json-doc.py - writes docs/json.md from the JSON Schemas in docs/schema/
(the schemas are the source; tests/cli/t060 checks that docs/json.md is
this script's output).  Usage: python3 scripts/json-doc.py > docs/json.md"""
import json
import os
import sys

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ORDER = [("place", "baechi place --json"), ("run", "baechi run --json"),
         ("sim", "baechi sim --json"), ("workload-info", "baechi workload info --json"),
         ("replay", "baechi replay --json"), ("sweep", "baechi sweep --json"),
         ("report", "baechi report --json"), ("db-query", "baechi db query --format json"),
         ("cluster-list", "baechi cluster list --json"),
         ("validate", "baechi validate --format json")]
INTRO = '# JSON output: the contract\n\nEvery command that reports a result takes `--json` and prints one JSON\nobject on one line on stdout.  One contract holds across commands:\n\n- numbers are JSON numbers and booleans are JSON booleans (never `"4"` or\n  `"true"`); a missing value is `null`;\n- the same thing has the same name everywhere: `workload`, `cluster`,\n  `placer`, `n_ops`, `n_devices`, `step_us`, `peak_bytes`, ...; counts are\n  `n_<things>`;\n- units are in the names: `_us` (microseconds), `_ms` (milliseconds),\n  `_bytes` (bytes), `_pct` (percent); `utilization` and `memory_fraction` are\n  fractions (0..1);\n- an infeasible placement (exit 3) is a result: `place --json` and\n  `run --json` print `{"workload", "cluster", "placer", "feasible": false,\n  "reason"}` on stdout and nothing on stderr.\n\nThe machine-checked form is a JSON Schema (draft 2020-12) per command in\n[`schema/`](schema/): `place.json`, `run.json`, `sim.json`,\n`workload-info.json`, `replay.json`, `sweep.json`, `report.json`,\n`db-query.json`, `cluster-list.json`, `validate.json`.  Objects are closed\n(`additionalProperties: false`), so an added, renamed or retyped field fails\n`tests/cli/t060-json-schema.sh`, which validates every command\'s output with\n`tests/json_schema.py` (a validator of the subset used: `type`, `required`,\n`properties`, `additionalProperties`, `items`, `enum`, `minimum`, `oneOf`;\nPython\'s standard library has none).  Use it for your own checks:\n\n```sh\nbaechi run -w W -c paper-4gpu-pcie -p m-etf --json > r.json\npython3 tests/json_schema.py docs/schema/run.json r.json\n```\n\n`report --json` / `--format json` and `db query --format json` are also\ndescribed in [results.md](results.md).\n\n`options` (in `place`, `run`, `sim`) are the placer\'s options as recorded\nin the placement file, `placement_stats` its deterministic statistics; both\ntyped, with the count names of this contract (`n_devices`, `n_nodes`,\n`n_groups`, `n_favourite_children`).\n'


def typ(s):
    t = s.get("type", "")
    t = "/".join(t) if isinstance(t, list) else t
    if "enum" in s:
        t += " (" + ", ".join(json.dumps(e) for e in s["enum"]) + ")"
    if "minimum" in s:
        t += ", \u2265 %s" % s["minimum"]
    return t


def rows(s, prefix, out):
    for k, v in s.get("properties", {}).items():
        name = prefix + k
        t = typ(v)
        if v.get("type") == "array" and "items" in v:
            it = v["items"]
            t = "array of " + (it["type"] if isinstance(it.get("type"), str) else typ(it))
        opt = "" if k in s.get("required", []) else " (optional)"
        out.append("| `%s` | %s | %s%s |" % (name, t, v.get("description", ""), opt))
        if v.get("type") == "object":
            rows(v, name + ".", out)
        if v.get("type") == "array" and v.get("items", {}).get("type") == "object":
            rows(v["items"], name + "[].", out)


def main():
    doc = [INTRO]
    for key, title in ORDER:
        s = json.load(open(os.path.join(TOP, "docs", "schema", key + ".json")))
        doc.append("\n## %s\n\n`%s` ([schema](schema/%s.json))\n" % (key.replace("-", " "), title, key))
        alts = s.get("oneOf", [s])
        for alt in alts:
            if len(alts) > 1:
                feasible = alt["properties"]["feasible"]["enum"][0]
                doc.append("\n%s:\n" % ("A placement (exit 0)" if feasible else "Infeasible (exit 3)"))
            out = ["", "| field | type | meaning |", "|---|---|---|"]
            rows(alt, "", out)
            doc.append("\n".join(out) + "\n")
    sys.stdout.write("\n".join(doc))


if __name__ == "__main__":
    main()
