#!/usr/bin/env python3
"""Generates a realistic pair of large tools/list snapshots for the benchmark.

usage: generate.py N_TOOLS OUT_DIR [SEED]

Each tool has a description, nested object parameters, arrays, enums, a `$ref` into `$defs` and an
outputSchema. The new snapshot applies a controlled set of changes to 1% of the tools (a new required
parameter, a removed enum value, a reworded description, an output field renamed, a tightened bound) and
removes/adds a few tools, so the diff reports a realistic number of findings. Deterministic for a seed.
"""
import json, random, sys, os

def tool(i, rnd):
    words = ["issues", "pull requests", "commits", "releases", "deployments", "alerts", "workflows", "secrets"]
    what = words[i % len(words)]
    enum = [f"state_{k}" for k in range(rnd.randint(3, 12))]
    props = {
        "owner": {"type": "string", "description": "Repository owner (user or organization)."},
        "repo": {"type": "string", "description": "Repository name."},
        "state": {"type": "string", "enum": enum, "description": "Filter by state."},
        "perPage": {"type": "integer", "minimum": 1, "maximum": 100, "description": "Results per page (max 100)."},
        "filter": {"type": "object", "properties": {
            "labels": {"type": "array", "items": {"type": "string"}, "description": "Labels to match."},
            "since": {"type": "string", "format": "date-time"},
            "author": {"$ref": "#/$defs/user"}}},
    }
    for k in range(rnd.randint(2, 10)):
        props[f"option_{k}"] = {"type": ["string", "null"], "maxLength": 200, "description": f"Option {k} for listing {what}, used by the server to narrow the result set."}
    return {
        "name": f"list_{what.replace(' ', '_')}_{i}",
        "description": f"List {what} in a GitHub repository. Supports paging, filtering by state and labels, and sorting. Tool number {i}.",
        "inputSchema": {"type": "object", "properties": props, "required": ["owner", "repo"],
                        "$defs": {"user": {"type": "object", "properties": {"login": {"type": "string"}, "id": {"type": "integer"}}, "required": ["login"]}}},
        "outputSchema": {"type": "object", "properties": {"items": {"type": "array", "items": {"type": "object", "properties": {
            "id": {"type": "integer"}, "number": {"type": "integer"}, "title": {"type": "string"}, "url": {"type": "string", "format": "uri"}},
            "required": ["id", "number"]}}, "total": {"type": "integer"}}, "required": ["items"]},
        "annotations": {"readOnlyHint": True, "openWorldHint": True},
    }

def change(t, k):
    t = json.loads(json.dumps(t))
    kind = k % 5
    s = t["inputSchema"]
    if kind == 0:
        s["properties"]["region"] = {"type": "string"}
        s["required"].append("region")
    elif kind == 1:
        s["properties"]["state"]["enum"] = s["properties"]["state"]["enum"][:-1]
    elif kind == 2:
        t["description"] = t["description"].replace("Supports paging", "Supports  paging")
    elif kind == 3:
        item = t["outputSchema"]["properties"]["items"]["items"]
        item["properties"]["itemId"] = item["properties"].pop("id")
        item["required"] = ["itemId", "number"]
    else:
        s["properties"]["perPage"]["maximum"] = 50
    return t

def long_enum(out):
    """One tool whose parameter has a 1,000,000-value enum; the new side drops one value in the middle."""
    values = [f"value_{k}" for k in range(1_000_000)]
    def snap(v):
        return {"tools": [{"name": "pick", "description": "Pick one value.", "inputSchema": {
            "type": "object", "properties": {"v": {"type": "string", "enum": v}}, "required": ["v"]}}]}
    os.makedirs(out, exist_ok=True)
    for name, v in (("old.json", values), ("new.json", values[:500_000] + values[500_001:])):
        with open(os.path.join(out, name), "w") as f:
            json.dump(snap(v), f)

def main():
    if sys.argv[1] == "enum":
        return long_enum(sys.argv[2])
    n, out = int(sys.argv[1]), sys.argv[2]
    rnd = random.Random(int(sys.argv[3]) if len(sys.argv) > 3 else 7)
    old = [tool(i, rnd) for i in range(n)]
    new = []
    for i, t in enumerate(old):
        if i % 100 == 50:
            new.append(change(t, i // 100))
        elif i % 1000 == 999:
            continue  # removed
        else:
            new.append(t)
    for j in range(max(1, n // 1000)):
        new.append(tool(n + j, rnd))
    os.makedirs(out, exist_ok=True)
    for name, tools in (("old.json", old), ("new.json", new)):
        with open(os.path.join(out, name), "w") as f:
            json.dump({"tools": tools}, f, indent=1)

main()
