#!/usr/bin/env python3
"""compare.py PLACEMENT.yaml REF.json EXIT WHAT: the placement `baechi place`
wrote (with exit status EXIT) equals the reference's: both infeasible, or the
same device for every op and (when the reference has one) the same estimate.
Used by tests/cli/lib.sh (ref_compare) for t330-t350.
"""
import json, sys, yaml
ref = json.load(open(sys.argv[2]))
crc = int(sys.argv[3])
what = sys.argv[4]
if "infeasible" in ref:
    assert crc == 3, (what, "reference infeasible, baechi exit", crc, ref)
    sys.exit(0)
assert crc == 0, (what, "baechi exit", crc, "reference feasible")
c = yaml.safe_load(open(sys.argv[1]))
if "estimate_us" in ref:
    assert c["stats"]["estimate_us"] == ref["estimate_us"], (what, c["stats"]["estimate_us"], ref["estimate_us"])
diff = [k for k, d in c["devices"].items() if ref["devices"][k] != d]
assert not diff and len(c["devices"]) == len(ref["devices"]), (what, len(diff), diff[:3])
