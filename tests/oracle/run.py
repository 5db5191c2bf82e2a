#!/usr/bin/env python3
"""Ask mcp-drift for containment verdicts on the committed pairs and judge them independently.

Takes the pair files (tests/oracle/pairs/*.jsonl, see gen.py) and an mcp-drift binary; returns a
summary table (stdout, Markdown), `wrong.jsonl` (every wrong verdict with its counterexample) and
`verdicts.jsonl` under --out, and exit code 1 when the wrong verdicts exceed --max-wrong.
Judges with python `jsonschema` (Draft202012Validator, format not asserted) and instances drawn with
`hypothesis-jsonschema`; it shares no code with mcp-drift. See tests/oracle/README.md.
"""

import argparse
import collections
import hashlib
import json
import multiprocessing
import os
import random
import signal
import subprocess
import sys
import tempfile
import time

DIRECTIONS = ("input", "output")
PROBES = [
    None, True, False, 0, 1, -1, 2, 1.5, -0.5, 10, 100, 1e300, "", "a", "bb", "foo", "zz", "0", "ZZ_new",
    [], [1], [1, 1], ["a"], [None], [1, "a"], [[]], [{}], {}, {"foo": 1}, {"foo": "a"}, {"bar": 1},
    {"foo": None}, {"zz_added": 1}, {"zz_new": "a"}, {"a": 1, "b": 2}, {"": 0},
]


MISSING = object()  # `None` is a JSON value (null), so "no counterexample" needs its own marker


class Timeout(Exception):
    pass


def on_alarm(_signum, _frame):
    raise Timeout()


# ---------------------------------------------------------------- asking mcp-drift

def as_input(schema):
    """mcp-drift refuses a boolean `inputSchema` (MCP wants an object): ask with its object spelling."""
    if schema is True:
        return {}
    if schema is False:
        return {"not": {}}
    return schema


def snapshot(batch, side):
    return {"tools": [
        {"name": name, "description": "Oracle pair.", "inputSchema": as_input(pair[side]), "outputSchema": pair[side]}
        for name, pair in batch
    ]}


def run_binary(binary, batch, tmp):
    old, new = os.path.join(tmp, "old.json"), os.path.join(tmp, "new.json")
    for path, side in ((old, "a"), (new, "b")):
        with open(path, "w", encoding="utf-8") as f:
            json.dump(snapshot(batch, side), f)
    proc = subprocess.run([binary, "diff", old, new, "--format", "json", "--fail-on", "never"],
                          capture_output=True, timeout=600, check=False)
    if proc.returncode != 0:
        return None, proc.stderr.decode("utf-8", "replace")[:500]
    return json.loads(proc.stdout), None


def verdicts_from(doc, names):
    """Per tool name and direction: {"verdict", "witness", "reason", "rules"}."""
    out = {}
    compat = doc.get("compatibility")
    findings = collections.defaultdict(list)
    for f in doc.get("findings", []):
        findings[f.get("tool")].append(f)
    for name in names:
        out[name] = {}
        for d in DIRECTIONS:
            mine = [f for f in findings.get(name, []) if str(f.get("rule", "")).startswith(d + "-")]
            rules = sorted({f"{f['rule']}:{f.get('severity')}" for f in mine})
            refused = [f.get("message", "") for f in findings.get(name, []) if f.get("rule") in ("tool-invalid", "tool-unnamed")]
            refused += [n for n in doc.get("notes", []) if isinstance(n, str) and f"tool `{name}` was invalid" in n]
            if refused:
                out[name][d] = {"verdict": "undecided", "witness": None, "has_witness": False, "rules": rules,
                                "reason": f"tool refused: {refused[0]}", "adapter": True}
                continue
            if isinstance(compat, dict) and isinstance(compat.get(name), dict):
                v = compat[name].get(d) or {}
                out[name][d] = {"verdict": v.get("verdict"), "witness": v.get("witness"),
                                "has_witness": "witness" in v and v.get("verdict") == "incompatible",
                                "reason": v.get("reason"), "rules": rules, "adapter": False}
                continue
            # Adapter for binaries without "compatibility": an error with a witness is a proven break.
            broken = [f for f in mine if f.get("severity") == "error" and isinstance(f.get("witness"), dict)
                      and "instance" in f["witness"]]
            undecided = [f for f in mine if str(f.get("rule", "")).endswith("-cannot-decide")]
            if broken:
                v = {"verdict": "incompatible", "witness": broken[0]["witness"]["instance"], "has_witness": True,
                     "reason": broken[0]["rule"]}
            elif undecided:
                v = {"verdict": "undecided", "witness": None, "has_witness": False,
                     "reason": undecided[0].get("message", "")}
            else:
                v = {"verdict": "compatible", "witness": None, "has_witness": False, "reason": None}
            out[name][d] = {**v, "rules": rules, "adapter": True}
    return out


