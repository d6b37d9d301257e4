#!/usr/bin/env bash
# Sets up (packages + build, see setup.sh) and runs the whole test suite with CTest.
# This is the README's test command; .ci/run calls exactly this.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
"$root/scripts/setup.sh"
jobs=$(nproc 2>/dev/null || echo 2)
ctest --test-dir "$root/build" --output-on-failure -j "$jobs" "$@"
