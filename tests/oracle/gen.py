#!/usr/bin/env python3
"""Generate containment pairs for the independent oracle (tests/oracle/README.md).

Takes bare git directories of the JSON-Schema-Test-Suite, github/github-mcp-server and getsentry/sentry-mcp
(as the `fetch` tool brings them) and writes JSON Lines of pairs:
  {"id", "source": "<repo>@<commit>:<path>#<group>", "mutation", "a", "b", "truth", "tests"}
`truth` holds what is known by construction ({"input": "compatible"} when A is a subset of B, ...),
`tests` (suite pairs only) the instances of the test group, which the oracle also tries as
counterexamples. The mutator is seeded and deterministic: the same mirrors and seed give the same file.
Needs only the Python standard library.
"""

import argparse
import copy
import json
import random
import subprocess
import sys

SUITE_REPO = "json-schema-org/JSON-Schema-Test-Suite"
GITHUB_REPO = "github/github-mcp-server"
SENTRY_REPO = "getsentry/sentry-mcp"
SKIP_FILES = {"refRemote.json", "vocabulary.json"}

# Where subschemas live, and how the keyword's result depends on them (+1 monotone, -1 antitone,
# None: neither, or unknown). `$defs` is None because a definition may be reached from anywhere.
MAP_KEYS = {"properties": 1, "patternProperties": 1, "dependentSchemas": 1, "$defs": None, "definitions": None}
LIST_KEYS = {"allOf": 1, "anyOf": 1, "oneOf": None, "prefixItems": 1}
ONE_KEYS = {
    "additionalProperties": 1, "items": 1, "contains": 1, "propertyNames": 1, "not": -1, "if": None,
    "then": 1, "else": 1, "unevaluatedItems": 1, "unevaluatedProperties": 1, "contentSchema": None,
}
REF_KEYS = ("$ref", "$dynamicRef", "$id", "$anchor", "$dynamicAnchor", "$recursiveRef")


def git(gitdir, *args):
    return subprocess.run(["git", "-C", gitdir, *args], check=True, capture_output=True).stdout


def canon(value):
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def mul(a, b):
    return None if a is None or b is None else a * b


def locations(schema, path=(), polarity=1, depth=0):
    """Every subschema position (path, node, polarity), schema keywords only (never enum/const data)."""
    if depth > 40:
        return
    yield path, schema, polarity
    if not isinstance(schema, dict):
        return
    for key, value in schema.items():
        if key in MAP_KEYS and isinstance(value, dict):
            for name, sub in value.items():
                yield from locations(sub, (*path, key, name), mul(polarity, MAP_KEYS[key]), depth + 1)
        elif key in LIST_KEYS and isinstance(value, list):
            for i, sub in enumerate(value):
                yield from locations(sub, (*path, key, i), mul(polarity, LIST_KEYS[key]), depth + 1)
        elif key in ONE_KEYS:
            pol = ONE_KEYS[key]
            if key == "contains" and "maxContains" in schema:
                pol = None
            yield from locations(value, (*path, key), mul(polarity, pol), depth + 1)


def has_schema_key(schema, keys):
    return any(isinstance(node, dict) and any(k in node for k in keys) for _, node, _ in locations(schema))


def replace_at(schema, path, new):
    if not path:
        return new
    root = copy.deepcopy(schema)
    node = root
    for step in path[:-1]:
        node = node[step]
    node[path[-1]] = new
    return root


def get_at(schema, path):
    for step in path:
        schema = schema[step]
    return schema


