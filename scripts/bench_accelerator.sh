#!/usr/bin/env bash
# Benches every JAX env on the accelerator present (batch sweeps, loop and scan, compile time, device
# memory) and writes runs/bench_accelerator/table.md and results.json; arguments go to
# scripts/bench_accelerator.py (--envs, --modes, --max-batch, --budget-s, --out, ...).
# On the lent TPU machine, run it from the project root after `. .tpu/setup.sh`.
set -euo pipefail
cd "$(dirname "$0")/.."
exec python3 scripts/bench_accelerator.py "$@"
