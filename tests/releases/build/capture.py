#!/usr/bin/env python3
"""Rebuild a release data set: tests/releases/ (default) or another set folder (--set).

For every server and version listed in <set>/build/servers.in.json: install that exact
version in its own prefix (npm) or venv (PyPI) under a scratch directory, start it
with `mcp-drift capture`, and write <set>/captures/<slug>/<version>.json. Then write
<set>/servers.json, pairs.json and (through build/spots.py) spots.json.

Usage:
    MCP_DRIFT=/path/to/mcp-drift python3 tests/releases/build/capture.py [--work DIR]
        [--set DIR] [--only SLUG ...] [--jobs N] [--no-capture] [--recapture]

  --set DIR      the data set folder (default: tests/releases, the folder above this
                 script). Its inputs and kept state are in DIR/build/ (servers.in.json,
                 skipped.json, released.json, locks/); the scripts stay here. E.g.
                 `--set tests/releases/fresh`
  --work DIR     scratch directory for installs (default /tmp/releases-work)
  --only SLUG    only install/capture these servers (the index files are rebuilt
                 from every capture on disk anyway)
  --no-capture   only rebuild servers.json / pairs.json / spots.json
  --recapture    capture again even where a capture file exists

Needs: node + npm, python3 (3.11 was used) with venv, the npm and PyPI registries.
Python dependencies are resolved as of the release: `pip install PKG==VER
--uploaded-prior-to <upload time of PKG==VER + 1 day>` (pip >= 25.3, which the script
installs into each venv first). npm has no working equivalent here, so npm
dependencies float within the package's semver ranges; the resolved versions of
each package's direct dependencies are written to build/locks/.

Split: if servers.in.json has a top-level "split" (e.g. "fresh"), every server, pair
and spot of the set gets it; otherwise the sha256-alternating dev/holdout rule below.
"""
import argparse
import concurrent.futures as cf
import contextlib
import datetime as dt
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import threading
import urllib.request
from pathlib import Path

HERE = Path(__file__).resolve().parent  # the scripts
ROOT = HERE.parent  # the set folder: tests/releases unless --set
BUILD = HERE  # the set's inputs and kept state: ROOT/build
CAPTURES = ROOT / "captures"
LOCKS = BUILD / "locks"


def use_set(d):
    global ROOT, BUILD, CAPTURES, LOCKS
    ROOT = Path(d).resolve()
    BUILD = ROOT / "build"
    CAPTURES = ROOT / "captures"
    LOCKS = BUILD / "locks"
CAPTURE_TIMEOUT = "60s"
HARD_TIMEOUT = 180  # seconds, whole capture process


def slug_of(registry, package):
    s = package.replace("@", "").replace("/", "__")
    s = re.sub(r"[^A-Za-z0-9._-]", "_", s)
    return f"{registry}__{s}"


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


# ---------------------------------------------------------------- registry facts
_PYPI_CACHE = {}


def pypi_upload_time(package, version):
    """Earliest upload time of the files of PKG==VER, from the index's JSON API.

    The index address is taken from pip itself, so nothing here names a host."""
    from pip._internal.models.index import PyPI  # the default index pip uses

    if package not in _PYPI_CACHE:
        url = f"{PyPI.pypi_url}/{package}/json"
        with urllib.request.urlopen(url, timeout=60) as r:
            _PYPI_CACHE[package] = json.load(r)
    data = _PYPI_CACHE[package]
    times = [f["upload_time_iso_8601"] for f in data.get("releases", {}).get(version, [])]
    return min(times) if times else None


def npm_times(package):
    p = run(["npm", "view", package, "time", "--json"])
    if p.returncode != 0:
        return {}
    try:
        return json.loads(p.stdout)
    except ValueError:
        return {}


# ---------------------------------------------------------------- install
def npm_prefix(work, package, version):
    return work / "npm" / f"{package.replace('/', '__')}@{version}"


def pypi_venv(work, package, version):
    return work / "py" / f"{package}@{version}"


def install_npm(work, package, version):
    prefix = npm_prefix(work, package, version)
    pj = prefix / "node_modules" / package / "package.json"
    if pj.exists():
        return None
    prefix.mkdir(parents=True, exist_ok=True)
    p = run(["npm", "install", "--prefix", str(prefix), f"{package}@{version}",
             "--no-audit", "--no-fund", "--ignore-scripts", "--loglevel=error"])
    if p.returncode != 0 or not pj.exists():
        return "npm install failed: " + (p.stderr.strip().splitlines() or ["?"])[-1]
    return None