BOUNDS = {  # keyword: +1 when raising it widens, -1 when raising it narrows
    "minimum": -1, "exclusiveMinimum": -1, "maximum": 1, "exclusiveMaximum": 1, "minLength": -1,
    "maxLength": 1, "minItems": -1, "maxItems": 1, "minProperties": -1, "maxProperties": 1,
    "minContains": -1, "maxContains": 1,
}
NON_NEGATIVE = {"minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties", "minContains", "maxContains"}
# Keywords whose removal only widens (at a monotone position), given the schema has no unevaluated*.
DROP_WIDENS = {
    "type", "enum", "const", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf",
    "minLength", "maxLength", "pattern", "minItems", "maxItems", "uniqueItems", "minProperties",
    "maxProperties", "required", "dependentRequired", "not", "allOf", "anyOf", "oneOf", "if", "then", "else",
    "contains", "propertyNames", "dependentSchemas", "$ref", "maxContains",
}
EXTRA_VALUES = ["zz", 7, None, True, {"k": 1}, [1, 2], 2.5, ""]
TYPES = ["null", "boolean", "object", "array", "number", "string", "integer"]


def candidates(node, rng):
    """(mutation name, new node, effect) for one subschema: effect 'widen', 'narrow', 'equiv' or None."""
    out = []
    if isinstance(node, bool):
        out.append(("boolean-flip", not node, "widen" if node is False else "narrow"))
        out.append(("boolean-to-object", {} if node else {"not": {}}, "equiv"))
        return out
    if not isinstance(node, dict):
        return out
    n = copy.deepcopy(node)

    def with_(key, value):
        m = copy.deepcopy(n)
        m[key] = value
        return m

    def without(key):
        m = copy.deepcopy(n)
        m.pop(key, None)
        return m

    for key, direction in BOUNDS.items():
        v = n.get(key)
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            step = 1 if isinstance(v, int) or float(v).is_integer() else 0.5
            up, down = v + step, v - step
            out.append((f"{key}-raise", with_(key, up), "widen" if direction > 0 else "narrow"))
            if key not in NON_NEGATIVE or down >= 0:
                out.append((f"{key}-lower", with_(key, down), "narrow" if direction > 0 else "widen"))
    if "multipleOf" in n and isinstance(n["multipleOf"], (int, float)) and not isinstance(n["multipleOf"], bool):
        out.append(("multipleOf-double", with_("multipleOf", n["multipleOf"] * 2), "narrow"))
    types = n.get("type")
    tl = [types] if isinstance(types, str) else types if isinstance(types, list) else None
    if tl is not None and all(isinstance(t, str) for t in tl):
        extra = [t for t in TYPES if t not in tl and not (t == "integer" and "number" in tl)]
        if extra:
            out.append(("type-add", with_("type", [*tl, rng.choice(extra)]), "widen"))
            out.append(("type-change", with_("type", rng.choice(extra)), None))
        if len(tl) > 1:
            out.append(("type-remove", with_("type", tl[1:] if len(tl) > 2 else tl[1]), "narrow"))
        if isinstance(types, str):
            out.append(("type-as-list", with_("type", [types]), "equiv"))
    elif "type" not in n:
        out.append(("type-set", with_("type", rng.choice(TYPES)), "narrow"))
    if isinstance(n.get("enum"), list) and n["enum"]:
        vals = n["enum"]
        new = next((x for x in EXTRA_VALUES if canon(x) not in {canon(v) for v in vals}), None)
        out.append(("enum-add", with_("enum", [*vals, new]), "widen"))
        if len(vals) > 1:
            i = rng.randrange(len(vals))
            out.append(("enum-remove", with_("enum", vals[:i] + vals[i + 1:]), "narrow"))
            out.append(("enum-reorder", with_("enum", list(reversed(vals))), "equiv"))
        else:
            m = without("enum")
            m["const"] = vals[0]
            out.append(("enum-to-const", m, "equiv"))
    if "const" in n:
        m = without("const")
        m["enum"] = [n["const"], next(x for x in EXTRA_VALUES if canon(x) != canon(n["const"]))]
        out.append(("const-to-enum-widened", m, "widen"))
    props = n.get("properties") if isinstance(n.get("properties"), dict) else None
    req = n.get("required") if isinstance(n.get("required"), list) else None
    closed = "additionalProperties" in n or "unevaluatedProperties" in n or "patternProperties" in n
    if req:
        i = rng.randrange(len(req))
        out.append(("required-remove", with_("required", req[:i] + req[i + 1:]), "widen"))
    names = list(props) if props else []
    missing = [p for p in names if not req or p not in req]
    if missing:
        out.append(("required-add", with_("required", [*(req or []), rng.choice(missing)]), "narrow"))
    elif "type" in n and n.get("type") == "object" or props is not None:
        out.append(("required-add-new", with_("required", [*(req or []), "zz_new"]), "narrow"))
    if props is not None or n.get("type") == "object":
        p2 = dict(props or {})
        p2["zz_added"] = {"type": "string"}
        out.append(("property-add", with_("properties", p2), None if closed else "narrow"))
    if names:
        victim = rng.choice(names)
        p2 = {k: v for k, v in props.items() if k != victim}
        out.append(("property-remove", with_("properties", p2), None if closed else "widen"))
        out.append(("property-type-change", with_("properties", {**props, victim: {"type": "boolean"}}), None))
    ap = n.get("additionalProperties", "absent")
    if ap is False:
        out.append(("additionalProperties-false-to-true", with_("additionalProperties", True), "widen"))
        out.append(("additionalProperties-false-dropped", without("additionalProperties"), "widen"))
    elif ap == "absent" and (props is not None or n.get("type") == "object"):
        out.append(("additionalProperties-close", with_("additionalProperties", False), "narrow"))
    elif ap is True or isinstance(ap, dict):
        out.append(("additionalProperties-to-false", with_("additionalProperties", False), "narrow"))
    for key in list(n):
        if key in DROP_WIDENS:
            out.append((f"drop-{key}", without(key), "widen"))
        elif key == "format":
            out.append(("drop-format", without(key), "equiv"))
        elif key in ("properties", "patternProperties", "prefixItems", "items", "additionalProperties"):
            out.append((f"drop-{key}", without(key), None))
    for key in ("anyOf", "oneOf"):
        branches = n.get(key)
        if isinstance(branches, list) and branches:
            out.append((f"{key}-branch-add", with_(key, [*branches, {"type": "boolean"}]), "widen" if key == "anyOf" else None))
            if len(branches) > 1:
                i = rng.randrange(len(branches))
                out.append((f"{key}-branch-remove", with_(key, branches[:i] + branches[i + 1:]), "narrow" if key == "anyOf" else None))
    if isinstance(n.get("pattern"), str):
        out.append(("pattern-anchor", with_("pattern", "^(?:" + n["pattern"] + ")$"), None))
        out.append(("pattern-change", with_("pattern", "^[a-z]+$"), None))
    elif n.get("type") == "string" or "pattern" not in n and rng.random() < 0.3:
        out.append(("pattern-add", with_("pattern", "^[a-z]*$"), "narrow"))
    if n.get("uniqueItems") is True:
        out.append(("uniqueItems-off", with_("uniqueItems", False), "widen"))
    else:
        out.append(("uniqueItems-on", with_("uniqueItems", True), "narrow"))
    if "propertyNames" not in n:
        out.append(("propertyNames-add", with_("propertyNames", {"maxLength": 3}), "narrow"))
    target = names[0] if names else "foo"
    if "dependentRequired" not in n:
        out.append(("dependentRequired-add", with_("dependentRequired", {target: ["zz_dep"]}), "narrow"))
    if "if" not in n:
        m = with_("if", {"required": [target]})
        m["then"] = {"required": ["zz_then"]}
        out.append(("if-then-add", m, "narrow"))
    elif "then" in n:
        out.append(("if-changed", with_("if", {"not": n["if"]}), None))
    if "contains" not in n:
        out.append(("contains-add", with_("contains", {"type": "integer"}), "narrow"))
    if "not" not in n:
        out.append(("not-add", with_("not", {"const": "zz_forbidden"}), "narrow"))
    # Equivalences.
    out.append(("allOf-wrap", {"allOf": [n]}, "equiv"))
    out.append(("anyOf-duplicate", {"anyOf": [n, n]}, "equiv"))
    out.append(("move-to-defs", {"$defs": {"moved": n}, "$ref": "#/$defs/moved"}, "equiv"))
    out.append(("annotate", with_("description", "Rewritten: " + str(n.get("description", "")))
                if "description" not in n else with_("$comment", "rewritten"), "equiv"))
    out.append(("anyOf-wrap-widened", {"anyOf": [n, {"type": "boolean"}]}, "widen"))
    return out