def ask(binary, pairs, batch_size):
    """Verdicts for every pair; a batch the binary refuses is split until the refusing pair is alone."""
    result, errors = {}, {}
    with tempfile.TemporaryDirectory(prefix="mcp-drift-oracle-") as tmp:
        todo = [pairs[i:i + batch_size] for i in range(0, len(pairs), batch_size)]
        while todo:
            chunk = todo.pop()
            batch = [(f"p{i:06d}", p) for i, p in enumerate(chunk)]
            doc, err = run_binary(binary, batch, tmp)
            if doc is None:
                if len(chunk) == 1:
                    errors[chunk[0]["id"]] = err
                else:
                    todo += [chunk[: len(chunk) // 2], chunk[len(chunk) // 2:]]
                continue
            for name, v in verdicts_from(doc, [n for n, _ in batch]).items():
                result[dict(batch)[name]["id"]] = v
    return result, errors


# ---------------------------------------------------------------- judging

def validator(schema):
    from jsonschema import Draft202012Validator
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema)  # no format_checker: `format` is an annotation in 2020-12


def valid(v, instance):
    return v.is_valid(instance)


_DRAWN = {}
DRAW_DIR = None  # set from --out: drawn instances persist per (schema, n, seed) across runs
CACHED_ONLY = False  # --cached-draws-only: a schema not drawn yet is unchecked, not drawn now


def draw_key(schema, n, seed):
    text = json.dumps([schema, n, seed], sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def load_draws(directory):
    if not os.path.isdir(directory):
        return
    for name in os.listdir(directory):
        with open(os.path.join(directory, name), encoding="utf-8") as f:
            for line in f:
                try:
                    row = json.loads(line)
                except ValueError:
                    continue  # a line cut short by an interrupted run
                _DRAWN[row["key"]] = (row.get("drawn"), row.get("error"))


def hypothesis_examples(schema, n, seed):
    """Up to n instances drawn from `schema`, or raises when hypothesis-jsonschema cannot handle it.
    Cached per schema (a test group's schema is the accepting side of ten pairs), on disk too."""
    key = draw_key(schema, n, seed)
    if key not in _DRAWN and CACHED_ONLY:
        raise DrawError("not drawn (--cached-draws-only)")
    if key not in _DRAWN:
        try:
            _DRAWN[key] = (_draw(schema, n, seed), None)
        except Timeout:
            raise
        except Exception as e:  # noqa: BLE001 - remembered, re-raised for every pair asking
            _DRAWN[key] = (None, type(e).__name__)
        if DRAW_DIR:
            os.makedirs(DRAW_DIR, exist_ok=True)
            with open(os.path.join(DRAW_DIR, f"draws-{os.getpid()}.jsonl"), "a", encoding="utf-8") as f:
                drawn, error = _DRAWN[key]
                f.write(json.dumps({"key": key, "drawn": drawn, "error": error}) + "\n")
    drawn, error = _DRAWN[key]
    if error is not None:
        raise DrawError(error)
    return drawn


class DrawError(Exception):
    pass


def draw_task(task):
    schema, n, seed, seconds = task
    signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds, 1.0)
    try:
        hypothesis_examples(schema, n, seed)
    except Exception:  # noqa: BLE001 - only filling the cache
        pass
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)


def init_worker(draw_dir, cached_only=False):
    global DRAW_DIR, CACHED_ONLY
    DRAW_DIR = draw_dir
    CACHED_ONLY = cached_only
    load_draws(draw_dir)


