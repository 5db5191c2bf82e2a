#!/usr/bin/env python3
"""A stand-in for mcp-drift in the oracle's self-test (selftest.sh): `fake_engine.py diff OLD NEW ...`
prints a JSON report whose `compatibility` key gives every tool the verdict named by FAKE_VERDICT:
`compatible` (wrong wherever a break exists), `undecided` (never wrong), or `witness` (incompatible
with the witness `null` for input and output, wrong wherever A and B both accept or reject null)."""

import json
import os
import sys

_, _command, old, *_ = sys.argv
with open(old, encoding="utf-8") as f:
    tools = [t["name"] for t in json.load(f)["tools"]]
kind = os.environ.get("FAKE_VERDICT", "compatible")
if kind == "witness":
    verdict = {"verdict": "incompatible", "witness": None, "reason": "fake"}
else:
    verdict = {"verdict": kind, "reason": "fake"}
print(json.dumps({"version": 1, "findings": [], "compatibility": {t: {"input": verdict, "output": verdict} for t in tools}}))