GENERIC = {
    "uniqueItems-on", "annotate", "dependentRequired-add", "not-add", "propertyNames-add", "contains-add",
    "if-then-add", "allOf-wrap", "anyOf-duplicate", "anyOf-wrap-widened", "type-set", "pattern-add",
    "move-to-defs", "type-as-list", "boolean-to-object",
}
STRUCTURAL = {"allOf-wrap", "anyOf-duplicate", "move-to-defs", "anyOf-wrap-widened"}


def mutate(schema, rng, count):
    """Up to `count` distinct (mutation, B, truth) for one schema."""
    refs = has_schema_key(schema, REF_KEYS)
    unevaluated = has_schema_key(schema, ("unevaluatedProperties", "unevaluatedItems", "$dynamicRef"))
    locs = list(locations(schema))
    pool = []
    for path, node, polarity in locs:
        if refs and path and path[0] in ("$defs", "definitions"):
            polarity = None
        for name, new, effect in candidates(node, rng):
            if name in STRUCTURAL and (refs or path and path[-1] == "$defs"):
                continue  # moving a subschema would break pointers into it or relative to it
            if name == "move-to-defs" and path:
                continue  # `#/$defs/moved` is relative to the root
            pool.append((path, name, new, effect, polarity))
    rng.shuffle(pool)
    # Keyword-specific mutations first, then the ones that apply to every subschema, one of each name
    # before any repeats, so the common ones do not crowd out the rest.
    rank, order = {}, []
    for item in pool:
        rank[item[1]] = rank.get(item[1], -1) + 1
        order.append((rank[item[1]], item[1] in GENERIC, len(order)))
    pool = [pool[i] for _, _, i in sorted(order)]
    seen, out = {canon(schema)}, []
    for path, name, new, effect, polarity in pool:
        if len(out) >= count:
            break
        b = replace_at(schema, path, new)
        key = canon(b)
        if key in seen:
            continue
        seen.add(key)
        truth = {}
        if effect == "equiv" and not unevaluated:
            truth = {"input": "compatible", "output": "compatible"}
        elif effect in ("widen", "narrow") and polarity is not None and not unevaluated and not refs:
            widen = (effect == "widen") == (polarity > 0)
            truth = {"input": "compatible"} if widen else {"output": "compatible"}
        where = "/" + "/".join(str(p) for p in path)
        out.append((f"{name}@{where}", b, truth))
    return out


