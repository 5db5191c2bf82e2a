#!/usr/bin/env bash
# The packaging check (issue #17), as a user installs mcp-drift: builds the Python wheel (maturin,
# pinned in requirements.txt) and the npm packages (npm/build.mjs, from the wheel's own binary) from
# this checkout, installs the wheel into a fresh virtual environment and the tarballs into a fresh npm
# project, and runs `--version` and the README quick start through each installed entry point (exit
# code, first and last line checked). Then the npm launcher's contract (stderr and exit codes, a
# forwarded signal, the errors for an unsupported platform and a missing platform package, the
# version check of npm/build.mjs) and the action's pip install step against the built wheel.
#
#   tests/packaging/run.sh [--release]
#
# Without --release the wheel is built in the dev profile, which reuses the debug build `cargo test`
# made just before in .ci/run (only the binary is linked again); --release builds what is shipped.
# No network but PyPI (maturin into target/packaging-venv, once); npm runs --offline, pip --no-index.
# Prints each stage's seconds, the package sizes and "packaging: N passed, M failed"; exit 1 on a failure.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
profile=dev
maturin_profile=()
case "${1:-}" in
    --release) profile=release; maturin_profile=(--release) ;;
    "") ;;
    *) echo "usage: tests/packaging/run.sh [--release]" >&2; exit 2 ;;
esac
[ "$profile" = dev ] && bin_dir=debug || bin_dir=release
version="$(sed -n '/^\[package\]/,/^\[/s/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n 1)"
out="$root/target/packaging"
tools="$root/target/packaging-venv"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
export npm_config_cache="$work/npm-cache" npm_config_update_notifier=false npm_config_fund=false npm_config_audit=false
passed=0
failed=0
ok() { passed=$((passed + 1)); }
bad() { failed=$((failed + 1)); echo "FAIL: $*" >&2; }
stage_start=$SECONDS
stage() { echo "packaging: $1 ($((SECONDS - stage_start)) s)"; stage_start=$SECONDS; }

# expect NAME CODE FIRST LAST -- COMMAND...: COMMAND exits CODE, its stdout's first line is FIRST and
# its last line LAST (an empty FIRST or LAST is not checked).
expect() {
    local name=$1 code=$2 first=$3 last=$4 got=0
    shift 5
    "$@" > "$work/stdout" 2> "$work/stderr" || got=$?
    local f l
    f="$(head -n 1 "$work/stdout")"
    l="$(tail -n 1 "$work/stdout")"
    if [ "$got" != "$code" ]; then
        bad "$name: exit code $got, expected $code; stderr: $(head -c 600 "$work/stderr")"
    elif [ -n "$first" ] && [ "$f" != "$first" ]; then
        bad "$name: first line \`$f\`, expected \`$first\`"
    elif [ -n "$last" ] && [ "$l" != "$last" ]; then
        bad "$name: last line \`$l\`, expected \`$last\`"
    else
        ok
    fi
}

# stderr_has NAME TEXT: the last command's stderr contains TEXT (and its stdout is empty).
stderr_has() {
    if ! grep -qF -- "$2" "$work/stderr"; then bad "$1: stderr lacks \`$2\`: $(head -c 600 "$work/stderr")";
    elif [ -s "$work/stdout" ]; then bad "$1: printed on stdout: $(head -c 300 "$work/stdout")";
    else ok; fi
}

old=corpus/seed-deploy-preview-region/old.json
new=corpus/seed-deploy-preview-region/new.json
same="$old"
# The command checked below is the README's quick start, word for word.
if grep -qxF "mcp-drift diff $old $new" README.md; then ok; else bad "README: the quick start is not \`mcp-drift diff $old $new\`"; fi

# The README quick start and --version through an installed entry point, run by name from PATH.
installed_checks() {
    local how=$1 dir=$2
    expect "$how --version" 0 "mcp-drift $version" "" -- env PATH="$dir:$PATH" mcp-drift --version
    expect "$how quick start" 1 "$quick_first" "1 error, 1 warning, 0 infos across 1 tool" -- \
        env PATH="$dir:$PATH" mcp-drift diff "$old" "$new"
    expect "$how clean run" 0 "no contract changes across 1 tool" "" -- env PATH="$dir:$PATH" mcp-drift diff "$same" "$same"
}