def _draw(schema, n, seed):
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import seed as hseed
    from hypothesis_jsonschema import from_schema
    strategy = from_schema(schema)
    drawn = []

    @hseed(seed)
    @settings(max_examples=n, deadline=None, database=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))
    @given(strategy)
    def collect(x):
        drawn.append(x)

    collect()
    return drawn


def judge_one(task):
    pair, verdicts, examples, seed, per_pair_seconds = task
    signal.signal(signal.SIGALRM, on_alarm)
    # repeats every second: a Timeout raised inside a gc callback is swallowed by Python
    signal.setitimer(signal.ITIMER_REAL, per_pair_seconds, 1.0)
    out = {}
    try:
        try:
            va, vb = validator(pair["a"]), validator(pair["b"])
        except Exception as e:  # noqa: BLE001 - an invalid schema is judged as unchecked
            return {d: {"judgement": "unchecked", "note": f"schema not usable by jsonschema: {type(e).__name__}"}
                    for d in DIRECTIONS}
        for d in DIRECTIONS:
            accept, other = (va, vb) if d == "input" else (vb, va)
            accept_schema = pair["a"] if d == "input" else pair["b"]
            v = verdicts[d]
            truth = pair.get("truth", {}).get(d)
            if v["verdict"] == "incompatible":
                w = v["witness"]
                try:
                    ok = valid(accept, w) and not valid(other, w)
                except Timeout:
                    raise
                except Exception as e:  # noqa: BLE001
                    out[d] = {"judgement": "unchecked", "note": f"validator failed: {type(e).__name__}"}
                    continue
                if not ok:
                    out[d] = {"judgement": "wrong", "kind": "witness-not-confirmed", "counterexample": w,
                              "note": f"accepted by {'A' if d == 'input' else 'B'}: {valid(accept, w)}, "
                                      f"rejected by {'B' if d == 'input' else 'A'}: {not valid(other, w)}"}
                elif truth == "compatible":
                    out[d] = {"judgement": "truth-conflict", "counterexample": w,
                              "note": "witness confirmed although construction says compatible (generator bug)"}
                else:
                    out[d] = {"judgement": "right"}
                continue
            if v["verdict"] != "compatible":
                out[d] = {"judgement": "undecided", "note": v.get("reason")}
                continue
            found, note = MISSING, None
            candidates = list(pair.get("tests", [])) + PROBES
            for other_d in DIRECTIONS:
                if verdicts[other_d].get("has_witness"):
                    candidates.append(verdicts[other_d]["witness"])
            for x in candidates:
                try:
                    if valid(accept, x) and not valid(other, x):
                        found = x
                        break
                except Timeout:
                    raise
                except Exception:  # noqa: BLE001
                    continue
            hypothesis_ok = True
            if found is MISSING and truth != "compatible":
                try:
                    for x in hypothesis_examples(accept_schema, examples, seed):
                        if valid(accept, x) and not valid(other, x):
                            found = x
                            break
                except Timeout:
                    raise
                except DrawError as e:  # hypothesis-jsonschema rejects some 2020-12 schemas
                    hypothesis_ok, note = False, f"hypothesis-jsonschema: {e}"
                except Exception as e:  # noqa: BLE001
                    hypothesis_ok, note = False, f"hypothesis-jsonschema: {type(e).__name__}"
            if found is not MISSING:
                out[d] = {"judgement": "wrong", "kind": "counterexample", "counterexample": found}
            elif truth == "compatible":
                out[d] = {"judgement": "right", "note": "by construction"}
            elif not hypothesis_ok:
                out[d] = {"judgement": "unchecked", "note": note}
            else:
                out[d] = {"judgement": "right"}
    except Timeout:
        for d in DIRECTIONS:
            out.setdefault(d, {"judgement": "unchecked", "note": "judge timed out"})
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
    return out


# ---------------------------------------------------------------- report

def source_group(pair):
    repo = pair["source"].split("@", 1)[0]
    if repo.endswith("JSON-Schema-Test-Suite"):
        return "suite (mutations, rewrites)"
    kind = "history" if pair["mutation"] == "history" else "mutations, rewrites"
    return f"{repo} ({kind})"


