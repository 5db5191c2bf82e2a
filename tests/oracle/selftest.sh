#!/usr/bin/env bash
# The oracle's own test: it must fail an engine that is wrong and pass one that never claims anything.
# Uses fake_engine.py in place of mcp-drift (through the `compatibility` key, not the adapter).
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
fail=0
check() {  # expected-exit-code verdict
    FAKE_VERDICT="$2" "$here/run.sh" --bin "$here/fake_engine.py" --seed 1 --limit 60 --examples 5 --out "$out/$2" >"$out/$2.txt" 2>&1
    local rc=$?
    if [ "$rc" -ne "$1" ]; then
        echo "selftest: FAKE_VERDICT=$2 exited $rc, expected $1"; cat "$out/$2.txt"; fail=1
    else
        echo "selftest: FAKE_VERDICT=$2 exited $rc as expected: $(grep -o 'wrong verdicts: [0-9]*' "$out/$2.txt")"
    fi
}
check 1 compatible
check 1 witness
check 0 undecided
exit $fail
