#!/usr/bin/env bash
# Installs the real MCP servers the tests run against, pinned, into target/servers:
#   target/servers/npm   @modelcontextprotocol/server-everything (package.json + package-lock.json here, npm ci)
#   target/servers/venv  a Python venv with the mcp package (requirements.txt here, exact versions)
# Idempotent: a stamp of the pin files' contents makes a second run a no-op (well under a second).
# Tests find the servers there (tests/common/servers.rs); without them they skip loudly, or fail
# when MCP_DRIFT_REQUIRE_SERVERS=1 (as .ci/run sets it).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
dest="$root/target/servers"
mkdir -p "$dest"

stamp_of() { cat "$@" | sha256sum | cut -d' ' -f1; }

npm_dir="$dest/npm"
npm_stamp="$(stamp_of "$here/package.json" "$here/package-lock.json")"
if [[ "$(cat "$npm_dir/.stamp" 2>/dev/null || true)" != "$npm_stamp" ]]; then
    command -v npm >/dev/null || { echo "setup.sh: npm is not installed (apt-get install nodejs npm)" >&2; exit 1; }
    rm -rf "$npm_dir"
    mkdir -p "$npm_dir"
    cp "$here/package.json" "$here/package-lock.json" "$npm_dir/"
    npm ci --prefix "$npm_dir" --no-audit --no-fund --loglevel=error >&2
    echo "$npm_stamp" >"$npm_dir/.stamp"
fi

venv="$dest/venv"
py_stamp="$(stamp_of "$here/requirements.txt")"
if [[ "$(cat "$venv/.stamp" 2>/dev/null || true)" != "$py_stamp" ]]; then
    python="${PYTHON:-python3}"
    command -v "$python" >/dev/null || { echo "setup.sh: $python is not installed" >&2; exit 1; }
    rm -rf "$venv"
    "$python" -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check --no-deps -r "$here/requirements.txt" >&2
    "$venv/bin/python" -c 'import mcp.server.fastmcp' # the pins are complete: the server's imports resolve
    echo "$py_stamp" >"$venv/.stamp"
fi

everything="$(node -p 'require(process.argv[1]).version' "$npm_dir/node_modules/@modelcontextprotocol/server-everything/package.json")"
mcp="$("$venv/bin/python" -c 'import importlib.metadata as m; print(m.version("mcp"))')"
echo "test servers in $dest: @modelcontextprotocol/server-everything $everything (npm), mcp $mcp (python $("$venv/bin/python" -c 'import platform; print(platform.python_version())'))"