def suite_pairs(gitdir, rng_seed, per_group):
    commit = git(gitdir, "rev-parse", "HEAD").decode().strip()
    files = git(gitdir, "ls-tree", "--name-only", "HEAD:tests/draft2020-12/").decode().split()
    for name in sorted(files):
        if not name.endswith(".json") or name in SKIP_FILES:
            continue
        path = f"tests/draft2020-12/{name}"
        groups = json.loads(git(gitdir, "show", f"HEAD:{path}"))
        for gi, group in enumerate(groups):
            schema = group["schema"]
            text = canon(schema)
            if "://localhost" in text or any(
                isinstance(node, dict) and isinstance(node.get(k), str) and "://" in node[k]
                for _, node, _ in locations(schema) for k in ("$ref", "$dynamicRef")
            ):
                continue  # needs a remote document
            source = f"{SUITE_REPO}@{commit}:{path}#{gi}"
            tests = [t["data"] for t in group.get("tests", [])]
            rng = random.Random(f"{rng_seed}:{source}")
            for mutation, b, truth in mutate(schema, rng, per_group):
                yield {"source": source, "mutation": mutation, "a": schema, "b": b, "truth": truth, "tests": tests}


def history_pairs(gitdir, repo, paths, extract):
    """Pairs of a tool's inputSchema at a first-parent commit and at its parent, where it changed."""
    log = git(gitdir, "log", "--first-parent", "--format=%H %P", "--", *paths).decode().splitlines()
    for line in log:
        parts = line.split()
        if len(parts) < 2:
            continue
        commit, parent = parts[0], parts[1]
        changed = git(gitdir, "diff", "--name-only", parent, commit, "--", *paths).decode().split()
        for path in changed:
            try:
                old = extract(git(gitdir, "show", f"{parent}:{path}"), path)
                new = extract(git(gitdir, "show", f"{commit}:{path}"), path)
            except (subprocess.CalledProcessError, ValueError):
                continue  # added or removed file, or not JSON
            for tool, a in old.items():
                b = new.get(tool)
                if b is not None and canon(a) != canon(b):
                    yield {"source": f"{repo}@{commit}:{path}#{tool}", "mutation": "history", "a": a, "b": b, "truth": {}}


