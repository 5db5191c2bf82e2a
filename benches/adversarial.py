#!/usr/bin/env python3
"""Wall time and exit code of the release binary on each adversarial input of tests/robustness.rs.

    cargo build --release && python3 benches/adversarial.py

Each case is written to target/bench/adversarial/<case>/ as an old/new pair (or one bad file compared
with an empty snapshot) and run 3 times with `mcp-drift diff OLD NEW --format json --fail-on never`;
the table shows the median wall time, the exit code and the first line of stderr. The tests check the
answers; this script measures the time.
"""
import json
import os
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.join(ROOT, "target", "release", "mcp-drift")
WORK = os.path.join(ROOT, "target", "bench", "adversarial")
EMPTY = b'{"tools": []}'


def tool(name, schema, **extra):
    return {"name": name, "inputSchema": schema, **extra}


def snapshot(tools):
    return json.dumps({"tools": tools}).encode()


def ref_chain(last):
    defs = {f"d{i}": {"$ref": f"#/$defs/d{i + 1}"} for i in range(10_000)}
    defs["d10000"] = {"type": last}
    return snapshot([tool("t", {"type": "object", "properties": {"x": {"$ref": "#/$defs/d0"}}, "$defs": defs})])


def mutual(minimum):
    return snapshot([tool("t", {
        "$defs": {
            "a": {"type": "object", "properties": {"b": {"$ref": "#/$defs/b"}}},
            "b": {"type": "object", "properties": {"a": {"$ref": "#/$defs/a"}, "n": {"type": "integer", "minimum": minimum}}},
        },
        "type": "object", "properties": {"root": {"$ref": "#/$defs/a"}},
    })])


def self_ref(kind):
    return snapshot([tool("t", {"type": "object", "properties": {"node": {"$ref": "#"}, "v": {"type": kind}}})])


def cases():
    values = [f"v{i}" for i in range(1_000_000)]
    tools = [tool(f"tool_{i}", {"type": "object"}) for i in range(100_000)]
    changed = [dict(t) for t in tools]
    changed[500] = tool("tool_500", {"type": "object", "required": ["x"]})
    words = "".join(f"w{i % 977} " for i in range(200_000))
    t = b'{"name": "t", "inputSchema": {}}'
    dup_tool = snapshot([tool("t", {"type": "object"}), tool("t", {"type": "object"})])
    yield "100,000-deep nesting", EMPTY, b"[" * 100_000 + b"]" * 100_000
    yield "self-referential $ref", self_ref(["string", "null"]), self_ref("string")
    yield "mutually recursive $ref", mutual(0), mutual(1)
    yield "10,000-hop $ref chain", ref_chain("string"), ref_chain("integer")
    yield "1,000,000-value enum", snapshot([tool("t", {"type": "object", "properties": {"e": {"enum": values}}})]), \
        snapshot([tool("t", {"type": "object", "properties": {"e": {"enum": values[1:]}}})])
    yield "100,000 tools", snapshot(tools), snapshot(changed)
    yield "1 MB description", snapshot([tool("t", {}, description=words)]), \
        snapshot([tool("t", {}, description=words + "Must not be used on main.")])
    yield "invalid UTF-8", EMPTY, b"\xff\xfe{}"
    yield "BOM", EMPTY, b"\xef\xbb\xbf" + t
    yield "duplicate keys", EMPTY, b'{"name": "t", "name": "u", "inputSchema": {}}'
    yield "duplicate tools", EMPTY, dup_tool
    yield "NaN", EMPTY, b'{"name": "t", "inputSchema": {"maximum": NaN}}'
    yield "400-digit number", EMPTY, b'{"name": "t", "inputSchema": {"maximum": 1' + b"0" * 400 + b"}}"
    yield "empty file", EMPTY, b""


def run(old, new):
    times, result = [], None
    for _ in range(3):
        start = time.perf_counter()
        p = subprocess.run([BIN, "diff", old, new, "--format", "json", "--fail-on", "never"],
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=60)
        times.append(time.perf_counter() - start)
        result = p
    err = result.stderr.decode(errors="replace").strip().splitlines()
    return statistics.median(times), result.returncode, (err[0] if err else "")[:90]


def main():
    if not os.path.exists(BIN):
        sys.exit("build first: cargo build --release")
    print(f"{'case':<26} {'time':>8}  exit  first line of stderr")
    worst = 0.0
    for name, old, new in cases():
        d = os.path.join(WORK, name.replace(" ", "_").replace(",", "").replace("$", ""))
        os.makedirs(d, exist_ok=True)
        paths = []
        for side, data in (("old", old), ("new", new)):
            path = os.path.join(d, f"{side}.json")
            with open(path, "wb") as f:
                f.write(data)
            paths.append(path)
        seconds, code, err = run(*paths)
        worst = max(worst, seconds)
        print(f"{name:<26} {seconds:>7.3f}s  {code:>4}  {err}")
    # A directory with a symbolic link loop and a dangling link.
    d = os.path.join(WORK, "directory")
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "a.json"), "wb") as f:
        f.write(b'{"name": "a", "inputSchema": {}}')
    for link, target in (("loop", d), ("gone.json", os.path.join(d, "missing.json"))):
        if not os.path.lexists(os.path.join(d, link)):
            os.symlink(target, os.path.join(d, link))
    seconds, code, err = run(d, d)
    worst = max(worst, seconds)
    print(f"{'directory with bad links':<26} {seconds:>7.3f}s  {code:>4}  {err}")
    print(f"slowest: {worst:.3f}s")


if __name__ == "__main__":
    main()