def install_pypi(work, package, version, cutoff_days=1):
    venv = pypi_venv(work, package, version)
    marker = venv / ".installed"
    if marker.exists():
        return None
    if venv.exists():
        shutil.rmtree(venv)
    p = run([sys.executable, "-m", "venv", str(venv)])
    if p.returncode != 0:
        return "venv failed: " + p.stderr.strip()[-300:]
    pip = str(venv / "bin" / "pip")
    p = run([pip, "install", "-q", "--disable-pip-version-check", "pip>=25.3"])
    if p.returncode != 0:
        return "pip upgrade failed: " + p.stderr.strip()[-300:]
    up = pypi_upload_time(package, version)
    args = [pip, "install", "-q", "--disable-pip-version-check", f"{package}=={version}"]
    if up:
        cutoff = dt.datetime.fromisoformat(up.replace("Z", "+00:00")) + dt.timedelta(days=cutoff_days)
        args += ["--uploaded-prior-to", cutoff.strftime("%Y-%m-%dT%H:%M:%SZ")]
    p = run(args)
    if p.returncode != 0:
        return "pip install failed: " + (p.stderr.strip().splitlines() or ["?"])[-1]
    marker.write_text((up or "") + f" +{cutoff_days}d\n")
    return None


def write_lock(work, srv, version):
    slug = srv["slug"]
    out = LOCKS / slug / f"{version}.txt"
    out.parent.mkdir(parents=True, exist_ok=True)
    if srv["registry"] == "pypi":
        venv = pypi_venv(work, srv["package"], version)
        p = run([str(venv / "bin" / "pip"), "freeze", "--all", "--disable-pip-version-check"])
        lines = sorted(l for l in p.stdout.splitlines() if not l.lower().startswith(("pip==", "setuptools==", "wheel==")))
        cut = (venv / ".installed").read_text().strip()
        head = f"# pip freeze; dependencies resolved as uploaded before the upload time of {srv['package']}=={version} plus a margin: {cut}\n"
        out.write_text(head + "\n".join(lines) + "\n")
    else:
        prefix = npm_prefix(work, srv["package"], version)
        nm = prefix / "node_modules"
        pj = json.loads((nm / srv["package"] / "package.json").read_text())
        lines = []
        for dep in sorted((pj.get("dependencies") or {}).keys()):
            # npm hoists; a nested copy wins if present
            for cand in (nm / srv["package"] / "node_modules" / dep / "package.json", nm / dep / "package.json"):
                if cand.exists():
                    lines.append(f"{dep}@{json.loads(cand.read_text()).get('version')}  (wanted {pj['dependencies'][dep]})")
                    break
            else:
                lines.append(f"{dep}@MISSING  (wanted {pj['dependencies'][dep]})")
        out.write_text("# resolved direct dependencies (npm install, floating within semver ranges)\n" + "\n".join(lines) + "\n")


# ---------------------------------------------------------------- start command
def program(work, srv, version):
    """The argv prefix that starts the server, and a printable form of it."""
    pkg = srv["package"]
    if srv["registry"] == "npm":
        prefix = npm_prefix(work, pkg, version)
        pkgdir = prefix / "node_modules" / pkg
        pj = json.loads((pkgdir / "package.json").read_text())
        b = pj.get("bin")
        if isinstance(b, str):
            entry = b
        elif isinstance(b, dict):
            name = srv.get("bin") or (next(iter(b)) if len(b) == 1 else pkg.split("/")[-1])
            entry = b.get(name) or next(iter(b.values()))
        else:
            entry = pj.get("main", "index.js")
        entry = os.path.normpath(entry)
        return ["node", str(pkgdir / entry)], f"node <prefix>/node_modules/{pkg}/{entry}"
    venv = pypi_venv(work, pkg, version)
    script = srv.get("bin") or pkg
    return [str(venv / "bin" / script)], f"<venv>/bin/{script}"


def capture(binary, work, srv, version, recapture=False):
    slug = srv["slug"]
    out = CAPTURES / slug / f"{version}.json"
    if out.exists() and not recapture:
        return None
    out.parent.mkdir(parents=True, exist_ok=True)
    # a server whose tool descriptions quote its working directory gets the same scratch
    # path for every version ("fixed_home": true), so the path is no fake change between
    # versions; its captures then run one at a time
    fixed = bool(srv.get("fixed_home"))
    home = work / "home" / (slug if fixed else f"{slug}@{version}")
    with (_HOME_LOCKS.setdefault(slug, threading.Lock()) if fixed else contextlib.nullcontext()):
        return _capture_in(binary, srv, version, out, home, work)


