#!/usr/bin/env bash
# Installs paritygym with its test extras and every reference system, then runs the default test suite.
# Extra arguments go to pytest (e.g. `scripts/test.sh -m slow` for the long suites).
# The suite runs on every core with pytest-xdist, one env's tests per worker (groups: tests/conftest.py).
# PARITYGYM_TEST_WORKERS sets the number of workers (default: the cores this process may use, at most 4,
# since each worker holds its envs' compiled programs, up to ~5 GB; 0: no xdist, one process).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install_system_deps.sh
python -m pip install -e ".[test]"
set +e
cores="$(nproc)"  # CPUs this process may use (xdist's `auto` counts the host's physical cores instead)
workers="${PARITYGYM_TEST_WORKERS:-$(( cores < 4 ? cores : 4 ))}"
if [ "$workers" = "0" ]; then
    python -m pytest "$@"
else
    python -m pytest -n "$workers" --dist loadgroup "$@"
fi
rc=$?
set -e
if [ "$rc" -eq 5 ]; then
    echo "pytest collected no tests: that is a failure, not a pass" >&2
    exit 1
fi
exit "$rc"
