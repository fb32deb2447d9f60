#!/usr/bin/env python3
"""mutations.py - reads tests/mutations.txt (format: scripts/mutate.sh's
header): one dict per mutation.  `mutations.py FILE` prints them one JSON
object a line, for scripts/mutate.sh; tests/cli/t799 imports read()."""
import json
import sys


def read(path):
    blocks, cur = [], {}
    for line in open(path, encoding="utf-8"):
        line = line.rstrip("\n")
        if line.startswith("#"):
            continue
        if not line.strip():
            if cur:
                blocks.append(cur)
                cur = {}
            continue
        key, _, value = line.partition(":")
        cur[key.strip()] = value.strip()
    if cur:
        blocks.append(cur)
    return blocks


if __name__ == "__main__":
    for b in read(sys.argv[1]):
        print(json.dumps(b))
