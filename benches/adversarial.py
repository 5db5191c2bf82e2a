#!/usr/bin/env python3
"""Wall time and exit code of the release binary on each adversarial input of tests/robustness.rs.

    cargo build --release && python3 benches/adversarial.py

    python3 benches/adversarial.py "a." "b."     # only the cases whose names start so

Each case is written to target/bench/adversarial/<case>/ as an old/new pair (or one bad file compared
with an empty snapshot) and run 3 times under /usr/bin/time -v with
`mcp-drift diff OLD NEW --format json --fail-on never`; the table shows the median wall time, the exit
code, the peak RSS and the first line of stderr. A run is killed after TIMEOUT seconds (default 20)
and capped at MEMORY_CAP_MB of address space (default 4096), so a case that explodes fails fast.
Cases "a." to "f." are the bounded-work cases of issue #12 (each must end in under 2 s and 512 MB).
The tests check the answers; this script measures the time. BIN overrides the binary.
"""
import json
import os
import resource
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.environ.get("BIN") or os.path.join(ROOT, "target", "release", "mcp-drift")
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


def refs(defs, root_ref="#/$defs/d0", required=False):
    root = {"type": "object", "properties": {"x": {"$ref": root_ref}}, "$defs": defs}
    if required:
        root["required"] = ["x"]
    return root


def allof_diamond(leaf):
    """a. 24 levels of two-way `allOf` through `$ref`: 2^24 paths to one leaf (about 4 KB)."""
    defs = {f"d{i}": {"allOf": [{"$ref": f"#/$defs/d{i + 1}"}, {"$ref": f"#/$defs/d{i + 1}"}]} for i in range(24)}
    defs["d24"] = {"type": "object", "properties": {"v": {"type": leaf}}}
    return snapshot([tool("t", refs(defs))])


def anyof_mutual(leaf):
    """b. Two `anyOf` definitions that reference each other twice (about 300 bytes)."""
    defs = {
        "a": {"anyOf": [{"$ref": "#/$defs/b"}, {"$ref": "#/$defs/b"}, {"type": leaf}]},
        "b": {"anyOf": [{"$ref": "#/$defs/a"}, {"$ref": "#/$defs/a"}, {"type": "integer"}]},
    }
    return snapshot([tool("t", refs(defs, "#/$defs/a", required=True))])


def ref_fanout(levels, leaf, required=False):
    """c, d. `levels` levels of 10 `$ref` properties each: 10^levels paths to the leaf."""
    names = [f"p{k}" for k in range(10)]
    defs = {}
    for i in range(levels):
        d = {"type": "object", "properties": {n: {"$ref": f"#/$defs/d{i + 1}"} for n in names}}
        if required:
            d["required"] = names
        defs[f"d{i}"] = d
    defs[f"d{levels}"] = {"type": leaf}
    return snapshot([tool("t", refs(defs, required=required))])


def huge_arrays(extra):
    """e. `minItems 1000` of `minItems 1000` of `minLength 10000`: 10^10 bytes if built naively."""
    schema = {"type": "object", "properties": {"m": {"type": "array", "minItems": 1000, "items": {
        "type": "array", "minItems": 1000, "items": {"type": "string", "minLength": 10000}}}}, "required": ["m"]}
    if extra:
        schema["properties"]["y"] = {"type": "string"}
        schema["required"].append("y")
    return snapshot([tool("t", schema)])


def long_strings(extra):
    """f. 4,000 required strings of `minLength 10000`."""
    names = [f"s{i}" for i in range(4000)]
    schema = {"type": "object", "properties": {n: {"type": "string", "minLength": 10000} for n in names},
              "required": list(names)}
    if extra:
        schema["properties"]["y"] = {"type": "string"}
        schema["required"].append("y")
    return snapshot([tool("t", schema)])


def budget_cases():
    """The bounded-work cases of issue #12: each must end in under 2 s and 512 MB."""
    yield "a. 24-level allOf diamond", allof_diamond("string"), allof_diamond("integer")
    yield "b. mutual anyOf", anyof_mutual("string"), anyof_mutual("integer")
    yield "c. 10^6 $ref paths", ref_fanout(6, "string"), ref_fanout(6, "integer")
    yield "d. 10^7 required witness", ref_fanout(7, "string", True), ref_fanout(7, "integer", True)
    yield "e. 10^10-byte witness", huge_arrays(False), huge_arrays(True)
    yield "f. 4,000 long strings", long_strings(False), long_strings(True)


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
    yield from budget_cases()


TIMEOUT = float(os.environ.get("TIMEOUT", "20"))
# Address-space cap per run (MB), so a case that explodes fails fast instead of taking the machine.
MEMORY_CAP = int(os.environ.get("MEMORY_CAP_MB", "4096"))


def cap_memory():
    limit = MEMORY_CAP * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def run(old, new):
    """Median wall time of 3 runs, the exit code, peak RSS in MB (/usr/bin/time -v) and stderr's first
    line; a run past TIMEOUT seconds (default 20) is killed and reported as such."""
    times, rss, result = [], 0, None
    for _ in range(3):
        start = time.perf_counter()
        try:
            p = subprocess.run(["/usr/bin/time", "-v", BIN, "diff", old, new, "--format", "json", "--fail-on", "never"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=TIMEOUT,
                               preexec_fn=cap_memory)
        except subprocess.TimeoutExpired:
            return None, None, None, f"killed after {TIMEOUT:.0f} s"
        times.append(time.perf_counter() - start)
        result = p
        lines = p.stderr.decode(errors="replace").splitlines()
        for line in lines:
            if "Maximum resident set size" in line:
                rss = max(rss, int(line.split(":")[1]) // 1024)
    err = [x for x in result.stderr.decode(errors="replace").strip().splitlines() if not x.startswith("\t")]
    err = [x for x in err if not x.startswith("Command ")]
    return statistics.median(times), result.returncode, rss, (err[0] if err else "")[:90]


def main():
    if not os.path.exists(BIN):
        sys.exit("build first: cargo build --release")
    print(f"{'case':<26} {'time':>8}  exit  rss_MB  first line of stderr")
    worst = 0.0
    only = sys.argv[1:]
    for name, old, new in cases():
        if only and not any(name.startswith(o) for o in only):
            continue
        d = os.path.join(WORK, name.replace(" ", "_").replace(",", "").replace("$", ""))
        os.makedirs(d, exist_ok=True)
        paths = []
        for side, data in (("old", old), ("new", new)):
            path = os.path.join(d, f"{side}.json")
            with open(path, "wb") as f:
                f.write(data)
            paths.append(path)
        seconds, code, rss, err = run(*paths)
        worst = max(worst, seconds or TIMEOUT)
        shown = f"{seconds:>7.3f}s" if seconds is not None else "timeout "
        print(f"{name:<26} {shown}  {code if code is not None else '-':>4}  {rss if rss is not None else '-':>6}  {err}",
              flush=True)
    # A directory with a symbolic link loop and a dangling link.
    d = os.path.join(WORK, "directory")
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "a.json"), "wb") as f:
        f.write(b'{"name": "a", "inputSchema": {}}')
    for link, target in (("loop", d), ("gone.json", os.path.join(d, "missing.json"))):
        if not os.path.lexists(os.path.join(d, link)):
            os.symlink(target, os.path.join(d, link))
    if not only:
        seconds, code, rss, err = run(d, d)
        worst = max(worst, seconds)
        print(f"{'directory with bad links':<26} {seconds:>7.3f}s  {code:>4}  {rss:>6}  {err}")
    print(f"slowest: {worst:.3f}s")


if __name__ == "__main__":
    main()