_HOME_LOCKS = {}


def _capture_in(binary, srv, version, out, home, work):
    slug = srv["slug"]
    if home.exists():
        shutil.rmtree(home)
    home.mkdir(parents=True)
    prog, _ = program(work, srv, version)
    argv = []
    for a in srv["argv"]:
        if a == "{bin}":
            argv += prog
        else:
            argv.append(a.replace("{home}", str(home)))
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "LANG": "C.UTF-8",
        "TZ": "UTC",
        "NO_COLOR": "1",
    }
    if srv["registry"] == "pypi":
        # Python's str hashing is salted per process; a server that builds a schema from a
        # set (mcp-atlassian's `fields` default) would differ run to run without this
        env["PYTHONHASHSEED"] = "0"
    env.update({k: v.replace("{home}", str(home)) for k, v in (srv.get("env") or {}).items()})
    tmp = out.with_suffix(".tmp")
    cmd = [binary, "capture", "--quiet", "--timeout", CAPTURE_TIMEOUT, "-o", str(tmp), "--"] + argv
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=str(home), timeout=HARD_TIMEOUT)
    except subprocess.TimeoutExpired:
        return f"mcp-drift capture did not finish within {HARD_TIMEOUT}s"
    if p.returncode != 0 or not tmp.exists():
        msg = [l for l in p.stderr.strip().splitlines() if l.startswith("error:")]
        first = msg[0] if msg else (p.stderr.strip().splitlines() or ["(no stderr)"])[-1]
        # the most telling line of the server's own stderr, if mcp-drift quoted it
        errs = [l for l in msg[1:] if re.search(r"Error\b|Exception\b|error:", l.split("stderr:", 1)[-1])]
        last = errs[0].strip() if errs else (msg[-1] if len(msg) > 1 else "")
        if tmp.exists():
            tmp.unlink()
        return f"capture failed (exit {p.returncode}): {first}" + (f" / {last}" if last and last != first else "")
    tmp.replace(out)
    return None


# ---------------------------------------------------------------- index files
def build_indexes(servers, skipped, released, fixed_split=None):
    srv_out, pairs = [], []
    for srv in servers:
        slug = srv["slug"]
        got = [v for v in srv["versions"] if (CAPTURES / slug / f"{v}.json").exists()]
        if not got:
            continue
        cmd = " ".join(["{bin}" if a == "{bin}" else a for a in srv["argv"]])
        srv_out.append({
            "slug": slug,
            "registry": srv["registry"],
            "package": srv["package"],
            "versions": got,
            "command": {
                "argv": cmd,
                "bin": ("node <prefix>/node_modules/<package>/<package.json bin entry"
                        + (f" '{srv['bin']}'" if srv.get("bin") else "") + ">")
                if srv["registry"] == "npm" else f"<venv>/bin/{srv.get('bin') or srv['package']}",
                "env_names": sorted(srv.get("env") or {}),
                "also_set": "PATH, HOME=<fresh scratch dir, also the cwd>, LANG=C.UTF-8, TZ=UTC, NO_COLOR=1" + (", PYTHONHASHSEED=0" if srv["registry"] == "pypi" else "") + "; nothing else inherited",
            },
            "note": srv.get("note", ""),
            "skipped_versions": [{"version": v, "why": w} for v, w in skipped.get(slug, [])],
            "released": {v: released.get(slug, {}).get(v) for v in got},
        })
    # split: by sha256 of the slug, alternating, independent of content
    order = sorted((s["slug"] for s in srv_out), key=lambda s: hashlib.sha256(s.encode()).hexdigest())
    split = {s: (fixed_split or ("dev" if i % 2 == 0 else "holdout")) for i, s in enumerate(order)}
    for s in srv_out:
        s["split"] = split[s["slug"]]
        vs = s["versions"]
        for a, b in zip(vs, vs[1:]):
            pa, pb = CAPTURES / s["slug"] / f"{a}.json", CAPTURES / s["slug"] / f"{b}.json"
            pairs.append({
                "id": f"{s['slug']}/{a}..{b}",
                "slug": s["slug"],
                "old": f"captures/{s['slug']}/{a}.json",
                "new": f"captures/{s['slug']}/{b}.json",
                "identical": pa.read_bytes() == pb.read_bytes(),
                "split": split[s["slug"]],
            })
    (ROOT / "servers.json").write_text(json.dumps(srv_out, indent=2) + "\n")
    (ROOT / "pairs.json").write_text(json.dumps(pairs, indent=2) + "\n")
    p = run([sys.executable, str(HERE / "spots.py"), str(ROOT)])
    sys.stderr.write(p.stderr)
    print(p.stdout, end="")


