#!/usr/bin/env bash
# Acceptance run on real repositories' histories (issue #13): every consecutive release pair of
# github-mcp-server that has pkg/github/__toolsnaps__, and every consecutive first-parent commit of
# getsentry/sentry-mcp that touches packages/mcp-core/src/toolDefinitions.json, read with REV:PATH
# from a plain clone. Prints one line per pair (exit code, findings per severity, seconds) and a total.
#
# usage: benches/real-repos.sh GITHUB_MCP_SERVER_CLONE SENTRY_MCP_CLONE [MCP_DRIFT_BINARY]
set -uo pipefail
gh=${1:?github-mcp-server clone}
sentry=${2:?sentry-mcp clone}
bin=${3:-$(cd "$(dirname "$0")/.." && pwd)/target/release/mcp-drift}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

run_pair() { # repo old new path
  local repo=$1 a=$2 b=$3 path=$4 start end code
  start=$(date +%s.%N)
  (cd "$repo" && "$bin" diff "$a:$path" "$b:$path" --format json >"$out/json" 2>"$out/err")
  code=$?
  end=$(date +%s.%N)
  python3 - "$out/json" "$code" "$(echo "$end - $start" | bc)" "$a" "$b" "$out/err" <<'PY'
import json, sys
path, code, secs, a, b, err = sys.argv[1:]
counts = {}
try:
    for f in json.load(open(path)).get("findings", []):
        counts[f["severity"]] = counts.get(f["severity"], 0) + 1
except Exception:
    pass
e = open(err).read().strip().splitlines()
print(f"{a}..{b}\texit={code}\terror={counts.get('error',0)}\twarning={counts.get('warning',0)}\t"
      f"info={counts.get('info',0)}\t{float(secs):.3f}s" + (f"\t{e[0][:160]}" if code == "2" or code not in ("0","1") else ""))
PY
}

has() { git -C "$1" cat-file -e "$2:$3" 2>/dev/null; }

{
  dir=pkg/github/__toolsnaps__
  prev=
  for t in $(git -C "$gh" tag | grep -E '^v[0-9]+\.[0-9]+\.[0-9]+$' | sort -V); do
    if [ -n "$prev" ] && { has "$gh" "$prev" "$dir" || has "$gh" "$t" "$dir"; }; then
      echo "github-mcp-server $(run_pair "$gh" "$prev" "$t" "$dir")"
    fi
    prev=$t
  done
  file=packages/mcp-core/src/toolDefinitions.json
  prev=
  for c in $(git -C "$sentry" log --first-parent --reverse --format=%H HEAD -- "$file"); do
    if [ -n "$prev" ]; then
      echo "sentry-mcp $(run_pair "$sentry" "${prev:0:12}" "${c:0:12}" "$file")"
    fi
    prev=$c
  done
} | tee "$out/all"
python3 - "$out/all" <<'PY'
import sys, collections, re
lines = open(sys.argv[1]).read().splitlines()
codes = collections.Counter(re.search(r"exit=(\d+)", l).group(1) for l in lines)
sev = collections.Counter()
times = []
for l in lines:
    for k in ("error", "warning", "info"):
        sev[k] += int(re.search(k + r"=(\d+)", l).group(1))
    times.append(float(re.search(r"([\d.]+)s", l.split("\t")[5]).group(1)))
times.sort()
print(f"pairs={len(lines)} exit codes={dict(codes)} findings={dict(sev)} "
      f"time median={times[len(times)//2]:.3f}s max={times[-1]:.3f}s")
PY
