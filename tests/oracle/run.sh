#!/usr/bin/env bash
# Run the independent containment oracle (tests/oracle/README.md). Creates a venv under target/ with
# jsonschema, hypothesis and hypothesis-jsonschema from PyPI when missing, then runs run.py with the
# given arguments (--seed, --limit, --bin PATH, --max-wrong N, ...). Exit code 1: too many wrong verdicts.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
venv="$root/target/oracle-venv"
# (importing hypothesis makes a .hypothesis directory in the working directory: check from target/)
if ! (mkdir -p "$root/target" && cd "$root/target" && "$venv/bin/python" -c 'import jsonschema, hypothesis, hypothesis_jsonschema') 2>/dev/null; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check -r "$here/requirements.txt"
fi
exec "$venv/bin/python" "$here/run.py" "$@"