WORK = Path("/tmp/releases-work")


def main():
    global WORK
    ap = argparse.ArgumentParser()
    ap.add_argument("--work", default="/tmp/releases-work")
    ap.add_argument("--set", dest="set_dir", help="data set folder (default: tests/releases)")
    ap.add_argument("--only", nargs="*")
    ap.add_argument("--jobs", type=int, default=4)
    ap.add_argument("--no-capture", action="store_true")
    ap.add_argument("--recapture", action="store_true")
    args = ap.parse_args()
    WORK = Path(args.work)
    if args.set_dir:
        use_set(args.set_dir)
    binary = os.environ.get("MCP_DRIFT", "")
    cfg = json.loads((BUILD / "servers.in.json").read_text())
    servers = cfg["servers"]
    for s in servers:
        s["slug"] = slug_of(s["registry"], s["package"])

    skipped_file = BUILD / "skipped.json"  # why a version has no capture (kept from earlier runs)
    skipped = {k: [tuple(x) for x in v] for k, v in json.loads(skipped_file.read_text()).items()} if skipped_file.exists() else {}
    released_file = BUILD / "released.json"
    released = json.loads(released_file.read_text()) if released_file.exists() else {}

    todo = [s for s in servers if not args.only or s["slug"] in args.only or s["package"] in args.only]
    if not args.no_capture:
        if not binary or not os.access(binary, os.X_OK):
            sys.exit("set MCP_DRIFT to the built mcp-drift binary")
        jobs = [(s, v) for s in todo for v in s["versions"]]
        inst = {}
        with cf.ThreadPoolExecutor(args.jobs) as ex:
            futs = {(ex.submit(install_npm, WORK, s["package"], v) if s["registry"] == "npm" else
                     ex.submit(install_pypi, WORK, s["package"], v, (s.get("cutoff_days") or {}).get(v, 1))): (s, v)
                    for s, v in jobs}
            for f in cf.as_completed(futs):
                s, v = futs[f]
                try:
                    inst[(s["slug"], v)] = f.result()
                except Exception as e:  # noqa: BLE001
                    inst[(s["slug"], v)] = f"install error: {e}"
                print(f"install {s['slug']} {v}: {inst[(s['slug'], v)] or 'ok'}", flush=True)
        for s in todo:
            skipped[s["slug"]] = []
            rel = released.setdefault(s["slug"], {})
            times = npm_times(s["package"]) if s["registry"] == "npm" else {}
            for v in s["versions"]:
                if s["registry"] == "npm":
                    rel[v] = times.get(v)
                else:
                    try:
                        rel[v] = pypi_upload_time(s["package"], v)
                    except Exception:  # noqa: BLE001
                        rel[v] = None

        def one(s, v):
            err = inst.get((s["slug"], v))
            if err:
                return err
            write_lock(WORK, s, v)
            return capture(binary, WORK, s, v, args.recapture)

        with cf.ThreadPoolExecutor(2) as ex:
            futs = {ex.submit(one, s, v): (s, v) for s, v in jobs}
            for f in cf.as_completed(futs):
                s, v = futs[f]
                try:
                    err = f.result()
                except Exception as e:  # noqa: BLE001
                    err = f"error: {e}"
                if err:
                    skipped[s["slug"]].append((v, err))
                print(f"capture {s['slug']} {v}: {err or 'ok'}", flush=True)
        for s in todo:
            order = {v: i for i, v in enumerate(s["versions"])}
            skipped[s["slug"]].sort(key=lambda x: order[x[0]])
        skipped_file.write_text(json.dumps(skipped, indent=2) + "\n")
        released_file.write_text(json.dumps(released, indent=2) + "\n")
    build_indexes(servers, skipped, released, cfg.get("split"))


if __name__ == "__main__":
    main()