def kind_of(pair, d, v, j):
    """A short label for grouping wrong verdicts: which way the engine erred and what it reported."""
    mutation = pair["mutation"].split("@", 1)[0]
    if j.get("kind") == "witness-not-confirmed":
        return f"{d}: break claimed by {v.get('reason')} ({mutation}), witness not confirmed: {j.get('note')}"
    if v["rules"]:
        return f"{d}: called compatible, reported only as {', '.join(v['rules'][:2])} ({mutation})"
    return f"{d}: called compatible, no finding ({mutation})"


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bin", default=os.path.join(here, "..", "..", "target", "release", "mcp-drift"))
    ap.add_argument("--pairs", nargs="*", default=[os.path.join(here, "pairs", "suite.jsonl"),
                                                   os.path.join(here, "pairs", "mcp.jsonl")])
    ap.add_argument("--seed", type=int, default=0, help="sampling (with --limit) and hypothesis seed")
    ap.add_argument("--limit", type=int, default=0, help="judge a seeded sample of this many pairs (0: all)")
    ap.add_argument("--examples", type=int, default=40, help="hypothesis examples per compatible verdict")
    ap.add_argument("--max-wrong", type=int, default=0)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--batch", type=int, default=400, help="pairs per mcp-drift run")
    ap.add_argument("--timeout", type=int, default=20, help="seconds of judging per pair")
    ap.add_argument("--cached-draws-only", action="store_true",
                    help="use only instances drawn by earlier runs into --out (the rest is unchecked)")
    ap.add_argument("--draw-only", action="store_true",
                    help="only fill the cache of drawn instances (both sides of every pair), no binary needed")
    ap.add_argument("--out", default=os.path.join(here, "..", "..", "target", "oracle"))
    args = ap.parse_args()

    started = time.monotonic()
    # hypothesis keeps a `.hypothesis` directory of its own (even with database=None), partly in the
    # working directory: keep it out of the work tree by working in --out.
    args.bin, args.out = os.path.abspath(args.bin), os.path.abspath(args.out)
    args.pairs = [os.path.abspath(p) for p in args.pairs]
    os.makedirs(args.out, exist_ok=True)
    os.chdir(args.out)
    os.environ.setdefault("HYPOTHESIS_STORAGE_DIRECTORY", os.path.join(args.out, ".hypothesis"))
    pairs = []
    for path in args.pairs:
        with open(path, encoding="utf-8") as f:
            pairs += [json.loads(line) for line in f if line.strip()]
    if args.limit and args.limit < len(pairs):
        pairs = sorted(random.Random(args.seed).sample(pairs, args.limit), key=lambda p: p["id"])

    draw_dir = os.path.join(args.out, "draws")
    if args.draw_only:
        schemas = {draw_key(p[s], args.examples, args.seed): p[s] for p in pairs for s in ("a", "b")}
        with multiprocessing.Pool(args.jobs, init_worker, (draw_dir,)) as pool:
            pool.map(draw_task, [(s, args.examples, args.seed, args.timeout) for s in schemas.values()], chunksize=10)
        print(f"drew for {len(schemas)} schemas in {time.monotonic() - started:.1f} s")
        return
    verdicts, errors = ask(args.bin, pairs, args.batch)
    asked = time.monotonic()
    tasks = [(p, verdicts[p["id"]], args.examples, args.seed, args.timeout) for p in pairs if p["id"] in verdicts]
    # Judged in a seeded shuffled order (results kept in pair order), so that a run stopped early has
    # drawn instances for every source alike; --cached-draws-only then finishes it from the cache.
    order = list(range(len(tasks)))
    random.Random(args.seed).shuffle(order)
    with multiprocessing.Pool(args.jobs, init_worker, (draw_dir, args.cached_draws_only)) as pool:
        shuffled = pool.map(judge_one, [tasks[i] for i in order], chunksize=10)
    judged = [None] * len(tasks)
    for i, j in zip(order, shuffled):
        judged[i] = j
    judged_at = time.monotonic()

    os.makedirs(args.out, exist_ok=True)
    rows = collections.defaultdict(lambda: collections.Counter())
    wrong, kinds, undecided_reasons, unchecked_notes, conflicts = [], collections.Counter(), collections.Counter(), collections.Counter(), []
    examples_of = {}
    with open(os.path.join(args.out, "verdicts.jsonl"), "w", encoding="utf-8") as vf:
        for (pair, v, *_), j in zip(tasks, judged):
            group = source_group(pair)
            for d in DIRECTIONS:
                c = rows[(group, d)]
                c["pairs"] += 1
                c[v[d]["verdict"]] += 1
                c["j:" + j[d]["judgement"]] += 1
                if j[d]["judgement"] == "wrong":
                    c["wrong " + v[d]["verdict"]] += 1
                    k = kind_of(pair, d, v[d], j[d])
                    kinds[k] += 1
                    examples_of.setdefault(k, pair["id"])
                    wrong.append({"id": pair["id"], "direction": d, "verdict": v[d]["verdict"],
                                  "counterexample": j[d].get("counterexample"), "kind": j[d].get("kind"),
                                  "note": j[d].get("note"), "rules": v[d]["rules"], "source": pair["source"],
                                  "mutation": pair["mutation"]})
                elif j[d]["judgement"] == "truth-conflict":
                    conflicts.append({"id": pair["id"], "direction": d, "witness": j[d].get("counterexample")})
                elif j[d]["judgement"] == "undecided":
                    undecided_reasons[str(j[d].get("note"))[:90]] += 1
                elif j[d]["judgement"] == "unchecked":
                    unchecked_notes[str(j[d].get("note"))] += 1
            vf.write(json.dumps({"id": pair["id"], "verdicts": v, "judged": j}, default=str) + "\n")
    for pid, err in errors.items():
        rows[("refused by mcp-drift", "both")]["pairs"] += 1
    with open(os.path.join(args.out, "wrong.jsonl"), "w", encoding="utf-8") as wf:
        for w in wrong:
            wf.write(json.dumps(w, default=str) + "\n")

    adapted = sum(1 for v in verdicts.values() for d in DIRECTIONS if v[d].get("adapter"))
    source = "compatibility key" if adapted == 0 else f"compatibility key, {adapted} answers from the adapter (refused tools)"
    if adapted == sum(len(DIRECTIONS) for _ in verdicts.values()):
        source = "adapter from findings"
    print(f"mcp-drift: {args.bin} ({source}); "
          f"{len(pairs)} pairs, seed {args.seed}, {args.examples} hypothesis examples")
    print()
    print("| source | direction | pairs | decided | compatible | incompatible | undecided | wrong compatible "
          "| wrong incompatible | unchecked |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    total = collections.Counter()
    for (group, d), c in sorted(rows.items()):
        total.update(c)
        decided = c["compatible"] + c["incompatible"]
        pct = 100.0 * decided / c["pairs"] if c["pairs"] else 0.0
        print(f"| {group} | {d} | {c['pairs']} | {pct:.1f}% | {c['compatible']} | {c['incompatible']} | "
              f"{c['undecided']} | {c['wrong compatible']} | {c['wrong incompatible']} | {c['j:unchecked']} |")
    decided = total["compatible"] + total["incompatible"]
    print(f"| all | both | {total['pairs']} | {100.0 * decided / max(total['pairs'], 1):.1f}% | "
          f"{total['compatible']} | {total['incompatible']} | {total['undecided']} | {total['wrong compatible']} | "
          f"{total['wrong incompatible']} | {total['j:unchecked']} |")
    print()
    if errors:
        print(f"{len(errors)} pairs refused by mcp-drift (exit code 2), e.g. {next(iter(errors))}: "
              f"{next(iter(errors.values())).strip()[:200]}")
    print("Most common kinds of wrong verdicts:")
    for k, n in kinds.most_common(10):
        print(f"  {n:5d}  {k}  (e.g. {examples_of[k]})")
    print("Most common undecided reasons:")
    for k, n in undecided_reasons.most_common(8):
        print(f"  {n:5d}  {k}")
    print("Unchecked:")
    for k, n in unchecked_notes.most_common(8):
        print(f"  {n:5d}  {k}")
    if conflicts:
        print(f"{len(conflicts)} truth conflicts (generator claims compatible, witness confirmed), e.g. {conflicts[0]}")
    print(f"time: asking {asked - started:.1f} s, judging {judged_at - asked:.1f} s; "
          f"wrong verdicts: {len(wrong)} (max {args.max_wrong}); details in {args.out}/wrong.jsonl")
    sys.exit(1 if len(wrong) > args.max_wrong else 0)


if __name__ == "__main__":
    main()