# --- the build tools, from PyPI once --------------------------------------------------------------
want_maturin="$(sed -n 's/^maturin==//p' tests/packaging/requirements.txt)"
if [ "$("$tools/bin/maturin" --version 2> /dev/null)" != "maturin $want_maturin" ]; then
    python3 -m venv "$tools"
    "$tools/bin/pip" install --quiet --disable-pip-version-check -r tests/packaging/requirements.txt
fi
stage "tools (maturin $want_maturin)"

# --- the wheel ------------------------------------------------------------------------------------
rm -rf "$out/wheels"
if ! "$tools/bin/maturin" build --locked "${maturin_profile[@]}" --out "$out/wheels" > "$work/maturin.log" 2>&1; then
    cat "$work/maturin.log" >&2
    echo "packaging: maturin build failed" >&2
    exit 1
fi
wheels=("$out/wheels"/*.whl)
[ "${#wheels[@]}" = 1 ] || { echo "packaging: expected one wheel, got ${wheels[*]}" >&2; exit 1; }
wheel="${wheels[0]}"
# What the quick start prints first, straight from the binary maturin just built.
quick_first="$("target/$bin_dir/mcp-drift" diff "$old" "$new" | head -n 1 || true)"
stage "wheel ($profile): $(basename "$wheel")"

# --- pip install <wheel> into a fresh virtual environment -----------------------------------------
# (the venv gets no pip of its own: the tools' pip installs into it, 10 s less than ensurepip here)
python3 -m venv --without-pip "$work/venv"
"$tools/bin/pip" --python "$work/venv/bin/python" install --quiet --disable-pip-version-check --no-index --no-deps "$wheel"
installed_checks "pip" "$work/venv/bin"
stage "pip install"

# --- npm: the packages from the wheel's binary, installed from their tarballs ----------------------
mapfile -t tarballs < <(node npm/build.mjs --binary "$work/venv/bin/mcp-drift" --out "$out/npm" 2> "$work/npm-build.log") \
    || { cat "$work/npm-build.log" >&2; echo "packaging: npm/build.mjs failed" >&2; exit 1; }
main_tgz="${tarballs[0]}"
platform_tgz="${tarballs[1]}"
mkdir "$work/npm" "$work/npm-bare"
echo '{"private": true}' > "$work/npm/package.json"
echo '{"private": true}' > "$work/npm-bare/package.json"
# --offline: the other platforms' optional packages are skipped, as npm skips any optional dependency
# it cannot install; nothing is fetched.
(cd "$work/npm" && npm install --offline --loglevel=error "$main_tgz" "$platform_tgz" > /dev/null)
installed_checks "npm" "$work/npm/node_modules/.bin"
# `npx mcp-drift ...` in the project, as the README says.
expect "npx quick start" 1 "$quick_first" "1 error, 1 warning, 0 infos across 1 tool" -- \
    npx --offline --prefix "$work/npm" mcp-drift diff "$old" "$new"
stage "npm install"

# --- the launcher's contract ----------------------------------------------------------------------
launcher="$work/npm/node_modules/mcp-drift/bin/mcp-drift.js"
expect "launcher: an input error" 2 "" "" -- node "$launcher" diff no-such.json "$same"
stderr_has "launcher: an input error" "no-such.json"

# A signal sent to the launcher alone ends the binary too, and the launcher ends by the same signal.
mkfifo "$work/stdin"
exec 3<> "$work/stdin"
node "$launcher" diff - "$same" <&3 > /dev/null 2>&1 &
launcher_pid=$!
child=""
for _ in $(seq 50); do
    child="$(pgrep -P "$launcher_pid" || true)"
    [ -n "$child" ] && break
    sleep 0.1
done
kill -TERM "$launcher_pid"
code=0
wait "$launcher_pid" || code=$?
exec 3>&-
if [ -z "$child" ]; then bad "launcher: signal: the binary never started";
elif [ "$code" != 143 ]; then bad "launcher: SIGTERM: exit code $code, expected 143";
else
    for _ in $(seq 20); do kill -0 "$child" 2> /dev/null || break; sleep 0.1; done
    if kill -0 "$child" 2> /dev/null; then bad "launcher: SIGTERM was not forwarded to $child"; kill -KILL "$child"; else ok; fi
fi

echo 'Object.defineProperty(process, "platform", { value: "sunos" });' > "$work/sunos.cjs"
expect "launcher: unsupported platform" 2 "" "" -- node -r "$work/sunos.cjs" "$launcher" --version
stderr_has "launcher: unsupported platform" "no prebuilt binary for this platform (sunos-"

(cd "$work/npm-bare" && npm install --offline --loglevel=error "$main_tgz" > /dev/null)
platform_pkg="@mcp-drift/cli-$(node -p 'process.platform + "-" + process.arch')"
expect "launcher: platform package missing" 2 "" "" -- "$work/npm-bare/node_modules/.bin/mcp-drift" --version
stderr_has "launcher: platform package missing" "the package $platform_pkg"
expect "launcher: MCP_DRIFT_BINARY" 0 "mcp-drift $version" "" -- \
    env MCP_DRIFT_BINARY="$work/venv/bin/mcp-drift" "$work/npm-bare/node_modules/.bin/mcp-drift" --version

# npm/build.mjs refuses packages whose version is not Cargo.toml's.
mkdir "$work/skew"
cp -r Cargo.toml README.md npm "$work/skew/"
sed -i "s/\"version\": \"$version\"/\"version\": \"0.0.0-skew\"/" "$work/skew/npm/mcp-drift/package.json"
expect "npm/build.mjs: version skew" 1 "" "" -- node "$work/skew/npm/build.mjs" --binary "$work/venv/bin/mcp-drift" --out "$work/skew/out"
stderr_has "npm/build.mjs: version skew" "npm/mcp-drift/package.json: version 0.0.0-skew"
stage "launcher contract"

# --- the action's install step takes the pip path with the built wheel -----------------------------
# Its script and its MCP_DRIFT_VERSION, read out of action.yml as the runner reads them, with this
# wheel's hash pinned as a release would pin it; the wheel directory stands in for PyPI.
python3 - "$work/install.sh" "$work/install.env" << 'EOF'
import sys
lines = open("action.yml", encoding="utf-8").read().split("\n")
at = lines.index("      id: install")
env, script, mode = [], [], None
for line in lines[at + 1:]:
    if line.startswith("    - "):
        break
    if line == "      env:":
        mode = "env"
    elif line == "      run: |":
        mode = "run"
    elif mode == "env" and line.startswith("        MCP_DRIFT_VERSION: "):
        env.append(line.strip().replace(": ", "=", 1))
    elif mode == "run" and (line.startswith("        ") or not line):
        script.append(line[8:])
open(sys.argv[1], "w").write("\n".join(script) + "\n")
open(sys.argv[2], "w").write("\n".join(env) + "\n")
EOF
mkdir -p "$work/runner"
: > "$work/gh-output"
wheel_hash="sha256:$(sha256sum "$wheel" | cut -d' ' -f1)"
expect "action: pip path" 0 "" "" -- env $(cat "$work/install.env") MCP_DRIFT_WHEEL_HASHES="$wheel_hash" INSTALL=auto RUNNER_TEMP="$work/runner" \
    MCP_DRIFT_ROOT="$work/runner/mcp-drift" GITHUB_OUTPUT="$work/gh-output" GITHUB_ACTION_PATH="$root" \
    PIP_NO_INDEX=1 PIP_FIND_LINKS="$out/wheels" bash -eo pipefail "$work/install.sh"
if grep -q "^mcp-drift action: installed mcp-drift $version with pip (released wheel) in [0-9]* s$" "$work/stdout" \
    && grep -qx "path=pip" "$work/gh-output"; then ok; else bad "action: pip path: log $(cat "$work/stdout") output $(cat "$work/gh-output")"; fi
action_bin="$(sed -n 's/^bin=//p' "$work/gh-output")"
expect "action: pip path quick start" 1 "$quick_first" "1 error, 1 warning, 0 infos across 1 tool" -- "$action_bin" diff "$old" "$new"
stage "action install step"

size() { echo "$(basename "$1") $(($(stat -c %s "$1") / 1024)) KiB"; }
echo "packaging: sizes: $(size "$wheel"), $(size "$main_tgz"), $(size "$platform_tgz")"
echo "packaging: $passed passed, $failed failed"
[ "$failed" = 0 ]
