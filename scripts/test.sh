#!/usr/bin/env bash
# Installs paritygym with its test extras and every reference system, then runs the default test suite.
# Extra arguments go to pytest (e.g. `scripts/test.sh -m slow` for the long suites).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install_system_deps.sh
python -m pip install -e ".[test]"
set +e
python -m pytest "$@"
rc=$?
set -e
if [ "$rc" -eq 5 ]; then
    echo "pytest collected no tests: that is a failure, not a pass" >&2
    exit 1
fi
exit "$rc"
