#!/usr/bin/env python3
"""Scores mcp-drift on the release pairs against the blind labels (issue #31).

Usage: score.py BINARY [--split dev|holdout|all] [--show] [--set DIR]

`--set DIR` scores another set of the same layout (e.g. tests/releases-fresh); default tests/releases.

For every pair of consecutive versions (pairs.json) it runs `BINARY diff OLD NEW --format json` (the
default gate: exit 1 when a finding is an error) and compares with the labels in labels/*.json
(per changed spot: breaking yes/no/maybe and should_block; per pair: should_block). A pair labelled by
several labellers takes the first labeller's label (files in name order); agreement is reported.

Findings and spots are matched by tool and JSON pointer: the same place, one inside the other, or a
spot at `.../required` and a finding on a property of that object, or two places inside one
parameter (`.../command/anyOf`, `.../command/type`); a tool-level finding (pointer "")
matches every spot of its tool, a tool-level spot (tool added, removed) every finding of its tool. A
renamed tool is one tool: `tool-renamed` and the findings on the new name match the removal spot of
the old name (the neutral diff sees a removal and an addition).

Figures (the bars are issue #31's):
- should-block spots reported at error (>= 95%);
- clean pairs (no should-block spot) whose gate fails (at most 1 in 20);
- false errors: error findings matching no should-block spot, per pair (at most 1 per 5 pairs);
- warnings on harmless changes: warnings whose matched spots are all labelled breaking "no"
  (at most 40% of warnings).
"""
import glob
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
if "--set" in sys.argv:
    ROOT = os.path.abspath(sys.argv[sys.argv.index("--set") + 1])


def parameter(p):
    """The parameter a pointer is about: the prefix up to its last `/properties/<name>`."""
    parts = p.split("/")
    for i in range(len(parts) - 2, 0, -1):
        if parts[i] == "properties":
            return "/".join(parts[: i + 2])
    return None


def related(a, b):
    if a == "" or b == "" or a == b or a.startswith(b + "/") or b.startswith(a + "/"):
        return True
    # Two places in one parameter (`.../command/anyOf` and `.../command/type`) are one change.
    if parameter(a) is not None and parameter(a) == parameter(b):
        return True
    for x, y in ((a, b), (b, a)):
        if x.endswith("/required"):
            parent = x[: -len("/required")]
            if y.startswith(parent + "/properties/"):
                return True
    return False


def load_labels():
    labels, by_pair = {}, {}
    for path in sorted(glob.glob(os.path.join(ROOT, "labels", "*.json"))):
        data = json.load(open(path))
        for pid, lab in data["pairs"].items():
            by_pair.setdefault(pid, []).append((data.get("labeller", os.path.basename(path)), lab))
            labels.setdefault(pid, lab)
    return labels, by_pair


def run(binary, pair):
    old, new = (os.path.join(ROOT, pair[k]) for k in ("old", "new"))
    p = subprocess.run([binary, "diff", old, new, "--format", "json"], capture_output=True, text=True, timeout=120)
    if p.returncode not in (0, 1):
        raise SystemExit(f"{pair['id']}: exit {p.returncode}: {p.stderr[:500]}")
    return p.returncode, json.loads(p.stdout)["findings"]


