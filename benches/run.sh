#!/usr/bin/env bash
# The mcp-drift benchmark: one command, all the numbers (see README "Performance").
#
#   bash benches/run.sh                 # 1,000 to 30,000-tool pairs, lint of 15,000 tools, long enum
#   SIZES="15000" LINT= bash benches/run.sh
#   SIZES="" LINT= bash benches/run.sh  # only the million-value enum
#
# For each size (median of 5 runs, hyperfine; peak RSS from /usr/bin/time -v):
#   floor   reading both files and validating them as JSON, one thread per file, no values built
#           (examples/read_floor.rs): nothing mcp-drift does can cost less
#   diff    `diff OLD NEW --format json`, and its ratio to the floor (target: at most 1.5)
#   lock    `lock OLD`, and its ratio to diff (target: at most 1.0)
#   verify  `verify NEW --lock LOCK-of-OLD --format json`, and its ratio to diff (target: at most 1.25)
#   RSS     each command's peak over the bytes it reads (targets: diff 2.0, lock 2.0, verify 2.5)
# then each command's time at the largest size over its time at half that size (target: at most 2.1),
# and `lint` of the LINT-tool file against the floor of that one file (target: at most 1.5).
# Needs hyperfine (`apt-get install hyperfine`) and python3.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
cargo build --release --quiet --example read_floor
bin=target/release/mcp-drift
floor=target/release/examples/read_floor
work=${BENCH_DIR:-target/bench}
mkdir -p "$work"
SIZES=${SIZES-"1000 7500 15000 30000"}
LINT=${LINT-15000}

pair() {
  local dir="$work/$1"
  [ -f "$dir/new.json" ] || python3 benches/generate.py "$1" "$dir" >/dev/null
}
rss() { /usr/bin/time -v -o "$work/time.txt" "$@" >/dev/null 2>&1; awk '/Maximum resident/ {print $6}' "$work/time.txt"; }
bytes() { stat -c %s "$@" | awk '{s += $1} END {print s}'; }

printf '%-7s %-8s %-8s %-8s %-6s %-8s %-6s %-8s %-6s %-10s %-10s %-10s\n' \
  tools input_MB floor_s diff_s /floor lock_s /diff verify_s /diff diff_rss/in lock_rss/in ver_rss/in
for n in $SIZES; do
  pair "$n"
  dir="$work/$n"
  "$bin" lock "$dir/old.json" --output "$dir/old.lock" 2>/dev/null
  hyperfine --style none --warmup 1 --runs 5 --export-json "$dir/h.json" \
    -n floor "$floor $dir/old.json $dir/new.json" \
    -n diff "$bin diff $dir/old.json $dir/new.json --format json --fail-on never" \
    -n lock "$bin lock $dir/old.json --output $dir/again.lock" \
    -n verify "$bin verify $dir/new.json --lock $dir/old.lock --format json --fail-on never" >/dev/null
  python3 - "$dir/h.json" "$n" \
    "$(bytes "$dir/old.json" "$dir/new.json")" "$(bytes "$dir/old.json")" "$(bytes "$dir/new.json" "$dir/old.lock")" \
    "$(rss "$bin" diff "$dir/old.json" "$dir/new.json" --format json --fail-on never)" \
    "$(rss "$bin" lock "$dir/old.json" --output "$dir/again.lock")" \
    "$(rss "$bin" verify "$dir/new.json" --lock "$dir/old.lock" --format json --fail-on never)" <<'PY' | tee "$dir/row.txt"
import json, sys
r = {x["command"]: x["median"] for x in json.load(open(sys.argv[1]))["results"]}
n = sys.argv[2]
pair_b, old_b, verify_b = (int(x) for x in sys.argv[3:6])
d_rss, l_rss, v_rss = (int(x) * 1024 for x in sys.argv[6:9])
print(f"{n:<7} {pair_b/1e6:<8.1f} {r['floor']:<8.3f} {r['diff']:<8.3f} {r['diff']/r['floor']:<6.2f} "
      f"{r['lock']:<8.3f} {r['lock']/r['diff']:<6.2f} {r['verify']:<8.3f} {r['verify']/r['diff']:<6.2f} "
      f"{d_rss/pair_b:<10.2f} {l_rss/old_b:<10.2f} {v_rss/verify_b:<10.2f}")
PY
  rm -f "$dir/again.lock"
done

# Doubling: the largest size against half of it, when both were measured.
set -- $SIZES
if [ $# -ge 2 ]; then
  big=${!#}
  half=$((big / 2))
  if [ -f "$work/$half/h.json" ] && [ -f "$work/$big/h.json" ]; then
    python3 - "$work/$half/h.json" "$work/$big/h.json" "$half" "$big" <<'PY'
import json, sys
a, b = ({x["command"]: x["median"] for x in json.load(open(p))["results"]} for p in sys.argv[1:3])
print(f"doubling {sys.argv[3]} -> {sys.argv[4]} tools: " +
      ", ".join(f"{c} {b[c]/a[c]:.2f}x" for c in ("floor", "diff", "lock", "verify")))
PY
  fi
fi

# Lint of one large snapshot against the floor of reading that one file.
if [ -n "$LINT" ]; then
  pair "$LINT"
  f="$work/$LINT/new.json"
  hyperfine --style none --warmup 1 --runs 5 --export-json "$work/$LINT/lint.json" \
    -n floor "$floor $f" -n lint "$bin lint $f --format json --fail-on never" >/dev/null
  python3 - "$work/$LINT/lint.json" "$LINT" "$(bytes "$f")" "$(rss "$bin" lint "$f" --format json --fail-on never)" <<'PY'
import json, sys
r = {x["command"]: x["median"] for x in json.load(open(sys.argv[1]))["results"]}
print(f"lint of {sys.argv[2]} tools ({int(sys.argv[3])/1e6:.1f} MB): floor {r['floor']:.3f} s, lint {r['lint']:.3f} s, "
      f"{r['lint']/r['floor']:.2f}x the floor, peak RSS {int(sys.argv[4])*1024/int(sys.argv[3]):.2f}x the input")
PY
fi

# The long-enum case: one tool whose enum has 1,000,000 values, one of them removed.
dir="$work/enum"
[ -f "$dir/new.json" ] || python3 benches/generate.py enum "$dir"
hyperfine --style none --warmup 1 --runs 5 --export-json "$dir/h.json" \
  -n floor "$floor $dir/old.json $dir/new.json" \
  -n diff "$bin diff $dir/old.json $dir/new.json --format json --fail-on never" >/dev/null
python3 - "$dir/h.json" <<'PY'
import json, sys
r = {x["command"]: x["median"] for x in json.load(open(sys.argv[1]))["results"]}
print(f"1M-value enum, one value removed: floor {r['floor']:.3f} s, diff {r['diff']:.3f} s")
PY
