#!/usr/bin/env bash
# The mcp-drift benchmark: one command, all the numbers (see README "Performance").
#
#   bash benches/run.sh            # 1 MB, 10 MB, 50 MB and 100 MB pairs
#   SIZES="1000" bash benches/run.sh
#   SIZES="" bash benches/run.sh   # only the million-value enum
#
# For each size: parse-only time of both files with serde_json (examples/parse_only.rs), full
# `diff --format json` time, their ratio, peak RSS (/usr/bin/time -v), and time with 1 and 2 threads
# (RAYON_NUM_THREADS). Needs hyperfine (`apt-get install hyperfine`) and python3.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
cargo build --release --quiet --example parse_only
bin=target/release/mcp-drift
parse=target/release/examples/parse_only
work=${BENCH_DIR:-target/bench}
mkdir -p "$work"
# Tools per size: about 10 KB of JSON per tool.
SIZES=${SIZES-"100 1000 5000 10000"}
printf '%-8s %-9s %-10s %-10s %-7s %-10s %-10s %-8s %-6s\n' tools input parse_s diff_s ratio rss_MB t1_s t2_s speedup
for n in $SIZES; do
  dir="$work/$n"
  [ -f "$dir/new.json" ] || python3 benches/generate.py "$n" "$dir"
  bytes=$(( $(stat -c %s "$dir/old.json") + $(stat -c %s "$dir/new.json") ))
  hyperfine --style none --warmup 1 --runs 5 --export-json "$dir/h.json" \
    -n parse "$parse $dir/old.json $dir/new.json" \
    -n diff "$bin diff $dir/old.json $dir/new.json --format json --fail-on never" \
    -n t1 "RAYON_NUM_THREADS=1 $bin diff $dir/old.json $dir/new.json --format json --fail-on never" \
    -n t2 "RAYON_NUM_THREADS=2 $bin diff $dir/old.json $dir/new.json --format json --fail-on never" >/dev/null
  rss=$( { /usr/bin/time -v "$bin" diff "$dir/old.json" "$dir/new.json" --format json --fail-on never >/dev/null; } 2>&1 | awk '/Maximum resident/ {print $6}')
  python3 - "$dir/h.json" "$n" "$bytes" "$rss" <<'PY'
import json, sys
r = {x["command"]: x["median"] for x in json.load(open(sys.argv[1]))["results"]}
n, b, rss = sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
print(f"{n:<8} {b/1e6:<9.1f} {r['parse']:<10.3f} {r['diff']:<10.3f} {r['diff']/r['parse']:<7.2f} {rss/1024:<10.0f} {r['t1']:<10.3f} {r['t2']:<8.3f} {r['t1']/r['t2']:<6.2f}")
PY
done

# The long-enum case: one tool whose enum has 1,000,000 values, one of them removed.
dir="$work/enum"
[ -f "$dir/new.json" ] || python3 benches/generate.py enum "$dir"
hyperfine --style none --warmup 1 --runs 5 --export-json "$dir/h.json" \
  -n parse "$parse $dir/old.json $dir/new.json" \
  -n diff "$bin diff $dir/old.json $dir/new.json --format json --fail-on never" >/dev/null
python3 - "$dir/h.json" <<'PY'
import json, sys
r = {x["command"]: x["median"] for x in json.load(open(sys.argv[1]))["results"]}
print(f"1M-value enum, one value removed: parse {r['parse']:.3f} s, diff {r['diff']:.3f} s")
PY