def main():
    binary = sys.argv[1]
    split = sys.argv[sys.argv.index("--split") + 1] if "--split" in sys.argv else "all"
    show = "--show" in sys.argv
    pairs = json.load(open(os.path.join(ROOT, "pairs.json")))
    spots = json.load(open(os.path.join(ROOT, "spots.json")))
    labels, by_pair = load_labels()
    spots_of = {}
    for s in spots:
        spots_of.setdefault(s["pair"], []).append(s)
    t = dict(pairs=0, identical=0, labelled=0, clean=0, clean_failed=0, blocking=0, blocking_passed=0,
             block_spots=0, block_spots_at_error=0, errors=0, false_errors=0, warnings=0, harmless_warnings=0,
             unmatched_warnings=0, infos=0)
    agree = [0, 0]
    for pair in pairs:
        if split != "all" and pair["split"] != split:
            continue
        t["pairs"] += 1
        code, findings = run(binary, pair)
        if pair["identical"]:
            t["identical"] += 1
            if code != 0:
                t["clean_failed"] += 1
                print(f"IDENTICAL PAIR FAILS: {pair['id']}")
            t["clean"] += 1
            continue
        lab = labels.get(pair["id"])
        if lab is None:
            print(f"unlabelled: {pair['id']}")
            continue
        t["labelled"] += 1
        if len(by_pair.get(pair["id"], [])) > 1:
            verdicts = {l["should_block"] for _, l in by_pair[pair["id"]]}
            agree[0] += len(verdicts) == 1
            agree[1] += 1
        ss = spots_of.get(pair["id"], [])
        spot_lab = lab["spots"]
        blocking_spots = [s for s in ss if spot_lab.get(s["id"], {}).get("should_block")]
        should_block = lab["should_block"] or bool(blocking_spots)

        # A renamed tool's findings are about the old tool too: the neutral diff sees a removal and an
        # addition, so its spots are on both names.
        renamed = {f["tool"]: f["from"] for f in findings if f["rule"] == "tool-renamed" and f.get("from")}

        def matches(f, s):
            if f["rule"] == "tool-renamed":
                return s["tool"] in (f["tool"], f.get("from")) and s["path"] == ""
            if s["tool"] not in (f["tool"], renamed.get(f["tool"])):
                return False
            if s["tool"] != f["tool"]:
                return s["path"] == ""
            pointers = [f.get("pointer", "")] + ([f["from"]] if (f.get("from") or "").startswith("/") else [])
            return any(related(p, s["path"]) for p in pointers)

        if should_block:
            t["blocking"] += 1
            if code == 0:
                t["blocking_passed"] += 1
                if show:
                    print(f"MISSED BLOCK: {pair['id']}: {lab.get('note', '')}")
        else:
            t["clean"] += 1
            if code != 0:
                t["clean_failed"] += 1
                if show:
                    errs = [f"{f['rule']} {f['tool']} {f['message'][:140]}" for f in findings if f["severity"] == "error"]
                    print(f"CLEAN FAILS: {pair['id']}: " + " | ".join(errs[:4]))
        for s in blocking_spots:
            t["block_spots"] += 1
            if any(f["severity"] == "error" and matches(f, s) for f in findings):
                t["block_spots_at_error"] += 1
            elif show:
                print(f"  spot not at error: {s['id']} {s['kind']} {s['path']}: {spot_lab[s['id']].get('note', '')}")
        for f in findings:
            m = [s for s in ss if matches(f, s)]
            if f["severity"] == "error":
                t["errors"] += 1
                if not any(spot_lab.get(s["id"], {}).get("should_block") for s in m):
                    t["false_errors"] += 1
                    if show:
                        print(f"  false error: {pair['id']} {f['rule']} {f['tool']} {f['pointer']}: {f['message'][:160]}")
            elif f["severity"] == "warning":
                t["warnings"] += 1
                if not m:
                    t["unmatched_warnings"] += 1
                elif all(spot_lab.get(s["id"], {}).get("breaking") == "no" for s in m):
                    t["harmless_warnings"] += 1
                    if show:
                        print(f"  harmless warning: {pair['id']} {f['rule']} {f['tool']} {f['pointer']}: {f['message'][:160]}")
            else:
                t["infos"] += 1
    pct = lambda a, b: f"{a}/{b} ({100.0 * a / b:.0f}%)" if b else f"{a}/0"
    print(f"split {split}: {t['pairs']} pairs ({t['identical']} identical, {t['labelled']} labelled changed pairs)")
    print(f"  clean pairs failing the gate: {pct(t['clean_failed'], t['clean'])} (bar: at most 1 in 20)")
    print(f"  blocking pairs passing the gate: {pct(t['blocking_passed'], t['blocking'])}")
    print(f"  should-block spots at error: {pct(t['block_spots_at_error'], t['block_spots'])} (bar: >= 95%)")
    print(f"  false errors: {t['false_errors']} of {t['errors']} errors, {t['false_errors'] / max(t['pairs'], 1):.2f} per pair (bar: <= 0.2)")
    print(f"  warnings on harmless changes: {pct(t['harmless_warnings'], t['warnings'])} (bar: <= 40%); {t['unmatched_warnings']} warnings match no spot")
    print(f"  infos: {t['infos']}")
    if agree[1]:
        print(f"  labellers agree on should_block for {agree[0]} of {agree[1]} double-labelled pairs")


if __name__ == "__main__":
    main()
