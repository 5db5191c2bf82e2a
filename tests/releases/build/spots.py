#!/usr/bin/env python3
"""Neutral structural diff of two tools/list captures (independent of mcp-drift).

Usage: python3 spots.py [--set DIR | DIR]   (default: the folder above this script,
       tests/releases; e.g. `--set tests/releases/fresh`)
Reads pairs.json, writes spots.json: for every non-identical pair, a list of spots.

Rules:
- tools are matched by `name`; a tool on one side only is ONE spot
  (kind "tool-added" / "tool-removed", path "", old/new = the whole tool or null);
- within a matched tool, objects are walked key by key; a key on one side only is one
  "added" / "removed" spot at that key (value = the whole subtree);
- two differing non-object values (strings, numbers, booleans, null, arrays such as
  `enum` or `required`, or an object on one side and a non-object on the other) are one
  "changed" spot at that path;
- paths are JSON pointers (RFC 6901) inside the tool object, e.g.
  "/inputSchema/properties/limit/maximum";
- spots are ordered by tool name, then by path (with removed/added tools at their
  name), and numbered "<pair id>#<n>" from 1.
"""
import json
import sys
from pathlib import Path


def esc(k):
    return k.replace("~", "~0").replace("/", "~1")


def walk(old, new, path, out):
    if isinstance(old, dict) and isinstance(new, dict):
        for k in sorted(set(old) | set(new)):
            p = f"{path}/{esc(k)}"
            if k not in new:
                out.append(("removed", p, old[k], None))
            elif k not in old:
                out.append(("added", p, None, new[k]))
            else:
                walk(old[k], new[k], p, out)
        return
    # non-object (or object vs non-object): compare as JSON values; 1 == 1.0 but True != 1
    if type(old) is not type(new) and not (isinstance(old, (int, float)) and isinstance(new, (int, float))
                                           and not isinstance(old, bool) and not isinstance(new, bool)):
        out.append(("changed", path, old, new))
    elif old != new:
        out.append(("changed", path, old, new))


def tools_by_name(doc):
    tools = doc.get("tools", []) if isinstance(doc, dict) else []
    out = {}
    for t in tools:
        out[t.get("name")] = t  # names are unique in a capture
    return out


def diff(old_doc, new_doc):
    a, b = tools_by_name(old_doc), tools_by_name(new_doc)
    spots = []
    for name in sorted(set(a) | set(b), key=lambda n: (n is None, str(n))):
        if name not in b:
            spots.append((name, "tool-removed", "", a[name], None))
        elif name not in a:
            spots.append((name, "tool-added", "", None, b[name]))
        else:
            out = []
            walk(a[name], b[name], "", out)
            spots += [(name, k, p, o, n) for k, p, o, n in out]
    return spots


def main():
    args = sys.argv[1:]
    if args[:1] == ["--set"]:
        args = args[1:]
    root = Path(args[0]) if args else Path(__file__).resolve().parent.parent
    pairs = json.loads((root / "pairs.json").read_text())
    result = []
    for pr in pairs:
        if pr["identical"]:
            continue
        old = json.loads((root / pr["old"]).read_text())
        new = json.loads((root / pr["new"]).read_text())
        spots = diff(old, new)
        for i, (tool, kind, path, o, n) in enumerate(spots, 1):
            result.append({"id": f"{pr['id']}#{i}", "pair": pr["id"], "split": pr["split"], "tool": tool,
                           "kind": kind, "path": path, "old": o, "new": n})
    (root / "spots.json").write_text(json.dumps(result, indent=1, ensure_ascii=False) + "\n")
    print(f"spots.json: {len(result)} spots over {sum(1 for p in pairs if not p['identical'])} non-identical pairs")


if __name__ == "__main__":
    main()