def github_extract(blob, path):
    tool = json.loads(blob)
    name = tool.get("name") or path.rsplit("/", 1)[-1].removesuffix(".snap")
    return {name: tool["inputSchema"]} if isinstance(tool, dict) and "inputSchema" in tool else {}


def sentry_extract(blob, _path):
    tools = json.loads(blob)
    return {t["name"]: t["inputSchema"] for t in tools if isinstance(t, dict) and "name" in t and "inputSchema" in t}


def head_tools(gitdir, repo, paths, extract):
    commit = git(gitdir, "rev-parse", "HEAD").decode().strip()
    files = git(gitdir, "ls-tree", "-r", "--name-only", "HEAD", "--", *paths).decode().split()
    for path in files:
        try:
            tools = extract(git(gitdir, "show", f"HEAD:{path}"), path)
        except ValueError:
            continue
        for name, schema in sorted(tools.items()):
            yield f"{repo}@{commit}:{path}#{name}", schema


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--suite", default="/work/.mirror/json-schema-org+JSON-Schema-Test-Suite/repo")
    ap.add_argument("--github", default="/work/.mirror/github+github-mcp-server/repo")
    ap.add_argument("--sentry", default="/work/.mirror/getsentry+sentry-mcp/repo")
    ap.add_argument("--seed", type=int, default=15)
    ap.add_argument("--per-group", type=int, default=10, help="mutations per suite test group")
    ap.add_argument("--per-tool", type=int, default=5, help="mutations per MCP tool at HEAD")
    ap.add_argument("--out", default="tests/oracle/pairs")
    args = ap.parse_args()

    def write(name, rows):
        seen, n = set(), 0
        with open(f"{args.out}/{name}.jsonl", "w", encoding="utf-8") as f:
            for row in rows:
                key = canon([row["a"], row["b"]])
                if key in seen:
                    continue
                seen.add(key)
                row = {"id": f"{name}-{n:05d}", **row}
                f.write(json.dumps(row, ensure_ascii=False, separators=(",", ":")) + "\n")
                n += 1
        print(f"{name}: {n} pairs", file=sys.stderr)

    write("suite", suite_pairs(args.suite, args.seed, args.per_group))

    gh_paths, se_paths = ["pkg/github/__toolsnaps__"], ["packages/mcp-core/src/toolDefinitions.json", "packages/mcp-server/src/toolDefinitions.json"]

    def mcp_rows():
        yield from history_pairs(args.github, GITHUB_REPO, gh_paths, github_extract)
        yield from history_pairs(args.sentry, SENTRY_REPO, se_paths, sentry_extract)
        for repo, gitdir, paths, extract in ((GITHUB_REPO, args.github, gh_paths, github_extract),
                                             (SENTRY_REPO, args.sentry, se_paths, sentry_extract)):
            for source, schema in head_tools(gitdir, repo, paths, extract):
                rng = random.Random(f"{args.seed}:{source}")
                yield {"source": source, "mutation": "equiv-self", "a": schema, "b": schema,
                       "truth": {"input": "compatible", "output": "compatible"}}
                for mutation, b, truth in mutate(schema, rng, args.per_tool):
                    yield {"source": source, "mutation": mutation, "a": schema, "b": b, "truth": truth}

    write("mcp", mcp_rows())


if __name__ == "__main__":
    main()
