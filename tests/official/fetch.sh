#!/usr/bin/env bash
# Fetches the official schemas the conformance tests check against, from registry packages, pinned by
# their integrity hash, into target/schemas (never from outside the repository):
#   sarif-schema-2.1.0.json  the OASIS SARIF 2.1.0 schema as Microsoft's SARIF SDK ships it
#                            (npm @microsoft/sarif-multitool-linux, file sarif-2.1.0.json; only that
#                            file is taken from the tarball, nothing of it is installed or run)
# The MCP revisions' JSON schemas are published by no registry package (the official TypeScript SDK
# ships its types only); tests/official/mod.rs says how the conformance test finds them.
# Idempotent: a file already there with the pinned content is kept.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
dest="$(cd "$here/../.." && pwd)/target/schemas"
mkdir -p "$dest"

package="@microsoft/sarif-multitool-linux@5.7.0"
integrity="sha512-NxUbpq6ISCWoTQ/NfOYEwEDKq1Heka/rMoJ5R5LMydcAZQX/X7g5mWHcgxDub+0M07LC96tZ5LZHvF1Qy3gjTA=="
file_sha256="$(cat "$here/sarif.sha256")"

target="$dest/sarif-schema-2.1.0.json"
if [[ -f "$target" ]] && [[ "$(sha256sum "$target" | cut -d' ' -f1)" == "$file_sha256" ]]; then
    exit 0
fi
command -v npm >/dev/null || { echo "fetch.sh: npm is not installed" >&2; exit 1; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# `npm pack` downloads the tarball only (no install scripts, no platform check) and checks it.
(cd "$work" && npm pack "$package" --json --silent >pack.json)
got="$(node -p 'require(process.argv[1])[0].integrity' "$work/pack.json")"
[[ "$got" == "$integrity" ]] || { echo "fetch.sh: $package integrity is $got, pinned $integrity" >&2; exit 1; }
tar -xzf "$work"/*.tgz -C "$work" package/sarif-2.1.0.json
[[ "$(sha256sum "$work/package/sarif-2.1.0.json" | cut -d' ' -f1)" == "$file_sha256" ]] \
    || { echo "fetch.sh: sarif-2.1.0.json of $package is not the pinned file" >&2; exit 1; }
mv "$work/package/sarif-2.1.0.json" "$target"
echo "official schemas in $dest: sarif-schema-2.1.0.json ($package)"
